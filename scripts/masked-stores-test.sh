#!/usr/bin/env bash
# Checks the AVX-512 sprite kernel's object code: every masked store must be
# a masked vmovups/vmovaps/vmovdqu. Those suppress faults on masked-off
# elements; a masked vextractf32x8 to memory (what GCC makes of a masked
# store of a vector's upper half) does not on Zen 5, so blending the
# image's last pixel faults when the allocation ends at an unmapped page.
#   scripts/masked-stores-test.sh OBJDUMP OBJECT...   (the raster library's objects)
set -euo pipefail
objdump=$1
shift
obj=
for arg in "$@"; do  # CMake passes its list of objects as one argument, ;-separated
  IFS=';' read -ra objects <<<"$arg"
  for o in "${objects[@]}"; do
    case "$o" in *kernels/avx512*) obj=$o ;; esac
  done
done
[ -n "$obj" ] || { echo "no kernels/avx512 object among: $*" >&2; exit 1; }
# AT&T syntax: a store's memory operand is last, followed by its mask (GNU
# objdump writes "%ymm0,(%rcx){%k1}", llvm-objdump "%ymm0, (%rcx) {%k1}").
stores=$("$objdump" -d --no-show-raw-insn "$obj" |
  grep -E ',[^,]*\(%[^)]*\)[[:space:]]*\{%k[0-7]\}' || true)
count=$(printf '%s\n' "$stores" | grep -c . || true)
if [ "$count" -eq 0 ]; then
  echo "no masked stores found in $obj: the check no longer sees the kernel's stores" >&2
  exit 1
fi
bad=$(printf '%s\n' "$stores" | grep -vE '[[:space:]]vmov(up|ap)[sd][[:space:]]|[[:space:]]vmovdq[au](8|16|32|64)?[[:space:]]' || true)
if [ -n "$bad" ]; then
  echo "masked stores other than vmovups/vmovaps/vmovdqu in $obj:" >&2
  printf '%s\n' "$bad" >&2
  exit 1
fi
echo "$count masked stores in $obj, all vmovups/vmovaps/vmovdqu"
