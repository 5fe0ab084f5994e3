// Roblox XML (.rbxmx models, .rbxlx places) into an instance tree
// (roblox_tree.h), through pugixml.
#include <pugixml.hpp>
#include <string>

#include "config.h"
#include "roblox_tree.h"

namespace spritz::import_detail::roblox {
namespace {

Prop xml_prop(const pugi::xml_node& e, const LineIndex& lines) {
  Prop p;
  p.type = e.name();
  p.loc = lines.at(static_cast<size_t>(e.offset_debug()));
  const std::string t = p.type;
  const std::string what = std::string(e.attribute("name").value());
  if (t == "bool") {
    p.is_bool = true;
    p.boolean = std::string(e.child_value()) == "true";
  } else if (t == "float" || t == "double" || t == "int" || t == "int64" || t == "token" ||
             t == "NumberRange" || t == "NumberSequence" || t == "ColorSequence") {
    p.nums = split_numbers(e.child_value(), p.loc, what);
  } else if (t == "Vector2" || t == "Vector3" || t == "Color3" || t == "CoordinateFrame") {
    static const char* const kv[] = {"X",   "Y",   "Z",   "R00", "R01", "R02",
                                     "R10", "R11", "R12", "R20", "R21", "R22"};
    static const char* const kc[] = {"R", "G", "B"};
    if (t == "Color3" && !e.child("R")) {
      // Color3uint8 packed as one integer.
      p.nums = split_numbers(e.child_value(), p.loc, what);
    } else {
      const size_t n = t == "Vector2" ? 2 : t == "CoordinateFrame" ? 12 : 3;
      for (size_t i = 0; i < n; ++i) {
        const pugi::xml_node c = e.child(t == "Color3" ? kc[i] : kv[i]);
        const std::vector<double> v = split_numbers(c.child_value(), p.loc, what);
        p.nums.push_back(v.empty() ? 0 : v[0]);
      }
    }
  } else if (t == "Content" || t == "ContentId") {
    p.is_text = true;
    for (const char* k : {"url", "uri"})
      if (e.child(k)) p.text = e.child(k).child_value();
  } else {
    p.is_text = true;
    p.text = e.child_value();
  }
  return p;
}

void xml_items(const pugi::xml_node& parent, Instance& into, const LineIndex& lines, size_t& count,
               int depth) {
  if (depth > kMaxDepth)
    throw Error(lines.at(static_cast<size_t>(parent.offset_debug())),
                "items are nested more than 256 deep");
  for (const pugi::xml_node& item : parent.children("Item")) {
    if (++count > kMaxInstances)
      throw Error(lines.at(static_cast<size_t>(item.offset_debug())),
                  "more than 200000 instances: refused");
    auto inst = std::make_unique<Instance>();
    inst->cls = item.attribute("class").value();
    inst->loc = lines.at(static_cast<size_t>(item.offset_debug()));
    inst->parent = &into;
    for (const pugi::xml_node& e : item.child("Properties").children()) {
      const std::string name = e.attribute("name").value();
      if (name.empty()) continue;
      inst->props[name] = xml_prop(e, lines);
    }
    if (const Prop* n = inst->get("Name")) inst->name = n->text;
    xml_items(item, *inst, lines, count, depth + 1);
    into.children.push_back(std::move(inst));
  }
}

}  // namespace

std::unique_ptr<Instance> parse_xml(std::string_view text, const std::string& name) {
  const LineIndex lines(text, name);
  pugi::xml_document doc;
  const pugi::xml_parse_result res = doc.load_buffer(text.data(), text.size(), pugi::parse_default);
  if (!res)
    throw Error(lines.at(static_cast<size_t>(res.offset)),
                std::string("malformed XML: ") + res.description());
  const pugi::xml_node root = doc.child("roblox");
  if (!root)
    throw Error(SourceLoc{name, 1, 1}, "not a Roblox XML file: its root element is not <roblox>");
  auto top = std::make_unique<Instance>();
  top->cls = "<file>";
  top->loc = lines.at(static_cast<size_t>(root.offset_debug()));
  size_t count = 0;
  xml_items(root, *top, lines, count, 0);
  return top;
}

// ---- JSON (Rojo .model.json) ----

}  // namespace spritz::import_detail::roblox
