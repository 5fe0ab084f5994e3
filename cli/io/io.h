// Files for the command line: reading effects, atomic writes, and clean-up of
// temporary files when the run is interrupted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spritz/error.h"

namespace spritz {

// Reads a whole text file; throws spritz::Error with a clear sentence when it
// is missing, a directory or unreadable.
std::string read_text_file(const std::string& path);
std::string read_stdin();
// Reads a texture file: at most 64 MiB, the cap of effect files.
std::vector<uint8_t> read_texture_file(const std::string& path);
// Reads a whole binary file (at most 1 GiB), with the same messages.
std::vector<uint8_t> read_binary_file(const std::string& path);
// The same, for a file this run may then replace (check --update reads a
// golden to see whether it changes): not recorded as an input.
std::vector<uint8_t> read_file_to_replace(const std::string& path);

// Records `path` (when it is a regular file) as an input of this run, which
// write_file_atomic then refuses to replace. The read functions above record
// the files they read; textures are recorded when their effect loads.
void note_input(const std::string& path);
// Throws the error write_file_atomic would give when `path` is such an input,
// so that a command can refuse before it draws anything.
void check_not_input(const std::string& path);

// The image format an output name asks for, by its extension in any case:
// ".hdr" is Radiance HDR; ".png", no extension or one spritz does not know is
// PNG. The extension of an image or video format spritz cannot write (".jpg",
// ".exr", ".mp4", ...) is an error rather than PNG bytes under a misleading
// name. `hdr_ok` is false where only PNG can be written (atlas sheets, diff
// images); `option` names the option in messages ("-o").
enum class ImageFormat { kPng, kHdr };
ImageFormat output_format(const std::string& path, bool hdr_ok, const std::string& option);
// Whether `path` holds a finished frame, for --skip-existing: a regular file
// that is a whole PNG (the PNG signature first, the IEND chunk last), or for
// kHdr a Radiance file past its header. Writes are atomic, so a killed
// process leaves no partial frame; a machine that crashes can (the rename is
// not fsynced: ext4 may keep an empty or cut file), and such a frame is
// rendered again instead of skipped.
bool finished_frame(const std::string& path, ImageFormat format);

// `path` with a frame token before its .png or .hdr extension (any case), or
// with "_####.png" appended when it has neither: the fix suggested when several
// frames would go to one file.
std::string with_frame_token(const std::string& path);

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

// Checks that the directory that will hold `path` exists or can be created
// and is writable, and that the file name fits in 255 bytes, before any
// rendering starts.
void ensure_output_dir(const std::string& path);

// SIGINT/SIGTERM/SIGHUP: delete any temporary file being written, then die by
// the same signal. SIGPIPE is ignored so a closed stdout is an error, not a crash.
void install_signal_handlers();

// Writes everything to stdout with write(2), bypassing stdio. Returns 0, or
// the errno of the failure: EPIPE when the reader has gone away.
int write_stdout(const void* data, size_t size);

// Flushes stdio's stdout and returns the exit code to use: `code`, or
// kExitError (2) when anything written to stdout was lost, with a message
// unless the reader simply went away (a pipe closed early, `| head`), which
// stays quiet. Without this, `spritz inspect --json > full-disk/x.json`
// would exit 0 with a truncated file. Call once, at exit.
int finish_stdout(int code);

// The message for an errno value ("No space left on device").
std::string describe_errno(int err);

}  // namespace spritz
