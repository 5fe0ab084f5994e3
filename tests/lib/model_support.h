// What the model tests share: an effect from TOML text, its load errors as
// text, frames compared bit for bit, and lerp as model.md writes it.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/load.h"

namespace spritz::test {

// `overrides` as --set gives them.
inline Effect fx_from(const std::string& text, const std::vector<std::string>& overrides = {}) {
  LoadOptions o;
  o.overrides = overrides;
  return load_effect(text, "test.toml", ".", o);
}

// Bitwise equality of two frames (every field of every particle).
inline bool same_frame(const Frame& a, const Frame& b) {
  if (a.emitters.size() != b.emitters.size()) return false;
  for (size_t e = 0; e < a.emitters.size(); ++e) {
    const auto& pa = a.emitters[e].particles;
    const auto& pb = b.emitters[e].particles;
    if (pa.size() != pb.size()) return false;
    for (size_t i = 0; i < pa.size(); ++i)
      if (std::memcmp(&pa[i], &pb[i], sizeof(Particle)) != 0) return false;
  }
  return true;
}

// Every diagnostic of a load that fails, one per line; "" when it loads.
inline std::string load_error(const std::string& text) {
  try {
    fx_from(text);
  } catch (const Error& e) {
    std::string all;
    for (const Diagnostic& d : e.diagnostics()) all += d.to_string() + "\n";
    return all;
  }
  return "";
}

inline double lerp(double a, double b, double t) {
  return a + (b - a) * t;
}

}  // namespace spritz::test
