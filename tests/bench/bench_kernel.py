#!/usr/bin/python3
"""Kernel benchmark: vramsheet beside ipykernel and a raw ZeroMQ + HMAC floor.

One thin pyzmq client (the same code for every target) measures:
  - execute round trip of a trivial cell: send execute_request -> IOPub idle,
    median over --cells cells ("# pass" for vramsheet, "pass" for ipykernel);
  - process start -> first kernel_info_reply (median of --starts starts);
  - resident memory (VmRSS) after 1,000 and after all --cells cells;
  - the floor: a C ROUTER (vs_bench_echo, tests/bench/zmq_echo.c) that checks
    and signs HMAC-SHA256 and parses the JSON, with no kernel behind it;
  - when the build has bench_lang: its 200-line cell (bench_lang --cell), once
    evaluated and rendered in process (bench_lang's medians) and once sent
    through the kernel (send -> IOPub idle, every one of its 200 results
    signed, published and received), so the language's figure reads beside the
    kernel's round trip.
Prints the figures side by side with the targets. Not a test: nothing fails.

    /usr/bin/python3 tests/bench/bench_kernel.py --build build [--cells 10000]
"""
import argparse
import hashlib
import hmac
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import zmq

KEY = str(uuid.uuid4()).encode()


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Client:
    """Signs, sends and receives Jupyter messages on DEALER/SUB sockets."""

    def __init__(self, ctx, shell_ep, iopub_ep=None):
        self.shell = ctx.socket(zmq.DEALER)
        self.shell.linger = 0
        # The kernel binds after the client connects: retry every millisecond,
        # not libzmq's default 100 ms, or the start-up figure measures the retry.
        self.shell.setsockopt(zmq.RECONNECT_IVL, 1)
        self.shell.connect(shell_ep)
        self.iopub = None
        if iopub_ep:
            self.iopub = ctx.socket(zmq.SUB)
            self.iopub.linger = 0
            self.iopub.setsockopt(zmq.RECONNECT_IVL, 1)
            self.iopub.setsockopt(zmq.SUBSCRIBE, b"")
            self.iopub.connect(iopub_ep)
        self.session = uuid.uuid4().hex

    def send(self, msg_type, content):
        msg_id = uuid.uuid4().hex
        header = json.dumps({"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                             "username": "bench", "date": "2026-01-01T00:00:00Z",
                             "version": "5.3"}).encode()
        parts = [header, b"{}", b"{}", json.dumps(content).encode()]
        sig = hmac.new(KEY, digestmod=hashlib.sha256)
        for p in parts:
            sig.update(p)
        self.shell.send_multipart([b"<IDS|MSG>", sig.hexdigest().encode()] + parts)
        return msg_id

    @staticmethod
    def parent_of(frames):
        i = frames.index(b"<IDS|MSG>")
        return json.loads(frames[i + 3]).get("msg_id"), frames[i + 2], frames[i + 5]

    def wait_reply(self, msg_id, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.shell.poll(100):
                parent, header, _ = self.parent_of(self.shell.recv_multipart())
                if parent == msg_id:
                    return True
        return False

    def wait_idle(self, msg_id, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.iopub.poll(100):
                parent, header, content = self.parent_of(self.iopub.recv_multipart())
                if parent == msg_id and b'"status"' in header and b'"idle"' in content:
                    return True
        return False

    def close(self):
        self.shell.close(0)
        if self.iopub is not None:
            self.iopub.close(0)


def rss_kib(pid, field="VmRSS"):
    """Resident KiB: VmRSS (all), RssAnon (the process's own), RssFile (shared
    library pages, which depend on the page cache as much as on the process)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def start_kernel(argv_for, ctx):
    """Starts a kernel; returns (process, client, seconds to first kernel_info_reply)."""
    ports = free_ports(5)
    names = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"]
    info = dict(zip(names, ports), ip="127.0.0.1", transport="tcp", key=KEY.decode(),
                signature_scheme="hmac-sha256", kernel_name="bench")
    fd, path = tempfile.mkstemp(suffix=".json", prefix="bench-kernel-")
    with os.fdopen(fd, "w") as f:
        json.dump(info, f)
    c = Client(ctx, "tcp://127.0.0.1:%d" % ports[0], "tcp://127.0.0.1:%d" % ports[1])
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv_for(path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    msg_id = c.send("kernel_info_request", {})  # queued until the kernel binds
    if not c.wait_reply(msg_id, timeout=30):
        raise RuntimeError("no kernel_info_reply from %s" % argv_for(path))
    started = time.perf_counter() - t0
    # Make sure the IOPub subscription is live before timing cells.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        msg_id = c.send("kernel_info_request", {})
        if c.wait_idle(msg_id, timeout=0.5):
            break
    os.unlink(path)
    return proc, c, started


def stop_kernel(proc, c):
    c.send("shutdown_request", {"restart": False})
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    c.close()


def bench_lang(build, runs):
    """bench_lang's in-process medians (ms, by pass name) and its cell; None
    when the build has no bench_lang."""
    exe = os.path.join(build, "bench_lang")
    if not os.path.exists(exe):
        return None
    out = subprocess.run([exe, str(runs)], capture_output=True, text=True, timeout=900).stdout
    cell = subprocess.run([exe, "--cell"], capture_output=True, text=True, timeout=60).stdout
    medians = {}
    for line in out.splitlines():
        m = re.match(r"(evaluate \+ render(?: \+ serialize)?|first evaluation, fresh interpreter):"
                     r" median ([0-9.]+) ms", line)
        if m:
            medians[m.group(1)] = float(m.group(2))
    return {"medians": medians, "cell": cell}


def bench_kernel(name, argv_for, code, cells, starts, ctx, big_cell=None, big_cells=0):
    res = {"name": name}
    times = []
    for _ in range(starts):
        proc, c, started = start_kernel(argv_for, ctx)
        times.append(started)
        stop_kernel(proc, c)
    res["start_ms"] = statistics.median(times) * 1000
    proc, c, _ = start_kernel(argv_for, ctx)
    rtt = []
    res["rss_start"] = rss_kib(proc.pid)
    for i in range(cells):
        t0 = time.perf_counter()
        msg_id = c.send("execute_request", {"code": code, "silent": False,
                                            "store_history": True, "user_expressions": {},
                                            "allow_stdin": False, "stop_on_error": True})
        if not c.wait_idle(msg_id):
            raise RuntimeError("%s: no idle for cell %d" % (name, i))
        rtt.append(time.perf_counter() - t0)
        c.wait_reply(msg_id, timeout=1)
        if i + 1 == min(1000, cells):
            res["rss_1000"] = rss_kib(proc.pid)
            res["anon_1000"] = rss_kib(proc.pid, "RssAnon")
    res["rss_end"] = rss_kib(proc.pid)
    res["anon_end"] = rss_kib(proc.pid, "RssAnon")
    res["file_end"] = rss_kib(proc.pid, "RssFile")
    res["rtt_ms"] = statistics.median(rtt) * 1000
    res["rtt_p99_ms"] = sorted(rtt)[int(len(rtt) * 0.99) - 1] * 1000
    res["cells"] = cells
    # After the memory figures: the long cell grows the session's sheet.
    big = []
    for i in range(big_cells if big_cell else 0):
        t0 = time.perf_counter()
        msg_id = c.send("execute_request", {"code": big_cell, "silent": False,
                                            "store_history": True, "user_expressions": {},
                                            "allow_stdin": False, "stop_on_error": True})
        if not c.wait_idle(msg_id, timeout=60):
            raise RuntimeError("%s: no idle for the 200-line cell %d" % (name, i))
        big.append(time.perf_counter() - t0)
        c.wait_reply(msg_id, timeout=5)
    if big:
        res["big_rtt_ms"] = statistics.median(big) * 1000
    stop_kernel(proc, c)
    return res


def bench_raw(echo, n, ctx):
    port = free_ports(1)[0]
    proc = subprocess.Popen([echo, "tcp://127.0.0.1:%d" % port, KEY.decode()])
    c = Client(ctx, "tcp://127.0.0.1:%d" % port)
    c.wait_reply(c.send("warm_up", {}), timeout=10)
    rtt = []
    for _ in range(n):
        t0 = time.perf_counter()
        msg_id = c.send("echo_request", {"code": "# pass"})
        c.wait_reply(msg_id)
        rtt.append(time.perf_counter() - t0)
    c.send("shutdown_request", {})
    proc.wait(timeout=5)
    c.close()
    return statistics.median(rtt) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="the CMake build directory")
    ap.add_argument("--cells", type=int, default=10000, help="cells per kernel (vramsheet)")
    ap.add_argument("--ipykernel-cells", type=int, default=2000,
                    help="cells for ipykernel (it is slow); 0 skips ipykernel")
    ap.add_argument("--starts", type=int, default=10, help="starts timed per kernel")
    ap.add_argument("--big-cells", type=int, default=50,
                    help="runs of bench_lang's 200-line cell through the kernel; 0 skips it")
    args = ap.parse_args()
    binary = os.path.join(args.build, "vramsheet")
    echo = os.path.join(args.build, "vs_bench_echo")
    ctx = zmq.Context.instance()

    records = tempfile.mkdtemp(prefix="bench-records-")
    os.environ["VRAMSHEET_RECORDS"] = records
    lang = bench_lang(args.build, 200) if args.big_cells else None
    try:
        raw = bench_raw(echo, 5000, ctx) if os.path.exists(echo) else None
        vs = bench_kernel("vramsheet", lambda p: [binary, "kernel", "-f", p], "# pass",
                          args.cells, args.starts, ctx, lang["cell"] if lang else None,
                          args.big_cells)
        ipk = None
        if args.ipykernel_cells:
            try:
                ipk = bench_kernel("ipykernel",
                                   lambda p: [sys.executable, "-m", "ipykernel_launcher", "-f", p],
                                   "pass", args.ipykernel_cells, max(3, args.starts // 3), ctx)
            except (RuntimeError, OSError) as e:
                print("ipykernel: not measured (%s)" % e)
    finally:
        shutil.rmtree(records, ignore_errors=True)

    def col(r, key, fmt):
        return (fmt % r[key]) if r and key in r else "-"

    rows = [
        ("execute round trip, median (ms)", col(vs, "rtt_ms", "%.3f"),
         col(ipk, "rtt_ms", "%.3f"), "%.3f" % raw if raw else "-",
         "<= ipykernel/10 (~0.45)"),
        ("execute round trip, p99 (ms)", col(vs, "rtt_p99_ms", "%.3f"),
         col(ipk, "rtt_p99_ms", "%.3f"), "", ""),
        ("start -> kernel_info_reply (ms)", col(vs, "start_ms", "%.1f"),
         col(ipk, "start_ms", "%.1f"), "", "<= 20"),
        ("RSS at start (MiB)", "%.2f" % (vs["rss_start"] / 1024),
         "%.2f" % (ipk["rss_start"] / 1024) if ipk else "-", "", ""),
        ("RSS after 1,000 cells (MiB)", "%.2f" % (vs.get("rss_1000", 0) / 1024),
         "%.2f" % (ipk.get("rss_1000", 0) / 1024) if ipk else "-", "", ""),
        ("RSS after all cells (MiB)", "%.2f" % (vs["rss_end"] / 1024),
         "%.2f" % (ipk["rss_end"] / 1024) if ipk else "-", "", "<= 8, no growth"),
        ("  of which anonymous, after 1,000 (MiB)", "%.2f" % (vs.get("anon_1000", 0) / 1024),
         "%.2f" % (ipk.get("anon_1000", 0) / 1024) if ipk else "-", "", ""),
        ("  of which anonymous, after all (MiB)", "%.2f" % (vs["anon_end"] / 1024),
         "%.2f" % (ipk["anon_end"] / 1024) if ipk else "-", "", ""),
        ("  of which shared library files (MiB)", "%.2f" % (vs["file_end"] / 1024),
         "%.2f" % (ipk["file_end"] / 1024) if ipk else "-", "", ""),
        ("cells", str(vs["cells"]), str(ipk["cells"]) if ipk else "-", "5000", ""),
    ]
    if lang:
        med = lang["medians"]
        rows += [
            ("200-line cell: evaluate + render, in process (ms)",
             "%.3f" % med["evaluate + render"] if "evaluate + render" in med else "-", "-", "",
             "< 1"),
            ("200-line cell: + serialize, in process (ms)",
             "%.3f" % med["evaluate + render + serialize"]
             if "evaluate + render + serialize" in med else "-", "-", "", ""),
            ("200-line cell: first evaluation, fresh interpreter (ms)",
             "%.3f" % med["first evaluation, fresh interpreter"]
             if "first evaluation, fresh interpreter" in med else "-", "-", "", "< 1"),
            ("200-line cell: execute round trip, median (ms)", col(vs, "big_rtt_ms", "%.3f"),
             "-", "", ""),
        ]
    head = ("", "vramsheet", "ipykernel", "raw zmq+HMAC", "target")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    for r in [head] + rows:
        print("  ".join(s.ljust(w) if i == 0 else s.rjust(w)
                        for i, (s, w) in enumerate(zip(r, widths))))


if __name__ == "__main__":
    main()
