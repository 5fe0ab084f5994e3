// What the importers share: messages' numbers, effect names, the canvas fit,
// the header and the finishing write, and the per-format entry points.
#pragma once

#include <string>
#include <string_view>

#include "spritz/import/import.h"
#include "spritz/program.h"

namespace spritz::import_detail {

// A number as a message shows it: up to 6 significant digits.
std::string fmt(double v);
// The effect's name from the source's file name.
std::string effect_name_from(const std::string& source_name);
// An emitter name from a node's or instance's name: letters, digits, _ and -
// kept (others become _), at most 48 bytes, not all digits, and unique in fx
// (a _2, _3 ... suffix).
std::string emitter_name(const std::string& raw, const Effect& fx);
// Fits the canvas to where the particles go and centres them (every
// emitter moved together), unless the options fix either.
void fit_canvas(ImportResult& r, const ImportOptions& o);
// Sorts the diagnostics and writes the TOML with its header ("what" names
// the source format).
ImportResult finish(ImportResult r, const std::string& source_name, const std::string& what);

ImportResult import_godot(std::string_view text, const std::string& source_name,
                          const std::string& base_dir, const ImportOptions& options,
                          const ReadFile& read_file);
// A Godot particle shader file (.gdshader, .shader): its first token is
// shader_type.
bool looks_like_godot_shader(std::string_view text);
ImportResult import_godot_shader(std::string_view text, const std::string& source_name,
                                 const ImportOptions& options);
// The same, not finished, for a shader's text found at `origin` (a Shader
// resource's code). `alone`: no scene gives it a sub-emitter (a warning
// says so when it calls emit_subparticle()).
ImportResult godot_shader_effect(std::string_view text, const std::string& source_name,
                                 const ImportOptions& options, const ProgramOrigin& origin,
                                 bool alone = true);
ImportResult import_roblox(std::string_view text, const std::string& source_name,
                           const std::string& base_dir, const ImportOptions& options,
                           const ReadFile& read_file);

}  // namespace spritz::import_detail
