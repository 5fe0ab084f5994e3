// What the model tests of ramp_forces_test.cpp and godot_model_test.cpp
// share: an effect from TOML text, its load errors as text, and lerp as
// model.md writes it.
#pragma once

#include <string>

#include "spritz/error.h"
#include "spritz/load.h"

namespace spritz::test {

inline Effect fx_from(const std::string& text) {
  return load_effect(text, "test.toml", ".");
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
