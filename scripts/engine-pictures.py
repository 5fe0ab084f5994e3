#!/usr/bin/env python3
"""Side-by-side pictures of Godot 3 and spritz for docs/import.md.

Run the engine test keeping its frames, then this script on them:

    SPRITZ_ENGINE_OUT=/tmp/engine build/tests/spritz_import_tests "Godot 3 scenes written*"
    scripts/engine-pictures.py /tmp/engine docs/img/godot_side_by_side.png

Each row is one scene at one frame and seed 1: Godot 3 left, spritz right,
each composited over black (Godot's clear colour) and halved.
"""
import sys
from pathlib import Path

from PIL import Image, ImageDraw

ROWS = [("burst_damping_ramp.tscn", 30), ("puffs_by_slot.tscn", 60), ("cpu_stream.tscn", 60)]


def frame(path):
    im = Image.open(path).convert("RGBA")
    bg = Image.new("RGB", im.size, (0, 0, 0))
    bg.paste(im, (0, 0), im)
    return bg.resize((im.width // 2, im.height // 2), Image.LANCZOS)


def main():
    out_dir, target = Path(sys.argv[1]), Path(sys.argv[2])
    cells = [(frame(out_dir / n / f"godot_1_{k}.png"), frame(out_dir / n / f"spritz_1_{k}.png"), n, k)
             for n, k in ROWS]
    w, h = cells[0][0].size
    gap, label = 4, 16
    sheet = Image.new("RGB", (2 * w + gap, len(cells) * (h + label + gap)), (40, 40, 40))
    draw = ImageDraw.Draw(sheet)
    for i, (g, s, name, k) in enumerate(cells):
        y = i * (h + label + gap)
        draw.text((4, y + 2), f"Godot 3: {name} at {k / 60:.2f} s", fill=(230, 230, 230))
        draw.text((w + gap + 4, y + 2), "spritz", fill=(230, 230, 230))
        sheet.paste(g, (0, y + label))
        sheet.paste(s, (w + gap, y + label))
    sheet.save(target, optimize=True)


if __name__ == "__main__":
    main()
