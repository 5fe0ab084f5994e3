#include "frames.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>

#include "spritz/error.h"

namespace spritz {
namespace {

// The widest frame token: wider than any 64-bit frame number needs.
constexpr int kMaxFrameDigits = 32;

constexpr const char* kGrammar =
    "expected comma-separated frames N, A-B or A-BxS (e.g. 0-59, 0-100x10, 5,7,-3--1)";

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  throw Error("bad frame list '" + std::string(spec) + "': " + why + "; " + kGrammar);
}

// Parses an optionally negative integer at `pos`.
int64_t parse_int(std::string_view s, size_t& pos, std::string_view spec) {
  const size_t start = pos;
  bool negative = false;
  if (pos < s.size() && s[pos] == '-') {
    negative = true;
    ++pos;
  }
  if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos])))
    bad(spec, "a number was expected at '" + std::string(s.substr(start)) + "'");
  uint64_t v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    v = v * 10 + static_cast<uint64_t>(s[pos] - '0');
    if (v > static_cast<uint64_t>(1) << 62) bad(spec, "frame number too large");
    ++pos;
  }
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

}  // namespace

// Frame numbers are within ±2^62 (parse_int), so a range spans at most 2^63
// frames: its span and offsets are computed in unsigned arithmetic, where
// they fit and nothing overflows.
uint64_t FrameRange::count() const {
  const uint64_t span = last >= first ? static_cast<uint64_t>(last) - static_cast<uint64_t>(first)
                                      : static_cast<uint64_t>(first) - static_cast<uint64_t>(last);
  return span / static_cast<uint64_t>(step) + 1;
}

int64_t FrameRange::at(uint64_t i) const {
  const uint64_t d = i * static_cast<uint64_t>(step);  // at most the span
  const uint64_t f = static_cast<uint64_t>(first);
  return static_cast<int64_t>(last >= first ? f + d : f - d);
}

uint64_t FrameList::size() const {
  // Saturating: parse_frames refuses lists of more than kMaxListItems.
  uint64_t n = 0;
  for (const FrameRange& r : ranges_) {
    const uint64_t c = r.count();
    n = c > std::numeric_limits<uint64_t>::max() - n ? std::numeric_limits<uint64_t>::max() : n + c;
  }
  return n;
}

int64_t FrameList::at(uint64_t i) const {
  for (const FrameRange& r : ranges_) {
    const uint64_t n = r.count();
    if (i < n) return r.at(i);
    i -= n;
  }
  return 0;
}

std::vector<double> parse_times(const std::vector<std::string>& args) {
  std::vector<double> times;
  for (const std::string& arg : args) {
    auto bad_time = [&arg](const std::string& why) {
      throw Error("--time '" + arg + "': " + why +
                  "; expected comma-separated seconds, e.g. --time 0.5,1,1.5");
    };
    size_t start = 0;
    while (true) {
      const size_t comma = arg.find(',', start);
      std::string_view item = std::string_view(arg).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (item.empty()) bad_time("an item is empty");
      if (item.front() == '+') item.remove_prefix(1);
      double t = 0;
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), t);
      if (ec != std::errc() || end != item.data() + item.size())
        bad_time("'" + std::string(item) + "' is not a number of seconds");
      if (!(std::abs(t) <= kMaxTimeS))
        bad_time("'" + std::string(item) + "' is not a finite time within ±1e9 s (about 32 years)");
      times.push_back(t);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return times;
}

void check_frame_times(const FrameList& list, double fps) {
  for (const FrameRange& r : list.ranges()) {
    for (const int64_t f : {r.first, r.at(r.count() - 1)}) {
      const double t = static_cast<double>(f) / fps;
      if (std::abs(t) <= kMaxTimeS) continue;
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "frame %lld at %.9g fps is at %.3g s; frame times (frame / fps) "
                    "must be within ±1e9 s, like --time",
                    static_cast<long long>(f), fps, t);
      throw Error(buf);
    }
  }
}

FrameList parse_frames(std::string_view spec) {
  FrameList list;
  if (spec.empty()) bad(spec, "it is empty");
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = spec.find(',', start);
    const std::string_view item = spec.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) bad(spec, "an item is empty");
    size_t pos = 0;
    FrameRange r;
    r.first = r.last = parse_int(item, pos, spec);
    if (pos < item.size() && item[pos] == '-') {
      ++pos;
      r.last = parse_int(item, pos, spec);
      if (pos < item.size() && (item[pos] == 'x' || item[pos] == 'X')) {
        ++pos;
        const size_t at = pos;
        r.step = parse_int(item, pos, spec);
        if (item[at] == '-' || r.step <= 0) bad(spec, "the step must be a positive number");
      }
    }
    if (pos != item.size()) bad(spec, "unexpected '" + std::string(item.substr(pos)) + "'");
    list.add(r);
    if (list.size() > kMaxListItems)
      bad(spec, "it holds more than 2^62 frames, the most a list may hold");
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return list;
}

std::vector<uint32_t> parse_seeds(const std::string& spec, uint64_t max_count) {
  FrameList list;
  try {
    list = parse_frames(spec);
  } catch (const Error& e) {
    if (std::string(e.what()).find("more than 2^62") != std::string::npos)
      throw Error("--seeds: at most " + std::to_string(max_count) + " seeds at once");
    throw Error("--seeds expects seeds N, A-B or A-BxS, comma-separated (e.g. 1-16), got '" + spec +
                "'");
  }
  if (list.size() > max_count)
    throw Error("--seeds: at most " + std::to_string(max_count) + " seeds at once, got " +
                std::to_string(list.size()));
  std::vector<uint32_t> seeds;
  for (uint64_t i = 0; i < list.size(); ++i) {
    const int64_t s = list.at(i);
    if (s < 0 || s > 0xffffffffll)
      throw Error("--seeds: seeds must be within [0, 4294967295], got " + std::to_string(s));
    seeds.push_back(static_cast<uint32_t>(s));
  }
  return seeds;
}

