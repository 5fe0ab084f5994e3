// spritz import and the direct loading of .plist and .pex by every command,
// end to end through the binary (docs/import.md): the same bytes either way,
// bad input refused with exit 2 and nothing written, and the shared corpus.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/run.h"
#include "import/import_support.h"
#include "skip.h"
#include "spritz/raster/png.h"

using namespace spritz::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(SPRITZ_SOURCE_DIR) / "tests/data/import";
const fs::path kCorpus = spritz_corpus_dir(SPRITZ_SOURCE_DIR);

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

// Pixels with any light or coverage.
size_t lit_pixels(const fs::path& png) {
  const spritz::DecodedPng d = spritz::decode_png(read_bytes(png), png.string());
  size_t n = 0;
  for (size_t i = 0; i < d.rgba.size(); i += 4)
    n += (d.rgba[i] | d.rgba[i + 1] | d.rgba[i + 2] | d.rgba[i + 3]) != 0;
  return n;
}

bool only(const fs::path& dir, const std::vector<std::string>& names) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++n;
    if (std::find(names.begin(), names.end(), e.path().filename().string()) == names.end())
      return false;
  }
  return n == names.size();
}

}  // namespace

TEST_CASE("import writes TOML and texture, and rendering either gives the same bytes", "[cli]") {
  const fs::path d = fresh_dir("import_same");
  for (const char* name : {"spark.plist", "tiff_burst.plist", "ring.pex"}) {
    INFO(name);
    const fs::path src = kData / name;
    const std::string stem = fs::path(name).stem().string();
    const Run im = run_spritz("import " + q(src) + " -o fx/" + stem + ".toml", d);
    REQUIRE(im.code == 0);
    CHECK(im.err.find("imported") != std::string::npos);
    CHECK(fs::exists(d / "fx" / (stem + "-texture.png")));
    size_t lit = 0;
    for (const char* t : {"0.1", "0.45", "1.7"}) {
      REQUIRE(run_spritz("render " + q(src) + " --time " + t + " -q -o direct.png", d).code == 0);
      REQUIRE(run_spritz("render fx/" + stem + ".toml --time " + t + " -q -o toml.png", d).code ==
              0);
      CHECK(read_bytes(d / "direct.png") == read_bytes(d / "toml.png"));
      lit += lit_pixels(d / "toml.png");
    }
    CHECK(lit > 100);
    // A sheet, too, and inspect and validate read the file as it is.
    REQUIRE(run_spritz("atlas " + q(src) + " --grid 2x2 --cell 48x48 -q -o a.png", d).code == 0);
    REQUIRE(run_spritz("atlas fx/" + stem + ".toml --grid 2x2 --cell 48x48 -q -o b.png", d).code ==
            0);
    CHECK(read_bytes(d / "a.png") == read_bytes(d / "b.png"));
    CHECK(run_spritz("validate " + q(src), d).code == 0);
    CHECK(run_spritz("inspect " + q(src) + " --time 0.5 --json", d).out.find("\"emitters\"") !=
          std::string::npos);
  }
}

