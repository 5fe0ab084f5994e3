#!/usr/bin/env python3
"""Whole-process benchmarks: spritz as users run it (docs/performance.md,
"Whole runs"), side by side in one run with the build before streaming
(built here from git) and the Cairo peer as a whole process.

    bench/whole_process.py [--base REF] [--reps N] [--full] [--out bench/whole.json]

Needs build/spritz (scripts/build.sh) and, for the Cairo column,
build/spritz_cairo_still (scripts/bench.sh installs Cairo). The previous
build is made once per commit in build/bench-base-<commit>/. Every figure is
the best of N whole processes, the binaries taking turns so that a slow
spell of the host hits them alike; read the ratios. Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The last commit before frames were streamed and encoded by spritz's own
# PNG writer (issue "Whole runs as fast as the kernel").
DEFAULT_BASE = "5391d38"


def build_base(ref):
    commit = subprocess.check_output(["git", "-C", ROOT, "rev-parse", ref], text=True).strip()
    out = os.path.join(ROOT, "build", "bench-base-" + commit[:12])
    binary = os.path.join(out, "build", "spritz")
    if os.path.exists(binary):
        return binary, commit
    src = os.path.join(out, "src")
    os.makedirs(src, exist_ok=True)
    archive = subprocess.Popen(["git", "-C", ROOT, "archive", commit], stdout=subprocess.PIPE)
    subprocess.check_call(["tar", "-x", "-C", src], stdin=archive.stdout)
    if archive.wait() != 0:
        sys.exit("git archive %s failed" % ref)
    print("building the previous build %s in %s ..." % (commit[:12], out), file=sys.stderr)
    for cmd in (["cmake", "-S", src, "-B", os.path.join(out, "build"), "-DCMAKE_BUILD_TYPE=Release"],
                ["cmake", "--build", os.path.join(out, "build"), "--target", "spritz",
                 "-j%d" % os.cpu_count()]):
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(done.stdout + done.stderr)
    return binary, commit


def run(cmd, cpu=None):
    """Runs cmd (pinned to CPU `cpu` when given); returns its wall seconds and
    spritz's --json summary (or None)."""
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                         preexec_fn=pin)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err.decode()))
    summary = None
    for line in out.decode(errors="replace").splitlines():
        if line.startswith("{") and '"summary"' in line:
            summary = json.loads(line)
    return wall, summary


