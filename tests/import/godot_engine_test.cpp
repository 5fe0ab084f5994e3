// Godot particle shaders against the real engine: scenes rendered by Godot
// 3 (Debian's godot3, headless under Xvfb with Mesa's llvmpipe and the GLES3
// driver, a fixed step of 1/60 s) and by spritz, compared particle by
// particle. Each particle of these scenes is a 4 px quad whose place is a
// function of its age, so the centre of each lit blob in Godot's frame k
// must have a blob of spritz's render at k / 60 s within a pixel (Godot
// snaps its quads to pixels, spritz covers them exactly), and the light in
// all within a few percent. tests/data/godot/render_scene.gd saves Godot's
// viewport after k frames have been drawn.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "cli/run.h"
#include "skip.h"
#include "spritz/raster/png.h"

using namespace spritz;
using namespace spritz::test;

namespace {

struct Blob {
  double x = 0, y = 0, light = 0;  // light-weighted centre, px from the top left
};

// The lit blobs of a PNG (4-connected pixels whose (r + g + b) * alpha is
// above a tenth of white), each with its light-weighted centre.
std::vector<Blob> blobs(const fs::path& png) {
  const DecodedPng img = decode_png(read_bytes(png), png.string());
  const int w = img.width, h = img.height;
  std::vector<double> light(size_t(w) * h);
  for (size_t i = 0; i < light.size(); ++i) {
    const uint8_t* p = &img.rgba[i * 4];
    light[i] = (p[0] + p[1] + p[2]) / 765.0 * (p[3] / 255.0);
  }
  std::vector<bool> seen(light.size(), false);
  std::vector<Blob> out;
  for (size_t start = 0; start < light.size(); ++start) {
    if (seen[start] || light[start] <= 0.1) continue;
    Blob b;
    std::deque<size_t> todo{start};
    seen[start] = true;
    while (!todo.empty()) {
      const size_t i = todo.front();
      todo.pop_front();
      const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
      b.x += (x + 0.5) * light[i], b.y += (y + 0.5) * light[i], b.light += light[i];
      const int nx[4] = {x + 1, x - 1, x, x}, ny[4] = {y, y, y + 1, y - 1};
      for (int k = 0; k < 4; ++k) {
        if (nx[k] < 0 || ny[k] < 0 || nx[k] >= w || ny[k] >= h) continue;
        const size_t j = size_t(ny[k]) * w + nx[k];
        if (!seen[j] && light[j] > 0.1) seen[j] = true, todo.push_back(j);
      }
    }
    b.x /= b.light, b.y /= b.light;
    out.push_back(b);
  }
  return out;
}

// Godot 3 draws `scene` into a 256 x 256 viewport; frame k is saved as
// godot_1_<k>.png in `dir` (render_scene.gd, seed 1, the node left where it is). False (with
// Godot's output in godot.log) when it did not run.
bool godot_frames(const fs::path& dir, const std::string& scene, const std::vector<int>& frames) {
  write(dir / "project.godot",
        "config_version=4\n\n[application]\nconfig/name=\"spritz engine test\"\n\n"
        "[display]\nwindow/size/width=256\nwindow/size/height=256\n"
        "window/vsync/use_vsync=false\n\n"
        "[rendering]\nquality/driver/driver_name=\"GLES3\"\n"
        "environment/default_clear_color=Color( 0, 0, 0, 1 )\n");
  write(dir / "scene.tscn", scene);
  fs::copy_file(fs::path(SPRITZ_SOURCE_DIR) / "tests/data/godot/render_scene.gd",
                dir / "render_scene.gd", fs::copy_options::overwrite_existing);
  std::string list;
  for (int k : frames) list += (list.empty() ? "" : ",") + std::to_string(k);
  const std::string d = dir.string();
  const std::string cmd =
      "cd '" + d + "' && HOME='" + d +
      "' timeout 120 xvfb-run -a -s '-screen 0 640x480x24' godot3 --path '" + d +
      "' --video-driver GLES3 --fixed-fps 60 --disable-vsync -s "
      "res://render_scene.gd --scene=res://scene.tscn --seeds=1 --place=128,128 --frames=" +
      list + " --out='" + d + "/godot_%d_%d.png' > godot.log 2>&1";
  return shell(cmd, nullptr) == 0;
}

// spritz's render of the same scene at k / 60 s: imported onto Godot's
// viewport (256 px; the node, at Godot's (128, 128), at its centre).
void spritz_frames(const fs::path& dir, const std::vector<int>& frames) {
  const Run im = run_spritz("import scene.tscn --size 256x256 --position 0 0 -o fx.toml", dir);
  REQUIRE(im.code == 0);
  for (int k : frames) {
    char t[64];
    std::snprintf(t, sizeof t, "%.17g", k / 60.0);
    REQUIRE(run_spritz("render fx.toml --time " + std::string(t) + " -q -o spritz_" +
                           std::to_string(k) + ".png",
                       dir)
                .code == 0);
  }
}

// Every particle where Godot drew it, at every frame asked for.
void compare(const fs::path& dir, const std::vector<int>& frames) {
  for (int k : frames) {
    INFO("frame " << k);
    const std::vector<Blob> g = blobs(dir / ("godot_1_" + std::to_string(k) + ".png"));
    const std::vector<Blob> s = blobs(dir / ("spritz_" + std::to_string(k) + ".png"));
    REQUIRE(g.size() >= 4);
    CHECK(s.size() == g.size());
    double gl = 0, sl = 0, worst = 0;
    for (const Blob& b : g) {
      double nearest = 1e9;
      for (const Blob& c : s) nearest = std::min(nearest, std::hypot(b.x - c.x, b.y - c.y));
      worst = std::max(worst, nearest);
      gl += b.light;
    }
    for (const Blob& c : s) sl += c.light;
    CHECK(worst <= 1.0);
    CHECK(sl == Approx(gl).epsilon(0.05));
  }
}

bool have_godot() {
  return shell("command -v godot3 >/dev/null && command -v xvfb-run >/dev/null", nullptr) == 0;
}

}  // namespace

