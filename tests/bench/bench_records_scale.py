#!/usr/bin/python3
"""Records at scale: every records verb on histories of 1k, 10k and 100k commits,
beside git's CLI doing the same on the same repository.

Each repository holds the records' own layout, as `commit` writes it:
sheets/ID/sheet.json and sheets/ID/sheet.md (a sheet the binary itself
recorded, its id, title and length changed per revision), one commit per
revision with the message "ID: ...", committer times a minute apart. A history
of N commits holds min(10,000, N/10) sheets: about ten revisions each at every
size, so that a verb prints as much at 1k as at 100k and the growth column
shows what the history's length costs. Sheets are revised in a scrambled order
(commit i revises sheet i*7919 mod S), the first S commits creating them.

The history is described as a `git fast-import` stream (fast_import_stream)
and written by a pack writer of this file that produces the same objects byte
for byte (--check-writer builds each size both ways and compares the tips, then
runs git fsck): fast-import hashes and deltifies the whole 10,000-entry sheets/
tree of every commit, about 5 ms a commit here, ten minutes for 100k commits;
the writer knows which entry changed and writes each tree as a three-op delta.

Every verb runs as its own process (`vramsheet run FILE`, `vramsheet log`), as
does git; each figure is the median of --reps runs (min-max beside it), wall
time, and the largest resident memory of a run. The first verb after the
import builds the revision index from the whole history: that is timed once,
on its own. `records pull` fetches one new commit from a bare clone the
benchmark made; before each run the branch, the work tree and the index are put
back as they were before the pull, so each run integrates the same commit.

Figures, not a test: nothing fails on time. The machine may be shared.

    /usr/bin/python3 tests/bench/bench_records_scale.py --build build \\
        [--sizes 1000,10000,100000] [--reps 3] [--git-reps 1] [--keep DIR] [--check-writer]

CI (.ci/bench) runs 1k and 10k; 100k is run by hand (its git figures alone take
minutes: `git log -- PATH` walks every commit).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SHEET_ID_SAMPLE = 42  # the sheet the verbs read (by index among the sheets)


def sh(cmd, cwd=None, env=None, check=True, stdin=None):
    return subprocess.run(cmd, cwd=cwd, env=env, check=check, stdin=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def timed_rss(cmd, cwd=None, env=None, ok=(0,)):
    """Wall seconds and the largest resident memory (KiB) of one process.

    The memory is GNU time's %M: a child of this Python process would report
    this process's own pages as its high-water mark (Linux counts the memory
    it had before exec), so a small process in between measures it; 0 when
    /usr/bin/time is not installed."""
    rss_file = None
    if GNU_TIME:
        fd, rss_file = tempfile.mkstemp(prefix="vs-bench-rss-")
        os.close(fd)
        cmd = [GNU_TIME, "-f", "%M", "-o", rss_file] + list(cmd)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    rss = 0
    if rss_file:
        with open(rss_file) as f:
            lines = [l for l in f.read().split() if l.isdigit()]
        os.unlink(rss_file)
        rss = int(lines[-1]) if lines else 0
    if p.returncode not in ok:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), p.returncode,
                                                p.stderr.decode()[-800:]))
    return dt, rss, cpu


def template(build, tmp):
    """A sheet recorded by the binary itself: its sheet.json and sheet.md."""
    rec = os.path.join(tmp, "template-records")
    script = os.path.join(tmp, "template.vs")
    with open(script, "w") as f:
        f.write('sheet "bench one"\nmodel llama-3-8b\nformat bf16\nlength 8192\n'
                'commit "first sizing"\n')
    env = dict(os.environ, VRAMSHEET_RECORDS=rec)
    sh([os.path.join(build, "vramsheet"), "run", script], env=env)
    d = os.path.join(rec, "sheets", "bench-one")
    with open(os.path.join(d, "sheet.json"), "rb") as f:
        js = f.read()
    with open(os.path.join(d, "sheet.md"), "rb") as f:
        md = f.read()
    for t in (js, md):
        assert t.count(b"8192") == 1 and t.count(b"bench-one") == 1 and t.count(b"bench one") == 1
    return js, md


def sheet_id(k):
    return "s-%05d" % k


def files_of(js, md, k, rev):
    out = []
    for t in (js, md):
        out.append(t.replace(b"bench-one", sheet_id(k).encode())
                   .replace(b"bench one", ("s %05d" % k).encode())
                   .replace(b"8192", str(8192 + rev).encode()))
    return out


def fast_import_stream(out, js, md, n, nsheets, t0, start=0, parent=None):
    revs = {}
    w = out.write
    for i in range(start, start + n):
        k = i if i < nsheets else (i * 7919) % nsheets
        rev = revs.get(k, 0)
        revs[k] = rev + 1
        j, m = files_of(js, md, k, rev + (start and 1000))
        msg = ("%s: sizing revision %d" % (sheet_id(k), rev)).encode()
        w(b"commit refs/heads/main\n")
        w(b"mark :%d\n" % (i + 1))
        w(b"committer Bench <bench@example.org> %d +0000\n" % (t0 + 60 * i))
        w(b"data %d\n%s\n" % (len(msg), msg))
        if i == start and parent:
            w(b"from %s\n" % parent.encode())
        for name, data in (("sheet.json", j), ("sheet.md", m)):
            w(b"M 100644 inline sheets/%s/%s\n" % (sheet_id(k).encode(), name.encode()))
            w(b"data %d\n" % len(data))
            w(data)
            w(b"\n")
    return revs


def pack_writer_stream(path, js, md, n, nsheets, t0):
    """The history fast_import_stream describes, written as one pack and its
    index directly: the same objects, byte for byte (the benchmark checks the
    tip's id against git fast-import's at the smallest size).

    Why: fast-import serialises, hashes and deltifies the whole sheets/ tree
    of each commit (10,000 entries, 340 KB), about 5 ms a commit here: 100,000
    commits would take ten minutes. This writer knows which entry changed, so
    each sheets/ tree is a delta of three instructions against the previous
    one (a chain of at most 50, git's default depth, then a whole tree); what
    remains is hashing each tree, as git must."""
    import hashlib
    import struct
    import zlib

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    from git_pack_format import copy, header, ofs, varint

    objs = []  # (sha, offset, crc)
    pack = open(os.path.join(path, "tmp.pack"), "wb")
    digest = hashlib.sha1()
    pos = [0]

    def out(b):
        pack.write(b)
        digest.update(b)
        pos[0] += len(b)

    out(b"PACK" + struct.pack(">II", 2, 0))  # count patched below

    def put(kind, data, sha):
        off = pos[0]
        z = zlib.compress(data, 1)
        rec = header(kind, len(data)) + z
        out(rec)
        objs.append((sha, off, zlib.crc32(rec)))
        return off

    def put_delta(base_off, delta, sha):
        off = pos[0]
        rec = header(6, len(delta)) + ofs(off - base_off) + zlib.compress(delta, 1)
        out(rec)
        objs.append((sha, off, zlib.crc32(rec)))

    def obj(kind_name, data):
        h = hashlib.sha1(b"%s %d\0" % (kind_name, len(data)))
        h.update(data)
        return h.digest()

    entry = 34  # "40000 s-NNNNN\0" and the id: every sheet id has the same length
    tree = bytearray()
    base_off, depth, parent = None, 0, None
    revs = {}
    for i in range(n):
        k = i if i < nsheets else (i * 7919) % nsheets
        rev = revs.get(k, 0)
        revs[k] = rev + 1
        j, m = files_of(js, md, k, rev)
        bj, bm = obj(b"blob", j), obj(b"blob", m)
        put(3, j, bj)
        put(3, m, bm)
        folder = b"100644 sheet.json\0" + bj + b"100644 sheet.md\0" + bm
        fid = obj(b"tree", folder)
        put(2, folder, fid)
        old_len = len(tree)
        name = b"40000 " + sheet_id(k).encode() + b"\0"
        if k * entry == old_len:  # a new sheet: ids grow, so it sorts last
            tree += name + fid
            ops = copy(0, old_len) if old_len else b""
            ops += bytes([entry]) + name + fid
        else:
            at = k * entry + len(name)
            tree[at:at + 20] = fid
            ops = copy(0, at) + bytes([20]) + fid
            if old_len - at - 20:
                ops += copy(at + 20, old_len - at - 20)
        sid = obj(b"tree", tree)
        if base_off is None or depth >= 50:
            base_off, depth = put(2, bytes(tree), sid), 0
        else:
            off = pos[0]
            put_delta(base_off, varint(old_len) + varint(len(tree)) + ops, sid)
            base_off, depth = off, depth + 1
        root = b"40000 sheets\0" + sid
        rid = obj(b"tree", root)
        put(2, root, rid)
        msg = ("%s: sizing revision %d" % (sheet_id(k), rev)).encode()
        who = b"Bench <bench@example.org> %d +0000" % (t0 + 60 * i)
        text = b"tree " + rid.hex().encode() + b"\n"
        if parent:
            text += b"parent " + parent.hex().encode() + b"\n"
        text += b"author " + who + b"\ncommitter " + who + b"\n\n" + msg
        cid = obj(b"commit", text)
        put(1, text, cid)
        parent = cid
    pack.flush()
    # the object count, then the checksum over the whole file
    pack.seek(8)
    pack.write(struct.pack(">I", len(objs)))
    pack.close()
    digest = hashlib.sha1()
    with open(os.path.join(path, "tmp.pack"), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    psha = digest.digest()
    with open(os.path.join(path, "tmp.pack"), "ab") as f:
        f.write(psha)
    objs.sort()
    idx = bytearray(b"\377tOc" + struct.pack(">I", 2))
    fan, c = [0] * 256, 0
    for sha, _, _ in objs:
        fan[sha[0]] += 1
    for b in range(256):
        c += fan[b]
        idx += struct.pack(">I", c)
    for sha, _, _ in objs:
        idx += sha
    for _, _, crc in objs:
        idx += struct.pack(">I", crc)
    for _, off, _ in objs:
        assert off < 1 << 31
        idx += struct.pack(">I", off)
    idx += psha
    idx += hashlib.sha1(idx).digest()
    d = os.path.join(path, ".git", "objects", "pack")
    name = "pack-" + psha.hex()
    with open(os.path.join(d, name + ".idx"), "wb") as f:
        f.write(idx)
    os.rename(os.path.join(path, "tmp.pack"), os.path.join(d, name + ".pack"))
    with open(os.path.join(path, ".git", "refs", "heads", "main"), "w") as f:
        f.write(parent.hex() + "\n")
    return parent.hex()


def build_records(path, js, md, n, nsheets, writer="pack"):
    sh(["git", "init", "-q", "-b", "main", path])
    sh(["git", "-C", path, "config", "user.name", "Bench"])
    sh(["git", "-C", path, "config", "user.email", "bench@example.org"])
    t = time.perf_counter()
    if writer == "pack":
        pack_writer_stream(path, js, md, n, nsheets, 1700000000)
    else:
        p = subprocess.Popen(["git", "-C", path, "fast-import", "--quiet"], stdin=subprocess.PIPE)
        fast_import_stream(p.stdin, js, md, n, nsheets, 1700000000)
        p.stdin.close()
        if p.wait() != 0:
            raise RuntimeError("git fast-import failed")
    built = time.perf_counter() - t
    t = time.perf_counter()
    sh(["git", "-C", path, "checkout", "-q", "-f", "main"])
    return built, time.perf_counter() - t


def add_remote_commit(remote, js, md, n, nsheets, k):
    """One more commit on the bare remote: a new revision of sheet k."""
    tip = sh(["git", "-C", remote, "rev-parse", "main"]).stdout.decode().strip()
    j, m = files_of(js, md, k, 5000)
    msg = ("%s: pulled revision" % sheet_id(k)).encode()
    s = b"commit refs/heads/main\n"
    s += b"committer Bench <bench@example.org> %d +0000\n" % (1700000000 + 60 * n)
    s += b"data %d\n%s\n" % (len(msg), msg)
    s += b"from %s\n" % tip.encode()
    for name, data in (("sheet.json", j), ("sheet.md", m)):
        s += b"M 100644 inline sheets/%s/%s\n" % (sheet_id(k).encode(), name.encode())
        s += b"data %d\n" % len(data) + data + b"\n"
    p = subprocess.run(["git", "-C", remote, "fast-import", "--quiet", "--force"], input=s)
    assert p.returncode == 0
    return tip


def med(xs):
    return statistics.median(xs)


def fmt_ms(xs):
    if len(xs) == 1:
        return "%.0f ms" % (xs[0] * 1000) if xs[0] >= 0.1 else "%.1f ms" % (xs[0] * 1000)
    lo, hi = min(xs) * 1000, max(xs) * 1000
    m = med(xs) * 1000
    p = "%.0f" if m >= 100 else "%.1f"
    return (p + " ms (" + p + "–" + p + ")") % (m, lo, hi)


def mib(kib):
    return "%d MiB" % (kib // 1024) if kib else "-"


def index_files(rec):
    return os.path.join(rec, ".git", "vramsheet")


def run_size(args, js, md, n, tmp):
    nsheets = min(10000, max(1, n // 10))
    rec = os.path.join(tmp, "records-%d" % n)
    remote = os.path.join(tmp, "remote-%d.git" % n)
    vs = os.path.join(os.path.abspath(args.build), "vramsheet")
    env = dict(os.environ, VRAMSHEET_RECORDS=rec)
    sid = sheet_id(SHEET_ID_SAMPLE % nsheets)
    spath = "sheets/%s/" % sid
    res = {}

    built, checkout = build_records(rec, js, md, n, nsheets)
    print("\n== %d commits, %d sheets: history written %.1f s, checkout %.1f s" %
          (n, nsheets, built, checkout), flush=True)
    if args.check_writer and n <= 10000:
        # the pack writer's objects are fast-import's: the same tip (not at 100k:
        # fast-import would take ten minutes)
        fi = os.path.join(tmp, "fast-import-%d" % n)
        t, _ = build_records(fi, js, md, n, nsheets, writer="fast-import")
        a = sh(["git", "-C", rec, "rev-parse", "main"]).stdout
        b = sh(["git", "-C", fi, "rev-parse", "main"]).stdout
        sh(["git", "-C", rec, "fsck", "--no-progress"])
        print("git fast-import of the same history: %.1f s, tip %s (%s), git fsck clean" %
              (t, b.decode().strip()[:12], "the same" if a == b else "DIFFERENT"), flush=True)
        if a != b:
            raise RuntimeError("the pack writer and git fast-import disagree")
        shutil.rmtree(fi)

    def script(name, text):
        p = os.path.join(tmp, "%s-%d.vs" % (name, n))
        with open(p, "w") as f:
            f.write(text)
        return p

    # the index, built once from the whole history by the first reader
    t, rss, cpu = timed_rss([vs, "log", sid, "-n", "1"], env=env)
    res["_index"] = (t, cpu, rss)
    print("revision index built from the history: %.2f s (CPU %.2f s, %d MiB)" %
          (t, cpu, rss // 1024), flush=True)
    # nothing lost or reordered: the sheet's revisions as git lists them (a
    # linear history: git log's simplification and the records' agree)
    mine = [l.split()[0] for l in sh([vs, "log", sid], env=env).stdout.decode().splitlines()]
    theirs = sh(["git", "-C", rec, "log", "--format=%H", "--", spath]).stdout.decode().split()
    print("vramsheet log %s: %d revisions, %s git log -- %s" %
          (sid, len(mine), "the same as" if mine == theirs else "DIFFERENT FROM", spath),
          flush=True)
    if mine != theirs:
        raise RuntimeError("vramsheet log and git log disagree")
    print("  %-34s %-24s %-9s %-7s | git %-24s %-9s %s" %
          ("verb", "wall", "CPU", "memory", "wall", "CPU", "memory"))

    def bench(key, vcmd, gcmd, gok=(0,), before_v=None, before_g=None):
        r = {"vt": [], "vc": [], "vr": 0, "gt": [], "gc": [], "gr": 0}
        for _ in range(args.reps):
            if before_v:
                before_v()
            t, m, c = timed_rss(vcmd, env=env)
            r["vt"].append(t)
            r["vc"].append(c)
            r["vr"] = max(r["vr"], m)
        for _ in range(args.git_reps if gcmd else 0):
            if before_g:
                before_g()
            t, m, c = timed_rss(gcmd, cwd=rec, ok=gok)
            r["gt"].append(t)
            r["gc"].append(c)
            r["gr"] = max(r["gr"], m)
        res[key] = r
        print("  %-34s %-24s %-9s %-7s | git %-24s %-9s %s" %
              (key, fmt_ms(r["vt"]), "%.1f ms" % (med(r["vc"]) * 1000), mib(r["vr"]),
               fmt_ms(r["gt"]) if r["gt"] else "-",
               "%.1f ms" % (med(r["gc"]) * 1000) if r["gc"] else "-",
               mib(r["gr"]) if r["gt"] else "-"), flush=True)

    noop = script("noop", "# nothing\n")
    bench("vramsheet run (no verb: the floor)", [vs, "run", noop], None)
    bench("history SHEET", [vs, "run", script("history", "history %s\n" % sid)],
          ["git", "log", "--format=%H %cI %s", "--", spath])
    bench("show SHEET@~3", [vs, "run", script("show", "show %s@~3\n" % sid)],
          ["sh", "-c", "git show \"$(git log --format=%%H -n 4 -- %s | sed -n 4p)\":%ssheet.md"
           % (spath, spath)])
    bench("diff SHEET@~1 ~0", [vs, "run", script("diff", "diff %s@~1 ~0\n" % sid)],
          ["sh", "-c", "set -- $(git log --format=%%H -n 2 -- %s); git diff $2 $1 -- %s"
           % (spath, spath)])
    bench("reproduce SHEET@~0", [vs, "run", script("repro", 'reproduce %s@~0 as "copy of %s"\n'
                                                   % (sid, sid))],
          ["git", "show", "main:%ssheet.json" % spath])
    bench("show SHEET (opens it)", [vs, "run", script("open", "show %s\n" % sid)], None)
    bench("show SHEET + commit, nothing new",
          [vs, "run", script("restate", 'show %s\ncommit "again"\n' % sid)],
          ["git", "commit", "-q", "-m", "again"], gok=(0, 1))
    bench("vramsheet log SHEET", [vs, "log", sid], ["git", "log", "--format=%H %cI %s", "--", spath])

    # commit of an edit: a new length each run, so that each is a real commit;
    # git's: a line added to a file and committed
    edits = iter(range(100000))
    ef = os.path.join(tmp, "edit-%d.vs" % n)
    gf = os.path.join(rec, "notes.txt")

    def new_edit():
        with open(ef, "w") as f:
            f.write('show %s\nlength %d\ncommit "edit"\n' % (sid, 4096 + next(edits)))

    def git_edit():
        with open(gf, "a") as f:
            f.write("x\n")
        sh(["git", "-C", rec, "add", "notes.txt"])
    bench("show SHEET + commit of an edit", [vs, "run", ef], ["git", "commit", "-q", "-m", "edit"],
          before_v=new_edit, before_g=git_edit)

    # records pull of one new commit, from a bare clone
    sh(["git", "clone", "-q", "--bare", rec, remote])
    old = sh(["git", "-C", rec, "rev-parse", "main"]).stdout.decode().strip()
    sh([vs, "log", sid, "-n", "1"], env=env)  # the index at old
    saved = os.path.join(tmp, "index-saved-%d" % n)
    shutil.rmtree(saved, ignore_errors=True)
    shutil.copytree(index_files(rec), saved)
    add_remote_commit(remote, js, md, n, nsheets, (SHEET_ID_SAMPLE + 1) % nsheets)

    def put_back():
        sh(["git", "-C", rec, "reset", "-q", "--hard", old])
        shutil.rmtree(index_files(rec))
        shutil.copytree(saved, index_files(rec))
    pull = script("pull", "records pull %s\n" % remote)
    bench("records pull (one new commit)", [vs, "run", pull],
          ["git", "pull", "-q", "--ff-only", remote, "main"], before_v=put_back, before_g=put_back)
    put_back()
    if not args.keep:
        shutil.rmtree(rec)
        shutil.rmtree(remote)
        shutil.rmtree(saved)
    res["_build"] = built
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--git-reps", type=int, default=None)
    ap.add_argument("--keep", help="build the repositories under DIR and keep them")
    ap.add_argument("--check-writer", action="store_true",
                    help="also build each history (up to 10k) with git fast-import and check the "
                    "tips agree")
    args = ap.parse_args()
    if args.git_reps is None:
        args.git_reps = args.reps
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = args.keep or tempfile.mkdtemp(prefix="vs-bench-records-")
    os.makedirs(tmp, exist_ok=True)
    try:
        js, md = template(args.build, tmp)
        print("git %s; each figure: median of %d runs (min-max), git's of %d" %
              (sh(["git", "--version"]).stdout.decode().split()[-1], args.reps, args.git_reps))
        results = {n: run_size(args, js, md, n, tmp) for n in sizes}
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    # every verb at every size, beside git's CLI (median wall / median CPU)
    print("\n== every verb by history length (median wall / CPU; vramsheet | git's CLI)")
    keys = [k for k in results[sizes[0]] if not k.startswith("_")]
    print("  %-34s " % "verb" + " ".join("%-22s" % ("%dk commits" % (n // 1000) if n >= 1000
                                                     else "%d commits" % n) for n in sizes))
    for key in keys:
        for side, t, c in (("vramsheet", "vt", "vc"), ("git", "gt", "gc")):
            if not results[sizes[0]][key][t]:
                continue
            cells = ["%.1f / %.1f ms" % (med(results[n][key][t]) * 1000,
                                         med(results[n][key][c]) * 1000) for n in sizes]
            print("  %-34s " % (key if side == "vramsheet" else "  git") +
                  " ".join("%-22s" % x for x in cells))
    if len(sizes) > 1:
        a, b = sizes[0], sizes[-1]
        print("\n== growth from %d to %d commits (median wall, median CPU; vramsheet, git)" % (a, b))
        for key in results[a]:
            if key.startswith("_"):
                continue
            ra, rb = results[a][key], results[b][key]
            line = "  %-34s vramsheet %.2f× wall, %.2f× CPU" % (
                key, med(rb["vt"]) / med(ra["vt"]), med(rb["vc"]) / max(med(ra["vc"]), 1e-4))
            if ra["gt"] and rb["gt"]:
                line += "   git %.1f× wall" % (med(rb["gt"]) / med(ra["gt"]))
            print(line)
        print("  %-34s %.1f s → %.1f s" % ("the history written (pack writer)",
                                           results[a]["_build"], results[b]["_build"]))
        print("  %-34s %.2f s → %.2f s (CPU %.2f s → %.2f s)" % (
            "index built from the history (once)", results[a]["_index"][0],
            results[b]["_index"][0], results[a]["_index"][1], results[b]["_index"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
