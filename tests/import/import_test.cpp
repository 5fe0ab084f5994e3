// The Particle Designer / Starling importer (docs/import.md): its mapping of
// small files written for these tests (tests/data/import), every kind of
// bad input, and the imported effects against a reference simulator written
// from docs/formats/cocos2d.md's equations (not from the importer), particle by
// particle and, with the reference's own random numbers, in distribution.
#include "spritz/import/import.h"

#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "import/import_support.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"

using namespace spritz;
using namespace spritz::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(SPRITZ_SOURCE_DIR) / "tests/data/import";
const fs::path kCorpus = spritz_corpus_dir(SPRITZ_SOURCE_DIR);

std::string import_error(const std::string& text, EffectFormat f = EffectFormat::kCocos2d) {
  try {
    import_effect(text, "bad.plist", ".", f, {}, read_file);
  } catch (const Error& e) {
    return e.diagnostics().front().to_string();
  }
  return "";
}

std::string base64(const std::vector<uint8_t>& b) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < b.size(); i += 3) {
    const uint32_t n = (uint32_t(b[i]) << 16) | (i + 1 < b.size() ? uint32_t(b[i + 1]) << 8 : 0) |
                       (i + 2 < b.size() ? b[i + 2] : 0);
    out += k[(n >> 18) & 63];
    out += k[(n >> 12) & 63];
    out += i + 1 < b.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < b.size() ? k[n & 63] : '=';
  }
  return out;
}

std::vector<uint8_t> zlib_compress(const std::vector<uint8_t>& in) {
  uLongf n = compressBound(static_cast<uLong>(in.size()));
  std::vector<uint8_t> out(n);
  compress2(out.data(), &n, in.data(), static_cast<uLong>(in.size()), 9);
  out.resize(n);
  return out;
}

// A minimal particle plist with `extra` keys (plist XML) in its <dict>.
std::string plist(const std::string& extra) {
  return "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n"
         "<key>maxParticles</key><integer>50</integer>\n"
         "<key>particleLifespan</key><real>1</real>\n" +
         extra + "</dict>\n</plist>\n";
}

// --- the reference (docs/formats/cocos2d.md 3.2-3.5, cocos2d-x 3.x) ---------------
namespace reference {

// One particle's draws, each u in [-1, 1] as RANDOM_M11 gives them, and its
// life (section 3.2's order does not matter once the draws are given).
struct Draws {
  double life = 1;
  double offset_x = 0, offset_y = 0;
  double color0[4] = {}, color1[4] = {};
  double size0 = 0, size1 = 0, spin0 = 0, spin1 = 0;
  double angle = 0, speed = 0, radial = 0, tangential = 0;
  double radius0 = 0, radius1 = 0, omega = 0;
};

struct Keys {
  std::map<std::string, double> v;
  double operator()(const std::string& k, double fallback = 0) const {
    auto it = v.find(k);
    return it == v.end() ? fallback : it->second;
  }
};

struct State {
  double x = 0, y = 0;  // relative to the emitter origin at birth, y up
  double size = 0, spin = 0;
  double color[4] = {};
};

// Section 3.3/3.4/3.5 stepped `steps` frames of dt in 32-bit floats, from the
// draws of section 3.2.
State simulate(const Keys& k, const Draws& d, int steps, double dt) {
  const float fdt = static_cast<float>(dt);
  const double life = d.life;
  const double c0[4] = {d.color0[0], d.color0[1], d.color0[2], d.color0[3]};
  double s0 = std::max(0.0, k("startParticleSize") + k("startParticleSizeVariance") * d.size0);
  double s1 =
      k("finishParticleSize") == -1
          ? s0
          : std::max(0.0, k("finishParticleSize") + k("finishParticleSizeVariance") * d.size1);
  const double r0 = k("rotationStart") + k("rotationStartVariance") * d.spin0;
  const double r1 = k("rotationEnd") + k("rotationEndVariance") * d.spin1;
  State out;
  const double age = steps * dt;
  for (int c = 0; c < 4; ++c) out.color[c] = c0[c] + (d.color1[c] - c0[c]) / life * age;
  out.size = std::max(0.0, s0 + (s1 - s0) / life * age);
  out.spin = r0 + (r1 - r0) / life * age;
  const double pi = 3.14159265358979323846;
  const double a = (k("angle") + k("angleVariance") * d.angle) * pi / 180;
  if (k("emitterType") == 1) {
    const double R0 = k("maxRadius") + k("maxRadiusVariance") * d.radius0;
    const double R1 =
        k("minRadius") == -1 ? R0 : k("minRadius") + k("minRadiusVariance") * d.radius1;
    const double w = (k("rotatePerSecond") + k("rotatePerSecondVariance") * d.omega) * pi / 180;
    const double theta = a + w * age, R = R0 + (R1 - R0) / life * age;
    out.x = -R * std::cos(theta);
    out.y = -R * std::sin(theta);
    return out;
  }
  const float s = static_cast<float>(k("speed") + k("speedVariance") * d.speed);
  const float ar =
      static_cast<float>(k("radialAcceleration") + k("radialAccelVariance") * d.radial);
  const float at =
      static_cast<float>(k("tangentialAcceleration") + k("tangentialAccelVariance") * d.tangential);
  const float gx = static_cast<float>(k("gravityx")), gy = static_cast<float>(k("gravityy"));
  float px = static_cast<float>(k("sourcePositionVariancex") * d.offset_x);
  float py = static_cast<float>(k("sourcePositionVariancey") * d.offset_y);
  float vx = static_cast<float>(std::cos(a)) * s, vy = static_cast<float>(std::sin(a)) * s;
  for (int i = 0; i < steps; ++i) {
    const float r = std::sqrt(px * px + py * py);
    const float rx = r > 0 ? px / r : 0, ry = r > 0 ? py / r : 0;
    const float tx = -ry, ty = rx;
    vx += (gx + ar * rx + at * tx) * fdt;
    vy += (gy + ar * ry + at * ty) * fdt;
    px += vx * fdt;
    py += vy * fdt;
  }
  out.x = px;
  out.y = py;
  return out;
}

}  // namespace reference

