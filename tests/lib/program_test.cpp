// The program language (docs/programs.md): its compiler and virtual
// machine, run directly on batches of lanes. Every lane is its own
// particle: lane l has KEY = l, INDEX = l and AGE = l / 4 here.
#include "spritz/program.h"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "program/compiled.h"
#include "program/machine.h"
#include "spritz/error.h"
#include "spritz/hash.h"

using namespace spritz;

namespace {

std::shared_ptr<const Program> compile(const std::string& text) {
  std::vector<Diagnostic> warnings;
  return Program::compile(text, ProgramOrigin{"test.glsl", 1, 1}, warnings);
}

// Runs `stage` of `text` over `lanes` lanes (batch `batch`), returns each
// lane's CUSTOM.
std::vector<std::array<double, 4>> run(const std::string& text, uint32_t lanes = 1,
                                       Stage stage = Stage::kPose, uint32_t batch = 64,
                                       std::vector<std::vector<double>> uniforms = {}) {
  const auto p = compile(text);
  std::vector<std::array<double, 4>> out;
  for (uint32_t first = 0; first < lanes; first += batch) {
    program::Machine m(p->compiled(), batch, uniforms, 12345u);
    const uint32_t n = std::min(batch, lanes - first);
    for (uint32_t l = 0; l < n; ++l) {
      m.u(program::kUKey)[l] = first + l;
      m.u(program::kUIndex)[l] = first + l;
      m.u(program::kUStream)[l] = particle_stream(7, first + l);
      m.u(program::kUMask)[l] = 1;
      m.u(program::kUActive)[l] = 1;
      m.f(program::kFAge)[l] = (first + l) / 4.0;
      m.f(program::kFLifetime)[l] = 2;
    }
    m.run(stage, n);
    for (uint32_t l = 0; l < n; ++l)
      out.push_back({m.f(program::kFCustom)[l], m.f(program::kFCustom + 1)[l],
                     m.f(program::kFCustom + 2)[l], m.f(program::kFCustom + 3)[l]});
  }
  return out;
}

// CUSTOM.x of lane 0 after `body` runs in pose().
double x_of(const std::string& body, const std::string& globals = "") {
  return run(globals + "\nvoid pose() {\n" + body + "\n}\n")[0][0];
}

// The message of the error that compiling `text` throws ("" when none).
std::string error_of(const std::string& text) {
  try {
    compile(text);
  } catch (const Error& e) {
    std::string all;
    for (const Diagnostic& d : e.diagnostics()) all += d.to_string() + "\n";
    return all;
  }
  return "";
}

}  // namespace

TEST_CASE("program: float arithmetic follows IEEE double, operators by precedence", "[unit]") {
  CHECK(x_of("CUSTOM.x = 1.0 + 2.0 * 3.0;") == 7);
  CHECK(x_of("CUSTOM.x = (1.0 + 2.0) * 3.0;") == 9);
  CHECK(x_of("CUSTOM.x = 1.0 / 3.0;") == 1.0 / 3.0);
  CHECK(x_of("CUSTOM.x = -2.0 - -3.0;") == 1);
  CHECK(x_of("float a = 5.0; a -= 1.5; a *= 2.0; a /= 7.0; CUSTOM.x = a;") == 1);
  CHECK(x_of("CUSTOM.x = 1e3 + .5 + 2.f;") == 1002.5);
  CHECK(x_of("CUSTOM.x = PI;") == 3.14159265358979323846);
}

TEST_CASE("program: int and uint are 32 bits and wrap as GLSL's", "[unit]") {
  CHECK(x_of("int i = 2147483647; i += 1; CUSTOM.x = float(i);") == -2147483648.0);
  CHECK(x_of("uint u = 0u; u -= 1u; CUSTOM.x = float(u);") == 4294967295.0);
  CHECK(x_of("int i = -7; CUSTOM.x = float(i / 2);") == -3);
  CHECK(x_of("int i = -7; CUSTOM.x = float(i % 3);") == -1);
  CHECK(x_of("uint u = 0xF0u; CUSTOM.x = float((u >> 4) | (u << 28) ^ 1u);") ==
        static_cast<double>((0xF0u >> 4) | ((0xF0u << 28) ^ 1u)));
  CHECK(x_of("int i = -16; CUSTOM.x = float(i >> 2);") == -4);
  CHECK(x_of("CUSTOM.x = float(~0u);") == 4294967295.0);
  CHECK(x_of("CUSTOM.x = float(0xFFFFFFFF);") == -1);
  // Defined where GLSL is not (docs/programs.md, "What is defined").
  CHECK(x_of("int z = 0; CUSTOM.x = float(7 / z) + float(7 % z);") == 0);
  CHECK(x_of("int m = -2147483647 - 1; CUSTOM.x = float(m / -1);") == -2147483648.0);
  CHECK(x_of("uint u = 1u; CUSTOM.x = float(u << 33u);") == 2);  // shift counts mod 32
  CHECK(x_of("CUSTOM.x = float(int(1e20)) + float(uint(-5.0)) + float(int(0.0 / 0.0));") ==
        2147483647.0);
  CHECK(x_of("CUSTOM.x = float(int(-2.7));") == -2);
}

