// A Godot particle shader file on its own (`.gdshader`, `.shader`:
// docs/import.md, "Godot particle shaders"): the shader becomes an
// emitter's program in the Godot dialect (docs/programs.md), on a default
// emitter that stands for the GPUParticles2D a scene would give it.
#include <array>
#include <cctype>
#include <string>

#include "common.h"
#include "spritz/program.h"

namespace spritz::import_detail {
namespace {

// The default emitter (docs/import.md): Godot's GPUParticles2D defaults
// (lifetime 1 s, 60 frames a second, local coordinates), but 64 particles
// of 8 px (Godot draws 8 particles of 1 px without a texture).
constexpr uint32_t kDefaultAmount = 64;
constexpr double kDefaultLifetimeS = 1;
constexpr double kDefaultSizePx = 8;
constexpr int kDefaultCanvas = 512;
// A 3D shader seen from a view: design px per Godot unit (metre).
constexpr double kPxPerUnit = 32;

// Where the text's first token starts: BOM, blanks and comments skipped.
size_t first_token(std::string_view text) {
  size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (text.substr(i, 2) == "//") {
      const size_t nl = text.find('\n', i);
      i = nl == std::string_view::npos ? text.size() : nl + 1;
    } else if (text.substr(i, 2) == "/*") {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return i;
}

// The line and column of byte `at`.
SourceLoc loc_of(std::string_view text, size_t at, const std::string& file) {
  SourceLoc l{file, 1, 1};
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++l.line;
      l.col = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++l.col;
    }
  }
  return l;
}

// Godot's particle space to the canvas for `view` (docs/import.md): 2D is
// Godot's pixels with y down; a 3D shader is seen from the front (looking
// along -Z), the side (along -X) or the top (down -Y), kPxPerUnit px a unit.
std::array<double, 6> to_canvas(const std::string& view) {
  const double s = kPxPerUnit;
  if (view == "front") return {s, 0, 0, 0, s, 0};
  if (view == "side") return {0, 0, -s, 0, s, 0};
  if (view == "top") return {s, 0, 0, 0, 0, -s};
  return {1, 0, 0, 0, -1, 0};
}

}  // namespace

bool looks_like_godot_shader(std::string_view text) {
  size_t i = first_token(text);
  if (text.substr(i, 11) != "shader_type") return false;
  i += 11;
  const size_t word = i;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i > word && i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]));
}

ImportResult import_godot_shader(std::string_view text, const std::string& source_name,
                                 const ImportOptions& options) {
  return finish(godot_shader_effect(text, source_name, options, ProgramOrigin{source_name, 1, 1}),
                source_name, "Godot particle shader");
}

ImportResult godot_shader_effect(std::string_view text, const std::string& source_name,
                                 const ImportOptions& options, const ProgramOrigin& origin,
                                 bool alone) {
  const size_t at = first_token(text);
  size_t i = at + 11;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  size_t j = i;
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
    ++j;
  const std::string kind(text.substr(i, j - i));
  if (kind != "particles")
    throw Error(origin.line == 1 && origin.col == 1
                    ? loc_of(text, i, source_name)
                    : SourceLoc{origin.file, origin.line, origin.col},
                "a Godot " + printable(kind) +
                    " shader: spritz imports particle shaders (shader_type particles)");
  const std::string view = options.view.empty() ? "2d" : options.view;
  if (view != "2d" && view != "front" && view != "side" && view != "top")
    throw Error("the view must be 2d, front, side or top, got \"" + printable(view) + "\"");
  ImportResult r;
  r.format = EffectFormat::kGodot;
  Effect& fx = r.fx;
  fx.name = effect_name_from(source_name);
  fx.fps = 60;
  fx.loop = true;
  fx.duration_s = kDefaultLifetimeS;
  fx.canvas.width = options.canvas_width > 0 ? options.canvas_width : kDefaultCanvas;
  fx.canvas.height = options.canvas_height > 0 ? options.canvas_height : kDefaultCanvas;
  fx.canvas.tonemap = Tonemap::kClamp;
  fx.canvas.blend = BlendSpace::kSrgb;  // as Godot's 2D renderer blends
  Emitter em;
  em.name = emitter_name(fx.name, fx);
  em.position = {options.position_x.value_or(0), options.position_y.value_or(0)};
  em.rate_per_s = kDefaultAmount / kDefaultLifetimeS;
  em.lifetime_s = {kDefaultLifetimeS, kDefaultLifetimeS};
  em.max_particles = kDefaultAmount + 1;
  // A 2D quad is kDefaultSizePx; a 3D one is Godot's 1 unit QuadMesh.
  em.size_px = Curve::constant(view == "2d" ? kDefaultSizePx : 1);
  em.texture = TextureRef::parse("builtin:soft");
  em.forces.step_s = options.step_s;
  auto ep = std::make_shared<EmitterProgram>();
  ep->source = std::string(text);
  ep->loc = SourceLoc{origin.file, origin.line, origin.col};
  GodotDialect g;
  g.amount = kDefaultAmount;
  g.to_canvas = to_canvas(view);
  ep->godot = g;
  // Compiled here so that a problem points into the shader file itself.
  ep->program = Program::compile(ep->source, origin, r.warnings, {}, &*ep->godot);
  ep->uniforms.assign(ep->program->uniforms().size(), {});
  if (alone && ep->program->emits())
    r.warnings.push_back(
        {ep->loc,
         "the shader calls emit_subparticle(), but a shader on its own has no "
         "sub-emitter: every call returns false, as in Godot without a sub_emitter "
         "(import the scene whose node sets sub_emitter)"});
  em.program = std::move(ep);
  fx.emitters.push_back(std::move(em));
  r.notes.push_back(
      {SourceLoc{source_name, 1, 1},
       "a Godot particle shader on spritz's default emitter: " + std::to_string(kDefaultAmount) +
           " particles a second, each living " + fmt(kDefaultLifetimeS) + " s, soft dots " +
           (view == "2d" ? "8 px" : "a unit") + " wide, " +
           (view == "2d" ? std::string("Godot 2D pixels")
                         : "seen from the " + view + " at " + fmt(kPxPerUnit) + " px a unit") +
           " (docs/import.md, \"Godot particle shaders\")"});
  return r;
}

}  // namespace spritz::import_detail
