#include "machine.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <chrono>
#include <cstdint>
#include <fstream>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SPRITZ_MACHINE_X86 1
#endif

namespace spritz::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

#if SPRITZ_MACHINE_X86
// Four dependent 64-bit multiplies per step: 12 cycles on every recent x86
// core (3-cycle latency), whatever else the core can overlap.
double imul_ghz(long steps) {
  uint64_t x = 3;
  const auto t0 = Clock::now();
  for (long i = 0; i < steps; ++i)
    asm volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0" : "+r"(x));
  return 12.0 * static_cast<double>(steps) / seconds_since(t0) / 1e9;
}

// Twelve independent chains, so the rate is throughput, not latency; each
// vector stays in a register (the empty asm keeps it live without a store).
#define SPRITZ_R12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
template <bool kShuffle>
__attribute__((target("avx2"))) double vector_ops_per_ns(long steps) {
#define SPRITZ_DECL(i) __m256 a##i = _mm256_set1_ps(1.0f + (i)*1e-7f);
  SPRITZ_R12(SPRITZ_DECL)
  const __m256 c = _mm256_set1_ps(1e-9f);
  const auto t0 = Clock::now();
  for (long s = 0; s < steps; ++s) {
#define SPRITZ_OP(i) \
  a##i = kShuffle ? _mm256_permute2f128_ps(a##i, a##i, 1) : _mm256_add_ps(a##i, c);
    SPRITZ_R12(SPRITZ_OP)
#define SPRITZ_KEEP(i) asm volatile("" : "+x"(a##i));
    SPRITZ_R12(SPRITZ_KEEP)
  }
  const double rate = 12.0 * static_cast<double>(steps) / seconds_since(t0) / 1e9;
  volatile float sink = 0;
#define SPRITZ_SINK(i) sink = sink + _mm256_cvtss_f32(a##i);
  SPRITZ_R12(SPRITZ_SINK)
  return rate;
}

// The same with 512-bit vectors: on cores that split them in two halves
// it is about half the 256-bit rate, on cores with 512-bit units the same.
__attribute__((target("avx512f"))) double vector512_adds_per_ns(long steps) {
#define SPRITZ_DECL512(i) __m512 a##i = _mm512_set1_ps(1.0f + (i)*1e-7f);
  SPRITZ_R12(SPRITZ_DECL512)
  const __m512 c = _mm512_set1_ps(1e-9f);
  const auto t0 = Clock::now();
  for (long s = 0; s < steps; ++s) {
#define SPRITZ_OP512(i) a##i = _mm512_add_ps(a##i, c);
    SPRITZ_R12(SPRITZ_OP512)
#define SPRITZ_KEEP512(i) asm volatile("" : "+v"(a##i));
    SPRITZ_R12(SPRITZ_KEEP512)
  }
  const double rate = 12.0 * static_cast<double>(steps) / seconds_since(t0) / 1e9;
  volatile float sink = 0;
#define SPRITZ_SINK512(i) sink = sink + _mm512_cvtss_f32(a##i);
  SPRITZ_R12(SPRITZ_SINK512)
  return rate;
}

// The fastest of several timed slices of about `seconds` in all: noise on a
// shared VM only ever slows a slice down.
template <typename F>
double best_rate(F f, double seconds) {
  long steps = 1 << 16;
  while (true) {  // size a slice to about a tenth of the budget
    const auto t0 = Clock::now();
    f(steps);
    if (seconds_since(t0) > seconds / 10 || steps > (1L << 40)) break;
    steps *= 2;
  }
  double best = 0;
  const auto start = Clock::now();
  do {
    const double r = f(steps);
    if (r > best) best = r;
  } while (seconds_since(start) < seconds);
  return best;
}
#endif

// "model name (family F, model M)" from /proc/cpuinfo's first processor.
std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name, family, model;
  auto value = [&] {
    const size_t c = line.find(':');
    return c == std::string::npos ? std::string() : line.substr(c + 2);
  };
  while (std::getline(in, line) && !line.empty()) {
    if (line.rfind("model name", 0) == 0)
      name = value();
    else if (line.rfind("cpu family", 0) == 0)
      family = value();
    else if (line.rfind("model\t", 0) == 0)
      model = value();
  }
  if (name.empty()) return std::string();
  return family.empty() ? name : name + " (family " + family + ", model " + model + ")";
}

}  // namespace

MachineRate measure_machine(double seconds_each) {
  MachineRate m;
  m.cpu = cpu_name();
#if SPRITZ_MACHINE_X86
  m.ghz = best_rate(imul_ghz, seconds_each);
  if (__builtin_cpu_supports("avx2")) {
    m.vector_adds = best_rate(vector_ops_per_ns<false>, seconds_each) / m.ghz;
    m.vector_shuffles = best_rate(vector_ops_per_ns<true>, seconds_each) / m.ghz;
  }
  if (__builtin_cpu_supports("avx512f"))
    m.vector512_adds = best_rate(vector512_adds_per_ns, seconds_each) / m.ghz;
#else
  (void)seconds_each;
#endif
  return m;
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
  return cpus;
}

void pin_thread(const std::vector<int>& cpus) {
#if defined(__linux__)
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
  (void)cpus;
#endif
}

}  // namespace spritz::bench
