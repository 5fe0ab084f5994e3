// Godot particle shader files imported on their own (docs/import.md,
// "Godot particle shaders"): the default emitter, the views onto 3D, the
// messages, and the shared corpus of real shaders.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "import/import_support.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/raster/png.h"

using namespace spritz;
using namespace spritz::test;

namespace {

const fs::path kCorpus = spritz_corpus_dir(SPRITZ_SOURCE_DIR);

std::string import_error(const std::string& text, const std::string& name = "bad.gdshader",
                         const ImportOptions& o = {}) {
  try {
    import_text(text, name, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Particles drawn on the canvas at some time of the effect's run: alive,
// not transparent, not 0 px, and where the canvas shows them.
size_t visible_particles(const Effect& fx) {
  size_t n = 0;
  for (int i = 0; i < 8 && n == 0; ++i) {
    const Frame f = evaluate(fx, clock_at_time(fx, fx.duration_s * (i + 0.5) / 8));
    for (const EmitterFrame& ef : f.emitters)
      for (const Particle& p : ef.particles)
        n += p.alpha > 0.01 && p.w >= 0.5 && p.h >= 0.5 &&
             std::abs(p.x) < fx.canvas.width / 2.0 + p.w &&
             std::abs(p.y) < fx.canvas.height / 2.0 + p.h;
  }
  return n;
}

const char* kFountain = R"(// a comment first, as real files have
shader_type particles;
uniform float speed = 80.0;
void start() {
  float a = float(NUMBER % 32u) / 32.0 * TAU;
  VELOCITY = vec3(cos(a), sin(a), 0.0) * speed;
}
void process() {
  VELOCITY.y += 98.0 * DELTA;
}
)";

}  // namespace

TEST_CASE("a Godot particle shader file imports onto the default emitter", "[import][godot]") {
  const ImportResult r = import_text(kFountain, "fountain.gdshader");
  CHECK(r.format == EffectFormat::kGodot);
  const Effect fx = load_imported(r, "fountain.gdshader");
  REQUIRE(fx.emitters.size() == 1);
  const Emitter& em = fx.emitters[0];
  REQUIRE(em.program);
  REQUIRE(em.program->godot);
  CHECK(em.program->godot->amount == 64);
  CHECK(em.rate_per_s == 64);
  CHECK(fx.canvas.width == 512);
  CHECK(visible_particles(fx) > 30);
  CHECK(r.toml.find("godot = { amount = 64") != std::string::npos);
  bool noted = false;
  for (const Diagnostic& d : r.notes)
    noted = noted || d.message.find("spritz's default emitter") != std::string::npos;
  CHECK(noted);
  // A uniform set as a scene's material would.
  LoadOptions lo;
  lo.overrides = {"emitter.0.uniforms.speed=0"};
  const Effect still = load_effect(r.toml, "fountain.toml", ".", lo);
  const Frame f = evaluate(still, clock_at_time(still, 0.5));
  REQUIRE(f.emitters[0].particles.size() > 0);
  for (const Particle& p : f.emitters[0].particles) CHECK(p.vx == 0);
}

TEST_CASE("a 3D Godot shader seen from a view", "[import][godot]") {
  const std::string shader =
      "shader_type particles;\nvoid start() { TRANSFORM[3].xyz = "
      "vec3(1.0, 2.0, 3.0); }\n";
  const auto place = [&](const std::string& view) {
    ImportOptions o;
    o.view = view;
    const Effect fx = load_imported(import_text(shader, "s.gdshader", o), "s.gdshader");
    const Frame f = evaluate(fx, clock_at_time(fx, 0.5));
    REQUIRE(f.emitters[0].particles.size() > 0);
    return std::pair{f.emitters[0].particles[0].x, f.emitters[0].particles[0].y};
  };
  CHECK(place("") == std::pair{1.0, -2.0});        // 2D: Godot's pixels, y down
  CHECK(place("front") == std::pair{32.0, 64.0});  // along -Z: x right, y up
  CHECK(place("side") == std::pair{-96.0, 64.0});  // along -X: -z right
  CHECK(place("top") == std::pair{32.0, -96.0});   // down -Y: x right, -z up
}

TEST_CASE("bad Godot shader files: located in the shader, never a crash", "[import][godot]") {
  CHECK(import_error("shader_type canvas_item;\nvoid fragment() {}\n")
            .find("bad.gdshader:1:13: a Godot canvas_item shader: spritz imports particle "
                  "shaders") == 0);
  CHECK(import_error("shader_type particles;\nvoid start() {\n  VELOCITY = 1.0;\n}\n")
            .find("bad.gdshader:3:") == 0);
  CHECK(import_error("shader_type particles;\nvoid start() { undefined_thing(); }\n")
            .find("unknown function 'undefined_thing'") != std::string::npos);
  CHECK(import_error("shader_type particles;\nvoid start() {}\n/* never closed")
            .find("bad.gdshader:3:1:") == 0);
  // A TOML file whose first key is shader_type stays TOML.
  CHECK(detect_effect_format("shader_type = \"x\"\n", "x.toml") == EffectFormat::kToml);
}

// The development corpus of real `shader_type particles` programs: each
// either imports, loads and shows particles, or is refused with a message
// at its place naming what spritz does not run. A shader whose uniforms a
// material sets (scale, colour, counts) gets here the values a scene
// would give it; a 3D one is seen from the front.
TEST_CASE("every Godot shader of the corpus runs, or is refused at its place",
          "[import][godot][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(
      fs::exists(kCorpus / "godot-shaders"),
      "needs the shared corpus of Godot shaders at " + kCorpus.string() + " (or $SPRITZ_CORPUS)");
  // What a scene's material (or node) would set, by file, and the view
  // onto the 3D ones (top for those that scatter over the ground).
  const std::string u = "emitter.0.uniforms.";
  const std::vector<std::string> converted = {u + "scale=0.25", u + "trail_divisor=1",
                                              u + "initial_linear_velocity=1",
                                              u + "color_value=[1, 1, 1, 1]"};
  std::map<std::string, std::vector<std::string>> material = {
      {"Astridson__godot-disintegration-effect-examples__undertale.tres",
       {u + "scale=1", u + "trail_divisor=1", u + "progress=0.5",
        u + "particle_lifetime_fraction=0.5"}},
      {"AlexAb123__Particle-Fluid-Simulation__particle_shader_2d.gdshader",
       {u + "particle_size=1", u + "image_size=8"}},
      {"DominicSimone__particle-wizard__particle_ring_emission.gdshader", converted},
      {"DominicSimone__particle-wizard__particle_sphere_emission.gdshader", converted},
      {"Dpschoonmaker__Godot-particle-clouds__cloud-particles.shader",
       {u + "scale=0.25", u + "color=[1, 1, 1, 1]", u + "alpha=1",
        u + "emission_box_extents=[4, 1, 4]"}},
      {"Hospitalguy101__HumanFarm__grassparticle.gdshader",
       {u + "scale_min=1", u + "scale_max=2", "emitter.0.position=[0, -800]"}},
      {"jairoandre__particle-life__particles.gdshader",
       {u + "scale=1", u + "grid_size=8", u + "vw_size=[100, 100]"}},
      // Scenes whose camera takes in a wider view than 32 px a unit.
      {"godotengine__godot-demo-projects__particle_fish.gdshader",
       {"emitter.0.godot.to_canvas=[2, 0, 0, 0, 2, 0]"}},
      {"w84death__the-islands-of-shaders__rocks_particle.shader",
       {"emitter.0.godot.to_canvas=[4, 0, 0, 0, 0, -4]"}},
      {"tapenki__EUDAEMONIA__aligned_particle_shader.gdshader",
       {u + "scale_min=1", u + "scale_max=1", u + "initial_linear_velocity_min=50",
        u + "initial_linear_velocity_max=80"}},
      {"tapenki__EUDAEMONIA__particle_shader.gdshader",
       {u + "scale_min=1", u + "scale_max=1", u + "initial_linear_velocity_min=50",
        u + "initial_linear_velocity_max=80"}},
  };
  const std::map<std::string, std::string> views = {
      {"2Retr0__GodotOceanWaves__sea_spray_particle.gdshader", "front"},
      {"BastiaanOlij__godot-grass-tutorial__particle.shader", "top"},
      {"curvednebula__godot-particle-issue__particles.gdshader", "front"},
      {"DemianDrake__Rain-Simulator__Raindrop.shader", "front"},
      {"DominicSimone__particle-wizard__particle_ring_emission.gdshader", "front"},
      {"DominicSimone__particle-wizard__particle_sphere_emission.gdshader", "front"},
      {"Dpschoonmaker__Godot-particle-clouds__cloud-particles.shader", "front"},
      {"ectucker1__Digitalis__Fluid.shader", "front"},
      {"fenixnix__Ascii__ParticalTestbed.shader", "front"},
      {"gdquest-demos__godot-shaders__particle_bridge_particle.shader", "top"},
      {"godotengine__godot-demo-projects__particle_fish.gdshader", "front"},
      {"HugoMahe__CityBuilder__particles.shader", "top"},
      {"randompast__sh9__particles.gdshader", "front"},
      {"redboyrave__AcerolaJam0__particle.gdshader", "front"},
      {"TokisanGames__Terrain3D__particles.gdshader", "top"},
      {"w84death__the-islands-of-shaders__grass_particle.shader", "top"},
      {"w84death__the-islands-of-shaders__insects_particles.shader", "top"},
      {"w84death__the-islands-of-shaders__palms_particle.shader", "top"},
      {"w84death__the-islands-of-shaders__rocks_particle.shader", "top"},
      {"yaelatletl__Moonwards-Godot__detail_objects.shader", "top"},
  };
  int runs = 0, refused = 0, scenes = 0, heavy = 0;
  for (const fs::path& path : corpus_files(kCorpus, {"godot-shaders"})) {
    const std::string ext = path.extension().string();
    INFO(path.filename().string());
    if (ext != ".gdshader" && ext != ".shader") {
      // A scene or resource holding a shader, with its material's values
      // and the images it binds (a NoiseTexture's, written beside it).
      const ImportResult r = import_path(path);
      LoadOptions lo;
      for (const ImportResult::Texture& t : r.textures) {
        const std::string p = (path.parent_path() / t.name).lexically_normal().string();
        lo.provided_textures.push_back(p);
        lo.provided_images[p] = t.png;
      }
      lo.decode_image = decode_program_image;
      const auto it = material.find(path.filename().string());
      if (it != material.end()) lo.overrides = it->second;
      const Effect fx = load_effect(r.toml, path.string(), path.parent_path().string(), lo);
      // 80,000 agents living 20 s, each replaying its 1,200 frames from
      // birth: more than the commands' work limit (docs/cli.md), which
      // refuses such a frame up front and says so. Loaded, not drawn.
      if (frame_work(fx, clock_at_time(fx, fx.duration_s)) > 100'000'000) {
        ++heavy;
        continue;
      }
      CHECK(visible_particles(fx) > 0);
      ++scenes;
      continue;
    }
    ImportResult r;
    try {
      ImportOptions o;
      if (const auto v = views.find(path.filename().string()); v != views.end()) o.view = v->second;
      r = import_path(path, o);
    } catch (const Error& e) {
      const std::string m = e.what();
      CHECK(m.rfind(path.string() + ":", 0) == 0);  // at its place
      ++refused;
      continue;
    }
    LoadOptions lo;
    const auto it = material.find(path.filename().string());
    if (it != material.end()) lo.overrides = it->second;
    const Effect fx = load_effect(r.toml, path.string(), path.parent_path().string(), lo);
    CHECK(visible_particles(fx) > 0);
    ++runs;
  }
  std::cout << "Godot shader corpus: " << runs << " shader files run, " << refused << " refused; "
            << scenes << " scenes and resources run, " << heavy << " over the work limit\n";
  CHECK(runs == 29);
  CHECK(refused == 3);
  CHECK(scenes == 6);
  CHECK(heavy == 1);
}

// A Godot 3 scene whose Particles2D runs a ShaderMaterial with the code
// embedded (Godot's escapes) and shader_param values; a turned node with
// local coordinates (Godot 3's default) turns the particles' space.
TEST_CASE("a Godot 3 scene's ShaderMaterial: code, parameters, timing and place",
          "[import][godot]") {
  const std::string scene = R"([gd_scene load_steps=3 format=2]

[sub_resource type="Shader" id=1]
code = "shader_type particles;
// a \"quoted\" word, as Godot escapes it
uniform float speed = 10.0;
uniform vec4 tint : hint_color;
uniform bool on;
uniform vec2 push;
uniform sampler2D ease;
uniform sampler2D ramp;
void vertex() {
	if (RESTART) {
		VELOCITY = vec3(speed, 0.0, 0.0) + vec3(push, 0.0);
		COLOR = on ? tint : vec4(1.0);
		COLOR.b = texture(ease, vec2(0.25, 0.0)).r;
		COLOR.r = texture(ramp, vec2(0.5, 0.0)).g;
	}
}
"

[sub_resource type="Curve" id=3]
_data = [ Vector2( 0, 0 ), 0.0, 0.0, 0, 0, Vector2( 1, 1 ), 0.0, 0.0, 0, 0 ]

[sub_resource type="CurveTexture" id=4]
curve = SubResource( 3 )

[sub_resource type="Gradient" id=5]
offsets = PoolRealArray( 0, 1 )
colors = PoolColorArray( 0, 0, 0, 1, 1, 1, 1, 1 )

[sub_resource type="GradientTexture" id=6]
gradient = SubResource( 5 )

[sub_resource type="ShaderMaterial" id=2]
shader = SubResource( 1 )
shader_param/speed = 40.0
shader_param/tint = Color( 1, 0.5, 0.25, 1 )
shader_param/on = true
shader_param/push = Vector2( 0, 5 )
shader_param/ease = SubResource( 4 )
shader_param/ramp = SubResource( 6 )

[node name="Root" type="Node2D"]

[node name="Sparks" type="Particles2D" parent="."]
position = Vector2( 100, 50 )
rotation = 1.5707963267948966
amount = 20
lifetime = 2.0
speed_scale = 2.0
fixed_fps = 30
process_material = SubResource( 2 )
)";
  const ImportResult r = import_text(scene, "sparks.tscn");
  const Effect fx = load_imported(r, "sparks.tscn");
  REQUIRE(fx.emitters.size() == 1);
  const Emitter& em = fx.emitters[0];
  REQUIRE(em.program);
  REQUIRE(em.program->godot);
  const GodotDialect& g = *em.program->godot;
  CHECK(g.amount == 20);
  CHECK(g.speed_scale == 2);
  // Turned a quarter clockwise on screen (y down): Godot's x axis points
  // down the screen, -y in spritz; its y axis left.
  CHECK(g.to_canvas[0] == Approx(0).margin(1e-12));
  CHECK(g.to_canvas[3] == Approx(-1));
  CHECK(g.to_canvas[1] == Approx(-1));
  CHECK(em.lifetime_s.max == 1);                // 2 s at speed_scale 2
  CHECK(em.forces.step_s == Approx(1.0 / 60));  // 1/30 s of node time
  CHECK(em.rate_per_s == 20);
  // The parameters: speed 40, push (0, 5), the tint on.
  const Frame f = evaluate(fx, clock_at_time(fx, 0.5));
  REQUIRE(f.emitters[0].particles.size() > 0);
  for (const Particle& p : f.emitters[0].particles) {
    CHECK(p.vx == Approx(-5 * 2));   // Godot's +y (5 px/s), turned, is -x
    CHECK(p.vy == Approx(-40 * 2));  // Godot's +x (40 px/s) is down
    CHECK(p.color_srgb.g == Approx(0.5));
    // The CurveTexture (Godot's cubic with flat tangents, 3t^2 - 2t^3 at
    // 0.25) and the GradientTexture (black to white) as samplers.
    CHECK(p.color_srgb.b == Approx(0.15625).margin(0.002));
    CHECK(p.color_srgb.r == Approx(0.5).margin(1e-9));
  }
  CHECK(r.toml.find("curves = { ease = ") != std::string::npos);
}

