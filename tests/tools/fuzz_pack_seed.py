#!/usr/bin/python3
"""Seeds for tests/fuzz/fuzz_pack.c, in its layout: a count n, n 4-byte offsets
(from the start of the entries), a 2-byte length k, k bytes of a sheets/ tree
(object 0, held), then the pack's entries: object 0 the tree whole, object 1
an OFS_DELTA against it (an entry's id replaced, as git fast-import's deltas
edit a tree), object 2 a REF_DELTA against object 0's id (0x00 and zeros)
that adds an entry, in git's pack entry format (Documentation/gitformat-pack.txt).

    python3 tests/tools/fuzz_pack_seed.py tests/fuzz/corpus_pack
"""
import os
import struct
import sys
import zlib

from git_pack_format import copy, header, ofs, varint


def main(out):
    tree = b"".join(b"40000 %s\0" % n + bytes([i + 1]) * 20 for i, n in enumerate([b"a", b"b-1", b"c"]))
    at = tree.index(b"b-1\0") + 4
    d1 = varint(len(tree)) + varint(len(tree)) + copy(0, at) + bytes([20]) + b"\x77" * 20 + \
        copy(at + 20, len(tree) - at - 20)
    new = b"40000 bb\0" + b"\x55" * 20
    at2 = tree.index(b"40000 c")
    d2 = varint(len(tree)) + varint(len(tree) + len(new)) + copy(0, at2) + bytes([len(new)]) + new + \
        copy(at2, len(tree) - at2)
    e0 = header(2, len(tree)) + zlib.compress(tree)
    e1 = header(6, len(d1)) + ofs(len(e0)) + zlib.compress(d1)
    e2 = header(7, len(d2)) + bytes(20) + zlib.compress(d2)
    offs = [0, len(e0), len(e0) + len(e1)]
    seed = bytes([len(offs) - 1]) + b"".join(struct.pack(">I", o) for o in offs) + \
        struct.pack("<H", len(tree)) + tree + e0 + e1 + e2
    with open(os.path.join(out, "tree_and_deltas"), "wb") as f:
        f.write(seed)


if __name__ == "__main__":
    main(sys.argv[1])
