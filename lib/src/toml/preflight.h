// Checks on the bytes of an effect file before toml++ parses them: what the
// file is (UTF-16 text, a PNG named where the effect goes) and how deeply its
// keys nest (toml++ 3.3 recurses without bound on dotted keys).
#pragma once

#include <string>
#include <string_view>

namespace spritz::toml_load {

// Throws spritz::Error with a sentence that says what the file is when it is
// UTF-16 text or a PNG image.
void check_file_kind(std::string_view text, const std::string& source_name);
// Throws spritz::Error when a dotted key has more than kMaxKeyParts parts.
void check_key_depth(std::string_view text, const std::string& source_name);

}  // namespace spritz::toml_load
