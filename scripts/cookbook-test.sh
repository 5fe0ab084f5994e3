#!/usr/bin/env bash
# Runs every ```sh block of a Markdown file (docs/cookbook.md) in its own
# scratch folder holding configs/, with spritz on the PATH; fails on the first
# block that fails. Usage: scripts/cookbook-test.sh SPRITZ_BINARY [FILE.md]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
doc="${2:-$root/docs/cookbook.md}"
. "$root/scripts/skip.sh"
for tool in ffmpeg parallel; do
  command -v "$tool" >/dev/null || skip "the recipes run $tool, which is not installed (scripts/build.sh --tests installs it)"
done
bin_dir="$(mktemp -d)"
ln -s "$binary" "$bin_dir/spritz"
export PATH="$bin_dir:$PATH"
work="$(mktemp -d)"
trap 'rm -rf "$work" "$bin_dir"' EXIT

n=0 failed=0
block=""
inside=0
line_no=0 start=0
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  if [ $inside -eq 0 ] && [ "$line" = '```sh' ]; then
    inside=1; block=""; start=$line_no; continue
  fi
  if [ $inside -eq 1 ] && [ "$line" = '```' ]; then
    inside=0; n=$((n + 1))
    dir="$work/recipe$n"; mkdir -p "$dir"; ln -s "$root/configs" "$dir/configs"
    if (cd "$dir" && bash -euo pipefail -c "$block") > "$dir/.log" 2>&1; then
      echo "ok   recipe $n (line $start)"
    else
      echo "FAIL recipe $n (line $start):"; sed 's/^/    /' "$dir/.log"; failed=$((failed + 1))
    fi
    continue
  fi
  [ $inside -eq 1 ] && block+="$line"$'\n'
done < "$doc"
echo "$((n - failed)) passed, $failed failed"
[ $n -gt 0 ] && [ $failed -eq 0 ]
