#include "events.h"

#include <cmath>

#include "json.h"

namespace spritz::events {

std::string seed_field(bool has_seed, int64_t seed) {
  return has_seed ? ",\"seed\":" + std::to_string(seed) : "";
}

std::string frame(int64_t number, double time, double clock, const std::string& path,
                  const std::string& seed_field, uint64_t particles, double ms) {
  return "{\"type\":\"frame\",\"frame\":" + std::to_string(number) +
         ",\"time\":" + json_number(time) + ",\"clock\":" + json_number(clock) +
         ",\"path\":" + json_string(path) + seed_field +
         ",\"particles\":" + std::to_string(particles) +
         ",\"ms\":" + json_number(std::round(ms * 1000) / 1000) + "}\n";
}

std::string frame_skipped(int64_t number, double time, const std::string& path,
                          const std::string& seed_field) {
  return "{\"type\":\"frame\",\"frame\":" + std::to_string(number) +
         ",\"time\":" + json_number(time) + ",\"path\":" + json_string(path) + seed_field +
         ",\"skipped\":true}\n";
}

std::string frame_error(int64_t number, const std::string& message) {
  return "{\"type\":\"error\",\"frame\":" + std::to_string(number) +
         ",\"message\":" + json_string(message) + "}\n";
}

std::string check(const std::string& effect, double time, const std::string& golden,
                  const std::string& status, uint64_t different, double ratio, int max_channel,
                  const std::string& actual, const std::string& diff) {
  return "{\"type\":\"check\",\"effect\":" + json_string(effect) +
         ",\"time\":" + json_number(time) + ",\"golden\":" + json_string(golden) +
         ",\"status\":\"" + status + "\",\"different\":" + std::to_string(different) +
         ",\"ratio\":" + json_number(ratio) +
         ",\"max_channel_diff\":" + std::to_string(max_channel) +
         ",\"actual\":" + (actual.empty() ? "null" : json_string(actual)) +
         ",\"diff\":" + (diff.empty() ? "null" : json_string(diff)) + "}\n";
}

std::string check_summary(uint64_t checked, uint64_t failed, uint64_t updated) {
  return "{\"type\":\"summary\",\"checked\":" + std::to_string(checked) +
         ",\"failed\":" + std::to_string(failed) + ",\"updated\":" + std::to_string(updated) +
         "}\n";
}

}  // namespace spritz::events
