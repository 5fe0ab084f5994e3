# CMake toolchain for a 64-bit ARM (aarch64) build on a Debian 12 x86-64
# machine, run under qemu-user: see scripts/test-arm64.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The libraries come from Debian's arm64 packages (multiarch), in
# /usr/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# "-L /": load the arm64 C library with its own loader (/lib/ld-linux-aarch64.so.1).
# The cross toolchain's copy under /usr/aarch64-linux-gnu is an older build;
# mixed with the multiarch libc.so.6 it hangs in the first pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /)
