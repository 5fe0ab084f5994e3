#!/usr/bin/env bash
# Runs the benchmark suite with its peers and redraws the charts:
# installs Cairo, libpng and gnuplot when missing, builds, runs
# build/spritz_bench (table on stdout, bench/results.json), then bench/plot.py
# (docs/img/*.png). Pass --quick for a short run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-missing.sh libcairo2-dev libpng-dev gnuplot-nox
scripts/build.sh
build/spritz_bench "$@"
python3 bench/plot.py bench/results.json docs/img
