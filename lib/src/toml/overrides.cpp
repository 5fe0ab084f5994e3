#include "toml/overrides.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "spritz/error.h"
#include "toml/keys.h"
#include "toml/preflight.h"
#include "toml/text.h"

namespace spritz::toml_load {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

void apply_override(toml::table& root, const std::string& text) {
  // toml++ would report invalid UTF-8 with no place; say where it is first.
  if (!valid_utf8(text))
    throw Error(SourceLoc{printable(kSetPrefix + text)}, "the text is not valid UTF-8");
  // Where messages say a value came from; never raw control bytes.
  const std::string origin = printable(kSetPrefix + text);
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error("--set expects key.path=value (for example emitter.0.rate=100), got '" + text +
                "'");
  const std::string path = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  std::vector<std::string> parts = split_path(path);
  for (const std::string& p : parts)
    if (p.empty()) throw Error(SourceLoc{origin}, "the key path has an empty part");
  if (parts.size() > kMaxKeyParts)
    throw Error(SourceLoc{origin},
                "the key path has more than " + std::to_string(kMaxKeyParts) + " parts");

  toml::table* table = &root;
  size_t i = 0;
  if (parts[0] == "emitter") {
    if (parts.size() < 3)
      throw Error(SourceLoc{origin}, "address an emitter key as emitter.<index or name>.<key>");
    toml::array* emitters = root.get_as<toml::array>("emitter");
    if (!emitters || !emitters->is_array_of_tables())
      throw Error(SourceLoc{origin}, "the effect has no [[emitter]] tables");
    toml::table* found = nullptr;
    const std::string& which = parts[1];
    const bool numeric = std::all_of(which.begin(), which.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    for (size_t e = 0; e < emitters->size() && !found; ++e) {
      toml::table* t = (*emitters)[e].as_table();
      const std::string name = t->get("name") && t->get("name")->is_string()
                                   ? t->get("name")->as_string()->get()
                                   : "emitter" + std::to_string(e);
      if ((numeric && std::to_string(e) == which) || name == which) found = t;
    }
    if (!found) throw Error(SourceLoc{origin}, "no emitter has index or name '" + which + "'");
    table = found;
    i = 2;
  }
  for (; i + 1 < parts.size(); ++i) {
    toml::node* next = table->get(parts[i]);
    if (!next) break;
    if (!next->is_table()) throw Error(SourceLoc{origin}, "'" + parts[i] + "' is not a table");
    table = next->as_table();
  }

  // The rest of the path and the value, parsed as TOML so that every new node
  // (tables the path creates included) carries the --set origin for messages.
  // The value is TOML (numbers, arrays, inline tables, quoted strings); a bare
  // word that is not valid TOML is taken as a string (tonemap=clamp).
  std::string key;
  for (size_t k = i; k < parts.size(); ++k) key += (k > i ? "." : "") + toml_quote(parts[k]);
  // Both texts pass check_toml_text before toml++ sees them (the quoted one
  // always does: toml_quote escapes what it must).
  toml::table snippet;
  const std::string as_toml = key + " = " + value, as_string = key + " = " + toml_quote(value);
  try {
    check_toml_text(as_toml, origin);
    snippet = toml::parse(as_toml, origin);
  } catch (const std::exception&) {  // toml::parse_error or spritz::Error
    try {
      check_toml_text(as_string, origin);
      snippet = toml::parse(as_string, origin);
    } catch (const toml::parse_error& e) {
      throw Error(SourceLoc{origin}, "the value is not TOML: " + printable(e.description()));
    }
  }
  // One value: `emitter.0.rate=1<newline>seed = 77` parses, but as two keys,
  // and the second would be dropped without a word.
  if (snippet.size() != 1 || !snippet.get(parts[i]))
    throw Error(SourceLoc{origin},
                "the value holds more than one TOML value (a newline and another key?); give "
                "each key its own --set");
  table->insert_or_assign(parts[i], std::move(*snippet.get(parts[i])));
}

}  // namespace spritz::toml_load
