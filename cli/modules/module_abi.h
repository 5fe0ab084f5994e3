// What a module and the binary that loads it must agree on: they pass C++
// types (std::string, std::vector, std::function) to each other, so both
// must come from the same version built by the same compiler. Every module
// exports spritz_module_abi() returning this, and io/module.cpp refuses a
// module whose answer differs.
#pragma once

#include "spritz/version.h"

#define SPRITZ_MODULE_ABI "spritz " SPRITZ_VERSION " " __VERSION__

extern "C" const char* spritz_module_abi();
