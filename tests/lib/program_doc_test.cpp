// docs/programs.md read as the contract: every built-in variable in its
// table has the type and access it states, and every built-in function's
// example gives the value the table states.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "program/compiled.h"
#include "program/machine.h"
#include "spritz/error.h"
#include "spritz/program.h"

using namespace spritz;

namespace {

std::string programs_md() {
  std::ifstream in(std::string(SPRITZ_SOURCE_DIR) + "/docs/programs.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The rows of the table whose header line starts with `header`.
std::vector<std::vector<std::string>> table(const std::string& doc, const std::string& header) {
  std::vector<std::vector<std::string>> rows;
  const size_t at = doc.find(header);
  if (at == std::string::npos) return rows;
  std::istringstream in(doc.substr(at));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);  // |---|
  while (std::getline(in, line) && line.rfind("|", 0) == 0) {
    std::vector<std::string> cells;
    size_t i = 1;
    while (i < line.size()) {
      // A cell ends at a '|' outside backquotes.
      size_t j = i;
      bool quoted = false;
      while (j < line.size() && (line[j] != '|' || quoted)) {
        if (line[j] == '`') quoted = !quoted;
        ++j;
      }
      std::string c = line.substr(i, j - i);
      c.erase(0, c.find_first_not_of(' '));
      c.erase(c.find_last_not_of(' ') + 1);
      cells.push_back(c);
      i = j + 1;
    }
    rows.push_back(cells);
  }
  return rows;
}

// The docs' examples name a curve `fade` and a gradient `heat`.
const ProgramNames kNames{{"fade"}, {"heat"}};

bool compiles(const std::string& text, std::string* why = nullptr) {
  try {
    std::vector<Diagnostic> w;
    Program::compile(text, ProgramOrigin{"doc", 1, 1}, w, kNames);
    return true;
  } catch (const Error& e) {
    if (why) *why = e.diagnostics()[0].message;
    return false;
  }
}

// The numbers a "gives" cell states: 1.5, -0.5, true, 0x3F800000, (1, 1).
std::vector<double> expected(std::string cell) {
  std::vector<double> out;
  if (cell.size() > 1 && cell.front() == '(' && cell.find(',') == std::string::npos) return out;
  for (char& c : cell)
    if (c == '(' || c == ')' || c == ',') c = ' ';
  std::istringstream in(cell);
  std::string w;
  while (in >> w) {
    if (w == "true")
      out.push_back(1);
    else if (w == "false")
      out.push_back(0);
    else if (w.rfind("0x", 0) == 0)
      out.push_back(static_cast<double>(std::stoull(w, nullptr, 16)));
    else
      out.push_back(std::stod(w));
  }
  return out;
}

}  // namespace

TEST_CASE("docs/programs.md: the built-in variables' types and access", "[unit]") {
  const auto rows = table(programs_md(), "| name | type | access | meaning |");
  REQUIRE(rows.size() >= 15);
  size_t names = 0;
  for (const auto& r : rows) {
    REQUIRE(r.size() >= 3);
    for (std::string n : {r[0]}) {
      // "`A`, `B` .. `C`" lists several; the ".." ones are USERDATA2..5.
      std::vector<std::string> list;
      static const std::regex kName("`([A-Z_0-9]+)`");
      for (std::sregex_iterator it(n.begin(), n.end(), kName), end; it != end; ++it)
        list.push_back((*it)[1]);
      if (list.size() == 3 && list[1] == "USERDATA1")
        for (const char* u : {"USERDATA2", "USERDATA3", "USERDATA4", "USERDATA5"})
          list.push_back(u);
      for (const std::string& name : list) {
        INFO(name);
        ++names;
        const std::string& type = r[1];
        std::string why;
        CHECK(compiles("void pose() { " + type + " v = " + name + "; CUSTOM.x = 1.0; }", &why));
        INFO(why);
        const bool writable =
            compiles("void pose() { " + type + " v = " + name + "; " + name + " = v; }", &why);
        CHECK(writable == (r[2] == "read-write"));
      }
    }
  }
  CHECK(names == 24);  // with PI, TAU and E
}

TEST_CASE("docs/programs.md: every built-in function's example gives its value", "[unit]") {
  const auto rows = table(programs_md(), "| function | example | gives |");
  REQUIRE(rows.size() >= 25);
  size_t checked = 0;
  for (const auto& r : rows) {
    REQUIRE(r.size() >= 3);
    const std::string example = r[1].substr(1, r[1].size() - 2);  // without the backquotes
    const std::vector<double> want = expected(r[2]);
    INFO(example);
    const std::string text = R"(
      vec4 out4(float x) { return vec4(x, 0.0, 0.0, 0.0); }
      vec4 out4(int x) { return vec4(float(x), 0.0, 0.0, 0.0); }
      vec4 out4(uint x) { return vec4(float(x), 0.0, 0.0, 0.0); }
      vec4 out4(bool x) { return vec4(x ? 1.0 : 0.0, 0.0, 0.0, 0.0); }
      vec4 out4(vec2 x) { return vec4(x, 0.0, 0.0); }
      vec4 out4(vec3 x) { return vec4(x, 0.0); }
      vec4 out4(bvec2 x) { return vec4(x.x ? 1.0 : 0.0, x.y ? 1.0 : 0.0, 0.0, 0.0); }
      void pose() { float w; CUSTOM = out4()" +
                             example + "); }";
    std::string why;
    REQUIRE(compiles(text, &why));
    if (want.empty()) continue;  // a value that depends on the particle
    std::vector<Diagnostic> warnings;
    const auto p = Program::compile(text, ProgramOrigin{"doc", 1, 1}, warnings, kNames);
    const std::vector<Curve> curves{Curve::line(1, 0)};
    const std::vector<ColorCurve> gradients{ColorCurve::constant({1, 0.5, 0})};
    program::Machine m(p->compiled(), 1, {}, 1u, &curves, &gradients);
    m.run(Stage::kPose, 1);
    for (size_t i = 0; i < want.size(); ++i)
      CHECK(m.f(program::kFCustom + static_cast<uint32_t>(i))[0] ==
            Approx(want[i]).epsilon(1e-11).margin(1e-13));
    ++checked;
  }
  CHECK(checked >= 25);
}
