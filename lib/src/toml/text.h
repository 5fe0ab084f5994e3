// Words for the loader's messages: TOML value type names, quoting, key
// suggestions, and the rules for effect and emitter names.
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "toml/keys.h"

namespace spritz::toml_load {

// Case-insensitive Levenshtein distance, for "did you mean" hints.
size_t edit_distance(std::string_view a, std::string_view b);
// "a table", "an integer", ...: what a node is, for "must be X, got Y".
std::string type_name(const toml::node& n);
// "a", "b" or "c".
std::string quoted_list(const Keys& words);
// `s` as a TOML basic string: in double quotes, with quotes, backslashes
// and control characters escaped (also so a message shows what a file holds).
std::string toml_quote(std::string_view s);
bool has_control(std::string_view s);
// `s` quoted for a message, cut after 40 bytes (at a UTF-8 character) with
// "..." when longer, so that a 3 MB name does not make a 3 MB message.
std::string quoted_excerpt(std::string_view s);

// Characters an effect name may not hold: it becomes a path component
// (out/<name>_####.png, golden/<name>/) and part of an output pattern, whose
// tokens are # and %.
inline constexpr std::string_view kNameForbidden = "/\\#%";
// File names hold at most 255 bytes; the default output adds "_####.png" and
// the frame's sign and digits to the name.
inline constexpr size_t kMaxNameBytes = 200;
// Why `s` cannot name an effect or an emitter, or nullptr when it can.
const char* effect_name_problem(std::string_view s);
const char* emitter_name_problem(std::string_view s);

}  // namespace spritz::toml_load
