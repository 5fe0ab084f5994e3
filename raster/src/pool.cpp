#include "spritz/raster/pool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <system_error>
#include <utility>

namespace spritz {

namespace {
// How long a thread with nothing to do polls before it sleeps: longer than
// the gap between a frame's two parallel phases, short enough not to burn a
// core between frames that come seldom.
constexpr int kSpinMicros = 100;

// Yields while `waiting()` holds, for at most kSpinMicros.
template <typename Waiting>
void poll_briefly(Waiting waiting) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  while (waiting() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
}
}  // namespace

ThreadPool::ThreadPool(int threads) : ranges_(static_cast<size_t>(std::max(threads, 1))) {
  try {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  } catch (const std::system_error&) {
    // No more threads to be had: those started and the caller do it all
    // (a thread done with its own range takes the others').
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::drain(int self) {
  const int n = static_cast<int>(ranges_.size());
  try {
    for (int i = 0; i < n; ++i) {
      Range& r = ranges_[static_cast<size_t>((self + i) % n)];
      for (int k; (k = r.next.fetch_add(1)) < r.end;) (*fn_)(k);
    }
  } catch (...) {
    // The first exception is run()'s to rethrow once every thread is done
    // with fn; the tasks not started yet are dropped.
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_) failure_ = std::current_exception();
    for (Range& r : ranges_) r.next.store(r.end);
  }
}

void ThreadPool::run(int tasks, const std::function<void(int)>& fn) {
  start(tasks, fn, false);
}

void ThreadPool::run_in_order(int tasks, const std::function<void(int)>& fn) {
  start(tasks, fn, true);
}

void ThreadPool::start(int tasks, const std::function<void(int)>& fn, bool in_order) {
  if (tasks <= 0) return;
  if (workers_.empty() || tasks == 1) {
    for (int k = 0; k < tasks; ++k) fn(k);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    const int n = static_cast<int>(ranges_.size());
    for (int t = 0; t < n; ++t) {
      // In order: the first range holds every task and the others none, so
      // every thread takes from the one counter (drain visits range 0 too).
      const int64_t from = in_order ? (t == 0 ? 0 : tasks) : int64_t{tasks} * t / n;
      const int64_t to = in_order ? tasks : int64_t{tasks} * (t + 1) / n;
      ranges_[static_cast<size_t>(t)].next.store(static_cast<int>(from));
      ranges_[static_cast<size_t>(t)].end = static_cast<int>(to);
    }
    busy_.store(static_cast<int>(workers_.size()));
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  // Spin briefly before sleeping, as the workers do: the others are
  // usually a few microseconds from done, and a sleeping thread takes tens
  // of them to wake on a virtual machine.
  poll_briefly([this] { return busy_.load(std::memory_order_acquire) != 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busy_.load(std::memory_order_relaxed) == 0; });
  fn_ = nullptr;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void ThreadPool::work(int self) {
  uint64_t seen = 0;
  while (true) {
    // Spin briefly before sleeping: a frame's two parallel phases (sprite
    // setup, then strips) follow each other within microseconds, and waking
    // a sleeping thread costs tens of them on a virtual machine.
    poll_briefly([&] { return generation_.load(std::memory_order_acquire) == seen; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain(self);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_.notify_one();
    }
  }
}

}  // namespace spritz
