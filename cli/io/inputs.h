// Reading inputs, with caps and clear messages, and the record of what
// this run read: no output of the run may replace one of its inputs.
#pragma once

#include <sys/stat.h>

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

// The message for an errno value ("No space left on device").
std::string describe_errno(int err);

// Whether the file with this stat is an input of this run.
bool is_input(const struct stat& st);
// Throws "cannot write PATH: it is an input of this run" when it is one.
void refuse_input(const std::string& path, const struct stat& st);

}  // namespace spritz
