// The TOML writer is the loader's inverse: load(write(e)) == e, field by
// field and particle by particle, for every bundled effect and for every
// mutation of them that loads.
#include "spritz/write.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "lib/model_support.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"

using namespace spritz;
namespace fs = std::filesystem;

namespace {

// Collects the names of fields that differ.
struct Diff {
  std::ostringstream out;
  template <typename T>
  void eq(const std::string& what, const T& a, const T& b) {
    if (!(a == b)) out << what << " ";
  }
  void vec(const std::string& what, Vec2 a, Vec2 b) {
    eq(what + ".x", a.x, b.x);
    eq(what + ".y", a.y, b.y);
  }
  void range(const std::string& what, const Range& a, const Range& b) {
    eq(what + ".min", a.min, b.min);
    eq(what + ".max", a.max, b.max);
  }
  // Curves compare by what they evaluate to at their keys and between them
  // (a constant with an envelope is written as two equal keys).
  void curve(const std::string& what, const Curve& a, const Curve& b) {
    for (double tau = 0; tau <= 1; tau += 1.0 / 64)
      for (double eps : {-1.0, 0.0, 0.5})
        if (a.evaluate(tau, eps) != b.evaluate(tau, eps) || a.slope(tau, eps) != b.slope(tau, eps))
          return eq(what, 0, 1);
    for (int k = 0; k < a.count; ++k)
      if (a.evaluate(a.t[static_cast<size_t>(k)], 1) != b.evaluate(a.t[static_cast<size_t>(k)], 1))
        return eq(what, 0, 1);
  }
  void colour(const std::string& what, const ColorCurve& a, const ColorCurve& b) {
    for (double tau = 0; tau <= 1; tau += 1.0 / 64)
      for (double eps : {-1.0, 0.0, 0.5}) {
        const Rgb x = a.evaluate(tau, eps), y = b.evaluate(tau, eps);
        if (x.r != y.r || x.g != y.g || x.b != y.b) return eq(what, 0, 1);
      }
  }
};

// long: one line per field of the model, in the model's order, so that a
// field added to Effect is found missing here at a glance.
std::string compare(const Effect& a, const Effect& b) {
  Diff d;
  d.eq("name", a.name, b.name);
  d.eq("seed", a.seed, b.seed);
  d.eq("duration", a.duration_s, b.duration_s);
  d.eq("fps", a.fps, b.fps);
  d.eq("loop", a.loop, b.loop);
  d.eq("seamless", a.seamless, b.seamless);
  d.eq("start", a.start_s, b.start_s);
  d.eq("time_scale", a.time_scale, b.time_scale);
  const Canvas &ca = a.canvas, &cb = b.canvas;
  d.eq("canvas.width", ca.width, cb.width);
  d.eq("canvas.height", ca.height, cb.height);
  for (auto [x, y] : {std::pair{ca.background_srgb.r, cb.background_srgb.r},
                      {ca.background_srgb.g, cb.background_srgb.g},
                      {ca.background_srgb.b, cb.background_srgb.b},
                      {ca.background_srgb.a, cb.background_srgb.a},
                      {ca.ambient_srgb.r, cb.ambient_srgb.r},
                      {ca.ambient_srgb.g, cb.ambient_srgb.g},
                      {ca.ambient_srgb.b, cb.ambient_srgb.b}})
    d.eq("canvas.colours", x, y);
  d.eq("canvas.tonemap", ca.tonemap, cb.tonemap);
  d.eq("canvas.alpha", ca.alpha, cb.alpha);
  d.eq("canvas.blur_samples", ca.blur_samples, cb.blur_samples);
  d.eq("canvas.shutter", ca.shutter, cb.shutter);
  d.eq("check.times", a.check.times, b.check.times);
  d.eq("check.threshold", a.check.threshold, b.check.threshold);
  d.eq("check.max_diff_pixels", a.check.max_diff_pixels, b.check.max_diff_pixels);
  d.eq("check.max_diff_ratio", a.check.max_diff_ratio, b.check.max_diff_ratio);
  d.eq("check.max_channel_diff", a.check.max_channel_diff, b.check.max_channel_diff);
  d.eq("draw_order", a.draw_order, b.draw_order);
  d.eq("emitters", a.emitters.size(), b.emitters.size());
  for (size_t i = 0; i < std::min(a.emitters.size(), b.emitters.size()); ++i) {
    const Emitter &x = a.emitters[i], &y = b.emitters[i];
    const std::string e = "emitter" + std::to_string(i) + ".";
    d.eq(e + "name", x.name, y.name);
    d.eq(e + "enabled", x.enabled, y.enabled);
    d.vec(e + "position", x.position, y.position);
    d.eq(e + "path.t", x.path.t, y.path.t);
    for (size_t k = 0; k < std::min(x.path.p.size(), y.path.p.size()); ++k)
      d.vec(e + "path.p", x.path.p[k], y.path.p[k]);
    d.eq(e + "path.smooth", x.path.smooth, y.path.smooth);
    d.eq(e + "space", x.space, y.space);
    d.eq(e + "inherit_velocity", x.inherit_velocity, y.inherit_velocity);
    d.eq(e + "rate", x.rate_per_s, y.rate_per_s);
    d.eq(e + "rate_curve.t", x.rate_curve.key_t, y.rate_curve.key_t);
    d.eq(e + "rate_curve.r", x.rate_curve.key_r, y.rate_curve.key_r);
    d.eq(e + "max_particles", x.max_particles, y.max_particles);
    d.range(e + "lifetime", x.lifetime_s, y.lifetime_s);
    d.range(e + "speed", x.speed_px_per_s, y.speed_px_per_s);
    d.eq(e + "direction", x.direction_deg, y.direction_deg);
    d.eq(e + "spread", x.spread_deg, y.spread_deg);
    d.vec(e + "acceleration", x.acceleration, y.acceleration);
    d.eq(e + "drag", x.drag_per_s, y.drag_per_s);
    d.range(e + "rotation", x.rotation_deg, y.rotation_deg);
    d.range(e + "rotation_speed", x.rotation_speed_deg_per_s, y.rotation_speed_deg_per_s);
    d.eq(e + "orientation", x.orientation, y.orientation);
    d.eq(e + "has_rotation_end", x.has_rotation_end, y.has_rotation_end);
    d.range(e + "rotation_end", x.rotation_end_deg, y.rotation_end_deg);
    d.range(e + "forces.radial", x.forces.radial, y.forces.radial);
    d.range(e + "forces.tangential", x.forces.tangential, y.forces.tangential);
    d.range(e + "forces.linear", x.forces.linear, y.forces.linear);
    d.eq(e + "forces.step", x.forces.step_s, y.forces.step_s);
    d.eq(e + "orbit", x.orbit.enabled, y.orbit.enabled);
    d.range(e + "orbit.radius", x.orbit.radius, y.orbit.radius);
    d.eq(e + "orbit.has_radius_end", x.orbit.has_radius_end, y.orbit.has_radius_end);
    d.range(e + "orbit.radius_end", x.orbit.radius_end, y.orbit.radius_end);
    d.range(e + "orbit.angular_speed", x.orbit.angular_speed_deg_per_s,
            y.orbit.angular_speed_deg_per_s);
    for (auto [ra, rb, what] :
         {std::tuple{&x.size_ramp, &y.size_ramp, "size_ramp"},
          {&x.transparency_ramp, &y.transparency_ramp, "transparency_ramp"}}) {
      d.eq(e + what, ra->enabled, rb->enabled);
      d.range(e + what + ".start", ra->start, rb->start);
      d.range(e + what + ".end", ra->end, rb->end);
    }
    d.eq(e + "color_ramp", x.color_ramp.enabled, y.color_ramp.enabled);
    for (auto [ca2, cb2] : {std::pair{x.color_ramp.start_min, y.color_ramp.start_min},
                            {x.color_ramp.start_max, y.color_ramp.start_max},
                            {x.color_ramp.end_min, y.color_ramp.end_min},
                            {x.color_ramp.end_max, y.color_ramp.end_max}}) {
      d.eq(e + "color_ramp.r", ca2.r, cb2.r);
      d.eq(e + "color_ramp.g", ca2.g, cb2.g);
      d.eq(e + "color_ramp.b", ca2.b, cb2.b);
    }
    d.curve(e + "size", x.size_px, y.size_px);
    d.curve(e + "transparency", x.transparency, y.transparency);
    d.curve(e + "squash", x.squash, y.squash);
    d.colour(e + "color", x.color, y.color);
    d.eq(e + "brightness", x.brightness, y.brightness);
    d.eq(e + "light_emission", x.light_emission, y.light_emission);
    d.eq(e + "light_influence", x.light_influence, y.light_influence);
    d.eq(e + "z_offset", x.z_offset, y.z_offset);
    d.eq(e + "draw_order", x.draw_order, y.draw_order);
    d.eq(e + "slots", x.slots, y.slots);
    for (size_t c = 0; c < Forces::kAccelerationCurves; ++c) {
      d.eq(e + "forces.curved", x.forces.curved[c], y.forces.curved[c]);
      if (x.forces.curved[c] && y.forces.curved[c])
        d.curve(e + "forces.curves", x.forces.curves[c], y.forces.curves[c]);
    }
    d.eq(e + "texture", x.texture, y.texture);
    d.eq(e + "filter", x.filter, y.filter);
    d.eq(e + "flipbook.enabled", x.flipbook.enabled, y.flipbook.enabled);
    d.eq(e + "flipbook.cols", x.flipbook.cols, y.flipbook.cols);
    d.eq(e + "flipbook.rows", x.flipbook.rows, y.flipbook.rows);
    d.eq(e + "flipbook.mode", x.flipbook.mode, y.flipbook.mode);
    d.range(e + "flipbook.fps", x.flipbook.fps, y.flipbook.fps);
    d.eq(e + "flipbook.random_start", x.flipbook.random_start, y.flipbook.random_start);
    d.eq(e + "shape.kind", x.shape.kind, y.shape.kind);
    d.eq(e + "shape.style", x.shape.style, y.shape.style);
    d.eq(e + "shape.in_out", x.shape.in_out, y.shape.in_out);
    d.eq(e + "shape.a", x.shape.a, y.shape.a);
    d.eq(e + "shape.b", x.shape.b, y.shape.b);
    d.eq(e + "shape.inner", x.shape.inner, y.shape.inner);
    d.eq(e + "shape.along_direction", x.shape.along_direction, y.shape.along_direction);
    d.eq(e + "shape.rotation", x.shape.rotation_deg, y.shape.rotation_deg);
    d.eq(e + "bursts", x.bursts.size(), y.bursts.size());
    for (size_t k = 0; k < std::min(x.bursts.size(), y.bursts.size()); ++k) {
      d.eq(e + "burst.time", x.bursts[k].time_s, y.bursts[k].time_s);
      d.eq(e + "burst.count", x.bursts[k].count, y.bursts[k].count);
      d.eq(e + "burst.repeat", x.bursts[k].repeat, y.bursts[k].repeat);
      d.eq(e + "burst.interval", x.bursts[k].interval_s, y.bursts[k].interval_s);
      d.eq(e + "burst.first_index", x.bursts[k].first_index, y.bursts[k].first_index);
    }
    d.eq(e + "trail.count", x.trail.count, y.trail.count);
    if (x.trail.count > 0) {
      d.eq(e + "trail.length", x.trail.length_s, y.trail.length_s);
      d.curve(e + "trail.fade", x.trail.fade, y.trail.fade);
      d.curve(e + "trail.scale", x.trail.scale, y.trail.scale);
      d.eq(e + "trail.ribbon", x.trail.ribbon, y.trail.ribbon);
    }
    d.eq(e + "turbulence.enabled", x.turbulence.enabled, y.turbulence.enabled);
    d.curve(e + "turbulence.amplitude", x.turbulence.amplitude, y.turbulence.amplitude);
    d.eq(e + "turbulence.frequency", x.turbulence.frequency, y.turbulence.frequency);
    d.eq(e + "turbulence.speed", x.turbulence.speed, y.turbulence.speed);
    d.eq(e + "turbulence.phase", x.turbulence.phase, y.turbulence.phase);
    d.eq(e + "sub.parent", x.sub.parent, y.sub.parent);
    d.eq(e + "sub.on", x.sub.on, y.sub.on);
    d.eq(e + "sub.count", x.sub.count, y.sub.count);
    d.eq(e + "sub.spacing", x.sub.spacing, y.sub.spacing);
    d.eq(e + "sub.rate", x.sub.rate_per_s, y.sub.rate_per_s);
    const Collision &cx = x.collision, &cy = y.collision;
    d.eq(e + "collision.response", cx.response, cy.response);
    d.eq(e + "collision.restitution", cx.restitution, cy.restitution);
    d.eq(e + "collision.friction", cx.friction, cy.friction);
    d.eq(e + "collision.max_bounces", cx.max_bounces, cy.max_bounces);
    d.eq(e + "collision.rest_speed", cx.rest_speed_px_per_s, cy.rest_speed_px_per_s);
    d.eq(e + "colliders", cx.colliders.size(), cy.colliders.size());
    for (size_t k = 0; k < std::min(cx.colliders.size(), cy.colliders.size()); ++k) {
      const Collider &lhs = cx.colliders[k], &rhs = cy.colliders[k];
      const std::string c = e + "colliders[" + std::to_string(k) + "].";
      d.eq(c + "kind", lhs.kind, rhs.kind);
      d.vec(c + "point", lhs.point, rhs.point);
      d.vec(c + "normal", lhs.normal, rhs.normal);
      d.eq(c + "radius", lhs.radius, rhs.radius);
      d.vec(c + "half", lhs.half, rhs.half);
      d.eq(c + "inside", lhs.inside, rhs.inside);
    }
    d.eq(e + "program", x.program != nullptr, y.program != nullptr);
    if (x.program && y.program) {
      d.eq(e + "program.source", x.program->source, y.program->source);
      d.eq(e + "program.uniforms", x.program->uniforms.size(), y.program->uniforms.size());
      for (size_t k = 0; k < std::min(x.program->uniforms.size(), y.program->uniforms.size()); ++k)
        d.eq(e + "program.uniforms[" + std::to_string(k) + "]", x.program->uniforms[k].size(),
             y.program->uniforms[k].size());
      d.eq(e + "program.godot", x.program->godot.has_value(), y.program->godot.has_value());
      if (x.program->godot && y.program->godot) {
        const GodotDialect &gx = *x.program->godot, &gy = *y.program->godot;
        d.eq(e + "godot.amount", gx.amount, gy.amount);
        d.eq(e + "godot.speed_scale", gx.speed_scale, gy.speed_scale);
        for (size_t k = 0; k < 6; ++k)
          d.eq(e + "godot.to_canvas", gx.to_canvas[k], gy.to_canvas[k]);
        for (size_t k = 0; k < 2; ++k) d.eq(e + "godot.offset", gx.offset[k], gy.offset[k]);
        for (size_t k = 0; k < 16; ++k)
          d.eq(e + "godot.emission_transform", gx.emission_transform[k], gy.emission_transform[k]);
      }
    }
    // Derived at load: equal when the authored values are.
    d.eq(e + "seed", x.seed, y.seed);
    d.eq(e + "stream_rate", x.stream_rate_per_s, y.stream_rate_per_s);
    d.eq(e + "loop_keys", x.loop_keys, y.loop_keys);
  }
  return d.out.str();
}

// Every particle's state, bit for bit, at a few clocks.
bool same_particles(const Effect& a, const Effect& b) {
  for (double t : {0.0, 0.37, 1.0, 2.5}) {
    if (!test::same_frame(evaluate(a, clock_at_time(a, t)), evaluate(b, clock_at_time(b, t))))
      return false;
  }
  return true;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("load(write(e)) == e for every bundled effect", "[write]") {
  const fs::path configs = fs::path(SPRITZ_SOURCE_DIR) / "configs";
  int n = 0;
  for (const auto& entry : fs::directory_iterator(configs)) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path());
    const Effect fx = load_effect(read(entry.path()), entry.path().string(), configs.string());
    WriteOptions options;
    options.base_dir = configs.string();
    options.header = "written by write_test";
    const std::string text = write_effect(fx, options);
    INFO(text);
    const Effect back = load_effect(text, entry.path().string(), configs.string());
    CHECK(compare(fx, back) == "");
    CHECK(same_particles(fx, back));
    CHECK(back.warnings.size() <= fx.warnings.size() + 1);  // defaults spelt out warn no more
    // Written again, the text is the same: nothing drifts.
    CHECK(write_effect(back, options) == text);
    ++n;
  }
  CHECK(n >= 15);
}

