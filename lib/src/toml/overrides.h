// `--set key.path=value` overrides, applied to the parsed TOML tree before
// translation so that they are checked by the same rules and located by
// their origin in messages.
#pragma once

#include <toml++/toml.h>

#include <string>

namespace spritz::toml_load {

// Applies one "key.path=value" to `root`. Emitters are addressed by index or
// name: "emitter.0.rate=100", "emitter.flames.shape.kind=box". The value is
// TOML; a bare word that is not valid TOML is taken as a string. Throws
// spritz::Error for a malformed path or an emitter that does not exist.
void apply_override(toml::table& root, const std::string& text);

}  // namespace spritz::toml_load
