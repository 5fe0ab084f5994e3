#include "spritz/load.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/noise.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxCanvasSide = 16384;
// Motion blur samples per frame: each one is a whole evaluation and raster pass.
constexpr int kMaxBlurSamples = 256;
// Keyframes in an emitter's path.
constexpr size_t kMaxPathKeys = 4096;
constexpr int64_t kMaxParticlesLimit = 10'000'000;
constexpr double kMaxFps = 10000;
constexpr const char* kSetPrefix = "--set ";

using Keys = std::vector<std::string_view>;

const Keys kRootKeys = {"effect", "canvas", "emitter", "check"};
const Keys kEffectKeys = {"name", "seed", "duration", "fps", "loop", "start", "time_scale"};
const Keys kCanvasKeys = {"size", "background", "ambient", "tonemap", "alpha", "motion_blur"};
const Keys kMotionBlurKeys = {"samples", "shutter"};
const Keys kEmitterKeys = {"name",
                           "enabled",
                           "position",
                           "rate",
                           "max_particles",
                           "lifetime",
                           "speed",
                           "direction",
                           "spread",
                           "acceleration",
                           "drag",
                           "rotation",
                           "rotation_speed",
                           "orientation",
                           "size",
                           "transparency",
                           "squash",
                           "color",
                           "brightness",
                           "light_emission",
                           "light_influence",
                           "z_offset",
                           "draw_order",
                           "texture",
                           "filter",
                           "flipbook",
                           "shape",
                           "bursts",
                           "trail",
                           "turbulence",
                           "path",
                           "path_interpolation",
                           "space",
                           "inherit_velocity",
                           "sub"};
const Keys kSubKeys = {"parent", "on", "count"};
const Keys kTrailKeys = {"count", "length", "fade", "scale", "style"};
const Keys kTurbulenceKeys = {"amplitude", "frequency", "speed", "phase"};
const Keys kFlipbookKeys = {"layout", "mode", "fps", "random_start"};
const Keys kShapeKeys = {"kind", "size", "style", "in_out", "inner"};
const Keys kBurstKeys = {"time", "count", "repeat", "interval"};
const Keys kCheckKeys = {"times", "threshold", "max_diff_pixels", "max_diff_ratio",
                         "max_channel_diff"};

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

std::string quoted_list(const Keys& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += i + 1 == words.size() ? " or " : ", ";
    out += '"';
    out += words[i];
    out += '"';
  }
  return out;
}

// `s` as a TOML basic string: in double quotes, with quotes, backslashes
// and control characters escaped (also so a message shows what a file holds).
std::string toml_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

// `s` quoted for a message, cut after 40 bytes (at a UTF-8 character) with
// "..." when longer, so that a 3 MB name does not make a 3 MB message.
std::string quoted_excerpt(std::string_view s) {
  if (s.size() <= 48) return toml_quote(s);
  size_t n = 40;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return toml_quote(s.substr(0, n)) + "...";
}

// Characters an effect name may not hold: it becomes a path component
// (out/<name>_####.png, golden/<name>/) and part of an output pattern, whose
// tokens are # and %.
constexpr std::string_view kNameForbidden = "/\\#%";
// File names hold at most 255 bytes; the default output adds "_####.png" and
// the frame's sign and digits to the name.
constexpr size_t kMaxNameBytes = 200;

// Why `s` cannot name an effect, or nullptr when it can.
const char* effect_name_problem(std::string_view s) {
  if (s.empty()) return "is empty; leave the key out to use the file's name";
  if (s == "." || s == "..")
    return "is a directory name; the name is part of file names (out/<name>_####.png, "
           "golden/<name>/)";
  if (has_control(s)) return "holds a control character";
  if (s.find_first_of(kNameForbidden) != std::string_view::npos)
    return "may not hold '/', '\\', '#' or '%': the name is part of file names "
           "(out/<name>_####.png, golden/<name>/)";
  if (s.size() > kMaxNameBytes)
    return "is longer than 200 bytes: the name is part of file names (out/<name>_####.png), "
           "which hold at most 255";
  return nullptr;
}

// Why `s` cannot name an emitter, or nullptr when it can.
const char* emitter_name_problem(std::string_view s) {
  if (s.empty()) return "is empty; leave the key out for emitter<index>";
  if (has_control(s)) return "holds a control character";
  if (s.find('.') != std::string_view::npos)
    return "may not hold '.': --set addresses an emitter as emitter.<name>.<key>";
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return "is a number, which --set would read as an emitter's index (emitter.<index>.<key>)";
  return nullptr;
}

// Walks the parsed TOML tree and builds the model, collecting every problem.
class Translator {
 public:
  Translator(std::string file, std::string base_dir)
      : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  std::vector<Diagnostic> diagnostics;
  std::vector<Diagnostic> warnings;  // valid, but surely not what was meant

  SourceLoc loc(const toml::node& n) const {
    const toml::source_region& src = n.source();
    if (src.path && src.path->rfind(kSetPrefix, 0) == 0) return {*src.path, 0, 0};
    return {src.path ? *src.path : file_, static_cast<uint32_t>(src.begin.line),
            static_cast<uint32_t>(src.begin.column)};
  }
  void error(const toml::node& n, std::string message) {
    diagnostics.push_back({loc(n), std::move(message)});
  }
  void error_at(SourceLoc l, std::string message) {
    diagnostics.push_back({std::move(l), std::move(message)});
  }

  Effect translate(const toml::table& root);
  void warn_invisible(const toml::table& t, const Emitter& em);

 private:
  std::unordered_set<uint32_t> children_;  // emitters that some sub-emitter names as parent
  bool has_children(const Emitter& em) const { return children_.count(em.index) > 0; }

