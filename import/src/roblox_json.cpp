// Rojo's JSON (.model.json, init.meta.json) into an instance tree
// (roblox_tree.h), through nlohmann-json.
#include <cctype>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "config.h"
#include "roblox_tree.h"

namespace spritz::import_detail::roblox {
namespace {

namespace fs = std::filesystem;

std::vector<size_t> key_offsets(std::string_view t) {
  std::vector<size_t> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '"') continue;
    const size_t start = i++;
    while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
    size_t j = i + 1;
    while (j < t.size() && std::isspace(static_cast<unsigned char>(t[j]))) ++j;
    if (j < t.size() && t[j] == ':') out.push_back(start);
  }
  return out;
}

class JsonReader {
 public:
  JsonReader(std::string_view text, const std::string& name) : lines_(text, name), name_(name) {
    try {
      json_ = nlohmann::ordered_json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
      throw Error(lines_.at(e.byte > 0 ? e.byte - 1 : 0),
                  std::string("malformed JSON: ") +
                      (std::strchr(e.what(), ':') ? std::strchr(e.what(), ':') + 2 : e.what()));
    } catch (const nlohmann::json::exception& e) {
      // A number beyond a double, say: nlohmann says which, not where.
      const char* what = std::strchr(e.what(), ']');
      throw Error(SourceLoc{name, 1, 1},
                  std::string("malformed JSON: ") + (what ? what + 2 : e.what()));
    }
    offsets_ = key_offsets(text);
    number_keys(json_, 0);
  }

  std::unique_ptr<Instance> instances() {
    auto top = std::make_unique<Instance>();
    top->cls = "<file>";
    top->loc = {name_, 1, 1};
    size_t count = 0;
    if (json_.is_object() && !field(json_, "className", "ClassName"))
      throw Error(SourceLoc{name_, 1, 1},
                  "this JSON names no className: a Rojo .meta.json without one only adds "
                  "properties to the file beside it; import a .model.json, or an init.meta.json "
                  "that sets className");
    auto inst = instance(json_, top.get(), count, 0, {name_, 1, 1});
    // Rojo names an init.meta.json's instance after its folder.
    if (inst->name.empty() && fs::path(name_).filename() == "init.meta.json")
      inst->name = fs::absolute(fs::path(name_)).parent_path().filename().string();
    top->children.push_back(std::move(inst));
    return top;
  }

 private:
  LineIndex lines_;
  std::string name_;
  nlohmann::ordered_json json_;
  std::vector<size_t> offsets_;
  std::map<const void*, size_t> key_index_;  // a value -> its key's number in document order
  size_t next_key_ = 0;

  void number_keys(nlohmann::ordered_json& j, int depth) {
    if (depth > kMaxDepth)
      throw Error(SourceLoc{name_, 1, 1}, "JSON values are nested more than 256 deep");
    if (j.is_object()) {
      for (auto& [k, v] : j.items()) {
        key_index_[&v] = next_key_++;
        number_keys(v, depth + 1);
      }
    } else if (j.is_array()) {
      for (auto& v : j) number_keys(v, depth + 1);
    }
  }
  SourceLoc loc_of(const nlohmann::ordered_json& v, const SourceLoc& fallback) const {
    auto it = key_index_.find(&v);
    if (it == key_index_.end() || it->second >= offsets_.size()) return fallback;
    return lines_.at(offsets_[it->second]);
  }
  static const nlohmann::ordered_json* field(const nlohmann::ordered_json& o, const char* a,
                                             const char* b) {
    if (!o.is_object()) return nullptr;
    if (o.contains(a)) return &o[a];
    if (o.contains(b)) return &o[b];
    return nullptr;
  }

  std::unique_ptr<Instance> instance(const nlohmann::ordered_json& o, Instance* parent,
                                     size_t& count, int depth, const SourceLoc& at) {
    if (depth > kMaxDepth) throw Error(at, "instances are nested more than 256 deep");
    if (++count > kMaxInstances) throw Error(at, "more than 200000 instances: refused");
    if (!o.is_object()) throw Error(at, "an instance must be a JSON object");
    auto inst = std::make_unique<Instance>();
    inst->parent = parent;
    inst->loc = at;
    if (auto* c = field(o, "className", "ClassName")) {
      if (!c->is_string()) throw Error(loc_of(*c, at), "className must be a string");
      inst->cls = c->get<std::string>();
    }
    if (auto* n = field(o, "name", "Name"))
      if (n->is_string()) inst->name = n->get<std::string>();
    if (auto* ps = field(o, "properties", "Properties")) {
      if (!ps->is_object()) throw Error(loc_of(*ps, at), "properties must be an object");
      for (const auto& [k, v] : ps->items()) inst->props[k] = json_prop(v, loc_of(v, at), k);
    }
    if (auto* as = field(o, "attributes", "Attributes")) {
      if (as->is_object())
        for (const auto& [k, v] : as->items())
          if (v.is_number()) {
            Prop p;
            p.type = "attribute";
            p.nums = {v.get<double>()};
            p.loc = loc_of(v, at);
            inst->props["@" + k] = p;
          }
    }
    if (auto* ch = field(o, "children", "Children")) {
      if (!ch->is_array()) throw Error(loc_of(*ch, at), "children must be an array");
      for (const auto& c : *ch)
        inst->children.push_back(instance(c, inst.get(), count, depth + 1, loc_of(*ch, at)));
    }
    return inst;
  }

