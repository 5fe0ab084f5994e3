#include "godot_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "config.h"

namespace spritz::import_detail::godot {

namespace {

// Nesting deeper than this is refused: no real scene comes near it, and a
// hostile file must not exhaust the stack.
constexpr int kMaxDepth = 64;

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == ':' ||
         c == '.' || c == '-' || c == '@';
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& name)
      : s_(text), name_(name), lines_(text, name) {}

  Document parse() {
    Document doc;
    doc.source_name = name_;
    skip_blank();
    while (i_ < s_.size()) {
      if (s_[i_] == '[') {
        doc.sections.push_back(section_header());
      } else {
        if (doc.sections.empty()) fail("expected a [section] header");
        property(doc.sections.back());
      }
      skip_blank();
    }
    for (const Section& sec : doc.sections)
      if (sec.tag == "gd_scene" || sec.tag == "gd_resource")
        if (const Value* f = sec.attr("format"); f && f->is_number()) {
          // Godot has written formats 1 to 4; a number that is no small whole
          // number is not a format any Godot wrote (and must not reach a cast).
          if (!(f->number >= 1 && f->number <= 99 && f->number == static_cast<int>(f->number)))
            throw Error(f->loc, "format=" + f->as_text() +
                                    " is not a Godot scene format (Godot writes 1 to 4)");
          doc.format = static_cast<int>(f->number);
        }
    return doc;
  }

 private:
  std::string_view s_;
  const std::string& name_;
  size_t i_ = 0;
  LineIndex lines_;

  SourceLoc here() const { return lines_.at(i_); }
  [[noreturn]] void fail(const std::string& what) const { throw Error(here(), what); }