// The plist's numbers, as the reference reads them (a .plist only).
reference::Keys plist_keys(const std::string& text) {
  reference::Keys k;
  size_t p = 0;
  while ((p = text.find("<key>", p)) != std::string::npos) {
    const size_t e = text.find("</key>", p);
    const std::string key = text.substr(p + 5, e - p - 5);
    const size_t v = text.find('>', text.find('<', e + 6)) + 1;
    const std::string value = text.substr(v, text.find('<', v) - v);
    char* end = nullptr;
    const double d = std::strtod(value.c_str(), &end);
    if (end != value.c_str()) k.v[key] = d;
    p = e;
  }
  return k;
}

// u in [-1, 1] for the reference from a spritz roll in [0, 1): the table of
// docs/import.md ("Which spritz channel feeds which draw"). A range written
// [v - |var|, v + |var|] gives v + var u with u = (2 unit - 1) sign(var); a
// negated one (spin, alpha as transparency) the opposite sign.
double draw(double unit_value, double variance, bool negated = false) {
  const double u = (2 * unit_value - 1) * (variance < 0 ? -1 : 1);
  return negated ? -u : u;
}

reference::Draws draws_for(const reference::Keys& k, const Emitter& em, const Particle& p) {
  const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
  reference::Draws d;
  d.life = p.life_s;
  d.offset_x = draw(unit(st, Channel::kShapeU), k("sourcePositionVariancex"));
  d.offset_y = draw(unit(st, Channel::kShapeV), k("sourcePositionVariancey"));
  const char* ch[4] = {"Red", "Green", "Blue", "Alpha"};
  for (uint32_t c = 0; c < 3; ++c) {
    d.color0[c] = std::clamp(k(std::string("startColor") + ch[c]) +
                                 k(std::string("startColorVariance") + ch[c]) *
                                     draw(unit_raw(st, uint32_t(Channel::kColorStartR) + c),
                                          k(std::string("startColorVariance") + ch[c])),
                             0.0, 1.0);
    d.color1[c] = std::clamp(k(std::string("finishColor") + ch[c]) +
                                 k(std::string("finishColorVariance") + ch[c]) *
                                     draw(unit_raw(st, uint32_t(Channel::kColorEndR) + c),
                                          k(std::string("finishColorVariance") + ch[c])),
                             0.0, 1.0);
  }
  d.color0[3] = std::clamp(k("startColorAlpha") + k("startColorVarianceAlpha") *
                                                      draw(unit(st, Channel::kTransparencyEnvelope),
                                                           k("startColorVarianceAlpha"), true),
                           0.0, 1.0);
  d.color1[3] = std::clamp(k("finishColorAlpha") + k("finishColorVarianceAlpha") *
                                                       draw(unit(st, Channel::kTransparencyEnd),
                                                            k("finishColorVarianceAlpha"), true),
                           0.0, 1.0);
  d.size0 = draw(unit(st, Channel::kSizeEnvelope), k("startParticleSizeVariance"));
  d.size1 = draw(unit(st, Channel::kSizeEnd), k("finishParticleSizeVariance"));
  d.spin0 = draw(unit(st, Channel::kRotation), k("rotationStartVariance"), true);
  d.spin1 = draw(unit(st, Channel::kRotationEnd), k("rotationEndVariance"), true);
  // The spread: spritz turns by (2u - 1) min(180, |var|); the same angle.
  const double av = std::abs(k("angleVariance"));
  d.angle =
      av > 0 ? (2 * unit(st, Channel::kSpread) - 1) * std::min(180.0, av) / k("angleVariance") : 0;
  d.speed = draw(unit(st, Channel::kSpeed), k("speedVariance"));
  d.radial = draw(unit(st, Channel::kRadialAcceleration), k("radialAccelVariance"));
  d.tangential = draw(unit(st, Channel::kTangentialAcceleration), k("tangentialAccelVariance"));
  d.radius0 = draw(unit(st, Channel::kOrbitRadius), k("maxRadiusVariance"));
  d.radius1 = draw(unit(st, Channel::kOrbitRadiusEnd), k("minRadiusVariance"));
  d.omega = draw(unit(st, Channel::kOrbitAngularSpeed), k("rotatePerSecondVariance"));
  return d;
}

