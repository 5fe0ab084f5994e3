#!/usr/bin/env python3
"""Turns bench/results.json into the PNG charts of docs/performance.md
(gnuplot does the drawing). Usage: bench/plot.py [results.json] [out_dir]"""
import json, os, subprocess, sys

results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results.json")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "docs", "img")
os.makedirs(out, exist_ok=True)
r = json.load(open(results))

def gnuplot(script, data):
    subprocess.run(["gnuplot"], input=(script + "\n" + data).encode(), check=True)

style = ('set terminal pngcairo size 720,420 font "DejaVu Sans,10" noenhanced\n'
         'set grid ytics lc rgb "#dddddd"\nset border 3\nset tics nomirror\nset key top right\n')

# ns per covered pixel against sprite size, spritz and Cairo.
rows = "\n".join(f'{p["size"]} {p["spritz_ns"]} {p.get("cairo_ns", "NaN")}' for p in r["size_sweep"])
gnuplot(style + f'''set output "{out}/ns_per_pixel.png"
set title "Time per covered pixel by sprite size (1 thread, 1920x1080, rotated, half additive)"
set xlabel "sprite size (px)"; set ylabel "ns per covered pixel"; set logscale x 2; set logscale y
plot "-" using 1:2 with linespoints lw 2 pt 7 lc rgb "#d0501a" title "spritz", \\
     "-" using 1:3 with linespoints lw 2 pt 5 lc rgb "#3060c0" title "Cairo 1.16"''', rows + "\ne\n" + rows + "\ne\n")

# Thread scaling per scene.
rows = "\n".join(f'{s["scene"]} {s["ms_1_thread"]} {s["ms_2_threads"]} {s.get("cairo_ms", "NaN")}' for s in r["raster"])
gnuplot(style + f'''set output "{out}/threads.png"
set title "Frame time per scene (lower is better)"
set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1
set ylabel "ms per frame"; set logscale y; set yrange [0.1:20000]
set key top left horizontal
plot "-" using 2:xtic(1) title "spritz, 1 thread" lc rgb "#f0a060", \\
     "-" using 3 title "spritz, 2 threads" lc rgb "#d0501a", \\
     "-" using 4 title "Cairo 1.16" lc rgb "#3060c0"''', (rows + "\ne\n") * 3)

# PNG encoders: speed against size.
rows = "\n".join(f'{p["mb_per_s"]} {p["bytes"] / 1024} "{p["encoder"]}"' for p in r["png"])
gnuplot(style + f'''set output "{out}/png.png"
set title "PNG encoders on 4 bundled-effect frames of 512x512 (one thread)"
set xlabel "MB/s of raw RGBA (higher is better)"; set ylabel "file size, KB (lower is better)"
set key off; set offsets graph 0.05, graph 0.6, graph 0.15, graph 0.15
plot "-" using 1:2 with points pt 7 ps 2 lc rgb "#d0501a", "-" using 1:2:3 with labels left offset 1.5,0 font ",9"''',
        rows + "\ne\n" + rows + "\ne\n")
print("charts written to", out)

# Where a 1080p still's time goes, before and after streaming (one thread).
if "stages_ms" in r:
    st = r["stages_ms"]
    keys = ["evaluate", "draw", "convert", "filter", "deflate", "write"]
    rows = "\n".join(f'"{label}" ' + " ".join(str(st[k][s]) for s in keys)
                     for label, k in (("before (5391d38)", "before"), ("after", "after")))
    colours = ["#8fb0d8", "#d0501a", "#f0a060", "#60a060", "#3060c0", "#999999"]
    plots = ", \\\n     ".join(
        f'"-" using {i + 2}{":xtic(1)" if i == 0 else ""} title "{s}" lc rgb "{c}"'
        for i, (s, c) in enumerate(zip(keys, colours)))
    gnuplot(style + f'''set output "{out}/stages.png"
set title "Where a 1080p still of 20,000 sprites spends its time (one thread, in-process)"
set style data histograms; set style histogram rowstacked; set style fill solid 0.85 border -1
set boxwidth 0.5; set ylabel "ms"; set key outside right
plot {plots}''', (rows + "\ne\n") * len(keys))