void parse_pair(const std::string& text, const char* option, int max, int* a, int* b) {
  unsigned long long x = 0, y = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%llux%llu%c", &x, &y, &extra) != 2)
    throw Error(std::string(option) + " expects AxB (e.g. 512x512), got '" + text + "'");
  if (x < 1 || y < 1 || x > static_cast<unsigned long long>(max) ||
      y > static_cast<unsigned long long>(max))
    throw Error(std::string(option) + " " + text + ": each value must be within [1, " +
                std::to_string(max) + "]");
  *a = static_cast<int>(x);
  *b = static_cast<int>(y);
}

std::pair<uint64_t, uint64_t> chunk_slice(uint64_t total, uint64_t index, uint64_t count) {
  __extension__ typedef unsigned __int128 u128;
  const uint64_t begin = static_cast<uint64_t>(u128(total) * index / count);
  const uint64_t end = static_cast<uint64_t>(u128(total) * (index + 1) / count);
  return {begin, end};
}

OutputPattern::OutputPattern(std::string pattern) : pattern_(std::move(pattern)) {
  const std::string& p = pattern_;
  const size_t hash = p.find('#');
  size_t percent = std::string::npos;
  size_t percent_end = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != '%') continue;
    if (i + 1 < p.size() && p[i + 1] == '%') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
    if (j < p.size() && p[j] == 'd' && percent == std::string::npos) {
      percent = i;
      percent_end = j + 1;
    } else {
      throw Error("output pattern '" + p + "': only %d or %0Nd is supported as a frame token");
    }
  }
  if (hash != std::string::npos && percent != std::string::npos)
    throw Error("output pattern '" + p + "' has both #### and %d tokens; use one");
  if (hash != std::string::npos) {
    size_t end = hash;
    while (end < p.size() && p[end] == '#') ++end;
    if (p.find('#', end) != std::string::npos)
      throw Error("output pattern '" + p + "' has more than one #### token");
    has_token_ = true;
    prefix_ = p.substr(0, hash);
    suffix_ = p.substr(end);
    width_ = static_cast<int>(end - hash);
  } else if (percent != std::string::npos) {
    has_token_ = true;
    printf_ = true;
    prefix_ = p.substr(0, percent);
    suffix_ = p.substr(percent_end);
    const std::string digits = p.substr(percent + 1, percent_end - percent - 2);
    // %5d pads with zeros as well, as ffmpeg's image2 pattern reads it: a
    // space-padded file name ("f_    1.png") would not be found by `-i f_%5d.png`.
    // Read without overflow: anything past 33 is too wide anyway.
    width_ = 0;
    for (const char c : digits) width_ = std::min(33, width_ * 10 + (c - '0'));
  }
  if (width_ > kMaxFrameDigits)
    throw Error("output pattern '" + p + "': the frame token asks for " +
                (printf_ && width_ == 33 ? "more than 32" : std::to_string(width_)) +
                " digits; at most 32 (####, %0Nd)");
  auto unescape = [](std::string s) {
    for (size_t i = 0; (i = s.find("%%", i)) != std::string::npos; ++i) s.erase(i, 1);
    return s;
  };
  if (!has_token_) {
    prefix_ = unescape(p);
  } else {
    prefix_ = unescape(prefix_);
    suffix_ = unescape(suffix_);
  }
}

std::string OutputPattern::format(int64_t frame) const {
  if (!has_token_) return prefix_;
  char buf[64];
  if (printf_) {
    // printf's %0Nd: the width includes the sign.
    std::snprintf(buf, sizeof buf, "%0*lld", width_, static_cast<long long>(frame));
  } else {
    // ####: the sign, then at least `width` digits.
    const unsigned long long mag = frame < 0 ? 0ull - static_cast<unsigned long long>(frame)
                                             : static_cast<unsigned long long>(frame);
    std::snprintf(buf, sizeof buf, "%s%0*llu", frame < 0 ? "-" : "", width_, mag);
  }
  return prefix_ + buf + suffix_;
}

void parse_size(const std::string& text, int* width, int* height) {
  parse_pair(text, "--size", kMaxOutputSide, width, height);
}

int thread_count(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

FramePlan plan_frames(int threads, uint64_t frames, int width, int height, uint64_t max_particles,
                      bool motion_blur, size_t bytes_each) {
  constexpr double kFrameBudget = 1024.0 * 1024 * 1024;  // bytes of frames in flight
  // Per frame in flight: the float buffer, the RGBA8 copy and the PNG, and
  // the same again in the report window; and each renderer's particles and
  // sprites (an effect of ten million particles takes about 4 GB per frame
  // in flight, so it is drawn one frame at a time, in strips).
  const double frame_bytes = (2.0 * 24.0 + (motion_blur ? 16.0 : 0.0)) * width * height +
                             static_cast<double>(bytes_each) * static_cast<double>(max_particles);
  const double fit = std::max(1.0, std::floor(kFrameBudget / frame_bytes));
  FramePlan plan;
  plan.workers = static_cast<int>(std::max<double>(
      1, std::min({static_cast<double>(threads), static_cast<double>(frames), fit})));
  plan.raster_threads = std::max(1, threads / plan.workers);
  return plan;
}

}  // namespace spritz
