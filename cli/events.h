// The NDJSON events commands print with --json (docs/cli.md): one object per
// line, built here and nowhere else, so every command spells a field the
// same way. Each function returns the line, newline included.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spritz/error.h"

namespace spritz::events {

// {"type":"frame","frame":N,"time":T,"clock":C,"path":P[,"seed":S],"particles":N,"ms":M}
std::string frame(int64_t number, double time, double clock, const std::string& path,
                  const std::string& seed_field, uint64_t particles, double ms);
// {"type":"frame","frame":N,"time":T,"path":P[,"seed":S],"skipped":true}
std::string frame_skipped(int64_t number, double time, const std::string& path,
                          const std::string& seed_field);
// {"type":"error","frame":N,"message":M}
std::string frame_error(int64_t number, const std::string& message);
// ",\"seed\":S" for a frame of a --seeds run, else "".
std::string seed_field(bool has_seed, int64_t seed);

// {"type":"check","effect":E,"time":T,"golden":G,"status":S,"different":N,"ratio":R,
//  "max_channel_diff":M,"actual":A|null,"diff":D|null}
std::string check(const std::string& effect, double time, const std::string& golden,
                  const std::string& status, uint64_t different, double ratio, int max_channel,
                  const std::string& actual, const std::string& diff);
// {"type":"summary","checked":N,"failed":N,"updated":N}
std::string check_summary(uint64_t checked, uint64_t failed, uint64_t updated);

// render's last line: {"type":"summary","frames":N,"rendered":N,"skipped":N,"failed":N,
// "seconds":S,"fps":F,"particles":N,"width":W,"height":H,"threads":T,"kernel":K,
// "out_of_space":B[,"peak_memory_mb":M]}. `extra` is appended as it is.
struct RenderSummary {
  uint64_t rendered = 0, skipped = 0, failed = 0, particles = 0;
  double seconds = 0, fps = 0;
  int width = 0, height = 0, threads = 0;
  std::string kernel;
  bool out_of_space = false;
};
std::string render_summary(const RenderSummary& s, const std::string& extra);

// {"type":"atlas","path":P,"meta":M,"width":W,"height":H,"columns":C,"rows":R,"frames":N,
//  "cell":[W,H],"loop_seam":S,"seam_ok":B}
std::string atlas(const std::string& path, const std::string& meta, int width, int height,
                  int columns, int rows, size_t frames, int cell_w, int cell_h, int seam,
                  bool seam_ok);

// {"type":"diff","a":A,"b":B,"size_mismatch":true,"a_size":[W,H],"b_size":[W,H]}
std::string diff_size_mismatch(const std::string& a, const std::string& b, int aw, int ah, int bw,
                               int bh);
// {"type":"diff","a":A,"b":B,"width":W,"height":H,"different":N,"ratio":R,"antialiased":N,
//  "max_channel_diff":M,"psnr":P,"worst":[X,Y]|null,"threshold":T,"same":B}
struct DiffFigures {
  int width = 0, height = 0;
  uint64_t different = 0, antialiased = 0;
  double ratio = 0, psnr_db = 0, threshold = 0;
  int max_channel_diff = 0, worst_x = -1, worst_y = -1;
  bool same = false;
};
std::string diff(const std::string& a, const std::string& b, const DiffFigures& f);

// {"type":"validate","path":P,"ok":B,"problems":[D...],"warnings":[D...]}, each
// D {"file":F,"line":L,"col":C,"message":M}
std::string validate(const std::string& path, const std::vector<Diagnostic>& problems,
                     const std::vector<Diagnostic>& warnings);

}  // namespace spritz::events
