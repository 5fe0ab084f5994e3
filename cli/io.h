// Files for the command line: reading effects, atomic writes, and clean-up of
// temporary files when the run is interrupted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace spritz {

// Reads a whole text file; throws spritz::Error with a clear sentence when it
// is missing, a directory or unreadable.
std::string read_text_file(const std::string& path);
std::string read_stdin();
// Reads a whole binary file (at most 1 GiB), with the same messages.
std::vector<uint8_t> read_binary_file(const std::string& path);

// Writes `data` to `path` atomically: a temporary file beside it, then
// rename. Creates missing parent directories. Throws spritz::Error on failure
// and leaves nothing behind.
void write_file_atomic(const std::string& path, const void* data, size_t size);

// Checks that the directory that will hold `path` exists or can be created
// and is writable, before any rendering starts.
void ensure_output_dir(const std::string& path);

// SIGINT/SIGTERM/SIGHUP: delete any temporary file being written, then die by
// the same signal. SIGPIPE is ignored so a closed stdout is an error, not a crash.
void install_signal_handlers();

// Writes everything to stdout; returns false when the reader has gone away.
bool write_stdout(const void* data, size_t size);

}  // namespace spritz
