// `spritz inspect` end to end: the table and the JSON.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include "cli/cli_support.h"
#include "cli/run.h"
#include "effect_files.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"

namespace fs = std::filesystem;
using namespace spritz::test;

TEST_CASE("inspect --json has the documented shape", "[cli]") {
  const Run r = run_spritz("inspect " + kConfigs + "/campfire.toml --time 1 --json --stats");
  CHECK(r.code == 0);
  for (const char* field :
       {"{\"time\": 1, \"clock\": 2.5, \"emitters\": [{\"name\": \"smoke\"",
        "\"key\": ", "\"age\": ", "\"life\": ", "\"x\": ", "\"vy\": ", "\"w\": ", "\"rotation\": ",
        "\"color\": [", "\"alpha\": ", "\"brightness\": ", "\"light_emission\": ", "\"cell\": ",
        "\"impacts\": 0}", "\"stats\": {\"window\": "}) {
    CHECK_THAT(r.out, Catch::Contains(field));
  }
  const Run table = run_spritz("inspect " + kConfigs + "/campfire.toml --time 1");
  CHECK(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("emitter flames:"));
  // A sub-emitter names its parent and event, in both forms.
  const Run sub = run_spritz("inspect " + kConfigs + "/fireworks.toml --time 2 --json");
  CHECK_THAT(
      sub.out,
      Catch::Contains(
          "{\"name\": \"burst\", \"parent\": \"rockets\", \"on\": \"death\", \"particles\": ["));
  const Run sub_table = run_spritz("inspect " + kConfigs + "/fireworks.toml --time 2");
  CHECK_THAT(sub_table.out,
             Catch::Contains("emitter trail_sparks (children of rockets, on life): "));
}

TEST_CASE("inspect counts each particle's impacts with its colliders", "[cli]") {
  const Run r = run_spritz("inspect " + kConfigs + "/bounce.toml --time 1.1 --json");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"impacts\": 0}"));
  CHECK_THAT(r.out, Catch::Contains("\"impacts\": 1}"));
  CHECK_THAT(r.out, Catch::Contains("\"impacts\": 2}"));
  const Run table = run_spritz("inspect " + kConfigs + "/bounce.toml --time 1.1");
  CHECK_THAT(table.out, Catch::Contains("color  impacts"));
  const Run splash = run_spritz("inspect " + kConfigs + "/splash.toml --time 1 --json");
  CHECK_THAT(splash.out, Catch::Contains("\"parent\": \"drops\", \"on\": \"collision\""));
  // A bad collider is located, exit 2, and nothing is written.
  const fs::path d = fresh_dir("collider");
  write(d / "c.toml",
        "[[emitter]]\ncolliders = [{ kind = \"circle\", center = [0, 0], radius = -1 }]\n");
  const Run bad = run_spritz("render c.toml -o out_####.png", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("c.toml:2:59: colliders[0].radius must be within (0, 1e9]"));
  CHECK_FALSE(fs::exists(d / "out_0000.png"));
}

TEST_CASE("inspect's table keeps its columns for huge values", "[cli]") {
  const fs::path d = fresh_dir("inspect_table");
  write(d / "far.toml",
        "[[emitter]]\nrate = 3\nspeed = -1e7\nlifetime = 100\nsize = 1e5\nrotation_speed = 1e6\n");
  const Run r = run_spritz("inspect far.toml --time 90", d);
  REQUIRE(r.code == 0);
  const size_t header = r.out.find("   key ");
  REQUIRE(header != std::string::npos);
  const size_t header_end = r.out.find('\n', header);
  const size_t colour_col = r.out.find("color", header) - r.out.rfind('\n', header) - 1;
  int rows = 0;
  for (size_t at = header_end + 1; at < r.out.size();) {
    const size_t end = r.out.find('\n', at);
    const std::string row = r.out.substr(at, end - at);
    at = end + 1;
    if (row.empty()) break;
    ++rows;
    INFO(row);
    CHECK(row.find('#') == colour_col);
  }
  CHECK(rows > 200);
}

