#!/usr/bin/env python3
"""Every bundled effect as a whole process, side by side with an earlier
build: `spritz render` of 48 frames to PNG on one thread, best of N, the
two binaries taking turns (docs/performance.md, "Bundled effects").

    bench/bundled.py [--base REF] [--reps N]

The earlier build is made once per commit in build/bench-base-<commit>/
(as bench/whole_process.py makes its own). Read the ratios: the host's
noise hits both alike. Standard library only.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from whole_process import ROOT, build_base  # noqa: E402


def seconds(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the earlier build's git ref")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    base, commit = build_base(args.base)
    binaries = {"base": base, "this": os.path.join(ROOT, "build", "spritz")}
    totals = {k: 0.0 for k in binaries}
    print("%-12s %9s %9s %7s   (base %s)" % ("effect", "base s", "this s", "ratio", commit[:12]))
    with tempfile.TemporaryDirectory() as out:
        for fx in sorted(glob.glob(os.path.join(ROOT, "configs", "*.toml"))):
            best = {k: float("inf") for k in binaries}
            for _ in range(args.reps):
                for k, b in binaries.items():
                    cmd = [b, "render", fx, "-f", "0-47", "--threads", "1",
                           "-o", os.path.join(out, k + "_####.png"), "-q"]
                    best[k] = min(best[k], seconds(cmd))
            for k in binaries:
                totals[k] += best[k]
            name = os.path.basename(fx)[:-5]
            print("%-12s %9.3f %9.3f %7.3f" % (name, best["base"], best["this"], best["this"] / best["base"]))
    print("%-12s %9.3f %9.3f %7.3f" % ("all", totals["base"], totals["this"], totals["this"] / totals["base"]))


if __name__ == "__main__":
    main()
