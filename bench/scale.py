#!/usr/bin/env python3
"""Particle counts from 10 thousand to 20 million, whole processes
(docs/performance.md, "Millions of particles"), side by side in one run with
a previous build (built here from git, as bench/whole_process.py does).

    bench/scale.py [--base REF] [--reps N] [--quick] [--out bench/scale.json]
                   [--chart docs/img/scale.png]

Each scene is an effect written here: streams of 1-3 px soft additive dots
with drag and colour and transparency curves (the "galaxy" of the issue that
asked for this), at 10k to 20M alive at 1080p and 20M at 4K; the same dots
alpha-over; 8-32 px sprites; a parent stream whose particles each leave
children at death (a sub-emitter); and the dots moved by a program. Every
figure is the best of N whole processes, `spritz render --time 3 -o f.png
--json`, the binaries taking turns; peak memory is what --json reports.
Standard library only (gnuplot draws the chart when it is installed).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from whole_process import ROOT, best, build_base  # noqa: E402

# The last commit before frames of millions were drawn in batches.
DEFAULT_BASE = "232d4ba"
EMITTER_CAP = 10_000_000  # max_particles per emitter (docs/config.md)

DOTS = """rate = {rate}
max_particles = {cap}
lifetime = [1.5, 2.5]
speed = [20, 400]
direction = {direction}
spread = 180
drag = 0.5
size = {size}
color = {{ start = "#ffd27f", end = "#3f6fff" }}
transparency = {{ start = 0.0, end = 1.0 }}
light_emission = {emission}
texture = "builtin:soft"
"""

PROGRAM = '''program = """
void pose() {
  // The built-in motion in closed form (model.md 6.3: velocity v0 e^(-k t),
  // place v0 (1 - e^(-k t)) / k), turned by a slow swirl.
  float e = exp(-0.5 * AGE);
  vec2 p = VELOCITY / e * (1.0 - e) / 0.5;
  float a = 0.3 * AGE;
  POSITION = vec2(p.x * cos(a) - p.y * sin(a), p.x * sin(a) + p.y * cos(a));
}
"""
'''


def effect(alive, size="2", emission=1, program=False, sub=False, width=1920, height=1080):
    """An effect with about `alive` particles at 3 s (mean life 2 s), split
    over as many emitters as the per-emitter cap needs."""
    rate_total = max(alive, 1) / 2.0
    emitters = max(1, math.ceil(rate_total * 2.5 / (EMITTER_CAP * 0.95)))
    rate = rate_total / emitters
    cap = min(EMITTER_CAP, math.ceil(rate * 2.5) + 16)
    text = ('[effect]\nname = "scale"\nseed = 3\nduration = 4\nstart = 3\n'
            '[canvas]\nsize = [%d, %d]\nbackground = "#000000"\n' % (width, height))
    for k in range(emitters):
        text += "[[emitter]]\nname = \"e%d\"\n" % k
        if sub:
            # A parent of the same rate at 1/10 th, each leaving 9 children.
            text += DOTS.format(rate=rate / 10, cap=max(16, math.ceil(cap / 10)), direction=90,
                                size=size, emission=emission)
            text += ("[[emitter]]\nname = \"c%d\"\nsub = { parent = \"e%d\", on = \"death\", "
                     "count = 9 }\nmax_particles = %d\nlifetime = [1.5, 2.5]\nspeed = [10, 60]\n"
                     "spread = 180\nsize = %s\ntexture = \"builtin:soft\"\nlight_emission = %s\n"
                     % (k, k, min(EMITTER_CAP, cap), size, emission))
            continue
        text += DOTS.format(rate=rate, cap=cap, direction=90 + 360.0 * k / emitters, size=size,
                            emission=emission)
        if program:
            text += PROGRAM
    return text


SCENES = [  # (name, alive, options, in --quick)
    ("empty", 0, {}, True),  # the fixed cost of a 1080p frame: process, PNG
    ("dots 10k", 10_000, {}, True),
    ("dots 100k", 100_000, {}, True),
    ("dots 1M", 1_000_000, {}, True),
    ("dots 2M", 2_000_000, {}, True),
    ("dots 5M", 5_000_000, {}, False),
    ("dots 20M", 20_000_000, {}, False),
    ("dots 20M 4K", 20_000_000, {"width": 3840, "height": 2160}, True),
    ("dots 2M alpha", 2_000_000, {"emission": 0}, False),
    ("sprites 8-32 px 100k", 100_000, {"size": "[[0, 8], [1, 32]]"}, False),
    ("sprites 8-32 px 1M", 1_000_000, {"size": "[[0, 8], [1, 32]]"}, False),
    ("sub-emitter 1M", 1_000_000, {"sub": True}, False),
    ("program 1M", 1_000_000, {"program": True}, False),
]


def chart(rows, path):
    if not shutil.which("gnuplot"):
        print("gnuplot is missing: no chart", file=sys.stderr)
        return
    dots = [r for r in rows if r["scene"].startswith("dots") and "alpha" not in r["scene"]
            and "4K" not in r["scene"] and "new_ns_1" in r]
    data = "\n".join("%d %.2f %.2f %.1f %.1f" % (r["alive"], r["new_ns_1"], r["new_ns_2"],
                                                  r["new_bytes"], r.get("old_bytes", float("nan")))
                     for r in dots)
    script = f'''set terminal pngcairo size 720,420 font "DejaVu Sans,10" noenhanced
set output "{path}"
set grid ytics lc rgb "#dddddd"; set border 3; set tics nomirror; set key top right
set title "1-3 px dots at 1080p, whole process over the empty frame: per particle"
set logscale x; set xrange [5000:4e7]; set xlabel "particles alive"; set ylabel "ns per particle"
set yrange [0:*]; set y2range [0:*]; set y2label "peak bytes per particle"; set y2tics
plot "-" using 1:2 with linespoints lw 2 pt 7 lc rgb "#d0501a" title "1 thread (ns)", \\
     "-" using 1:3 with linespoints lw 2 pt 5 lc rgb "#3060c0" title "2 threads (ns)", \\
     "-" using 1:4 axes x1y2 with linespoints lw 2 pt 9 lc rgb "#208040" title "peak memory (bytes)", \\
     "-" using 1:5 axes x1y2 with linespoints lw 1 dt 2 pt 9 lc rgb "#208040" title "before (bytes)"
'''
    subprocess.run(["gnuplot"], input=(script + (data + "\ne\n") * 4).encode(), check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=DEFAULT_BASE, help="the previous build's git ref")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer scenes")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "scale.json"))
    ap.add_argument("--chart", default=os.path.join(ROOT, "docs", "img", "scale.png"))
    args = ap.parse_args()
    new = os.path.join(ROOT, "build", "spritz")
    if not os.path.exists(new):
        sys.exit("build/spritz is missing: run scripts/build.sh first")
    old, commit = build_base(args.base)
    tmp = tempfile.mkdtemp(prefix="spritz_scale.")
    rows = []
    for name, alive, opts, quick in SCENES:
        if args.quick and not quick:
            continue
        fx = os.path.join(tmp, name.replace(" ", "_") + ".toml")
        with open(fx, "w") as f:
            f.write(effect(alive, **opts))
        cmds = []
        for b in (new, old):
            for t in (1, 2):
                cmds.append([b, "render", fx, "--time", "3", "-o", os.path.join(tmp, "f.png"),
                             "--json", "--threads", str(t)])
        # The previous build may refuse the largest (its memory budget):
        # then it is left out.
        try:
            res = best(cmds, args.reps)
        except SystemExit as e:
            print("previous build refused %s: %s" % (name, str(e).splitlines()[-1][:200]),
                  file=sys.stderr)
            res = best(cmds[:2], args.reps) + [None, None]
        summary = subprocess.run(cmds[0], capture_output=True, text=True).stdout
        n = json.loads([l for l in summary.splitlines() if '"summary"' in l][0])["particles"]
        row = {"scene": name, "alive": n,
               "new_s_1": res[0]["wall"], "new_s_2": res[1]["wall"], "new_mb": res[1]["peak_mb"]}
        if name == "empty":
            empty = row
        else:
            # Per particle: the whole process's time and memory over the
            # empty frame's (starting the process, clearing and encoding the
            # frame), per particle alive.
            base = empty if opts.get("width", 1920) == 1920 else {"new_s_1": 0, "new_s_2": 0,
                                                                   "new_mb": 0}
            row.update({"new_ns_1": (row["new_s_1"] - base["new_s_1"]) * 1e9 / n,
                        "new_ns_2": (row["new_s_2"] - base["new_s_2"]) * 1e9 / n,
                        "new_bytes": (row["new_mb"] - base["new_mb"]) * 1048576 / n})
        if res[2]:
            row.update({"old_s_1": res[2]["wall"], "old_s_2": res[3]["wall"],
                        "old_mb": res[3]["peak_mb"]})
            if name != "empty":
                row["old_bytes"] = (row["old_mb"] - empty.get("old_mb", 0)) * 1048576 / n
        rows.append(row)
        print("%-22s %10d alive  1 thread %6.3f s  2 threads %6.3f s (%.2fx)  %7.1f MB%s%s" % (
            name, n, row["new_s_1"], row["new_s_2"], row["new_s_1"] / row["new_s_2"], row["new_mb"],
            "  (%.0f ns, %.0f bytes a particle)" % (row["new_ns_1"], row["new_bytes"])
            if "new_ns_1" in row else "",
            "   before: %.3f s, %.3f s, %.1f MB (%.2fx faster on 2 threads)" % (
                row["old_s_1"], row["old_s_2"], row["old_mb"], row["old_s_2"] / row["new_s_2"])
            if "old_s_1" in row else "   before: refused"), flush=True)
    with open(args.out, "w") as f:
        json.dump({"base": commit, "reps": args.reps, "cpus": os.cpu_count(), "scenes": rows}, f,
                  indent=1)
    chart(rows, args.chart)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
