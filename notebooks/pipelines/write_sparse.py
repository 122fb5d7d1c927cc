#!/usr/bin/env python3
"""Writes the header-only, sparse safetensors files of the pipelines in this folder.

Each component folder holds a tensors.txt (a compact tensor list: `NAME DTYPE SHAPE`, the
shape as 1280x320, and a `# file NAME` line). This writes that file as safetensors does
(an 8-byte little-endian header length, the JSON header, the tensors' data) with the data
left as a hole: the file's size is exact but it takes no disk space, and git never holds it.
Run it once before notebook 07 (the notebooks test does): python3 notebooks/pipelines/write_sparse.py
"""
import json
import os
import struct
import sys

SIZES = {"F16": 2, "BF16": 2, "F32": 4, "F8_E4M3": 1, "I8": 1}


def write(folder):
    spec = os.path.join(folder, "tensors.txt")
    name, tensors = None, []
    with open(spec) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# file "):
                name = line[len("# file "):].strip()
            elif line and not line.startswith("#"):
                tname, dtype, shape = line.split()
                tensors.append((tname, dtype, [int(d) for d in shape.split("x")]))
    header, off = {}, 0
    for tname, dtype, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        header[tname] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n * SIZES[dtype]]}
        off += n * SIZES[dtype]
    text = json.dumps(header, separators=(",", ":")).encode()
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + off)
    return path, off


def main(root):
    for pipeline in sorted(os.listdir(root)):
        pdir = os.path.join(root, pipeline)
        if not os.path.isfile(os.path.join(pdir, "model_index.json")):
            continue
        for comp in sorted(os.listdir(pdir)):
            if os.path.isfile(os.path.join(pdir, comp, "tensors.txt")):
                path, size = write(os.path.join(pdir, comp))
                print("%s: %d bytes of tensor data (sparse)" % (path, size))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
