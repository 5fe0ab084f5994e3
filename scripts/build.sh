#!/usr/bin/env bash
# Installs whatever build dependency is missing (Debian 12 packages), then
# configures and builds spritz in Release into ./build. Safe to re-run.
#   scripts/build.sh           build dependencies only
#   scripts/build.sh --tests   also what the test suite drives (ffmpeg, PIL, ImageMagick, GNU parallel,
#                              Slurm and munge, python3-yaml, clang-format-14, Chromium,
#                              Godot 3 with Xvfb and Mesa for the engine test
#                              and tests/browser's npm packages: puppeteer-core and the
#                              engines whose loaders read spritz's sheets)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make pkg-config libcli11-dev libtomlplusplus-dev libstb-dev catch2 libmpfr-dev libdeflate-dev libopenexr-dev libcpp-httplib-dev libpugixml-dev libtiff-dev zlib1g-dev nlohmann-json3-dev help2man)
cmake_args=()
tests=0
for arg in "$@"; do
  case "$arg" in
    --tests)
      tests=1
      packages+=(ffmpeg parallel slurm-wlm munge python3-yaml python3-pil imagemagick clang-format-14 dpkg-dev file chromium
                 godot3 xvfb xauth libgl1-mesa-dri)
      command -v npm >/dev/null || packages+=(nodejs npm)
      ;;
    *) cmake_args+=("$arg") ;;
  esac
done
scripts/install-missing.sh "${packages[@]}"
# The browser tests' packages, exactly as locked, when the lock is newer
# than what is installed.
if [ "$tests" = 1 ] && [ ! tests/browser/node_modules/.package-lock.json -nt tests/browser/package-lock.json ]; then
  npm ci --prefix tests/browser --no-audit --no-fund --ignore-scripts --loglevel=error >&2
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"} >/dev/null
cmake --build build -j"$(nproc)"
