// Atomic writes: a temporary file beside the target, then rename, so a
// reader or a killed run never sees a partial file.
#include "io/atomic.h"

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
#include <functional>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>

#include "io/exr.h"
#include "io/inputs.h"
#include "io/io.h"
#include "io/signals.h"
#include "spritz/error.h"

namespace spritz {

namespace fs = std::filesystem;

void ensure_output_dir(const std::string& path) {
  // Checked here, before any drawing: each frame would otherwise fail alone
  // with "File name too long".
  const size_t name_bytes = fs::path(path).filename().string().size();
  if (name_bytes > 255)
    throw Error("cannot write " + path + ": its file name is " + std::to_string(name_bytes) +
                " bytes, over the 255 a file system allows");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec == std::errc::not_a_directory || ec == std::errc::file_exists) {
    // Name the part of the path that is in the way (`out` is a file).
    fs::path prefix;
    for (const fs::path& part : dir) {
      prefix /= part;
      std::error_code e2;
      const fs::file_status st = fs::status(prefix, e2);
      if (fs::exists(st) && !fs::is_directory(st))
        throw Error("cannot create output directory " + dir.string() + ": " + prefix.string() +
                    " is a file, not a directory");
    }
  }
  if (ec) throw Error("cannot create output directory " + dir.string() + ": " + ec.message());
  if (!fs::is_directory(dir))
    throw Error("output directory " + dir.string() + " is not a directory");
  if (access(dir.c_str(), W_OK) != 0)
    throw Error("output directory " + dir.string() + " is not writable: " + describe_errno(errno));
}

WriteError::WriteError(const std::string& path, int err)
    : Error("cannot write " + path + ": " + describe_errno(err)), err_(err) {}

bool WriteError::out_of_space() const {
  return err_ == ENOSPC || err_ == EDQUOT;
}

namespace {

// write_file_atomic's body, with `write_to(fd)` writing the bytes (0 or
// an errno).
void write_atomic(const std::string& path, const std::function<int(int)>& write_to) {
  fs::path target(path);
  if (!target.has_filename())
    throw Error("cannot write " + path + ": the name ends in '/', and a file name is needed");
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {  // follows symbolic links
    if (S_ISDIR(st.st_mode)) throw Error("cannot write " + path + ": it is a directory");
    refuse_input(path, st);
    if (!S_ISREG(st.st_mode)) {
      // A device, pipe or socket (-o /dev/null, a FIFO, /dev/stdout): a rename
      // would replace it with a plain file, so write into it. Nothing to make
      // atomic here: such a target never holds a file to leave half written.
      const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      int err = fd < 0 ? errno : write_to(fd);
      if (fd >= 0 && close(fd) != 0 && err == 0) err = errno;
      if (err != 0) throw WriteError(path, err);
      return;
    }
  }
  // A symbolic link: replace (or create) the file it points to and keep the
  // link, as an editor would; a rename onto the link would replace the link.
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(target, ec)) break;
    if (hops == 40) throw Error("cannot write " + path + ": " + describe_errno(ELOOP));
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) throw Error("cannot write " + path + ": " + ec.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  ensure_output_dir(target.string());
  static std::atomic<uint64_t> counter{0};
  // ".<name>.tmp.<pid>.<n>", with the name cut so that the whole stays within
  // the 255 bytes a file name may have: a 250-byte name is a valid target.
  const std::string suffix = ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::string stem = target.filename().string();
  stem.resize(std::min(stem.size(), size_t{255} - 1 - suffix.size()));
  const std::string tmp = (target.parent_path() / ("." + stem + suffix)).string();
  const int slot = register_temp_file(tmp);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  created_temp_file();
  if (fd < 0) {
    const int err = errno;
    unregister_temp_file(slot);
    throw WriteError(path, err);
  }
  int err;
  try {
    err = write_to(fd);
  } catch (...) {
    // Whatever was making the bytes failed: nothing is left behind.
    close(fd);
    unlink(tmp.c_str());
    unregister_temp_file(slot);
    throw;
  }
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    unregister_temp_file(slot);
    throw WriteError(path, err);
  }
  unregister_temp_file(slot);
}

}  // namespace

void write_file_atomic(const std::string& path, const void* data, size_t size) {
  write_atomic(path, [&](int fd) { return write_all(fd, data, size); });
}

void write_file_atomic_with(const std::string& path, const std::function<int(int fd)>& write_to) {
  write_atomic(path, write_to);
}

bool finished_frame(const std::string& path, ImageFormat format, const std::string& module_dir) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  if (format == ImageFormat::kExr) return exr_file_complete(path, module_dir);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0;
  const off_t size = ok ? st.st_size : 0;
  auto read_at = [&](off_t at, unsigned char* out, size_t n) {
    return pread(fd, out, n, at) == static_cast<ssize_t>(n);
  };
  if (format == ImageFormat::kPng) {
    static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    // A zero-length IEND chunk and its CRC.
    static const unsigned char kEnd[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    unsigned char head[8], tail[12];
    ok = ok && size >= 8 + 25 + 12 && read_at(0, head, 8) && read_at(size - 12, tail, 12) &&
         std::memcmp(head, kSignature, 8) == 0 && std::memcmp(tail, kEnd, 12) == 0;
  } else {
    // stb_image_write's header: "#?RADIANCE\n...\n\n-Y H +X W\n", then pixels.
    unsigned char head[10];
    char header[256] = {};
    const ssize_t got = ok ? pread(fd, header, sizeof header - 1, 0) : -1;
    const char* dims = got > 0 ? std::strstr(header, "\n\n-Y ") : nullptr;
    const char* end = dims ? std::strchr(dims + 2, '\n') : nullptr;
    ok = ok && read_at(0, head, 10) && std::memcmp(head, "#?RADIANCE", 10) == 0 && end &&
         size > end + 1 - header;
  }
  close(fd);
  return ok;
}

}  // namespace spritz