  // --- keys ---------------------------------------------------------------
  void check_keys(const toml::table& t, const Keys& allowed, std::string_view where) {
    for (auto&& [key, node] : t) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      std::string msg = "unknown key '" + std::string(key.str()) + "' in " + std::string(where);
      const std::string hint = closest_match(key.str(), allowed);
      msg += hint.empty() ? " (valid keys: " + quoted_list(allowed) + ")"
                          : "; did you mean '" + hint + "'?";
      const toml::source_region& src = key.source();
      if (src.begin.line > 0 && !(src.path && src.path->rfind(kSetPrefix, 0) == 0)) {
        error_at({src.path ? *src.path : file_, static_cast<uint32_t>(src.begin.line),
                  static_cast<uint32_t>(src.begin.column)},
                 msg);
      } else {
        error(node, msg);
      }
    }
  }

  // An inline table such as `flipbook = { ... }`: its keys checked against
  // `keys`, or nullptr after `must_be` ("flipbook must be a table { ... }",
  // then what it was) when it is not a table.
  const toml::table* inline_table(const toml::node& n, const Keys& keys, std::string_view where,
                                  std::string_view must_be) {
    const toml::table* t = n.as_table();
    if (!t) {
      error(n, std::string(must_be) + ", got " + type_name(n));
      return nullptr;
    }
    check_keys(*t, keys, where);
    return t;
  }

  const toml::table* table_at(const toml::table& parent, std::string_view key,
                              std::string_view what) {
    const toml::node* n = parent.get(key);
    if (!n) return nullptr;
    if (!n->is_table()) {
      error(*n, std::string(what) + " must be a table, got " + type_name(*n));
      return nullptr;
    }
    return n->as_table();
  }

  // --- scalars --------------------------------------------------------------
  std::optional<double> number(const toml::node& n, std::string_view what) {
    double v;
    if (auto i = n.as_integer()) {
      v = static_cast<double>(i->get());
    } else if (auto f = n.as_floating_point()) {
      v = f->get();
    } else {
      error(n, std::string(what) + " must be a number, got " + type_name(n));
      return std::nullopt;
    }
    if (!std::isfinite(v)) {
      error(n, std::string(what) + " must be a finite number (nan and inf are not allowed)");
      return std::nullopt;
    }
    return v;
  }

  // A number within [lo, hi]; `rule` words the bound for the message.
  std::optional<double> bounded(const toml::node& n, std::string_view what, double lo, double hi,
                                std::string_view rule) {
    auto v = number(n, what);
    if (v && (*v < lo || *v > hi)) {
      error(n, std::string(what) + " must be " + std::string(rule) + ", got " + fmt(*v));
      return std::nullopt;
    }
    return v;
  }

  std::optional<int64_t> integer(const toml::node& n, std::string_view what, int64_t lo, int64_t hi,
                                 std::string_view rule) {
    int64_t v;
    if (auto i = n.as_integer()) {
      v = i->get();
    } else if (auto f = n.as_floating_point(); f && std::isfinite(f->get()) &&
                                               std::floor(f->get()) == f->get() &&
                                               std::abs(f->get()) < 9.0e18) {
      v = static_cast<int64_t>(f->get());
    } else {
      error(n, std::string(what) + " must be a whole number, got " + type_name(n));
      return std::nullopt;
    }
    if (v < lo || v > hi) {
      error(n, std::string(what) + " must be " + std::string(rule) + ", got " + std::to_string(v));
      return std::nullopt;
    }
    return v;
  }

  std::optional<bool> boolean(const toml::node& n, std::string_view what) {
    if (auto b = n.as_boolean()) return b->get();
    error(n, std::string(what) + " must be true or false, got " + type_name(n));
    return std::nullopt;
  }

  std::optional<std::string> string(const toml::node& n, std::string_view what) {
    if (auto s = n.as_string()) return s->get();
    error(n, std::string(what) + " must be a string, got " + type_name(n));
    return std::nullopt;
  }

  // One of `choices`; returns its index.
  std::optional<size_t> choice(const toml::node& n, std::string_view what, const Keys& choices) {
    auto s = string(n, what);
    if (!s) return std::nullopt;
    for (size_t i = 0; i < choices.size(); ++i)
      if (*s == choices[i]) return i;
    std::string msg =
        std::string(what) + " must be " + quoted_list(choices) + ", got \"" + *s + "\"";
    const std::string hint = closest_match(*s, choices);
    if (!hint.empty()) msg += "; did you mean \"" + hint + "\"?";
    error(n, msg);
    return std::nullopt;
  }

  // --- compound values -------------------------------------------------------
  std::optional<Range> range(const toml::node& n, std::string_view what, double lo) {
    if (n.is_array()) {
      const toml::array& a = *n.as_array();
      if (a.size() != 2) {
        error(n, std::string(what) + " must be one number or a range [min, max]");
        return std::nullopt;
      }
      auto mn = number(a[0], what), mx = number(a[1], what);
      if (!mn || !mx) return std::nullopt;
      if (*mn > *mx) {
        error(n, std::string(what) + " range must have min <= max, got [" + fmt(*mn) + ", " +
                     fmt(*mx) + "]");
        return std::nullopt;
      }
      if (*mn < lo) {
        error(n, std::string(what) + " must not be negative, got " + fmt(*mn));
        return std::nullopt;
      }
      return Range{*mn, *mx};
    }
    if (!n.is_number()) {
      error(n,
            std::string(what) + " must be one number or a range [min, max], got " + type_name(n));
      return std::nullopt;
    }
    auto v = number(n, what);
    if (!v) return std::nullopt;
    if (*v < lo) {
      error(n, std::string(what) + " must not be negative, got " + fmt(*v));
      return std::nullopt;
    }
    return Range{*v, *v};
  }

  std::optional<Vec2> vec2(const toml::node& n, std::string_view what) {
    const toml::array* a = n.as_array();
    if (!a || a->size() != 2) {
      error(n, std::string(what) + " must be a pair [x, y]");
      return std::nullopt;
    }
    auto x = number((*a)[0], what), y = number((*a)[1], what);
    if (!x || !y) return std::nullopt;
    return Vec2{*x, *y};
  }

  // Keypoint times: 1..20 of them, strictly increasing, first 0 and last 1.
  bool keypoint_times(const toml::array& keys, std::string_view what, double* times) {
    if (keys.empty() || keys.size() > kMaxCurveKeys) {
      error(keys, std::string(what) + " must have 1 to " + std::to_string(kMaxCurveKeys) +
                      " keypoints, got " + std::to_string(keys.size()));
      return false;
    }
    bool ok = true;
    for (size_t k = 0; k < keys.size(); ++k) {
      const toml::array* kp = keys[k].as_array();
      auto t = number((*kp)[0], std::string(what) + " keypoint time");
      if (!t) {
        ok = false;
        continue;
      }
      times[k] = *t;
      if (k > 0 && *t <= times[k - 1]) {
        error((*kp)[0], std::string(what) + " keypoint times must be strictly increasing (" +
                            fmt(times[k - 1]) + " then " + fmt(*t) + ")");
        ok = false;
      }
    }
    if (!ok) return false;
    if (keys.size() > 1 && times[0] != 0) {
      error(keys[0], std::string(what) + " must start at time 0, got " + fmt(times[0]));
      ok = false;
    }
    if (keys.size() > 1 && times[keys.size() - 1] != 1) {
      error(keys[keys.size() - 1],
            std::string(what) + " must end at time 1, got " + fmt(times[keys.size() - 1]));
      ok = false;
    }
    if (keys.size() == 1 && (times[0] < 0 || times[0] > 1)) {
      error(keys[0], std::string(what) + " keypoint time must be within [0, 1]");
      ok = false;
    }
    return ok;
  }

  // Checks that `n` is an array of keypoint arrays [t, v] / [t, v, e] and
  // explains the keypoint form when it is a flat array.
  const toml::array* keypoints(const toml::node& n, std::string_view what, bool colour) {
    const toml::array* keys = n.as_array();
    bool flat = false;
    for (const toml::node& kp : *keys) flat = flat || !kp.is_array();
    if (flat) {
      error(n, std::string(what) + " is a curve: give one " + (colour ? "colour" : "number") +
                   " or keypoints [[time, value], ...] (optionally [time, value, envelope]) "
                   "with times from 0 to 1, e.g. " +
                   (colour ? "[[0, \"#ffffff\"], [1, \"#ff8000\"]]" : "[[0, 10], [1, 0]]"));
      return nullptr;
    }
    bool ok = true;
    for (const toml::node& kp : *keys) {
      const size_t size = kp.as_array()->size();
      if (size != 2 && size != 3) {
        error(kp, std::string(what) + " keypoint must be [time, value] or [time, value, envelope]");
        ok = false;
      }
    }
    return ok ? keys : nullptr;
  }

  std::optional<Curve> curve(const toml::node& n, std::string_view what) {
    if (n.is_number()) {
      auto v = number(n, what);
      if (!v) return std::nullopt;
      return Curve::constant(*v);
    }
    if (!n.is_array()) {
      error(n, std::string(what) + " must be a number or keypoints [[time, value], ...], got " +
                   type_name(n));
      return std::nullopt;
    }
    const toml::array* keys = keypoints(n, what, false);
    if (!keys) return std::nullopt;
    Curve c;
    if (!keypoint_times(*keys, what, c.t.data())) return std::nullopt;
    c.count = static_cast<int>(keys->size());
    bool ok = true;
    for (size_t k = 0; k < keys->size(); ++k) {
      const toml::array& kp = *(*keys)[k].as_array();
      auto v = number(kp[1], std::string(what) + " value");
      auto e = kp.size() == 3 ? number(kp[2], std::string(what) + " envelope") : 0.0;
      if (!v || !e) {
        ok = false;
        continue;
      }
      c.value[k] = *v;
      c.envelope[k] = *e;
    }
    return ok ? std::optional<Curve>(c) : std::nullopt;
  }

  // "#rgb", "#rrggbb", "#rrggbbaa" or [r, g, b] / [r, g, b, a] in 0..1.
  std::optional<Rgba> color(const toml::node& n, std::string_view what) {
    if (auto s = n.as_string()) {
      const std::string& str = s->get();
      auto hex = [](char ch) -> int {
        if (ch >= '0' && ch <= '9') return ch - '0';
        if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
        if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
        return -1;
      };
      const size_t len = str.size();
      bool ok = len > 0 && str[0] == '#' && (len == 4 || len == 7 || len == 9);
      for (size_t i = 1; ok && i < len; ++i) ok = hex(str[i]) >= 0;
      if (!ok) {
        error(n, std::string(what) +
                     " must be a colour \"#rgb\", \"#rrggbb\", \"#rrggbbaa\" or "
                     "[r, g, b, a] in 0..1, got \"" +
                     str + "\"");
        return std::nullopt;
      }
      double ch[4] = {1, 1, 1, 1};
      if (len == 4) {
        for (int i = 0; i < 3; ++i) ch[i] = hex(str[1 + i]) * 17 / 255.0;
      } else {
        for (size_t i = 0; i < (len - 1) / 2; ++i)
          ch[i] = (hex(str[1 + 2 * i]) * 16 + hex(str[2 + 2 * i])) / 255.0;
      }
      return Rgba{ch[0], ch[1], ch[2], ch[3]};
    }
    const toml::array* a = n.as_array();
    if (!a || (a->size() != 3 && a->size() != 4)) {
      error(n, std::string(what) + " must be a colour \"#rrggbb\" or [r, g, b, a] in 0..1, got " +
                   type_name(n));
      return std::nullopt;
    }
    double ch[4] = {1, 1, 1, 1};
    for (size_t i = 0; i < a->size(); ++i) {
      auto v = bounded((*a)[i], std::string(what) + " component", 0, 1, "within [0, 1]");
      if (!v) return std::nullopt;
      ch[i] = *v;
    }
    return Rgba{ch[0], ch[1], ch[2], ch[3]};
  }

  std::optional<Rgb> opaque_color(const toml::node& n, std::string_view what) {
    auto c = color(n, what);
    if (!c) return std::nullopt;
    if (c->a != 1) {
      error(n, std::string(what) + " must be opaque (opacity comes from 'transparency')");
      return std::nullopt;
    }
    return Rgb{c->r, c->g, c->b};
  }

  std::optional<ColorCurve> color_curve(const toml::node& n, std::string_view what) {
    // One colour: a string, or a flat array of numbers.
    const toml::array* a = n.as_array();
    const bool single = n.is_string() || (a && !a->empty() && (*a)[0].is_number() &&
                                          !(a->size() >= 2 && (*a)[1].is_string()));
    if (single) {
      auto c = opaque_color(n, what);
      if (!c) return std::nullopt;
      return ColorCurve::constant(*c);
    }
    if (!a) {
      error(n, std::string(what) + " must be a colour or keypoints [[time, colour], ...], got " +
                   type_name(n));
      return std::nullopt;
    }
    const toml::array* keys = keypoints(n, what, true);
    if (!keys) return std::nullopt;
    ColorCurve c;
    if (!keypoint_times(*keys, what, c.t.data())) return std::nullopt;
    c.count = static_cast<int>(keys->size());
    bool ok = true;
    for (size_t k = 0; k < keys->size(); ++k) {
      const toml::array& kp = *(*keys)[k].as_array();
      auto v = opaque_color(kp[1], std::string(what) + " keypoint colour");
      auto e = kp.size() == 3
                   ? bounded(kp[2], std::string(what) + " envelope", 0, 1, "within [0, 1]")
                   : 0.0;
      if (!v || !e) {
        ok = false;
        continue;
      }
      c.srgb[k] = *v;
      c.envelope[k] = *e;
    }
    return ok ? std::optional<ColorCurve>(c) : std::nullopt;
  }

  static std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }

  void read_effect(const toml::table& t, Effect& fx);
  void read_canvas(const toml::table& t, Canvas& canvas);
  void read_emitter(const toml::table& t, Emitter& em);
  void read_flipbook(const toml::node& n, Flipbook& fb);
  void read_motion_blur(const toml::node& n, Canvas& canvas);
  void read_trail(const toml::node& n, Trail& trail, const std::string& emitter);
  void read_turbulence(const toml::node& n, Turbulence& turbulence, const std::string& emitter);
  void read_path(const toml::node& n, Path& path);
  void read_rate_keys(const toml::node& n, RateCurve& curve);
  std::vector<const toml::array*> keyframes(const toml::node& n, std::string_view what,
                                            std::string_view form, size_t arity, size_t max_keys,
                                            std::string_view must_be);
  void read_sub(const toml::node& n, SubEmitter& sub);
  void check_sub_keys(const toml::table& t, const Emitter& em);
  void resolve_subs(Effect& fx);
  std::optional<Curve> unit_curve(const toml::node& n, std::string_view what);
  void read_shape(const toml::node& n, Shape& shape);
  void read_bursts(const toml::node& n, Emitter& em, uint64_t max_count);
  void read_check(const toml::table& t, CheckSpec& check);

  std::string file_;
  std::string base_dir_;
};

