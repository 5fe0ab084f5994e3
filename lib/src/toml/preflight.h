// Checks on the bytes of an effect file (or a --set value) before toml++
// parses them: what the file is (UTF-16 text, a PNG named where the effect
// goes), how deeply its keys nest (toml++ 3.3 recurses without bound on
// dotted keys), and the inputs toml++ 3.3 mishandles (check_toml_text).
#pragma once

#include <string>
#include <string_view>

namespace spritz::toml_load {

// Throws spritz::Error with a sentence that says what the file is when it is
// UTF-16 text or a PNG image.
void check_file_kind(std::string_view text, const std::string& source_name);
// Throws spritz::Error when a dotted key has more than kMaxKeyParts parts.
void check_key_depth(std::string_view text, const std::string& source_name);
// Throws a located spritz::Error for what toml++ 3.3 must never be handed:
// invalid UTF-8; a non-ASCII character outside strings and comments (its
// Unicode whitespace test reaches __builtin_unreachable for U+00A1..U+0499);
// a table header whose name starts with neither a bare-key character nor a
// quote, and a '}' where an array expects a value (both break assumptions
// its parser states with __builtin_assume in a release build, and assert on
// in a debug one). Each is invalid TOML, so no valid file is refused.
void check_toml_text(std::string_view text, const std::string& source_name);

}  // namespace spritz::toml_load
