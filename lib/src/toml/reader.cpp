#include "toml/reader.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "format.h"
#include "spritz/elementary.h"
#include "spritz/load.h"
#include "toml/text.h"

namespace spritz::toml_load {

void TomlReader::error(const toml::node& n, std::string message) {
  diagnostics.push_back({loc(n), std::move(message)});
}

void TomlReader::error_at(SourceLoc l, std::string message) {
  diagnostics.push_back({std::move(l), std::move(message)});
}

void TomlReader::check_keys(const toml::table& t, const Keys& allowed, std::string_view where) {
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

const toml::table* TomlReader::inline_table(const toml::node& n, const Keys& keys,
                                            std::string_view where, std::string_view must_be) {
  const toml::table* t = n.as_table();
  if (!t) {
    error(n, std::string(must_be) + ", got " + type_name(n));
    return nullptr;
  }
  check_keys(*t, keys, where);
  return t;
}

const toml::table* TomlReader::table_at(const toml::table& parent, std::string_view key,
                                        std::string_view what) {
  const toml::node* n = parent.get(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    error(*n, std::string(what) + " must be a table, got " + type_name(*n));
    return nullptr;
  }
  return n->as_table();
}

std::optional<double> TomlReader::number(const toml::node& n, std::string_view what) {
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

std::string limits_text(double lo, double hi, TomlReader::Bounds form, bool whole,
                        std::string_view unit) {
  const auto number = [whole](double v) {
    // Powers of ten as 1eN: from 1e3 up for real numbers, 1e9 up for whole
    // ones (a count reads 10000000), and below 1e-3.
    const double a = std::abs(v);
    if (a > 0) {
      const double e = std::round(math::log10(a));
      if (math::pow(10.0, e) == a && (e >= (whole ? 9 : 3) || e < -3))
        return std::string(v < 0 ? "-" : "") + "1e" + fmt_number(e);
    }
    return whole ? std::to_string(static_cast<long long>(v)) : fmt_number(v);
  };
  std::string text = "within ";
  switch (form) {
    case TomlReader::Bounds::kClosed:
      text += "[" + number(lo) + ", " + number(hi) + "]";
      break;
    case TomlReader::Bounds::kPlusMinus:
      text += "±" + number(hi);
      break;
    case TomlReader::Bounds::kDots:
      text += number(lo) + ".." + number(hi);
      break;
    case TomlReader::Bounds::kNonNegative:
      text = "non-negative";
      break;
  }
  if (!unit.empty()) text += " " + std::string(unit);
  return text;
}

std::optional<double> TomlReader::bounded(const toml::node& n, std::string_view what, double lo,
                                          double hi, std::string_view unit, Bounds form) {
  return bounded_as(n, what, lo, hi, limits_text(lo, hi, form, false, unit));
}

std::optional<double> TomlReader::bounded_as(const toml::node& n, std::string_view what, double lo,
                                             double hi, std::string_view rule) {
  auto v = number(n, what);
  if (v && (*v < lo || *v > hi)) {
    error(n, std::string(what) + " must be " + std::string(rule) + ", got " + fmt_number(*v));
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> TomlReader::integer(const toml::node& n, std::string_view what, int64_t lo,
                                           int64_t hi, std::string_view unit, Bounds form) {
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
    error(n, std::string(what) + " must be " +
                 limits_text(static_cast<double>(lo), static_cast<double>(hi), form, true, unit) +
                 ", got " + std::to_string(v));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> TomlReader::boolean(const toml::node& n, std::string_view what) {
  if (auto b = n.as_boolean()) return b->get();
  error(n, std::string(what) + " must be true or false, got " + type_name(n));
  return std::nullopt;
}

std::optional<std::string> TomlReader::string(const toml::node& n, std::string_view what) {
  if (auto s = n.as_string()) return s->get();
  error(n, std::string(what) + " must be a string, got " + type_name(n));
  return std::nullopt;
}

std::optional<size_t> TomlReader::choice(const toml::node& n, std::string_view what,
                                         const Keys& choices) {
  auto s = string(n, what);
  if (!s) return std::nullopt;
  for (size_t i = 0; i < choices.size(); ++i)
    if (*s == choices[i]) return i;
  std::string msg = std::string(what) + " must be " + quoted_list(choices) + ", got \"" + *s + "\"";
  const std::string hint = closest_match(*s, choices);
  if (!hint.empty()) msg += "; did you mean \"" + hint + "\"?";
  error(n, msg);
  return std::nullopt;
}

std::optional<Range> TomlReader::range(const toml::node& n, std::string_view what, double lo,
                                       double hi) {
  const auto within = [&](double v) {
    if (v <= hi) return true;
    error(n, std::string(what) + " must be at most " + fmt_number(hi) + ", got " + fmt_number(v));
    return false;
  };
  if (n.is_array()) {
    const toml::array& a = *n.as_array();
    if (a.size() != 2) {
      error(n, std::string(what) + " must be one number or a range [min, max]");
      return std::nullopt;
    }
    auto mn = number(a[0], what), mx = number(a[1], what);
    if (!mn || !mx) return std::nullopt;
    if (*mn > *mx) {
      error(n, std::string(what) + " range must have min <= max, got [" + fmt_number(*mn) + ", " +
                   fmt_number(*mx) + "]");
      return std::nullopt;
    }
    if (*mn < lo) {
      error(n, std::string(what) + " must not be negative, got " + fmt_number(*mn));
      return std::nullopt;
    }
    if (!within(*mx)) return std::nullopt;
    return Range{*mn, *mx};
  }
  if (!n.is_number()) {
    error(n, std::string(what) + " must be one number or a range [min, max], got " + type_name(n));
    return std::nullopt;
  }
  auto v = number(n, what);
  if (!v) return std::nullopt;
  if (*v < lo) {
    error(n, std::string(what) + " must not be negative, got " + fmt_number(*v));
    return std::nullopt;
  }
  if (!within(*v)) return std::nullopt;
  return Range{*v, *v};
}

std::optional<Vec2> TomlReader::vec2(const toml::node& n, std::string_view what) {
  const toml::array* a = n.as_array();
  if (!a || a->size() != 2) {
    error(n, std::string(what) + " must be a pair [x, y]");
    return std::nullopt;
  }
  auto x = number((*a)[0], what), y = number((*a)[1], what);
  if (!x || !y) return std::nullopt;
  return Vec2{*x, *y};
}

bool TomlReader::keypoint_times(const toml::array& keys, std::string_view what, double* times) {
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
                          fmt_number(times[k - 1]) + " then " + fmt_number(*t) + ")");
      ok = false;
    }
  }
  if (!ok) return false;
  if (keys.size() > 1 && times[0] != 0) {
    error(keys[0], std::string(what) + " must start at time 0, got " + fmt_number(times[0]));
    ok = false;
  }
  if (keys.size() > 1 && times[keys.size() - 1] != 1) {
    error(keys[keys.size() - 1],
          std::string(what) + " must end at time 1, got " + fmt_number(times[keys.size() - 1]));
    ok = false;
  }
  if (keys.size() == 1 && (times[0] < 0 || times[0] > 1)) {
    error(keys[0], std::string(what) + " keypoint time must be within [0, 1]");
    ok = false;
  }
  return ok;
}

const toml::array* TomlReader::keypoints(const toml::node& n, std::string_view what, bool colour) {
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

std::optional<Curve> TomlReader::curve(const toml::node& n, std::string_view what) {
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

std::optional<Rgba> TomlReader::color(const toml::node& n, std::string_view what) {
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
    auto v = bounded((*a)[i], std::string(what) + " component", 0, 1);
    if (!v) return std::nullopt;
    ch[i] = *v;
  }
  return Rgba{ch[0], ch[1], ch[2], ch[3]};
}

std::optional<Rgb> TomlReader::opaque_color(const toml::node& n, std::string_view what) {
  auto c = color(n, what);
  if (!c) return std::nullopt;
  if (c->a != 1) {
    error(n, std::string(what) + " must be opaque (opacity comes from 'transparency')");
    return std::nullopt;
  }
  return Rgb{c->r, c->g, c->b};
}

std::optional<ColorCurve> TomlReader::color_curve(const toml::node& n, std::string_view what) {
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
    auto e = kp.size() == 3 ? bounded(kp[2], std::string(what) + " envelope", 0, 1) : 0.0;
    if (!v || !e) {
      ok = false;
      continue;
    }
    c.srgb[k] = *v;
    c.envelope[k] = *e;
  }
  return ok ? std::optional<ColorCurve>(c) : std::nullopt;
}

}  // namespace spritz::toml_load