void Translator::read_effect(const toml::table& t, Effect& fx) {
  check_keys(t, kEffectKeys, "[effect]");
  if (auto n = t.get("name"))
    if (auto s = string(*n, "effect.name")) {
      if (const char* why = effect_name_problem(*s))
        error(*n, "effect.name " + quoted_excerpt(*s) + " " + why);
      else
        fx.name = *s;
    }
  if (auto n = t.get("seed"))
    if (auto v = integer(*n, "effect.seed", 0, 0xffffffffll, "within [0, 4294967295]"))
      fx.seed = static_cast<uint32_t>(*v);
  if (auto n = t.get("duration"))
    if (auto v = bounded(*n, "effect.duration", 0, 1e9, "within [0, 1e9] seconds"))
      fx.duration_s = *v;
  if (auto n = t.get("fps"))
    if (auto v = bounded(*n, "effect.fps", 1e-3, kMaxFps, "within [0.001, 10000]")) fx.fps = *v;
  if (auto n = t.get("loop"))
    if (auto v = boolean(*n, "effect.loop")) fx.loop = *v;
  if (auto n = t.get("start"))
    if (auto v = bounded(*n, "effect.start", -1e9, 1e9, "within [-1e9, 1e9] seconds"))
      fx.start_s = *v;
  if (auto n = t.get("time_scale"))
    if (auto v = bounded(*n, "effect.time_scale", -1e6, 1e6, "within [-1e6, 1e6]"))
      fx.time_scale = *v;
  if (fx.loop && fx.duration_s <= 0) {
    const toml::node* n = t.get("loop");
    error(*n, "effect.loop needs a positive effect.duration (the loop period)");
  }
}

void Translator::read_canvas(const toml::table& t, Canvas& canvas) {
  check_keys(t, kCanvasKeys, "[canvas]");
  if (auto n = t.get("size")) {
    const toml::array* a = n->as_array();
    if (!a || a->size() != 2) {
      error(*n, "canvas.size must be [width, height] in pixels");
    } else {
      const std::string rule = "within [1, " + std::to_string(kMaxCanvasSide) + "]";
      auto w = integer((*a)[0], "canvas width", 1, kMaxCanvasSide, rule);
      auto h = integer((*a)[1], "canvas height", 1, kMaxCanvasSide, rule);
      if (w && h) {
        canvas.width = static_cast<int>(*w);
        canvas.height = static_cast<int>(*h);
      }
    }
  }
  if (auto n = t.get("background"))
    if (auto c = color(*n, "canvas.background")) canvas.background_srgb = *c;
  if (auto n = t.get("ambient"))
    if (auto c = opaque_color(*n, "canvas.ambient")) canvas.ambient_srgb = *c;
  if (auto n = t.get("tonemap"))
    if (auto i = choice(*n, "canvas.tonemap", {"white", "clamp"}))
      canvas.tonemap = static_cast<Tonemap>(*i);
  if (auto n = t.get("alpha"))
    if (auto i = choice(*n, "canvas.alpha", {"straight", "premultiplied"}))
      canvas.alpha = static_cast<AlphaMode>(*i);
  if (auto n = t.get("motion_blur")) read_motion_blur(*n, canvas);
}

void Translator::read_motion_blur(const toml::node& n, Canvas& canvas) {
  const toml::table* t =
      inline_table(n, kMotionBlurKeys, "canvas.motion_blur",
                   "canvas.motion_blur must be a table { samples = 8, shutter = 0.5 }");
  if (!t) return;
  // Present means on: 8 samples over half a frame interval unless given.
  canvas.blur_samples = 8;
  if (auto s = t->get("samples"))
    if (auto v = integer(*s, "canvas.motion_blur.samples", 1, kMaxBlurSamples,
                         "within [1, " + std::to_string(kMaxBlurSamples) + "]"))
      canvas.blur_samples = static_cast<int>(*v);
  if (auto s = t->get("shutter"))
    if (auto v = bounded(*s, "canvas.motion_blur.shutter", 0, 1, "within [0, 1] frame intervals"))
      canvas.shutter = *v;
  if (canvas.shutter == 0 && canvas.blur_samples > 1)
    warnings.push_back(
        {loc(*t->get("shutter")), "canvas.motion_blur.shutter is 0: every frame is drawn " +
                                      std::to_string(canvas.blur_samples) +
                                      " times at the same time, with no blur"});
}

// A curve of one value per position along a trail: within [0, 1], and no
// envelope (a trail has no random roll of its own).
std::optional<Curve> Translator::unit_curve(const toml::node& n, std::string_view what) {
  auto c = curve(n, what);
  if (!c) return std::nullopt;
  if (c->has_envelope()) {
    error(n, std::string(what) + " takes no envelope: give [time, value] keypoints");
    return std::nullopt;
  }
  if (c->min_value() < 0 || c->max_value() > 1) {
    error(n, std::string(what) + " values must be within [0, 1], got " +
                 fmt(c->min_value() < 0 ? c->min_value() : c->max_value()));
    return std::nullopt;
  }
  return c;
}