TEST_CASE("Godot 3 particle shaders: spritz draws each particle where Godot 3 does",
          "[cli][godot][engine]") {
  SPRITZ_SKIP_UNLESS(have_godot(), "needs godot3 and xvfb-run (scripts/build.sh --tests)");
  SECTION("one shot: a grid by INDEX, velocity changed by DELTA every frame, colour") {
    const fs::path dir = fresh_dir("godot_engine_grid");
    const std::vector<int> frames = {1, 2, 30, 90};
    REQUIRE(godot_frames(dir,
                         "[gd_scene load_steps=3 format=2]\n\n"
                         "[sub_resource type=\"Shader\" id=1]\n"
                         "code = \"shader_type particles;\nvoid vertex() {\n"
                         "\tif (RESTART) {\n"
                         "\t\tTRANSFORM[3].xy = vec2(float(INDEX % 4) * 40.0 - 60.0, "
                         "float(INDEX / 4) * 40.0 - 60.0);\n"
                         "\t\tVELOCITY = vec3(30.0, 10.0 * float(INDEX % 4), 0.0);\n"
                         "\t\tCOLOR = vec4(1.0, 0.5 + 0.1 * float(INDEX / 4), 0.25, 1.0);\n"
                         "\t} else {\n\t\tVELOCITY.y += 20.0 * DELTA;\n\t}\n"
                         "\tTRANSFORM[0].x = 4.0;\n\tTRANSFORM[1].y = 4.0;\n}\n\"\n\n"
                         "[sub_resource type=\"ShaderMaterial\" id=2]\n"
                         "shader = SubResource( 1 )\n\n"
                         "[node name=\"Root\" type=\"Node2D\"]\n\n"
                         "[node name=\"Grid\" type=\"Particles2D\" parent=\".\"]\n"
                         "position = Vector2( 128, 128 )\namount = 16\nlifetime = 4.0\n"
                         "one_shot = true\nexplosiveness = 1.0\n"
                         "process_material = SubResource( 2 )\n",
                         frames));
    spritz_frames(dir, frames);
    compare(dir, frames);
  }
  SECTION("a stream: births between frames, the first frame a part of one, CUSTOM by DELTA") {
    // Seven particles a second: born off the frame grid, so the first
    // frame of each is the part of a step from its birth (model.md 11.7).
    // Compared in the second and third cycles, after the first has filled.
    const fs::path dir = fresh_dir("godot_engine_rain");
    const std::vector<int> frames = {70, 100, 137};
    REQUIRE(godot_frames(dir,
                         "[gd_scene load_steps=3 format=2]\n\n"
                         "[sub_resource type=\"Shader\" id=1]\n"
                         "code = \"shader_type particles;\nvoid vertex() {\n"
                         "\tif (RESTART) {\n"
                         "\t\tTRANSFORM[3].xy = vec2(float(INDEX) * 30.0 - 90.0, -100.0);\n"
                         "\t\tVELOCITY = vec3(0.0, 150.0, 0.0);\n\t\tCUSTOM.x = 0.0;\n\t}\n"
                         "\tCUSTOM.x += DELTA;\n"
                         "\tCOLOR = vec4(1.0, 1.0 - CUSTOM.x / LIFETIME, 0.2, 1.0);\n"
                         "\tTRANSFORM[0].x = 4.0;\n\tTRANSFORM[1].y = 4.0;\n}\n\"\n\n"
                         "[sub_resource type=\"ShaderMaterial\" id=2]\n"
                         "shader = SubResource( 1 )\n\n"
                         "[node name=\"Root\" type=\"Node2D\"]\n\n"
                         "[node name=\"Rain\" type=\"Particles2D\" parent=\".\"]\n"
                         "position = Vector2( 128, 128 )\namount = 7\nlifetime = 1.0\n"
                         "process_material = SubResource( 2 )\n",
                         frames));
    spritz_frames(dir, frames);
    compare(dir, frames);
  }
}
