#include "spritz/load.h"

#include <catch2/catch.hpp>
#include <string>

using namespace spritz;

namespace {

// The joined diagnostics of loading `text`, or "" when it loads.
std::string problems(const std::string& text, std::vector<std::string> sets = {}) {
  try {
    LoadOptions o;
    o.overrides = std::move(sets);
    load_effect(text, "fx.toml", ".", o);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("defaults follow config.md", "[load]") {
  const Effect fx = load_effect("[[emitter]]\n", "fire.toml", ".");
  CHECK(fx.name == "fire");
  CHECK(fx.seed == 0);
  CHECK(fx.duration_s == 2);
  CHECK(fx.fps == 30);
  CHECK_FALSE(fx.loop);
  CHECK(fx.canvas.width == 256);
  CHECK(fx.canvas.background_srgb.a == 0);
  const Emitter& em = fx.emitters[0];
  CHECK(em.name == "emitter0");
  CHECK(em.rate_per_s == 10);
  CHECK(em.max_particles == 1000);
  CHECK(em.lifetime_s.max == 1);
  CHECK(em.speed_px_per_s.min == 50);
  CHECK(em.direction_deg == 90);
  CHECK(em.size_px.evaluate(0.5, 0) == 8);
  CHECK(em.texture.builtin());
  CHECK(em.texture.name == "soft");
  CHECK(em.texture.label() == "builtin:soft");
  CHECK(em.shape.kind == ShapeKind::kPoint);
}

TEST_CASE("canvas.motion_blur is off by default and on with defaults when present", "[load]") {
  CHECK(load_effect("[[emitter]]\n", "x.toml", ".").canvas.blur_samples == 1);
  const Effect on = load_effect("[canvas]\nmotion_blur = {}\n[[emitter]]\n", "x.toml", ".");
  CHECK(on.canvas.blur_samples == 8);
  CHECK(on.canvas.shutter == 0.5);
  const Effect set = load_effect(
      "[canvas]\nmotion_blur = { samples = 3, shutter = 1 }\n[[emitter]]\n", "x.toml", ".");
  CHECK(set.canvas.blur_samples == 3);
  CHECK(set.canvas.shutter == 1);
}

TEST_CASE("trail is off by default and on with defaults when present", "[load]") {
  CHECK(load_effect("[[emitter]]\n", "x.toml", ".").emitters[0].trail.count == 0);
  const Trail on = load_effect("[[emitter]]\ntrail = {}\n", "x.toml", ".").emitters[0].trail;
  CHECK(on.count == 8);
  CHECK(on.length_s == 0.1);
  CHECK(on.fade.evaluate(0, 0) == 1);
  CHECK(on.fade.evaluate(0.25, 0) == 0.75);
  CHECK(on.fade.evaluate(1, 0) == 0);
  CHECK(on.scale.evaluate(0.5, 0) == 1);
  const Trail set = load_effect(
                        "[[emitter]]\ntrail = { count = 3, length = 0.5, fade = 0.5, scale = [[0, "
                        "1], [1, 0]] }\n",
                        "x.toml", ".")
                        .emitters[0]
                        .trail;
  CHECK(set.count == 3);
  CHECK(set.length_s == 0.5);
  CHECK(set.fade.evaluate(0.7, 0) == 0.5);
  CHECK(set.scale.evaluate(0.5, 0) == 0.5);
}

TEST_CASE("every key of config.md's example loads", "[load]") {
  const std::string text = R"(
[effect]
name = "campfire"
seed = 1234
duration = 2.0
fps = 30
loop = false
start = 0.0
time_scale = 1.0
[canvas]
size = [256, 128]
background = "#00000000"
ambient = "#fff"
tonemap = "white"
alpha = "straight"
[[emitter]]
name = "flames"
enabled = true
position = [0, -60]
rate = 40.0
max_particles = 500
lifetime = [0.8, 1.4]
speed = [40, 90]
direction = "left"
spread = 20
acceleration = [0, 60]
drag = 0.8
rotation = [0, 360]
rotation_speed = [-90, 90]
orientation = "facing"
size = [[0, 10], [0.4, 22, 4], [1, 0]]
transparency = [[0, 1], [0.1, 0], [1, 1]]
squash = 0
color = [[0, "#fff2a0"], [0.5, "#ff8020"], [1, "#401008"]]
brightness = 1.0
light_emission = 1.0
light_influence = 0.0
z_offset = 0
draw_order = "oldest_first"
texture = "builtin:soft"
flipbook = { layout = [4, 4], mode = "loop", fps = [10, 14], random_start = true }
shape = { kind = "ellipse", size = [20, 5], style = "volume", in_out = "outward", inner = 0.0 }
bursts = [ { time = 0.0, count = 30 }, { time = 1.0, count = 10, repeat = 4, interval = 0.25 } ]
)";
  const Effect fx = load_effect(text, "x.toml", ".");
  const Emitter& em = fx.emitters[0];
  CHECK(fx.canvas.height == 128);
  CHECK(em.direction_deg == 180);
  CHECK(em.shape.a == 10);
  CHECK(em.shape.b == 2.5);
  CHECK(em.flipbook.cells() == 16);
  REQUIRE(em.bursts.size() == 2);
  CHECK(em.bursts[1].first_index == 1);
  CHECK(em.bursts[1].repeat == 4);
  CHECK(em.color.count == 3);
  CHECK(em.color.srgb[1].g == Approx(0x80 / 255.0));
}

// long: a table of bad inputs and the message each gives, one row a case.
TEST_CASE("bad input gives file:line:col messages", "[load]") {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"[[emitter]]\nrat = 5\n",
       "fx.toml:2:1: unknown key 'rat' in [[emitter]]; did you mean 'rate'?"},
      {"[[emitter]]\nrate = \"fast\"\n", "fx.toml:2:8: rate must be a number, got a string"},
      {"[[emitter]]\nrate = nan\n", "fx.toml:2:8: rate must be a finite number"},
      {"[[emitter]]\nrate = inf\n", "rate must be a finite number"},
      {"[[emitter]]\nrate = -1\n", "fx.toml:2:8: rate must be non-negative, got -1"},
      {"[[emitter]]\nlifetime = [2, 1]\n", "lifetime range must have min <= max"},
      {"[[emitter]]\nlifetime = -1\n", "lifetime must not be negative"},
      {"[[emitter]]\nmax_particles = 0\n", "max_particles must be within [1, 1e9], got 0"},
      {"[[emitter]]\nsize = [10, 0]\n",
       "size is a curve: give one number or keypoints [[time, value], ...]"},
      {"[[emitter]]\nsize = [[0, 1], [0.5, 2], [0.4, 3], [1, 0]]\n",
       "keypoint times must be strictly increasing"},
      {"[[emitter]]\nsize = [[0.1, 1], [1, 2]]\n", "size must start at time 0"},
      {"[[emitter]]\nsize = [[0, 1], [0.9, 2]]\n", "size must end at time 1"},
      {"[[emitter]]\nlight_emission = 1.5\n", "light_emission must be within [0, 1], got 1.5"},
      {"[[emitter]]\nlight_influence = -0.1\n", "light_influence must be within [0, 1]"},
      {"[[emitter]]\ncolor = \"#12345\"\n", "color must be a colour"},
      {"[[emitter]]\ncolor = \"#ff000080\"\n", "color must be opaque"},
      {"[[emitter]]\norientation = \"facin\"\n", "did you mean \"facing\"?"},
      {"[[emitter]]\nshape = { kind = \"ellipse\", size = [10, 0] }\n",
       "an ellipse needs both sizes > 0"},
      {"[[emitter]]\nshape = { kind = \"cube\" }\n",
       "shape.kind must be \"point\", \"box\", \"ellipse\" or \"points\""},
      {"[[emitter]]\nflipbook = { mode = \"loop\" }\n", "flipbook needs a layout"},
      {"[[emitter]]\nbursts = [{ time = 1 }]\n", "a burst needs a count"},
      {"[[emitter]]\nbursts = [{ count = 1, repeat = 3 }]\n", "needs an interval > 0"},
      {"[[emitter]]\ntexture = \"missing.png\"\n",
       "fx.toml:2:11: texture file not found: missing.png"},
      {"[[emitter]]\ntexture = \"/\"\n", "texture is not a regular file"},
      {"[[emitter]]\nname = \"a\"\n[[emitter]]\nname = \"a\"\n",
       "fx.toml:4:8: emitter name \"a\" is used twice"},
      {"[canvas]\nsize = [0, 100]\n[[emitter]]\n", "canvas width must be within [1, 16384], got 0"},
      {"[canvas]\nsize = [100000, 100000]\n[[emitter]]\n",
       "canvas width must be within [1, 16384]"},
      {"[effect]\nloop = true\nduration = 0\n[[emitter]]\n",
       "effect.loop needs a positive effect.duration"},
      {"[effect]\nfps = 0\n[[emitter]]\n", "effect.fps must be within"},
      {"[[emitter]]\npath = 3\n", "fx.toml:2:8: path must be keyframes [[t, x, y], ...]"},
      {"[[emitter]]\npath = [[0, 1]]\n", "fx.toml:2:9: a path keyframe is [t, x, y], got 2 values"},
      {"[[emitter]]\npath = [[0, 1, 2], 5]\n",
       "fx.toml:2:20: a path keyframe is [t, x, y], got an integer"},
      {"[[emitter]]\npath = [[0, 1, 2], [0, 3, 4]]\n",
       "fx.toml:2:21: path times must be strictly increasing, got 0 after 0"},
      {"[[emitter]]\npath = [[0, 1, nan]]\n", "path y must be a finite number"},
      {"[[emitter]]\npath = [[0, 1e10, 0]]\n", "path x must be within ±1e9 px, got 1e+10"},
      {"[[emitter]]\npath_interpolation = \"smoth\"\n", "did you mean \"smooth\"?"},
      {"[[emitter]]\nrate = []\n",
       "fx.toml:2:8: rate must be a number or keyframes [[t, rate], ...]"},
      {"[[emitter]]\nrate = [[0]]\n", "fx.toml:2:9: a rate keyframe is [t, rate], got 1 value"},
      {"[[emitter]]\nrate = [[0, -5]]\n", "rate must be within [0, 1e15] particles/s, got -5"},
      {"[[emitter]]\nrate = [[1, 5], [0.5, 5]]\n",
       "fx.toml:2:18: rate times must not decrease, got 0.5 after 1"},
      {"[[emitter]]\nrate = [[1, 5], [1, 0], [1, 3]]\n",
       "fx.toml:2:26: at most two rate keyframes share a time (a step), got a third at 1"},
      {"[[emitter]]\nrate = [[0, inf]]\n", "rate must be a finite number"},
      {"[[emitter]]\nfilter = \"linear\"\n",
       "filter must be \"trilinear\", \"bilinear\" or \"nearest\""},
      {"[[emitter]]\nspace = \"global\"\n", "space must be \"world\" or \"local\""},
      {"[[emitter]]\ninherit_velocity = 5000\n",
       "inherit_velocity must be within [-1e3, 1e3], got 5000"},
      {"[[emitter]]\ntrail = true\n",
       "fx.toml:2:9: trail must be a table { count = 8, length = 0.1 }, got a boolean"},
      {"[[emitter]]\ntrail = { count = 65 }\n", "trail.count must be within [0, 64], got 65"},
      {"[[emitter]]\ntrail = { length = -1 }\n",
       "trail.length must be within [0, 1e4] seconds, got -1"},
      {"[[emitter]]\ntrail = { fade = [[0, 1, 0.2], [1, 0]] }\n",
       "fx.toml:2:18: trail.fade takes no envelope"},
      {"[[emitter]]\ntrail = { scale = [[0, 1], [1, 2]] }\n",
       "trail.scale values must be within [0, 1], got 2"},
      {"[[emitter]]\ntrail = { fade = -0.5 }\n",
       "trail.fade values must be within [0, 1], got -0.5"},
      {"[[emitter]]\ntrail = { lenght = 1 }\n",
       "unknown key 'lenght' in trail; did you mean 'length'?"},
      {"[canvas]\nmotion_blur = 8\n[[emitter]]\n",
       "fx.toml:2:15: canvas.motion_blur must be a table { samples = 8, shutter = 0.5 }, got an "
       "integer"},
      {"[canvas]\nmotion_blur = { samples = 0 }\n[[emitter]]\n",
       "fx.toml:2:27: canvas.motion_blur.samples must be within [1, 256], got 0"},
      {"[canvas]\nmotion_blur = { samples = 2.5 }\n[[emitter]]\n",
       "canvas.motion_blur.samples must be a whole number"},
      {"[canvas]\nmotion_blur = { shutter = 1.5 }\n[[emitter]]\n",
       "canvas.motion_blur.shutter must be within [0, 1] frame intervals, got 1.5"},
      {"[canvas]\nmotion_blur = { sample = 4 }\n[[emitter]]\n",
       "unknown key 'sample' in canvas.motion_blur; did you mean 'samples'?"},
      {"[effect]\nseed = -1\n[[emitter]]\n", "effect.seed must be within [0, 4294967295]"},
      {"[effects]\n[[emitter]]\n",
       "fx.toml:1:2: unknown key 'effects' in the effect file; did you mean 'effect'?"},
      {"", "fx.toml: the effect file is empty: an effect needs at least one [[emitter]]"},
      {"[effect]\nseed = 1\n", "the effect has no [[emitter]] table"},
      {"emitter = 3\n", "emitter must be written as [[emitter]] tables"},
      {"[[emitter]]\nrate = \n", "fx.toml:2:8: invalid TOML"},
      {"[[emitter]\n", "fx.toml:1:"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const std::string got = problems(c.text);
    CHECK_THAT(got, Catch::Contains(c.expect));
  }
}

TEST_CASE("names that would break file names or --set are refused", "[load]") {
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {"[effect]\nname = \"../escape\"\n[[emitter]]\n",
       "fx.toml:2:8: effect.name \"../escape\" may not hold '/', '\\', '#' or '%'"},
      {"[effect]\nname = \"a\\\\b\"\n[[emitter]]\n", "effect.name \"a\\\\b\" may not hold"},
      {"[effect]\nname = \"fire_###\"\n[[emitter]]\n", "may not hold"},
      {"[effect]\nname = \"100%\"\n[[emitter]]\n", "may not hold"},
      {"[effect]\nname = \"..\"\n[[emitter]]\n", "effect.name \"..\" is a directory name"},
      {"[effect]\nname = \"\"\n[[emitter]]\n", "effect.name \"\" is empty; leave the key out"},
      {"[effect]\nname = \"x\\ny\"\n[[emitter]]\n",
       "effect.name \"x\\u000ay\" holds a control character"},
      {"[[emitter]]\nname = \"a.b\"\n", "fx.toml:2:8: emitter name \"a.b\" may not hold '.'"},
      {"[[emitter]]\nname = \"1\"\n[[emitter]]\n", "emitter name \"1\" is a number"},
      {"[[emitter]]\nname = \"\"\n", "emitter name \"\" is empty"},
      {"[[emitter]]\nname = \"\\t\"\n", "emitter name \"\\u0009\" holds a control character"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK_THAT(problems(c.text), Catch::Contains(c.expect));
  }
  // Names that are fine: spaces, dashes, dots (effects), letters beyond ASCII.
  CHECK(problems("[effect]\nname = \"fire v1.2 \u00f1\"\n[[emitter]]\nname = \"big-sparks 2\"\n") ==
        "");
  CHECK(problems("[[emitter]]\nname = \"x\"\n", {"emitter.0.name=\"a.b\""}) != "");
}

TEST_CASE("the default effect name is the file's stem, made a valid name", "[load]") {
  CHECK(load_effect("[[emitter]]\n", "fx/fire.toml", ".").name == "fire");
  CHECK(load_effect("[[emitter]]\n", "fx/fire#2 100%.toml", ".").name == "fire_2 100_");
  CHECK(load_effect("[[emitter]]\n", std::string(kStdinSourceName), ".").name == "stdin");
  CHECK(
      load_effect("[effect]\nname = \"effect\"\n[[emitter]]\n", std::string(kStdinSourceName), ".")
          .name == "effect");
}

TEST_CASE("check time labels name goldens by the millisecond", "[load]") {
  CHECK(check_time_label(0.5) == "0.500");
  CHECK(check_time_label(1.0 / 3) == "0.333");
  CHECK(check_time_label(-1.25) == "-1.250");
  CHECK(check_time_label(-0.0001) == "0.000");
  CHECK(check_time_label(-0.0) == "0.000");
  CHECK_THAT(
      problems("[check]\ntimes = [0, -0.0001]\n[[emitter]]\n"),
      Catch::Contains("fx.toml:2:13: check time -0.0001 and 0 would share the golden 0.000.png"));
  CHECK(problems("[check]\ntimes = [0.5, 0.501]\n[[emitter]]\n") == "");
}

TEST_CASE("a dotted key too deep for toml++ is refused before it parses", "[load]") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "a.";
  // 100,000 parts overflowed toml++'s stack (a crash, not a message).
  CHECK(problems("[[emitter]]\n" + deep + "b = 1\n") ==
        "fx.toml:2:1: a dotted key of more than 64 parts; effect keys nest a few tables deep "
        "(emitter.shape.kind)");
  CHECK_THAT(problems("[" + deep + "b]\n[[emitter]]\n"),
             Catch::Contains("fx.toml:1:2: a dotted key of more than 64"));
  CHECK_THAT(problems("[[emitter]]\nx = 1\n" + std::string(70 * 4, ' ') + deep.substr(0, 140) +
                      "\"q\" = 1\n"),
             Catch::Contains("fx.toml:3:281: a dotted key"));
  // Dots in strings, comments and numbers are not keys.
  const std::string dots = deep.substr(0, 400);
  const std::string name_dots = deep.substr(0, 140);  // 70 parts, in a name's 200 bytes
  CHECK(problems("# " + dots + "\n[effect]\nname = \"" + name_dots + "x\" # " + dots +
                 "\n[check]\ntimes = [0.5, 1.5, 2.5, 3.5]\n[[emitter]]\n") == "");
  // (Multi-line strings get as far as the name's rules, which refuse the newline.)
  CHECK_THAT(
      problems("[effect]\nname = \"\"\"x\n" + dots + "\"\"\"\"\n[[emitter]]\n"),
      Catch::Contains("fx.toml:2:8: effect.name") && Catch::Contains("holds a control character"));
  CHECK_THAT(
      problems("[effect]\nname = '''x\n" + dots + "'''\n[[emitter]]\n"),
      Catch::Contains("fx.toml:2:8: effect.name") && Catch::Contains("holds a control character"));
  CHECK(problems("[effect]\nname = \"x\\\" " + name_dots + "\"\n[[emitter]]\n") == "");
  // 64 parts get as far as the schema.
  CHECK_THAT(problems("[[emitter]]\n" + deep.substr(0, 126) + "b = 1\n"),
             Catch::Contains("unknown key 'a'"));
  CHECK_THAT(problems("[[emitter]]\n", {deep.substr(0, 130) + "b=1"}),
             Catch::Contains("more than 64 parts"));
}

