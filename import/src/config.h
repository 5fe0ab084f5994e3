// A Particle Designer effect as its file holds it: every key with its value
// and place, read from a .plist's root <dict> or a .pex's elements under one
// vocabulary (the plist's key names, docs/formats/cocos2d.md section 2).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/error.h"
#include "spritz/import/import.h"

namespace spritz::import_detail {

struct ConfigValue {
  std::string text;  // as written (trimmed)
  SourceLoc loc;
};

class Config {
 public:
  EffectFormat format = EffectFormat::kCocos2d;
  std::string source_name;
  SourceLoc root;  // the <dict> or <particleEmitterConfig> element
  std::map<std::string, ConfigValue> values;

  bool has(const std::string& key) const { return values.count(key) > 0; }
  const ConfigValue* get(const std::string& key) const;
  // A number (cocos2d reads <real>, <integer>, <string> and <true/>/<false/>
  // alike); `fallback` when the key is absent. Throws at the value's place
  // when it is not a finite number within [-1e9, 1e9].
  double number(const std::string& key, double fallback) const;
  SourceLoc loc(const std::string& key) const;  // the key's place, or the root's
};

// Parses the XML (the plist up to its first </plist>: some files carry stray
// bytes after it). Throws spritz::Error with file:line:col for malformed XML
// or a file that is not a particle effect.
Config parse_config(std::string_view text, const std::string& source_name, EffectFormat format);

// line:col of byte `offset` in `text`.
SourceLoc loc_at(std::string_view text, size_t offset, const std::string& source_name);

// loc_at for many places of one text (the Godot and Roblox readers): a line
// table, and the column walked on from the last place asked for, so a
// document read in order (one line of 250 KB included) costs one pass.
class LineIndex {
 public:
  LineIndex(std::string_view text, std::string source_name);
  SourceLoc at(size_t offset) const;

 private:
  std::string_view text_;
  std::string name_;
  std::vector<size_t> starts_;
  mutable size_t at_ = 0;
  mutable uint32_t line_ = 1, col_ = 1;
};

}  // namespace spritz::import_detail
