#!/usr/bin/env bash
# The installed tree works for a user: `cmake --install` into a scratch
# prefix, then the installed spritz renders a bundled effect, and an outside
# project (tests/install/consumer) that loads, evaluates and draws an effect
# builds against it twice: with find_package(spritz) and with pkg-config.
# Neither may see spritz's own warning or sanitizer flags.
# Usage: scripts/install-test.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }
. "$root/scripts/skip.sh"
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir="$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")"
for f in bin/spritz include/spritz/effect.h include/spritz/eval.h include/spritz/version.h \
         include/spritz/raster/raster.h "$libdir/libspritz-model.a" "$libdir/libspritz-raster.a" \
         "$libdir/cmake/spritz/spritzConfig.cmake" "$libdir/pkgconfig/spritz.pc" \
         share/man/man1/spritz.1.gz share/spritz/effects/campfire.toml \
         share/spritz/effects/textures/coin.png share/doc/spritz/model.md share/doc/spritz/README.md; do
  [ -e "$prefix/$f" ] || fail "the install has no $f"
done
if grep -E -- '-W(all|extra|shadow)|-ffp-contract|-fsanitize|spritz_warnings' \
     "$prefix/$libdir"/cmake/spritz/*.cmake "$prefix/$libdir/pkgconfig/spritz.pc"; then
  fail "spritz's private build flags leak into the installed package files"
fi
zcat "$prefix/share/man/man1/spritz.1.gz" | grep -q '^\.SS render' || fail "the man page has no render section"

"$prefix/bin/spritz" --version | grep -q "^spritz " || fail "the installed spritz has no --version"
"$prefix/bin/spritz" render "$prefix/share/spritz/effects/sparks.toml" --time 1 -o "$work/sparks.png" -q
[ -s "$work/sparks.png" ] || fail "the installed spritz rendered nothing"
# .exr frames come from a module the installed binary loads from
# <libdir>/spritz (cli/io/module.h), not from the build tree.
for m in exr http; do
  [ -f "$prefix/$libdir/spritz/spritz-$m.so" ] || fail "the install has no $libdir/spritz/spritz-$m.so"
done
SPRITZ_MODULE_DIR= "$prefix/bin/spritz" render "$prefix/share/spritz/effects/sparks.toml" --time 1 \
  -o "$work/sparks.exr" -q || fail "the installed spritz cannot write .exr (its module)"
[ -s "$work/sparks.exr" ] || fail "the installed spritz wrote no .exr"

effect="$prefix/share/spritz/effects/sparks.toml"
cmake -S "$root/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null \
  || fail "find_package(spritz) failed"
cmake --build "$work/consumer" >/dev/null || fail "the find_package consumer does not build"
by_cmake="$("$work/consumer/consumer" "$effect" 1)"

export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
# shellcheck disable=SC2046
c++ -std=c++17 -O2 "$root/tests/install/consumer/main.cpp" -o "$work/pc_consumer" \
  $(pkg-config --cflags --libs --static spritz) || fail "the pkg-config consumer does not build"
by_pkgconfig="$("$work/pc_consumer" "$effect" 1)"

version="$(sed -n 's/^Version: //p' "$PKG_CONFIG_PATH/spritz.pc")"
set -- $by_cmake
[ "$1" -gt 0 ] || fail "the consumer found no particles: $by_cmake"
[ "$2" -gt 100 ] || fail "the consumer wrote no PNG: $by_cmake"
[ "$3" = "$version" ] || fail "version.h says $3, spritz.pc says $version"
[ "$by_cmake" = "$by_pkgconfig" ] || fail "find_package gave '$by_cmake', pkg-config '$by_pkgconfig'"
echo "install-test: ok ($by_cmake: particles, PNG bytes, version)"
