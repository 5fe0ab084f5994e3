// Running the spritz binary from a test: in this process's own scratch
// folder, with both streams captured (used by the [cli] test files).
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace spritz::test {

namespace fs = std::filesystem;

struct Run {
  int code;
  std::string out, err;
};

// Runs a shell command line; its stdout goes to *out. Returns its exit code
// (128 + the signal when a signal ended it).
inline int shell(const std::string& cmd, std::string* out) {
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// This process's own scratch folder (mkdtemp), removed when it exits, so two
// suites running at once, or a run as another user, never share a path.
inline const fs::path& scratch_root() {
  static const struct Root {
    fs::path path;
    Root() {
      std::string t = (fs::temp_directory_path() / "spritz_tests.XXXXXX").string();
      if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed for " + t);
      path = t;
    }
    ~Root() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } root;
  return root.path;
}

// Runs `spritz ARGS` in `dir` (a shell command line), capturing both streams.
// `env` is put before the command ("SPRITZ_MEMORY_MB=64").
inline Run run_spritz_env(const std::string& env, const std::string& args,
                          const fs::path& dir = scratch_root()) {
  static int counter = 0;
  const fs::path err_file = scratch_root() / ("stderr_" + std::to_string(counter++) + ".txt");
  const std::string cmd = "cd '" + dir.string() + "' && " + env + " '" SPRITZ_BINARY "' " + args +
                          " 2>'" + err_file.string() + "'";
  Run r;
  r.code = shell(cmd, &r.out);
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  fs::remove(err_file);
  return r;
}

inline Run run_spritz(const std::string& args, const fs::path& dir = scratch_root()) {
  return run_spritz_env("", args, dir);
}

// spritz ARGS with its stdout piped into the shell command `reader`; out is
// the reader's output, code and err are spritz's own (a plain pipeline would
// give the reader's exit code, and `2>` would apply to the reader).
inline Run run_spritz_into(const std::string& args, const std::string& reader,
                           const fs::path& dir) {
  const std::string cmd = "cd '" + dir.string() + "' && { '" SPRITZ_BINARY "' " + args +
                          " 2>spritz.err; echo $? >spritz.code; } | " + reader;
  Run r;
  shell(cmd, &r.out);
  std::ifstream c(dir / "spritz.code"), e(dir / "spritz.err");
  c >> r.code;
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

inline fs::path fresh_dir(const std::string& name) {
  const fs::path d = scratch_root() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

inline std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace spritz::test