TEST_CASE("import: --json, stdout, --from and the options", "[cli]") {
  const fs::path d = fresh_dir("import_json");
  const Run j = run_spritz("import " + q(kData / "spark.plist") + " -o s.toml --json", d);
  REQUIRE(j.code == 0);
  CHECK(j.out.rfind("{\"event\":\"import\",", 0) == 0);
  CHECK(j.out.find("\"texture_origin\":\"textureImageData\"") != std::string::npos);
  CHECK(j.out.find("\"notes\":[{\"file\":") != std::string::npos);
  const Run out = run_spritz("import " + q(kData / "ring.pex") + " -o - --size 320x240", d);
  REQUIRE(out.code == 0);
  CHECK(out.out.find("size = [320, 240]") != std::string::npos);
  CHECK(fs::exists(d / "ring-texture.png"));  // beside the working directory's TOML
  // The format by --from, whatever the name; and forced wrong, TOML's own error.
  fs::copy_file(kData / "ring.pex", d / "ring.xml");
  fs::copy_file(kData / "ring_dot.png", d / "ring_dot.png");
  CHECK(run_spritz("render ring.xml --from pex --time 1 -q -o r.png", d).code == 0);
  const Run wrong = run_spritz("validate ring.xml --from toml", d);
  CHECK(wrong.code == 2);
  CHECK(wrong.err.find("ring.xml:1:") != std::string::npos);
  const Run toml =
      run_spritz("import " + q(fs::path(SPRITZ_SOURCE_DIR) / "configs/sparks.toml"), d);
  CHECK(toml.code == 2);
  CHECK(toml.err.find("is a spritz TOML effect already") != std::string::npos);
  CHECK(run_spritz("import ring.xml --y-up --step 0.01 --position 10 -20 -o up.toml", d).code == 0);
  CHECK(run_spritz("import ring.xml --step 5", d).code == 2);
}

TEST_CASE("import: bad input exits 2 at its place and writes nothing", "[cli]") {
  const fs::path d = fresh_dir("import_bad");
  write(d / "bad.plist",
        "<plist><dict>\n<key>maxParticles</key><real>1e400</real>\n"
        "<key>particleLifespan</key><real>1</real></dict></plist>");
  const Run r = run_spritz("import bad.plist -o out.toml", d);
  CHECK(r.code == 2);
  CHECK(r.err.find("bad.plist:2:") != std::string::npos);
  write(d / "broken.pex", "<particleEmitterConfig><maxParticles value=\"5\"/>");
  const Run b = run_spritz("render broken.pex --time 1 -o f.png", d);
  CHECK(b.code == 2);
  CHECK(b.err.find("broken.pex:1:") != std::string::npos);
  CHECK(b.err.find("malformed XML") != std::string::npos);
  CHECK(only(d, {"bad.plist", "broken.pex"}));
  // An import never replaces its own input: a texture named as the output's.
  fs::copy_file(kData / "ring.pex", d / "ring.pex");
  fs::copy_file(kData / "ring_dot.png", d / "ring-texture.png");
  std::string pex = read_text(d / "ring.pex");
  write(d / "ring.pex", pex.replace(pex.find("ring_dot.png"), 12, "ring-texture.png"));
  const Run self = run_spritz("import ring.pex -o ring.toml", d);
  CHECK(self.code == 2);
  CHECK(self.err.find("it is an input of this run") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "ring.toml"));
}

TEST_CASE("every effect of the shared corpus imports, validates and renders", "[cli][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(fs::exists(kCorpus / "cocos2d") && fs::exists(kCorpus / "pex"),
                          "needs the shared corpus of .plist and .pex files at " +
                              kCorpus.string() + " (or $SPRITZ_CORPUS)");
  const fs::path d = fresh_dir("import_corpus");
  int files = 0, empty = 0;
  for (const char* dir : {"cocos2d", "pex"})
    for (const auto& e : fs::recursive_directory_iterator(kCorpus / dir)) {
      const std::string ext = e.path().extension().string();
      if (ext != ".plist" && ext != ".pex") continue;
      INFO(e.path());
      ++files;
      const std::string stem = e.path().stem().string();
      REQUIRE(run_spritz("import " + q(e.path()) + " -o " + stem + ".toml", d).code == 0);
      const Run v = run_spritz("validate " + q(e.path()), d);
      CHECK(v.code == 0);
      // A frame early in the effect (bursts are short), then its imported twin.
      const std::string opts = " --time 0.1 --size 128x128 -q -o ";
      REQUIRE(run_spritz("render " + q(e.path()) + opts + "a.png", d).code == 0);
      REQUIRE(run_spritz("render " + stem + ".toml" + opts + "b.png", d).code == 0);
      CHECK(read_bytes(d / "a.png") == read_bytes(d / "b.png"));
      if (lit_pixels(d / "a.png") == 0) {
        // The one file with maxParticles 0 emits nothing in cocos2d either,
        // and says so.
        ++empty;
        CHECK(v.err.find("maxParticles is 0") != std::string::npos);
      }
    }
  CHECK(files >= 49);
  CHECK(empty <= 1);
}

