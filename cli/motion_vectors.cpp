#include "motion_vectors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/io.h"
#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"

namespace spritz {

void check_motion_args(const MotionArgs& args, bool atlas) {
  motion_encoding_from_name(args.encoding);
  if (args.depth != 8 && args.depth != 16)
    throw Error("--mv-depth must be 16 or 8, got " + std::to_string(args.depth));
  if (args.scale && !(*args.scale > 0 && *args.scale <= 1e6))
    throw Error("--mv-scale must be within (0, 1e6] (cell units per unit of the decoded value)");
  if (!(args.dilate >= 0 && args.dilate <= 64))
    throw Error("--mv-dilate must be within [0, 64] (displacements)");
  if ((args.check || !args.check_image.empty()) && args.output.empty())
    throw Error("--mv-check blends the stored motion vectors: give --motion-vectors PATH too");
  if (!atlas && (args.check || !args.check_image.empty()))
    throw Error("--mv-check belongs to atlas (it blends two cells of a sheet)");
  if (args.fit != "exact" && args.fit != "blend")
    throw Error("--mv-fit must be exact or blend, got '" + args.fit + "'");
  if (!atlas && args.fit != "exact")
    throw Error("--mv-fit blend belongs to atlas (it fits the vectors to the blend of two cells)");
  // Only PNG: any other image or video extension is refused by name.
  if (!args.output.empty()) output_format(args.output, /*hdr_ok=*/false, "--motion-vectors");
}

void motion_field(const Effect& fx, const TextureSet& textures, const View& view, int width,
                  int height, const MotionStep& step, const MotionOptions& options,
                  MotionField& out) {
  Frame now, next;
  now.particle_limit = next.particle_limit = particle_limit(2);
  evaluate(fx, step.clock, now);
  evaluate(fx, step.next_clock, next);
  render_motion(fx, textures, now, next, width, height, view, options, out);
}

namespace {

// Rounds a scale up to three significant digits (a number a material can be
// set from), at least 1e-4 cell units.
double nice_scale(double extent) {
  if (!(extent > 1e-4)) return 1e-4;
  const double p = math::pow(10.0, std::floor(math::log10(extent)) - 2);
  return std::ceil(extent / p * (1 - 1e-12)) * p;
}

std::vector<uint8_t> to_bytes16(const std::vector<uint16_t>& v) {
  std::vector<uint8_t> b(v.size() * 2);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

namespace {

std::vector<float> cell_floats(const SheetLayout& L, const std::vector<uint8_t>& sheet,
                               bool depth16, int index);
std::vector<float> truth_floats(const FrameRenderer& r, const Effect& fx, bool depth16);

// The in-betweens --mv-fit blend fits to: none at the check's 1/4, 1/2 and
// 3/4, so the check measures vectors at fractions they were not fitted at.
constexpr double kFitFractions[] = {1.0 / 8, 3.0 / 8, 5.0 / 8, 7.0 / 8};

uint64_t fit_fields(const Effect& fx, const TextureSet& textures, const View& view,
                    const SheetLayout& layout, const std::vector<MotionStep>& steps,
                    const ColourSheet& colour, MotionEncoding enc, int threads,
                    const RunSettings& settings, std::vector<MotionField>& fields) {
  const int w = layout.cell_w, h = layout.cell_h;
  std::vector<std::vector<float>> cells(steps.size());
  for (size_t i = 0; i < steps.size(); ++i)
    cells[i] = cell_floats(layout, *colour.pixels, colour.depth16, static_cast<int>(i));
  const std::unique_ptr<FrameRenderer> renderer =
      make_renderer(fx, w, h, threads, view, textures, settings);
  FrameRenderer& r = *renderer;
  r.set_light_pass(colour.pass);
  r.set_frame_rate(colour.frame_rate);
  std::vector<std::vector<std::vector<float>>> truth(steps.size());
  BlendFit fit;
  fit.next = colour.next_cell;
  fit.fractions.assign(std::begin(kFitFractions), std::end(kFitFractions));
  fit.first_cells_vectors = enc == MotionEncoding::kSideFx;
  fit.threads = threads;
  for (size_t i = 0; i < steps.size(); ++i) {
    fit.cells.push_back(&cells[i]);
    if (colour.next_cell[i] >= 0)
      for (const double f : kFitFractions) {
        r.render(steps[i].clock + f * (steps[i].next_clock - steps[i].clock));
        truth[i].push_back(truth_floats(r, fx, colour.depth16));
      }
  }
  fit.truth.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i)
    for (const std::vector<float>& t : truth[i]) fit.truth[i].push_back(&t);
  return fit_motion_to_blend(fit, w, h, fields);
}

}  // namespace

MotionSheet make_motion_sheet(const Effect& fx, const TextureSet& textures, const View& view,
                              const SheetLayout& layout, const std::vector<MotionStep>& steps,
                              const MotionArgs& args, int threads, const RunSettings& settings,
                              const ColourSheet* colour) {
  const MotionEncoding enc = motion_encoding_from_name(args.encoding);
  MotionOptions opt;
  opt.dilate = args.dilate;
  opt.threads = threads;
  opt.candidates = args.fit == "blend";
  std::vector<MotionField> fields(steps.size());
  for (size_t i = 0; i < steps.size(); ++i)
    motion_field(fx, textures, view, layout.cell_w, layout.cell_h, steps[i], opt, fields[i]);
  MotionSheet sheet;
  if (args.fit == "blend") {
    if (!colour) throw Error("--mv-fit blend needs the colour sheet");
    sheet.fitted =
        fit_fields(fx, textures, view, layout, steps, *colour, enc, threads, settings, fields);
  }
  double extent = 0;
  for (const MotionField& f : fields)
    extent = std::max(extent, motion_extent(f, layout.cell_w, layout.cell_h));
  sheet.scale = args.scale ? *args.scale : nice_scale(extent);
  SheetLayout L = layout;
  L.bytes_per_pixel = 8;
  SheetBuilder builder(L);
  for (size_t i = 0; i < fields.size(); ++i) {
    std::vector<uint16_t> px;
    sheet.clamped += encode_motion(fields[i], layout.cell_w, layout.cell_h, sheet.scale, enc, px);
    builder.place(static_cast<int>(i), to_bytes16(px));
  }
  const std::vector<uint8_t> bytes = builder.finish();
  sheet.rgba16.resize(bytes.size() / 2);
  std::memcpy(sheet.rgba16.data(), bytes.data(), bytes.size());
  // Cells never placed and the power-of-two margin hold no motion.
  const uint16_t neutral = motion_neutral16(enc);
  for (size_t i = 0; i + 3 < sheet.rgba16.size(); i += 4)
    if (sheet.rgba16[i + 3] == 0) {
      sheet.rgba16[i] = sheet.rgba16[i + 1] = neutral;
      sheet.rgba16[i + 3] = 65535;
    }
  sheet.png =
      motion_png(sheet.rgba16, L.sheet_width(), L.sheet_height(), args.depth, settings.png_mode);
  return sheet;
}

std::vector<uint8_t> motion_png(std::vector<uint16_t>& px, int width, int height, int depth,
                                PngMode mode) {
  if (depth == 16) return encode_png16(px.data(), width, height, {}, mode);
  std::vector<uint8_t> px8(px.size());
  for (size_t i = 0; i < px8.size(); ++i) {
    px8[i] = static_cast<uint8_t>((px[i] + 128) / 257);
    px[i] = static_cast<uint16_t>(px8[i] * 257);  // as stored
  }
  return encode_png(px8.data(), width, height, {}, mode);
}

namespace {

// Cell `index` of a stored sheet as straight-alpha floats in [0, 1].
std::vector<float> cell_floats(const SheetLayout& L, const std::vector<uint8_t>& sheet,
                               bool depth16, int index) {
  std::vector<float> out(static_cast<size_t>(L.cell_w) * static_cast<size_t>(L.cell_h) * 4);
  const size_t sw = static_cast<size_t>(L.sheet_width());
  const int x0 = L.cell_x(index), y0 = L.cell_y(index);
  for (int y = 0; y < L.cell_h; ++y)
    for (int x = 0; x < L.cell_w; ++x)
      for (int c = 0; c < 4; ++c) {
        const size_t at = ((static_cast<size_t>(y0 + y) * sw + static_cast<size_t>(x0 + x)) * 4 +
                           static_cast<size_t>(c));
        uint16_t v16;
        if (depth16) std::memcpy(&v16, &sheet[at * 2], 2);
        out[(static_cast<size_t>(y) * static_cast<size_t>(L.cell_w) + static_cast<size_t>(x)) * 4 +
            static_cast<size_t>(c)] =
            depth16 ? static_cast<float>(v16 / 65535.0) : static_cast<float>(sheet[at] / 255.0);
      }
  return out;
}

// Cell `index`'s motion as a shader of `enc` reads it from the stored sheet.
std::vector<float> cell_motion(const SheetLayout& L, const MotionSheet& sheet, MotionEncoding enc,
                               int index) {
  std::vector<float> out(static_cast<size_t>(L.cell_w) * static_cast<size_t>(L.cell_h) * 2);
  const size_t sw = static_cast<size_t>(L.sheet_width());
  const int x0 = L.cell_x(index), y0 = L.cell_y(index);
  for (int y = 0; y < L.cell_h; ++y)
    for (int x = 0; x < L.cell_w; ++x) {
      const size_t at = (static_cast<size_t>(y0 + y) * sw + static_cast<size_t>(x0 + x)) * 4;
      double dx, dy;
      decode_motion(sheet.rgba16[at] / 65535.0, sheet.rgba16[at + 1] / 65535.0, L.cell_w, L.cell_h,
                    sheet.scale, enc, dx, dy);
      const size_t i =
          static_cast<size_t>(y) * static_cast<size_t>(L.cell_w) + static_cast<size_t>(x);
      out[2 * i] = static_cast<float>(dx);
      out[2 * i + 1] = static_cast<float>(dy);
    }
  return out;
}

// Straight-alpha floats of the renderer's image, stored as the sheet stores it.
std::vector<float> truth_floats(const FrameRenderer& r, const Effect& fx, bool depth16) {
  std::vector<float> out;
  if (depth16) {
    std::vector<uint16_t> px;
    encode_rgba16(r.image(), fx.canvas.tonemap, AlphaMode::kStraight, px);
    out.resize(px.size());
    for (size_t i = 0; i < px.size(); ++i) out[i] = static_cast<float>(px[i] / 65535.0);
  } else {
    std::vector<uint8_t> px;
    encode_rgba8(r.image(), fx.canvas.tonemap, AlphaMode::kStraight, px);
    out.resize(px.size());
    for (size_t i = 0; i < px.size(); ++i) out[i] = static_cast<float>(px[i] / 255.0);
  }
  return out;
}

// The picture: cell, crossfade, motion-vector blend and truth side by side,
// each composited over a dark grey, with a 4 px gap.
void write_check_image(const std::string& path, int w, int h,
                       const std::vector<const std::vector<float>*>& panels, PngMode mode) {
  constexpr int kGap = 4;
  const int n = static_cast<int>(panels.size());
  const int W = n * w + (n + 1) * kGap, H = h + 2 * kGap;
  std::vector<uint8_t> px(static_cast<size_t>(W) * static_cast<size_t>(H) * 4, 255);
  for (size_t i = 0; i < px.size(); i += 4) px[i] = px[i + 1] = px[i + 2] = 12;
  constexpr double kGrey = 0.18;
  for (int k = 0; k < n; ++k)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float* s = &(*panels[static_cast<size_t>(
            k)])[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4];
        uint8_t* d = &px[(static_cast<size_t>(y + kGap) * static_cast<size_t>(W) +
                          static_cast<size_t>(kGap + k * (w + kGap) + x)) *
                         4];
        const double a = std::clamp(s[3], 0.0f, 1.0f);
        for (int c = 0; c < 3; ++c)
          d[c] = static_cast<uint8_t>(
              std::lround(255 * std::clamp(s[c] * a + kGrey * (1 - a), 0.0, 1.0)));
      }
  const std::vector<uint8_t> png = encode_png(px.data(), W, H, {}, mode);
  write_file_atomic(path, png.data(), png.size());
}

}  // namespace

MotionCheck check_motion_sheet(const Effect& fx, const TextureSet& textures, const View& view,
                               const SheetLayout& layout, const ColourSheet& colour,
                               const MotionSheet& sheet, const std::vector<MotionStep>& steps,
                               const MotionArgs& args, int threads, const RunSettings& settings) {
  const MotionEncoding enc = motion_encoding_from_name(args.encoding);
  const int w = layout.cell_w, h = layout.cell_h;
  const bool depth16 = colour.depth16;
  const std::vector<int>& next_cell = colour.next_cell;
  const std::unique_ptr<FrameRenderer> renderer =
      make_renderer(fx, w, h, threads, view, textures, settings);
  FrameRenderer& r = *renderer;
  r.set_light_pass(colour.pass);
  r.set_frame_rate(colour.frame_rate);
  const std::vector<float> none(static_cast<size_t>(w) * static_cast<size_t>(h) * 2, 0.0f);
  MotionCheck out;
  double cross_err = 0, motion_err = 0, worst = -1;
  std::vector<float> blend, fade;
  std::vector<float> pic_a, pic_fade, pic_blend, pic_truth;
  for (size_t i = 0; i < steps.size(); ++i) {
    const int j = next_cell[i];
    if (j < 0) continue;
    const std::vector<float> a = cell_floats(layout, *colour.pixels, depth16, static_cast<int>(i));
    const std::vector<float> b = cell_floats(layout, *colour.pixels, depth16, j);
    const std::vector<float> ma = cell_motion(layout, sheet, enc, static_cast<int>(i));
    // SideFX's shader displaces both cells by the first cell's vectors.
    const std::vector<float> mb =
        enc == MotionEncoding::kSideFx ? ma : cell_motion(layout, sheet, enc, j);
    for (const double f : {0.25, 0.5, 0.75}) {
      r.render(steps[i].clock + f * (steps[i].next_clock - steps[i].clock));
      const std::vector<float> truth = truth_floats(r, fx, depth16);
      blend_cells(a, b, none, none, w, h, f, fade);
      blend_cells(a, b, ma, mb, w, h, f, blend);
      const double ec = premultiplied_sq_error(fade, truth);
      cross_err += ec;
      motion_err += premultiplied_sq_error(blend, truth);
      ++out.inbetweens;
      if (f == 0.5 && ec > worst) {
        worst = ec;
        pic_a = a;
        pic_fade = fade;
        pic_blend = blend;
        pic_truth = truth;
      }
    }
  }
  const double values = 4.0 * w * h * out.inbetweens;
  out.crossfade_db = psnr_db(cross_err, values);
  out.motion_db = psnr_db(motion_err, values);
  if (!args.check_image.empty() && worst >= 0)
    write_check_image(args.check_image, w, h, {&pic_a, &pic_fade, &pic_blend, &pic_truth},
                      settings.png_mode);
  return out;
}

}  // namespace spritz
