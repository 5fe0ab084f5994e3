// Godot's text scene and resource format (.tscn, .tres; docs/formats/godot.md 1):
// `[section key=value ...]` headers, each followed by `key = value` lines,
// with Godot 3 and Godot 4 value syntax alike. Every value keeps its place.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spritz/error.h"

namespace spritz::import_detail::godot {

struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kDict, kCall, kName };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  // kString: the text; kCall: the constructor (Vector2, SubResource, ...);
  // kName: a bare word Godot writes for constants (e.g. an enum in Godot 4's
  // typed arrays, or `inf`).
  std::string text;
  std::vector<Value> items;                      // array items, call arguments
  std::vector<std::pair<Value, Value>> entries;  // dictionary entries
  SourceLoc loc;

  bool is_number() const { return kind == Kind::kNumber; }
  bool is_call(std::string_view name) const { return kind == Kind::kCall && text == name; }
  // A call's arguments as numbers (Vector2(...), Color(...), packed arrays);
  // empty when any is not a number.
  std::vector<double> numbers() const;
  // A string's or bare word's text, a number as the shortest text that
  // reads back the same (%.17g): how ids and attributes compare.
  std::string as_text() const;
  const Value* entry(std::string_view key) const;  // a dictionary's string key
};

struct Section {
  std::string tag;  // gd_scene, gd_resource, ext_resource, sub_resource, node, resource, ...
  std::vector<std::pair<std::string, Value>> attrs;  // the header's key=value pairs
  std::vector<std::pair<std::string, Value>> props;  // the lines under it
  SourceLoc loc;
  const Value* attr(std::string_view key) const;
  const Value* prop(std::string_view key) const;
  std::string attr_text(std::string_view key) const;  // a string or number attribute, or ""
};

struct Document {
  std::string source_name;
  int format = 0;  // the header's format= (2 Godot 3, 3 and 4 Godot 4); 0 when absent
  std::vector<Section> sections;
};

// Parses a .tscn or .tres text. Throws spritz::Error with file:line:col for
// malformed input (an unclosed bracket or string, a value it cannot read).
Document parse_document(std::string_view text, const std::string& source_name);

// Whether text looks like a Godot text scene or resource: its first
// non-blank character opens a [gd_scene or [gd_resource header.
bool looks_like_godot(std::string_view text);

}  // namespace spritz::import_detail::godot