struct Agreement {
  int particles = 0;
  double worst_closed = 0;   // relative, size / colour / alpha / spin / orbit
  double worst_forces = 0;   // px, integrated
  double worst_gravity = 0;  // px, beyond the Euler drift |g| age dt / 2
};

// Every particle of the imported `path` alive at a few clocks, against the
// reference run to the same age (a whole number of 1/60 s frames).
Agreement conform(const fs::path& path) {
  const std::string text = read_text(path);
  const reference::Keys k = plist_keys(text);
  const ImportResult r = import_path(path);
  const Effect fx = load_imported(r, path);
  const Emitter& em = fx.emitters[0];
  Agreement a;
  const double dt = 1.0 / 60;
  const bool forces = em.forces.enabled();
  const double g = std::hypot(k("gravityx"), k("gravityy"));
  for (double c : {0.25, 0.6, 1.3}) {
    const Frame f = evaluate(fx, clock_at_time(fx, c));
    for (const Particle& q : f.emitters[0].particles) {
      // The same particle at an age of whole frames.
      const int steps = static_cast<int>(std::floor(q.age_s / dt));
      if (steps < 1) continue;
      Particle p;
      if (!evaluate_particle(em, q.key, q.birth_s, q.birth_s + steps * dt, p)) continue;
      const reference::State s = reference::simulate(k, draws_for(k, em, p), steps, dt);
      const auto rel = [](double x, double y) {
        return std::abs(x - y) / std::max(1.0, std::abs(y));
      };
      double closed =
          std::max({rel(p.w, s.size), rel(p.rotation_deg, -s.spin), rel(p.color_srgb.r, s.color[0]),
                    rel(p.color_srgb.g, s.color[1]), rel(p.color_srgb.b, s.color[2])});
      const bool one_one = k("blendFuncSource", 1) == 1 && k("blendFuncDestination", 771) == 1;
      if (!one_one) closed = std::max(closed, rel(p.alpha, s.color[3]));
      const double gap = std::hypot(p.x - em.position.x - s.x, p.y - em.position.y - s.y);
      if (k("emitterType") == 1)
        closed = std::max(closed, gap / std::max(1.0, std::hypot(s.x, s.y)));
      else if (forces)
        a.worst_forces = std::max(a.worst_forces, gap);
      else
        a.worst_gravity = std::max(a.worst_gravity, gap - g * p.age_s * dt / 2);
      a.worst_closed = std::max(a.worst_closed, closed);
      ++a.particles;
    }
  }
  return a;
}