TEST_CASE("program: the docs' hash helpers give Godot's numbers", "[unit]") {
  // rand_from_seed from Godot's particle shader documentation.
  const std::string helpers = R"(
    float rand_from_seed(inout uint seed) {
      int k;
      int s = int(seed);
      if (s == 0) s = 305420679;
      k = s / 127773;
      s = 16807 * (s - k * 127773) - 2836 * k;
      if (s < 0) s += 2147483647;
      seed = uint(s);
      return float(seed % uint(65536)) / 65535.0;
    }
    uint hash(uint x) {
      x = ((x >> uint(16)) ^ x) * uint(73244475);
      x = ((x >> uint(16)) ^ x) * uint(73244475);
      x = (x >> uint(16)) ^ x;
      return x;
    })";
  const auto lanes = run(helpers + R"(
    void pose() {
      uint seed = hash(uint(INDEX) + uint(1));
      CUSTOM.x = rand_from_seed(seed);
      CUSTOM.y = float(seed);
    })",
                         3);
  for (uint32_t l = 0; l < 3; ++l) {
    auto h = [](uint32_t x) {
      x = ((x >> 16) ^ x) * 73244475u;
      x = ((x >> 16) ^ x) * 73244475u;
      return (x >> 16) ^ x;
    };
    uint32_t seed = h(l + 1);
    int32_t s = static_cast<int32_t>(seed);
    if (s == 0) s = 305420679;
    const int32_t k = s / 127773;
    s = 16807 * (s - k * 127773) - 2836 * k;
    if (s < 0) s += 2147483647;
    seed = static_cast<uint32_t>(s);
    CHECK(lanes[l][0] == static_cast<double>(seed % 65536u) / 65535.0);
    CHECK(lanes[l][1] == static_cast<double>(seed));
  }
}

TEST_CASE("program: vectors, swizzles read and written, matrices column-major", "[unit]") {
  CHECK(x_of("vec3 v = vec3(1.0, 2.0, 3.0); CUSTOM.x = v.z + v.x;") == 4);
  CHECK(x_of("vec4 c = vec4(1.0); c.rgb *= 2.0; CUSTOM.x = c.r + c.a;") == 3);
  CHECK(x_of("vec2 v = vec2(1.0, 2.0); v = v.yx; CUSTOM.x = v.x * 10.0 + v.y;") == 21);
  CHECK(x_of("vec3 v = vec3(vec2(1.0, 2.0), 3.0); v.xz = v.zx; CUSTOM.x = v.x - v.z;") == 2);
  CHECK(x_of("ivec2 i = ivec2(3, 4); CUSTOM.x = float(i.x * i.y);") == 12);
  CHECK(x_of("vec2 v = vec2(3.0, 4.0); CUSTOM.x = length(v) + dot(v, v);") == 30);
  // m[i] is a column; m * v multiplies by the columns.
  CHECK(x_of("mat2 m = mat2(vec2(1.0, 2.0), vec2(3.0, 4.0)); CUSTOM.x = m[1].x;") == 3);
  CHECK(x_of("mat2 m = mat2(1.0, 2.0, 3.0, 4.0); vec2 r = m * vec2(1.0, 1.0); "
             "CUSTOM.x = r.x * 10.0 + r.y;") == 46);  // (1 + 3, 2 + 4)
  CHECK(x_of("mat2 m = mat2(1.0, 2.0, 3.0, 4.0); vec2 r = vec2(1.0, 1.0) * m; "
             "CUSTOM.x = r.x * 10.0 + r.y;") == 37);  // (1 + 2, 3 + 4)
  CHECK(x_of("mat3 m = mat3(2.0); CUSTOM.x = determinant(m);") == 8);
  CHECK(x_of("mat2 m = mat2(4.0, 2.0, 7.0, 6.0); mat2 i = inverse(m) * m; "
             "CUSTOM.x = i[0][0] + i[1][1] + i[0][1] + i[1][0];") == Approx(2).margin(1e-12));
  CHECK(x_of("mat4 m = mat4(1.0); m[3] = vec4(5.0, 6.0, 7.0, 1.0); "
             "vec4 p = m * vec4(1.0, 1.0, 1.0, 1.0); CUSTOM.x = p.x + p.y + p.z;") == 21);
}

