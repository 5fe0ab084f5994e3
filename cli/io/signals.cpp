// Signals: a run stopped by SIGINT, SIGTERM or SIGHUP deletes the temporary
// file it was writing, so no partial output is ever left.
#include "io/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>

#include "commands.h"
#include "spritz/error.h"

namespace spritz {
namespace {

// Temporary files being written, for the signal handler. Fixed storage: the
// handler may only use async-signal-safe calls (unlink, raise). A slot is
// free, claimed (its path being copied in: the handler must not read it) or
// ready (the handler deletes its path).
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
enum SlotState : int { kFree = 0, kClaimed = 1, kReady = 2 };
char g_tmp_paths[kSlots][kPathMax];
std::atomic<int> g_tmp_state[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots");

}  // namespace

int register_temp_file(const std::string& tmp) {
  if (tmp.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_tmp_state[i].compare_exchange_strong(expected, kClaimed)) {
      std::memcpy(g_tmp_paths[i], tmp.c_str(), tmp.size() + 1);
      g_tmp_state[i].store(kReady);  // only now may the handler read the path
      return i;
    }
  }
  return -1;
}

void unregister_temp_file(int i) {
  if (i >= 0) g_tmp_state[i].store(kFree);
}

namespace {

extern "C" void on_signal(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_tmp_state[i].load() == kReady) unlink(g_tmp_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Installs on_signal for `sig` unless the signal was inherited as ignored:
// `nohup spritz render ...` (SIGHUP) and a shell's background jobs (SIGINT)
// ignore it on purpose, and a program keeps that (POSIX).
void catch_unless_ignored(int sig) {
  struct sigaction old {};
  if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) return;
  std::signal(sig, on_signal);
}

}  // namespace

void install_signal_handlers() {
  catch_unless_ignored(SIGINT);
  catch_unless_ignored(SIGTERM);
  catch_unless_ignored(SIGHUP);
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace spritz
