#!/usr/bin/env bash
# Prints the SHA-256 of what every bundled effect gives at three times, as
# `spritz inspect --json` (the particles' state, every double printed to
# the last bit), as an EXR still (the pixels in half floats) and as a 16-bit
# PNG: one line per output, "effect time kind hash". The same effect, seed and time must give
# the same bytes on every CPU (docs/rendering.md, "Determinism"), so the list
# is committed (tests/same-bits.txt) and checked by tests/cli/same_bits_test.cpp
# on x86-64 under every glibc CPU level and sprite kernel, and under qemu for
# arm64 (scripts/test-arm64.sh). The environment passes through
# (GLIBC_TUNABLES, SPRITZ_SIMD). Regenerate on purpose with
#   scripts/same-bits.sh build/spritz > tests/same-bits.txt
set -euo pipefail
spritz=$(realpath "${1:-build/spritz}")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The bundled effects, and a Godot particle shader run as written.
for fx in configs/*.toml configs/import/sparkler.gdshader; do
  name=$(basename "$fx")
  name=${name%.*}
  for t in 0.7 1.3 2.9; do
    hash=$("$spritz" inspect "$fx" --time "$t" --json | sha256sum | cut -d' ' -f1)
    echo "$name $t json $hash"
    "$spritz" render "$fx" --time "$t" -o "$work/still.exr" -q
    hash=$(sha256sum <"$work/still.exr" | cut -d' ' -f1)
    echo "$name $t exr $hash"
    "$spritz" render "$fx" --time "$t" --depth 16 -o "$work/still.png" -q
    hash=$(sha256sum <"$work/still.png" | cut -d' ' -f1)
    echo "$name $t png16 $hash"
  done
done
