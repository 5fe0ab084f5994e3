#!/usr/bin/env python3
"""Draws configs/textures/coin.png: a spinning pixel-art coin, 8 cells of
16x16 side by side (a 128x16 flipbook for `flipbook = { layout = [8, 1] }`).
Each cell is the coin turned a further 22.5 degrees about its vertical axis,
so the 8 cells are half a turn (the two faces look alike). Pure Python
(zlib), so it runs anywhere; the PNG is committed, this is how it was made.

    python3 scripts/make-coin-texture.py configs/textures/coin.png
"""
import math
import struct
import sys
import zlib

CELL, CELLS = 16, 8
OUTLINE = (92, 52, 8, 255)
SHADE = (196, 118, 12, 255)
BODY = (246, 180, 24, 255)
LIGHT = (255, 236, 128, 255)
CLEAR = (0, 0, 0, 0)


def cell_pixels(k):
    half_w = 7.0 * abs(math.cos(math.pi * k / CELLS))
    half_w = max(half_w, 0.9)  # edge on: a two-pixel bar
    half_h = 7.0
    inside = [[((x + 0.5 - 8) / half_w) ** 2 + ((y + 0.5 - 8) / half_h) ** 2 <= 1.0 for x in range(CELL)]
              for y in range(CELL)]
    rows = []
    for y in range(CELL):
        row = []
        for x in range(CELL):
            if not inside[y][x]:
                row.append(CLEAR)
                continue
            edge = any(not (0 <= x + dx < CELL and 0 <= y + dy < CELL and inside[y + dy][x + dx])
                       for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            # Position across the face, -1 (left) .. 1 (right), and a lit
            # band up and to the left; a stamped inner ring when face on.
            u = (x + 0.5 - 8) / half_w
            v = (y + 0.5 - 8) / half_h
            r = math.hypot(u, v)
            if edge:
                row.append(OUTLINE)
            elif u + v < -0.7 and r > 0.45:
                row.append(LIGHT)
            elif half_w > 3 and 0.55 < r < 0.72:
                row.append(SHADE)
            elif u > 0.55:
                row.append(SHADE)
            else:
                row.append(BODY)
        rows.append(row)
    return rows


def main(path):
    cells = [cell_pixels(k) for k in range(CELLS)]
    width, height = CELL * CELLS, CELL
    raw = bytearray()
    for y in range(height):
        raw.append(0)  # filter: none
        for k in range(CELLS):
            for px in cells[k][y]:
                raw.extend(px)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/textures/coin.png")
