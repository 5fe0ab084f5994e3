// toml++'s implementation, compiled once into the model library from
// Debian's headers (lib/CMakeLists.txt says why it is not linked as Debian's
// shared libtomlplusplus). Every other file includes toml++ with
// TOML_HEADER_ONLY=0, so they call these definitions.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