TEST_CASE("Godot and Roblox files: import and direct rendering give the same bytes", "[cli]") {
  const fs::path d = fresh_dir("import_engines");
  const std::string map = " --texture-map " + q(kData / "roblox/assets.toml");
  const struct {
    fs::path src;
    std::string opts;
    std::vector<std::string> textures;
  } cases[] = {
      {kData / "godot/project/fx/embers.tscn", "", {"embers-Embers.png"}},
      {kData / "godot/project/fx/torch3.tscn", "", {}},
      {kData / "roblox/campfire.rbxmx", map, {"campfire-1234567.png"}},
      {kData / "roblox/sparks.model.json", "", {}},
  };
  for (const auto& c : cases) {
    INFO(c.src);
    const std::string stem = c.src.stem().stem().string();
    const Run im = run_spritz("import " + q(c.src) + c.opts + " -o fx/" + stem + ".toml", d);
    REQUIRE(im.code == 0);
    for (const std::string& t : c.textures) CHECK(fs::exists(d / "fx" / t));
    size_t lit = 0;
    for (const char* t : {"0.3", "1.1"}) {
      REQUIRE(run_spritz("render " + q(c.src) + c.opts + " --time " + t + " -q -o direct.png", d)
                  .code == 0);
      REQUIRE(run_spritz("render fx/" + stem + ".toml --time " + t + " -q -o toml.png", d).code ==
              0);
      CHECK(read_bytes(d / "direct.png") == read_bytes(d / "toml.png"));
      lit += lit_pixels(d / "toml.png");
    }
    CHECK(lit > 50);
    const Run v = run_spritz("validate " + q(c.src) + c.opts, d);
    CHECK(v.code == 0);
  }
  // --json lists every texture and the emitters.
  const Run j =
      run_spritz("import " + q(kData / "godot/project/fx/embers.tscn") + " -o j.toml --json", d);
  REQUIRE(j.code == 0);
  CHECK(j.out.find("\"format\":\"godot\"") != std::string::npos);
  CHECK(j.out.find("\"emitters\":3") != std::string::npos);
  CHECK(j.out.find("\"textures\":[{\"path\":") != std::string::npos);
  // --from forces a format; a Roblox option on the import command.
  const Run side = run_spritz("import " + q(kData / "roblox/sparks.model.json") +
                                  " --from roblox --view side --px-per-stud 8 -o s.toml",
                              d);
  CHECK(side.code == 0);
  CHECK(read_text(d / "s.toml").find("fitted so the farthest") ==
        std::string::npos);  // the scale was given
  CHECK(
      run_spritz("import " + q(kData / "roblox/sparks.model.json") + " --view diagonal", d).code ==
      2);
}

TEST_CASE("bad Godot and Roblox files exit 2 at their place and write nothing", "[cli]") {
  const fs::path d = fresh_dir("import_engines_bad");
  write(d / "bad.tscn", "[gd_scene format=3]\n[node name=\"A\" type=\"Node2D\"]\n");
  const Run a = run_spritz("import bad.tscn -o out.toml", d);
  CHECK(a.code == 2);
  CHECK(a.err.find("bad.tscn:1:1: no particle emitter could be imported") != std::string::npos);
  write(d / "bad.rbxmx", "<roblox version=\"4\"><Item class=\"ParticleEmitter\">");
  const Run b = run_spritz("render bad.rbxmx --time 1 -o f.png", d);
  CHECK(b.code == 2);
  CHECK(b.err.find("bad.rbxmx:1:") != std::string::npos);
  write(d / "bad.model.json", "{\"className\": \"ParticleEmitter\", \"properties\": {\"Rate\": [}");
  const Run c = run_spritz("import bad.model.json -o out.toml", d);
  CHECK(c.code == 2);
  CHECK(c.err.find("malformed JSON") != std::string::npos);
  const Run m = run_spritz("render bad.model.json --texture-map nowhere.toml --time 1 -o f.png", d);
  CHECK(m.code == 2);
  CHECK(only(d, {"bad.tscn", "bad.rbxmx", "bad.model.json"}));
}