// Whether a corpus file's draws map one to one onto spritz's rolls: the
// lifetime rule aside (V > L keeps only the visible share), and the
// Particle Designer 2 flip (its own mirrored mapping).
bool exact_draws(const reference::Keys& k) {
  return std::abs(k("particleLifespanVariance")) <= k("particleLifespan") &&
         k("particleLifespan") > 0 && k("yCoordFlipped", 1) == 1 && k("maxParticles") > 0 &&
         k("configName", 0) == 0 && k("rotationIsDir") == 0;
}

// The Kolmogorov-Smirnov statistic of two samples, their values rounded to
// 1e-9 first (the same value computed two ways must tie).
double ks(std::vector<double> a, std::vector<double> b) {
  for (auto* v : {&a, &b})
    for (double& x : *v) x = std::round(x * 1e9) / 1e9;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(double(i) / double(a.size()) - double(j) / double(b.size())));
  }
  return d;
}

}  // namespace

TEST_CASE("formats are told by their content, whatever the file is called", "[import]") {
  CHECK(detect_effect_format("[effect]\n", "x.plist") == EffectFormat::kToml);
  CHECK(detect_effect_format("\xEF\xBB\xBF <?xml version=\"1.0\"?>\n<!DOCTYPE plist>\n<plist>",
                             "x") == EffectFormat::kCocos2d);
  CHECK(detect_effect_format("<!-- x --><particleEmitterConfig>", "x.toml") == EffectFormat::kPex);
  try {
    detect_effect_format("<?xml version=\"1.0\"?>\n<svg/>", "a.xml");
    FAIL("an SVG was taken for an effect");
  } catch (const Error& e) {
    CHECK(e.diagnostics().front().to_string().rfind("a.xml:2:1: an XML file whose root", 0) == 0);
  }
}

TEST_CASE("a plist maps onto the model: rates, rolls, forces and its embedded texture",
          "[import]") {
  const ImportResult r = import_path(kData / "spark.plist");
  CHECK(r.format == EffectFormat::kCocos2d);
  REQUIRE(r.fx.emitters.size() == 1);
  const Emitter& em = r.fx.emitters[0];
  CHECK(r.fx.loop);
  CHECK(em.rate_per_s == Approx(120 / 1.2));  // maxParticles / particleLifespan
  CHECK(em.lifetime_s.min == Approx(0.8));
  CHECK(em.lifetime_s.max == Approx(1.6));
  CHECK(em.max_particles >= 120);
  CHECK(em.direction_deg == 90);
  CHECK(em.spread_deg == 25);
  CHECK(em.speed_px_per_s.min == 90);
  CHECK(em.speed_px_per_s.max == 150);
  CHECK(em.acceleration.y == -60);
  CHECK(em.forces.radial.min == -50);
  CHECK(em.forces.tangential.max == 100);
  CHECK(em.shape.kind == ShapeKind::kBox);
  CHECK(em.size_ramp.enabled);
  CHECK(em.size_ramp.end.min == -2);  // clamped at birth, as cocos2d does
  CHECK(em.rotation_deg.min == -45);  // clockwise in cocos2d
  CHECK(em.rotation_end_deg.max == -240);
  CHECK(em.color_ramp.start_max.g == Approx(0.9));
  CHECK(em.light_emission == 1);  // SRC_ALPHA, ONE
  CHECK(r.fx.canvas.tonemap == Tonemap::kClamp);
  // The named file is missing: the embedded gzip PNG, premultiplied for
  // SRC_ALPHA's second alpha, and a note at the name's line.
  REQUIRE(r.textures.size() == 1);
  CHECK(r.textures[0].origin == "textureImageData");
  CHECK(r.textures[0].name == "spark-texture.png");
  const DecodedPng png = decode_png(r.textures[0].png, "texture");
  CHECK(png.width == 16);
  for (size_t i = 0; i < png.rgba.size(); i += 4) CHECK(png.rgba[i] <= png.rgba[i + 3]);
  bool noted = false;
  for (const Diagnostic& d : r.notes)
    noted |= d.message.find("spark_missing.png") != std::string::npos && d.loc.line > 1;
  CHECK(noted);
  CHECK(r.warnings.empty());
  // The TOML loads, names its texture, and says where it came from.
  CHECK(r.toml.rfind("# Imported by spritz import from spark.plist", 0) == 0);
  const Effect fx = load_imported(r, kData / "spark.plist");
  CHECK(fx.emitters[0].texture.path == (kData / "spark-texture.png").lexically_normal().string());
}