// Godot 4: the shader in a file beside the scene, shader_parameter values,
// and local_coords off (Godot 4's default): the node's transform is
// EMISSION_TRANSFORM and particles live in the canvas's space.
TEST_CASE("a Godot 4 scene's ShaderMaterial with an external shader", "[import][godot]") {
  const fs::path d = fs::temp_directory_path() / "spritz_godot4_shader";
  fs::create_directories(d);
  {
    std::ofstream(d / "swarm.gdshader")
        << "shader_type particles;\nuniform float spread = 1.0;\nvoid start() {\n"
           "  TRANSFORM = EMISSION_TRANSFORM;\n  TRANSFORM[3].x += spread * float(INDEX);\n}\n";
    std::ofstream(d / "project.godot") << "";
    std::ofstream(d / "swarm.tscn")
        << "[gd_scene load_steps=3 format=3 uid=\"uid://x\"]\n\n"
           "[ext_resource type=\"Shader\" path=\"res://swarm.gdshader\" id=\"1_s\"]\n\n"
           "[sub_resource type=\"ShaderMaterial\" id=\"M\"]\nshader = ExtResource(\"1_s\")\n"
           "shader_parameter/spread = 3.0\n\n"
           "[node name=\"Root\" type=\"Node2D\"]\n\n"
           "[node name=\"Swarm\" type=\"GPUParticles2D\" parent=\".\"]\n"
           "position = Vector2(10, 20)\namount = 4\nlifetime = 4.0\n"
           "process_material = SubResource(\"M\")\n";
  }
  ImportOptions o;
  o.canvas_width = 200, o.canvas_height = 200;
  o.position_x = 0, o.position_y = 0;
  const ImportResult r = import_path(d / "swarm.tscn", o);
  const Effect fx = load_imported(r, d / "swarm.tscn");
  REQUIRE(fx.emitters.size() == 1);
  const GodotDialect& g = *fx.emitters[0].program->godot;
  CHECK(g.emission_transform[12] == 10);
  CHECK(g.emission_transform[13] == 20);
  // Each particle at the node's place plus 3 px per INDEX along x.
  const Frame f = evaluate(fx, clock_at_time(fx, 3.9));
  REQUIRE(f.emitters[0].particles.size() == 4);
  for (const Particle& p : f.emitters[0].particles) {
    const double index = static_cast<double>((static_cast<uint32_t>(p.key) >> 1) % 4u);
    CHECK(p.x == Approx(fx.emitters[0].position.x + 3 * index));
    CHECK(p.y == Approx(fx.emitters[0].position.y));
  }
  // A shader that does not compile: Godot draws nothing for the node; the
  // scene has no other, so the import fails, saying where and why.
  std::ofstream(d / "swarm.gdshader") << "shader_type particles;\nvoid start() { oops; }\n";
  try {
    import_path(d / "swarm.tscn", o);
    FAIL("a scene whose only shader does not compile imported");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("no particle emitter could be imported") != std::string::npos);
    CHECK(m.find("swarm.gdshader:2:16: unknown name 'oops'") != std::string::npos);
  }
  fs::remove_all(d);
}