TEST_CASE("program: control flow that differs between lanes", "[unit]") {
  const auto lanes = run(R"(
    void pose() {
      int n = 0;
      for (int i = 0; i < 10; i++) {
        if (i == INDEX) continue;
        if (i > INDEX + 3) break;
        n += 1;
      }
      float w = 0.0;
      int k = INDEX;
      while (k > 0) { w += 1.0; k--; }
      do { w += 10.0; } while (w < 5.0);
      CUSTOM = vec4(float(n), w, INDEX % 2 == 0 ? 1.0 : -1.0, 0.0);
    })",
                         6);
  for (int l = 0; l < 6; ++l) {
    int n = 0;
    for (int i = 0; i < 10; i++) {
      if (i == l) continue;
      if (i > l + 3) break;
      n += 1;
    }
    CHECK(lanes[static_cast<size_t>(l)][0] == n);
    CHECK(lanes[static_cast<size_t>(l)][1] == l + 10);
    CHECK(lanes[static_cast<size_t>(l)][2] == (l % 2 == 0 ? 1 : -1));
  }
}

TEST_CASE("program: functions inline with in, out and inout, and return early", "[unit]") {
  const std::string fns = R"(
    void split(float x, out float whole, inout float count) { whole = floor(x); count += 1.0; }
    float first_over(float limit) {
      for (int i = 0; i < 100; i++) { if (float(i * i) > limit) return float(i); }
      return -1.0;
    }
    float f(float x) { return x * 2.0; }
    float f(int x) { return float(x) + 0.5; }
  )";
  const auto lanes = run(fns + R"(
    void pose() {
      float w; float c = 0.0;
      split(3.75 + float(INDEX), w, c);
      split(1.0, w, c);
      CUSTOM = vec4(w, c, first_over(float(INDEX) * 10.0), f(1.0) + f(1));
    })",
                         4);
  for (int l = 0; l < 4; ++l) {
    CHECK(lanes[static_cast<size_t>(l)][0] == 1);
    CHECK(lanes[static_cast<size_t>(l)][1] == 2);
    int first = -1;
    for (int i = 0; i < 100; i++)
      if (i * i > l * 10) {
        first = i;
        break;
      }
    CHECK(lanes[static_cast<size_t>(l)][2] == first);
    CHECK(lanes[static_cast<size_t>(l)][3] == 3.5);
  }
}

TEST_CASE("program: arrays and structs, indices clamped into range", "[unit]") {
  const auto lanes = run(R"(
    struct P { vec2 at; float w[2]; };
    const int N = 3;
    void pose() {
      float a[N] = float[](10.0, 20.0, 30.0);
      a[INDEX] += 1.0;
      P p = P(vec2(1.0, 2.0), float[2](3.0, 4.0));
      p.w[INDEX % 2] = 9.0;
      CUSTOM = vec4(a[INDEX], a[0] + a[1] + a[2], p.w[0] + p.w[1], float(a.length()));
    })",
                         5);
  for (int l = 0; l < 5; ++l) {
    const int at = std::min(l, 2);  // clamped
    CHECK(lanes[static_cast<size_t>(l)][0] == 10 * (at + 1) + 1);
    CHECK(lanes[static_cast<size_t>(l)][1] == 61);
    CHECK(lanes[static_cast<size_t>(l)][2] == (l % 2 == 0 ? 13 : 12));
    CHECK(lanes[static_cast<size_t>(l)][3] == 3);
  }
}

