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
// handler may only use async-signal-safe calls (unlink, raise).
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
char g_tmp_paths[kSlots][kPathMax];
std::atomic<bool> g_tmp_used[kSlots];

}  // namespace

int register_temp_file(const std::string& tmp) {
  if (tmp.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_tmp_used[i].load() && g_tmp_used[i].compare_exchange_strong(expected, true)) {
      std::memcpy(g_tmp_paths[i], tmp.c_str(), tmp.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      return i;
    }
  }
  return -1;
}

void unregister_temp_file(int i) {
  if (i >= 0) g_tmp_used[i].store(false);
}

namespace {

extern "C" void on_signal(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_tmp_used[i].load()) unlink(g_tmp_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void install_signal_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGHUP, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace spritz
