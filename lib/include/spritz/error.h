// Errors the library reports: a list of diagnostics, each tied to a place in a
// file when there is one. The library never prints or exits; cli/ does.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace spritz {

// `text` safe to print to a terminal: bytes outside printable ASCII become
// \xNN, and a backslash stays a backslash. For anything from an input file,
// the environment or the command line quoted in a message.
std::string printable(std::string_view text);

// Whether `text` is well-formed UTF-8: no stray continuation bytes, overlong
// forms, surrogates or code points past U+10FFFF.
bool valid_utf8(std::string_view text);

struct SourceLoc {
  std::string file;   // empty when the problem has no file (a command-line value)
  uint32_t line = 0;  // 1-based; 0 = no position within the file
  uint32_t col = 0;
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;

  // "file:line:col: message", "file: message" or just "message".
  std::string to_string() const;
};

// Sorts diagnostics into file order (file, then line, then column), keeping
// the order of those at one place: how every message list is printed.
void sort_by_location(std::vector<Diagnostic>& diagnostics);

class Error : public std::runtime_error {
 public:
  explicit Error(std::vector<Diagnostic> diagnostics);
  Error(SourceLoc loc, std::string message);
  explicit Error(std::string message) : Error(SourceLoc{}, std::move(message)) {}

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace spritz