TEST_CASE("program: && || and ?: evaluate their right side only where needed", "[unit]") {
  const auto lanes = run(R"(
    void pose() {
      int n = 0;
      bool a = INDEX > 1 && (n++ > -1);
      bool b = INDEX > 1 || (n++ > -1);
      float t = INDEX == 0 ? (CUSTOM.w = 5.0) : 1.0;
      CUSTOM.xyz = vec3(float(n), a ? 1.0 : 0.0, t);
    })",
                         3);
  CHECK(lanes[0][0] == 1);  // only b's right side ran
  CHECK(lanes[2][0] == 1);  // only a's right side ran
  CHECK(lanes[0][3] == 5);
  CHECK(lanes[1][3] == 0);
}

TEST_CASE("program: the same lanes give the same bits at any batch size", "[unit]") {
  const std::string text = R"(
    void pose() {
      float s = 0.0;
      for (int i = 0; i < INDEX % 7; i++) s += sin(float(i) * 1.3 + rand(1u));
      CUSTOM = vec4(s, rand(0u), noise(vec2(float(INDEX) * 0.37, 1.5)), pow(AGE + 0.5, 1.7));
    })";
  const auto one = run(text, 100, Stage::kPose, 1);
  const auto many = run(text, 100, Stage::kPose, 64);
  const auto odd = run(text, 100, Stage::kPose, 7);
  REQUIRE(one.size() == 100);
  CHECK(one == many);
  CHECK(one == odd);
}

TEST_CASE("program: rand(k) is the documented hash on the program's own stream", "[unit]") {
  const auto lanes = run("void pose() { CUSTOM.x = rand(3u); CUSTOM.y = rand(3); }", 4);
  for (uint32_t l = 0; l < 4; ++l) {
    const uint32_t st = particle_stream(7, l);
    CHECK(lanes[l][0] == unit_raw(mix32(st ^ 0x50524F47u), 3));
    CHECK(lanes[l][1] == lanes[l][0]);
  }
}

TEST_CASE("program: uniforms take their defaults, or the values given", "[unit]") {
  const std::string text = R"(
    uniform float speed : hint_range(0, 10) = 2.5;
    uniform vec2 dir = vec2(1.0, 0.0);
    uniform int count;
    void pose() { CUSTOM = vec4(speed, dir, float(count)); })";
  CHECK(run(text)[0] == std::array<double, 4>{2.5, 1, 0, 0});
  CHECK(run(text, 1, Stage::kPose, 64, {{4}, {}, {3}})[0] == std::array<double, 4>{4, 1, 0, 3});
  const auto p = compile(text);
  REQUIRE(p->uniforms().size() == 3);
  CHECK(p->uniforms()[0].has_range);
  CHECK(p->uniforms()[1].scalars == 2);
  CHECK(p->uniforms()[2].is_int);
}

TEST_CASE("program: which built-ins a program writes", "[unit]") {
  const auto p = compile(R"(
    void start() { VELOCITY.y += 10.0; }
    void pose() { if (AGE > 1.0) COLOR.a = 0.5; })");
  CHECK(p->has(Stage::kStart));
  CHECK(!p->has(Stage::kProcess));
  CHECK(p->writes(ProgramVar::kVelocity));
  CHECK(p->writes(ProgramVar::kColor));
  CHECK(!p->writes(ProgramVar::kPosition));
}

