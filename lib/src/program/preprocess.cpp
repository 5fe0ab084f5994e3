// The program language's preprocessor (preprocess.h), written for spritz:
// C's preprocessor is the model, cut to what Godot's shading language has.
//
// One pass over the lexer's tokens keeps a stack of conditional blocks
// (#if .. #endif) and a table of macros. A name that is a macro, outside a
// skipped block, is replaced by its body (a function-like macro's
// parameters by its arguments, each expanded first), and the result is
// scanned again with that macro turned off, so no macro expands within
// itself. Every step is bounded: 64 expansions deep, 1,048,576 tokens out.
#include "preprocess.h"

#include <algorithm>
#include <map>
#include <utility>

namespace spritz::program {
namespace {

constexpr size_t kMaxTokens = size_t{1} << 20;
constexpr int kMaxDepth = 64;

struct Macro {
  bool function = false;
  std::vector<std::string> params;
  std::vector<Token> body;
};

// One #if's block: whether its lines are kept now, whether a branch of it
// was taken, whether the block around it is kept, and whether #else came.
struct Block {
  bool on = false, taken = false, outer = true, had_else = false;
  Pos pos;
};

class Preprocessor {
 public:
  explicit Preprocessor(std::vector<LexError>& errors) : errors_(errors) {
    // Godot 4.4's built-in defines; spritz runs as the Forward+ renderer.
    for (const auto& [name, value] : {std::pair<const char*, uint64_t>{"RENDERER_COMPATIBILITY", 0},
                                      {"RENDERER_MOBILE", 1},
                                      {"RENDERER_FORWARD_PLUS", 2},
                                      {"CURRENT_RENDERER", 2}}) {
      Token t;
      t.kind = Tok::kInt;
      t.text = std::to_string(value);
      t.integer = value;
      macros_[name].body.push_back(t);
    }
  }

  std::vector<Token> run(const std::vector<Token>& in) {
    std::vector<Token> out;
    for (size_t i = 0; i < in.size(); ++i) {
      const Token& t = in[i];
      if (t.kind == Tok::kEnd) break;
      if (t.kind == Tok::kDirective) {
        directive(t);
        continue;
      }
      if (!on()) continue;
      if (stopped_) break;
      const std::vector<Token> one = take(in, i);
      std::vector<std::string> off;
      expand(one, off, t.pos, 0, out);
    }
    for (const Block& b : blocks_) error(b.pos, "this #if is never closed with #endif");
    Token end;
    end.pos = in.empty() ? Pos{1, 1} : in.back().pos;
    out.push_back(end);
    return out;
  }

 private:
  std::vector<LexError>& errors_;
  std::map<std::string, Macro> macros_;
  std::vector<Block> blocks_;
  bool stopped_ = false;  // past the token budget
  size_t emitted_ = 0;

  bool on() const { return blocks_.empty() || blocks_.back().on; }
  void error(Pos p, std::string message) { errors_.push_back({p, std::move(message)}); }

  // The token at i, and where it names a function-like macro followed by
  // '(', the call up to its ')' (i moves past it).
  std::vector<Token> take(const std::vector<Token>& in, size_t& i) const {
    const auto m = in[i].kind == Tok::kIdent ? macros_.find(in[i].text) : macros_.end();
    if (m == macros_.end() || !m->second.function || i + 1 >= in.size() ||
        in[i + 1].kind != Tok::kPunct || in[i + 1].text != "(")
      return {in[i]};
    std::vector<Token> call{in[i]};
    int depth = 0;
    for (size_t j = i + 1; j < in.size() && in[j].kind != Tok::kEnd; ++j) {
      if (in[j].kind == Tok::kDirective) break;
      call.push_back(in[j]);
      if (in[j].kind != Tok::kPunct) continue;
      if (in[j].text == "(") ++depth;
      if (in[j].text == ")" && --depth == 0) {
        i = j;
        return call;
      }
    }
    return {in[i]};  // not closed: the name stays as it is, and the parser says so
  }

  void emit(const Token& t, std::vector<Token>& out) {
    if (++emitted_ > kMaxTokens) {
      if (!stopped_) error(t.pos, "macros expand to more than 1048576 tokens");
      stopped_ = true;
      return;
    }
    out.push_back(t);
  }