TEST_CASE("a Godot Shader resource (.tres) imports as its shader alone", "[import][godot]") {
  const std::string tres =
      "[gd_resource type=\"Shader\" format=2]\n\n[resource]\ncode = "
      "\"shader_type particles;\nvoid vertex() {\n\tVELOCITY = vec3(5.0, 0.0, "
      "0.0);\n\tCOLOR.g = undefined;\n}\n\"\n";
  const std::string m = import_error(tres, "fx.tres");
  // Located in the .tres: line 7 of the file, where the code's fourth line is.
  CHECK(m.find("fx.tres:7:") == 0);
  std::string good = tres;
  good.replace(good.find("undefined"), 9, "0.5");
  const Effect fx = load_imported(import_text(good, "fx.tres"), "fx.tres");
  REQUIRE(fx.emitters[0].program->godot);
}

// An image a ShaderMaterial gives its shader (a sprite broken into one
// particle per pixel, as the disintegration effects do): written beside
// the effect as a PNG the sampler reads, and supplied from memory when the
// scene is rendered directly.
TEST_CASE("a Godot scene's image parameter binds the shader's sampler", "[import][godot]") {
  const fs::path d = fs::temp_directory_path() / "spritz_godot_sprite";
  fs::create_directories(d);
  const uint8_t px[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
  const std::vector<uint8_t> png = encode_png(px, 2, 2);
  std::ofstream(d / "sprite.png", std::ios::binary)
      .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  std::ofstream(d / "project.godot") << "";
  std::ofstream(d / "pixels.tscn")
      << "[gd_scene load_steps=3 format=3]\n\n"
         "[ext_resource type=\"Texture2D\" path=\"res://sprite.png\" id=\"1_t\"]\n\n"
         "[sub_resource type=\"Shader\" id=\"S\"]\ncode = \"shader_type particles;\n"
         "uniform sampler2D sprite : filter_nearest;\nvoid start() {\n"
         "  ivec2 p = ivec2(int(INDEX % 2u), int(INDEX / 2u));\n"
         "  COLOR = texelFetch(sprite, p, 0);\n  TRANSFORM[3].xy = vec2(p) * 4.0;\n}\n\"\n\n"
         "[sub_resource type=\"ShaderMaterial\" id=\"M\"]\nshader = SubResource(\"S\")\n"
         "shader_parameter/sprite = ExtResource(\"1_t\")\n\n"
         "[node name=\"Pixels\" type=\"GPUParticles2D\"]\namount = 4\nlifetime = 4.0\n"
         "explosiveness = 1.0\nprocess_material = SubResource(\"M\")\n";
  const ImportResult r = import_path(d / "pixels.tscn");
  REQUIRE(r.textures.size() == 1);
  CHECK(r.textures[0].name == "pixels-Pixels-sprite.png");
  CHECK(r.toml.find("sprite = \"pixels-Pixels-sprite.png\"") != std::string::npos);
  const Effect fx = load_imported(r, d / "pixels.tscn");
  const Frame f = evaluate(fx, clock_at_time(fx, 0.5));
  REQUIRE(f.emitters[0].particles.size() == 4);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t index = (static_cast<uint32_t>(p.key) >> 1) % 4u;
    CHECK(p.color_srgb.r == px[4 * index] / 255.0);
    CHECK(p.color_srgb.g == px[4 * index + 1] / 255.0);
    CHECK(p.color_srgb.b == px[4 * index + 2] / 255.0);
  }
  fs::remove_all(d);
}

