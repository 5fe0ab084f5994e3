#!/usr/bin/env bash
# Builds spritz for 64-bit ARM (aarch64) with Debian 12's cross compiler and
# runs the whole test suite under qemu-user, golden images included: ARM
# builds (NEON kernel, FMLA for the fused multiply-adds, aarch64 libm) must
# write the same bytes as x86-64 ones. Installs what is missing (the cross
# compiler, qemu-user-static, and the arm64 -dev packages through dpkg's
# multiarch), then builds into ./build-arm64. Safe to re-run. About 3 minutes
# on 2 cores once installed: the cross build, then the tests under emulation.
#   scripts/test-arm64.sh [ctest arguments, e.g. -R golden]
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "spritz: adding the arm64 architecture to dpkg" >&2
  $sudo dpkg --add-architecture arm64
fi
packages=(g++-aarch64-linux-gnu qemu-user-static cmake make pkg-config libcli11-dev libstb-dev catch2
          libdeflate-dev:arm64 libmpfr-dev:arm64 libtomlplusplus-dev:arm64 libopenexr-3-1-30:arm64 libimath-dev:arm64 libcpp-httplib-dev:arm64 libpugixml-dev:arm64 libtiff-dev:arm64 zlib1g-dev:arm64 nlohmann-json3-dev
          ffmpeg parallel slurm-wlm munge python3-yaml)
scripts/install-missing.sh "${packages[@]}"

# libopenexr-dev is the one -dev package Debian does not make multiarch: its
# arm64 and x86-64 builds cannot be installed together, and scripts/build.sh
# needs the x86-64 one. So the arm64 one is unpacked here instead, beside
# links to the arm64 runtime libraries apt installed.
exr="$PWD/build-arm64/openexr-dev"
if [ ! -f "$exr/usr/lib/aarch64-linux-gnu/cmake/OpenEXR/OpenEXRConfig.cmake" ]; then
  mkdir -p build-arm64/debs "$exr"
  (cd build-arm64/debs && apt-get download libopenexr-dev:arm64 >/dev/null)
  dpkg-deb -x build-arm64/debs/libopenexr-dev_*_arm64.deb "$exr"
  for lib in $(dpkg -L libopenexr-3-1-30:arm64 | grep '/lib[^/]*\.so[.0-9]*$'); do
    ln -sfn "$lib" "$exr/usr/lib/aarch64-linux-gnu/$(basename "$lib")"
  done
fi

cmake -S . -B build-arm64 -DCMAKE_BUILD_TYPE=Release -DSPRITZ_MAN=OFF -DCMAKE_TOOLCHAIN_FILE="$PWD/scripts/aarch64-linux-gnu.cmake" \
  -DOpenEXR_DIR="$exr/usr/lib/aarch64-linux-gnu/cmake/OpenEXR" >/dev/null
cmake --build build-arm64 -j"$(nproc)" --target spritz spritz_system_tests spritz_lib_tests spritz_raster_tests spritz_import_tests spritz_cli_tests fuzz_effect fuzz_texture fuzz_diff fuzz_cli fuzz_import fuzz_program
readelf -h build-arm64/spritz | grep -q AArch64  # a cross build, not a native one
ctest --test-dir build-arm64 --output-on-failure -j"$(nproc)" "$@"