  // `tokens` with every macro expanded, into `out`; `off` are the macros
  // being expanded around them (a stack); below the top level every token
  // takes the place `at`.
  // long: a scan with the argument collection of a function-like macro inline.
  void expand(const std::vector<Token>& tokens, std::vector<std::string>& off, Pos at, int depth,
              std::vector<Token>& out) {
    if (depth > kMaxDepth) {
      error(at, "macros expand within each other more than 64 deep");
      stopped_ = true;
      return;
    }
    for (size_t i = 0; i < tokens.size() && !stopped_; ++i) {
      Token t = tokens[i];
      if (depth > 0) t.pos = at;
      const bool expanding = std::find(off.begin(), off.end(), t.text) != off.end();
      const auto m = t.kind == Tok::kIdent && !expanding ? macros_.find(t.text) : macros_.end();
      if (m == macros_.end()) {
        emit(t, out);
        continue;
      }
      const Macro& macro = m->second;
      if (!macro.function) {
        off.push_back(t.text);
        expand(macro.body, off, t.pos, depth + 1, out);
        off.pop_back();
        continue;
      }
      if (i + 1 >= tokens.size() || tokens[i + 1].kind != Tok::kPunct ||
          tokens[i + 1].text != "(") {
        emit(t, out);  // a function-like macro's name without a call is a name
        continue;
      }
      std::vector<std::vector<Token>> args(1);
      int nest = 0;
      size_t j = i + 2;
      for (; j < tokens.size(); ++j) {
        const Token& a = tokens[j];
        if (a.kind == Tok::kPunct && nest == 0 && (a.text == ")" || a.text == ",")) {
          if (a.text == ")") break;
          args.emplace_back();
          continue;
        }
        if (a.kind == Tok::kPunct && a.text == "(") ++nest;
        if (a.kind == Tok::kPunct && a.text == ")") --nest;
        args.back().push_back(a);
      }
      if (j >= tokens.size()) {
        error(t.pos, "the call of macro " + t.text + " is not closed with ')'");
        return;
      }
      i = j;
      if (macro.params.empty() && args.size() == 1 && args[0].empty()) args.clear();
      if (args.size() != macro.params.size()) {
        error(t.pos, "macro " + t.text + " takes " + std::to_string(macro.params.size()) +
                         " argument" + (macro.params.size() == 1 ? "" : "s") + ", found " +
                         std::to_string(args.size()));
        continue;
      }
      // Each argument expanded on its own, then put in for its parameter.
      std::vector<std::vector<Token>> done(args.size());
      for (size_t k = 0; k < args.size(); ++k) expand(args[k], off, t.pos, depth + 1, done[k]);
      std::vector<Token> body;
      for (const Token& b : macro.body) {
        const auto p = b.kind == Tok::kIdent
                           ? std::find(macro.params.begin(), macro.params.end(), b.text)
                           : macro.params.end();
        if (p == macro.params.end()) {
          body.push_back(b);
          continue;
        }
        const auto& arg = done[static_cast<size_t>(p - macro.params.begin())];
        body.insert(body.end(), arg.begin(), arg.end());
        if (body.size() > kMaxTokens) {
          error(t.pos, "macros expand to more than 1048576 tokens");
          stopped_ = true;
          return;
        }
      }
      off.push_back(t.text);
      expand(body, off, t.pos, depth + 1, out);
      off.pop_back();
    }
  }

  // long: one branch per directive.
  void directive(const Token& d) {
    std::vector<Token> line = lex_at(d.text, d.pos, errors_);
    line.pop_back();           // kEnd
    if (line.empty()) return;  // a lone '#' is a null directive
    const std::string name = line[0].kind == Tok::kIdent ? line[0].text : "";
    const std::vector<Token> rest(line.begin() + 1, line.end());
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      Block b;
      b.pos = line[0].pos;
      b.outer = on();
      bool yes = false;
      if (b.outer) yes = name == "if" ? condition(rest, b.pos) : defined_name(rest, name, b.pos);
      if (name == "ifndef") yes = !yes;
      b.on = b.outer && yes;
      b.taken = b.on;
      blocks_.push_back(b);
      return;
    }
    if (name == "elif" || name == "else" || name == "endif") {
      if (blocks_.empty()) {
        error(line[0].pos, "#" + name + " without #if");
        return;
      }
      Block& b = blocks_.back();
      if (name == "endif") {
        blocks_.pop_back();
        return;
      }
      if (b.had_else) error(line[0].pos, "#" + name + " after #else");
      if (name == "else") {
        b.had_else = true;
        b.on = b.outer && !b.taken;
      } else {
        b.on = b.outer && !b.taken && condition(rest, line[0].pos);
      }
      b.taken = b.taken || b.on;
      return;
    }
    if (!on()) return;
    if (name == "define") return define(rest, line[0].pos);
    if (name == "undef") {
      if (rest.size() != 1 || rest[0].kind != Tok::kIdent)
        error(line[0].pos, "#undef takes one macro name");
      else
        macros_.erase(rest[0].text);
      return;
    }
    if (name == "error") {
      std::string message;
      for (const Token& t : rest) message += (message.empty() ? "" : " ") + t.text;
      error(line[0].pos, "#error " + message);
      return;
    }
    if (name == "include") {
      error(line[0].pos, "#include is not supported: a program is one file; paste the text in");
      return;
    }
    if (name == "pragma") return;  // Godot's pragmas change nothing here
    error(line[0].pos, "unknown preprocessor directive #" + name);
  }

