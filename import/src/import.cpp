// Particle Designer / cocos2d / Starling into the model (docs/import.md,
// following docs/formats/cocos2d.md's equations: cocos2d-x 3.x where engines
// differ).
#include "spritz/import/import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "common.h"
#include "config.h"
#include "godot_text.h"
#include "spritz/elementary.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"
#include "spritz/write.h"
#include "texture.h"

namespace spritz {

namespace fs = std::filesystem;
using import_detail::Config;

namespace {

// The reference frame rate: births and the burst rule follow a 60 fps game.
constexpr double kReferenceFps = 60;
constexpr double kMaxImportParticles = 1e7;

// GL blend factors the files hold.
constexpr int kOne = 1, kSrcAlpha = 770, kOneMinusSrcAlpha = 771, kDstAlpha = 772;

Range spread_range(double value, double variance) {
  const double v = std::abs(variance);
  return {value - v, value + v};
}

}  // namespace

namespace import_detail {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string effect_name_from(const std::string& source_name) {
  if (source_name == kStdinSourceName || source_name == "-") return "stdin";  // as TOML's
  std::string stem = fs::path(source_name).stem().string();
  for (char& ch : stem)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')) ch = '_';
  if (stem.size() > 64) stem.resize(64);
  return stem.empty() ? "imported" : stem;
}

std::string emitter_name(const std::string& raw, const Effect& fx) {
  std::string nm;
  for (char c : raw)
    nm += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  if (nm.size() > 48) nm.resize(48);
  if (std::all_of(nm.begin(), nm.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    nm = "emitter" + nm;
  const auto taken = [&](const std::string& n) {
    return std::any_of(fx.emitters.begin(), fx.emitters.end(),
                       [&](const Emitter& e) { return e.name == n; });
  };
  std::string unique = nm;
  for (int k = 2; taken(unique); ++k) unique = nm + "_" + std::to_string(k);
  return unique;
}

}  // namespace import_detail

namespace {

using import_detail::effect_name_from;
using import_detail::fmt;

class Mapper {
 public:
  Mapper(const Config& c, const ImportOptions& o, ImportResult& r) : c_(c), o_(o), r_(r) {}

  void map();
  // How the texture must change for the blend: its colour multiplied by its
  // alpha (GL's SRC_ALPHA factor on an already premultiplied texel).
  bool premultiply_texture = false;

 private:
  const Config& c_;
  const ImportOptions& o_;
  ImportResult& r_;
  bool y_down_ = false;

  double num(const char* key, double fallback = 0) const { return c_.number(key, fallback); }
  void note(const char* key, std::string message) {
    r_.notes.push_back({c_.loc(key), std::move(message)});
  }
  void warn(const char* key, std::string message) {
    r_.warnings.push_back({c_.loc(key), std::move(message)});
  }
  void map_emission(Emitter& em, Effect& fx);
  void map_gravity(Emitter& em);
  void map_radius(Emitter& em);
  void map_appearance(Emitter& em);
  void map_blend(Emitter& em);
};

void Mapper::map() {
  Effect& fx = r_.fx;
  fx.name = effect_name_from(c_.source_name);
  fx.fps = kReferenceFps;
  fx.canvas.tonemap = Tonemap::kClamp;  // the engines clamp; spritz's default rolls off
  fx.canvas.blend = BlendSpace::kSrgb;  // and they blend the stored sRGB values
  y_down_ = o_.y_down.value_or(c_.format == EffectFormat::kPex);
  Emitter em;
  em.name = "emitter";
  map_emission(em, fx);
  const double type = num("emitterType", 0);
  if (type != 0 && type != 1)
    throw Error(c_.loc("emitterType"),
                "emitterType must be 0 (gravity) or 1 (radius), got " + fmt(type));
  if (type == 1)
    map_radius(em);
  else
    map_gravity(em);
  map_appearance(em);
  map_blend(em);
  if (o_.position_x) em.position.x = *o_.position_x;
  if (o_.position_y) em.position.y = *o_.position_y;
  if (c_.has("sourcePositionx") && !o_.position_x)
    note("sourcePositionx",
         "sourcePosition (where the emitter sat on the editor's stage) is not "
         "used: the emitter is placed on the canvas (--position sets it)");
  if (c_.has("rotationIsDir") && num("rotationIsDir") != 0)
    note("rotationIsDir",
         "rotationIsDir is dropped: spritz has no spin set from the launch "
         "direction (orientation = \"velocity_parallel\" follows the velocity)");
  if (c_.has("emissionRate"))
    note("emissionRate",
         "emissionRate is ignored, as cocos2d-x does: the rate is maxParticles / "
         "particleLifespan");
  fx.emitters.push_back(em);
}

// Rate, lifetime, max_particles and duration (docs/formats/cocos2d.md 4.1, 4.2).
void Mapper::map_emission(Emitter& em, Effect& fx) {
  const double P = std::floor(num("maxParticles", 0));
  if (P < 0 || P > kMaxImportParticles)
    throw Error(c_.loc("maxParticles"), "maxParticles must be within [0, 1e7]");
  const double L = num("particleLifespan", 0);
  const double V = std::abs(num("particleLifespanVariance", 0));
  const double life_max = L + V;
  const double life_min = std::max(0.0, L - V);
  if (life_max > 1e6)
    throw Error(c_.loc("particleLifespan"), "particleLifespan (+ variance) must be at most 1e6 s");
  double rate = 0, spawn = 0, q = 1;
  if (P == 0) {
    warn("maxParticles", "maxParticles is 0: the effect emits nothing (cocos2d's rate is 0)");
  } else if (life_max <= 0) {
    warn("particleLifespan",
         "particleLifespan and its variance are 0: no particle lives to be "
         "drawn");
  } else {
    // Visible particles: those of life > 0, a fraction q of the spawns when
    // the variance exceeds the lifespan; the pool caps the live count at P.
    q = V > L ? (L + V) / (2 * V) : 1.0;
    const double mean_life = (life_min + life_max) / 2;
    spawn = L > 0 ? P / L : std::numeric_limits<double>::infinity();
    rate = std::min(spawn * q, P / mean_life);
    if (V > L)
      note("particleLifespanVariance",
           "particleLifespanVariance exceeds particleLifespan: lifetimes below 0 are dropped "
           "(never drawn), so the lifetime is [0, L + V] and the rate the visible share");
  }
  em.lifetime_s = {life_min, std::max(life_max, 1e-6)};
  em.max_particles = static_cast<uint32_t>(
      std::clamp(std::ceil(rate * em.lifetime_s.max) + 1, std::max(1.0, P), kMaxImportParticles));
  // A duration beyond 1e8 s is forever in practice, and keeps the effect's
  // own duration (d + lifetime) within the model's 1e9 s.
  const double d_raw = num("duration", -1);
  const double d = d_raw > 1e8 ? -1 : d_raw;
  const double dt = 1 / kReferenceFps;
  if (d < 0) {
    // Forever: spritz's steady state, looped.
    fx.loop = true;
    fx.duration_s = std::max(1.0, std::ceil(life_max * 2) / 2);
    em.rate_per_s = rate;
    return;
  }
  fx.loop = false;
  fx.duration_s = std::max(1.0 / kReferenceFps, d + em.lifetime_s.max);
  const double frames = std::floor(d / dt) + 1;  // the frames that emit
  if (rate > 0 && (d < 2 * dt || rate * dt >= P)) {
    // A burst: every particle the reference emits is born in its first frame(s).
    // The reference spawns floor(r t) in its first frames (at most the
    // pool), of which the share q lives to be drawn.
    const double spawned = std::min(P, std::floor(std::min(spawn, 1e12) * frames * dt));
    const double count = std::round(q * spawned);
    if (count >= 1) {
      BurstGroup b;
      b.count = static_cast<uint32_t>(count);
      em.bursts.push_back(b);
    } else {
      warn("duration", "a duration of " + fmt(d) + " s at this rate emits no particle");
    }
    em.rate_per_s = 0;
    note("duration", "a duration of " + fmt(d) + " s is a burst at time 0 of the " + fmt(count) +
                         " particles a 60 fps game emits then");
    return;
  }
  em.rate_per_s = rate;
  if (rate <= 0) return;  // nothing to stop: the warning above says why
  em.rate_curve.key_t = {0, d, d};
  em.rate_curve.key_r = {rate, rate, 0};
}

void Mapper::map_gravity(Emitter& em) {
  double angle = num("angle", 0), gx = num("gravityx", 0), gy = num("gravityy", 0);
  double ar = num("radialAcceleration", 0), at = num("tangentialAcceleration", 0);
  const double arv = num("radialAccelVariance", 0), atv = num("tangentialAccelVariance", 0);
  if (y_down_) angle = -angle, gy = -gy, at = -at;
  if (c_.format == EffectFormat::kCocos2d && num("yCoordFlipped", 1) == -1) {
    // cocos2d-x negates the whole displacement: the same motion with every
    // force and the launch turned half a circle.
    angle += 180, gx = -gx, gy = -gy, ar = -ar, at = -at;
    note("yCoordFlipped",
         "yCoordFlipped = -1: the launch and every force are turned half a "
         "circle, as cocos2d-x negates the displacement");
  }
  const double av = std::abs(num("angleVariance", 0));
  em.direction_deg = angle;
  em.spread_deg = std::min(180.0, av);
  if (av > 180 && av < 360)
    note("angleVariance",
         "an angleVariance between 180 and 360 covers part of the circle twice; "
         "spritz spreads evenly over the whole circle");
  em.speed_px_per_s = spread_range(num("speed", 0), num("speedVariance", 0));
  em.acceleration = {gx, gy};
  em.forces.radial = spread_range(ar, arv);
  em.forces.tangential = spread_range(at, atv);
  em.forces.step_s = o_.step_s;
  if (em.forces.enabled() && em.lifetime_s.max / o_.step_s > 1e6)
    throw Error(c_.loc("particleLifespan"),
                "a lifespan of " + fmt(em.lifetime_s.max) + " s needs more than 1e6 steps of " +
                    fmt(o_.step_s) +
                    " s to integrate its radial and tangential acceleration; "
                    "import with a longer --step");
  const double vx = std::abs(num("sourcePositionVariancex", 0));
  const double vy = std::abs(num("sourcePositionVariancey", 0));
  if (vx > 0 || vy > 0) {
    em.shape.kind = ShapeKind::kBox;
    em.shape.a = vx;
    em.shape.b = vy;
  }
  if (em.forces.enabled())
    note(c_.has("radialAcceleration") ? "radialAcceleration" : "tangentialAcceleration",
         "radial/tangential acceleration is integrated per particle from its birth with "
         "cocos2d's own step (semi-implicit Euler, " +
             fmt(o_.step_s) + " s); it costs O(age / step) per particle");
  else if (gx != 0 || gy != 0)
    note("gravityx",
         "gravity is the exact parabola; a 60 fps game's Euler steps drift from it "
         "by |g| t / 120 px after t s");
}

void Mapper::map_radius(Emitter& em) {
  const bool pd2 = c_.has("configName");
  // Particle Designer 2 files: cocos2d-x reads these three as integers.
  const auto whole = [&](const char* key, double fallback) {
    const double v = num(key, fallback);
    return pd2 ? std::trunc(v) : v;
  };
  const double r0 = whole("maxRadius", 0), r1 = whole("minRadius", 0);
  double w = whole("rotatePerSecond", 0);
  const double r0v = num("maxRadiusVariance", 0);
  const double r1v = c_.format == EffectFormat::kCocos2d ? num("minRadiusVariance", 0) : 0;
  // cocos2d puts a particle at -R (cos a, sin a): half a turn from its angle.
  double dir = num("angle", 0) + 180;
  const bool flip =
      y_down_ || (c_.format == EffectFormat::kCocos2d && num("yCoordFlipped", 1) == -1);
  if (flip) dir = -dir, w = -w;
  em.direction_deg = dir;
  em.spread_deg = std::min(180.0, std::abs(num("angleVariance", 0)));
  em.speed_px_per_s = {0, 0};
  em.orbit.enabled = true;
  em.orbit.radius = spread_range(r0, r0v);
  if (r1 != -1) {
    em.orbit.has_radius_end = true;
    em.orbit.radius_end = spread_range(r1, r1v);
  }
  em.orbit.angular_speed_deg_per_s = spread_range(w, num("rotatePerSecondVariance", 0));
  if (pd2)
    note("configName",
         "a Particle Designer 2 file: maxRadius, minRadius and "
         "rotatePerSecond are truncated to integers, as cocos2d-x reads them");
  if (c_.has("gravityx") && (num("gravityx", 0) != 0 || num("gravityy", 0) != 0))
    note("gravityx", "radius mode ignores gravity, speed and the spawn box, as cocos2d does");
}

// Size, colour, alpha and spin: each a start and an end value with its own
// rolls, clamped at birth (docs/formats/cocos2d.md 3.2, 3.5).
void Mapper::map_appearance(Emitter& em) {
  const double S = num("startParticleSize", 0), SV = num("startParticleSizeVariance", 0);
  const double E = num("finishParticleSize", -1), EV = num("finishParticleSizeVariance", 0);
  if (E == -1) {
    // "The same as the start": one roll for the whole life.
    Curve c;
    c.count = 2;
    c.t[0] = 0, c.t[1] = 1;
    c.value[0] = c.value[1] = S;
    c.envelope[0] = c.envelope[1] = std::abs(SV);
    em.size_px = c;
  } else {
    em.size_ramp.enabled = true;
    em.size_ramp.start = spread_range(S, SV);
    em.size_ramp.end = spread_range(E, EV);
  }
  // A channel's range. cocos2d clamps each rolled channel to [0, 1] at
  // birth, and so does spritz; the range itself is held to the model's
  // bounds for a colour (kMaxColorComponent), with a warning where a file
  // goes past them (a value of 1100 is 1 at birth either way).
  const auto channel = [&](const std::string& which, const char* ch, double fallback) {
    const std::string key = which + "Color" + ch;
    Range r =
        spread_range(num(key.c_str(), fallback), num((which + "ColorVariance" + ch).c_str(), 0));
    if (r.min < -kMaxColorComponent || r.max > kMaxColorComponent) {
      warn(key.c_str(), key + " (with its variance) reaches " + fmt(r.min) + ".." + fmt(r.max) +
                            ", outside ±" + fmt(kMaxColorComponent) +
                            ": held to that range (colours are clamped to [0, 1] at birth)");
      r.min = std::clamp(r.min, -kMaxColorComponent, kMaxColorComponent);
      r.max = std::clamp(r.max, -kMaxColorComponent, kMaxColorComponent);
    }
    return r;
  };
  ColorRamp& cr = em.color_ramp;
  cr.enabled = true;
  const Range sr = channel("start", "Red", 1), sg = channel("start", "Green", 1),
              sb = channel("start", "Blue", 1), er = channel("finish", "Red", 1),
              eg = channel("finish", "Green", 1), eb = channel("finish", "Blue", 1);
  cr.start_min = {sr.min, sg.min, sb.min};
  cr.start_max = {sr.max, sg.max, sb.max};
  cr.end_min = {er.min, eg.min, eb.min};
  cr.end_max = {er.max, eg.max, eb.max};
  const Range sa = channel("start", "Alpha", 1), ea = channel("finish", "Alpha", 1);
  em.transparency_ramp.enabled = true;
  em.transparency_ramp.start = {1 - sa.max, 1 - sa.min};
  em.transparency_ramp.end = {1 - ea.max, 1 - ea.min};
  const Range rs = spread_range(num("rotationStart", 0), num("rotationStartVariance", 0));
  const Range re = spread_range(num("rotationEnd", 0), num("rotationEndVariance", 0));
  // cocos2d and Starling spin clockwise on screen; spritz counter-clockwise.
  em.rotation_deg = {-rs.max, -rs.min};
  if (re.min != rs.min || re.max != rs.max || rs.min != rs.max) {
    em.has_rotation_end = true;
    em.rotation_end_deg = {-re.max, -re.min};
  }
  if (c_.format == EffectFormat::kPex)
    note("startParticleSize",
         "Starling floors sizes at 0.1 and does not clamp colours at "
         "birth; spritz follows cocos2d (sizes at 0, colours to [0, 1])");
}

// The GL blend pair (docs/formats/cocos2d.md 3.6) as light emission, and what the
// texture must carry for it to come out the same.
void Mapper::map_blend(Emitter& em) {
  const int src = static_cast<int>(num("blendFuncSource", kOne));
  const int dst = static_cast<int>(num("blendFuncDestination", kOneMinusSrcAlpha));
  const std::string pair =
      "blendFuncSource " + std::to_string(src) + ", blendFuncDestination " + std::to_string(dst);
  if (src == kSrcAlpha && dst == kOne) {
    em.light_emission = 1;
    premultiply_texture = true;
  } else if (src == kOne && dst == kOne) {
    em.light_emission = 1;
    em.transparency_ramp.start = em.transparency_ramp.end = {0, 0};
    note("blendFuncSource", pair +
                                " (ONE, ONE) ignores the particle's alpha: it fades by "
                                "colour only, so spritz's transparency is held at 0");
  } else if (src == kOne && dst == kOneMinusSrcAlpha) {
    em.light_emission = 0;
  } else if (src == kSrcAlpha && dst == kOneMinusSrcAlpha) {
    em.light_emission = 0;
    premultiply_texture = true;
  } else if (src == kSrcAlpha && dst == kDstAlpha) {
    em.light_emission = 1;
    premultiply_texture = true;
    note("blendFuncSource", pair +
                                " (SRC_ALPHA, DST_ALPHA) is additive over an opaque "
                                "background, which spritz assumes");
  } else if (src == kDstAlpha && dst == kOneMinusSrcAlpha) {
    em.light_emission = 0;
    note("blendFuncSource", pair +
                                " (DST_ALPHA, ONE_MINUS_SRC_ALPHA): over an opaque background "
                                "the colour is not faded by the particle's alpha; spritz's "
                                "alpha-over fades it");
  } else if (dst == kOne) {
    em.light_emission = 1;
    warn("blendFuncSource", pair + " has no spritz equivalent: drawn additively");
  } else {
    em.light_emission = 0;
    warn("blendFuncSource", pair + " has no spritz equivalent: drawn alpha-over");
  }
}

// The texture (docs/formats/cocos2d.md 1, 4.8): the named file beside the effect,
// else the embedded data, else spritz's soft built-in with a warning.
void import_texture(const Config& c, const std::string& base_dir, const ReadFile& read_file,
                    bool premultiply, ImportResult& r) {
  using import_detail::decode_image;
  Emitter& em = r.fx.emitters.front();
  std::optional<import_detail::Rgba8Image> img;
  const import_detail::ConfigValue* name = c.get("textureFileName");
  std::string tried, origin;
  bool from_file = false;
  if (name && !name->text.empty()) {
    const fs::path named(name->text);
    std::vector<fs::path> candidates;
    if (named.is_relative()) {
      candidates.push_back(fs::path(base_dir) / named);
      if (named.has_parent_path()) candidates.push_back(fs::path(base_dir) / named.filename());
    } else {
      candidates.push_back(named);
      candidates.push_back(fs::path(base_dir) / named.filename());
    }
    for (const fs::path& p : candidates) {
      const std::string path = p.lexically_normal().string();
      tried += (tried.empty() ? "" : ", ") + printable(path);
      if (auto bytes = read_file(path)) {
        img = decode_image(*bytes, "texture " + printable(path), name->loc);
        origin = path;
        from_file = true;
        break;
      }
    }
  }
  const import_detail::ConfigValue* data = c.get("textureImageData");
  if (!img && data && !data->text.empty()) {
    const std::vector<uint8_t> packed = import_detail::decode_base64(data->text, data->loc);
    const std::vector<uint8_t> raw = import_detail::inflate_texture(packed, data->loc);
    img = decode_image(raw, "the embedded texture (textureImageData)", data->loc);
    origin = "textureImageData";
    if (!tried.empty())
      r.notes.push_back({name->loc, "texture file not found (" + tried +
                                        "): the embedded textureImageData is used"});
  }
  if (!img) {
    em.texture = TextureRef::parse("builtin:soft");
    r.warnings.push_back(
        {name ? name->loc : c.root,
         "no texture: " +
             (tried.empty() ? std::string("the file names none") : "not found (" + tried + ")") +
             " and it embeds no textureImageData; spritz's builtin:soft is drawn instead"});
    return;
  }
  if (premultiply) {
    // GL's SRC_ALPHA on a texel cocos2d premultiplied on load counts its
    // alpha twice: the same light comes from a texture whose colour
    // carries its alpha once already.
    for (size_t i = 0; i < img->rgba.size(); i += 4)
      for (size_t k = 0; k < 3; ++k)
        img->rgba[i + k] = static_cast<uint8_t>((img->rgba[i + k] * img->rgba[i + 3] + 127) / 255);
  }
  ImportResult::Texture tex;
  tex.png = encode_png(img->rgba.data(), img->width, img->height);
  tex.name = r.fx.name + "-texture.png";
  tex.origin = origin;
  tex.from_file = from_file;
  em.texture.kind = TextureRef::Kind::kFile;
  em.texture.path = tex.name;
  r.textures.push_back(std::move(tex));
}

}  // namespace

namespace import_detail {

// The header comment: where the effect came from and every note.
std::string header(const std::string& source_name, const std::string& what, const ImportResult& r) {
  // Every line printable: file names and values quoted from the source may
  // hold any bytes, and the TOML must stay valid UTF-8.
  std::string h = "Imported by spritz import from " +
                  printable(fs::path(source_name).filename().string()) + " (" + what +
                  "); docs/import.md explains the mapping.";
  // The texture's file name only: the header must not depend on the folder
  // the import was run from (rendering the source and the TOML give the
  // same bytes, metadata included).
  const bool one = r.textures.size() == 1 && r.fx.emitters.size() == 1;
  for (const ImportResult::Texture& t : r.textures)
    h += (one ? "\nTexture: " : "\nTexture " + printable(t.name) + ": ") +
         printable(fs::path(t.origin).filename().string()) + ".";
  std::vector<Diagnostic> all = r.warnings;
  all.insert(all.end(), r.notes.begin(), r.notes.end());
  sort_by_location(all);
  for (Diagnostic d : all) {
    d.loc.file = fs::path(d.loc.file).filename().string();
    h += "\n" + printable(d.to_string());
  }
  return h;
}

namespace {

// Where the particles of `fx` go over its run (its period, or its whole
// span), thinned to at most about 2e4 evaluations (force steps counted) per
// sample: a thinned stream goes to the same places. One emitter: everywhere
// its particles go. Several (a scene): where 99% of them are, each
// particle's extent counted, so a few that fly off for ever (a scene's
// particles meant to hit colliders) do not shrink the rest to dots.
Bounds particle_bounds(const Effect& source, const std::vector<ImportResult::Texture>& textures) {
  Effect probe = source;
  double cost = 0;
  for (Emitter& pe : probe.emitters) {
    pe.texture = TextureRef::parse("builtin:soft");
    double alive = pe.rate_per_s * pe.lifetime_s.max;
    for (const BurstGroup& b : pe.bursts) alive += b.count;
    // A process() program steps too, each step weighing its instructions
    // (frame_work's measure, eval.h).
    const bool program_steps = pe.program && pe.program->program->has(Stage::kProcess);
    const double steps =
        integrated_motion(pe) || program_steps ? pe.lifetime_s.max / pe.forces.step_s : 1;
    const double weight =
        program_steps ? 1 + double(pe.program->program->instructions(Stage::kProcess)) / 64 : 1;
    cost += alive * std::max(1.0, steps) * weight;
  }
  // A Godot shader often lays its particles out by INDEX (NUMBER mod
  // amount): thinning its births would leave most of the layout unseen, so
  // there fewer clocks are sampled first (down to 4), with four times the
  // work in all, then births thinned.
  int samples = 48;
  double budget = 2e4;  // a sample's work
  const bool by_index = std::any_of(probe.emitters.begin(), probe.emitters.end(),
                                    [](const Emitter& e) { return e.program && e.program->godot; });
  if (by_index && cost > budget) {
    samples = static_cast<int>(std::clamp(std::floor(48 * 4 * budget / cost), 4.0, 48.0));
    budget *= 4 * 48.0 / samples;
  }
  if (cost > budget) {
    const double f = budget / cost;
    for (Emitter& pe : probe.emitters) {
      pe.rate_per_s *= f;
      for (double& k : pe.rate_curve.key_r) k *= f;
      pe.max_particles = static_cast<uint32_t>(std::max(1.0, std::ceil(pe.max_particles * f)));
      for (BurstGroup& b : pe.bursts)
        b.count = static_cast<uint32_t>(std::max(1.0, std::floor(b.count * f)));
    }
  }
  LoadOptions lo;
  for (const ImportResult::Texture& t : textures) {
    const std::string path = fs::path(t.name).lexically_normal().string();
    lo.provided_textures.push_back(path);
    lo.provided_images[path] = t.png;
  }
  lo.decode_image = decode_program_image;
  Effect fx = load_effect(write_effect(probe), source.name + " (imported)", ".", lo);
  Bounds b;
  Frame frame;
  std::vector<double> xs0, xs1, ys0, ys1;
  for (int i = 0; i < samples; ++i) {
    evaluate(fx, clock_at_time(fx, fx.duration_s * i / samples), frame);
    extend_bounds(frame, b);
    for (const EmitterFrame& ef : frame.emitters)
      for (const Particle& p : ef.particles) {
        if (p.alpha <= 0 || p.w <= 0) continue;
        const double e = 0.5 * math::hypot(p.w, p.h);
        xs0.push_back(p.x - e), xs1.push_back(p.x + e), ys0.push_back(p.y - e),
            ys1.push_back(p.y + e);
      }
  }
  if (source.emitters.size() > 1 && xs0.size() >= 200) {
    const auto q = [](std::vector<double>& v, double f) {
      const size_t k = std::min(v.size() - 1, static_cast<size_t>(f * double(v.size())));
      std::nth_element(v.begin(), v.begin() + k, v.end());
      return v[k];
    };
    b.x0 = q(xs0, 0.005), b.x1 = q(xs1, 0.995), b.y0 = q(ys0, 0.005), b.y1 = q(ys1, 0.995);
  }
  return b;
}

}  // namespace

// Frames the particles: the canvas that holds where they go, and the
// emitters' place that centres them (all moved together), unless the
// options fix either.
void fit_canvas(ImportResult& r, const ImportOptions& o) {
  Bounds b = particle_bounds(r.fx, r.textures);
  const bool fixed_size = o.canvas_width > 0 && o.canvas_height > 0;
  if (b.empty) {
    r.fx.canvas.width = fixed_size ? o.canvas_width : 256;
    r.fx.canvas.height = fixed_size ? o.canvas_height : 256;
    return;
  }
  const double margin = 4;
  // With one emitter --position places it; with several, the whole group
  // moves so the given point is where the first emitter was.
  Vec2 shift{o.position_x ? 0 : -0.5 * (b.x0 + b.x1), o.position_y ? 0 : -0.5 * (b.y0 + b.y1)};
  // Where the particles reach past the largest canvas, several emitters
  // keep their own middle in view instead (their particles' start).
  if (r.fx.emitters.size() > 1 && !fixed_size) {
    double ex0 = 1e300, ex1 = -1e300, ey0 = 1e300, ey1 = -1e300;
    for (const Emitter& em : r.fx.emitters) {
      ex0 = std::min(ex0, em.position.x), ex1 = std::max(ex1, em.position.x);
      ey0 = std::min(ey0, em.position.y), ey1 = std::max(ey1, em.position.y);
    }
    if (b.x1 - b.x0 > kMaxFittedSide - 2 * margin && !o.position_x) {
      shift.x = -0.5 * (ex0 + ex1);
      b.x0 = std::max(b.x0, -shift.x - kMaxFittedSide / 2.0),
      b.x1 = std::min(b.x1, -shift.x + kMaxFittedSide / 2.0);
    }
    if (b.y1 - b.y0 > kMaxFittedSide - 2 * margin && !o.position_y) {
      shift.y = -0.5 * (ey0 + ey1);
      b.y0 = std::max(b.y0, -shift.y - kMaxFittedSide / 2.0),
      b.y1 = std::min(b.y1, -shift.y + kMaxFittedSide / 2.0);
    }
  }
  const Vec2 first = r.fx.emitters.front().position;
  if (o.position_x) shift.x = *o.position_x - first.x;
  if (o.position_y) shift.y = *o.position_y - first.y;
  for (Emitter& em : r.fx.emitters) em.position = em.position + shift;
  if (fixed_size) {
    r.fx.canvas.width = o.canvas_width;
    r.fx.canvas.height = o.canvas_height;
    return;
  }
  const auto side = [&](double lo, double hi, double s) {
    const double half = std::max(hi + s, -(lo + s)) + margin;
    return static_cast<int>(std::clamp(2 * std::ceil(half), 16.0, double(kMaxFittedSide)));
  };
  r.fx.canvas.width = side(b.x0, b.x1, shift.x);
  r.fx.canvas.height = side(b.y0, b.y1, shift.y);
  if (r.fx.canvas.width == kMaxFittedSide || r.fx.canvas.height == kMaxFittedSide)
    r.notes.push_back({SourceLoc{r.fx.name, 0, 0},
                       "the particles reach farther than a " + std::to_string(kMaxFittedSide) +
                           " px canvas; it is capped there (--size sets another)"});
}

ImportResult finish(ImportResult r, const std::string& source_name, const std::string& what) {
  sort_by_location(r.warnings);
  sort_by_location(r.notes);
  WriteOptions wo;
  wo.header = header(source_name, what, r);
  r.toml = write_effect(r.fx, wo);
  return r;
}

}  // namespace import_detail

std::optional<EffectFormat> parse_effect_format(std::string_view name) {
  if (name == "toml") return EffectFormat::kToml;
  if (name == "cocos2d" || name == "plist") return EffectFormat::kCocos2d;
  if (name == "pex") return EffectFormat::kPex;
  if (name == "godot") return EffectFormat::kGodot;
  if (name == "roblox") return EffectFormat::kRoblox;
  return std::nullopt;
}

const char* effect_format_name(EffectFormat format) {
  switch (format) {
    case EffectFormat::kToml:
      return "toml";
    case EffectFormat::kCocos2d:
      return "cocos2d";
    case EffectFormat::kPex:
      return "pex";
    case EffectFormat::kGodot:
      return "godot";
    case EffectFormat::kRoblox:
      return "roblox";
  }
  return "toml";
}

EffectFormat detect_effect_format(std::string_view text, const std::string& source_name) {
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
    ++i;
  if (import_detail::godot::looks_like_godot(text) || import_detail::looks_like_godot_shader(text))
    return EffectFormat::kGodot;
  if (i < text.size() && text[i] == '{') return EffectFormat::kRoblox;  // a Rojo model
  if (text.substr(i, 8) == "<roblox!")
    throw Error(import_detail::loc_at(text, i, source_name),
                "a binary Roblox file (.rbxm/.rbxl): spritz reads the XML forms; save it from "
                "Studio as .rbxmx or .rbxlx");
  if (i >= text.size() || text[i] != '<') return EffectFormat::kToml;
  // The root element: the first tag that is not a declaration, comment or DOCTYPE.
  size_t p = i;
  while ((p = text.find('<', p)) != std::string_view::npos) {
    const std::string_view rest = text.substr(p + 1);
    if (!rest.empty() && (rest[0] == '?' || rest[0] == '!')) {
      ++p;
      continue;
    }
    if (rest.substr(0, 5) == "plist") return EffectFormat::kCocos2d;
    if (rest.substr(0, 21) == "particleEmitterConfig") return EffectFormat::kPex;
    if (rest.substr(0, 6) == "roblox") return EffectFormat::kRoblox;
    break;
  }
  const size_t at = p == std::string_view::npos ? i : p;
  throw Error(import_detail::loc_at(text, at, source_name),
              "an XML file whose root element is not <plist> (Particle Designer / cocos2d), "
              "<particleEmitterConfig> (Starling .pex) or <roblox> (Roblox .rbxmx/.rbxlx): "
              "spritz cannot read it");
}

ImportResult import_effect(std::string_view text, const std::string& source_name,
                           const std::string& base_dir, EffectFormat format,
                           const ImportOptions& options, const ReadFile& read_file) {
  if (format == EffectFormat::kToml)
    throw Error("import takes a .plist, .pex, Godot or Roblox effect, not TOML");
  if (!(options.step_s >= 1e-4 && options.step_s <= 1))
    throw Error("the integration step must be within [1e-4, 1] s");
  if (format == EffectFormat::kGodot && import_detail::looks_like_godot_shader(text))
    return import_detail::import_godot_shader(text, source_name, options);
  if (format == EffectFormat::kGodot)
    return import_detail::import_godot(text, source_name, base_dir, options, read_file);
  if (format == EffectFormat::kRoblox)
    return import_detail::import_roblox(text, source_name, base_dir, options, read_file);
  const Config c = import_detail::parse_config(text, source_name, format);
  ImportResult r;
  r.format = format;
  Mapper m(c, options, r);
  m.map();
  import_texture(c, base_dir, read_file, m.premultiply_texture, r);
  import_detail::fit_canvas(r, options);
  return import_detail::finish(
      std::move(r), source_name,
      format == EffectFormat::kPex ? "Starling .pex" : "Particle Designer / cocos2d .plist");
}

}  // namespace spritz