void Translator::read_trail(const toml::node& n, Trail& trail, const std::string& emitter) {
  const toml::table* t =
      inline_table(n, kTrailKeys, "trail", "trail must be a table { count = 8, length = 0.1 }");
  if (!t) return;
  // Present means on: 8 ghosts over 0.1 s, fading out, unless given.
  trail.count = 8;
  trail.fade = Curve::line(1, 0);
  if (auto c = t->get("count"))
    if (auto v = integer(*c, "trail.count", 0, kMaxTrailCount,
                         "within [0, " + std::to_string(kMaxTrailCount) + "]"))
      trail.count = static_cast<int>(*v);
  if (auto l = t->get("length"))
    if (auto v = bounded(*l, "trail.length", 0, 1e4, "within [0, 1e4] seconds"))
      trail.length_s = *v;
  if (auto f = t->get("fade"))
    if (auto c = unit_curve(*f, "trail.fade")) trail.fade = *c;
  if (auto f = t->get("scale"))
    if (auto c = unit_curve(*f, "trail.scale")) trail.scale = *c;
  if (auto f = t->get("style"))
    if (auto i = choice(*f, "trail.style", {"ghosts", "ribbon"})) trail.ribbon = *i == 1;
  if (trail.count > 0 && trail.length_s == 0)
    warnings.push_back(
        {loc(*t->get("length")),
         "emitter '" + emitter + "' trail.length is 0: " +
             (trail.ribbon ? "the ribbon has no length, so each particle is drawn as a disc"
                           : "every ghost is drawn on its particle")});
  else if (trail.count > 0 && (trail.fade.max_value() <= 0 || trail.scale.max_value() <= 0))
    warnings.push_back({loc(n), "emitter '" + emitter + "' trail draws nothing: its " +
                                    std::string(trail.fade.max_value() <= 0 ? "fade" : "scale") +
                                    " is 0 along the whole trail"});
}

void Translator::read_turbulence(const toml::node& n, Turbulence& turb,
                                 const std::string& emitter) {
  const toml::table* t =
      inline_table(n, kTurbulenceKeys, "turbulence",
                   "turbulence must be a table { amplitude = 20, frequency = 0.02, speed = 1 }");
  if (!t) return;
  // Present means on, with the defaults of effect.h unless given.
  turb.enabled = true;
  if (auto a = t->get("amplitude")) {
    if (auto c = curve(*a, "turbulence.amplitude")) {
      // The keys' values; an envelope may reach below 0, where the
      // amplitude is 0 (as a size is).
      const double lo = *std::min_element(c->value.begin(), c->value.begin() + c->count);
      if (lo < 0 || c->max_value() > 1e6)
        error(*a, "turbulence.amplitude values must be within [0, 1e6] design px, got " +
                      fmt(lo < 0 ? lo : c->max_value()));
      else
        turb.amplitude = *c;
    }
  }
  if (auto f = t->get("frequency"))
    if (auto v = bounded(*f, "turbulence.frequency", 0, 1e3, "within [0, 1e3] cells per design px"))
      turb.frequency = *v;
  if (auto f = t->get("speed"))
    if (auto v = bounded(*f, "turbulence.speed", 0, 1e6, "within [0, 1e6] cells per second"))
      turb.speed = *v;
  if (auto f = t->get("phase"))
    if (auto v = bounded(*f, "turbulence.phase", 0, 1e6, "within [0, 1e6] cells")) turb.phase = *v;
  if (turb.amplitude.max_value() <= 0)
    warnings.push_back({loc(t->get("amplitude") ? *t->get("amplitude") : n),
                        "emitter '" + emitter + "' turbulence moves nothing: its amplitude is 0"});
  else if (turb.frequency == 0 && turb.speed == 0 && turb.phase == 0)
    warnings.push_back(
        {loc(n), "emitter '" + emitter +
                     "' turbulence moves nothing: with frequency, speed and phase 0 the noise "
                     "is read at its lattice point (0, 0, 0), where it is 0"});
}

// The keyframes of a `what` key: 1 to max_keys arrays of `form`'s arity (form
// reads like "[t, x, y]"). Empty, after an error naming `must_be`, when not.
std::vector<const toml::array*> Translator::keyframes(const toml::node& n, std::string_view what,
                                                      std::string_view form, size_t arity,
                                                      size_t max_keys, std::string_view must_be) {
  std::vector<const toml::array*> out;
  const toml::array* keys = n.as_array();
  if (!keys || keys->empty() || !(*keys)[0].is_array()) {
    error(n, std::string(must_be));
    return out;
  }
  if (keys->size() > max_keys) {
    error(n, std::string(what) + " must have 1 to " + std::to_string(max_keys) +
                 " keyframes, got " + std::to_string(keys->size()));
    return out;
  }
  for (const toml::node& key : *keys) {
    const toml::array* kf = key.as_array();
    if (!kf || kf->size() != arity) {
      error(key, "a " + std::string(what) + " keyframe is " + std::string(form) + ", got " +
                     (kf ? std::to_string(kf->size()) + (kf->size() == 1 ? " value" : " values")
                         : type_name(key)));
      out.clear();
      return out;
    }
    out.push_back(kf);
  }
  return out;
}

void Translator::read_path(const toml::node& n, Path& path) {
  for (const toml::array* kf :
       keyframes(n, "path", "[t, x, y]", 3, kMaxPathKeys,
                 "path must be keyframes [[t, x, y], ...] in effect-clock seconds and design px")) {
    auto t = bounded((*kf)[0], "path time", -1e9, 1e9, "within ±1e9 s");
    auto x = bounded((*kf)[1], "path x", -1e9, 1e9, "within ±1e9 px");
    auto y = bounded((*kf)[2], "path y", -1e9, 1e9, "within ±1e9 px");
    if (!t || !x || !y) return;
    if (!path.t.empty() && !(*t > path.t.back())) {
      error((*kf)[0], "path times must be strictly increasing, got " + fmt(*t) + " after " +
                          fmt(path.t.back()));
      return;
    }
    path.t.push_back(*t);
    path.p.push_back({*x, *y});
  }
}

void Translator::read_rate_keys(const toml::node& n, RateCurve& curve) {
  for (const toml::array* kf :
       keyframes(n, "rate", "[t, rate]", 2, kMaxRateKeys,
                 "rate must be a number or keyframes [[t, rate], ...] in effect-clock seconds and "
                 "particles/s")) {
    auto t = bounded((*kf)[0], "rate time", -1e9, 1e9, "within ±1e9 s");
    auto r = bounded((*kf)[1], "rate", 0, 1e15, "within [0, 1e15] particles/s");
    if (!t || !r) return;
    const std::vector<double>& kt = curve.key_t;
    if (!kt.empty() && *t < kt.back()) {
      error((*kf)[0], "rate times must not decrease, got " + fmt(*t) + " after " + fmt(kt.back()));
      return;
    }
    if (kt.size() >= 2 && *t == kt.back() && *t == kt[kt.size() - 2]) {
      error((*kf)[0],
            "at most two rate keyframes share a time (a step), got a third at " + fmt(*t));
      return;
    }
    curve.key_t.push_back(*t);
    curve.key_r.push_back(*r);
  }
}

void Translator::read_flipbook(const toml::node& n, Flipbook& fb) {
  const toml::table* t =
      inline_table(n, kFlipbookKeys, "flipbook",
                   "flipbook must be a table { layout = [cols, rows], mode = \"loop\", fps = 10 }");
  if (!t) return;
  fb.enabled = true;
  if (auto l = t->get("layout")) {
    const toml::array* a = l->as_array();
    if (!a || a->size() != 2) {
      error(*l, "flipbook.layout must be [cols, rows]");
    } else {
      auto c = integer((*a)[0], "flipbook columns", 1, 256, "within [1, 256]");
      auto r = integer((*a)[1], "flipbook rows", 1, 256, "within [1, 256]");
      if (c && r) {
        fb.cols = static_cast<int>(*c);
        fb.rows = static_cast<int>(*r);
      }
    }
  } else {
    error(n, "flipbook needs a layout = [cols, rows]");
  }
  if (auto m = t->get("mode"))
    if (auto i = choice(*m, "flipbook.mode", {"oneshot", "loop", "pingpong", "random"}))
      fb.mode = static_cast<FlipbookMode>(*i);
  if (auto f = t->get("fps"))
    if (auto r = range(*f, "flipbook.fps", 0)) fb.fps = *r;
  if (auto r = t->get("random_start"))
    if (auto b = boolean(*r, "flipbook.random_start")) fb.random_start = *b;
}

