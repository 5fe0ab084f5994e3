// Output names and stdout: which image format a name asks for, the frame
// token, and stdout written and flushed with its errors reported.
#include "io/outputs.h"

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

#include "exit_codes.h"
#include "io/inputs.h"
#include "io/io.h"
#include "spritz/error.h"

namespace spritz {

namespace fs = std::filesystem;

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
  if (ext == ".exr") {
    if (!hdr_ok) throw Error(option + " " + path + ": only PNG can be written here, not OpenEXR");
    return ImageFormat::kExr;
  }
  static const char* const kVideo[] = {".mp4", ".mov", ".webm", ".mkv", ".avi", ".m4v", ".apng"};
  for (const char* v : kVideo)
    if (ext == v)
      throw Error(option + " " + path +
                  ": spritz writes PNG frames, not video; pipe raw frames into " +
                  "ffmpeg with -o - (see docs/cookbook.md), or write PNG frames and encode those");
  static const char* const kImage[] = {".jpg",  ".jpeg", ".jpe",  ".jfif", ".tga",  ".bmp",  ".gif",
                                       ".webp", ".tif",  ".tiff", ".avif", ".heic", ".heif", ".jxl",
                                       ".qoi",  ".dds",  ".ktx",  ".ktx2", ".ico",  ".psd",  ".ppm",
                                       ".pgm",  ".pnm",  ".pfm",  ".svg"};
  for (const char* i : kImage)
    if (ext == i)
      throw Error(option + " " + path + ": spritz writes PNG" +
                  (hdr_ok ? ", Radiance HDR (.hdr) or OpenEXR (.exr)" : "") + ", not " +
                  ext.substr(1) + "; name the file .png" + (hdr_ok ? ", .hdr or .exr" : ""));
  return ImageFormat::kPng;
}

std::string with_frame_token(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".png" || ext == ".hdr" || ext == ".exr")
    return path.substr(0, path.size() - ext.size()) + "_####" +
           path.substr(path.size() - ext.size());
  return path + "_####.png";
}

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