TEST_CASE("an embedded zlib TIFF and a short duration's burst", "[import]") {
  const ImportResult r = import_path(kData / "tiff_burst.plist");
  const Emitter& em = r.fx.emitters[0];
  CHECK_FALSE(r.fx.loop);
  REQUIRE(em.bursts.size() == 1);
  // 4000 / 0.5 s spawn 133 in the first 60 fps frame; 1.4 / 1.8 of them
  // live (the variance exceeds the lifespan).
  CHECK(em.bursts[0].count == 103);
  CHECK(em.rate_per_s == 0);
  CHECK(em.lifetime_s.min == 0);
  CHECK(em.lifetime_s.max == Approx(1.4));
  CHECK(em.light_emission == 0);  // ONE, ONE_MINUS_SRC_ALPHA: premultiplied over
  REQUIRE(r.textures.size() == 1);
  const DecodedPng png = decode_png(r.textures[0].png, "texture");
  CHECK(png.width == 8);
  CHECK(png.height == 8);
  // Straight alpha back from libtiff's premultiplied RGBA: the centre is
  // opaque and its colour is the drawn one.
  const size_t centre = 4 * (4 * 8 + 4);
  CHECK(int(png.rgba[centre + 3]) > 200);
  CHECK(int(png.rgba[centre]) == 255);
}

TEST_CASE("a Starling .pex: radius mode, y down, the texture beside it", "[import]") {
  const ImportResult r = import_path(kData / "ring.pex");
  CHECK(r.format == EffectFormat::kPex);
  const Emitter& em = r.fx.emitters[0];
  REQUIRE(em.orbit.enabled);
  CHECK(em.orbit.radius.min == 80);
  CHECK(em.orbit.radius_end.max == 10);
  // y down: the angle and the turning sense mirror; cocos2d's -R puts the
  // particle half a turn from its angle.
  CHECK(em.direction_deg == -(270 + 180));
  CHECK(em.orbit.angular_speed_deg_per_s.min == -140);
  REQUIRE(r.textures.size() == 1);
  CHECK(r.textures[0].origin == (kData / "ring_dot.png").lexically_normal().string());
  ImportOptions up;
  up.y_down = false;
  CHECK(import_path(kData / "ring.pex", up).fx.emitters[0].orbit.angular_speed_deg_per_s.min ==
        100);
  ImportOptions sized;
  sized.canvas_width = 300;
  sized.canvas_height = 200;
  sized.position_x = 5;
  const ImportResult s = import_path(kData / "ring.pex", sized);
  CHECK(s.fx.canvas.width == 300);
  CHECK(s.fx.emitters[0].position.x == 5);
}

TEST_CASE("a .pex's Starling spellings win over the plist's, in either order", "[import]") {
  for (const bool starling_first : {true, false}) {
    const std::string a =
        "<particleLifeSpan value=\"2\"/><FinishParticleSizeVariance value=\"3\"/>";
    const std::string b =
        "<particleLifespan value=\"9\"/><finishParticleSizeVariance value=\"9\"/>";
    const std::string text = "<particleEmitterConfig><maxParticles value=\"10\"/>" +
                             (starling_first ? a + b : b + a) +
                             "<finishParticleSize value=\"4\"/></particleEmitterConfig>";
    const ImportResult r = import_effect(text, "s.pex", ".", EffectFormat::kPex, {}, read_file);
    INFO(starling_first);
    CHECK(r.fx.emitters[0].lifetime_s.max == 2);
    CHECK(r.fx.emitters[0].size_ramp.end.max == 7);
  }
}