void Translator::read_shape(const toml::node& n, Shape& shape) {
  const toml::table* t = inline_table(
      n, kShapeKeys, "shape", "shape must be a table { kind = \"ellipse\", size = [w, h] }");
  if (!t) return;
  if (auto k = t->get("kind"))
    if (auto i = choice(*k, "shape.kind", {"point", "box", "ellipse"}))
      shape.kind = static_cast<ShapeKind>(*i);
  double w = 0, h = 0;
  if (auto s = t->get("size")) {
    if (s->is_number()) {
      if (auto v = bounded(*s, "shape.size", 0, 1e7, "within [0, 1e7]")) w = h = *v;
    } else if (auto v = vec2(*s, "shape.size")) {
      if (v->x < 0 || v->y < 0)
        error(*s, "shape.size must not be negative");
      else
        w = v->x, h = v->y;
    }
  }
  shape.a = w / 2;
  shape.b = h / 2;
  if (auto s = t->get("style"))
    if (auto i = choice(*s, "shape.style", {"volume", "surface"}))
      shape.style = static_cast<ShapeStyle>(*i);
  if (auto s = t->get("in_out"))
    if (auto i = choice(*s, "shape.in_out", {"outward", "inward", "both"}))
      shape.in_out = static_cast<InOut>(*i);
  if (auto s = t->get("inner"))
    if (auto v = bounded(*s, "shape.inner", 0, 0.999999, "within [0, 1)")) shape.inner = *v;
  if (shape.kind == ShapeKind::kEllipse) {
    if (shape.a == 0 && shape.b == 0) {
      shape.kind = ShapeKind::kPoint;  // both semi-axes 0: a point
    } else if (shape.a <= 0 || shape.b <= 0) {
      error(t->get("size") ? *t->get("size") : n,
            "an ellipse needs both sizes > 0 (or both 0 for a point)");
    }
  }
}