TEST_CASE("every Godot and Roblox corpus file validates and renders as its import does",
          "[cli][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(fs::exists(kCorpus / "godot") && fs::exists(kCorpus / "roblox"),
                          "needs the shared corpus of Godot and Roblox files at " +
                              kCorpus.string() + " (or $SPRITZ_CORPUS)");
  const fs::path d = fresh_dir("import_corpus_engines");
  int files = 0;
  for (const fs::path& path : corpus_files(kCorpus, {"godot", "roblox"})) {
    INFO(path);
    ++files;
    const std::string stem = "fx" + std::to_string(files);
    REQUIRE(run_spritz("import " + q(path) + " -o " + stem + ".toml", d).code == 0);
    CHECK(run_spritz("validate " + q(path), d).code == 0);
    const std::string opts = " --time 0.2 --size 96x96 -q -o ";
    REQUIRE(run_spritz("render " + q(path) + opts + "a.png", d).code == 0);
    REQUIRE(run_spritz("render " + stem + ".toml" + opts + "b.png", d).code == 0);
    CHECK(read_bytes(d / "a.png") == read_bytes(d / "b.png"));
  }
  CHECK(files >= 59);
}

// A Godot particle shader through the binary (docs/import.md, "Godot
// particle shaders"): rendered directly and through its import, the same
// bytes; a bad one exits 2 at its line in the shader and writes nothing.
TEST_CASE("a Godot particle shader: render, import, and a bad one refused", "[cli][godot]") {
  const fs::path d = fresh_dir("import_gdshader");
  write(d / "sparks.gdshader",
        "shader_type particles;\n"
        "uniform float speed = 90.0;\n"
        "void start() {\n"
        "  float a = float(NUMBER % 64u) / 64.0 * TAU;\n"
        "  VELOCITY = vec3(cos(a), sin(a), 0.0) * speed;\n"
        "}\n"
        "void process() {\n"
        "  VELOCITY.y += 98.0 * DELTA;\n"
        "  COLOR.a = 1.0 - CUSTOM.y;\n"
        "  CUSTOM.y += DELTA / LIFETIME;\n"
        "}\n");
  REQUIRE(run_spritz("render sparks.gdshader --time 0.5 -q -o direct.png", d).code == 0);
  const Run im = run_spritz("import sparks.gdshader -o fx/sparks.toml", d);
  REQUIRE(im.code == 0);
  REQUIRE(run_spritz("render fx/sparks.toml --time 0.5 -q -o toml.png", d).code == 0);
  CHECK(read_bytes(d / "direct.png") == read_bytes(d / "toml.png"));
  CHECK(lit_pixels(d / "direct.png") > 500);
  CHECK(run_spritz("validate sparks.gdshader", d).code == 0);
  // The uniform as a material would set it.
  REQUIRE(run_spritz("render sparks.gdshader --set emitter.0.uniforms.speed=0 --time 0.5 -q -o "
                     "still.png",
                     d)
              .code == 0);
  CHECK(lit_pixels(d / "still.png") < lit_pixels(d / "direct.png"));
  const fs::path b = fresh_dir("import_gdshader_bad");
  write(b / "bad.gdshader", "shader_type particles;\nvoid start() {\n  VELOCITY = 2;\n}\n");
  const Run bad = run_spritz("import bad.gdshader -o out.toml", b);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("bad.gdshader:3:") != std::string::npos);
  const Run bad_render = run_spritz("render bad.gdshader --time 1 -o f.png", b);
  CHECK(bad_render.code == 2);
  write(b / "item.gdshader", "shader_type canvas_item;\nvoid fragment() {}\n");
  const Run item = run_spritz("render item.gdshader --time 1 -o f.png", b);
  CHECK(item.code == 2);
  CHECK(item.err.find("item.gdshader:1:13: a Godot canvas_item shader") != std::string::npos);
  CHECK(only(b, {"bad.gdshader", "item.gdshader"}));
}

