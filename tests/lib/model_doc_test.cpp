// docs/model.md is the contract: its test vectors are checked against the
// code here, read from the document itself, so the two cannot drift apart.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "spritz/hash.h"

using namespace spritz;

namespace {

std::string model_md() {
  std::ifstream in(SPRITZ_SOURCE_DIR "/docs/model.md");
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

uint32_t number(const std::string& s) {
  return static_cast<uint32_t>(std::stoul(s, nullptr, 0));
}

}  // namespace

TEST_CASE("docs/model.md's hash test vectors are what the code computes", "[hash]") {
  const std::string doc = model_md();
  const std::regex m_vector(R"(M\((0x[0-9a-f]+|[0-9]+)\) = (0x[0-9a-f]+))");
  int ms = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), m_vector);
       it != std::sregex_iterator(); ++it, ++ms) {
    INFO((*it)[0].str());
    CHECK(mix32(number((*it)[1])) == number((*it)[2]));
  }
  CHECK(ms == 4);
  const std::regex s_vector(
      R"(stream\(([0-9]+), ([0-9]+)\) += (0x[0-9a-f]+) +units ([0-9.]+) ([0-9.]+) ([0-9.]+))");
  int streams = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), s_vector);
       it != std::sregex_iterator(); ++it, ++streams) {
    INFO((*it)[0].str());
    const uint32_t st = particle_stream(number((*it)[1]), number((*it)[2]));
    CHECK(st == number((*it)[3]));
    for (uint32_t ch = 0; ch < 3; ++ch)
      CHECK(std::abs(unit_raw(st, ch) - std::stod((*it)[4 + ch])) < 5e-10);
  }
  CHECK(streams == 3);
  // The constants of the formulas, as the document writes them.
  for (const char* constant :
       {"x + 0x9E3779B9", "* 0x21F0AAAD", "* 0x735A2D97", "(key + 1) * 0x9E3779B1",
        "(ch + 1) * 0x85EBCA77", "(e + 1) * 0x85EBCA77"})
    CHECK_THAT(doc, Catch::Contains(constant));
}

TEST_CASE("docs/model.md's channel table numbers the code's channels", "[hash]") {
  const std::string doc = model_md();
  const std::pair<Channel, const char*> rows[] = {
      {Channel::kLifetime, "| 0 | lifetime |"},
      {Channel::kSpeed, "| 1 | speed |"},
      {Channel::kSpread, "| 2 | spread angle |"},
      {Channel::kRotation, "| 3 | initial rotation |"},
      {Channel::kRotationSpeed, "| 4 | rotation speed |"},
      {Channel::kSizeEnvelope, "| 5 | size envelope roll |"},
      {Channel::kTransparencyEnvelope, "| 6 | transparency envelope roll |"},
      {Channel::kSquashEnvelope, "| 7 | squash envelope roll |"},
      {Channel::kShapeU, "| 8 | shape u |"},
      {Channel::kShapeV, "| 9 | shape v |"},
      {Channel::kInOutCoin, "| 10 | in/out coin |"},
      {Channel::kFlipbookStart, "| 11 | flipbook start cell |"},
      {Channel::kFlipbookRate, "| 12 | flipbook frame rate |"},
      {Channel::kColorEnvelope, "| 15 | colour envelope roll"},
      {Channel::kNoisePhase, "| 16 | turbulence phase |"},
      {Channel::kTurbulenceX, "| 17 | seed of the turbulence x field"},
      {Channel::kTurbulenceY, "| 18 | seed of the turbulence y field"},
      {Channel::kTurbulenceEnvelope, "| 19 | turbulence amplitude envelope roll |"},
      {Channel::kDamping, "| 34 | damping (6.3) |"},
      {Channel::kOrbitVelocity, "| 35 | orbit velocity (6.4) |"},
      {Channel::kProgramNoise, "| 37 | seed of a program's noise field"},
      {Channel::kGodotRandomSeed, "| 38 | a Godot shader's RANDOM_SEED"},
  };
  for (const auto& [channel, row] : rows) {
    INFO(row);
    const std::string n = std::to_string(static_cast<uint32_t>(channel));
    CHECK_THAT(doc, Catch::Contains(row));
    CHECK(std::string(row).rfind("| " + n + " |", 0) == 0);
  }
  CHECK_THAT(doc, Catch::Contains("| 14 + 32w | flipbook random cell"));
  CHECK_THAT(doc, Catch::Contains("| 48 + k | size envelope roll of key k"));
  CHECK_THAT(doc, Catch::Contains("| 80 + k | transparency envelope roll of key k"));
  CHECK_THAT(doc, Catch::Contains("| 112 + k | squash envelope roll of key k"));
  CHECK(static_cast<uint32_t>(Channel::kSizeKeyEnvelope0) == 48);
  CHECK(static_cast<uint32_t>(Channel::kTransparencyKeyEnvelope0) == 80);
  CHECK(static_cast<uint32_t>(Channel::kSquashKeyEnvelope0) == 112);
  for (uint32_t k = 0; k < 20; ++k)
    for (uint32_t base : {48u, 80u, 112u}) CHECK((base + k) % 32 != 14);
  CHECK(flipbook_window_channel(0) == 14);
  CHECK(flipbook_window_channel(2) == 14 + 64);
}