TEST_CASE("21 keypoints are refused", "[load]") {
  std::string curve = "[";
  for (int k = 0; k < 21; ++k) curve += "[" + std::to_string(k / 20.0) + ", 1],";
  curve += "]";
  CHECK_THAT(problems("[[emitter]]\nsize = " + curve + "\n"),
             Catch::Contains("size must have 1 to 20 keypoints, got 21"));
}

TEST_CASE("every problem in a file is reported not just the first", "[load]") {
  const std::string got = problems("[[emitter]]\nrate = -1\nspread = 400\nbogus = 1\n");
  CHECK_THAT(got, Catch::Contains("fx.toml:2:8: rate"));
  CHECK_THAT(got, Catch::Contains("fx.toml:3:10: spread"));
  CHECK_THAT(got, Catch::Contains("fx.toml:4:1: unknown key 'bogus'"));
}

TEST_CASE("overrides go through the same validation", "[load]") {
  const std::string base = "[[emitter]]\nname = \"flames\"\nrate = 5\n";
  LoadOptions o;
  o.overrides = {"emitter.flames.rate=100", "canvas.tonemap=clamp", "emitter.0.shape.kind=box",
                 "effect.seed=9"};
  const Effect fx = load_effect(base, "fx.toml", ".", o);
  CHECK(fx.emitters[0].rate_per_s == 100);
  CHECK(fx.canvas.tonemap == Tonemap::kClamp);
  CHECK(fx.emitters[0].shape.kind == ShapeKind::kBox);
  CHECK(fx.seed == 9);
  CHECK_THAT(problems(base, {"emitter.0.rate=abc"}),
             Catch::Contains("--set emitter.0.rate=abc: rate must be a number, got a string"));
  CHECK_THAT(problems(base, {"emitter.0.rat=1"}), Catch::Contains("did you mean 'rate'?"));
  CHECK_THAT(problems(base, {"emitter.7.rate=1"}),
             Catch::Contains("no emitter has index or name '7'"));
  CHECK_THAT(problems(base, {"rate"}), Catch::Contains("--set expects key.path=value"));
  CHECK_THAT(problems(base, {"emitter..rate=1"}), Catch::Contains("empty part"));
  // A path through tables the file does not have: the message still points
  // at the --set that made them, not at the file.
  CHECK_THAT(problems(base, {"emitter.0.position.x=3"}),
             Catch::Contains("--set emitter.0.position.x=3: position must be a pair"));
  CHECK_THAT(problems(base, {"emitter.0.shape.size.w=3"}),
             Catch::Contains("--set emitter.0.shape.size.w=3: shape.size must be"));
}

