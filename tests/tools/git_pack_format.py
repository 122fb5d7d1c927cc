"""git's pack entry encodings (Documentation/gitformat-pack.txt), shared by the
records benchmark's pack writer and the fuzz seeds of the pack reader:
an entry's type-and-size header, a delta's size varint, its copy instruction,
and an OFS_DELTA's base offset."""


def header(kind, size):
    """An entry's header: 3 bits of type, the size in 4 + 7n bits."""
    c = (kind << 4) | (size & 15)
    size >>= 4
    b = bytearray()
    while size:
        b.append(c | 0x80)
        c = size & 127
        size >>= 7
    b.append(c)
    return bytes(b)


def varint(v):
    """A delta's base or result size: 7 bits a byte, least significant first."""
    b = bytearray()
    while True:
        c = v & 127
        v >>= 7
        b.append(c | 0x80 if v else c)
        if not v:
            return bytes(b)


def copy(off, size):
    """A delta's copy instruction: the offset's and size's non-zero bytes."""
    b = bytearray([0x80])
    for i in range(4):
        if (off >> (8 * i)) & 255:
            b[0] |= 1 << i
            b.append((off >> (8 * i)) & 255)
    for i in range(3):
        if (size >> (8 * i)) & 255:
            b[0] |= 1 << (4 + i)
            b.append((size >> (8 * i)) & 255)
    return bytes(b)


def ofs(d):
    """An OFS_DELTA's distance back to its base, most significant first, each
    further byte offset by one."""
    b = bytearray([d & 127])
    d >>= 7
    while d:
        d -= 1
        b.insert(0, 0x80 | (d & 127))
        d >>= 7
    return bytes(b)