TEST_CASE("program: errors are located, all at once, with the line and a caret", "[unit]") {
  const std::string e = error_of(
      "void pose() {\n  float x = 1.0;\n  CUSTOM.x = lenght(x);\n"
      "  vec2 v = vec3(1.0);\n  AGE = 2.0;\n}\n");
  CHECK(e.find("test.glsl:3:14: unknown function 'lenght'; did you mean 'length'?") !=
        std::string::npos);
  CHECK(e.find("\n      CUSTOM.x = lenght(x);\n                 ^\n") != std::string::npos);
  CHECK(e.find("test.glsl:4:12: the value of 'v': expected vec2, found vec3") != std::string::npos);
  CHECK(e.find("test.glsl:5:3: cannot assign to AGE: it is read-only") != std::string::npos);
  CHECK(error_of("void pose() { float y = x; }").find("unknown name 'x'") != std::string::npos);
  CHECK(error_of("void pose() { CUSTOM.x = 1.0 % 2.0; }").find("use mod(x, y)") !=
        std::string::npos);
  CHECK(error_of("void pose() { CUSTOM.x = 1.0 }").find("expected ';'") != std::string::npos);
  CHECK(error_of("float f() { return f(); } void pose() { CUSTOM.x = f(); }")
            .find("programs cannot recurse") != std::string::npos);
  CHECK(error_of("void vertex() { }").find("Godot 3's particle function") != std::string::npos);
  CHECK(error_of("void pose() { TRANSFORM[3].x = 1.0; }").find("use POSITION") !=
        std::string::npos);
  CHECK(error_of("void pose() { discard; }").find("ACTIVE = false") != std::string::npos);
  CHECK(error_of("void pose() { break; }").find("not inside a loop") != std::string::npos);
  CHECK(error_of("float helper() { return 1; } ").find("defines none of") != std::string::npos);
  CHECK(error_of("float helper() { return vec2(1.0); } void pose() { }")
            .find("expected float, found vec2") != std::string::npos);
  // An inline program's first line starts where its string does.
  try {
    std::vector<Diagnostic> w;
    Program::compile("void pose() { x; }", ProgramOrigin{"fx.toml", 12, 11}, w);
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.diagnostics()[0].loc.line == 12);
    CHECK(err.diagnostics()[0].loc.col == 25);
  }
}

TEST_CASE("program: a loop past the budget stops with an error naming it", "[unit]") {
  try {
    run("void pose() {\n  float x = 0.0;\n  while (x >= 0.0) { x += 1.0; }\n}\n");
    FAIL("no error");
  } catch (const Error& e) {
    const std::string m = e.diagnostics()[0].to_string();
    CHECK(m.find("test.glsl:3:3: this while loop ran more than 16777216 turns") !=
          std::string::npos);
  }
}

namespace {

// CUSTOM after pose() with `samplers` bound to the program's samplers.
std::array<double, 4> sampled(const std::string& text, const std::vector<program::Sampler>& bound) {
  const auto p = compile(text);
  std::vector<program::Sampler> s = bound;
  for (size_t i = 0; i < s.size() && i < p->samplers().size(); ++i) s[i].info = p->samplers()[i];
  const std::vector<Curve> curves;
  const std::vector<ColorCurve> gradients;
  program::Machine m(p->compiled(), 1, {}, 1u, &curves, &gradients, &s);
  m.run(Stage::kPose, 1);
  return {m.f(program::kFCustom)[0], m.f(program::kFCustom + 1)[0], m.f(program::kFCustom + 2)[0],
          m.f(program::kFCustom + 3)[0]};
}

}  // namespace

TEST_CASE("program: texture reads are GLSL's bilinear, clamped or wrapped", "[unit]") {
  // A 2x2 image: red, green / blue, white with alpha 0 (values as stored).
  ProgramImage im;
  im.width = im.height = 2;
  im.rgba = {65535, 0, 0, 65535, 0, 65535, 0, 65535, 0, 0, 65535, 65535, 65535, 65535, 65535, 0};
  program::Sampler s;
  s.image = &im;
  const auto read = [&](const std::string& hints, const std::string& call) {
    return sampled("uniform sampler2D t" + hints + ";\nvoid pose() { CUSTOM = " + call + "; }",
                   {s});
  };
  // Texel centres are at (i + 0.5) / 2: exact there.
  CHECK(read("", "texture(t, vec2(0.25, 0.25))") == std::array<double, 4>{1, 0, 0, 1});
  CHECK(read("", "texture(t, vec2(0.75, 0.75))") == std::array<double, 4>{1, 1, 1, 0});
  // The middle is the mean of the four; halfway along the top row, of two.
  CHECK(read("", "texture(t, vec2(0.5))") == std::array<double, 4>{0.5, 0.5, 0.5, 0.75});
  CHECK(read("", "texture(t, vec2(0.5, 0.25))") == std::array<double, 4>{0.5, 0.5, 0, 1});
  // Clamped: past the edge is the edge texel; wrapped: the far side blends in.
  CHECK(read("", "texture(t, vec2(-3.0, 0.25))") == std::array<double, 4>{1, 0, 0, 1});
  CHECK(read(" : repeat_enable", "texture(t, vec2(0.0, 0.25))") ==
        std::array<double, 4>{0.5, 0.5, 0, 1});
  CHECK(read(" : repeat_enable", "texture(t, vec2(2.25, -0.75))") ==
        std::array<double, 4>{1, 0, 0, 1});
  // Nearest: the texel under the point.
  CHECK(read(" : filter_nearest", "texture(t, vec2(0.49, 0.51))") ==
        std::array<double, 4>{0, 0, 1, 1});
  // textureLod and a bias read level 0; NaN reads as 0; texelFetch clamps.
  CHECK(read("", "textureLod(t, vec2(0.5), 3.0)") == read("", "texture(t, vec2(0.5), 1.0)"));
  CHECK(read("", "texture(t, vec2(0.0 / 0.0))") == read("", "texture(t, vec2(0.0))"));
  CHECK(read("", "texelFetch(t, ivec2(1, 0), 0)") == std::array<double, 4>{0, 1, 0, 1});
  CHECK(read("", "texelFetch(t, ivec2(-7, 99), 0)") == std::array<double, 4>{0, 0, 1, 1});
  CHECK(read("", "vec4(vec2(textureSize(t, 0)), vec2(textureSize(t, 1)))") ==
        std::array<double, 4>{2, 2, 1, 1});
  // 8-bit values are exact: 51 * 257 / 65535 = 51 / 255 = 0.2.
  ProgramImage one;
  one.width = one.height = 1;
  one.rgba = {51 * 257, 0, 0, 65535};
  program::Sampler o;
  o.image = &one;
  CHECK(sampled("uniform sampler2D t;\nvoid pose() { CUSTOM = texture(t, vec2(0.3)); }", {o})[0] ==
        51 / 255.0);
}