TEST_CASE("the content hash covers the text and the overrides", "[load]") {
  const std::string base = "[[emitter]]\nrate = 5\n";
  LoadOptions o;
  o.overrides = {"emitter.0.rate=6"};
  const uint64_t a = load_effect(base, "a.toml", ".").content_hash;
  CHECK(a == load_effect(base, "b.toml", ".").content_hash);
  CHECK(a != load_effect(base, "a.toml", ".", o).content_hash);
  CHECK(a != load_effect(base + "\n", "a.toml", ".").content_hash);
}

TEST_CASE("a huge rate or burst is clamped by max_particles", "[load]") {
  const Effect fx = load_effect(
      "[[emitter]]\nrate = 1e12\nlifetime = 2\nmax_particles = 100\nbursts = [{ count = 1000000000 "
      "}]\n",
      "fx.toml", ".");
  CHECK(fx.emitters[0].stream_rate_per_s == 50);
  CHECK(fx.emitters[0].bursts[0].count == 100);
}

TEST_CASE("max_particles reaches a billion, as far as burst keys can number them", "[load]") {
  // The cap is the keys' arithmetic; what a frame can draw is the budget's.
  CHECK(load_effect("[[emitter]]\nrate = 2e7\nlifetime = 2\nmax_particles = 50000000\n", "fx.toml",
                    ".")
            .emitters[0]
            .max_particles == 50000000);
  CHECK_THAT(problems("[[emitter]]\nmax_particles = 2000000000\n"),
             Catch::Contains("max_particles must be within [1, 1e9]"));
  // 3e9 firings in all, room for 1e9 each: more than 2^61 burst keys.
  CHECK_THAT(problems("[[emitter]]\nmax_particles = 1000000000\nlifetime = 1\n"
                      "bursts = [{ count = 1, repeat = 1000000000, interval = 10 },\n"
                      "          { count = 1, repeat = 1000000000, interval = 10 },\n"
                      "          { count = 1, repeat = 1000000000, interval = 10 }]\n"),
             Catch::Contains("fx.toml:4:10: these bursts fire 3000000000 times in all"));
  CHECK(problems("[[emitter]]\nmax_particles = 1000000000\nlifetime = 1\n"
                 "bursts = [{ count = 1, repeat = 1000000, interval = 10 }]\n")
            .empty());
}