  static void numbers_of(const nlohmann::ordered_json& a, std::vector<double>& out,
                         const SourceLoc& at, const std::string& what) {
    for (const auto& x : a) {
      if (!x.is_number()) throw Error(at, what + " must hold numbers");
      out.push_back(x.get<double>());
    }
  }

  Prop json_prop(const nlohmann::ordered_json& v, const SourceLoc& at, const std::string& key) {
    Prop p;
    p.loc = at;
    if (v.is_boolean()) {
      p.is_bool = true;
      p.boolean = v.get<bool>();
      p.type = "bool";
    } else if (v.is_number()) {
      p.nums = {v.get<double>()};
      p.type = "float";
    } else if (v.is_string()) {
      p.is_text = true;
      p.text = v.get<std::string>();
      p.type = "string";
    } else if (v.is_array()) {
      numbers_of(v, p.nums, at, key);
      p.type = p.nums.size() == 2 ? "Vector2" : p.nums.size() == 12 ? "CoordinateFrame" : "Vector3";
    } else if (v.is_object() && v.size() == 1) {
      const auto first = v.begin();  // an iterator into v itself: key and value outlive it
      const std::string type = first.key();
      const nlohmann::ordered_json& x = first.value();
      p.type = type;
      if (type == "NumberRange" && x.is_array()) {
        numbers_of(x, p.nums, at, key);
      } else if ((type == "NumberSequence" || type == "ColorSequence") && x.is_object() &&
                 x.contains("keypoints") && x["keypoints"].is_array()) {
        for (const auto& kp : x["keypoints"]) {
          if (!kp.is_object() || !kp.contains("time") || !kp["time"].is_number())
            throw Error(at, key + " keypoints need a numeric time");
          p.nums.push_back(kp["time"].get<double>());
          if (type == "NumberSequence") {
            if (!kp.contains("value") || !kp["value"].is_number())
              throw Error(at, key + " keypoints need a numeric value");
            p.nums.push_back(kp["value"].get<double>());
            p.nums.push_back(kp.contains("envelope") && kp["envelope"].is_number()
                                 ? kp["envelope"].get<double>()
                                 : 0);
          } else {
            if (!kp.contains("color") || !kp["color"].is_array() || kp["color"].size() != 3)
              throw Error(at, key + " keypoints need a color [r, g, b]");
            numbers_of(kp["color"], p.nums, at, key);
            p.nums.push_back(0);
          }
        }
      } else if (type == "Enum" && x.is_number()) {
        p.nums = {x.get<double>()};
        p.type = "token";
      } else if (x.is_number()) {
        p.nums = {x.get<double>()};
      } else if (x.is_boolean()) {
        p.is_bool = true;
        p.boolean = x.get<bool>();
      } else if (x.is_string()) {
        p.is_text = true;
        p.text = x.get<std::string>();
      } else if (x.is_array()) {
        numbers_of(x, p.nums, at, key);
      } else if (x.is_object() && (type == "CFrame" || type == "CoordinateFrame")) {
        if (x.contains("position") && x["position"].is_array())
          numbers_of(x["position"], p.nums, at, key);
        if (x.contains("orientation") && x["orientation"].is_array())
          for (const auto& row : x["orientation"])
            if (row.is_array()) numbers_of(row, p.nums, at, key);
        p.type = "CoordinateFrame";
      }
    }
    return p;
  }
};

}  // namespace

std::unique_ptr<Instance> parse_json(std::string_view text, const std::string& name) {
  try {
    return JsonReader(text, name).instances();
  } catch (const nlohmann::json::exception& e) {
    throw Error(SourceLoc{name, 1, 1}, std::string("a JSON value spritz cannot read: ") + e.what());
  }
}

}  // namespace spritz::import_detail::roblox