TEST_CASE("program: samplers bound to curves and gradients, or to nothing", "[unit]") {
  const Curve ramp = Curve::line(0, 10);
  const ColorCurve heat = ColorCurve::constant({1, 0.5, 0.25});
  program::Sampler c, g, none;
  c.curve = &ramp;
  g.gradient = &heat;
  const std::string two = "uniform sampler2D a;\nuniform sampler2D b;\n";
  CHECK(sampled(two + "void pose() { CUSTOM = texture(a, vec2(0.3, 7.0)); }", {c, g}) ==
        std::array<double, 4>{3, 0, 0, 1});
  CHECK(sampled(two + "void pose() { CUSTOM = texture(b, vec2(0.3)); }", {c, g}) ==
        std::array<double, 4>{1, 0.5, 0.25, 1});
  CHECK(sampled(two + "void pose() { CUSTOM = texelFetch(a, ivec2(255, 0), 0); }", {c, g})[0] ==
        Approx(10 * 255.5 / 256));
  CHECK(sampled(two + "void pose() { CUSTOM.xy = vec2(textureSize(a, 0)); }", {c, g})[0] == 256);
  // Passed on through an `in sampler2D` parameter.
  CHECK(sampled(two + "vec4 look(sampler2D s, float u) { return texture(s, vec2(u, 0.0)); }\n"
                      "void pose() { CUSTOM = look(a, 0.5) + look(b, 0.0); }",
                {c, g}) == std::array<double, 4>{6, 0.5, 0.25, 2});
  // Unbound: white, or as the hints say.
  CHECK(sampled("uniform sampler2D t;\nvoid pose() { CUSTOM = texture(t, vec2(0.5)); }", {none}) ==
        std::array<double, 4>{1, 1, 1, 1});
  CHECK(sampled("uniform sampler2D t : hint_default_black;\nvoid pose() { CUSTOM = "
                "texture(t, vec2(0.5)); }",
                {none}) == std::array<double, 4>{0, 0, 0, 1});
  CHECK(sampled("uniform sampler2D t : hint_default_transparent;\nvoid pose() { CUSTOM = "
                "texture(t, vec2(0.5)); }",
                {none}) == std::array<double, 4>{0, 0, 0, 0});
}

