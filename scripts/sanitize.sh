#!/usr/bin/env bash
# The sanitizer stage of the test command (README, .ci/run): builds spritz
# with clang-14 under AddressSanitizer and UndefinedBehaviorSanitizer
# (float-cast-overflow and, in spritz's own code, implicit-conversion
# included; any report fails) into build-sanitize/,
# with the fuzz targets linked to libFuzzer, then runs
#   - the unit tests, the fuzz targets' seeds and tests/fuzz/regressions/;
#   - every fuzz target for SPRITZ_FUZZ_RUNS executions (default 20000) from
#     its seeds.
# Installs clang-14 and its runtime libraries (libclang-rt-14-dev, which has
# libFuzzer) when missing.
#   scripts/sanitize.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20000
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    *) echo "sanitize.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

scripts/install-missing.sh g++ cmake make pkg-config libcli11-dev libtomlplusplus-dev libstb-dev \
  catch2 libmpfr-dev libdeflate-dev libopenexr-dev libcpp-httplib-dev libpugixml-dev libtiff-dev zlib1g-dev nlohmann-json3-dev clang-14 libclang-rt-14-dev clang-format-14

# -O1 keeps the sanitized suite quick; Debug keeps assertions on (toml++'s
# included), which a release build would compile out.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DSPRITZ_SANITIZE=ON -DSPRITZ_FUZZ=ON \
  -DSPRITZ_FUZZ_RUNS="$runs" -DSPRITZ_MAN=OFF >/dev/null
cmake --build build-sanitize -j"$(nproc)"

# Any report is an error that stops the process; leaks are reported too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -L unit
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -R '^fuzz_[a-z]+$'
