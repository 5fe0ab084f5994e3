#!/usr/bin/env bash
# Installs whatever build dependency is missing (Debian 12 packages), then
# configures and builds spritz in Release into ./build. Safe to re-run.
#   scripts/build.sh           build dependencies only
#   scripts/build.sh --tests   also what the test suite drives (ffmpeg, GNU parallel,
#                              Slurm and munge, python3-yaml, clang-format-14)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make pkg-config libcli11-dev libtomlplusplus-dev libstb-dev catch2 libdeflate-dev help2man)
cmake_args=()
for arg in "$@"; do
  case "$arg" in
    --tests) packages+=(ffmpeg parallel slurm-wlm munge python3-yaml clang-format-14 dpkg-dev file) ;;
    *) cmake_args+=("$arg") ;;
  esac
done
scripts/install-missing.sh "${packages[@]}"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"} >/dev/null
cmake --build build -j"$(nproc)"
