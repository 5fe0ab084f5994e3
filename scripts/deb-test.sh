#!/usr/bin/env bash
# The .deb that `cpack -G DEB` makes from a build: it holds the program, the
# man page, the headers, libraries and CMake/pkg-config files, and the
# bundled effects under /usr; its Depends are Debian runtime packages that
# dpkg-shlibdeps found (libc6, and for the modules libstdc++6, libgcc-s1,
# OpenEXR's and cpp-httplib's) and libtiff6, which the importer opens itself,
# each installed here, and none of the libraries the program has linked in
# (SPRITZ_STATIC_DEPS: libdeflate, zlib, pugixml, toml++); and the unpacked
# program runs, loading its .exr module from the package's /usr/lib/spritz.
# Usage: scripts/deb-test.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
. "$root/scripts/skip.sh"
for tool in cpack dpkg-deb dpkg-shlibdeps file; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/build.sh --tests installs dpkg-dev and file)"
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" >cpack.log 2>&1) \
  || { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb="$(ls "$work"/spritz_*.deb)"
[ -f "$deb" ] || fail "cpack made no spritz_*.deb"

depends="$(dpkg-deb -f "$deb" Depends)"
for p in libc6 libstdc++6 libtiff6 libcpp-httplib0.11; do
  case ", $depends," in *", $p "*|*", $p,"*) ;; *) fail "Depends ($depends) lacks $p" ;; esac
done
if grep -q '^SPRITZ_STATIC_DEPS:BOOL=ON' "$build/CMakeCache.txt"; then
  for p in libdeflate0 zlib1g libpugixml1v5 libtomlplusplus3; do
    case ", $depends," in
      *", $p "*|*", $p,"*) fail "Depends ($depends) names $p, which the program links in" ;;
    esac
  done
  ldd "$build/spritz" | grep -E 'libstdc\+\+|libdeflate|libz\.|libpugixml|libtomlplusplus' \
    && fail "the program loads a shared library it should have linked in"
fi
IFS=',' read -ra deps <<<"$depends"
for d in "${deps[@]}"; do
  name="$(echo "$d" | sed 's/^ *//; s/ .*//')"
  dpkg-query -W -f='${Status}\n' "$name" 2>/dev/null | grep -q "install ok installed" \
    || fail "Depends names $name, which is not an installed Debian package"
done

contents="$(dpkg-deb -c "$deb")"
for f in ./usr/bin/spritz ./usr/share/man/man1/spritz.1.gz ./usr/include/spritz/eval.h \
         ./usr/lib/cmake/spritz/spritzConfig.cmake ./usr/lib/pkgconfig/spritz.pc \
         ./usr/share/spritz/effects/campfire.toml ./usr/share/doc/spritz/model.md \
         ./usr/lib/spritz/spritz-exr.so ./usr/lib/spritz/spritz-http.so; do
  grep -q " $f\$" <<<"$contents" || fail "the package does not hold $f"
done
dpkg-deb -x "$deb" "$work/root"
"$work/root/usr/bin/spritz" --version | grep -q "^spritz $(dpkg-deb -f "$deb" Version)" \
  || fail "the packaged spritz does not report the package's version"
SPRITZ_MODULE_DIR= "$work/root/usr/bin/spritz" render "$work/root/usr/share/spritz/effects/sparks.toml" \
  --time 1 -o "$work/sparks.exr" -q && [ -s "$work/sparks.exr" ] \
  || fail "the packaged spritz cannot write .exr (its module in /usr/lib/spritz)"
echo "deb-test: ok ($(basename "$deb"): Depends $depends)"
