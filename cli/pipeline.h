// The frame pipeline render, atlas and check share: items (frames, cells,
// check times) are produced on worker threads, each worker with its own
// state (its FrameRenderer), and consumed on the calling thread in item
// order, so every output is written, reported or placed in the same order
// whatever the thread count. A worker runs at most `window` items ahead of
// the consumer, which bounds memory whatever the number of items.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spritz {

// Runs produce(i, worker) for every i in [begin, end) on `workers` threads
// (worker = 0 .. workers - 1, for per-worker state) and consume(i, result)
// for each on the calling thread, in order of i.
//
// - A result for which halts(result) is true (a full disk), or a produce
//   that throws, stops new items from starting; the items already started
//   are still consumed in order, and a produce's exception is rethrown when
//   its item's turn comes.
// - consume may throw; the workers are then stopped and joined and the
//   exception goes on to the caller.
// - One item is produced and consumed on the calling thread (worker 0):
//   there is nothing to overlap, and a worker thread would cost its start
//   and a wake-up of the caller at the end, on the serial path of a
//   one-frame run (docs/performance.md, "Start-up and fresh memory").
template <typename Result>
void run_ordered(uint64_t begin, uint64_t end, int workers, uint64_t window,
                 const std::function<Result(uint64_t, int)>& produce,
                 const std::function<bool(const Result&)>& halts,
                 const std::function<void(uint64_t, Result&)>& consume) {
  if (begin >= end) return;
  if (end - begin == 1) {
    Result result = produce(begin, 0);
    consume(begin, result);
    return;
  }
  workers = std::max(1, workers);
  window = std::max<uint64_t>(window, 1);
  struct Slot {
    bool ready = false;
    Result result{};
    std::exception_ptr error;
  };
  std::vector<Slot> slots(window);
  std::mutex mutex;
  std::condition_variable slot_ready, slot_free;
  uint64_t next = begin, reported = begin;
  bool stop = false;

  const auto work = [&](int w) {
    while (true) {
      uint64_t i;
      {
        std::unique_lock<std::mutex> lock(mutex);
        slot_free.wait(lock, [&] { return stop || next >= end || next < reported + window; });
        if (stop || next >= end) return;
        i = next++;
      }
      Slot slot;
      try {
        slot.result = produce(i, w);
      } catch (...) {
        slot.error = std::current_exception();
      }
      slot.ready = true;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (slot.error || halts(slot.result)) stop = true;  // no new items
        slots[i % window] = std::move(slot);
      }
      slot_ready.notify_all();
    }
  };

  // Stops and joins the workers however this function is left.
  struct Crew {
    std::vector<std::thread> threads;
    std::function<void()> halt;
    ~Crew() {
      halt();
      for (std::thread& t : threads) t.join();
    }
  } crew;
  crew.halt = [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    slot_free.notify_all();
  };
  for (int w = 0; w < workers; ++w) crew.threads.emplace_back(work, w);

  for (uint64_t i = begin; i < end; ++i) {
    Slot slot;
    {
      std::unique_lock<std::mutex> lock(mutex);
      // Once stopped, the items already started are consumed, no more.
      slot_ready.wait(lock, [&] { return slots[i % window].ready || (stop && i >= next); });
      if (!slots[i % window].ready) break;
      slot = std::move(slots[i % window]);
      slots[i % window] = Slot{};
      reported = i + 1;
    }
    slot_free.notify_all();
    if (slot.error) std::rethrow_exception(slot.error);
    consume(i, slot.result);
  }
}

}  // namespace spritz