void Translator::read_bursts(const toml::node& n, Emitter& em, uint64_t max_count) {
  const toml::array* a = n.as_array();
  if (!a) {
    error(n, "bursts must be an array of tables [{ time = 0, count = 10 }, ...]");
    return;
  }
  uint64_t next_index = 0;
  for (const toml::node& item : *a) {
    const toml::table* t = item.as_table();
    if (!t) {
      error(item, "each burst must be a table { time = 0, count = 10 }");
      continue;
    }
    check_keys(*t, kBurstKeys, "burst");
    BurstGroup b;
    bool ok = true;
    if (auto v = t->get("time")) {
      auto x = bounded(*v, "burst time", -1e9, 1e9, "within [-1e9, 1e9] seconds");
      ok = ok && x;
      if (x) b.time_s = *x;
    }
    if (auto v = t->get("count")) {
      // Counts beyond max_particles are clamped (model.md 4.3), not refused.
      auto x = integer(*v, "burst count", 0, std::numeric_limits<int64_t>::max(), "non-negative");
      ok = ok && x;
      if (x) b.count = static_cast<uint32_t>(std::min<uint64_t>(*x, max_count));
    } else {
      error(item, "a burst needs a count");
      ok = false;
    }
    if (auto v = t->get("repeat")) {
      auto x = integer(*v, "burst repeat", 1, 1'000'000'000, "within [1, 1e9]");
      ok = ok && x;
      if (x) b.repeat = static_cast<uint64_t>(*x);
    }
    if (auto v = t->get("interval")) {
      auto x = bounded(*v, "burst interval", 0, 1e9, "within [0, 1e9] seconds");
      ok = ok && x;
      if (x) b.interval_s = *x;
    }
    if (ok && b.repeat > 1 && b.interval_s <= 0) {
      error(item, "a burst with repeat > 1 needs an interval > 0 (seconds between firings)");
      ok = false;
    }
    // A repeating burst is a rate in disguise: as for the stream, at most
    // max_particles of its particles may be alive at once. Firings that
    // overlap within one lifetime share that budget, so the count is clamped
    // to max_particles / overlap (and more overlapping firings than
    // max_particles is refused).
    if (ok && b.repeat > 1) {
      const double overlap_d =
          std::min(static_cast<double>(b.repeat), std::floor(em.lifetime_s.max / b.interval_s) + 1);
      if (overlap_d > static_cast<double>(max_count)) {
        error(item, "this burst fires " + fmt(overlap_d) +
                        " times within one lifetime, more than max_particles (" +
                        std::to_string(max_count) + "); raise its interval or lower its repeat");
        ok = false;
      } else {
        const uint64_t overlap = static_cast<uint64_t>(overlap_d);
        b.count = static_cast<uint32_t>(std::min<uint64_t>(b.count, max_count / overlap));
      }
    }
    b.first_index = next_index;
    next_index += b.repeat;
    if (ok) em.bursts.push_back(b);
  }
}

void Translator::read_emitter(const toml::table& t, Emitter& em) {
  check_keys(t, kEmitterKeys, "[[emitter]]");
  if (auto n = t.get("name"))
    if (auto s = string(*n, "emitter name")) {
      if (const char* why = emitter_name_problem(*s))
        error(*n, "emitter name " + quoted_excerpt(*s) + " " + why);
      else
        em.name = *s;
    }
  if (auto n = t.get("enabled"))
    if (auto v = boolean(*n, "enabled")) em.enabled = *v;
  if (auto n = t.get("position"))
    if (auto v = vec2(*n, "position")) em.position = *v;
  if (auto n = t.get("rate")) {
    em.rate_loc = loc(*n);
    if (n->is_array()) {
      read_rate_keys(*n, em.rate_curve);
      if (!em.rate_curve.empty())
        em.rate_per_s = *std::max_element(em.rate_curve.key_r.begin(), em.rate_curve.key_r.end());
    } else if (auto v =
                   bounded(*n, "rate", 0, std::numeric_limits<double>::max(), "non-negative")) {
      em.rate_per_s = *v;
    }
  }
  if (auto n = t.get("max_particles"))
    if (auto v = integer(*n, "max_particles", 1, kMaxParticlesLimit, "within [1, 10000000]"))
      em.max_particles = static_cast<uint32_t>(*v);
  if (auto n = t.get("lifetime"))
    if (auto r = range(*n, "lifetime", 0)) em.lifetime_s = *r;
  if (auto n = t.get("speed"))
    if (auto r = range(*n, "speed", -std::numeric_limits<double>::max())) em.speed_px_per_s = *r;
  if (auto n = t.get("direction")) {
    if (n->is_string()) {
      if (auto i = choice(*n, "direction", {"right", "up", "left", "down"}))
        em.direction_deg = 90.0 * static_cast<double>(*i);
    } else if (auto v = number(*n, "direction")) {
      em.direction_deg = *v;
    }
  }
  if (auto n = t.get("spread"))
    if (auto v = bounded(*n, "spread", 0, 180, "within [0, 180] degrees")) em.spread_deg = *v;
  if (auto n = t.get("acceleration"))
    if (auto v = vec2(*n, "acceleration")) em.acceleration = *v;
  if (auto n = t.get("drag"))
    if (auto v = number(*n, "drag")) em.drag_per_s = *v;
  if (auto n = t.get("rotation"))
    if (auto r = range(*n, "rotation", -std::numeric_limits<double>::max())) em.rotation_deg = *r;
  if (auto n = t.get("rotation_speed"))
    if (auto r = range(*n, "rotation_speed", -std::numeric_limits<double>::max()))
      em.rotation_speed_deg_per_s = *r;
  if (auto n = t.get("orientation"))
    if (auto i =
            choice(*n, "orientation", {"facing", "velocity_parallel", "velocity_perpendicular"}))
      em.orientation = static_cast<Orientation>(*i);
  if (auto n = t.get("size"))
    if (auto c = curve(*n, "size")) em.size_px = *c;
  if (auto n = t.get("transparency"))
    if (auto c = curve(*n, "transparency")) em.transparency = *c;
  if (auto n = t.get("squash"))
    if (auto c = curve(*n, "squash")) em.squash = *c;
  if (auto n = t.get("color"))
    if (auto c = color_curve(*n, "color")) em.color = *c;
  if (auto n = t.get("brightness"))
    if (auto v = bounded(*n, "brightness", 0, 1e6, "within [0, 1e6]")) em.brightness = *v;
  if (auto n = t.get("light_emission"))
    if (auto v = bounded(*n, "light_emission", 0, 1, "within [0, 1]")) em.light_emission = *v;
  if (auto n = t.get("light_influence"))
    if (auto v = bounded(*n, "light_influence", 0, 1, "within [0, 1]")) em.light_influence = *v;
  if (auto n = t.get("z_offset"))
    if (auto v = integer(*n, "z_offset", -1'000'000'000, 1'000'000'000, "within [-1e9, 1e9]"))
      em.z_offset = *v;
  if (auto n = t.get("draw_order"))
    if (auto i = choice(*n, "draw_order", {"oldest_first", "newest_first"}))
      em.draw_order = static_cast<DrawOrder>(*i);
  if (auto n = t.get("texture")) {
    if (auto s = string(*n, "texture")) {
      em.texture_loc = loc(*n);
      if (s->rfind("builtin:", 0) == 0) {
        em.texture = *s;
      } else if (s->empty()) {
        error(*n, "texture must be \"builtin:NAME\" or a PNG path");
      } else {
        fs::path p(*s);
        if (p.is_relative() && base_dir_ != ".") p = fs::path(base_dir_) / p;
        std::error_code ec;
        const auto status = fs::status(p, ec);
        if (ec || !fs::exists(status)) {
          std::string hint;
          // A path typed in --set is still relative to the effect file; say
          // so when the working directory has the file the user meant.
          const bool from_set = n->source().path && n->source().path->rfind(kSetPrefix, 0) == 0;
          if (from_set && fs::path(*s).is_relative() && p != fs::path(*s) &&
              fs::exists(fs::path(*s), ec))
            hint = " (" + *s +
                   " is in the working directory, but a texture path is relative to the "
                   "effect file, in --set too: give an absolute path)";
          error(*n, "texture file not found: " + p.string() + hint);
        } else if (!fs::is_regular_file(status)) {
          error(*n, "texture is not a regular file: " + p.string());
        }
        em.texture = p.lexically_normal().string();
      }
    }
  } else {
    em.texture_loc = loc(t);
  }
  if (auto n = t.get("filter"))
    if (auto i = choice(*n, "filter", {"trilinear", "bilinear", "nearest"}))
      em.filter = static_cast<TextureFilter>(*i);
  if (auto n = t.get("flipbook")) read_flipbook(*n, em.flipbook);
  if (auto n = t.get("shape")) read_shape(*n, em.shape);
  if (auto n = t.get("bursts")) read_bursts(*n, em, em.max_particles);
  if (auto n = t.get("trail")) read_trail(*n, em.trail, em.name);
  if (auto n = t.get("turbulence")) read_turbulence(*n, em.turbulence, em.name);
  if (auto n = t.get("path")) {
    em.path_loc = loc(*n);
    read_path(*n, em.path);
  }
  if (auto n = t.get("path_interpolation"))
    if (auto i = choice(*n, "path_interpolation", {"linear", "smooth"})) em.path.smooth = *i == 1;
  if (auto n = t.get("space"))
    if (auto i = choice(*n, "space", {"world", "local"})) em.space = static_cast<Space>(*i);
  if (auto n = t.get("inherit_velocity"))
    if (auto v = bounded(*n, "inherit_velocity", -1e3, 1e3, "within [-1e3, 1e3]"))
      em.inherit_velocity = *v;
  if (auto n = t.get("sub")) read_sub(*n, em.sub);
  if (!em.sub.parent_name.empty()) check_sub_keys(t, em);
}

// An enabled emitter that loads but can never show a particle: a mistake the
// renderer would answer with a silent empty frame.
void Translator::warn_invisible(const toml::table& t, const Emitter& em) {
  if (!em.enabled) return;
  const std::string who = "emitter '" + em.name + "' ";
  const bool bursts = std::any_of(em.bursts.begin(), em.bursts.end(),
                                  [](const BurstGroup& b) { return b.count > 0; });
  if (!em.sub.parent_name.empty()) {
    if (em.sub.on == SubEvent::kLife ? em.rate_per_s == 0 : em.sub.count == 0)
      warnings.push_back({em.sub.loc, who + "never emits: its " +
                                          (em.sub.on == SubEvent::kLife ? "rate" : "sub.count") +
                                          " is 0"});
  } else if (em.rate_per_s == 0 && !bursts) {
    warnings.push_back({loc(t.get("rate") ? *t.get("rate") : static_cast<const toml::node&>(t)),
                        who + "never emits: its rate is 0 and it has no bursts"});
  }
  // A parent drawn invisibly is a carrier for its sub-emitters: no warning.
  if (const toml::node* n = t.get("transparency");
      n && em.transparency.min_value() >= 1 && !has_children(em))
    warnings.push_back({loc(*n), who + "is invisible: its transparency is 1 or more over the whole "
                                       "life (transparency 0 is opaque, 1 fully transparent)"});
  if (const toml::node* n = t.get("size"); n && em.size_px.max_value() <= 0 && !has_children(em))
    warnings.push_back({loc(*n), who + "draws nothing: its size is 0 or less over the whole life"});
}

void Translator::read_sub(const toml::node& n, SubEmitter& sub) {
  const toml::table* t = inline_table(
      n, kSubKeys, "sub", "sub must be a table { parent = \"NAME\", on = \"death\", count = 10 }");
  if (!t) return;
  sub.loc = loc(n);
  if (auto p = t->get("parent")) {
    if (auto s = string(*p, "sub.parent")) {
      sub.parent_name = s->empty() ? std::string(" ") : *s;
      sub.loc = loc(*p);
    }
  } else {
    error(n, "sub needs a parent: the name of the emitter whose particles emit this one's");
    sub.parent_name = " ";  // still a sub-emitter, for the checks that follow
  }
  if (auto o = t->get("on"))
    if (auto i = choice(*o, "sub.on", {"death", "birth", "life"}))
      sub.on = static_cast<SubEvent>(*i);
  if (auto c = t->get("count")) {
    if (sub.on == SubEvent::kLife)
      error(*c,
            "sub.count is for on = \"death\" or \"birth\"; with on = \"life\" the emitter's rate "
            "sets the children per second of each parent's life");
    else if (auto v = integer(*c, "sub.count", 0, kMaxParticlesLimit, "within [0, 10000000]"))
      sub.count = sub.count_asked = static_cast<uint32_t>(*v);
  }
}

// Keys that place or time an ordinary emitter's particles do not apply to a
// sub-emitter's, which start at their parent: an error, not a silent no-op.
void Translator::check_sub_keys(const toml::table& t, const Emitter& em) {
  for (std::string_view key : {"bursts", "path", "path_interpolation", "space"})
    if (const toml::node* n = t.get(key))
      error(*n, std::string(key) +
                    " does not apply to a sub-emitter: its particles start where their parent is");
  if (const toml::node* n = t.get("rate")) {
    if (em.sub.on != SubEvent::kLife)
      error(*n,
            "rate applies to a sub-emitter only with sub.on = \"life\" (children per second of "
            "each parent's life); on = \"" +
                std::string(em.sub.on == SubEvent::kDeath ? "death" : "birth") +
                "\" uses sub.count");
    else if (n->is_array())
      error(*n, "a sub-emitter's rate is a number: children per second of each parent's life");
  }
}

// Sub-emitters name their parent by name; once every emitter is read, find
// it. One level: a parent is an ordinary emitter.
void Translator::resolve_subs(Effect& fx) {
  for (Emitter& em : fx.emitters) {
    if (em.sub.parent_name.empty() || em.sub.parent_name == " ") continue;
    const std::string& name = em.sub.parent_name;
    const auto it = std::find_if(fx.emitters.begin(), fx.emitters.end(),
                                 [&](const Emitter& e) { return e.name == name; });
    if (it == fx.emitters.end()) {
      std::vector<std::string_view> names;
      for (const Emitter& e : fx.emitters) names.push_back(e.name);
      const std::string hint = closest_match(name, names);
      error_at(em.sub.loc, "sub.parent names no emitter: '" + name + "'" +
                               (hint.empty() ? std::string() : "; did you mean '" + hint + "'?"));
    } else if (&*it == &em) {
      error_at(em.sub.loc, "emitter '" + em.name + "' cannot be its own parent");
    } else if (!it->sub.parent_name.empty()) {
      error_at(em.sub.loc,
               "sub.parent '" + name + "' is itself a sub-emitter; sub-emitters have one level");
    } else {
      em.sub.parent = static_cast<int32_t>(it - fx.emitters.begin());
      if (!it->enabled && em.enabled)
        warnings.push_back({em.sub.loc, "emitter '" + em.name + "' never emits: its parent '" +
                                            name + "' is disabled (enabled = false)"});
    }
  }
}

void Translator::read_check(const toml::table& t, CheckSpec& check) {
  check_keys(t, kCheckKeys, "[check]");
  if (auto n = t.get("times")) {
    const toml::array* a = n->as_array();
    if (!a || a->empty()) {
      error(*n, "check.times must be a non-empty array of times in seconds");
    } else {
      std::unordered_map<std::string, double> labels;
      for (const toml::node& x : *a) {
        auto v = bounded(x, "check time", -1e9, 1e9, "within [-1e9, 1e9]");
        if (!v) continue;
        const std::string label = check_time_label(*v);
        const auto [same, fresh] = labels.emplace(label, *v);
        if (!fresh) {
          char now_s[32], prev_s[32];
          std::snprintf(now_s, sizeof now_s, "%.9g", *v);
          std::snprintf(prev_s, sizeof prev_s, "%.9g", same->second);
          error(x, std::string("check time ") + now_s + " and " + prev_s +
                       " would share the golden " + label +
                       ".png (goldens are named by the millisecond); keep check times "
                       "at least 1 ms apart");
          continue;
        }
        check.times.push_back(*v);
      }
    }
  }
  if (auto n = t.get("threshold"))
    if (auto v = bounded(*n, "check.threshold", 0, 1, "within [0, 1]")) check.threshold = *v;
  if (auto n = t.get("max_diff_pixels"))
    if (auto v = integer(*n, "check.max_diff_pixels", 0, std::numeric_limits<int64_t>::max(),
                         "non-negative"))
      check.max_diff_pixels = *v;
  if (auto n = t.get("max_diff_ratio"))
    if (auto v = bounded(*n, "check.max_diff_ratio", 0, 1, "within [0, 1]"))
      check.max_diff_ratio = *v;
  if (auto n = t.get("max_channel_diff"))
    if (auto v = integer(*n, "check.max_channel_diff", 0, 255, "within 0..255"))
      check.max_channel_diff = static_cast<int>(*v);
}

Effect Translator::translate(const toml::table& root) {
  Effect fx;
  check_keys(root, kRootKeys, "the effect file");
  if (auto t = table_at(root, "effect", "[effect]")) read_effect(*t, fx);
  if (auto t = table_at(root, "canvas", "[canvas]")) read_canvas(*t, fx.canvas);
  if (auto t = table_at(root, "check", "[check]")) read_check(*t, fx.check);

  const toml::node* list = root.get("emitter");
  if (!list) {
    error_at({file_, 0, 0},
             root.empty() ? "the effect file is empty: an effect needs at least one [[emitter]]"
                          : "the effect has no [[emitter]] table");
  } else if (!list->is_array_of_tables()) {
    error(*list, "emitter must be written as [[emitter]] tables");
  } else {
    const toml::array& arr = *list->as_array();
    std::unordered_set<std::string> names;
    for (size_t i = 0; i < arr.size(); ++i) {
      Emitter em;
      em.index = static_cast<uint32_t>(i);
      em.name = "emitter" + std::to_string(i);
      read_emitter(*arr[i].as_table(), em);
      if (!names.insert(em.name).second) {
        const toml::node* n = arr[i].as_table()->get("name");
        error(n ? *n : arr[i], "emitter name \"" + em.name + "\" is used twice");
      }
      fx.emitters.push_back(std::move(em));
    }
    resolve_subs(fx);
    children_.clear();
    for (const Emitter& em : fx.emitters)
      if (em.sub.parent >= 0) children_.insert(static_cast<uint32_t>(em.sub.parent));
    for (size_t i = 0; i < fx.emitters.size(); ++i)
      warn_invisible(*arr[i].as_table(), fx.emitters[i]);
  }
  return fx;
}

// --- what the bytes are --------------------------------------------------------

// Two mistakes that toml++ reports as "invalid utf-8 sequence" at 1:1: a file
// saved as UTF-16 (Windows editors do), and an image named where the effect
// goes (`spritz render out/fire_0001.png`). Both get a sentence that says what
// the file is.
void check_file_kind(std::string_view text, const std::string& source_name) {
  const SourceLoc start{source_name, 1, 1};
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  if (starts(std::string_view("\xFF\xFE\0\0", 4)) || starts(std::string_view("\0\0\xFE\xFF", 4)))
    throw Error(
        start,
        "this is UTF-32 text; effect files are UTF-8 (convert it, e.g. iconv -f UTF-32 -t UTF-8)");
  // UTF-16 without a byte-order mark: ASCII text with every other byte zero.
  const bool zeros_alternate = text.size() >= 4 && (text[0] == 0) != (text[1] == 0) &&
                               (text[2] == 0) == (text[0] == 0) && (text[3] == 0) == (text[1] == 0);
  if (starts("\xFF\xFE") || starts("\xFE\xFF") || zeros_alternate)
    throw Error(
        start,
        "this is UTF-16 text; effect files are UTF-8 (convert it, e.g. iconv -f UTF-16 -t UTF-8)");
  if (starts("\x89PNG\r\n\x1A\n"))
    throw Error(start, "this is a PNG image, not an effect file (TOML)");
}

// --- nesting depth ------------------------------------------------------------

// Effect keys nest a few tables deep (emitter.shape.kind); this allows far
// more, and far less than the depth at which toml++ 3.3 overflows the stack.
constexpr int kMaxKeyParts = 64;

// toml++ limits nested arrays and inline tables (256), but not dotted keys:
// a key of 50,000 parts (a.a.a...) crashes it by recursion, in the parser or
// when the tree is freed. So before parsing, every run of dot-separated
// tokens outside strings and comments is counted. Counting such runs rather
// than keys needs no grammar: a value never holds one of more than a few
// parts (1.5, a date's fraction), and quoted parts ("a.b".c) count once.
void check_key_depth(std::string_view text, const std::string& source_name) {
  uint32_t line = 1, col = 1, run_line = 0, run_col = 0;
  int parts = 0;           // tokens in the current run
  bool after_dot = false;  // the run's last token is followed by a dot
  bool in_token = false;   // inside a bare token
  auto end_token = [&] { in_token = false; };
  auto start_token = [&] {
    if (after_dot) {
      ++parts;
      after_dot = false;
    } else {
      parts = 1;
      run_line = line;
      run_col = col;
    }
    if (parts > kMaxKeyParts)
      throw Error(SourceLoc{source_name, run_line, run_col},
                  "a dotted key of more than " + std::to_string(kMaxKeyParts) +
                      " parts; effect keys nest a few tables deep (emitter.shape.kind)");
  };
  auto bare = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {  // a comment, to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      end_token();
      parts = 0;
      after_dot = false;
    } else if (c == '"' || c == '\'') {
      // A string: one token. Multi-line strings ("""...""", '''...''') may
      // hold newlines; basic strings may escape their quote.
      end_token();
      start_token();
      const bool multi = text.substr(i, 3) == std::string(3, c);
      const std::string_view close =
          multi ? std::string_view(c == '"' ? "\"\"\"" : "'''") : std::string_view(&text[i], 1);
      i += multi ? 3 : 1;
      col += multi ? 3 : 1;
      while (i < text.size() && text.substr(i, close.size()) != close) {
        if (c == '"' && text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          ++col;
        }
        if (text[i] == '\n') {
          ++line;
          col = 0;
        }
        ++i;
        ++col;
      }
      i += close.size() - 1;
      col += static_cast<uint32_t>(close.size()) - 1;
      // A multi-line string may end with one or two quotes of its own ("a"""").
      for (int extra = 0; multi && extra < 2 && i + 1 < text.size() && text[i + 1] == c; ++extra) {
        ++i;
        ++col;
      }
    } else if (bare(c)) {
      if (!in_token) {
        start_token();
        in_token = true;
      }
    } else if (c == '.') {
      end_token();
      after_dot = parts > 0;
    } else if (c == ' ' || c == '\t') {
      end_token();  // whitespace may surround the dots of a key
    } else {
      end_token();
      parts = 0;
      after_dot = false;
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
}

// --- overrides ----------------------------------------------------------------

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

void apply_override(toml::table& root, const std::string& text) {
  const std::string origin = kSetPrefix + text;
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
  toml::table snippet;
  try {
    snippet = toml::parse(key + " = " + value, origin);
  } catch (const toml::parse_error&) {
    snippet = toml::parse(key + " = " + toml_quote(value), origin);
  }
  table->insert_or_assign(parts[i], std::move(*snippet.get(parts[i])));
}

// --- derived values -------------------------------------------------------------

void derive(Effect& fx) {
  for (Emitter& em : fx.emitters) {
    em.seed = emitter_seed(fx.seed, em.index);
    em.turbulence.fields = turbulence_fields(em.seed);
    em.turbulence.amplitude_has_envelope = em.turbulence.amplitude.has_envelope();
    em.direction = direction_from_degrees(em.direction_deg);
    em.color_has_envelope = em.color.has_envelope();
    const double life_max = em.lifetime_s.max;
    // Little's law: a steady stream holds about r * mean(life) <= r * L_max.
    double rate = life_max > 0 ? std::min(em.rate_per_s, em.max_particles / life_max) : 0.0;
    if (fx.loop && rate > 0) {
      // Round so that N = r T is whole: keys repeat every period.
      const double cap = em.max_particles * fx.duration_s / life_max;
      double n = std::round(rate * fx.duration_s);
      if (n > cap) n = std::floor(cap);
      em.loop_keys = static_cast<uint64_t>(n);
      rate = n / fx.duration_s;
    }
    em.stream_rate_per_s = rate;
    if (!em.rate_curve.empty()) {
      // An animated rate: the same clamp pointwise, the same whole count per
      // period; the window's bound is its largest rate.
      const double period = fx.loop ? fx.duration_s : 0;
      em.loop_keys = life_max > 0
                         ? em.rate_curve.prepare(em.max_particles / life_max, period,
                                                 em.max_particles * fx.duration_s / life_max)
                         : em.rate_curve.prepare(0, period, 0);
      em.stream_rate_per_s = em.rate_curve.max_rate();
    }
    em.path.set_period(fx.loop ? fx.duration_s : 0);
    if (em.sub.parent >= 0) em.stream_rate_per_s = 0, em.loop_keys = 0;  // no stream of its own
  }
  // Sub-emitters, once every parent's rate is known. max_particles caps the
  // children alive at once, as Little's law caps a stream: with `parents` the
  // most parents whose events can have live children at once, count is
  // clamped to P / parents, and a life's rate to what keeps parents x
  // (rate x life + 1) within P.
  for (Emitter& em : fx.emitters) {
    if (em.sub.parent < 0) continue;
    SubEmitter& sub = em.sub;
    const Emitter& parent = fx.emitters[static_cast<size_t>(sub.parent)];
    const double life_max = em.lifetime_s.max, cap = em.max_particles;
    const double parents = std::max(1.0, keys_born_within(fx, parent, sub_parent_span(parent, em)));
    if (sub.on == SubEvent::kLife) {
      const double fit = life_max > 0 ? std::max(0.0, (cap / parents - 1) / life_max) : 0.0;
      sub.rate_per_s = std::min(em.rate_per_s, fit);
      const double n = std::ceil(sub.rate_per_s * parent.lifetime_s.max);
      sub.spacing = static_cast<uint64_t>(std::clamp(n, 1.0, 0x1p62));
    } else {
      sub.count = static_cast<uint32_t>(std::min<double>(sub.count, std::floor(cap / parents)));
      sub.spacing = std::max<uint64_t>(1, sub.count);
    }
  }
  fx.draw_order.clear();
  for (const Emitter& em : fx.emitters)
    if (em.enabled) fx.draw_order.push_back(em.index);
  std::stable_sort(fx.draw_order.begin(), fx.draw_order.end(), [&](uint32_t a, uint32_t b) {
    return fx.emitters[a].z_offset < fx.emitters[b].z_offset;
  });
}

// The file's stem, made a valid effect name: "fire" for fx/fire.toml,
// "stdin" for an effect read from stdin, and '_' for each character an
// effect name may not hold ("fire#2.toml" is "fire_2").
std::string default_name(const std::string& source_name) {
  if (source_name == "-" || source_name == kStdinSourceName) return "stdin";
  std::string stem = fs::path(source_name).stem().string();
  for (char& c : stem) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || kNameForbidden.find(c) != std::string_view::npos) c = '_';
  }
  // A long file name is cut, back to the start of a UTF-8 character.
  if (stem.size() > kMaxNameBytes) {
    size_t n = kMaxNameBytes;
    while (n > 0 && (static_cast<unsigned char>(stem[n]) & 0xC0) == 0x80) --n;
    stem.resize(n);
  }
  return effect_name_problem(stem) ? "effect" : stem;
}

}  // namespace