TEST_CASE("bad input: a clear message at its place, never a crash", "[import]") {
  CHECK(import_error("<plist><dict><key>a</key>").rfind("bad.plist:1:", 0) == 0);
  CHECK(import_error("<plist><dict><key>a</key>").find("malformed XML") != std::string::npos);
  CHECK(import_error("<plist><array/></plist>").find("no root <dict>") != std::string::npos);
  CHECK(import_error("<plist>\n<dict>\n<key>CFBundleName</key><string>x</string>\n</dict></plist>")
            .find("bad.plist:2:1: not a particle file") != std::string::npos);
  CHECK(import_error(plist("<key>speed</key>\n<string>fast</string>\n"))
            .find("speed must be a number, got \"fast\"") != std::string::npos);
  CHECK(import_error(plist("<key>speed</key><real>nan</real>\n")).find("finite number") !=
        std::string::npos);
  CHECK(import_error(plist("<key>gravityx</key><real>1e300</real>\n")).find("within [-1e9, 1e9]") !=
        std::string::npos);
  CHECK(import_error(plist("<key>maxParticles</key><integer>100000000</integer>\n"))
            .find("maxParticles must be within [0, 1e7]") != std::string::npos);
  CHECK(
      import_error(plist("<key>emitterType</key><real>2</real>\n")).find("emitterType must be 0") !=
      std::string::npos);
  CHECK(import_error(plist("<key>textureImageData</key><string>H4sI*!</string>\n"))
            .find("is not base64") != std::string::npos);
  CHECK(import_error(plist("<key>textureImageData</key><string>AAAA</string>\n"))
            .find("not gzip or zlib data") != std::string::npos);
  // A gzip bomb: 80 MiB of zeros in 80 KB.
  const std::string bomb = base64(zlib_compress(std::vector<uint8_t>(80u << 20, 0)));
  CHECK(import_error(plist("<key>textureImageData</key><string>" + bomb + "</string>\n"))
            .find("inflates to more than 64 MiB") != std::string::npos);
  // An image past the pixel cap, and a TIFF libtiff refuses.
  const std::vector<uint8_t> wide(4 * 4097, 255);
  const std::string big = base64(zlib_compress(encode_png(wide.data(), 4097, 1)));
  CHECK(import_error(plist("<key>textureImageData</key><string>" + big + "</string>\n"))
            .find("larger than the limit of 4096 per side") != std::string::npos);
  std::vector<uint8_t> tiff = {'I', 'I', 42, 0, 0xff, 0xff, 0, 0, 1, 2, 3};
  CHECK(import_error(plist("<key>textureImageData</key><string>" + base64(zlib_compress(tiff)) +
                           "</string>\n"))
            .find("(TIFF)") != std::string::npos);
  std::vector<uint8_t> text_bytes = {'h', 'e', 'l', 'l', 'o'};
  CHECK(import_error(plist("<key>textureImageData</key><string>" +
                           base64(zlib_compress(text_bytes)) + "</string>\n"))
            .find("neither a PNG nor a TIFF") != std::string::npos);
  CHECK(import_error("<particleEmitterConfig><maxParticles value=\"x\"/></particleEmitterConfig>",
                     EffectFormat::kPex)
            .find("not a particle file") != std::string::npos);
}

TEST_CASE("a texture named but nowhere: builtin:soft with a warning at the name", "[import]") {
  const std::string text = plist("<key>textureFileName</key>\n<string>nowhere/gone.png</string>\n");
  const ImportResult r = import_effect(text, "t.plist", ".", EffectFormat::kCocos2d, {}, read_file);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].to_string().rfind("t.plist:7:1: no texture: not found (nowhere/gone.png, "
                                        "gone.png)",
                                        0) == 0);
  CHECK(r.fx.emitters[0].texture.builtin());
  CHECK(r.textures.empty());
}

TEST_CASE("imported particles agree with the reference simulator, particle by particle",
          "[import]") {
  for (const char* name : {"spark.plist", "tiff_burst.plist"}) {
    INFO(name);
    const Agreement a = conform(kData / name);
    CHECK(a.particles > 50);
    CHECK(a.worst_closed < 1e-4);
    CHECK(a.worst_forces < 1e-2);
  }
}

