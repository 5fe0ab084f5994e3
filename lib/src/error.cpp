#include "spritz/error.h"

#include <algorithm>

namespace spritz {

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string Diagnostic::to_string() const {
  std::string out;
  if (!loc.file.empty()) {
    out += loc.file;
    if (loc.line > 0) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
    out += ": ";
  }
  return out + message;
}

void sort_by_location(std::vector<Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.loc.file != b.loc.file) return a.loc.file < b.loc.file;
                     if (a.loc.line != b.loc.line) return a.loc.line < b.loc.line;
                     return a.loc.col < b.loc.col;
                   });
}

namespace {
std::string join(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    if (!out.empty()) out += '\n';
    out += d.to_string();
  }
  return out;
}
}  // namespace

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

Error::Error(SourceLoc loc, std::string message)
    : Error(std::vector<Diagnostic>{Diagnostic{std::move(loc), std::move(message)}}) {}

}  // namespace spritz
