#!/usr/bin/env bash
# Runs the fuzz targets (tests/fuzz/) for as long as asked, in the sanitized
# libFuzzer build of scripts/sanitize.sh (build-sanitize/), all targets at
# once, each in its own process. New inputs go to build-sanitize/tests/fuzz/corpus/,
# findings to build-sanitize/tests/fuzz/finding-<target>-*; once a finding
# is fixed, copy it into tests/fuzz/regressions/<target>/ so the suite
# replays it for good.
#   scripts/fuzz.sh --runs 1000000                 each target for a million executions
#   scripts/fuzz.sh --time 3600 effect texture     these two for an hour each
set -euo pipefail
cd "$(dirname "$0")/.."

limit=(-runs=100000)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) limit=(-runs="$2"); shift 2 ;;
    --time) limit=(-max_total_time="$2"); shift 2 ;;
    effect|texture|diff|cli|import|program) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument $1 (targets: effect texture diff cli import program)" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(effect texture diff cli import program)

scripts/install-missing.sh g++ cmake make pkg-config libcli11-dev libtomlplusplus-dev libstb-dev \
  catch2 libmpfr-dev libdeflate-dev libopenexr-dev libcpp-httplib-dev libpugixml-dev libtiff-dev zlib1g-dev nlohmann-json3-dev clang-14 libclang-rt-14-dev
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DSPRITZ_SANITIZE=ON -DSPRITZ_FUZZ=ON -DSPRITZ_MAN=OFF >/dev/null
cmake --build build-sanitize -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

dir=build-sanitize/tests/fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pids=()
for t in "${targets[@]}"; do
  # shellcheck disable=SC2046  # the .args file is a list of words (no spaces in them)
  "$dir/fuzz_$t" "${limit[@]}" -print_final_stats=1 $(cat "$dir/$t.args") >"$dir/$t.log" 2>&1 &
  pids+=($!)
  echo "fuzz.sh: $t running, log $dir/$t.log"
done
status=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  if wait "${pids[$i]}"; then
    echo "fuzz.sh: $t: $(grep -E '^stat::number_of_executed_units' "$dir/$t.log" | awk '{print $2}') executions, no finding"
  else
    status=1
    echo "fuzz.sh: $t: FINDING (see $dir/$t.log and $dir/finding-$t-*)" >&2
  fi
done
exit $status