TEST_CASE("a repeating burst shares max_particles across overlapping firings", "[load]") {
  const Effect fx = load_effect(
      "[[emitter]]\nlifetime = 1\nmax_particles = 100\nbursts = [{ count = 80, repeat = 50, "
      "interval = 0.25 }]\n",
      "fx.toml", ".");
  CHECK(fx.emitters[0].bursts[0].count == 20);  // 5 firings overlap within a lifetime
  CHECK_THAT(problems("[[emitter]]\nlifetime = 10\nmax_particles = 100\n"
                      "bursts = [{ count = 1, repeat = 1000000000, interval = 1e-9 }]\n"),
             Catch::Contains("fx.toml:4:11: this burst fires 1e+09 times within one lifetime"));
}

TEST_CASE("closest_match suggests only plausible typos", "[load]") {
  CHECK(closest_match("sped", {"speed", "spread", "size"}) == "speed");
  CHECK(closest_match("xyzzy", {"speed", "spread"}).empty());
}

TEST_CASE("a UTF-16 or UTF-32 file, or a PNG, is named for what it is", "[load]") {
  const std::string toml = "[[emitter]]\nrate = 5\n";
  auto widen = [&](bool big_endian, const std::string& bom) {
    std::string out = bom;
    for (char c : toml) out += big_endian ? std::string{'\0', c} : std::string{c, '\0'};
    return out;
  };
  const std::string utf16 = "fx.toml:1:1: this is UTF-16 text; effect files are UTF-8";
  CHECK_THAT(problems(widen(false, "\xFF\xFE")), Catch::StartsWith(utf16));
  CHECK_THAT(problems(widen(true, "\xFE\xFF")), Catch::StartsWith(utf16));
  CHECK_THAT(problems(widen(false, "")), Catch::StartsWith(utf16));
  CHECK_THAT(problems(widen(true, "")), Catch::StartsWith(utf16));
  CHECK_THAT(problems(std::string("\xFF\xFE\0\0", 4) + widen(false, "")),
             Catch::StartsWith("fx.toml:1:1: this is UTF-32 text"));
  CHECK(problems("\x89PNG\r\n\x1A\n" + std::string(8, '\0')) ==
        "fx.toml:1:1: this is a PNG image, not an effect file (TOML)");
  // A UTF-8 byte-order mark is fine, and so are short files.
  CHECK(problems("\xEF\xBB\xBF" + toml) == "");
  CHECK(problems("[[emitter]]") == "");
}