  void define(const std::vector<Token>& rest, Pos at) {
    if (rest.empty() || rest[0].kind != Tok::kIdent) {
      error(at, "#define needs a macro name");
      return;
    }
    if (macros_.size() >= 4096) {
      error(at, "more than 4096 macros");
      return;
    }
    Macro m;
    size_t i = 1;
    // A function-like macro's '(' touches its name.
    const Token& name = rest[0];
    if (rest.size() > 1 && rest[1].kind == Tok::kPunct && rest[1].text == "(" &&
        rest[1].pos.line == name.pos.line && rest[1].pos.col == name.pos.col + name.text.size()) {
      m.function = true;
      i = 2;
      while (i < rest.size() && !(rest[i].kind == Tok::kPunct && rest[i].text == ")")) {
        if (rest[i].kind == Tok::kIdent) {
          m.params.push_back(rest[i].text);
        } else if (!(rest[i].kind == Tok::kPunct && rest[i].text == ",")) {
          error(rest[i].pos, "a macro's parameters are names");
          return;
        }
        ++i;
      }
      if (i >= rest.size()) {
        error(at, "the parameters of macro " + name.text + " are not closed with ')'");
        return;
      }
      ++i;
    }
    m.body.assign(rest.begin() + static_cast<std::ptrdiff_t>(i), rest.end());
    macros_[name.text] = std::move(m);
  }

  bool defined_name(const std::vector<Token>& rest, const std::string& directive, Pos at) {
    if (rest.size() != 1 || rest[0].kind != Tok::kIdent) {
      error(at, "#" + directive + " takes one macro name");
      return false;
    }
    return macros_.count(rest[0].text) > 0;
  }

  // An #if's condition: `defined NAME` and `defined(NAME)` first, then the
  // macros expanded, then an integer expression of C's operators, in which a
  // name left over is 0.
  bool condition(const std::vector<Token>& rest, Pos at) {
    std::vector<Token> line;
    for (size_t i = 0; i < rest.size(); ++i) {
      if (rest[i].kind == Tok::kIdent && rest[i].text == "defined") {
        const bool paren = i + 1 < rest.size() && rest[i + 1].text == "(";
        const size_t n = i + (paren ? 2 : 1);
        if (n >= rest.size() || rest[n].kind != Tok::kIdent ||
            (paren && (n + 1 >= rest.size() || rest[n + 1].text != ")"))) {
          error(rest[i].pos, "defined takes a macro name");
          return false;
        }
        Token v;
        v.kind = Tok::kInt;
        v.integer = macros_.count(rest[n].text) ? 1 : 0;
        v.pos = rest[i].pos;
        line.push_back(v);
        i = n + (paren ? 1 : 0);
        continue;
      }
      line.push_back(rest[i]);
    }
    std::vector<Token> expanded;
    std::vector<std::string> off;
    expand(line, off, at, 1, expanded);
    if (expanded.empty()) {
      error(at, "#if needs a condition");
      return false;
    }
    Condition c{expanded, 0, errors_, at};
    const int64_t v = c.ternary();
    if (c.i < expanded.size()) c.fail(expanded[c.i].pos, "unexpected '" + expanded[c.i].text + "'");
    return !c.failed && v != 0;
  }

  // C's integer constant expressions, in 64 bits; division by zero and
  // shifts past 63 are errors, not undefined.
  struct Condition {
    const std::vector<Token>& t;
    size_t i;
    std::vector<LexError>& errors;
    Pos at;
    bool failed = false;
    int depth = 0;