std::string check_time_label(double t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", t);
  return std::string_view(buf) == "-0.000" ? "0.000" : buf;
}

std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
  size_t best = std::numeric_limits<size_t>::max();
  std::string_view best_word;
  for (std::string_view c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best) {
      best = d;
      best_word = c;
    }
  }
  const size_t allowed = std::max<size_t>(2, word.size() / 3);
  return best <= allowed ? std::string(best_word) : std::string();
}

Effect load_effect(std::string_view text, const std::string& source_name,
                   const std::string& base_dir, const LoadOptions& options) {
  check_file_kind(text, source_name);
  check_key_depth(text, source_name);
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const toml::source_region& src = e.source();
    throw Error(SourceLoc{source_name, static_cast<uint32_t>(src.begin.line),
                          static_cast<uint32_t>(src.begin.column)},
                "invalid TOML: " + std::string(e.description()));
  }
  uint64_t hash = fnv1a64(text);
  for (const std::string& o : options.overrides) {
    apply_override(root, o);
    hash = fnv1a64(o, fnv1a64(std::string_view("\0", 1), hash));
  }

  Translator tr(source_name, base_dir);
  Effect fx = tr.translate(root);
  if (!tr.diagnostics.empty()) {
    std::stable_sort(tr.diagnostics.begin(), tr.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                       if (a.loc.file != b.loc.file) return a.loc.file < b.loc.file;
                       if (a.loc.line != b.loc.line) return a.loc.line < b.loc.line;
                       return a.loc.col < b.loc.col;
                     });
    throw Error(std::move(tr.diagnostics));
  }
  if (fx.name.empty()) fx.name = default_name(source_name);
  // In file order, like the errors.
  std::stable_sort(tr.warnings.begin(), tr.warnings.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.loc.file != b.loc.file) return a.loc.file < b.loc.file;
                     if (a.loc.line != b.loc.line) return a.loc.line < b.loc.line;
                     return a.loc.col < b.loc.col;
                   });
  fx.warnings = std::move(tr.warnings);
  if (!fx.emitters.empty() && std::none_of(fx.emitters.begin(), fx.emitters.end(),
                                           [](const Emitter& em) { return em.enabled; }))
    fx.warnings.push_back(
        Diagnostic{SourceLoc{source_name, 0, 0},
                   "every emitter is disabled (enabled = false): nothing is drawn"});
  fx.source_path = source_name;
  fx.content_hash = hash;
  derive(fx);
  // A looped effect reads each path over one period: one that ends away from
  // where it starts jumps at the seam.
  if (fx.loop)
    for (const Emitter& em : fx.emitters) {
      if (em.path.empty() || !em.enabled) continue;
      Path open = em.path;
      open.set_period(0);
      const Vec2 a = open.at(0), b = open.at(fx.duration_s);
      if (a.x != b.x || a.y != b.y) {
        char where[160];
        std::snprintf(where, sizeof where,
                      " path is at (%g, %g) at clock 0 but at (%g, %g) when the period ends "
                      "(%g s): the loop jumps there",
                      a.x, a.y, b.x, b.y, fx.duration_s);
        fx.warnings.push_back({em.path_loc, "emitter '" + em.name + "'" + where});
      }
    }
  // A sub-emitter whose max_particles cannot hold one child per parent.
  for (const Emitter& em : fx.emitters) {
    if (!em.is_sub() || !em.enabled) continue;
    const bool life = em.sub.on == SubEvent::kLife;
    if (life ? (em.rate_per_s > 0 && !(em.sub.rate_per_s > 0))
             : (em.sub.count_asked > 0 && em.sub.count == 0))
      fx.warnings.push_back(
          {em.sub.loc, "emitter '" + em.name + "' never emits: its max_particles (" +
                           std::to_string(em.max_particles) +
                           ") cannot hold a child for each parent that can have live "
                           "children at once; raise max_particles"});
  }
  // A looped effect reads each animated rate over one period too.
  if (fx.loop)
    for (const Emitter& em : fx.emitters) {
      const RateCurve& rc = em.rate_curve;
      if (rc.empty() || !em.enabled) continue;
      const std::string who = "emitter '" + em.name + "' rate";
      const auto fmt = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return std::string(buf);
      };
      if (rc.key_t.back() > fx.duration_s)
        fx.warnings.push_back(
            {em.rate_loc, who + " has keyframes after the period's end (" + fmt(fx.duration_s) +
                              " s): a loop reads the rate over [0, " + fmt(fx.duration_s) +
                              ") only, so they are never used"});
      // The rate at clock 0 against the rate just before the period's end.
      const double a = rc.key_value(0, false), b = rc.key_value(fx.duration_s, true);
      if (a != b)
        fx.warnings.push_back({em.rate_loc, who + " is " + fmt(a) + "/s at clock 0 but " + fmt(b) +
                                                "/s when the period ends (" + fmt(fx.duration_s) +
                                                " s): emission jumps at the loop's seam"});
    }
  return fx;
}

}  // namespace spritz
