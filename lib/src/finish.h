// The last steps of every front-end (the TOML reader in lib/src/toml/; the
// importers in import/ write TOML, which it reads): whatever file format an
// effect came from, once it is translated into an Effect it is finished the
// same way.
#pragma once

#include <cstdint>
#include <string>

#include "spritz/effect.h"

namespace spritz {

// Names the effect after its file when it has no name (its stem, made a
// valid effect name), sorts its warnings into file order, records where it
// came from and its content hash, derives what the model derives
// (derive.h) and adds the post-load warnings (lint.h).
void finish_effect(Effect& fx, const std::string& source_name, uint64_t content_hash);

// The file's stem, made a valid effect name: "fire" for fx/fire.toml,
// "stdin" for an effect read from stdin.
std::string default_effect_name(const std::string& source_name);

}  // namespace spritz
