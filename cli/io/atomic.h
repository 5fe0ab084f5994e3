// Atomic writes: nothing partial is ever left, whatever stops the run.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/outputs.h"
#include "spritz/error.h"

namespace spritz {

// What write_file_atomic throws when the system refused the write: the
// errno, so that a caller can tell a full disk (which every later write would
// meet too) from a problem with this one file.
class WriteError : public Error {
 public:
  WriteError(const std::string& path, int err);
  int err() const { return err_; }
  // ENOSPC or EDQUOT: no later write to that file system can succeed either.
  bool out_of_space() const;

 private:
  int err_;
};

// Writes `data` to `path` atomically: a temporary file beside it, then
// rename. Creates missing parent directories. Throws spritz::Error on failure
// and leaves nothing behind. An input of this run (note_input) is never
// replaced: that is an error. A symbolic link is kept: the file it points to
// is replaced. A device, FIFO or socket (/dev/null, /dev/stdout) is written
// into, never replaced; a directory is an error.
void write_file_atomic(const std::string& path, const void* data, size_t size);
// The same with the bytes written by `write_to(fd)` as they are made (it
// returns 0 or an errno, as write_all does). An exception from write_to
// removes the temporary file and propagates: the target is left as it was.
void write_file_atomic_with(const std::string& path, const std::function<int(int fd)>& write_to);

// Checks that the directory that will hold `path` exists or can be created
// and is writable, and that the file name fits in 255 bytes, before any
// rendering starts.
void ensure_output_dir(const std::string& path);

// Whether `path` holds a finished frame, for --skip-existing: a regular file
// that is a whole PNG (the PNG signature first, the IEND chunk last), for
// kHdr a Radiance file past its header, for kExr an OpenEXR file whose every
// scanline block is there. Writes are atomic, so a killed
// process leaves no partial frame; a machine that crashes can (the rename is
// not fsynced: ext4 may keep an empty or cut file), and such a frame is
// rendered again instead of skipped.
bool finished_frame(const std::string& path, ImageFormat format, const std::string& module_dir);

}  // namespace spritz