// A Godot 4 node's sub_emitter takes the children its shader emits with
// emit_subparticle() (model.md 11.8): a shader child, a built-in one, and
// the ways a link is refused.
TEST_CASE("a Godot 4 scene's sub_emitter takes its shader's emit_subparticle() children",
          "[import][godot]") {
  const auto scene = [](const std::string& sub_emitter, const std::string& child) {
    return "[gd_scene load_steps=4 format=3]\n\n"
           "[sub_resource type=\"Shader\" id=\"S\"]\n"
           "code = \"shader_type particles;\nvoid start() { VELOCITY = vec3(0.0, -60.0, 0.0); "
           "}\nvoid process() {\n  CUSTOM.x += 1.0;\n  if (mod(CUSTOM.x, 4.0) == 0.0)\n    "
           "emit_subparticle(TRANSFORM, vec3(20.0, 0.0, 0.0), vec4(1.0), vec4(0.0), "
           "FLAG_EMIT_POSITION | FLAG_EMIT_VELOCITY);\n}\n\"\n\n"
           "[sub_resource type=\"ShaderMaterial\" id=\"M\"]\nshader = SubResource(\"S\")\n\n"
           "[sub_resource type=\"Shader\" id=\"C\"]\n"
           "code = \"shader_type particles;\nvoid process() { COLOR.a = 0.5; }\n\"\n\n"
           "[sub_resource type=\"ShaderMaterial\" id=\"N\"]\nshader = SubResource(\"C\")\n\n"
           "[sub_resource type=\"ParticleProcessMaterial\" id=\"P\"]\ngravity = Vector3(0, 0, "
           "0)\n\n"
           "[node name=\"Root\" type=\"Node2D\"]\n\n"
           "[node name=\"Rockets\" type=\"GPUParticles2D\" parent=\".\"]\n"
           "amount = 4\nlifetime = 1.0\nprocess_material = SubResource(\"M\")\n" +
           sub_emitter +
           "\n[node name=\"Sparks\" type=\"GPUParticles2D\" parent=\".\"]\n"
           "position = Vector2(30, 0)\namount = 40\nlifetime = 0.5\n"
           "process_material = SubResource(\"" +
           child + "\")\n";
  };
  for (const char* child : {"N", "P"}) {
    INFO("child material " << child);
    const ImportResult r =
        import_text(scene("sub_emitter = NodePath(\"../Sparks\")\n", child), "fx.tscn");
    REQUIRE(r.toml.find("on = \"program\"") != std::string::npos);
    const Effect fx = load_imported(r, "fx.tscn");
    REQUIRE(fx.emitters.size() == 2);
    const Emitter& sparks = fx.emitters[1];
    CHECK(sparks.sub.on == SubEvent::kProgram);
    CHECK(sparks.sub.parent == 0);
    CHECK(sparks.sub.count_asked == 40);  // Godot's amount: its pool of slots
    CHECK(fx.emitters[0].emit_limit > 0);
    // Children every fourth frame, born where their rocket is, moving
    // right (the given velocity) while the rocket rises.
    const Frame f = evaluate(fx, clock_at_time(fx, 0.75));
    REQUIRE(f.emitters[1].particles.size() > 4);
    for (const Particle& q : f.emitters[1].particles) {
      ParentState from;
      REQUIRE(sub_parent_state(fx, sparks, q.key, q.birth_s, from));
      CHECK(q.birth_s == Approx(std::round(q.birth_s * 60) / 60).margin(1e-12));
      if (std::string(child) == "N") {
        CHECK(q.alpha == 0.5);
        CHECK(q.vx == Approx(20.0));  // the shader child keeps the VELOCITY given
      } else {
        CHECK(q.vx == Approx(20.0 * sparks.inherit_velocity));
      }
    }
  }
  // A shader that never emits leaves its sub-emitter node empty, as Godot
  // draws it; a path to no particle node, or none, is said.
  std::string quiet = scene("sub_emitter = NodePath(\"../Sparks\")\n", "N");
  const std::string call =
      "emit_subparticle(TRANSFORM, vec3(20.0, 0.0, 0.0), vec4(1.0), vec4(0.0), "
      "FLAG_EMIT_POSITION | FLAG_EMIT_VELOCITY);";
  REQUIRE(quiet.find(call) != std::string::npos);
  quiet.replace(quiet.find(call), call.size(), "COLOR.r = 0.5;");
  ImportResult r = import_text(quiet, "fx.tscn");
  CHECK(r.toml.find("enabled = false") != std::string::npos);
  r = import_text(scene("sub_emitter = NodePath(\"../Nothing\")\n", "N"), "fx.tscn");
  bool said = false;
  for (const Diagnostic& d : r.warnings)
    said = said || d.message.find("names no particle node spritz imported") != std::string::npos;
  CHECK(said);
  // A shader file alone has no sub-emitter: its calls return false, said.
  const ImportResult alone = import_text(
      "shader_type particles;\nvoid process() { emit_subparticle(TRANSFORM, VELOCITY, COLOR, "
      "CUSTOM, FLAG_EMIT_POSITION); }\n",
      "alone.gdshader");
  said = false;
  for (const Diagnostic& d : alone.warnings)
    said = said || d.message.find("a shader on its own has no sub-emitter") != std::string::npos;
  CHECK(said);
}

