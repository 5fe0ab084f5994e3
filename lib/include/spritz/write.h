// Writing an effect as TOML (docs/config.md's format): the inverse of
// load_effect for every key the model holds, so that
// load_effect(write_effect(fx)) describes the same effect as fx and renders
// the same bytes (tests/lib/write_test.cpp). Importers write their
// translations with it (`spritz import`).
#pragma once

#include <string>

#include "spritz/effect.h"

namespace spritz {

struct WriteOptions {
  // Texture paths are written relative to this folder (where the TOML file
  // goes), or absolute when they share no root with it. "." = as they are.
  std::string base_dir = ".";
  // A comment at the top of the file (each line gets "# "); empty for none.
  std::string header;
};

// Every value is written with the digits that read back as the same double.
// Values that are the model's defaults are still written, so that a reader
// sees the whole effect.
std::string write_effect(const Effect& fx, const WriteOptions& options = {});

}  // namespace spritz
