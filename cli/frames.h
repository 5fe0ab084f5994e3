// Frame lists (-f/--frames), output patterns (-o), chunking
// (--chunk-index/--chunk-count) and how a run's threads are spent on its
// frames, per cli.md. A frame list is kept as ranges,
// never expanded, so a billion frames cost nothing until they are rendered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spritz/raster/frame.h"

namespace spritz {

struct FrameRange {
  int64_t first = 0, last = 0;  // inclusive; last < first walks backwards
  int64_t step = 1;             // > 0
  uint64_t count() const;
  int64_t at(uint64_t i) const;
};

// The most items a frame or seed list may hold (each range of numbers within
// ±2^62): every count and index then fits 64 bits.
inline constexpr uint64_t kMaxListItems = uint64_t{1} << 62;

class FrameList {
 public:
  void add(FrameRange r) { ranges_.push_back(r); }
  uint64_t size() const;
  int64_t at(uint64_t i) const;  // i < size()
  const std::vector<FrameRange>& ranges() const { return ranges_; }

 private:
  std::vector<FrameRange> ranges_;
};

// Comma-separated items `N`, `A-B`, `A-BxS`; negative numbers are absolute
// frame numbers (`-10--2` is -10..-2); A > B renders backwards. Throws
// spritz::Error with a message that shows the grammar.
FrameList parse_frames(std::string_view spec);

// The clock limit of every requested time, in seconds: `--time` values and
// frame times (frame / fps) alike.
inline constexpr double kMaxTimeS = 1e9;

// --time values: every argument split at commas, each item a decimal number
// of seconds (1, 0.5, -2, 1e3) within ±kMaxTimeS. An empty item (`1,,2`, a
// trailing comma) or anything else is an error that names it.
std::vector<double> parse_times(const std::vector<std::string>& args);

// Throws spritz::Error naming the first frame of `list` whose time frame / fps
// lies outside ±kMaxTimeS (a list's extremes are its ranges' ends).
void check_frame_times(const FrameList& list, double fps);

// Seeds for --seeds: the frame grammar, each within [0, 2^32 - 1], at most
// `max_count` of them. Throws spritz::Error.
std::vector<uint32_t> parse_seeds(const std::string& spec, uint64_t max_count);

// "AxB" with 1 <= A, B <= max (--size, --grid, --cell, --sheet); `option`
// names the flag in messages. Throws spritz::Error.
void parse_pair(const std::string& text, const char* option, int max, int* a, int* b);

// The largest output side, px (--size, --scale).
inline constexpr int kMaxOutputSide = 16384;

// Parses "WxH" (each side 1..kMaxOutputSide); throws spritz::Error.
void parse_size(const std::string& text, int* width, int* height);

// Items [begin, end) of slice `index` of `count` contiguous, near-equal slices
// of `total` items.
std::pair<uint64_t, uint64_t> chunk_slice(uint64_t total, uint64_t index, uint64_t count);

// An output path with a frame-number token: `####` (zero-padded to the number
// of #) or printf's `%d` / `%04d` (`%4d` is zero-padded too, as ffmpeg reads
// it). A negative frame keeps its sign.
class OutputPattern {
 public:
  explicit OutputPattern(std::string pattern);  // throws spritz::Error on a malformed token
  bool has_token() const { return has_token_; }
  std::string format(int64_t frame) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_, prefix_, suffix_;
  bool has_token_ = false;
  bool printf_ = false;
  int width_ = 0;
};

// Threads to use: `requested`, or every core when 0.
int thread_count(int requested);

// How a run's threads are spent: `workers` frames in flight at once, each
// drawn with `raster_threads` strip threads. A sequence keeps one frame per
// thread in flight (a frame's encoding then overlaps other frames' drawing,
// and nothing waits on a strip barrier); a single frame, or frames too large
// to hold one per thread within 1 GiB (pixels, and up to `max_particles`
// particles with their sprites), is split into strips instead. The output is
// the same bytes either way.
struct FramePlan {
  int workers = 1, raster_threads = 1;
};
// With motion blur each frame in flight also holds one sample's float image.
// `bytes_each` is what one particle may take (bytes_per_particle).
FramePlan plan_frames(int threads, uint64_t frames, int width, int height, uint64_t max_particles,
                      bool motion_blur = false, size_t bytes_each = kBytesPerParticle);

}  // namespace spritz