// A 3D scene's particle node running a shader, seen from a view as the
// Roblox importer sees models: its transform places it and, with local
// coordinates, turns and scales its particle space; the QuadMesh sizes it.
TEST_CASE("a Godot 3D scene's shader particles seen from a view", "[import][godot]") {
  // Godot 4: GPUParticles3D, the scene's space (local_coords false), at
  // (2, 1, 0); each particle is placed by EMISSION_TRANSFORM.
  const std::string g4 =
      "[gd_scene load_steps=3 format=3]\n\n"
      "[sub_resource type=\"Shader\" id=\"S\"]\n"
      "code = \"shader_type particles;\nvoid start() {\n  TRANSFORM = EMISSION_TRANSFORM * "
      "mat4(vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0), "
      "vec4(float(INDEX), 0.0, 0.0, 1.0));\n}\n\"\n\n"
      "[sub_resource type=\"ShaderMaterial\" id=\"M\"]\nshader = SubResource(\"S\")\n\n"
      "[sub_resource type=\"QuadMesh\" id=\"Q\"]\nsize = Vector2(0.5, 0.5)\n\n"
      "[node name=\"World\" type=\"Node3D\"]\n"
      "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0)\n\n"
      "[node name=\"Dots\" type=\"GPUParticles3D\" parent=\".\"]\n"
      "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0)\n"
      "amount = 4\nlifetime = 2.0\nprocess_material = SubResource(\"M\")\n"
      "draw_pass_1 = SubResource(\"Q\")\n";
  ImportOptions o;
  o.canvas_width = 400, o.canvas_height = 400;
  o.position_x = 0, o.position_y = 0;
  for (const char* view : {"", "front"}) {
    o.view = view;
    const ImportResult r = import_text(g4, "dots.tscn", o);
    const Effect fx = load_imported(r, "dots.tscn");
    REQUIRE(fx.emitters.size() == 1);
    const Emitter& em = fx.emitters[0];
    // At (1 + 1, 1, 0) units: EMISSION_TRANSFORM, and 32 px a unit from
    // the front (the canvas's fit then moves the whole scene).
    const GodotDialect& g = *em.program->godot;
    CHECK(g.emission_transform[12] == 2);
    CHECK(g.emission_transform[13] == 1);
    CHECK(g.offset[0] == -64);
    CHECK(g.offset[1] == -32);
    const Frame f = evaluate(fx, 1.5);
    REQUIRE(f.emitters[0].particles.size() >= 3);
    for (const Particle& q : f.emitters[0].particles) {
      const double index = static_cast<double>((static_cast<uint32_t>(q.key) >> 1) % 4u);
      CHECK(q.x - em.position.x == Approx(32 * index));
      CHECK(q.y - em.position.y == Approx(0).margin(1e-9));
      CHECK(q.w == Approx(16));  // a 0.5-unit quad
    }
  }
  // Godot 3: Particles, local coordinates (its default), turned a quarter
  // about y and seen from the top: particle space's x runs along -z,
  // which the top view draws upward.
  std::string g3 = g4;
  g3.replace(g3.find("format=3"), 8, "format=2");
  g3.replace(g3.find("\"GPUParticles3D\""), 16, "\"Particles\"");
  g3.replace(g3.find("\"Node3D\""), 8, "\"Spatial\"");
  g3.replace(g3.find("Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0)"), 47,
             "Transform( 0, 0, 1, 0, 1, 0, -1, 0, 0, 1, 1, 0 )");
  g3.replace(g3.find("void start() {"), 14, "void vertex() {");
  o.view = "top";
  const Effect fx = load_imported(import_text(g3, "dots.tscn", o), "dots.tscn");
  const Frame f = evaluate(fx, 1.5);
  REQUIRE(f.emitters[0].particles.size() >= 3);
  for (const Particle& q : f.emitters[0].particles) {
    const double index = static_cast<double>((static_cast<uint32_t>(q.key) >> 1) % 4u);
    CHECK(q.x - fx.emitters[0].position.x == Approx(0).margin(1e-9));
    CHECK(q.y - fx.emitters[0].position.y == Approx(32 * index));
  }
  // Seen as 2D, a 3D node is left out with the reason.
  o.view = "2d";
  CHECK(import_error(g4, "dots.tscn", o).find("is 3D: seen from --view front, side or top") !=
        std::string::npos);
}

