// A small persistent thread pool: run(n, f) calls f(0..n-1) across the
// workers and the calling thread and returns when all are done. Which thread
// runs which task never affects results in spritz: tasks write disjoint
// outputs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spritz {

class ThreadPool {
 public:
  // `threads` in all, the caller included (>= 1); fewer when the system
  // has no more threads to give (threads() says how many).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // When a task throws, the tasks not yet started are dropped, and run()
  // rethrows the first exception once no thread is still calling fn.
  // Each thread first takes a contiguous range of the tasks (Range below).
  void run(int tasks, const std::function<void(int)>& fn);
  // The same, every thread taking the next task not yet taken, so tasks
  // start (and, when alike, finish) in order: for work consumed in order
  // as it completes, such as a PNG's pieces streamed to a file.
  void run_in_order(int tasks, const std::function<void(int)>& fn);

 private:
  void start(int tasks, const std::function<void(int)>& fn, bool in_order);
  void work(int self);
  void drain(int self);

  // Each thread's share of the tasks: a contiguous range it takes first,
  // so a frame's strip k goes to the same thread frame after frame and its
  // rows stay in that core's caches; a thread done with its own range
  // takes what is left of the others'.
  struct alignas(64) Range {
    std::atomic<int> next{0};
    int end = 0;
  };

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* fn_ = nullptr;
  std::vector<Range> ranges_;
  std::atomic<int> busy_{0};
  std::atomic<uint64_t> generation_{0};
  bool stop_ = false;
  std::exception_ptr failure_;  // the first exception a task of this run() threw
};

}  // namespace spritz
