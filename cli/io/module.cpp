#include "io/module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "modules/module_abi.h"
#include "spritz/error.h"

namespace spritz {
namespace {

// The directory of the running binary, from /proc/self/exe.
std::string binary_dir() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return {};
  std::string path(buf.data(), static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::vector<std::string> module_dirs(const std::string& first) {
  std::vector<std::string> dirs;
  if (!first.empty()) dirs.push_back(first);
  const std::string bin = binary_dir();
  if (!bin.empty()) {
    dirs.push_back(bin);
    // bindir to <libdir>/spritz, as installed (cmake/install.cmake).
    dirs.push_back(bin + "/" SPRITZ_MODULE_RELDIR);
  }
  return dirs;
}

void* open_module(const std::string& module_dir, const std::string& name) {
  const std::string file = "spritz-" + name + ".so";
  std::string tried;
  for (const std::string& dir : module_dirs(module_dir)) {
    const std::string path = dir + "/" + file;
    if (access(path.c_str(), F_OK) != 0) {
      tried += "\n  " + path + ": not there";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + path + ": " + (why ? why : "cannot be loaded");
      continue;
    }
    using Abi = const char* (*)();
    const auto abi = reinterpret_cast<Abi>(dlsym(handle, "spritz_module_abi"));
    if (abi && std::string(abi()) == SPRITZ_MODULE_ABI) return handle;
    tried += "\n  " + path + ": from another build (" + (abi ? abi() : "not a spritz module") +
             ", this is " SPRITZ_MODULE_ABI ")";
    dlclose(handle);
  }
  throw Error("this needs spritz's module " + file +
              ", which could not be loaded (reinstall spritz; SPRITZ_MODULE_DIR names another "
              "directory):" +
              tried);
}

}  // namespace

void* module_symbol(const std::string& module_dir, const std::string& name, const char* symbol) {
  static std::mutex mutex;
  static std::map<std::string, void*> handles;
  std::lock_guard<std::mutex> lock(mutex);
  void*& handle = handles[name];
  if (!handle) handle = open_module(module_dir, name);
  void* at = dlsym(handle, symbol);
  if (!at) throw Error("spritz's module spritz-" + name + ".so has no " + symbol);
  return at;
}

}  // namespace spritz
