// Motion-vector maps for atlas and render (docs/cli.md, "Motion vectors"),
// and the check that blends two cells with them as an engine does and
// compares the result with the exact render in between.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run_settings.h"
#include "spritz/effect.h"
#include "spritz/raster/motion_vector_encoding.h"
#include "spritz/raster/motion_vector_fit.h"
#include "spritz/raster/motion_vectors.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/sheet.h"
#include "spritz/raster/texture.h"

namespace spritz {

// The options both commands share.
struct MotionArgs {
  std::string output;              // atlas: the sheet; render: a frame pattern
  std::string encoding = "unity";  // unity | sidefx | unreal
  std::optional<double> scale;     // unset: atlas the sheet's extent, render 0.25
  double dilate = 0.5;             // the halo, in displacements (MotionOptions::dilate)
  std::string fit = "exact";       // atlas: exact | blend (fit_motion_to_blend)
  int depth = 16;                  // PNG bits per channel: 16, or 8 on request
  bool check = false;              // atlas: --mv-check
  std::string check_image;         // atlas: --mv-check-image (cell, crossfade, blend, truth)
};

// Checks the options before anything is drawn; throws spritz::Error.
void check_motion_args(const MotionArgs& args, bool atlas);

// RGBA16 vectors (encode_motion) as a PNG of `depth` bits; at 8 bits `px`
// is rounded in place to what the PNG stores (times 257).
std::vector<uint8_t> motion_png(std::vector<uint16_t>& px, int width, int height, int depth,
                                PngMode mode);

// One cell's step: its clock and the clock of the next cell (one step later).
struct MotionStep {
  double clock = 0, next_clock = 0;
};

// The field of one step at width x height through `view`.
void motion_field(const Effect& fx, const TextureSet& textures, const View& view, int width,
                  int height, const MotionStep& step, const MotionOptions& options,
                  MotionField& out);

// A sheet of motion vectors laid out as the colour sheet.
struct MotionSheet {
  std::vector<uint8_t> png;
  std::vector<uint16_t> rgba16;  // the sheet as stored (8-bit values times 257 at --depth 8)
  double scale = 0;
  uint64_t clamped = 0;  // pixels with a component beyond the scale
  uint64_t fitted = 0;   // --mv-fit blend: pixels whose vector the fit changed
};

// The colour sheet as stored and how its cells follow each other: what the
// check and --mv-fit blend read.
struct ColourSheet {
  const std::vector<uint8_t>* pixels = nullptr;  // RGBA8, or RGBA16 as bytes when depth16
  bool depth16 = false;
  std::vector<int> next_cell;  // the cell that follows cell i (-1: none in the sheet)
  LightPass pass = LightPass::kAll;
  double frame_rate = 0;  // for the motion-blur shutter of the in-betweens
};

// With args.fit == "blend" the vectors are fitted to the encoding's blend of
// `colour` (which must then be given) against exact in-betweens at 1/8,
// 3/8, 5/8 and 7/8 of each step; `fitted` gets the pixels changed.
MotionSheet make_motion_sheet(const Effect& fx, const TextureSet& textures, const View& view,
                              const SheetLayout& layout, const std::vector<MotionStep>& steps,
                              const MotionArgs& args, int threads, const RunSettings& settings,
                              const ColourSheet* colour = nullptr);

// What --mv-check measured: the in-betweens at f = 1/4, 1/2, 3/4 of every
// step whose next cell is in the sheet, blended as the encoding's shader
// does from the stored sheets and compared with the exact render there.
struct MotionCheck {
  int inbetweens = 0;
  double crossfade_db = 0, motion_db = 0;
};

// Writes the picture to args.check_image when set.
MotionCheck check_motion_sheet(const Effect& fx, const TextureSet& textures, const View& view,
                               const SheetLayout& layout, const ColourSheet& colour,
                               const MotionSheet& sheet, const std::vector<MotionStep>& steps,
                               const MotionArgs& args, int threads, const RunSettings& settings);

}  // namespace spritz