TEST_CASE("an effect name fits in a file name", "[load]") {
  const std::string long_name(201, 'a');
  const std::string got = problems("[effect]\nname = \"" + long_name + "\"\n[[emitter]]\n");
  CHECK_THAT(got, Catch::StartsWith("fx.toml:2:8: effect.name \"" + std::string(40, 'a') +
                                    "\"... is longer than 200 bytes"));
  CHECK(got.size() < 200);  // the message quotes an excerpt, not the name
  CHECK(problems("[effect]\nname = \"" + std::string(200, 'a') + "\"\n[[emitter]]\n") == "");
  // A long file name gives a default name cut to 200 bytes, at a character.
  const std::string stem =
      std::string(199, 'b') + "\xC3\xB1" + std::string(40, 'c');  // ñ across byte 200
  const Effect fx = load_effect("[[emitter]]\n", "dir/" + stem + ".toml", ".");
  CHECK(fx.name == std::string(199, 'b'));
}

TEST_CASE("an emitter that can never show a particle loads with a warning at its key", "[load]") {
  auto warnings = [](const std::string& text) {
    std::string out;
    for (const Diagnostic& d : load_effect(text, "fx.toml", ".").warnings)
      out += d.to_string() + "\n";
    return out;
  };
  CHECK(warnings("[[emitter]]\nname = \"a\"\nrate = 0\n") ==
        "fx.toml:3:8: emitter 'a' never emits: its rate is 0 and it has no bursts\n");
  CHECK(warnings("[[emitter]]\nrate = 0\nbursts = [{ count = 5 }]\n").empty());
  CHECK_THAT(warnings("[[emitter]]\ntransparency = [[0, 1], [1, 1.5]]\n"),
             Catch::StartsWith(
                 "fx.toml:2:16: emitter 'emitter0' is invisible: its transparency is 1 or more"));
  // An envelope that can bring it below 1 shows some particles: no warning.
  CHECK(warnings("[[emitter]]\ntransparency = [[0, 1, 0.2], [1, 1]]\n").empty());
  CHECK(
      warnings("[[emitter]]\nsize = [[0, 0], [1, -3]]\n") ==
      "fx.toml:2:8: emitter 'emitter0' draws nothing: its size is 0 or less over the whole life\n");
  CHECK(warnings("[canvas]\nmotion_blur = { shutter = 0 }\n[[emitter]]\n") ==
        "fx.toml:2:27: canvas.motion_blur.shutter is 0: every frame is drawn 8 times at the same "
        "time, "
        "with no blur\n");
  CHECK(warnings("[canvas]\nmotion_blur = { shutter = 0, samples = 1 }\n[[emitter]]\n").empty());
  CHECK(warnings("[effect]\nloop = true\nduration = 2\n[[emitter]]\nname = \"t\"\npath = [[0, 0, "
                 "0], [1, 10, 0]]\n") ==
        "fx.toml:6:8: emitter 't' path is at (0, 0) at clock 0 but at (10, 0) when the period ends "
        "(2 s): "
        "the loop jumps there\n");
  CHECK(warnings("[effect]\nloop = true\nduration = 2\n[[emitter]]\npath = [[0, 0, 0], [1, 10, 0], "
                 "[2, 0, 0]]\n")
            .empty());
  CHECK(warnings("[[emitter]]\nname = \"a\"\nrate = [[0, 0], [2, 0]]\n") ==
        "fx.toml:3:8: emitter 'a' never emits: its rate is 0 and it has no bursts\n");
  CHECK(warnings("[[emitter]]\nrate = [[0, 0], [2, 5]]\n").empty());
  CHECK(warnings("[effect]\nloop = true\nduration = 2\n[[emitter]]\nname = \"r\"\nrate = [[0, 10], "
                 "[1, 30], "
                 "[3, 10]]\n") ==
        "fx.toml:6:8: emitter 'r' rate has keyframes after the period's end (2 s): a loop reads "
        "the rate "
        "over [0, 2) only, so they are never used\n"
        "fx.toml:6:8: emitter 'r' rate is 10/s at clock 0 but 20/s when the period ends (2 s): "
        "emission "
        "jumps at the loop's seam\n");
  CHECK(
      warnings(
          "[effect]\nloop = true\nduration = 2\n[[emitter]]\nrate = [[0, 10], [1, 30], [2, 10]]\n")
          .empty());
  // A step stated at the period's end back to the first rate is meant: no
  // warning (an explosive emitter's cycles); a step to another rate is not.
  CHECK(warnings("[effect]\nloop = true\nduration = 2\n[[emitter]]\nrate = [[0, 50], [0.5, 50], "
                 "[0.5, 0], [2, 0], [2, 50]]\n")
            .empty());
  CHECK(warnings("[effect]\nloop = true\nduration = 2\n[[emitter]]\nrate = [[0, 50], [0.5, 50], "
                 "[0.5, 0], [2, 0], [2, 40]]\n")
            .find("jumps at the loop's seam") != std::string::npos);
  CHECK(
      warnings("[[emitter]]\ntrail = { length = 0 }\n") ==
      "fx.toml:2:20: emitter 'emitter0' trail.length is 0: every ghost is drawn on its particle\n");
  CHECK(warnings("[[emitter]]\ntrail = { length = 0, style = \"ribbon\" }\n") ==
        "fx.toml:2:20: emitter 'emitter0' trail.length is 0: the ribbon has no length, so each "
        "particle is drawn as a disc\n");
  CHECK(
      warnings("[[emitter]]\ntrail = { fade = 0 }\n") ==
      "fx.toml:2:9: emitter 'emitter0' trail draws nothing: its fade is 0 along the whole trail\n");
  CHECK(warnings("[[emitter]]\ntrail = { count = 0, fade = 0 }\n").empty());
  CHECK(warnings("[[emitter]]\nenabled = false\nrate = 0\n") ==
        "fx.toml: every emitter is disabled (enabled = false): nothing is drawn\n");
  // A --set that makes it so is placed at the --set.
  LoadOptions o;
  o.overrides = {"emitter.0.rate=0"};
  const Effect fx = load_effect("[[emitter]]\n", "fx.toml", ".", o);
  REQUIRE(fx.warnings.size() == 1);
  CHECK(fx.warnings[0].loc.file == "--set emitter.0.rate=0");
}

