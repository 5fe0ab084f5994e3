// The textures of Roblox emitters (roblox_importer.h): an asset URI found
// through --texture-map and --texture-dir, else the closest built-in.
#include "roblox_importer.h"

namespace spritz::import_detail::roblox_import {

void RobloxImporter::read_map() {
  if (o_.texture_map_text.empty()) return;
  toml::table t;
  try {
    t = toml::parse(o_.texture_map_text, o_.texture_map_name);
  } catch (const toml::parse_error& e) {
    throw Error(SourceLoc{o_.texture_map_name, static_cast<uint32_t>(e.source().begin.line),
                          static_cast<uint32_t>(e.source().begin.column)},
                "the texture map is not valid TOML: " + std::string(e.description()));
  }
  map_dir_ = fs::path(o_.texture_map_name).parent_path().string();
  for (const auto& [k, v] : t) {
    const auto* s = v.as_string();
    if (!s)
      throw Error(SourceLoc{o_.texture_map_name, static_cast<uint32_t>(v.source().begin.line),
                            static_cast<uint32_t>(v.source().begin.column)},
                  "the texture map's values must be file paths (strings)");
    map_[std::string(k.str())] = s->get();
  }
}

// The texture: the map, the folders, else the closest built-in (one
// warning per texture).
std::string RobloxImporter::texture_for(const Instance& e, const SourceLoc& at) {
  std::string uri = "rbxasset://textures/particles/sparkles_main.dds";  // the class default
  for (const char* k : {"TextureContent", "Texture"})
    if (const Prop* p = e.get(k); p && p->is_text) {
      uri = p->text;
      break;
    }
  auto it = texture_names_.find(uri);
  if (it != texture_names_.end()) return it->second;
  // The asset id, when the URI has one.
  std::string id;
  for (const char* key : {"rbxassetid://", "?id=", "&id="}) {
    const size_t f = uri.find(key);
    if (f != std::string::npos) {
      size_t b = f + std::strlen(key), q = b;
      while (q < uri.size() && std::isdigit(static_cast<unsigned char>(uri[q]))) ++q;
      id = uri.substr(b, q - b);
      break;
    }
  }
  const std::string stem = fs::path(uri.substr(uri.find_last_of("/\\") + 1)).stem().string();
  std::vector<std::string> tried;
  const auto in_map = [&](const std::string& key) {
    auto m = map_.find(key);
    if (m != map_.end())
      tried.push_back((fs::path(map_dir_) / m->second).lexically_normal().string());
  };
  in_map(uri);
  if (!id.empty()) in_map(id);
  for (const std::string& d : o_.texture_dirs) {
    if (!id.empty()) tried.push_back((fs::path(d) / (id + ".png")).lexically_normal().string());
    if (!stem.empty()) tried.push_back((fs::path(d) / (stem + ".png")).lexically_normal().string());
  }
  for (const std::string& p : tried) {
    auto bytes = read_file_(p);
    if (!bytes) continue;
    const Rgba8Image img = decode_image(*bytes, "texture " + printable(p), at);
    ImportResult::Texture t;
    t.name = r_.fx.name + "-" + (id.empty() ? stem : id) + ".png";
    for (char& c : t.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
        c = '_';
    t.png = encode_png(img.rgba.data(), img.width, img.height);
    t.origin = p;
    t.from_file = true;
    r_.textures.push_back(t);
    return texture_names_[uri] = t.name;
  }
  // The closest built-in by what the name says.
  std::string b = "builtin:soft";
  std::string lower = uri;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("sparkle") != std::string::npos || lower.find("star") != std::string::npos)
    b = "builtin:star";
  else if (lower.find("smoke") != std::string::npos || lower.find("cloud") != std::string::npos)
    b = "builtin:smoke";
  else if (lower.find("spark") != std::string::npos)
    b = "builtin:spark";
  warn(at, "the texture " + printable(uri) + " is not available offline" +
               (tried.empty() ? std::string(" (give --texture-dir or --texture-map)")
                              : " (not at " + std::to_string(tried.size()) + " places tried)") +
               ": " + b + " is drawn instead");
  return texture_names_[uri] = b;
}

}  // namespace spritz::import_detail::roblox_import
