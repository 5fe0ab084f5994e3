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

std::string render_summary(const RenderSummary& s, const std::string& extra) {
  return "{\"type\":\"summary\",\"frames\":" + std::to_string(s.rendered + s.skipped + s.failed) +
         ",\"rendered\":" + std::to_string(s.rendered) +
         ",\"skipped\":" + std::to_string(s.skipped) + ",\"failed\":" + std::to_string(s.failed) +
         ",\"seconds\":" + json_number(std::round(s.seconds * 1e6) / 1e6) +
         ",\"fps\":" + json_number(std::round(s.fps * 1000) / 1000) +
         ",\"particles\":" + std::to_string(s.particles) + ",\"width\":" + std::to_string(s.width) +
         ",\"height\":" + std::to_string(s.height) + ",\"threads\":" + std::to_string(s.threads) +
         ",\"kernel\":\"" + s.kernel +
         "\",\"out_of_space\":" + (s.out_of_space ? "true" : "false") + extra + "}\n";
}

std::string atlas(const std::string& path, const std::string& meta, int width, int height,
                  int columns, int rows, size_t frames, int cell_w, int cell_h, int seam,
                  bool seam_ok) {
  return "{\"type\":\"atlas\",\"path\":" + json_string(path) + ",\"meta\":" + json_string(meta) +
         ",\"width\":" + std::to_string(width) + ",\"height\":" + std::to_string(height) +
         ",\"columns\":" + std::to_string(columns) + ",\"rows\":" + std::to_string(rows) +
         ",\"frames\":" + std::to_string(frames) + ",\"cell\":[" + std::to_string(cell_w) + "," +
         std::to_string(cell_h) + "],\"loop_seam\":" + std::to_string(seam) +
         ",\"seam_ok\":" + (seam_ok ? "true" : "false") + "}\n";
}

std::string diff_size_mismatch(const std::string& a, const std::string& b, int aw, int ah, int bw,
                               int bh) {
  return "{\"type\":\"diff\",\"a\":" + json_string(a) + ",\"b\":" + json_string(b) +
         ",\"size_mismatch\":true,\"a_size\":[" + std::to_string(aw) + "," + std::to_string(ah) +
         "],\"b_size\":[" + std::to_string(bw) + "," + std::to_string(bh) + "]}\n";
}

std::string diff(const std::string& a, const std::string& b, const DiffFigures& f) {
  const std::string worst =
      f.worst_x >= 0 ? "[" + std::to_string(f.worst_x) + "," + std::to_string(f.worst_y) + "]"
                     : "null";
  return "{\"type\":\"diff\",\"a\":" + json_string(a) + ",\"b\":" + json_string(b) +
         ",\"width\":" + std::to_string(f.width) + ",\"height\":" + std::to_string(f.height) +
         ",\"different\":" + std::to_string(f.different) + ",\"ratio\":" + json_number(f.ratio) +
         ",\"antialiased\":" + std::to_string(f.antialiased) +
         ",\"max_channel_diff\":" + std::to_string(f.max_channel_diff) +
         ",\"psnr\":" + json_number(f.psnr_db) + ",\"worst\":" + worst +
         ",\"threshold\":" + json_number(f.threshold) + ",\"same\":" + (f.same ? "true" : "false") +
         "}\n";
}

std::string validate(const std::string& path, const std::vector<Diagnostic>& problems,
                     const std::vector<Diagnostic>& warnings) {
  std::string line = "{\"type\":\"validate\",\"path\":" + json_string(path) +
                     ",\"ok\":" + (problems.empty() ? "true" : "false") + ",\"problems\":[";
  const auto list = [&line](const std::vector<Diagnostic>& diagnostics) {
    for (size_t i = 0; i < diagnostics.size(); ++i) {
      const Diagnostic& d = diagnostics[i];
      line += (i ? "," : "") + std::string("{\"file\":") + json_string(d.loc.file) +
              ",\"line\":" + std::to_string(d.loc.line) + ",\"col\":" + std::to_string(d.loc.col) +
              ",\"message\":" + json_string(d.message) + "}";
    }
  };
  list(problems);
  line += "],\"warnings\":[";
  list(warnings);
  return line + "]}\n";
}

}  // namespace spritz::events
