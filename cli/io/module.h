// Modules: the parts of the command line that need a large library live in
// shared objects of spritz's own, loaded on first use, so a run that does
// not need them never loads those libraries (docs/performance.md, "Start-up").
//   spritz-exr.so    OpenEXR: .exr frames (io/exr.h)
//   spritz-http.so   cpp-httplib and what it pulls in (OpenSSL, Brotli):
//                    spritz preview's server (http_server.h)
// They are built beside the binary and installed in <libdir>/spritz/.
#pragma once

#include <string>

namespace spritz {

// The address of `symbol` in module `name` ("exr" for spritz-exr.so),
// loading it the first time (a module once loaded stays loaded for the
// process). Looked for in `module_dir` (the run's SPRITZ_MODULE_DIR) when
// not empty, then beside the running binary, then in the install's module
// directory relative to it. Throws spritz::Error naming every place tried
// and why each failed.
void* module_symbol(const std::string& module_dir, const std::string& name, const char* symbol);

}  // namespace spritz