def best(cmds, reps):
    """Runs each command reps times, taking turns; per command the fastest
    wall time, the CPU time of that run and the largest peak memory. A
    command may be (argv, cpu): pinned to that CPU."""
    results = [dict(wall=float("inf"), cpu=0.0, peak_mb=0.0) for _ in cmds]
    for _ in range(reps):
        for r, cmd in zip(results, cmds):
            cmd, cpu = cmd if isinstance(cmd, tuple) else (cmd, None)
            before = os.times()
            wall, summary = run(cmd, cpu)
            after = os.times()
            cpu = (after.children_user - before.children_user) + \
                  (after.children_system - before.children_system)
            if wall < r["wall"]:
                r["wall"], r["cpu"] = wall, cpu
            if summary and "peak_memory_mb" in summary:
                r["peak_mb"] = max(r["peak_mb"], summary["peak_memory_mb"])
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=DEFAULT_BASE, help="the previous build's git ref")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--full", action="store_true",
                    help="also the previous build's 16384x16384 frame (about 6.4 GB, 30 s)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "whole.json"))
    args = ap.parse_args()

    new = os.path.join(ROOT, "build", "spritz")
    cairo = os.path.join(ROOT, "build", "spritz_cairo_still")
    if not os.path.exists(new):
        sys.exit("build/spritz is missing: run scripts/build.sh first")
    old, commit = build_base(args.base)
    tmp = tempfile.mkdtemp(prefix="spritz_whole.")
    still = "bench/scenes/still_20k.toml"
    report = {"base": commit, "reps": args.reps, "cpus": os.cpu_count()}
    rows = []

    def render(binary, fx, extra, out):
        return [binary, "render", fx, "-o", os.path.join(tmp, out), "--json"] + extra

    # 1. The 1080p still of 20,000 sprites, 1 and 2 threads, and Cairo. The
    # host sometimes runs one vCPU 20-35% slower than the other for minutes,
    # so one thread is also timed pinned to each CPU: two threads run on
    # both, and are compared with the harmonic mean of the two (as
    # spritz_bench does) as well as with the faster one.
    cmds = []
    for b, tag in ((new, "new"), (old, "old")):
        for t in (1, 2):
            cmds.append(render(b, still, ["--time", "1", "--threads", str(t)], tag + ".png"))
    have_cairo = os.path.exists(cairo)
    if have_cairo:
        cmds.append([cairo, still, "1", os.path.join(tmp, "cairo.png")])
    cpus = sorted(os.sched_getaffinity(0))[:2]
    pinned_at = len(cmds)
    for b, tag in ((new, "new"), (old, "old")):
        for c in cpus:
            cmds.append((render(b, still, ["--time", "1", "--threads", "1"], tag + "_pin.png"), c))
    r = best(cmds, args.reps)
    n1, n2, o1, o2 = r[0], r[1], r[2], r[3]
    pinned = r[pinned_at:]
    k = len(cpus)

    def harmonic(runs):
        return len(runs) / sum(1 / x["wall"] for x in runs)

    n1h, o1h = harmonic(pinned[:k]), harmonic(pinned[k:])
    n1f, o1f = min(x["wall"] for x in pinned[:k]), min(x["wall"] for x in pinned[k:])
    report["still"] = {"new_1t_s": n1["wall"], "new_2t_s": n2["wall"], "old_1t_s": o1["wall"],
                       "old_2t_s": o2["wall"], "new_peak_mb": n2["peak_mb"],
                       "new_peak_mb_1t": n1["peak_mb"], "old_peak_mb": o2["peak_mb"],
                       "new_png_bytes": os.path.getsize(os.path.join(tmp, "new.png")),
                       "old_png_bytes": os.path.getsize(os.path.join(tmp, "old.png"))}
    rows.append(("1080p still, 20,000 sprites, 1 thread", o1["wall"], n1["wall"], "s"))
    rows.append(("1080p still, 2 threads", o2["wall"], n2["wall"], "s"))
    rows.append(("  2 threads against 1", o1["wall"] / o2["wall"], n1["wall"] / n2["wall"], "x"))
    for c, x, y in zip(cpus, pinned[k:], pinned[:k]):
        rows.append(("  1 thread pinned to CPU %d" % c, x["wall"], y["wall"], "s"))
    rows.append(("  2 threads against 1, harmonic mean of the CPUs", o1h / o2["wall"],
                 n1h / n2["wall"], "x"))
    rows.append(("  2 threads against 1 on the faster CPU", o1f / o2["wall"], n1f / n2["wall"], "x"))
    report["still"].update(new_1t_pinned_s=[x["wall"] for x in pinned[:k]],
                           old_1t_pinned_s=[x["wall"] for x in pinned[k:]],
                           new_speedup_harmonic=n1h / n2["wall"],
                           new_speedup_faster_cpu=n1f / n2["wall"],
                           old_speedup_harmonic=o1h / o2["wall"])
    rows.append(("  peak memory, 2 threads", o2["peak_mb"], n2["peak_mb"], "MB"))
    rows.append(("  peak memory, 1 thread", o1["peak_mb"], n1["peak_mb"], "MB"))
    if have_cairo:
        c = r[4]
        report["still"]["cairo_s"] = c["wall"]
        rows.append(("  Cairo peer (whole process) / spritz, 2 threads",
                     c["wall"] / o2["wall"], c["wall"] / n2["wall"], "x"))
        rows.append(("  Cairo peer / spritz, 1 thread",
                     c["wall"] / o1["wall"], c["wall"] / n1["wall"], "x"))

    # 2. The 1080p campfire sequence, 300 frames, 2 threads.
    seq = []
    for b, tag in ((new, "seq_new"), (old, "seq_old")):
        os.makedirs(os.path.join(tmp, tag), exist_ok=True)
        seq.append(render(b, "configs/campfire.toml",
                          ["-f", "0-299", "--size", "1920x1080", "--threads", "2"],
                          tag + "/h_####.png"))
    r = best(seq, max(1, min(args.reps, 2)))
    sn, so = r
    size = {tag: sum(os.path.getsize(os.path.join(tmp, tag, f))
                     for f in os.listdir(os.path.join(tmp, tag))) for tag in ("seq_new", "seq_old")}
    report["campfire_1080p_300"] = {
        "new_s": sn["wall"], "old_s": so["wall"], "new_fps": 300 / sn["wall"],
        "old_fps": 300 / so["wall"], "new_cores_busy": sn["cpu"] / sn["wall"],
        "old_cores_busy": so["cpu"] / so["wall"], "new_bytes": size["seq_new"],
        "old_bytes": size["seq_old"], "new_peak_mb": sn["peak_mb"], "old_peak_mb": so["peak_mb"]}
    rows.append(("campfire 1080p, 300 frames: frames/s", 300 / so["wall"], 300 / sn["wall"], "fps"))
    rows.append(("  cores busy", so["cpu"] / so["wall"], sn["cpu"] / sn["wall"], ""))
    rows.append(("  PNG bytes, all frames", size["seq_old"] / 1e6, size["seq_new"] / 1e6, "MB"))

    # 3. The slowest bundled effect's 256x256 still.
    r = best([render(b, "configs/smoke.toml", ["--size", "256x256", "--time", "1"], "smoke.png")
              for b in (new, old)], args.reps)
    report["smoke_256"] = {"new_s": r[0]["wall"], "old_s": r[1]["wall"]}
    rows.append(("smoke 256x256 still", r[1]["wall"], r[0]["wall"], "s"))

    # 4. A 16384x16384 frame.
    huge = [render(new, still, ["--time", "1", "--size", "16384x16384"], "huge.png")]
    if args.full:
        huge.append(render(old, still, ["--time", "1", "--size", "16384x16384"], "huge_old.png"))
    r = best(huge, 1)
    report["still_16384"] = {"new_s": r[0]["wall"], "new_peak_mb": r[0]["peak_mb"]}
    if args.full:
        report["still_16384"].update(old_s=r[1]["wall"], old_peak_mb=r[1]["peak_mb"])
    rows.append(("16384x16384 still: seconds", r[1]["wall"] if args.full else float("nan"),
                 r[0]["wall"], "s"))
    rows.append(("  peak memory", r[1]["peak_mb"] if args.full else float("nan"),
                 r[0]["peak_mb"], "MB"))
    shutil.rmtree(tmp)

    print("whole processes, best of %d, previous build %s, %d CPUs" %
          (args.reps, commit[:12], os.cpu_count()))
    print("  %-50s %10s %10s %9s" % ("", "before", "now", "now/before"))
    for name, before, now, unit in rows:
        ratio = now / before if before == before and before else float("nan")
        print("  %-50s %10.3f %10.3f %9.2f  %s" % (name, before, now, ratio, unit))
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print("wrote " + args.out)


if __name__ == "__main__":
    main()
