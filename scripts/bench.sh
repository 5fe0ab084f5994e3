#!/usr/bin/env bash
# Runs the benchmark suite with its peers and redraws the charts:
# installs Cairo, libpng and gnuplot when missing, builds, runs
# build/spritz_bench (table on stdout, bench/results.json), then bench/plot.py
# (docs/img/*.png). Pass --quick for a short run.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for p in libcairo2-dev libpng-dev gnuplot-nox; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
scripts/build.sh
build/spritz_bench "$@"
python3 bench/plot.py bench/results.json docs/img
