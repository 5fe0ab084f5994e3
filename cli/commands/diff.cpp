#include "spritz/raster/diff.h"

#include <cmath>
#include <cstdio>

#include "commands/diff.h"
#include "events.h"
#include "io/io.h"
#include "json.h"
#include "spritz/raster/png.h"

namespace spritz {
namespace {

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", ratio * 100);
  return buf;
}

}  // namespace

int run_diff(const DiffArgs& args) {
  if (!(args.threshold >= 0 && args.threshold <= 1))
    throw Error("--threshold must be within [0, 1]");
  if (args.max_diff_pixels && *args.max_diff_pixels < 0)
    throw Error("--max-diff-pixels must not be negative");
  if (args.max_diff_ratio && !(*args.max_diff_ratio >= 0 && *args.max_diff_ratio <= 1))
    throw Error("--max-diff-ratio must be within [0, 1]");
  if (args.max_channel_diff && !(*args.max_channel_diff >= 0 && *args.max_channel_diff <= 255))
    throw Error("--max-channel-diff must be within 0..255");
  if (!args.output.empty()) output_format(args.output, /*hdr_ok=*/false, "-o");
  const DecodedPng a = decode_png(read_binary_file(args.a), args.a);
  const DecodedPng b = decode_png(read_binary_file(args.b), args.b);
  if (a.width != b.width || a.height != b.height) {
    if (args.json) {
      const std::string line =
          events::diff_size_mismatch(args.a, args.b, a.width, a.height, b.width, b.height);
      std::fwrite(line.data(), 1, line.size(), stdout);
    }
    std::fprintf(stderr, "spritz: %s is %dx%d but %s is %dx%d\n", args.a.c_str(), a.width, a.height,
                 args.b.c_str(), b.width, b.height);
    return kExitSizeMismatch;
  }
  DiffOptions options;
  options.threshold = args.threshold;
  options.detect_antialiasing = args.antialiasing;
  options.want_image = !args.output.empty();
  const DiffResult r = diff_images(a.rgba.data(), b.rgba.data(), a.width, a.height, options);
  if (!args.output.empty()) {
    const std::vector<uint8_t> png = encode_png(r.image.data(), a.width, a.height);
    write_file_atomic(args.output, png.data(), png.size());
  }
  const bool same = r.within(args.max_diff_pixels.value_or(-1), args.max_diff_ratio.value_or(-1),
                             args.max_channel_diff.value_or(-1));
  if (args.json) {
    events::DiffFigures f;
    f.width = a.width;
    f.height = a.height;
    f.different = r.different;
    f.antialiased = r.antialiased;
    f.ratio = r.ratio();
    f.psnr_db = r.psnr_db;
    f.threshold = args.threshold;
    f.max_channel_diff = r.max_channel_diff;
    f.worst_x = r.worst_x;
    f.worst_y = r.worst_y;
    f.same = same;
    const std::string line = events::diff(args.a, args.b, f);
    std::fwrite(line.data(), 1, line.size(), stdout);
  } else if (!args.quiet) {
    std::printf("%llu of %llu pixels differ (%s)", static_cast<unsigned long long>(r.different),
                static_cast<unsigned long long>(r.total), percent(r.ratio()).c_str());
    if (args.antialiasing)
      std::printf(", %llu anti-aliased ignored", static_cast<unsigned long long>(r.antialiased));
    std::printf(", max channel diff %d, PSNR %s", r.max_channel_diff,
                std::isfinite(r.psnr_db)
                    ? (json_number(std::round(r.psnr_db * 100) / 100) + " dB").c_str()
                    : "inf");
    if (r.worst_x >= 0) std::printf(", worst pixel at (%d, %d)", r.worst_x, r.worst_y);
    std::printf("%s\n", same ? "" : " - different");
  }
  return same ? kExitOk : kExitDifferent;
}

}  // namespace spritz

namespace spritz {

Command add_diff_command(CLI::App& app, RunOptions&) {
  auto args = std::make_shared<DiffArgs>();
  DiffArgs& a = *args;
  CLI::App* d = app.add_subcommand("diff", "Compare two PNG images (pixelmatch's YIQ threshold)");
  d->add_option("a", a.a, "First image (the reference)")->required();
  d->add_option("b", a.b, "Second image")->required();
  d->add_option(
      "-o,--output", a.output,
      "Write a diff image: red = different, yellow = anti-aliasing, faded grey A elsewhere");
  d->add_option("--threshold", a.threshold,
                "Perceptual threshold in YIQ space, 0..1 (default 0.1)");
  d->add_flag("--aa", a.antialiasing, "Detect anti-aliased pixels and do not count them");
  d->add_option_function<int64_t>(
      "--max-diff-pixels", [&a](int64_t v) { a.max_diff_pixels = v; },
      "Differing pixels allowed (default: none unless --max-diff-ratio is given)");
  d->add_option_function<double>(
      "--max-diff-ratio", [&a](double v) { a.max_diff_ratio = v; },
      "Ratio of differing pixels allowed, 0..1 (with both limits, both must hold)");
  d->add_option_function<int>(
      "--max-channel-diff", [&a](int v) { a.max_channel_diff = v; },
      "Largest channel difference allowed, 0..255, whatever the pixel limits (0: exact)");
  d->add_flag("--json", a.json, "One JSON object on stdout");
  d->add_flag("-q,--quiet", a.quiet, "Print nothing; the exit code tells");
  d->footer(
      "Examples:\n  spritz diff golden.png actual.png -o diff.png\n"
      "  spritz diff a.png b.png --threshold 0.05 --max-diff-pixels 10 --json\n"
      "Exit codes: 0 same within tolerance, 1 different, 2 usage or I/O error, 3 size mismatch.");
  return {d, SettingsUse{}, [args](const RunSettings&) { return run_diff(*args); }};
}

}  // namespace spritz
