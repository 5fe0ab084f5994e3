#!/bin/sh
# Writes a help2man include file with one section per spritz command, each
# the command's own --help, so `man spritz` documents every option.
# Usage: man-commands.sh OUTPUT [EMULATOR ...] SPRITZ
set -eu
out="$1"; shift
for binary; do :; done  # the last argument: the binary, named "spritz" in the page
{
  echo "[COMMANDS]"
  for cmd in render atlas inspect validate check diff; do
    echo ".SS $cmd"
    echo ".nf"
    "$@" "$cmd" --help | sed "s|$binary|spritz|g" | sed 's/\\/\\\\/g; s/^\./\\\&./'
    echo ".fi"
  done
} > "$out.tmp"
mv "$out.tmp" "$out"