TEST_CASE("load(write(e)) == e for turned shapes", "[write]") {
  for (const char* shape :
       {"{ kind = \"box\", size = [40, 6], rotation = 30 }",
        "{ kind = \"ellipse\", size = [40, 6], along = \"direction\", rotation = -12.5 }",
        "{ kind = \"points\", points = [[0, 0], [10, 2]], normals = [[0, 1], [1, 0]], rotation = "
        "90 }"}) {
    INFO(shape);
    const Effect fx = load_effect(std::string("[[emitter]]\nrate = 50\nshape = ") + shape + "\n",
                                  "turned.toml", ".");
    const Effect back = load_effect(write_effect(fx), "turned.toml", ".");
    CHECK(back.emitters[0].shape.rotation_deg != 0);
    CHECK(compare(fx, back) == "");
    CHECK(same_particles(fx, back));
  }
}

TEST_CASE("load(write(e)) == e for a cycling loop with linear acceleration and slots", "[write]") {
  const Effect fx = load_effect(
      "[effect]\nloop = true\nseamless = false\nduration = 1.5\n[[emitter]]\nrate = 50\n"
      "speed = [20, 60]\nlinear_acceleration = [-40, 25]\nbursts = [{ time = 0.2, count = 9 }]\n"
      "draw_order = \"by_slot\"\nslots = 7\n"
      "acceleration_curves = { linear = [[0, 1], [0.4, 3], [1, 0]], radial = 2 }\n",
      "cycling.toml", ".");
  const Effect back = load_effect(write_effect(fx), "cycling.toml", ".");
  CHECK_FALSE(back.seamless);
  CHECK(back.emitters[0].forces.linear.max == 25);
  CHECK(back.emitters[0].slots == 7);
  CHECK(back.emitters[0].forces.curved[Forces::kLinearCurve]);
  CHECK(compare(fx, back) == "");
  CHECK(same_particles(fx, back));
}

