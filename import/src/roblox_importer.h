// The Roblox importer's parts (docs/import.md, "Roblox"): a place and
// rotation in Roblox's world, the view onto it, and the importer, whose
// methods are in roblox.cpp (the tree mapped into emitters) and
// roblox_textures.cpp (the textures found for asset URIs).
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common.h"
#include "config.h"
#include "roblox_tree.h"
#include "spritz/angle.h"
#include "spritz/raster/png.h"
#include "texture.h"

namespace spritz::import_detail::roblox_import {

namespace fs = std::filesystem;
using roblox::Instance;
using roblox::numeric_attributes;
using roblox::Prop;

// Keypoint times as spritz takes them (strictly increasing from 0 to 1):
// Roblox allows keys at one time (a step); of such a run the first moves a
// hair earlier and the last stays, the ones between are dropped. Returns
// the indices kept, with their times in `t`.
std::vector<size_t> key_times(std::vector<double>& t);

// A rotation and place in Roblox's world (y up).
struct Frame3 {
  std::array<double, 3> p{0, 0, 0};
  std::array<double, 9> r{1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major
  std::array<double, 3> apply(const std::array<double, 3>& v) const {
    return {r[0] * v[0] + r[1] * v[1] + r[2] * v[2], r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
            r[6] * v[0] + r[7] * v[1] + r[8] * v[2]};
  }
  Frame3 then(const Frame3& local) const {  // this * local
    Frame3 out;
    const auto lp = apply(local.p);
    for (int k = 0; k < 3; ++k) out.p[k] = p[k] + lp[k];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += r[i * 3 + k] * local.r[k * 3 + j];
        out.r[i * 3 + j] = s;
      }
    return out;
  }
};

struct View {
  // Screen x and y as world axes (x right, y up on screen).
  std::array<double, 3> right, up, toward;  // toward: the axis out of the screen
};

inline View view_named(const std::string& v) {
  if (v == "side") return {{0, 0, -1}, {0, 1, 0}, {1, 0, 0}};
  if (v == "top") return {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}};
  return {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
}

inline double dot3(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

struct Pending {
  const Instance* inst;
  Emitter em;
  double reach_studs = 0;  // for the default scale
  Vec2 pos_studs;
};

// A Color property: a Color3, or a ColorSequence of (time, r, g, b, 0)
// keypoints (docs/formats/roblox.md 4.2).
ColorCurve color_sequence(const Prop& prop);

class RobloxImporter {
 public:
  RobloxImporter(const std::string& source_name, const std::string& base_dir,
                 const ImportOptions& o, const ReadFile& read_file)
      : name_(source_name),
        base_(base_dir),
        o_(o),
        read_file_(read_file),
        view_(view_named(o.view)) {}

  ImportResult run(const Instance& top);

 private:
  std::string name_, base_;
  const ImportOptions& o_;
  const ReadFile& read_file_;
  View view_;
  ImportResult r_;
  std::map<std::string, std::string> map_;  // texture map: id or URI -> path
  std::string map_dir_;
  std::map<std::string, std::string> texture_names_;  // URI -> written file name, or builtin
  std::set<std::string> unresolved_;
  std::vector<SourceLoc> unresolved_at_;

  // A world vector seen from the view: screen x and y.
  Vec2 proj(const std::array<double, 3>& v) const {
    return {dot3(v, view_.right), dot3(v, view_.up)};
  }
  void warn(const SourceLoc& at, std::string m) { r_.warnings.push_back({at, std::move(m)}); }
  void note(const SourceLoc& at, std::string m) { r_.notes.push_back({at, std::move(m)}); }
  void read_map();
  void collect(const Instance& i, std::vector<const Instance*>& out);
  Frame3 frame_of(const Instance& i, bool* attachment, std::array<double, 3>* part_size) const;
  Pending map_emitter(const Instance& e);
  double scale(const Instance& top, const std::vector<Pending>& pending, Vec2* centre);
  Range map_emission(const Instance& e, double s, Emitter& em);
  void map_launch(const Instance& e, const Frame3& f, double s, Emitter& em);
  void map_shape(const Instance& e, bool attachment, const std::array<double, 3>& part,
                 Emitter& em);
  void map_look(const Instance& e, double s, Emitter& em);
  void map_flipbook(const Instance& e, double s, Emitter& em);
  std::string texture_for(const Instance& e, const SourceLoc& at);

  static double num(const Instance& i, const std::string& k, double def, size_t at = 0) {
    const Prop* p = i.get(k);
    if (!p || p->nums.size() <= at) return def;
    const double v = p->nums[at];
    if (!std::isfinite(v) || std::abs(v) > 1e9)
      throw Error(p->loc, k + " must be a finite number within ±1e9");
    return v;
  }
  static bool boolean(const Instance& i, const std::string& k, bool def) {
    const Prop* p = i.get(k);
    return p && p->is_bool ? p->boolean : def;
  }
  SourceLoc loc(const Instance& i, const std::string& k) const {
    const Prop* p = i.get(k);
    return p ? p->loc : i.loc;
  }
  // An enum: a token's number, or a Rojo enum item's name.
  int enum_of(const Instance& i, const std::string& k, int def,
              std::initializer_list<const char*> names) const {
    const Prop* p = i.get(k);
    if (!p) return def;
    if (p->is_text) {
      int n = 0;
      for (const char* s : names) {
        if (p->text == s) return n;
        ++n;
      }
      throw Error(p->loc, k + " " + printable(p->text) + " is not one Roblox defines");
    }
    if (p->nums.empty()) return def;
    const double v = p->nums[0];
    if (!(v >= -1e6 && v <= 1e6)) throw Error(p->loc, k + " must be one of its enum's values");
    return static_cast<int>(v);
  }
  Range range(const Instance& i, const std::string& k, Range def) const {
    const Prop* p = i.get(k);
    if (!p || p->nums.empty()) return def;
    const double a = num(i, k, 0, 0), b = p->nums.size() > 1 ? num(i, k, 0, 1) : a;
    return {std::min(a, b), std::max(a, b)};
  }
  std::optional<Curve> sequence(const Instance& i, const std::string& k, double scale, double lo,
                                double hi, const char* what);
};

}  // namespace spritz::import_detail::roblox_import