TEST_CASE("program: what samplers cannot do is refused, located", "[unit]") {
  CHECK(error_of("uniform sampler2D t = 1.0;\nvoid pose() {}").find("has no default value") !=
        std::string::npos);
  CHECK(error_of("uniform sampler2D t[2];\nvoid pose() {}").find("arrays of samplers") !=
        std::string::npos);
  CHECK(error_of("uniform sampler2D t : hint_range(0, 1);\nvoid pose() {}")
            .find("hint_range is a hint for numbers") != std::string::npos);
  CHECK(error_of("uniform sampler2D t : hint_screen_texture;\nvoid pose() {}")
            .find("no screen to read") != std::string::npos);
  CHECK(error_of("uniform float f;\nvoid pose() { CUSTOM = texture(f, vec2(0.0)); }")
            .find("its first argument must name a sampler2D uniform") != std::string::npos);
  CHECK(error_of("uniform sampler2D t;\nvoid pose() { CUSTOM = texture(t); }")
            .find("texture(sampler2D, vec2 [, float bias])") != std::string::npos);
  CHECK(error_of("uniform sampler2D t;\nvoid pose() { CUSTOM = texelFetch(t, vec2(0.5), 0); }")
            .find("texelFetch()'s coordinates") != std::string::npos);
  CHECK(error_of("uniform sampler2D t;\nvoid pose() { CUSTOM = textureGrad(t, vec2(0.0), "
                 "vec2(0.0), vec2(0.0)); }")
            .find("textureGrad() is not supported") != std::string::npos);
  CHECK(error_of("uniform sampler2D t;\nsampler2D f() { return t; }\nvoid pose() {}")
            .find("cannot return a sampler2D") != std::string::npos);
  CHECK(error_of("uniform sampler2D t;\nvoid pose() { sampler2D u = t; }")
            .find("cannot declare a sampler2D variable") != std::string::npos);
  CHECK(error_of("uniform sampler2D t;\nvoid pose() { t = t; }").find("it is a uniform") !=
        std::string::npos);
}

TEST_CASE("program: a program may declare its own PI, TAU or E", "[unit]") {
  // Godot 3 has no PI built in; its programs declare one.
  CHECK(x_of("CUSTOM.x = PI;", "const float PI = 3.0;") == 3);
  CHECK(x_of("CUSTOM.x = TAU;") == Approx(6.283185307179586));
  CHECK(error_of("void pose() { PI = 3.0; }").find("it is a const") != std::string::npos);
}

TEST_CASE("program: GLSL initializer lists for arrays, vectors and structs", "[unit]") {
  CHECK(x_of("vec4 c[] = {vec4(1.0), vec4(2.0), vec4(3.0),}; CUSTOM.x = c[2].x + "
             "float(c.length());") == 6);
  CHECK(x_of("float f[3] = {1.0, 2.0, 4.0}; CUSTOM.x = f[0] + f[1] + f[2];") == 7);
  CHECK(x_of("vec2 v[2] = {{1.0, 2.0}, {3.0, 4.0}}; CUSTOM.x = v[1].y;") == 4);
  CHECK(x_of("vec3 v = {1.0, 2.0, 3.0}; CUSTOM.x = v.z;") == 3);
  CHECK(x_of("CUSTOM.x = K[1];", "const float K[2] = {5.0, 6.0};") == 6);
  CHECK(error_of("void pose() { float f[2] = {1.0, 2.0, 3.0}; }").find("float[2]") !=
        std::string::npos);
  CHECK(error_of("void pose() { float f[] = {1.0, 2.0; }").find("to close the initializer list") !=
        std::string::npos);
}

