#include "io/io.h"

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

#include "commands.h"
#include "spritz/error.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

// Temporary files being written, for the signal handler. Fixed storage: the
// handler may only use async-signal-safe calls (unlink, raise).
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
char g_tmp_paths[kSlots][kPathMax];
std::atomic<bool> g_tmp_used[kSlots];

int claim_slot(const std::string& tmp) {
  if (tmp.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_tmp_used[i].load() && g_tmp_used[i].compare_exchange_strong(expected, true)) {
      std::memcpy(g_tmp_paths[i], tmp.c_str(), tmp.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      return i;
    }
  }
  return -1;
}

void release_slot(int i) {
  if (i >= 0) g_tmp_used[i].store(false);
}

extern "C" void on_signal(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_tmp_used[i].load()) unlink(g_tmp_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

std::string describe_errno(int err) {
  return std::strerror(err);
}

namespace {

// The extension of a path's file name, lower case, with its dot ("" for none).
std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

ImageFormat output_format(const std::string& path, bool hdr_ok, const std::string& option) {
  const std::string ext = lower_extension(path);
  if (ext == ".hdr") {
    if (!hdr_ok)
      throw Error(option + " " + path + ": only PNG can be written here, not Radiance HDR");
    return ImageFormat::kHdr;
  }
  static const char* const kVideo[] = {".mp4", ".mov", ".webm", ".mkv", ".avi", ".m4v", ".apng"};
  for (const char* v : kVideo)
    if (ext == v)
      throw Error(option + " " + path +
                  ": spritz writes PNG frames, not video; pipe raw frames into " +
                  "ffmpeg with -o - (see docs/cookbook.md), or write PNG frames and encode those");
  static const char* const kImage[] = {".jpg", ".jpeg", ".jpe", ".jfif", ".exr",  ".tga",  ".bmp",
                                       ".gif", ".webp", ".tif", ".tiff", ".avif", ".heic", ".heif",
                                       ".jxl", ".qoi",  ".dds", ".ktx",  ".ktx2", ".ico",  ".psd",
                                       ".ppm", ".pgm",  ".pnm", ".pfm",  ".svg"};
  for (const char* i : kImage)
    if (ext == i)
      throw Error(option + " " + path + ": spritz writes PNG" +
                  (hdr_ok ? " or Radiance HDR (.hdr)" : "") + ", not " + ext.substr(1) +
                  "; name the file .png" + (hdr_ok ? " or .hdr" : ""));
  return ImageFormat::kPng;
}

std::string with_frame_token(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".png" || ext == ".hdr")
    return path.substr(0, path.size() - ext.size()) + "_####" +
           path.substr(path.size() - ext.size());
  return path + "_####.png";
}

namespace {
// The files this run reads (effects, textures, images to compare), by device
// and inode, so that no output replaces one: `render fx.toml --time 1 -o
// fx.toml` or `diff a.png b.png -o a.png` would otherwise destroy an input.
std::mutex g_inputs_mutex;
std::set<std::pair<dev_t, ino_t>> g_inputs;

void note_input_stat(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  g_inputs.insert({st.st_dev, st.st_ino});
}

bool is_input(const struct stat& st) {
  std::lock_guard<std::mutex> lock(g_inputs_mutex);
  return g_inputs.count({st.st_dev, st.st_ino}) != 0;
}

template <typename Buffer>
Buffer read_whole(const std::string& path, size_t limit, const char* what, bool note = true) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st) && (!ec || ec.value() == ENOENT || ec.value() == ENOTDIR))
    throw Error(SourceLoc{path, 0, 0}, "no such file");
  if (ec) throw Error(SourceLoc{path, 0, 0}, "cannot open: " + describe_errno(ec.value()));
  if (fs::is_directory(st))
    throw Error(SourceLoc{path, 0, 0}, std::string("is a directory, not ") + what);
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

void refuse_input(const std::string& path, const struct stat& st) {
  if (is_input(st))
    throw Error("cannot write " + path +
                ": it is an input of this run (an effect, texture or image it reads)");
}
}  // namespace

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

namespace {

// Writes everything to `fd`; returns 0 or the errno of the failure.
int write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

WriteError::WriteError(const std::string& path, int err)
    : Error("cannot write " + path + ": " + describe_errno(err)), err_(err) {}

bool WriteError::out_of_space() const {
  return err_ == ENOSPC || err_ == EDQUOT;
}

void write_file_atomic(const std::string& path, const void* data, size_t size) {
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
      int err = fd < 0 ? errno : write_all(fd, data, size);
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
  const int slot = claim_slot(tmp);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    release_slot(slot);
    throw WriteError(path, err);
  }
  int err = write_all(fd, data, size);
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    release_slot(slot);
    throw WriteError(path, err);
  }
  release_slot(slot);
}

bool finished_frame(const std::string& path, ImageFormat format) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
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

void install_signal_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGHUP, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
}

int write_stdout(const void* data, size_t size) {
  return write_all(STDOUT_FILENO, data, size);
}

int finish_stdout(int code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && !std::ferror(stdout)) return code;
  // A pipe whose reader has gone reports POLLERR on its write end; that is
  // how an earlier failed write (whose errno stdio does not keep) is told
  // apart from a full disk or an I/O error.
  pollfd p{STDOUT_FILENO, 0, 0};
  const bool reader_gone = err == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR));
  if (!reader_gone)
    std::fprintf(stderr, "spritz: cannot write to stdout: %s\n",
                 !flushed && err != 0 ? describe_errno(err).c_str() : "write error");
  return code == 0 ? kExitError : code;
}

}  // namespace spritz
