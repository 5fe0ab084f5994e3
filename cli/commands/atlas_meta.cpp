// The metadata of a sheet (atlas_parts.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "commands/atlas_parts.h"
#include "json.h"
#include "spritz/version.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

std::string pad_index(size_t i, size_t count) {
  const size_t width = std::max<size_t>(2, std::to_string(count - 1).size());
  std::string s = std::to_string(i);
  return std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

}  // namespace

std::string sheet_relative_to_meta(const std::string& sheet, const std::string& meta) {
  const fs::path sheet_abs = fs::absolute(sheet).lexically_normal();
  const fs::path rel =
      sheet_abs.lexically_relative(fs::absolute(meta).lexically_normal().parent_path());
  return (rel.empty() ? sheet_abs : rel).generic_string();
}

std::vector<int64_t> whole_ms_durations(double frame_s, size_t n) {
  const double total_ms = std::round(frame_s * 1000 * static_cast<double>(n));
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const double a = std::round(total_ms * static_cast<double>(i) / static_cast<double>(n));
    const double b = std::round(total_ms * static_cast<double>(i + 1) / static_cast<double>(n));
    out[i] = static_cast<int64_t>(b - a);
  }
  return out;
}

std::string atlas_metadata(const AtlasArgs& args, const AtlasMeta& meta) {
  const Effect& fx = *meta.fx;
  const SheetLayout& layout = *meta.layout;
  const std::vector<Cell>& cells = meta.schedule->cells;
  const double frame_s = meta.schedule->frame_s;
  const int cols = layout.cols, rows = layout.rows, cell_w = layout.cell_w, cell_h = layout.cell_h;
  const int sw = layout.sheet_width(), sh = layout.sheet_height();
  const bool sweep = meta.sweep;
  const int seam = meta.seam;
  const std::string& meta_path = meta.meta_path;
  const AlphaMode alpha = meta.alpha;
  // Metadata: TexturePacker's JSON (hash or array), which Phaser and PixiJS
  // load directly, plus a grid block for engines that only know grids.
  // Aseprite's own form keys frames "0".."N-1" (Phaser's createFromAseprite
  // looks them up so); TexturePacker's hash and array forms name them.
  const bool aseprite = args.meta_format == "aseprite";
  const bool hash = args.meta_format == "hash" || aseprite;
  const std::vector<int64_t> durations = whole_ms_durations(frame_s, cells.size());
  std::vector<std::string> names;
  for (size_t i = 0; i < cells.size(); ++i)
    names.push_back(aseprite ? std::to_string(i)
                    : sweep  ? fx.name + "_seed" + std::to_string(cells[i].number)
                             : fx.name + "_" + pad_index(i, cells.size()));
  std::string j = "{\n  \"frames\": ";
  j += hash ? "{\n" : "[\n";
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string& name = names[i];
    const int x = layout.cell_x(static_cast<int>(i)), y = layout.cell_y(static_cast<int>(i));
    j += hash ? "    " + json_string(name) + ": {"
              : "    {\"filename\": " + json_string(name) + ", ";
    j += "\"frame\": {\"x\": " + std::to_string(x) + ", \"y\": " + std::to_string(y) +
         ", \"w\": " + std::to_string(cell_w) + ", \"h\": " + std::to_string(cell_h) +
         "}, \"rotated\": false, \"trimmed\": false, \"spriteSourceSize\": {\"x\": 0, \"y\": 0, "
         "\"w\": " +
         std::to_string(cell_w) + ", \"h\": " + std::to_string(cell_h) +
         "}, \"sourceSize\": {\"w\": " + std::to_string(cell_w) +
         ", \"h\": " + std::to_string(cell_h) + "}, \"duration\": " + std::to_string(durations[i]) +
         ", \"time\": " + json_number(cells[i].time) + "}";
    j += i + 1 < cells.size() ? ",\n" : "\n";
  }
  j += hash ? "  },\n" : "  ],\n";
  // PixiJS's Spritesheet plays `animations` (a tag's frame names in order).
  j += "  \"animations\": {" + json_string(fx.name) + ": [";
  for (size_t i = 0; i < names.size(); ++i) j += (i ? ", " : "") + json_string(names[i]);
  j += "]},\n";
  j += "  \"meta\": {\n";
  j += "    \"app\": \"spritz\",\n    \"version\": \"" SPRITZ_VERSION "\",\n";
  j += "    \"image\": " + json_string(sheet_relative_to_meta(args.output, meta_path)) + ",\n";
  j += std::string("    \"format\": \"") + (args.depth == 16 ? "RGBA16161616" : "RGBA8888") +
       "\",\n";
  j += "    \"size\": {\"w\": " + std::to_string(sw) + ", \"h\": " + std::to_string(sh) + "},\n";
  j += "    \"scale\": \"1\",\n";
  j += "    \"premultipliedAlpha\": " +
       std::string(alpha == AlphaMode::kPremultiplied ? "true" : "false") + ",\n";
  j += "    \"frameTags\": [{\"name\": " + json_string(fx.name) +
       ", \"from\": 0, \"to\": " + std::to_string(cells.size() - 1) + ", \"direction\": \"" +
       args.direction + "\"}],\n";
  j += "    \"grid\": {\"columns\": " + std::to_string(cols) +
       ", \"rows\": " + std::to_string(rows) + ", \"frameWidth\": " + std::to_string(cell_w) +
       ", \"frameHeight\": " + std::to_string(cell_h) +
       ", \"padding\": " + std::to_string(args.padding) +
       ", \"count\": " + std::to_string(cells.size()) + ", \"fps\": " + json_number(1 / frame_s) +
       ", \"loop\": " + (fx.loop ? "true" : "false") + "},\n";
  j += "    \"spritz\": {\"effect\": " + json_string(fx.name) +
       ", \"seed\": " + std::to_string(fx.seed) + ", \"effect_hash\": \"" + hex64(fx.content_hash) +
       "\", \"loop_seam\": " + (sweep ? std::string("null") : std::to_string(seam)) +
       (sweep ? ", \"seeds\": " + json_string(args.seeds) : std::string()) + "}" +
       (!meta.motion_json.empty() ? ",\n    \"motionVectors\": " + meta.motion_json
                                  : std::string()) +
       "\n";
  j += "  }\n}\n";
  return j;
}

}  // namespace spritz
