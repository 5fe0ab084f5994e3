// E1: spritz's own elementary functions (spritz/elementary.h) against the C
// library's on this machine, nanoseconds a call over 4,096 arguments from the
// range the model uses, the two timed in turn. glibc's are picked for this
// CPU (with AVX2 and FMA where it has them) and differ in the last bit from
// CPU to CPU; spritz's cost more per call and give the same bits everywhere.
// What users see is the whole process: docs/performance.md and
// bench/whole_process.py.
#include <cmath>
#include <random>

#include "bench.h"
#include "spritz/elementary.h"

namespace spritz::bench {
namespace {

struct Pair {
  const char* name;
  double lo, hi;  // the arguments' range
  double (*ours)(double);
  double (*libc)(double);
};

double our_atan2(double y) {
  return math::atan2(y, 0.75);
}
double libc_atan2(double y) {
  return std::atan2(y, 0.75);
}
double our_pow(double x) {
  return math::pow(x, 2.4);
}
double libc_pow(double x) {
  return std::pow(x, 2.4);
}
double our_hypot(double x) {
  return math::hypot(x, 0.75);
}
double libc_hypot(double x) {
  return std::hypot(x, 0.75);
}
double our_fmod(double x) {
  return math::fmod(x, 360.0);
}
double libc_fmod(double x) {
  return std::fmod(x, 360.0);
}
double our_sincos(double x) {
  double s, c;
  math::sincos(x, &s, &c);
  return s + c;
}
double libc_sincos(double x) {
  return std::sin(x) + std::cos(x);
}

const Pair kPairs[] = {
    {"sin", -10, 10, math::sin, [](double x) { return std::sin(x); }},
    {"cos", -10, 10, math::cos, [](double x) { return std::cos(x); }},
    {"sincos", -10, 10, our_sincos, libc_sincos},
    {"tan", -1.5, 1.5, math::tan, [](double x) { return std::tan(x); }},
    {"asin", -1, 1, math::asin, [](double x) { return std::asin(x); }},
    {"atan", -10, 10, math::atan, [](double x) { return std::atan(x); }},
    {"atan2", -10, 10, our_atan2, libc_atan2},
    {"exp", -20, 20, math::exp, [](double x) { return std::exp(x); }},
    {"exp2", -20, 20, math::exp2, [](double x) { return std::exp2(x); }},
    {"expm1", -2, 2, math::expm1, [](double x) { return std::expm1(x); }},
    {"log", 1e-3, 1e3, math::log, [](double x) { return std::log(x); }},
    {"log2", 1e-3, 1e3, math::log2, [](double x) { return std::log2(x); }},
    {"log10", 1e-3, 1e3, math::log10, [](double x) { return std::log10(x); }},
    {"log1p", -0.5, 10, math::log1p, [](double x) { return std::log1p(x); }},
    {"pow", 0, 1, our_pow, libc_pow},
    {"cbrt", 1e-3, 1e3, math::cbrt, [](double x) { return std::cbrt(x); }},
    {"hypot", -10, 10, our_hypot, libc_hypot},
    {"fmod", -2000, 2000, our_fmod, libc_fmod},
};

// Seconds for one pass of f over xs; the sum keeps the calls alive.
double pass(double (*f)(double), const std::vector<double>& xs, double* sink) {
  return seconds_of([&] {
    double sum = 0;
    for (const double x : xs) sum += f(x);
    *sink += sum;
  });
}

}  // namespace

void Bench::elementary() {
  std::printf("\nE1  elementary functions, ns a call (spritz's own against this C library's)\n");
  std::printf("    %-8s %8s %8s %7s\n", "", "spritz", "libc", "ratio");
  std::mt19937_64 rng(1);
  std::string rows;
  double sink = 0;
  for (const Pair& p : kPairs) {
    std::vector<double> xs(4096);
    std::uniform_real_distribution<double> d(p.lo, p.hi);
    for (double& x : xs) x = d(rng);
    const std::vector<double> best = best_seconds_alternating(
        {[&] { return pass(p.ours, xs, &sink); }, [&] { return pass(p.libc, xs, &sink); }},
        g_quick ? 0.2 : 0.4);
    const double ours = best[0] / 4096 * 1e9, libc = best[1] / 4096 * 1e9;
    std::printf("    %-8s %8.1f %8.1f %7.2f\n", p.name, ours, libc, ours / libc);
    rows += std::string(rows.empty() ? "" : ", ") + "\"" + p.name + "\": {\"ns\": " + num(ours, 3) +
            ", \"libc_ns\": " + num(libc, 3) + ", \"ratio\": " + num(ours / libc, 3) + "}";
  }
  json.raw("E1", "{" + rows + "}");
  if (sink == 42) std::printf(" ");  // the sums are used
}

}  // namespace spritz::bench