// Found by the fuzzing issue: --set text toml++ mishandles or that says more
// than one thing is refused at the --set, never a bare library message or a
// silently dropped key.
TEST_CASE("a --set value that is not one valid TOML value is refused at the --set", "[load]") {
  const std::string fx = "[[emitter]]\nrate = 5\n";
  const auto refused = [&](const std::string& set) {
    LoadOptions o;
    o.overrides = {set};
    try {
      load_effect(fx, "fx.toml", ".", o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  CHECK(refused("emitter.0.rate=1\nseed = 77") ==
        "--set emitter.0.rate=1\\x0aseed = 77: the value holds more than one TOML value (a "
        "newline and another key?); give each key its own --set");
  CHECK(refused("\xff=") == "--set \\xff=: the text is not valid UTF-8");
  CHECK(refused("emitter.0.name=\x1b[2J\xc3") ==
        "--set emitter.0.name=\\x1b[2J\\xc3: the text is not valid UTF-8");
  CHECK(refused("emitter.0.rate=7") == "loaded");
  CHECK(refused("effect.name=\"caf\xc3\xa9\"") == "loaded");
}

TEST_CASE("valid_utf8 accepts UTF-8 and nothing else", "[error]") {
  CHECK(valid_utf8(""));
  CHECK(valid_utf8("plain"));
  CHECK(valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"));  // é € 🔥
  CHECK(valid_utf8("\xf4\x8f\xbf\xbf"));                           // U+10FFFF
  CHECK_FALSE(valid_utf8("\xff"));
  CHECK_FALSE(valid_utf8("\x80"));              // a lone continuation byte
  CHECK_FALSE(valid_utf8("\xc3"));              // cut short
  CHECK_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(valid_utf8("\xe0\x80\xaf"));      // overlong, three bytes
  CHECK_FALSE(valid_utf8("\xed\xa0\x80"));      // a surrogate, U+D800
  CHECK_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(valid_utf8("ok\xe2\x82"));        // cut short at the end
}

// Found by the fuzzing issue: an effect under the 64 MiB cap could hold
// millions of check times or bursts, and printed one message per bad value.
TEST_CASE("long lists are bounded at load and repeated messages are capped", "[load]") {
  const auto problems = [](const std::string& text) {
    try {
      load_effect(text, "big.toml", ".");
    } catch (const Error& e) {
      return e.diagnostics();
    }
    return std::vector<Diagnostic>{};
  };
  std::string bad;
  for (int i = 0; i < 300; ++i) bad += "[[emitter]]\nrate = -" + std::to_string(i + 1) + "\n";
  const std::vector<Diagnostic> d = problems(bad);
  REQUIRE(d.size() == 101);
  CHECK(d.front().to_string() == "big.toml:2:8: rate must be non-negative, got -1");
  CHECK(d.back().to_string() == "big.toml: and 200 more problems (the first 100 are shown)");

  std::string times = "[check]\ntimes = [";
  for (int i = 0; i <= 10000; ++i) times += std::to_string(i) + ", ";
  times += "]\n[[emitter]]\nrate = 1\n";
  const std::vector<Diagnostic> t = problems(times);
  REQUIRE(t.size() == 1);
  CHECK_THAT(t[0].message, Catch::StartsWith("check.times has 10001 times, more than 10000"));

  std::string bursts = "[[emitter]]\nrate = 1\nbursts = [";
  for (int i = 0; i <= 10000; ++i) bursts += "{ count = 1 }, ";
  bursts += "]\n";
  const std::vector<Diagnostic> b = problems(bursts);
  REQUIRE(b.size() == 1);
  CHECK_THAT(b[0].message, Catch::StartsWith("bursts has 10001 entries, more than 10000"));
}

// lifetime and flipbook.fps had no upper bound, and evaluation turned
// age * fps into a 64-bit integer: out of range, undefined behaviour (x86
// and ARM gave different cells). Both are bounded now.
TEST_CASE("lifetime and flipbook fps are bounded, so age times fps fits 64 bits", "[load]") {
  const auto first_problem = [](const std::string& text) {
    try {
      load_effect(text, "b.toml", ".");
    } catch (const Error& e) {
      return e.diagnostics().front().to_string();
    }
    return std::string("loaded");
  };
  CHECK(first_problem("[[emitter]]\nrate = 1\nlifetime = 1e300\n") ==
        "b.toml:3:12: lifetime must be at most 1e+09, got 1e+300");
  CHECK(first_problem("[[emitter]]\nrate = 1\nlifetime = [1, 2e9]\n") ==
        "b.toml:3:12: lifetime must be at most 1e+09, got 2e+09");
  CHECK(first_problem("[[emitter]]\nrate = 1\nflipbook = { layout = [2, 2], fps = 1e300 }\n") ==
        "b.toml:3:37: flipbook.fps must be at most 1e+06, got 1e+300");
  CHECK(first_problem("[[emitter]]\nrate = 1\nlifetime = 1e9\nflipbook = { layout = [2, 2], fps = "
                      "1e6 }\n") == "loaded");
}

// Found by the fuzzing issue (a libFuzzer target on toml++ 3.3 alone, with
// its assertions on): a letter such as U+039E where whitespace may be
// reaches __builtin_unreachable in its Unicode whitespace test; '[.' and
// 'a = [1, }' break assumptions its parser states with __builtin_assume in
// a release build (a Clang build of spritz would run on in undefined
// behaviour). spritz refuses each, located, before toml++ sees the text.
TEST_CASE("text toml++ mishandles is refused before it parses", "[load]") {
  const auto refuses = [](const std::string& text, const std::string& message) {
    CHECK_THROWS_WITH(load_effect(text, "fx.toml", "."), message);
  };
  refuses("\xcd\x9e",
          "fx.toml:1:1: the character U+035E is outside a string or comment (TOML "
          "allows it only in those)");
  refuses("[effect]\nname = \"a\"\n  \xc2\xa1 = 1\n",
          "fx.toml:3:3: the character U+00A1 is outside a string or comment (TOML allows it only "
          "in those)");
  refuses("[.",
          "fx.toml:1:2: a table header needs a name: a bare key (letters, digits, _ and -) "
          "or a quoted one");
  refuses("[[ }]]",
          "fx.toml:1:4: a table header needs a name: a bare key (letters, digits, _ "
          "and -) or a quoted one");
  refuses("[#",
          "fx.toml:1:2: a table header needs a name: a bare key (letters, digits, _ and -) "
          "or a quoted one");
  refuses("[\n",
          "fx.toml:1:2: a table header needs a name: a bare key (letters, digits, _ and "
          "-) or a quoted one");
  // A quote glued to a bare value is part of it: toml++ scans on.
  refuses("t=0\"\xcd\x9e",
          "fx.toml:1:5: the character U+035E is outside a string or comment "
          "(TOML allows it only in those)");
  refuses("A=+=\"\xef\xb3\xbf",
          "fx.toml:1:6: the character U+FCFF is outside a string or "
          "comment (TOML allows it only in those)");
  refuses("a = [1, }", "fx.toml:1:9: expected a value or ']' in this array, saw '}'");
  refuses("a = [\n  # c\n}", "fx.toml:3:1: expected a value or ']' in this array, saw '}'");
  refuses("[effect]\nname = \"\xe2\x82\"\n",
          "fx.toml:2:9: invalid UTF-8 (byte 0xE2); effect "
          "files are UTF-8 text");
  // The same characters where TOML allows them load as before: in strings
  // (one-line, multi-line, literal, quoted keys), comments and nested arrays.
  const Effect fx = load_effect(
      "# \xce\x9e comment\n[effect]\nname = \"\xce\x9e [. }\" # \xc2\xa1\n"
      "[[emitter]]\nrate = [\n  [0, 1], # \xce\x9e\n  [1, 2],\n]\n"
      "shape = { kind = \"box\", size = [1, 2] }\n",
      "fx.toml", ".");
  CHECK(fx.name == "\xce\x9e [. }");
  REQUIRE(fx.emitters.size() == 1);
  // Where toml++ tests characters inside strings for whitespace, the
  // characters its test breaks on are refused too (U+00A1..U+0499 and
  // U+FB36..U+FEFE); elsewhere in strings they are plain text.
  const std::string mishandled = ": toml++ 3.3, the TOML library spritz reads with, mishandles it";
  CHECK_THAT(problems("[[emitter]]\n'\xce\x9e' = 1\n"),
             Catch::StartsWith("fx.toml:2:2: the character U+039E in a quoted key" + mishandled));
  CHECK_THAT(problems("[\"\xce\x9e\"]\n"),
             Catch::StartsWith("fx.toml:1:3: the character U+039E in a quoted key"));
  CHECK_THAT(problems("[effect]\nname = \"\"\"a\\\n  \xef\xaf\xbf\"\"\"\n"),
             Catch::StartsWith("fx.toml:3:3: the character U+FBFF at the start of a continued "
                               "line" +
                               mishandled));
  CHECK_THAT(problems("[effect]\nname = \"\"\"\\\xce\x9e\"\"\"\n"),
             Catch::StartsWith("fx.toml:2:12: the character U+039E after a backslash"));
  CHECK(load_effect("[effect]\nname = \"\xd0\x9f\xd1\x80\xd0\xb8\"\n[[emitter]]\n", "fx.toml", ".")
            .name == "\xd0\x9f\xd1\x80\xd0\xb8");
  // A multi-line string gets as far as the name's own rules.
  CHECK_THAT(problems("[[emitter]]\nname = '''\n[.\n}'''\n"), Catch::Contains("fx.toml:2:8"));
  // --set values are checked the same way.
  LoadOptions o;
  o.overrides = {"effect.name=[."};
  CHECK(load_effect("[[emitter]]\n", "fx.toml", ".", o).name == "[.");
}
