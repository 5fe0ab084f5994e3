// Signals: a run stopped by SIGINT, SIGTERM or SIGHUP deletes the temporary
// file it was writing, so no partial output is ever left.
#include "io/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
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

#include "io/io.h"
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

// A thread between register_temp_file and created_temp_file is about to
// create its file: the handler, which runs on one thread while the others
// go on, waits for it (g_creating), or it sees g_dying and creates nothing.
// Otherwise a file created just after the handler's last unlink would
// outlive the process. Sequentially consistent: of the handler's "dying,
// then is anyone creating?" and a thread's "creating, then dying?", at
// least one sees the other's write.
std::atomic<int> g_creating{0};
std::atomic<bool> g_dying{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler sets it");

}  // namespace

int register_temp_file(const std::string& tmp) {
  g_creating.fetch_add(1);
  if (g_dying.load()) {
    // A signal is being handled: the process dies in a moment, and this
    // file must not be created. Wait for that.
    g_creating.fetch_sub(1);
    for (;;) pause();
  }
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

void created_temp_file() {
  g_creating.fetch_sub(1);
}

void unregister_temp_file(int i) {
  if (i >= 0) g_tmp_state[i].store(kFree);
}

namespace {

extern "C" void on_signal(int sig) {
  g_dying.store(true);
  // At most about a second: the handler may have interrupted its own thread
  // inside the window, which cannot leave it (its file, if it got that far,
  // is registered and deleted below; if not, it is never created).
  const timespec tick{0, 1000000};
  for (int waited = 0; g_creating.load() > 0 && waited < 1000; ++waited) nanosleep(&tick, nullptr);
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
