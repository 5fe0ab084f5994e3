// Output names (the image format, the frame token) and stdout.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spritz/error.h"

namespace spritz {

// The image format an output name asks for, by its extension in any case:
// ".hdr" is Radiance HDR; ".png", no extension or one spritz does not know is
// PNG. The extension of an image or video format spritz cannot write (".jpg",
// ".exr", ".mp4", ...) is an error rather than PNG bytes under a misleading
// name. `hdr_ok` is false where only PNG can be written (atlas sheets, diff
// images); `option` names the option in messages ("-o").
enum class ImageFormat { kPng, kHdr, kExr };
ImageFormat output_format(const std::string& path, bool hdr_ok, const std::string& option);

// `path` with a frame token before its .png or .hdr extension (any case), or
// with "_####.png" appended when it has neither: the fix suggested when several
// frames would go to one file.
std::string with_frame_token(const std::string& path);

// Writes everything to `fd` with write(2), again after EINTR; returns 0 or
// the errno of the failure.
int write_all(int fd, const void* data, size_t size);

// Writes everything to stdout with write(2), bypassing stdio. Returns 0, or
// the errno of the failure: EPIPE when the reader has gone away.
int write_stdout(const void* data, size_t size);

// Flushes stdio's stdout and returns the exit code to use: `code`, or
// kExitError (2) when anything written to stdout was lost, with a message
// unless the reader simply went away (a pipe closed early, `| head`), which
// stays quiet. Without this, `spritz inspect --json > full-disk/x.json`
// would exit 0 with a truncated file. Call once, at exit.
int finish_stdout(int code);

}  // namespace spritz
