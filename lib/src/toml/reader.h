// Reading TOML values with their locations: each reader checks a node's type
// and range and returns the value, or records a diagnostic at the node's
// file:line:col and returns nothing, so that every problem of a file is
// reported at once. A value that came from `--set` is located by its origin
// ("--set emitter.0.rate=-1").
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/color.h"
#include "spritz/curve.h"
#include "spritz/effect.h"
#include "spritz/error.h"
#include "spritz/vec2.h"
#include "toml/keys.h"

namespace spritz::toml_load {

class TomlReader {
 public:
  TomlReader(std::string file, std::string base_dir)
      : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  std::vector<Diagnostic> diagnostics;
  std::vector<Diagnostic> warnings;  // valid, but surely not what was meant

  SourceLoc loc(const toml::node& n) const {
    const toml::source_region& src = n.source();
    if (src.path && src.path->rfind(kSetPrefix, 0) == 0) return {*src.path, 0, 0};
    return {src.path ? *src.path : file_, static_cast<uint32_t>(src.begin.line),
            static_cast<uint32_t>(src.begin.column)};
  }
  void error(const toml::node& n, std::string message);
  void error_at(SourceLoc l, std::string message);

  // --- keys ---------------------------------------------------------------
  void check_keys(const toml::table& t, const Keys& allowed, std::string_view where);

  // An inline table such as `flipbook = { ... }`: its keys checked against
  // `keys`, or nullptr after `must_be` ("flipbook must be a table { ... }",
  // then what it was) when it is not a table.
  const toml::table* inline_table(const toml::node& n, const Keys& keys, std::string_view where,
                                  std::string_view must_be);

  const toml::table* table_at(const toml::table& parent, std::string_view key,
                              std::string_view what);

  // --- scalars --------------------------------------------------------------
  std::optional<double> number(const toml::node& n, std::string_view what);

  // How a message words the bounds of a value (limits_text): "[lo, hi]",
  // "±hi" (lo = -hi), "lo..hi" (a channel value), or "non-negative" (lo = 0
  // and no upper bound to speak of).
  enum class Bounds { kClosed, kPlusMinus, kDots, kNonNegative };

  // A number within [lo, hi]. The message words the bounds from lo and hi
  // themselves (limits_text), then `unit` ("seconds").
  std::optional<double> bounded(const toml::node& n, std::string_view what, double lo, double hi,
                                std::string_view unit = {}, Bounds form = Bounds::kClosed);
  // The same where the message words the bounds otherwise than the check:
  // `rule` ("within (0, 1e9] design px" for a value that must also be more
  // than 0, which is refused apart with a message of its own).
  std::optional<double> bounded_as(const toml::node& n, std::string_view what, double lo, double hi,
                                   std::string_view rule);

  // A whole number within [lo, hi]; the message as bounded's.
  std::optional<int64_t> integer(const toml::node& n, std::string_view what, int64_t lo, int64_t hi,
                                 std::string_view unit = {}, Bounds form = Bounds::kClosed);

  std::optional<bool> boolean(const toml::node& n, std::string_view what);

  std::optional<std::string> string(const toml::node& n, std::string_view what);

  // One of `choices`; returns its index.
  std::optional<size_t> choice(const toml::node& n, std::string_view what, const Keys& choices);

  // --- compound values -------------------------------------------------------
  // [min, max] or one number, min >= lo and max <= hi.
  std::optional<Range> range(const toml::node& n, std::string_view what, double lo,
                             double hi = std::numeric_limits<double>::max());

  std::optional<Vec2> vec2(const toml::node& n, std::string_view what);

  // Keypoint times: 1..20 of them, strictly increasing, first 0 and last 1.
  bool keypoint_times(const toml::array& keys, std::string_view what, double* times);

  // Checks that `n` is an array of keypoint arrays [t, v] / [t, v, e] and
  // explains the keypoint form when it is a flat array.
  const toml::array* keypoints(const toml::node& n, std::string_view what, bool colour);

  std::optional<Curve> curve(const toml::node& n, std::string_view what);

  // "#rgb", "#rrggbb", "#rrggbbaa" or [r, g, b] / [r, g, b, a] in 0..1.
  std::optional<Rgba> color(const toml::node& n, std::string_view what);

  std::optional<Rgb> opaque_color(const toml::node& n, std::string_view what);

  std::optional<ColorCurve> color_curve(const toml::node& n, std::string_view what);

 protected:
  std::string file_;
  std::string base_dir_;
};

// "within [lo, hi] unit" (or the other forms) for a message, the bounds as
// the effect file would write them: whole numbers in digits up to 1e9
// (`whole`), other powers of ten from 1e3 up and below 1e-3 as 1eN.
std::string limits_text(double lo, double hi, TomlReader::Bounds form, bool whole,
                        std::string_view unit = {});

}  // namespace spritz::toml_load