  // Spaces, newlines and `;` comments (a comment runs to the end of its line).
  void skip_blank() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++i_;
      } else if (c == ';') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }
  void skip_inline() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }

  std::string word() {
    const size_t b = i_;
    while (i_ < s_.size() && is_word(s_[i_])) ++i_;
    return std::string(s_.substr(b, i_ - b));
  }

  Section section_header() {
    Section sec;
    sec.loc = here();
    ++i_;  // [
    skip_inline();
    sec.tag = word();
    if (sec.tag.empty()) fail("expected a section name after [");
    while (true) {
      skip_inline();
      if (i_ >= s_.size() || s_[i_] == '\n')
        fail("this [" + sec.tag + "] header is not closed by ]");
      if (s_[i_] == ']') {
        ++i_;
        break;
      }
      const std::string key = word();
      if (key.empty()) fail("expected key=value in the [" + sec.tag + "] header");
      skip_inline();
      if (i_ >= s_.size() || s_[i_] != '=') fail("expected = after " + key);
      ++i_;
      skip_inline();
      sec.attrs.emplace_back(key, value(0));
    }
    return sec;
  }

  void property(Section& sec) {
    std::string key;
    if (s_[i_] == '"') {
      key = string_literal().text;
    } else {
      key = word();
    }
    if (key.empty()) fail("expected a property name (key = value)");
    skip_inline();
    if (i_ >= s_.size() || s_[i_] != '=') fail("expected = after the property " + key);
    ++i_;
    skip_blank();
    sec.props.emplace_back(key, value(0));
  }

  Value string_literal() {
    Value v;
    v.kind = Value::Kind::kString;
    v.loc = here();
    ++i_;  // "
    while (true) {
      if (i_ >= s_.size()) throw Error(v.loc, "this string is not closed by \"");
      const char c = s_[i_++];
      if (c == '"') break;
      if (c == '\\' && i_ < s_.size()) {
        const char e = s_[i_++];
        switch (e) {
          case 'n':
            v.text += '\n';
            break;
          case 't':
            v.text += '\t';
            break;
          case 'r':
            v.text += '\r';
            break;
          default:
            v.text += e;
            break;
        }
      } else {
        v.text += c;
      }
    }
    return v;
  }

  Value number_literal() {
    Value v;
    v.kind = Value::Kind::kNumber;
    v.loc = here();
    const size_t b = i_;
    if (s_[i_] == '-' || s_[i_] == '+') ++i_;
    while (i_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
            s_[i_] == 'E' ||
            ((s_[i_] == '-' || s_[i_] == '+') && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E'))))
      ++i_;
    const std::string t(s_.substr(b, i_ - b));
    // inf, -inf and nan are words Godot writes for those floats.
    if (t == "-" || t == "+") {
      const std::string w = word();
      if (w == "inf" || w == "inf_neg") {
        v.number = t == "-" ? -HUGE_VAL : HUGE_VAL;
        return v;
      }
      throw Error(v.loc, "expected a number, got " + printable(t + w));
    }
    char* end = nullptr;
    v.number = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size() || t.empty())
      throw Error(v.loc, "expected a number, got " + printable(t));
    return v;
  }

  // A list of values up to `close`, separated by commas; a dictionary-style
  // `"key": value` pair inside a call (Object(...)) is kept as two items.
  void list(Value& v, char close, int depth) {
    skip_blank();
    while (true) {
      if (i_ >= s_.size()) throw Error(v.loc, std::string("this list is not closed by ") + close);
      if (s_[i_] == close) {
        ++i_;
        return;
      }
      v.items.push_back(value(depth + 1));
      skip_blank();
      if (i_ < s_.size() && s_[i_] == ':') {
        ++i_;
        skip_blank();
        v.items.push_back(value(depth + 1));
        skip_blank();
      }
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        skip_blank();
      } else if (i_ < s_.size() && s_[i_] != close) {
        fail(std::string("expected , or ") + close);
      }
    }
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("values are nested too deeply (more than 64 levels)");
    skip_blank();
    if (i_ >= s_.size()) fail("expected a value, got the end of the file");
    Value v;
    v.loc = here();
    const char c = s_[i_];
    if (c == '"') return string_literal();
    if ((c == '&' || c == '^') && i_ + 1 < s_.size() && s_[i_ + 1] == '"') {
      ++i_;  // StringName and NodePath literals read as strings
      return string_literal();
    }
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)))
      return number_literal();
    if (c == '[') {
      v.kind = Value::Kind::kArray;
      ++i_;
      list(v, ']', depth);
      return v;
    }
    if (c == '{') {
      v.kind = Value::Kind::kDict;
      ++i_;
      Value flat;
      flat.loc = v.loc;
      list(flat, '}', depth);
      if (flat.items.size() % 2) throw Error(v.loc, "a dictionary entry lacks its value");
      for (size_t k = 0; k + 1 < flat.items.size(); k += 2)
        v.entries.emplace_back(std::move(flat.items[k]), std::move(flat.items[k + 1]));
      return v;
    }
    const std::string w = word();
    if (w.empty()) fail(std::string("unexpected character ") + printable(std::string(1, c)));
    if (w == "true" || w == "false") {
      v.kind = Value::Kind::kBool;
      v.boolean = w == "true";
      return v;
    }
    if (w == "null") return v;
    if (w == "inf" || w == "nan") {
      v.kind = Value::Kind::kNumber;
      v.number = w == "inf" ? HUGE_VAL : std::nan("");
      return v;
    }
    // Godot 4's typed arrays: Array[Type]([...]).
    if (i_ < s_.size() && s_[i_] == '[') {
      int nest = 0;
      while (i_ < s_.size()) {
        if (s_[i_] == '[') ++nest;
        if (s_[i_] == ']' && --nest == 0) {
          ++i_;
          break;
        }
        ++i_;
      }
    }
    skip_inline();
    if (i_ < s_.size() && s_[i_] == '(') {
      v.kind = Value::Kind::kCall;
      v.text = w;
      ++i_;
      list(v, ')', depth);
      // Array[T]([...]) is its array.
      if (w == "Array" && v.items.size() == 1 && v.items[0].kind == Value::Kind::kArray)
        return std::move(v.items[0]);
      return v;
    }
    v.kind = Value::Kind::kName;
    v.text = w;
    return v;
  }
};

}  // namespace

std::vector<double> Value::numbers() const {
  std::vector<double> out;
  out.reserve(items.size());
  for (const Value& v : items) {
    if (!v.is_number()) return {};
    out.push_back(v.number);
  }
  return out;
}

const Value* Value::entry(std::string_view key) const {
  for (const auto& [k, v] : entries)
    if (k.kind == Kind::kString && k.text == key) return &v;
  return nullptr;
}

const Value* Section::attr(std::string_view key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return &v;
  return nullptr;
}

const Value* Section::prop(std::string_view key) const {
  for (const auto& [k, v] : props)
    if (k == key) return &v;
  return nullptr;
}

std::string Value::as_text() const {
  if (kind == Kind::kString || kind == Kind::kName) return text;
  if (kind != Kind::kNumber) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", number);
  return buf;
}

std::string Section::attr_text(std::string_view key) const {
  const Value* v = attr(key);
  return v ? v->as_text() : "";
}

Document parse_document(std::string_view text, const std::string& source_name) {
  return Parser(text, source_name).parse();
}

bool looks_like_godot(std::string_view text) {
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const std::string_view rest = text.substr(i);
  return rest.substr(0, 9) == "[gd_scene" || rest.substr(0, 12) == "[gd_resource";
}

}  // namespace spritz::import_detail::godot
