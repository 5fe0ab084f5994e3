#include "commands/inspect.h"

#include <cmath>
#include <cstdio>

#include "frames.h"
#include "json.h"
#include "spritz/eval.h"
#include "spritz/raster/frame.h"

namespace spritz {

namespace {

// `v` right-aligned in `width` characters with `decimals` decimals, or fewer
// when that does not fit (1000.00), or in exponent form (x = 9e+08 px), so
// the table keeps its columns.
std::string column(double v, int width, int decimals) {
  char buf[64];
  int n = width + 1;
  for (int d = decimals; n > width && d >= 0; --d)
    n = std::snprintf(buf, sizeof buf, "%*.*f", width, d, v);
  for (int precision = width - 4; n > width && precision >= 1; --precision)
    n = std::snprintf(buf, sizeof buf, "%*.*g", width, precision, v);
  return buf;
}

// A sub-emitter's `sub.on`, as the effect file spells it.
const char* sub_event_name(SubEvent on) {
  switch (on) {
    case SubEvent::kDeath:
      return "death";
    case SubEvent::kBirth:
      return "birth";
    case SubEvent::kLife:
      return "life";
    case SubEvent::kCollision:
      return "collision";
    case SubEvent::kProgram:
      return "program";
  }
  return "?";
}

}  // namespace

namespace {

// A program particle's CUSTOM and USERDATA1..6 (model.md 11) as JSON
// members, each only when the program writes it.
std::string program_json(const Effect& fx, const Emitter& em, const Particle& p, double clock) {
  ProgramState st;
  if (!em.program || !program_state(fx, em, p, clock, st)) return "";
  static const char* kNames[7] = {"custom",    "userdata1", "userdata2", "userdata3",
                                  "userdata4", "userdata5", "userdata6"};
  std::string out;
  for (int i = 0; i < 7; ++i) {
    if (!em.program->owns(static_cast<ProgramVar>(static_cast<int>(ProgramVar::kCustom) + i)))
      continue;
    out += std::string(", \"") + kNames[i] + "\": [";
    for (int k = 0; k < 4; ++k) out += (k ? ", " : "") + json_number(st.values[4 * i + k]);
    out += "]";
  }
  return out;
}

// One particle as inspect --json shows it (docs/cli.md).
std::string particle_json(const Particle& p, const Emitter& em, const std::string& extra) {
  return "{\"key\": " + std::to_string(p.key) + ", \"age\": " + json_number(p.age_s) +
         ", \"life\": " + json_number(p.life_s) + ", \"x\": " + json_number(p.x) +
         ", \"y\": " + json_number(p.y) + ", \"vx\": " + json_number(p.vx) +
         ", \"vy\": " + json_number(p.vy) + ", \"w\": " + json_number(p.w) +
         ", \"h\": " + json_number(p.h) + ", \"rotation\": " + json_number(p.rotation_deg) +
         ", \"color\": [" + json_number(p.color_srgb.r) + ", " + json_number(p.color_srgb.g) +
         ", " + json_number(p.color_srgb.b) + "], \"alpha\": " + json_number(p.alpha) +
         ", \"brightness\": " + json_number(em.brightness) +
         ", \"light_emission\": " + json_number(p.emission >= 0 ? p.emission : em.light_emission) +
         ", \"cell\": " + std::to_string(p.cell) + ", \"impacts\": " + std::to_string(p.impacts) +
         extra + "}";
}

// The frame as inspect --json prints it.
std::string frame_json(const Effect& fx, const Frame& frame, const InspectArgs& args,
                       double clock) {
  std::string out = "{\"time\": " + json_number(args.time) + ", \"clock\": " + json_number(clock) +
                    ", \"emitters\": [";
  for (size_t e = 0; e < frame.emitters.size(); ++e) {
    const EmitterFrame& ef = frame.emitters[e];
    const Emitter& em = fx.emitters[ef.emitter];
    out += e ? ", " : "";
    out += "{\"name\": " + json_string(em.name);
    if (em.is_sub())
      out += ", \"parent\": " + json_string(fx.emitters[static_cast<size_t>(em.sub.parent)].name) +
             ", \"on\": \"" + sub_event_name(em.sub.on) + "\"";
    if (args.stats) {
      out += ", \"stats\": {\"window\": " + std::to_string(ef.stats.window) +
             ", \"visited\": " + std::to_string(ef.stats.visited) +
             ", \"alive\": " + std::to_string(ef.stats.alive) +
             (em.program ? ", \"dropped\": " + std::to_string(ef.stats.dropped) : "") + "}";
    }
    out += ", \"particles\": [";
    bool first = true;
    for (const Particle& p : ef.particles) {
      if (p.trail) continue;  // a trail ghost is the particle at an earlier clock
      out += first ? "" : ", ";
      first = false;
      out += particle_json(p, em, program_json(fx, em, p, frame.clock));
    }
    out += "]}";
  }
  return out + "]}\n";
}

// One emitter's particles as the table's rows.
void print_rows(const Effect& fx, const EmitterFrame& ef, const Emitter& em, double clock) {
  const bool hits = em.collision.enabled();
  const bool custom = em.program && em.program->owns(ProgramVar::kCustom);
  std::printf("%10s %7s %7s %9s %9s %8s %8s %8s %6s %5s  %s%s%s\n", "key", "age", "life", "x", "y",
              "w", "h", "rot", "alpha", "cell", "color", hits ? "  impacts" : "",
              custom ? "  custom" : "");
  for (const Particle& p : ef.particles) {
    if (p.trail) continue;
    std::printf("%10llu %s %s %s %s %s %s %s %6.3f %5d  #%02x%02x%02x",
                static_cast<unsigned long long>(p.key), column(p.age_s, 7, 3).c_str(),
                column(p.life_s, 7, 3).c_str(), column(p.x, 9, 2).c_str(),
                column(p.y, 9, 2).c_str(), column(p.w, 8, 2).c_str(), column(p.h, 8, 2).c_str(),
                column(p.rotation_deg, 8, 1).c_str(), p.alpha, p.cell,
                static_cast<unsigned>(std::lround(p.color_srgb.r * 255)),
                static_cast<unsigned>(std::lround(p.color_srgb.g * 255)),
                static_cast<unsigned>(std::lround(p.color_srgb.b * 255)));
    if (hits) std::printf("  %7u", p.impacts);
    ProgramState st;
    if (custom && program_state(fx, em, p, clock, st))
      std::printf("  %s %s %s %s", column(st.values[0], 8, 3).c_str(),
                  column(st.values[1], 8, 3).c_str(), column(st.values[2], 8, 3).c_str(),
                  column(st.values[3], 8, 3).c_str());
    std::printf("\n");
  }
}

// The frame as inspect's table.
void print_table(const Effect& fx, const Frame& frame, const InspectArgs& args, double clock) {
  std::printf("%s at time %g (clock %g)\n", fx.name.c_str(), args.time, clock);
  for (const EmitterFrame& ef : frame.emitters) {
    const Emitter& em = fx.emitters[ef.emitter];
    std::printf("\nemitter %s", em.name.c_str());
    if (em.is_sub())
      std::printf(" (children of %s, on %s)",
                  fx.emitters[static_cast<size_t>(em.sub.parent)].name.c_str(),
                  sub_event_name(em.sub.on));
    std::printf(": %llu alive", static_cast<unsigned long long>(ef.stats.alive));
    if (args.stats) {
      std::printf(" (window %llu, visited %llu", static_cast<unsigned long long>(ef.stats.window),
                  static_cast<unsigned long long>(ef.stats.visited));
      // model.md 11: particles a program left NaN or infinite are dropped.
      if (em.program)
        std::printf(", dropped by its program %llu",
                    static_cast<unsigned long long>(ef.stats.dropped));
      std::printf(")");
    }
    std::printf("\n");
    if (!ef.particles.empty()) print_rows(fx, ef, em, clock);
  }
}

}  // namespace

int run_inspect(const InspectArgs& args, const RunSettings& settings) {
  EffectFiles files(settings);
  const Effect fx = files.load(args.effect);
  print_warnings(fx.warnings);
  if (!std::isfinite(args.time) || std::abs(args.time) > kMaxTimeS)
    throw Error("--time must be finite, within ±1e9 s");
  const double clock = clock_at_time(fx, args.time);
  Frame frame;
  frame.particle_limit = particle_limit(1, kBytesPerParticle, settings.memory_budget);
  evaluate(fx, clock, frame);
  if (args.json) {
    const std::string out = frame_json(fx, frame, args, clock);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    print_table(fx, frame, args, clock);
  }
  return kExitOk;
}

}  // namespace spritz

namespace spritz {

Command add_inspect_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<InspectArgs>();
  InspectArgs& a = *args;
  CLI::App* in =
      app.add_subcommand("inspect", "Print the particle states at a time (table or JSON)");
  in->add_option("effect", a.effect.effect, "Effect file (TOML); '-' reads stdin")->required();
  in->add_option("--time", a.time, "Time in seconds")->required();
  in->add_flag("--json", a.json, "JSON output (the shape is documented in docs/cli.md)");
  in->add_flag("--stats", a.stats,
               "Add per-emitter counts: window, keys visited, alive (and for a program emitter, "
               "the particles its program left NaN or infinite, dropped)");
  add_effect_options(in, a.effect, run);
  in->footer(
      "Examples:\n  spritz inspect configs/campfire.toml --time 1.2\n"
      "  spritz inspect configs/campfire.toml --time 1.2 --json --stats | jq '.emitters[0].stats'");
  const SettingsUse use{/*kernel=*/false, /*memory=*/true, /*work=*/false, /*textures=*/true};
  return {in, use, [args](const RunSettings& settings) { return run_inspect(*args, settings); }};
}

}  // namespace spritz
