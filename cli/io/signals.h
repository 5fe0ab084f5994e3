// Signals and the temporary files they must not leave behind.
#pragma once

#include <string>

namespace spritz {

// SIGINT/SIGTERM/SIGHUP: delete any temporary file being written, then die by
// the same signal; one inherited as ignored (nohup) stays ignored. SIGPIPE
// is ignored so a closed stdout is an error, not a crash.
void install_signal_handlers();

// Records a temporary file for the signal handler to delete (fixed storage:
// the handler uses only async-signal-safe calls), before the file is
// created; created_temp_file() follows once the open has returned (whether
// or not it succeeded), so that a signal handled in between waits for the
// file and deletes it. Once a signal is being handled, register_temp_file
// never returns (the process is about to die by it). Returns the slot, or
// -1 when every slot is in use or the path is too long (then nothing
// deletes it on a signal). unregister_temp_file(slot) forgets it (-1 is a
// no-op).
int register_temp_file(const std::string& tmp);
void created_temp_file();
void unregister_temp_file(int slot);

}  // namespace spritz