TEST_CASE("the corpus's plists agree with the reference where their draws map exactly",
          "[import][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(
      fs::exists(kCorpus / "cocos2d"),
      "needs the shared corpus at " + kCorpus.string() + " (or $SPRITZ_CORPUS)");
  int files = 0, particles = 0;
  for (const auto& e : fs::recursive_directory_iterator(kCorpus / "cocos2d")) {
    if (e.path().extension() != ".plist") continue;
    const reference::Keys k = plist_keys(read_text(e.path()));
    if (!exact_draws(k)) continue;
    INFO(e.path());
    const Agreement a = conform(e.path());
    CHECK(a.worst_closed < 1e-4);
    CHECK(a.worst_forces < 1e-2);
    CHECK(a.worst_gravity < 1e-2);
    particles += a.particles;
    ++files;
  }
  CHECK(files >= 15);
  CHECK(particles > 5000);
}

namespace {

// The worst two-sample KS statistic over lifetime, and size, green, alpha
// and spin at tau = 0, 0.5 and 1, between the import of `path` and the
// reference run with its own generator, 20,000 particles each side.
double worst_ks(const fs::path& path) {
  const reference::Keys k = plist_keys(read_text(path));
  ImportResult r = import_path(path);
  Effect fx = load_imported(r, path);
  Emitter& em = fx.emitters[0];
  std::vector<double> sp[4][3], rf[4][3], life_s, life_r;  // size, r, alpha, spin at tau 0, .5, 1
  std::mt19937 gen(12345);
  std::uniform_real_distribution<double> m11(-1, 1);
  const int n = 20000;  // kKsBound assumes this
  for (int i = 0; i < n; ++i) {
    // spritz: particle i's rolls at three fractions of its life.
    Particle p;
    const uint64_t key = 2 * static_cast<uint64_t>(i) + 1;
    if (!evaluate_particle(em, key, 0, 1e-9, p)) continue;
    life_s.push_back(p.life_s);
    // The reference: its own draws, every one independent; the particles
    // with a life of 0 are never drawn, so they are left out.
    reference::Draws d;
    do d.life = std::max(0.0, k("particleLifespan") + k("particleLifespanVariance") * m11(gen));
    while (d.life <= 0);
    life_r.push_back(d.life);
    const char* ch[4] = {"Red", "Green", "Blue", "Alpha"};
    for (int c = 0; c < 4; ++c) {
      d.color0[c] = std::clamp(k(std::string("startColor") + ch[c]) +
                                   k(std::string("startColorVariance") + ch[c]) * m11(gen),
                               0.0, 1.0);
      d.color1[c] = std::clamp(k(std::string("finishColor") + ch[c]) +
                                   k(std::string("finishColorVariance") + ch[c]) * m11(gen),
                               0.0, 1.0);
    }
    d.size0 = m11(gen), d.size1 = m11(gen), d.spin0 = m11(gen), d.spin1 = m11(gen);
    for (int t = 0; t < 3; ++t) {
      Particle q;
      evaluate_particle(em, key, 0, p.life_s * (t == 2 ? 1 - 1e-9 : 0.5 * t), q);
      sp[0][t].push_back(q.w);
      sp[1][t].push_back(q.color_srgb.g);
      sp[2][t].push_back(q.alpha);
      sp[3][t].push_back(q.rotation_deg);
      // The reference at the same fraction of its own life (a whole-frame
      // age is not needed: these are all closed form).
      const double frac = t == 2 ? 1 - 1e-9 : 0.5 * t;
      const reference::State s = reference::simulate(k, d, 1, d.life * frac);
      rf[0][t].push_back(s.size);
      rf[1][t].push_back(s.color[1]);
      rf[2][t].push_back(s.color[3]);
      rf[3][t].push_back(-s.spin);
    }
  }
  double worst = ks(life_s, life_r);
  // ONE, ONE draws no alpha (docs/import.md, "Blending"): spritz holds it at 1.
  const bool one_one = k("blendFuncSource", 1) == 1 && k("blendFuncDestination", 771) == 1;
  for (int v = 0; v < 4; ++v)
    for (int t = 0; t < 3; ++t)
      if (!(v == 2 && one_one)) worst = std::max(worst, ks(sp[v][t], rf[v][t]));
  return worst;
}

}  // namespace

