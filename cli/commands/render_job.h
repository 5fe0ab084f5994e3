// The pure steps of `spritz render`, in two: the arguments parsed and
// checked once into a RenderRequest before any effect is loaded, then, for
// each effect (one per seed), the request and the effect into a RenderJob
// (size, frame rate, the work list and this chunk of it, the output and its
// format, the thread plan). No file is read or written; every bad
// combination of options is an Error here, before anything is drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands/render.h"
#include "frames.h"
#include "io/outputs.h"
#include "spritz/effect.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/motion_vector_encoding.h"

namespace spritz {

// Frame units at full scale for render --motion-vectors (docs/cli.md): a
// quarter of the frame per frame interval.
inline constexpr double kRenderMotionScale = 0.25;

// What `render` was asked for, every option parsed and checked.
struct RenderRequest {
  std::vector<std::optional<int64_t>> seeds;  // an effect per entry (--seeds), or --seed alone
  std::optional<FrameList> frames;            // -f as given (unchecked against the fps yet)
  std::vector<double> times;                  // --time
  std::optional<double> fps;
  std::optional<std::pair<int, int>> size;             // --size
  std::optional<double> scale;                         // --scale (> 0, finite)
  std::optional<std::pair<uint64_t, uint64_t>> chunk;  // --chunk-index, --chunk-count
  std::string output;                                  // -o with {seed} kept; empty: the default
  bool raw = false;                                    // -o -: RGBA8 to stdout
  ImageFormat format = ImageFormat::kPng;
  int depth = 8;  // PNG bits per channel
  LightPass pass = LightPass::kAll;
  std::optional<MotionEncoding> motion;  // --motion-vectors: the encoding
  std::string motion_output;             // its pattern, {seed} kept
  double motion_scale = kRenderMotionScale;
  double motion_dilate = 0.5;
  int motion_depth = 16;
  int threads = 1;
};

// Parses and checks `args` (times already parsed by parse_times); throws
// spritz::Error.
RenderRequest parse_render_request(const RenderArgs& args);

// One entry of the work list: a frame number, or an explicit time.
struct RenderItem {
  int64_t number = 0;  // the frame, or the time's index with --time
  double time = 0;     // requested time, s
  double clock = 0;    // effect clock
};

struct RenderJob {
  int width = 0, height = 0;  // output pixels
  double fps = 30;
  bool by_time = false;         // --time: the items are `times`
  FrameList frames;             // otherwise the frames
  std::vector<double> times;    // with --time
  uint64_t total = 0;           // items in the whole list
  uint64_t begin = 0, end = 0;  // this chunk's items (--chunk-index/--chunk-count)
  OutputPattern pattern{"-"};
  std::optional<OutputPattern> motion;  // --motion-vectors: a map per frame
  bool raw = false;                     // -o -: RGBA8 to stdout
  bool hdr = false;                     // Radiance .hdr files
  bool exr = false;                     // OpenEXR .exr files
  int depth = 8;                        // PNG bits per channel
  int threads = 1;
  FramePlan plan;

  // Item i of the list (i < total) for effect `fx`.
  RenderItem item(const Effect& fx, uint64_t i) const;
};

// `s` with every `from` replaced by `to` ({seed} in output patterns).
std::string replace_all(std::string s, const std::string& from, const std::string& to);

// Renders `item` and encodes it as the 8-bit PNG `render` writes (its text
// chunks included), strip by strip (FrameRenderer::render_png). Returns
// the particles alive. `preview` serves the same bytes.
// The PNG comes in parts that follow one another (PngWriter::finish_parts).
uint64_t render_frame_png(FrameRenderer& r, const Effect& fx, const RenderItem& item,
                          std::vector<std::vector<uint8_t>>& png);

// The job for one effect; `output` is the pattern after {seed}
// substitution ("-" for stdout).
RenderJob make_render_job(const RenderRequest& request, const Effect& fx,
                          const std::string& output);

}  // namespace spritz
