#!/usr/bin/env bash
# Fails when a C++ file of the project differs from what clang-format-14 makes
# of it with the repository's .clang-format, and names each such file.
# Skips (exit 77) when clang-format-14 is missing, except under CI=true, where
# scripts/build.sh --tests has installed it and a skip would hide a gap.
#   scripts/format-check.sh          check
#   scripts/format-check.sh --fix    format the files in place
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tool="$(command -v clang-format-14 || true)"
if [ -z "$tool" ]; then
  if [ "${CI:-}" = true ]; then echo "format-check: clang-format-14 is missing" >&2; exit 1; fi
  echo "format-check: SKIP: clang-format-14 is not installed (apt-get install clang-format-14)"
  exit 77
fi
mapfile -t files < <(find system lib raster import cli tests bench -name '*.cpp' -o -name '*.h' | sort)
if [ "${1:-}" = --fix ]; then
  "$tool" -i "${files[@]}"
  exit 0
fi
# One clang-format process for the whole tree; it names each file and line.
if ! out="$("$tool" --dry-run --Werror "${files[@]}" 2>&1)"; then
  echo "$out" | grep -E '^[^ ]+:[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u |
    sed 's/$/ is not formatted (scripts\/format-check.sh --fix)/; s/^/format-check: /'
  echo "$out" | head -40 >&2
  exit 1
fi
echo "format-check: ${#files[@]} files formatted"

# The C library's transcendental functions round differently on different
# CPUs (docs/model.md, "Elementary functions"): lib, raster, import and cli
# call spritz::math's (spritz/elementary.h) instead. Whole-line comments may
# name them.
names='sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2|exp10|expm1|log|log2|log10|log1p|logb|pow|cbrt|hypot|fmod|erf|erfc|lgamma|tgamma|sincos'
if libm="$(grep -rnP "(?<![\w.>])(?<!math::)(?:std::|::)?(?:$names)[fl]?\s*\(" \
    system lib raster import cli --include='*.cpp' --include='*.h' |
    grep -v -e '^lib/src/elementary/' -e '^lib/include/spritz/elementary.h:' |
    grep -vP '^[^:]+:\d+:\s*//')"; then
  echo "$libm" | sed 's/^/format-check: a C library call that differs between CPUs; use spritz::math (spritz\/elementary.h): /'
  exit 1
fi
echo "format-check: no C library transcendental calls outside spritz/elementary.h"
