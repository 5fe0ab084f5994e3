// The process's exit codes (docs/cli.md, "Exit codes").
#pragma once

namespace spritz {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDifferent = 1;     // diff and check found a difference
inline constexpr int kExitError = 2;         // usage, config or I/O error
inline constexpr int kExitSizeMismatch = 3;  // diff: the images' sizes differ

}  // namespace spritz
