// What this machine's core does per cycle, measured in the same run as the
// scenes, so a reader can tell a slow host from a slow renderer.
#pragma once

#include <string>
#include <vector>

namespace spritz::bench {

struct MachineRate {
  std::string cpu;             // /proc/cpuinfo's model name, family and model ("" if unknown)
  double ghz = 0;              // from a dependent imul chain (3 cycles each)
  double vector_adds = 0;      // independent 256-bit float adds per cycle (0: no AVX2)
  double vector_shuffles = 0;  // independent vperm2f128 per cycle (0: no AVX2)
  double vector512_adds = 0;   // independent 512-bit float adds per cycle (0: no AVX-512)
};

// Measures the CPU the calling thread runs on.
MachineRate measure_machine(double seconds_each);

// The logical CPUs this process may run on (sched_getaffinity), ascending;
// empty where that is unknown.
std::vector<int> allowed_cpus();

// Restricts the calling thread to `cpus` (threads it starts afterwards
// inherit the set); an empty list leaves it where it is.
void pin_thread(const std::vector<int>& cpus);

}  // namespace spritz::bench
