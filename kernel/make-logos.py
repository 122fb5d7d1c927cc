#!/usr/bin/python3
"""Draws the kernelspec logos (logo-32x32.png, logo-64x64.png) with only zlib.

A memory card seen from above: a dark board with gold contacts, and stacked
memory components (weights, KV cache, reserve) under a red capacity line, the
picture the budget chart draws. Run it from anywhere; it writes beside itself.
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def png(width, height, pixels):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def draw(size):
    s = size / 64.0
    clear = (0, 0, 0, 0)
    board = (38, 50, 56, 255)
    gold = (255, 193, 7, 255)
    colours = [(66, 165, 245, 255), (255, 167, 38, 255), (171, 71, 188, 255)]
    red = (229, 57, 53, 255)
    px = [[clear] * size for _ in range(size)]

    def rect(x0, y0, x1, y1, c):
        for y in range(int(y0 * s), int(y1 * s)):
            for x in range(int(x0 * s), int(x1 * s)):
                if 0 <= x < size and 0 <= y < size:
                    px[y][x] = c

    rect(2, 4, 62, 54, board)                 # the board
    for i in range(8):                        # edge contacts
        rect(6 + i * 7, 54, 10 + i * 7, 61, gold)
    # three columns of stacked components: weights, KV cache, reserve
    heights = [(18, 10, 6), (14, 12, 8), (22, 6, 9)]
    for col, parts in enumerate(heights):
        x0 = 9 + col * 17
        top = 50
        for part, h in enumerate(parts):
            rect(x0, top - h, x0 + 12, top, colours[part])
            top -= h
    rect(5, 12, 59, 15, red)                  # the capacity line
    return px


for n in (32, 64):
    with open(os.path.join(HERE, "logo-%dx%d.png" % (n, n)), "wb") as f:
        f.write(png(n, n, draw(n)))
