// The TOML front-end's translators: [effect], [canvas], [check] and each
// [[emitter]] table into the model, on top of the value readers. After
// translation nothing in spritz knows about TOML.
#pragma once

#include <toml++/toml.h>

#include <functional>
#include <string_view>
#include <unordered_set>

#include "spritz/effect.h"
#include "toml/reader.h"

namespace spritz::toml_load {

// Walks the parsed TOML tree and builds the model, collecting every problem.
class Translator : public TomlReader {
 public:
  using TomlReader::TomlReader;

  Effect translate(const toml::table& root);
  std::vector<std::string> provided_textures;  // LoadOptions::provided_textures

  // A texture file an emitter names, as written and as resolved against
  // the effect's folder: the translator reads no file system, the load step
  // (load.cpp) checks that each is there.
  struct TextureFile {
    SourceLoc loc;        // the texture key
    std::string written;  // the path as the file (or --set) gives it
    std::string path;     // joined to the effect's folder
    bool from_set = false;
  };
  std::vector<TextureFile> texture_files;
  // The effect's text (where inline programs start), and how a program file
  // named by an effect is read (load.cpp gives it; false with a reason).
  std::string_view source_text;
  std::function<bool(const std::string& path, std::string& out, std::string& why)> read_file;
  // How an image a sampler2D is bound to is read, and decoded
  // (LoadOptions::decode_image); false with a reason.
  std::function<bool(const std::string& path, std::vector<unsigned char>& out, std::string& why)>
      read_binary;
  ProgramImageDecoder decode_image;
  std::vector<std::string> program_texts;  // program files read, for the effect's hash
  std::vector<std::string> program_files;  // and their paths (preview watches them)
  void warn_invisible(const toml::table& t, const Emitter& em);

 private:
  std::unordered_set<uint32_t> children_;  // emitters that some sub-emitter names as parent
  bool has_children(const Emitter& em) const { return children_.count(em.index) > 0; }

  void read_effect(const toml::table& t, Effect& fx);
  void read_canvas(const toml::table& t, Canvas& canvas);
  void read_emitter(const toml::table& t, Emitter& em);
  void read_emission(const toml::table& t, Emitter& em);
  void read_motion(const toml::table& t, Emitter& em);
  void read_appearance(const toml::table& t, Emitter& em);
  void read_texture(const toml::table& t, Emitter& em);
  void read_program(const toml::table& t, Emitter& em);
  void read_uniforms(const toml::table& t, EmitterProgram& ep);
  void bind_sampler(const toml::node& value, EmitterProgram& ep, size_t i);
  uint64_t program_texels_ = 0;  // the images samplers read, all emitters together
  void read_program_curves(const toml::table& t, EmitterProgram& ep);
  std::optional<GodotDialect> read_godot(const toml::node& n);
  void check_programs(const Effect& fx);
  void read_forces(const toml::table& t, Emitter& em);
  void read_acceleration_curves(const toml::node& n, Forces& f);
  void read_orbit(const toml::node& n, Orbit& orbit);
  void read_ramp(const toml::node& n, std::string_view what, double lo, double hi, Ramp& ramp);
  void read_color_ramp(const toml::node& n, ColorRamp& ramp);
  std::optional<Rgb> ramp_color(const toml::node& n, const std::string& what);
  void read_flipbook(const toml::node& n, Flipbook& fb);
  void read_motion_blur(const toml::node& n, Canvas& canvas);
  void read_trail(const toml::node& n, Trail& trail, const std::string& emitter);
  void read_turbulence(const toml::node& n, Turbulence& turbulence, const std::string& emitter);
  void read_path(const toml::node& n, Path& path);
  void read_rate_keys(const toml::node& n, RateCurve& curve);
  std::vector<const toml::array*> keyframes(const toml::node& n, std::string_view what,
                                            std::string_view form, size_t arity, size_t max_keys,
                                            std::string_view must_be);
  void read_sub(const toml::node& n, SubEmitter& sub);
  void read_collisions(const toml::table& t, Emitter& em);
  void read_collision(const toml::node& n, Collision& c);
  void read_colliders(const toml::node& n, Collision& c);
  void read_collider(const toml::node& n, Collider& c, size_t index);
  void read_collider_geometry(const toml::table& t, const std::string& kind_name,
                              const std::string& where, Collider& c);
  void check_sub_keys(const toml::table& t, const Emitter& em);
  void resolve_subs(Effect& fx);
  std::optional<Curve> unit_curve(const toml::node& n, std::string_view what);
  void read_shape(const toml::node& n, Shape& shape);
  void read_shape_points(const toml::table& t, const toml::node& n, Shape& shape);
  void read_bursts(const toml::node& n, Emitter& em, uint64_t max_count);
  // Refuses bursts whose `firings` in all, with room for `max_count`
  // particles each, would number keys past 2^62.
  void check_burst_keys(const toml::node& n, uint64_t firings, uint64_t max_count);
  void read_check(const toml::table& t, CheckSpec& check);
};

}  // namespace spritz::toml_load