// A Godot 4 scene whose shader emits children on its node's sub_emitter,
// with a NoiseTexture parameter: rendered directly and through the
// imported TOML, the same bytes; inspect names the sub-emitter's event.
TEST_CASE("a Godot scene with a sub_emitter and a noise texture: render, import, inspect",
          "[cli][godot]") {
  const fs::path d = fresh_dir("import_godot_emit");
  write(d / "rockets.tscn",
        "[gd_scene load_steps=5 format=3]\n\n"
        "[sub_resource type=\"FastNoiseLite\" id=\"F\"]\nseed = 3\n\n"
        "[sub_resource type=\"NoiseTexture2D\" id=\"T\"]\nwidth = 32\nheight = 32\n"
        "noise = SubResource(\"F\")\n\n"
        "[sub_resource type=\"Shader\" id=\"S\"]\n"
        "code = \"shader_type particles;\nuniform sampler2D wobble;\nvoid start() {\n"
        "  float w = texture(wobble, vec2(float(INDEX) / 8.0, 0.5)).r;\n"
        "  VELOCITY = vec3((w - 0.5) * 120.0, -150.0, 0.0);\n}\n"
        "void process() {\n  CUSTOM.x += 1.0;\n  if (mod(CUSTOM.x, 2.0) == 0.0)\n"
        "    emit_subparticle(TRANSFORM, vec3(0.0), vec4(1.0, 0.6, 0.2, 1.0), vec4(0.0), "
        "FLAG_EMIT_POSITION | FLAG_EMIT_COLOR);\n}\n\"\n\n"
        "[sub_resource type=\"ShaderMaterial\" id=\"M\"]\nshader = SubResource(\"S\")\n"
        "shader_parameter/wobble = SubResource(\"T\")\n\n"
        "[sub_resource type=\"Shader\" id=\"C\"]\n"
        "code = \"shader_type particles;\nvoid process() { CUSTOM.y += DELTA; COLOR.a = 1.0 - "
        "CUSTOM.y / LIFETIME; }\n\"\n\n"
        "[sub_resource type=\"ShaderMaterial\" id=\"N\"]\nshader = SubResource(\"C\")\n\n"
        "[node name=\"Root\" type=\"Node2D\"]\n\n"
        "[node name=\"Rockets\" type=\"GPUParticles2D\" parent=\".\"]\n"
        "amount = 8\nlifetime = 1.5\nprocess_material = SubResource(\"M\")\n"
        "sub_emitter = NodePath(\"../Trail\")\n\n"
        "[node name=\"Trail\" type=\"GPUParticles2D\" parent=\".\"]\n"
        "amount = 400\nlifetime = 0.5\nprocess_material = SubResource(\"N\")\n");
  REQUIRE(run_spritz("render rockets.tscn --time 1 --scale 2 -q -o direct.png", d).code == 0);
  REQUIRE(run_spritz("import rockets.tscn -o fx/rockets.toml", d).code == 0);
  CHECK(fs::exists(d / "fx" / "rockets-Rockets-wobble.png"));
  REQUIRE(run_spritz("render fx/rockets.toml --time 1 --scale 2 -q -o toml.png", d).code == 0);
  CHECK(read_bytes(d / "direct.png") == read_bytes(d / "toml.png"));
  CHECK(lit_pixels(d / "direct.png") > 100);
  const Run in = run_spritz("inspect fx/rockets.toml --time 1", d);
  REQUIRE(in.code == 0);
  CHECK(in.out.find("emitter Trail (children of Rockets, on program)") != std::string::npos);
}