TEST_CASE("load(write(e)) == e for programs, with their uniforms", "[write]") {
  for (const char* program :
       {"'''\nuniform vec2 d = vec2(1.0);\nuniform bool on;\nvoid pose() { if (on) POSITION += d * "
        "AGE; }\n'''\nuniforms = { d = [3, -2.5], on = true }",
        "\"void pose() { COLOR.r = 0.5; } // it's \\\"quoted\\\" '''\"",
        "'''\nshader_type particles;\nvoid start() { VELOCITY = vec3(float(INDEX), 9.0, 0.0); "
        "}\n'''\ngodot = { amount = 7, speed_scale = 1.5, to_canvas = [2, 0, 0.5, 0, -2, 0], "
        "offset = [3, 4], emission_transform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 0, 1] "
        "}"}) {
    INFO(program);
    const Effect fx = load_effect(
        std::string("[[emitter]]\nrate = 50\nprogram = ") + program + "\n", "program.toml", ".");
    const Effect back = load_effect(write_effect(fx), "program.toml", ".");
    REQUIRE(back.emitters[0].program);
    CHECK(compare(fx, back) == "");
    CHECK(same_particles(fx, back));
  }
}

TEST_CASE("load(write(e)) == e for mutated effects that load", "[write]") {
  // Deterministic variations of the bundled effects' values (each number
  // scaled, offset or replaced), kept where they still load.
  const fs::path configs = fs::path(SPRITZ_SOURCE_DIR) / "configs";
  int tried = 0, round_trips = 0;
  for (const auto& entry : fs::directory_iterator(configs)) {
    if (entry.path().extension() != ".toml") continue;
    const std::string text = read(entry.path());
    for (uint32_t seed = 0; seed < 40; ++seed) {
      std::string s = text;
      // Replace every third number by a number drawn from the hash.
      size_t pos = 0;
      uint32_t k = 0;
      while ((pos = s.find_first_of("0123456789", pos)) != std::string::npos) {
        size_t end = s.find_first_not_of("0123456789.e-", pos);
        if (end == std::string::npos) end = s.size();
        const uint32_t st = particle_stream(seed, k++);
        // Names, colours, and the first number of a bracket (a keypoint's
        // time, a range's minimum) stay as they are.
        const char before = pos > 0 ? s[pos - 1] : ' ';
        if (std::isalpha(static_cast<unsigned char>(before)) || before == '#' || before == '[') {
          pos = end;
          continue;
        }
        if (unit(st, Channel::kLifetime) < 0.2) {
          // Integers stay integers (counts, layouts, seeds); decimals get
          // nine significant digits.
          const bool integer = s.substr(pos, end - pos).find_first_of(".e") == std::string::npos;
          char buf[32];
          if (integer)
            std::snprintf(buf, sizeof buf, "%d",
                          1 + static_cast<int>(unit(st, Channel::kSpeed) * 7));
          else
            std::snprintf(buf, sizeof buf, "%.9g", unit(st, Channel::kSpeed) * 3.7 + 0.013);
          s.replace(pos, end - pos, buf);
          end = pos + std::strlen(buf);
        }
        pos = end;
      }
      ++tried;
      Effect fx;
      try {
        fx = load_effect(s, "mutant.toml", configs.string());
      } catch (const Error&) {
        continue;
      }
      INFO(entry.path() << " seed " << seed << "\n" << s);
      WriteOptions options;
      options.base_dir = configs.string();
      const std::string written = write_effect(fx, options);
      INFO(written);
      Effect back;
      REQUIRE_NOTHROW(back = load_effect(written, "mutant.toml", configs.string()));
      CHECK(compare(fx, back) == "");
      CHECK(same_particles(fx, back));
      ++round_trips;
    }
  }
  CHECK(round_trips > tried / 4);
}

TEST_CASE("write_effect writes paths relative to the folder it writes to", "[write]") {
  const fs::path configs = fs::path(SPRITZ_SOURCE_DIR) / "configs";
  const Effect fx = load_effect(read(configs / "coins.toml"), (configs / "coins.toml").string(),
                                configs.string());
  WriteOptions here;
  here.base_dir = configs.string();
  CHECK_THAT(write_effect(fx, here), Catch::Contains("texture = \"textures/coin.png\""));
  WriteOptions above;
  above.base_dir = configs.parent_path().string();
  const std::string text = write_effect(fx, above);
  CHECK_THAT(text, Catch::Contains("texture = \"configs/textures/coin.png\""));
  CHECK(compare(fx, load_effect(text, "x.toml", above.base_dir)) == "");
}