    void fail(Pos p, const std::string& m) {
      if (!failed) errors.push_back({p, "in #if: " + m});
      failed = true;
    }
    bool is(const char* p) const {
      return i < t.size() && t[i].kind == Tok::kPunct && t[i].text == p;
    }
    int64_t ternary() {
      const int64_t c = binary(0);
      if (!is("?")) return c;
      ++i;
      const int64_t a = ternary();
      if (!is(":")) {
        fail(i < t.size() ? t[i].pos : at, "expected ':'");
        return 0;
      }
      ++i;
      const int64_t b = ternary();
      return c ? a : b;
    }
    // Binary operators by C's precedence, lowest first.
    int64_t binary(int level) {
      static const std::vector<std::vector<const char*>> kLevels = {{"||"},
                                                                    {"&&"},
                                                                    {"|"},
                                                                    {"^"},
                                                                    {"&"},
                                                                    {"==", "!="},
                                                                    {"<", ">", "<=", ">="},
                                                                    {"<<", ">>"},
                                                                    {"+", "-"},
                                                                    {"*", "/", "%"}};
      if (level == static_cast<int>(kLevels.size())) return unary();
      int64_t a = binary(level + 1);
      for (;;) {
        const char* op = nullptr;
        for (const char* o : kLevels[static_cast<size_t>(level)])
          if (is(o)) op = o;
        if (!op || failed) return a;
        const Pos p = t[i].pos;
        ++i;
        const int64_t b = binary(level + 1);
        a = apply(op, a, b, p);
      }
    }
    int64_t apply(const std::string& op, int64_t a, int64_t b, Pos p) {
      const auto u = [](int64_t x) { return static_cast<uint64_t>(x); };
      if (op == "||") return a || b;
      if (op == "&&") return a && b;
      if (op == "|") return a | b;
      if (op == "^") return a ^ b;
      if (op == "&") return a & b;
      if (op == "==") return a == b;
      if (op == "!=") return a != b;
      if (op == "<") return a < b;
      if (op == ">") return a > b;
      if (op == "<=") return a <= b;
      if (op == ">=") return a >= b;
      if (op == "+") return static_cast<int64_t>(u(a) + u(b));
      if (op == "-") return static_cast<int64_t>(u(a) - u(b));
      if (op == "*") return static_cast<int64_t>(u(a) * u(b));
      if ((op == "/" || op == "%") && (b == 0 || (a == INT64_MIN && b == -1))) {
        fail(p, "division by zero or overflow");
        return 0;
      }
      if (op == "/") return a / b;
      if (op == "%") return a % b;
      if (b < 0 || b > 63) {
        fail(p, "a shift by " + std::to_string(b));
        return 0;
      }
      return op == "<<" ? static_cast<int64_t>(u(a) << b) : a >> b;
    }
    int64_t unary() {
      if (++depth > 256) {
        fail(at, "nests more than 256 deep");
        return 0;
      }
      struct Leave {
        int& d;
        ~Leave() { --d; }
      } leave{depth};
      if (i >= t.size()) {
        fail(at, "the condition ends too soon");
        return 0;
      }
      const Token& k = t[i];
      if (k.kind == Tok::kPunct &&
          (k.text == "!" || k.text == "-" || k.text == "+" || k.text == "~")) {
        ++i;
        const int64_t v = unary();
        if (k.text == "!") return !v;
        if (k.text == "-") return static_cast<int64_t>(0 - static_cast<uint64_t>(v));
        if (k.text == "~") return ~v;
        return v;
      }
      if (k.kind == Tok::kPunct && k.text == "(") {
        ++i;
        const int64_t v = ternary();
        if (!is(")")) {
          fail(i < t.size() ? t[i].pos : at, "expected ')'");
          return 0;
        }
        ++i;
        return v;
      }
      ++i;
      if (k.kind == Tok::kInt || k.kind == Tok::kUint) return static_cast<int64_t>(k.integer);
      if (k.kind == Tok::kIdent) return k.text == "true" ? 1 : 0;  // a name left over is 0
      fail(k.pos, "expected a number, found '" + k.text + "'");
      return 0;
    }
  };
};

}  // namespace

std::vector<Token> preprocess(const std::vector<Token>& tokens, std::vector<LexError>& errors) {
  return Preprocessor(errors).run(tokens);
}

}  // namespace spritz::program
