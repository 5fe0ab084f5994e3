#include "pool.h"

#include <chrono>

namespace spritz {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::drain() {
  for (int k; (k = next_.fetch_add(1)) < tasks_;) (*fn_)(k);
}

void ThreadPool::run(int tasks, const std::function<void(int)>& fn) {
  if (tasks <= 0) return;
  if (workers_.empty() || tasks == 1) {
    for (int k = 0; k < tasks; ++k) fn(k);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    tasks_ = tasks;
    next_.store(0);
    busy_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  drain();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
  fn_ = nullptr;
}

void ThreadPool::work() {
  uint64_t seen = 0;
  while (true) {
    // Spin briefly before sleeping: a frame's two parallel phases (sprite
    // setup, then strips) follow each other within microseconds, and waking
    // a sleeping thread costs tens of them on a virtual machine.
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
    while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spin_until)
      std::this_thread::yield();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
}

}  // namespace spritz
