#include "spritz/raster/pool.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace spritz;

// Each thread starts on its own contiguous range of tasks and then takes
// what is left of the others'. Every task must run exactly once, whatever
// the thread count, the task count (fewer tasks than threads included) and
// however unevenly the tasks take time (one range's slow tasks are taken
// over by the other threads).
TEST_CASE("the thread pool runs every task exactly once, sharing out a slow range", "[pool]") {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    for (int tasks : {1, 2, 3, 7, 64, 301}) {
      for (int round = 0; round < 3; ++round) {
        std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
        std::atomic<int> out_of_range{0};  // Catch2's assertions are not for worker threads
        pool.run(tasks, [&](int k) {
          if (k < 0 || k >= tasks) {
            out_of_range.fetch_add(1);
            return;
          }
          // The first range is slow, so the other threads must help with it.
          if (round == 1 && k < tasks / threads)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
          runs[static_cast<size_t>(k)].fetch_add(1);
        });
        REQUIRE(out_of_range.load() == 0);
        for (int k = 0; k < tasks; ++k) {
          INFO(threads << " threads, " << tasks << " tasks, task " << k);
          REQUIRE(runs[static_cast<size_t>(k)].load() == 1);
        }
      }
    }
  }
}

// Each thread starts on its own range: the caller at task 0, the worker at
// task n / 2, run after run. So when the tasks take alike, frame after
// frame strip k goes to the same thread and its rows stay in that core's
// caches (docs/performance.md). A shared counter would hand the worker
// whichever task was next when it woke.
TEST_CASE("the thread pool starts each thread on its own range of tasks", "[pool]") {
  ThreadPool pool(2);
  const int tasks = 40;
  for (int round = 0; round < 3; ++round) {
    std::mutex m;
    std::vector<std::pair<std::thread::id, int>> firsts;  // each thread's first task
    pool.run(tasks, [&](int k) {
      {
        std::lock_guard<std::mutex> lock(m);
        bool seen = false;
        for (const auto& f : firsts) seen = seen || f.first == std::this_thread::get_id();
        if (!seen) firsts.emplace_back(std::this_thread::get_id(), k);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    });
    REQUIRE(firsts.size() == 2);
    std::sort(firsts.begin(), firsts.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    CHECK(firsts[0].second == 0);
    CHECK(firsts[1].second == tasks / 2);
  }
}

// run_in_order hands the tasks out from one counter: each runs exactly once,
// and a second thread joins in at the next task not yet taken, not at the
// start of a range of its own (task n / 2 with run()).
TEST_CASE("the thread pool can hand tasks out in order", "[pool]") {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int tasks : {1, 2, 5, 40}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      std::mutex m;
      std::vector<std::pair<std::thread::id, int>> firsts;  // each thread's first task
      const auto all_started = [&] {
        std::lock_guard<std::mutex> lock(m);
        return firsts.size() >= static_cast<size_t>(std::min(threads, tasks));
      };
      pool.run_in_order(tasks, [&](int k) {
        runs[static_cast<size_t>(k)].fetch_add(1);
        {
          std::lock_guard<std::mutex> lock(m);
          bool seen = false;
          for (const auto& f : firsts) seen = seen || f.first == std::this_thread::get_id();
          if (!seen) firsts.emplace_back(std::this_thread::get_id(), k);
        }
        // Hold every task until each thread has taken one (or 5 s have
        // passed), so the order does not hang on how soon the host wakes a
        // worker: a loaded machine can take longer than many short tasks.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!all_started() && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::microseconds(100));
      });
      INFO(threads << " threads, " << tasks << " tasks");
      for (int k = 0; k < tasks; ++k) REQUIRE(runs[static_cast<size_t>(k)].load() == 1);
      if (threads == 1 || tasks < 40) continue;
      // Every thread's first task is one of the first few: handed out from
      // one counter, not from ranges of their own (which would start the
      // second thread at task 20 or 13).
      CHECK(firsts.size() == static_cast<size_t>(threads));
      for (const auto& f : firsts) CHECK(f.second < threads);
    }
  }
}

// The caller polls for the others to finish before it sleeps on them: it
// must return only once every task is done, whether the last one ends
// while it polls (a few microseconds) or long after (it sleeps then).
TEST_CASE("the thread pool returns only when every task has finished", "[pool]") {
  ThreadPool pool(2);
  for (int micros : {0, 20, 300, 3000}) {
    for (int round = 0; round < 3; ++round) {
      std::atomic<int> finished{0};
      std::atomic<bool> started{false};
      pool.run(2, [&](int k) {
        if (k == 1) {  // the worker's own task, the slow one
          started.store(true);
          std::this_thread::sleep_for(std::chrono::microseconds(micros));
        } else {  // the caller's: it waits for the worker to take task 1, so it cannot take it
          const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
          while (!started.load() && std::chrono::steady_clock::now() < give_up)
            std::this_thread::yield();
        }
        finished.fetch_add(1);
      });
      INFO("the slow task took " << micros << " us");
      REQUIRE(finished.load() == 2);
    }
  }
}

// Found by the fuzzing issue: a task that threw left the workers calling a
// function that no longer existed (the caller's) or ended the process (a
// worker's).
TEST_CASE("a task that throws reaches run()'s caller, and the pool runs on", "[pool]") {
  ThreadPool pool(3);
  for (int thrower : {5, 40, 90}) {  // in the caller's range and in each worker's
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(pool.run(100,
                               [&](int k) {
                                 std::this_thread::sleep_for(std::chrono::microseconds(200));
                                 if (k == thrower)
                                   throw std::runtime_error("task " + std::to_string(k));
                                 ++ran;
                               }),
                      "task " + std::to_string(thrower));
    CHECK(ran < 100);
    std::atomic<int> again{0};
    pool.run(100, [&](int) { ++again; });
    CHECK(again == 100);
  }
}