TEST_CASE("inspect lists an emitter's particles, not their trail ghosts", "[cli]") {
  const fs::path d = fresh_dir("inspect_trail");
  const Run json = run_spritz("inspect " + kConfigs + "/comets.toml --time 1 --json --stats", d);
  REQUIRE(json.code == 0);
  const size_t comets = json.out.find("\"name\": \"comets\"");
  const size_t sparks = json.out.find("\"name\": \"sparks\"");
  REQUIRE(comets != std::string::npos);
  REQUIRE(sparks != std::string::npos);
  const std::string first = json.out.substr(comets, sparks - comets);
  const size_t alive = first.find("\"alive\": ");
  REQUIRE(alive != std::string::npos);
  const size_t listed = count_of(first, "\"key\": ");
  CHECK(listed > 3);
  CHECK(std::to_string(listed) == first.substr(alive + 9, first.find('}', alive) - alive - 9));
  const Run table = run_spritz("inspect " + kConfigs + "/comets.toml --time 1", d);
  CHECK_THAT(table.out, Catch::Contains("emitter comets: " + std::to_string(listed) + " alive"));
}

TEST_CASE("inspect shows a program's CUSTOM and USERDATA as the program left them", "[cli]") {
  const fs::path d = fresh_dir("inspect-program");
  // CUSTOM.x counts process() steps; USERDATA2 is set once in start().
  write(d / "p.toml", R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 2 }]
lifetime = 5
integration = { step = 0.25 }
program = """
void start() { USERDATA2 = vec4(float(INDEX), 2.0, 3.0, 4.0); }
void process() { CUSTOM.x += 1.0; }
"""
)");
  const Run r = run_spritz("inspect p.toml --time 1.1 --json", d);
  CHECK(r.code == 0);
  // 1.1 s: 4 whole steps of 0.25 s and one of 0.1 s.
  CHECK_THAT(r.out, Catch::Contains("\"custom\": [5, 0, 0, 0], \"userdata2\": [0, 2, 3, 4]}"));
  CHECK_THAT(r.out, Catch::Contains("\"custom\": [5, 0, 0, 0], \"userdata2\": [1, 2, 3, 4]}"));
  CHECK_THAT(r.out, !Catch::Contains("userdata1"));
  const Run table = run_spritz("inspect p.toml --time 1.1", d);
  CHECK_THAT(table.out, Catch::Contains("color  custom"));
  CHECK_THAT(table.out, Catch::Contains("   5.000    0.000    0.000    0.000"));
}

TEST_CASE("a program's sampler reads a PNG next to the effect, 8 or 16 bits", "[cli]") {
  const fs::path d = fresh_dir("inspect-sampler");
  // One particle per texel of a 4x1 map: x from red, y from green.
  const uint8_t px8[16] = {0, 255, 0, 255, 51, 102, 0, 255, 102, 51, 0, 255, 255, 0, 0, 255};
  const std::vector<uint8_t> png8 = spritz::encode_png(px8, 4, 1);
  write(d / "map.png", std::string(png8.begin(), png8.end()));
  const uint16_t px16[4] = {1, 2, 3, 65535};
  const std::vector<uint8_t> png16 = spritz::encode_png16(px16, 1, 1);
  write(d / "deep.png", std::string(png16.begin(), png16.end()));
  write(d / "p.toml", R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 4 }]
lifetime = 5
uniforms = { map = "map.png", deep = "deep.png" }
program = """
uniform sampler2D map : filter_nearest;
uniform sampler2D deep;
void pose() {
  vec4 t = texelFetch(map, ivec2(INDEX, 0), 0);
  POSITION = vec2(t.r, t.g) * 100.0;
  SIZE.x = round(texture(deep, vec2(0.5)).r * 65535.0);
  SIZE.y = float(textureSize(map, 0).x);
}
"""
)");
  const Run r = run_spritz("inspect p.toml --time 1 --json", d);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"x\": 0, \"y\": 100,"));
  CHECK_THAT(r.out, Catch::Contains("\"x\": 20, \"y\": 40,"));
  CHECK_THAT(r.out, Catch::Contains("\"x\": 40, \"y\": 20,"));
  CHECK_THAT(r.out, Catch::Contains("\"x\": 100, \"y\": 0,"));
  CHECK_THAT(r.out, Catch::Contains("\"w\": 1, \"h\": 4,"));
  // A file that is not a PNG: exit 2 at the binding.
  write(d / "map.png", "not a png");
  const Run bad = run_spritz("validate p.toml", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("p.toml:5:20:"));
  CHECK_THAT(bad.err, Catch::Contains("map.png"));
}