TEST_CASE("program: the preprocessor's #define, #if and their kin", "[unit]") {
  // Object-like and function-like macros, expanded where used.
  CHECK(x_of("CUSTOM.x = float(N) * TWICE(1.5 + 1.0);",
             "#define N 3\n#define TWICE(x) (2.0 * (x))\n") == 15);
  // A macro may stand for a place, as real shaders write them.
  CHECK(
      run("#define HEAT (USERDATA1.w)\nvoid pose() { HEAT = 4.0; CUSTOM.x = HEAT + 1.0; }\n")[0]
                                                                                             [0] ==
      5);
  // Conditions: defined, comparisons, Godot's renderer defines.
  CHECK(x_of("CUSTOM.x = V;",
             "#define A\n#if defined(A) && !defined B\n#define V 1.0\n#elif 1\n"
             "#define V 2.0\n#else\n#define V 3.0\n#endif\n") == 1);
  CHECK(x_of("CUSTOM.x = V;",
             "#if CURRENT_RENDERER == RENDERER_COMPATIBILITY\n#define V 1.0\n"
             "#else\n#define V 2.0\n#endif\n") == 2);
  CHECK(x_of("CUSTOM.x = V;",
             "#ifndef V\n#define V (1 << 4) % 7 + 0x10 > 17 ? 5.0 : 6.0\n#endif\n") == 5);
  // #undef, and a continued line.
  CHECK(x_of("CUSTOM.x = float(M);", "#define M 1\n#undef M\n#define M \\\n  7\n") == 7);
  // A macro does not expand within itself.
  CHECK(x_of("float x = 2.0; CUSTOM.x = x;", "#define x x\n") == 2);
  // Errors at their place.
  CHECK(error_of("#include \"a.gdshaderinc\"\nvoid pose() {}")
            .find("test.glsl:1:2: #include is not "
                  "supported") == 0);
  CHECK(error_of("#if 1\nvoid pose() {}\n").find("never closed with #endif") != std::string::npos);
  CHECK(error_of("#endif\nvoid pose() {}\n").find("#endif without #if") != std::string::npos);
  CHECK(error_of("#if 1 / 0\n#endif\nvoid pose() {}\n").find("in #if: division by zero") !=
        std::string::npos);
  CHECK(error_of("#error not for spritz\nvoid pose() {}\n").find("#error not for spritz") !=
        std::string::npos);
  CHECK(error_of("#define F(a, b) a\nvoid pose() { CUSTOM.x = F(1.0); }")
            .find("macro F takes 2 arguments, found 1") != std::string::npos);
  CHECK(error_of("void pose() { float x = 1.0; # x; }").find("must start its line") !=
        std::string::npos);
  // Expansion is bounded: each macro doubles the one before, 2^40 tokens.
  std::string doubling = "#define A0 1.0 +\n";
  for (int i = 1; i <= 40; ++i)
    doubling += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" +
                std::to_string(i - 1) + "\n";
  CHECK(error_of(doubling + "void pose() { CUSTOM.x = A40 1.0; }")
            .find("macros expand to more than 1048576 tokens") != std::string::npos);
}

TEST_CASE("program: nesting and operator chains are bounded, not a stack overflow", "[unit]") {
  // A chain of 200 additions nests 200 deep to the left and is fine.
  std::string sum = "1.0";
  for (int i = 1; i < 200; ++i) sum += " + 1.0";
  CHECK(x_of("CUSTOM.x = " + sum + ";") == 200);
  // A chain of 100,000 would build a tree 100,000 deep: refused at its place.
  std::string chain = "1.0";
  for (int i = 1; i < 100000; ++i) chain += (i % 2 ? " * " : " + ") + std::string("1.0");
  CHECK(error_of("void pose() { CUSTOM.x = " + chain + "; }").find("nest more than 256 deep") !=
        std::string::npos);
  // So are parentheses, blocks and unary operators stacked deep.
  CHECK(error_of("void pose() { CUSTOM.x = " + std::string(1000, '(') + "1.0" +
                 std::string(1000, ')') + "; }")
            .find("nest more than 256 deep") != std::string::npos);
  CHECK(error_of("void pose() " + std::string(1000, '{') + std::string(1000, '}'))
            .find("nest more than 256 deep") != std::string::npos);
  CHECK(error_of("void pose() { CUSTOM.x = " + std::string(100000, '-') + "1.0; }")
            .find("nest more than 256 deep") != std::string::npos);
}

TEST_CASE("program: calls that call calls are bounded even where they emit nothing", "[unit]") {
  // Twelve levels of four calls each, whose innermost call names no
  // function: every body is an error and emits nothing, so only a bound on
  // the bodies inlined stops the walk (a fuzz finding: it took minutes).
  std::string text = "float f1(float x) { return f0(x) + f0(x) + f0(x) + f0(x); }\n";
  for (int i = 2; i <= 12; ++i) {
    const std::string g = "f" + std::to_string(i - 1);
    text += "float f" + std::to_string(i) + "(float x) { return " + g + "(x) + " + g +
            "(x + 1.0) + " + g + "(x * 2.0) + " + g + "(-x); }\n";
  }
  text += "void pose() { POSITION.x = f12(AGE); }\n";
  const std::string e = error_of(text);
  CHECK(e.find("unknown function 'f0'") != std::string::npos);
  CHECK(e.find("calls inline to more than 32768 function bodies") != std::string::npos);
  // Each error once, however many times its body was inlined: f1 calls f0
  // at four places.
  size_t said = 0;
  for (size_t at = e.find("unknown function 'f0'"); at != std::string::npos;
       at = e.find("unknown function 'f0'", at + 1))
    ++said;
  CHECK(said == 4);
}