// 20,000 particles each side: the KS statistic of two samples that size
// stays under 1.95 sqrt(2 / 20000) = 0.0195 with probability 0.999.
const double kKsBound = 1.95 * std::sqrt(2.0 / 20000);

TEST_CASE("with the reference's own random numbers, the distributions agree (KS)", "[import]") {
  // Lifetime variance above the lifespan, and every roll.
  CHECK(worst_ks(kData / "tiff_burst.plist") < kKsBound);
  CHECK(worst_ks(kData / "spark.plist") < kKsBound);
}

TEST_CASE("the corpus's plists agree in distribution where their rules differ by design",
          "[import][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(
      fs::exists(kCorpus / "cocos2d"),
      "needs the shared corpus at " + kCorpus.string() + " (or $SPRITZ_CORPUS)");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kCorpus / "cocos2d")) {
    if (e.path().extension() != ".plist") continue;
    const reference::Keys k = plist_keys(read_text(e.path()));
    // The lifetime rule (variance above the lifespan) is what differs.
    if (!(std::abs(k("particleLifespanVariance")) > k("particleLifespan")) ||
        k("maxParticles") <= 0 || k("yCoordFlipped", 1) != 1 || k("emitterType") == 1)
      continue;
    INFO(e.path());
    CHECK(worst_ks(e.path()) < kKsBound);
    ++files;
  }
  CHECK(files >= 3);
}

// An importer never writes what its loader refuses: every file it accepts,
// of the corpus and of the fuzz target's regressions (a Godot 4 range with
// only a _min, a .pex with no rate and a zero duration, colours far past
// the model's range), gives TOML that loads. A file it refuses is refused
// with a message, never by the loader at a place in no file.
TEST_CASE("every file an importer accepts gives TOML its loader accepts", "[import]") {
  std::vector<fs::path> files;
  for (const auto& e :
       fs::directory_iterator(fs::path(SPRITZ_SOURCE_DIR) / "tests/fuzz/regressions/import"))
    files.push_back(e.path());
  const bool corpus = fs::exists(kCorpus / "cocos2d");
  if (corpus)
    for (const char* dir : {"cocos2d", "pex", "godot", "roblox"})
      for (const auto& e : fs::recursive_directory_iterator(kCorpus / dir))
        if (e.is_regular_file() && e.path().filename() != "SOURCES.md" &&
            detect_effect_format(read_text(e.path()), e.path().string()) != EffectFormat::kToml)
          files.push_back(e.path());
  int imported = 0;
  for (const fs::path& path : files) {
    INFO(path);
    std::optional<ImportResult> r;
    try {
      r = import_path(path);
    } catch (const Error& e) {
      CHECK(!std::string(e.what()).empty());  // refused, with its reason
      continue;
    }
    CHECK_NOTHROW(load_imported(*r, path));
    ++imported;
  }
  // The regressions found by fuzzing import now.
  for (const char* name : {"godot4_range_min_only.tscn", "pex_no_rate_zero_duration.pex",
                           "pex_colour_past_model_range.pex", "pex_alpha_past_model_range.pex"}) {
    INFO(name);
    const fs::path p = fs::path(SPRITZ_SOURCE_DIR) / "tests/fuzz/regressions/import" / name;
    const ImportResult r = import_path(p);
    const Effect fx = load_imported(r, p);
    if (std::string(name).rfind("godot4", 0) == 0) {
      // Godot's set_param_min raises the max to the min.
      CHECK(fx.emitters[0].speed_px_per_s.min == 10);
      CHECK(fx.emitters[0].speed_px_per_s.max == 10);
    }
  }
  CHECK(imported >=
        (corpus ? 116 : 8));  // 108 corpus files and 8 regressions (the other 4: refused)
  if (!corpus)
    SPRITZ_SKIP_DATA_UNLESS(false, "the corpus part needs the shared corpus at " +
                                       kCorpus.string() + " (or $SPRITZ_CORPUS)");
}
