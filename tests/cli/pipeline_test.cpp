// The frame pipeline render, atlas and check share: items consumed in order
// whatever the worker count, a bounded window, halts and errors that stop
// new items while those started are still consumed.
#include "pipeline.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace spritz;

namespace {

// Items take uneven times, so workers finish out of order.
int slow_square(uint64_t i) {
  std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 13 * 50));
  return static_cast<int>(i * i);
}

}  // namespace

TEST_CASE("items are consumed in order on any number of workers", "[pipeline]") {
  for (int workers : {1, 2, 5}) {
    INFO(workers << " workers");
    std::vector<uint64_t> order;
    std::vector<int> values;
    run_ordered<int>(
        3, 40, workers, 2 * static_cast<uint64_t>(workers),
        [](uint64_t i, int) { return slow_square(i); }, [](const int&) { return false; },
        [&](uint64_t i, int& v) {
          order.push_back(i);
          values.push_back(v);
        });
    REQUIRE(order.size() == 37);
    for (size_t k = 0; k < order.size(); ++k) {
      CHECK(order[k] == 3 + k);
      CHECK(values[k] == static_cast<int>((3 + k) * (3 + k)));
    }
  }
}

TEST_CASE("no worker runs more than the window ahead of the consumer", "[pipeline]") {
  std::atomic<uint64_t> consumed{0};
  std::atomic<uint64_t> worst{0};
  const uint64_t window = 4;
  run_ordered<int>(
      0, 200, 3, window,
      [&](uint64_t i, int) {
        const uint64_t ahead = i - consumed.load();
        uint64_t seen = worst.load();
        while (ahead > seen && !worst.compare_exchange_weak(seen, ahead)) {
        }
        return 0;
      },
      [](const int&) { return false; },
      [&](uint64_t i, int&) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        consumed = i + 1;
      });
  CHECK(consumed == 200);
  CHECK(worst.load() <= window);
}

TEST_CASE("a halting result stops new items: those started are still consumed", "[pipeline]") {
  std::vector<uint64_t> seen;
  std::atomic<int> produced{0};
  run_ordered<int>(
      0, 1000, 2, 4,
      [&](uint64_t i, int) {
        ++produced;
        return static_cast<int>(i);
      },
      [](const int& v) { return v == 10; }, [&](uint64_t i, int&) { seen.push_back(i); });
  // Everything up to the halting item, in order, and at most a window more.
  REQUIRE(seen.size() >= 11);
  for (size_t k = 0; k < seen.size(); ++k) CHECK(seen[k] == k);
  CHECK(seen.size() <= 11 + 4);
  CHECK(produced.load() <= 11 + 4 + 2);
}

TEST_CASE("a producer's exception reaches the caller at its item's turn", "[pipeline]") {
  std::vector<uint64_t> seen;
  CHECK_THROWS_WITH(
      run_ordered<int>(
          0, 100, 3, 6,
          [](uint64_t i, int) {
            if (i == 7) throw std::runtime_error("item 7 failed");
            return 0;
          },
          [](const int&) { return false; }, [&](uint64_t i, int&) { seen.push_back(i); }),
      "item 7 failed");
  REQUIRE(seen.size() == 7);  // 0..6 consumed first
  CHECK(seen.back() == 6);
}

TEST_CASE("a consumer's exception stops and joins the workers", "[pipeline]") {
  CHECK_THROWS_WITH(
      run_ordered<int>(
          0, 100000, 4, 8, [](uint64_t, int) { return 1; }, [](const int&) { return false; },
          [](uint64_t i, int&) {
            if (i == 5) throw std::runtime_error("disk gone");
          }),
      "disk gone");
  // An empty range runs nothing.
  int calls = 0;
  run_ordered<int>(
      5, 5, 2, 2,
      [&](uint64_t, int) {
        ++calls;
        return 0;
      },
      [](const int&) { return false; }, [&](uint64_t, int&) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("one item is produced and consumed on the calling thread", "[pipeline]") {
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id produced, consumed;
  int worker = -1, value = 0;
  run_ordered<int>(
      9, 10, 4, 8,
      [&](uint64_t i, int w) {
        produced = std::this_thread::get_id();
        worker = w;
        return static_cast<int>(i * i);
      },
      [](const int&) { return true; },  // a halt changes nothing: there is no next item
      [&](uint64_t i, int& v) {
        consumed = std::this_thread::get_id();
        CHECK(i == 9);
        value = v;
      });
  CHECK(produced == caller);
  CHECK(consumed == caller);
  CHECK(worker == 0);
  CHECK(value == 81);
  // Its producer's exception reaches the caller, with nothing consumed.
  bool any = false;
  CHECK_THROWS_WITH(run_ordered<int>(
                        0, 1, 2, 4, [](uint64_t, int) -> int { throw std::runtime_error("lone"); },
                        [](const int&) { return false; }, [&](uint64_t, int&) { any = true; }),
                    "lone");
  CHECK_FALSE(any);
}
