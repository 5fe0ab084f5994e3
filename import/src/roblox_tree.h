// A Roblox instance tree as read from a file (docs/import.md, "Roblox"):
// every instance's class, name, properties and children, whatever the file
// form, each with its place. Read from XML (.rbxmx, .rbxlx; roblox_xml.cpp,
// through pugixml) or Rojo's JSON (.model.json; roblox_json.cpp, through
// nlohmann-json); roblox.cpp maps the tree's ParticleEmitters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/error.h"

namespace spritz::import_detail::roblox {

inline constexpr size_t kMaxInstances = 200000;
inline constexpr int kMaxDepth = 256;

// One property as the file holds it: numbers (a float, an enum's value, a
// NumberRange's two, a sequence's flat list, a vector's or CFrame's
// components), a bool, or text (a string, a URI, an enum item's name).
struct Prop {
  std::string type;  // the XML element or JSON explicit type ("float", "NumberSequence", ...)
  std::vector<double> nums;
  std::string text;
  bool boolean = false;
  bool is_bool = false, is_text = false;
  SourceLoc loc;
};

struct Instance {
  std::string cls, name;
  std::map<std::string, Prop> props;
  std::vector<std::unique_ptr<Instance>> children;
  Instance* parent = nullptr;
  SourceLoc loc;
  const Prop* get(const std::string& k) const {
    auto it = props.find(k);
    return it == props.end() ? nullptr : &it->second;
  }
};

// The numbers of a whitespace-separated list (INF and NAN as Roblox writes
// them); throws spritz::Error at `at` naming `what` for anything else.
std::vector<double> split_numbers(const std::string& s, const SourceLoc& at,
                                  const std::string& what);

// The tree of an .rbxmx or .rbxlx file (the top is a nameless root).
std::unique_ptr<Instance> parse_xml(std::string_view text, const std::string& name);
// The tree of a Rojo .model.json (or init.meta.json) file.
std::unique_ptr<Instance> parse_json(std::string_view text, const std::string& name);

// The numeric attributes in an AttributesSerialize blob (rbx-dom's
// attribute format), by name; the others are skipped.
std::map<std::string, double> numeric_attributes(const std::vector<uint8_t>& b);

}  // namespace spritz::import_detail::roblox
