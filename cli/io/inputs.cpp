// Reading inputs: effect files, textures and images, with size caps and
// messages that say what is wrong, and the record of what this run read
// (no output may replace an input).
#include "io/inputs.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>

#include "io/io.h"
#include "spritz/error.h"

namespace spritz {

namespace fs = std::filesystem;

std::string describe_errno(int err) {
  return std::strerror(err);
}

namespace {
// The files this run reads (effects, textures, images to compare), by device
// and inode, so that no output replaces one: `render fx.toml --time 1 -o
// fx.toml` or `diff a.png b.png -o a.png` would otherwise destroy an input.
// Process-wide on purpose, unlike the run's settings and its loaded files
// (run_settings.h, effect_files.h): it records what this process has
// opened, and every write of the process (io/atomic.h) consults it, so it
// cannot be forgotten on any path that writes.
std::mutex g_inputs_mutex;
std::set<std::pair<dev_t, ino_t>> g_inputs;

void note_input_stat(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  g_inputs.insert({st.st_dev, st.st_ino});
}

}  // namespace

bool is_input(const struct stat& st) {
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  return g_inputs.count({st.st_dev, st.st_ino}) != 0;
}

namespace {

template <typename Buffer>
Buffer read_whole(const std::string& path, size_t limit, const char* what, bool note = true) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st) && (!ec || ec.value() == ENOENT || ec.value() == ENOTDIR))
    throw Error(SourceLoc{path, 0, 0}, "no such file");
  if (ec) throw Error(SourceLoc{path, 0, 0}, "cannot open: " + describe_errno(ec.value()));
  if (fs::is_directory(st))
    throw Error(SourceLoc{path, 0, 0}, std::string("is a directory, not ") + what);
  // A device is refused at once: /dev/zero would be read up to the cap
  // first. A pipe is read (`spritz render <(generate-effect)`), up to the cap.
  if (fs::is_character_file(st) || fs::is_block_file(st) || fs::is_socket(st))
    throw Error(SourceLoc{path, 0, 0}, std::string("is a device, not ") + what);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(SourceLoc{path, 0, 0}, "cannot open: " + describe_errno(errno));
  struct stat opened;
  if (note && fstat(fileno(f), &opened) == 0) note_input_stat(opened);
  Buffer data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    data.insert(data.end(), buf, buf + n);
    if (data.size() > limit) {
      std::fclose(f);
      throw Error(SourceLoc{path, 0, 0}, std::string("is too large for ") + what);
    }
  }
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw Error(SourceLoc{path, 0, 0}, "read error");
  return data;
}

}  // namespace

void refuse_input(const std::string& path, const struct stat& st) {
  if (is_input(st))
    throw Error("cannot write " + path +
                ": it is an input of this run (an effect, texture or image it reads)");
}

void check_not_input(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) refuse_input(path, st);
}

void note_input(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) note_input_stat(st);
}

std::vector<uint8_t> read_texture_file(const std::string& path) {
  return read_whole<std::vector<uint8_t>>(path, size_t{64} << 20, "a texture (64 MiB at most)");
}

std::vector<uint8_t> read_binary_file(const std::string& path) {
  return read_whole<std::vector<uint8_t>>(path, size_t{1} << 30, "an image");
}

std::vector<uint8_t> read_file_to_replace(const std::string& path) {
  return read_whole<std::vector<uint8_t>>(path, size_t{1} << 30, "an image", /*note=*/false);
}

std::string read_text_file(const std::string& path) {
  return read_whole<std::string>(path, size_t{64} << 20, "an effect file");
}

std::string read_stdin() {
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  return text;
}

}  // namespace spritz
