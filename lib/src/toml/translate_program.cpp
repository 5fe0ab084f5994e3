// An emitter's `program` and `uniforms` (docs/config.md, docs/programs.md):
// the program's text, inline or in a file next to the effect, compiled
// here so that a bad program is reported with the rest of the effect's
// problems, at its place in the file that holds it.
#include <filesystem>
#include <string>

#include "spritz/load.h"
#include "spritz/program.h"
#include "toml/keys.h"
#include "toml/translator.h"

namespace spritz::toml_load {

namespace fs = std::filesystem;

namespace {

// A sampler's image: at most 4096 a side, and all of them together at most
// 2^25 texels (256 MiB as 16-bit RGBA).
constexpr int kMaxProgramImageSide = 4096;
constexpr uint64_t kMaxProgramTexels = uint64_t{1} << 25;

// Where an inline program's text starts: a multi-line string whose opening
// quotes end their line starts on the next line, at column 1; any other
// string just after its opening quote(s).
ProgramOrigin inline_origin(std::string_view toml_text, const SourceLoc& at) {
  ProgramOrigin o{at.file, at.line, at.col + 1};
  if (at.line == 0) return ProgramOrigin{at.file, 1, 1};  // from --set
  size_t i = 0;
  for (uint32_t l = 1; l < at.line && i != std::string_view::npos; ++l) {
    i = toml_text.find('\n', i);
    if (i != std::string_view::npos) ++i;
  }
  if (i == std::string_view::npos) return o;
  i += at.col - 1;
  const std::string_view rest = toml_text.substr(std::min(i, toml_text.size()));
  if (rest.rfind("\"\"\"", 0) == 0 || rest.rfind("'''", 0) == 0) {
    const std::string_view after = rest.substr(3);
    if (after.rfind("\n", 0) == 0 || after.rfind("\r\n", 0) == 0) return {at.file, at.line + 1, 1};
    o.col = at.col + 3;
  }
  return o;
}

// Whether a `program` string is the program itself rather than a file name.
bool is_inline(const std::string& s) {
  return s.find_first_of("\n{};(") != std::string::npos;
}

}  // namespace

void Translator::read_program(const toml::table& t, Emitter& em) {
  const toml::node* n = t.get("program");
  if (!n) {
    for (const char* key : {"uniforms", "curves", "gradients", "godot"})
      if (const toml::node* u = t.get(key))
        error(*u, std::string(key) + " needs a program on the same emitter");
    return;
  }
  const auto s = string(*n, "program");
  if (!s) return;
  auto ep = std::make_shared<EmitterProgram>();
  ep->loc = loc(*n);
  ProgramOrigin origin;
  if (is_inline(*s)) {
    ep->source = *s;
    origin = inline_origin(source_text, ep->loc);
  } else {
    ep->file = *s;
    const fs::path p = fs::path(base_dir_) / *s;
    program_files.push_back(p.lexically_normal().string());
    std::string why;
    if (!read_file || !read_file(p.string(), ep->source, why)) {
      error(*n, "cannot read the program file " + p.string() + (why.empty() ? "" : ": " + why));
      return;
    }
    program_texts.push_back(ep->source);
    origin = ProgramOrigin{p.lexically_normal().string(), 1, 1};
  }
  read_program_curves(t, *ep);
  if (const toml::node* g = t.get("godot")) {
    ep->godot = read_godot(*g);
    if (!ep->godot) return;
  }
  try {
    ProgramNames names{ep->curve_names, ep->gradient_names};
    ep->program =
        Program::compile(ep->source, origin, warnings, names, ep->godot ? &*ep->godot : nullptr);
  } catch (const Error& e) {
    for (const Diagnostic& d : e.diagnostics()) diagnostics.push_back(d);
    return;
  }
  if (ep->program->has(Stage::kProcess) && em.lifetime_s.max / em.forces.step_s > kMaxForceSteps)
    error(*n,
          "process() steps each particle from its birth, and lifetime.max / integration.step "
          "is above 1e6 steps; raise integration.step or shorten the lifetime");
  read_uniforms(t, *ep);
  em.program = std::move(ep);
}

// `godot = { amount, speed_scale, to_canvas, offset, emission_transform }`:
// the program is a Godot particle shader (docs/config.md; model.md 11.7).
std::optional<GodotDialect> Translator::read_godot(const toml::node& n) {
  const toml::table* t = n.as_table();
  if (!t) {
    error(n, "godot must be a table { amount = .., to_canvas = [..], ... }");
    return std::nullopt;
  }
  check_keys(*t, kGodotKeys, "godot");
  GodotDialect g;
  bool ok = true;
  if (const toml::node* a = t->get("amount")) {
    const auto v = integer(*a, "godot.amount", 1, 10000000);
    ok = ok && v;
    if (v) g.amount = static_cast<uint32_t>(*v);
  }
  if (const toml::node* s = t->get("speed_scale")) {
    const auto v = bounded(*s, "godot.speed_scale", 1e-3, 1e3);
    ok = ok && v;
    if (v) g.speed_scale = *v;
  }
  // A list of exactly `count` numbers within ±1e6.
  const auto numbers = [&](const char* key, double* out, size_t count) {
    const toml::node* k = t->get(key);
    if (!k) return;
    const toml::array* a = k->as_array();
    if (!a || a->size() != count) {
      error(*k, "godot." + std::string(key) + " must be a list of " + std::to_string(count) +
                    " numbers");
      ok = false;
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      const auto v = bounded(*a->get(i), "godot." + std::string(key), -1e6, 1e6);
      ok = ok && v;
      if (v) out[i] = *v;
    }
  };
  numbers("to_canvas", g.to_canvas.data(), 6);
  numbers("offset", g.offset.data(), 2);
  numbers("emission_transform", g.emission_transform.data(), 16);
  if (!ok) return std::nullopt;
  return g;
}

// `curves = { NAME = curve, ... }` and `gradients = { NAME = colour curve,
// ... }`: what curve(NAME, x) and gradient(NAME, x) read (docs/programs.md).
void Translator::read_program_curves(const toml::table& t, EmitterProgram& ep) {
  for (const bool colour : {false, true}) {
    const char* key = colour ? "gradients" : "curves";
    const toml::node* n = t.get(key);
    if (!n) continue;
    const toml::table* table = n->as_table();
    if (!table) {
      error(*n, std::string(key) + " must be a table { NAME = " +
                    (colour ? "[[0, \"#ffffff\"], [1, \"#ff0000\"]]" : "[[0, 1], [1, 0]]") +
                    ", ... }");
      continue;
    }
    if (table->size() > 64) {
      error(*n, std::string("at most 64 ") + key);
      continue;
    }
    for (const auto& [name, value] : *table) {
      const std::string what = std::string(key) + "." + std::string(name.str());
      const std::string_view id = name.str();
      const bool identifier =
          !id.empty() && !(id[0] >= '0' && id[0] <= '9') &&
          id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
              std::string_view::npos;
      if (!identifier) {
        error(value, what +
                         ": a name the program can write: letters, digits and _, not "
                         "starting with a digit");
        continue;
      }
      if (colour) {
        if (auto c = color_curve(value, what)) {
          ep.gradient_names.emplace_back(name.str());
          ep.gradients.push_back(*c);
        }
      } else if (auto c = curve(value, what)) {
        ep.curve_names.emplace_back(name.str());
        ep.curves.push_back(*c);
      }
    }
  }
}

// `uniforms = { NAME = value, ... }`: each a number, a bool or an array of
// numbers with as many as the uniform holds.
void Translator::read_uniforms(const toml::table& t, EmitterProgram& ep) {
  const std::vector<UniformInfo>& declared = ep.program->uniforms();
  const std::vector<SamplerInfo>& samplers = ep.program->samplers();
  ep.uniforms.assign(declared.size(), {});
  ep.samplers.assign(samplers.size(), {});
  const toml::node* n = t.get("uniforms");
  const toml::table* u = n ? n->as_table() : nullptr;
  if (n && !u) error(*n, "uniforms must be a table { NAME = value, ... }");
  std::vector<std::string_view> names;
  for (const UniformInfo& d : declared) names.push_back(d.name);
  for (const SamplerInfo& s : samplers) names.push_back(s.name);
  static const toml::table kNone;
  const toml::table& given = u ? *u : kNone;  // both lvalues: no copy, which would lose places
  for (const auto& [key, value] : given) {
    size_t s = 0;
    while (s < samplers.size() && samplers[s].name != key.str()) ++s;
    if (s < samplers.size()) {
      bind_sampler(value, ep, s);
      continue;
    }
    size_t i = 0;
    while (i < declared.size() && declared[i].name != key.str()) ++i;
    if (i == declared.size()) {
      const std::string hint = closest_match(key.str(), names);
      error(value, "the program has no uniform '" + std::string(key.str()) + "'" +
                       (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      continue;
    }
    const UniformInfo& d = declared[i];
    std::vector<double> v;
    const auto scalar = [&](const toml::node& x) {
      // is_boolean first: toml++'s value<bool>() also reads an integer.
      if (x.is_boolean())
        v.push_back(*x.value<bool>() ? 1 : 0);
      else if (auto num = number(x, "uniform " + d.name))
        v.push_back(*num);
    };
    if (const toml::array* a = value.as_array())
      for (const toml::node& x : *a) scalar(x);
    else
      scalar(value);
    if (v.size() != d.scalars) {
      error(value, "the uniform '" + d.name + "' is a " + d.type + ", which holds " +
                       std::to_string(d.scalars) + (d.scalars == 1 ? " number" : " numbers") +
                       "; found " + std::to_string(v.size()));
      continue;
    }
    for (const double x : v)
      if (!(x >= -1e9 && x <= 1e9)) {
        error(value, "the uniform '" + d.name + "' must stay within ±1e9");
        break;
      }
    ep.uniforms[i] = std::move(v);
  }
  for (size_t s = 0; s < samplers.size(); ++s)
    if (ep.samplers[s].kind == SamplerBinding::Kind::kNone)
      warnings.push_back(
          {ep.loc, "the sampler2D '" + samplers[s].name + "' is bound to nothing (uniforms." +
                       samplers[s].name +
                       " = a curve, a "
                       "gradient or an image file): it reads " +
                       (samplers[s].fallback == SamplerInfo::Fallback::kWhite   ? "white"
                        : samplers[s].fallback == SamplerInfo::Fallback::kBlack ? "black"
                                                                                : "transparent")});
}

// A sampler2D uniform's value (docs/programs.md, "Textures"): the name of
// one of the emitter's curves or gradients, or else an image file, its
// path relative to the effect's folder, read and decoded here.
void Translator::bind_sampler(const toml::node& value, EmitterProgram& ep, size_t i) {
  const std::string& name = ep.program->samplers()[i].name;
  if (!value.is_string()) {
    error(value, "the uniform '" + name +
                     "' is a sampler2D: bind it to the name of one of the emitter's curves or "
                     "gradients, or to an image file (\"noise.png\")");
    return;
  }
  SamplerBinding b;
  b.written = *value.value<std::string>();
  for (uint32_t c = 0; c < ep.curve_names.size(); ++c)
    if (ep.curve_names[c] == b.written) b.kind = SamplerBinding::Kind::kCurve, b.index = c;
  for (uint32_t g = 0; g < ep.gradient_names.size(); ++g)
    if (ep.gradient_names[g] == b.written) b.kind = SamplerBinding::Kind::kGradient, b.index = g;
  if (b.kind != SamplerBinding::Kind::kNone) {
    ep.samplers[i] = std::move(b);
    return;
  }
  const fs::path p = (fs::path(base_dir_) / b.written).lexically_normal();
  program_files.push_back(p.string());
  std::vector<unsigned char> bytes;
  std::string why;
  if (b.written.empty() || !read_binary || !read_binary(p.string(), bytes, why)) {
    error(value, "cannot read the image " + p.string() + " for the sampler2D '" + name + "'" +
                     (why.empty() ? "" : ": " + why) +
                     (ep.curve_names.empty() && ep.gradient_names.empty()
                          ? ""
                          : " (nor is it one of the emitter's curves or gradients)"));
    return;
  }
  program_texts.emplace_back(bytes.begin(), bytes.end());  // the effect's hash covers it
  if (!decode_image) {
    error(value, "the sampler2D '" + name +
                     "' reads an image, and this loader was given no image decoder "
                     "(LoadOptions::decode_image)");
    return;
  }
  try {
    auto image = std::make_shared<ProgramImage>(decode_image(bytes, p.string()));
    const uint64_t texels = static_cast<uint64_t>(image->width) * image->height;
    if (image->width < 1 || image->height < 1 || image->width > kMaxProgramImageSide ||
        image->height > kMaxProgramImageSide || image->rgba.size() != texels * 4) {
      error(value, p.string() + " is " + std::to_string(image->width) + "x" +
                       std::to_string(image->height) + "; a sampler's image may be at most " +
                       std::to_string(kMaxProgramImageSide) + " texels a side");
      return;
    }
    program_texels_ += texels;
    if (program_texels_ > kMaxProgramTexels) {
      error(value, "the images the effect's samplers read hold more than " +
                       std::to_string(kMaxProgramTexels) +
                       " texels together (8 bytes each); use smaller images");
      return;
    }
    b.image = std::move(image);
  } catch (const Error& e) {
    error(value, e.diagnostics().front().message);
    return;
  }
  b.kind = SamplerBinding::Kind::kImage;
  ep.samplers[i] = std::move(b);
}

// What programs cannot be combined with yet: colliders (solved on the
// closed-form motion, which a program that moves its particles replaces).
void Translator::check_programs(const Effect& fx) {
  // Children a Godot shader emits (model.md 11.8): its parent's program
  // calls emit_subparticle(), and one sub-emitter takes them, as Godot's
  // node has one sub_emitter.
  std::vector<const Emitter*> taker(fx.emitters.size(), nullptr);
  for (const Emitter& em : fx.emitters) {
    if (em.sub.parent < 0 || em.sub.on != SubEvent::kProgram) continue;
    const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
    if (!parent.program || !parent.program->program || !parent.program->program->emits())
      error_at(em.sub.loc,
               "sub.on = \"program\" takes the children the parent's program emits "
               "with emit_subparticle() (a Godot 4 particle shader), and '" +
                   parent.name + "'" +
                   (parent.program ? "'s program never calls it" : " runs no program"));
    else if (const Emitter* other = taker[static_cast<size_t>(em.sub.parent)])
      error_at(em.sub.loc, "'" + parent.name +
                               "' already has a sub-emitter with on = \"program\" ('" +
                               other->name + "'): one takes every child its program emits");
    else
      taker[static_cast<size_t>(em.sub.parent)] = &em;
  }
  for (size_t i = 0; i < fx.emitters.size(); ++i)
    if (const Emitter& em = fx.emitters[i]; em.program && em.program->program &&
                                            em.program->program->emits() && em.enabled && !taker[i])
      warnings.push_back({em.program->loc, "emitter '" + em.name +
                                               "': its program calls emit_subparticle(), but no "
                                               "sub-emitter has sub = { parent = \"" +
                                               em.name +
                                               "\", on = \"program\" }: every call returns "
                                               "false (as in Godot without a sub_emitter)"});
  for (const Emitter& em : fx.emitters) {
    if (!em.program || !em.program->program) continue;
    const EmitterProgram& ep = *em.program;
    const bool moves = ep.program->has(Stage::kProcess) || ep.owns(ProgramVar::kPosition) ||
                       ep.owns(ProgramVar::kVelocity);
    if (moves && em.collision.enabled())
      error_at(ep.loc, "emitter " + em.name +
                           ": colliders act on the built-in motion, which this program "
                           "replaces (it has process() or writes POSITION or VELOCITY); drop "
                           "the colliders or let the built-in motion move the particles");
  }
}

}  // namespace spritz::toml_load