namespace {

// A written grey image's size, its darkest and lightest red values, and
// whether every pixel is opaque.
struct Grey {
  int width = 0, height = 0, lo = 255, hi = 0;
  bool opaque = true;
};
Grey grey_of(const std::vector<uint8_t>& png) {
  const DecodedPng img = decode_png(png, "noise");
  Grey g{img.width, img.height};
  for (size_t i = 0; i < img.rgba.size(); i += 4) {
    g.lo = std::min<int>(g.lo, img.rgba[i]);
    g.hi = std::max<int>(g.hi, img.rgba[i]);
    g.opaque = g.opaque && img.rgba[i + 3] == 255;
  }
  return g;
}

}  // namespace

// A NoiseTexture parameter (Godot 3's with an OpenSimplexNoise, Godot 4's
// NoiseTexture2D with a FastNoiseLite): spritz's gradient noise at the
// texture's size and scale, mapped to grey as Godot maps it.
TEST_CASE("a Godot scene's NoiseTexture parameter is noise of its size and range",
          "[import][godot]") {
  const auto scene = [](const std::string& noise) {
    return "[gd_scene load_steps=3 format=3]\n\n" + noise +
           "\n[sub_resource type=\"Shader\" id=\"S\"]\n"
           "code = \"shader_type particles;\nuniform sampler2D n;\nvoid start() {\n  COLOR.r = "
           "texture(n, vec2(float(INDEX) / 16.0, 0.5)).r;\n}\n\"\n\n"
           "[sub_resource type=\"ShaderMaterial\" id=\"M\"]\nshader = SubResource(\"S\")\n"
           "shader_parameter/n = SubResource(\"T\")\n\n"
           "[node name=\"Root\" type=\"Node2D\"]\n\n"
           "[node name=\"P\" type=\"GPUParticles2D\" parent=\".\"]\n"
           "amount = 16\nprocess_material = SubResource(\"M\")\n";
  };
  const std::string v4 =
      "[sub_resource type=\"FastNoiseLite\" id=\"F\"]\nseed = 7\nfrequency = 0.05\n\n"
      "[sub_resource type=\"NoiseTexture2D\" id=\"T\"]\nwidth = 64\nheight = 32\n"
      "noise = SubResource(\"F\")\n";
  const ImportResult r = import_text(scene(v4), "noise.tscn");
  REQUIRE(r.textures.size() == 1);
  const Grey g4 = grey_of(r.textures[0].png);
  CHECK(g4.width == 64);
  CHECK(g4.height == 32);
  CHECK(g4.opaque);
  CHECK(g4.lo == 0);  // normalize (Godot 4's default): the image's own range
  CHECK(g4.hi == 255);
  // The shader reads it: the particles' colours vary.
  const Effect fx = load_imported(r, "noise.tscn");
  const Frame f = evaluate(fx, 0.9);
  double rmin = 1, rmax = 0;
  for (const Particle& q : f.emitters[0].particles)
    rmin = std::min(rmin, q.color_srgb.r), rmax = std::max(rmax, q.color_srgb.r);
  CHECK(rmax - rmin > 0.2);
  // Another seed, another image; the note says what is approximated.
  std::string other = v4;
  other.replace(other.find("seed = 7"), 8, "seed = 8");
  CHECK(import_text(scene(other), "noise.tscn").textures[0].png != r.textures[0].png);
  bool said = false;
  for (const Diagnostic& d : r.notes)
    said = said || d.message.find("spritz's gradient noise") != std::string::npos;
  CHECK(said);
  // Godot 3: an OpenSimplexNoise's period, grey as v / 2 + 1 / 2.
  const std::string v3 =
      "[sub_resource type=\"OpenSimplexNoise\" id=\"F\"]\nperiod = 8.0\n\n"
      "[sub_resource type=\"NoiseTexture\" id=\"T\"]\nwidth = 16\nheight = 16\n"
      "noise = SubResource(\"F\")\n";
  const ImportResult r3 = import_text(scene(v3), "noise.tscn");
  REQUIRE(r3.textures.size() == 1);
  const Grey g3 = grey_of(r3.textures[0].png);
  CHECK(g3.width == 16);
  CHECK(g3.lo < g3.hi);  // varied
}
