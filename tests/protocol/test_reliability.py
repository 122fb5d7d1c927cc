"""The kernel's life against hostile or failing surroundings, through real clients.

Replayed signed messages run once; a measured command does not outlive its
kernel (shutdown_kernel(now=True), SIGTERM, SIGKILL; a child ignoring SIGTERM);
a child that escaped its group with setsid is reaped, not left a zombie; the
kernel exits when the client that started it (JPY_PARENT_PID) dies; 200,000-deep
JSON nesting in each frame is dropped without harm; two clients' 400 queued
cells each are not misrouted; a 50 MB cell is answered; a stderr pipe whose
reader has gone does not end the kernel (SIGPIPE); a heartbeat ping of several
frames comes back whole. The measure cells run
against the tests' fake NVML (VS_FAKE_NVML, tests/fake_nvml).
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import zmq

from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

from test_transport import DELIM, Raw
from vsclient import SLOW, Kernel

FAKE = os.environ.get("VS_FAKE_NVML", "")
BINARY = os.environ.get("VS_BINARY", "vramsheet")


def proc_state(pid):
    """(state letter, ppid) of pid from /proc, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def live(pid):
    """Running (not gone, not a zombie)."""
    st = proc_state(pid)
    return st is not None and st[0] not in ("Z", "X")


def pids_with_argv(argv):
    """Live processes whose command line is exactly argv."""
    want = "\0".join(argv) + "\0"
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name) as f:
                if f.read() == want and live(int(name)):
                    found.append(int(name))
        except OSError:
            pass
    return found


def wait_for(pred, timeout):
    deadline = time.monotonic() + timeout * SLOW
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return pred()


class MeasureEnv(object):
    """A temp dir, a fake NVML script and the environment a measure cell needs."""

    @classmethod
    def make_env(cls):
        if not FAKE or not os.path.exists(FAKE):
            raise unittest.SkipTest("VS_FAKE_NVML is not built")
        cls.dir = tempfile.mkdtemp(prefix="vs-reliability-")
        script = os.path.join(cls.dir, "script")
        with open(script, "w") as f:
            f.write('gpu 0 name="NVIDIA H200" total=150754820096 used=1000000\n')
        return {"VRAMSHEET_NVML_LIBRARY": FAKE, "FAKE_NVML_SCRIPT": script,
                "VRAMSHEET_RECORDS": os.path.join(cls.dir, "rec"), "VRAMSHEET_KERNEL_TEST": "1"}

    @classmethod
    def drop_env(cls):
        shutil.rmtree(getattr(cls, "dir", ""), ignore_errors=True)


class TestReplay(MeasureEnv, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        env = cls.make_env()
        cls.log = tempfile.NamedTemporaryFile(prefix="vs-kernel-", suffix=".log")
        cls.k = Kernel(env=env, stderr=cls.log)

    @classmethod
    def tearDownClass(cls):
        cls.k.close()
        cls.log.close()
        cls.drop_env()

    def setUp(self):
        self.raw = Raw(self.k)

    def tearDown(self):
        self.raw.close()

    def log_text(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def replies(self, sock, seconds):
        got = []
        deadline = time.monotonic() + seconds * SLOW
        while time.monotonic() < deadline:
            m = Raw.recv(sock, 0.1)
            if m:
                got.append(Raw.parse(m))
        return got

    def test_identical_frames_run_once(self):
        out = os.path.join(self.dir, "ran")
        frames, msg_id = self.raw.frames("execute_request",
                                         {"code": "measure -- echo ran >> %s" % out,
                                          "silent": False, "stop_on_error": False})
        a = self.raw.socket("shell")
        b = self.raw.socket("shell", identity=b"second-identity")
        for _ in range(3):
            a.send_multipart(frames)
        b.send_multipart(frames)
        got = self.replies(a, 5) + self.replies(b, 1)
        replies = [g for g in got if g[1]["msg_type"] == "execute_reply"]
        self.assertEqual(len(replies), 1, [g[3] for g in replies])
        self.assertEqual(replies[0][2]["msg_id"], msg_id)
        self.assertEqual(replies[0][3]["status"], "ok")
        with open(out) as f:
            self.assertEqual(f.read(), "ran\n")  # one run, not three or four
        self.assertTrue(wait_for(lambda: self.log_text().count("replayed") >= 3, 5))
        # a replay on control is refused as well; a fresh message is answered
        ctl = self.raw.socket("control")
        info, info_id = self.raw.frames("kernel_info_request", {})
        ctl.send_multipart(info)
        ctl.send_multipart(info)
        got = self.replies(ctl, 1.5)
        self.assertEqual([g[2]["msg_id"] for g in got if g[1]["msg_type"] == "kernel_info_reply"],
                         [info_id])
        self.assertTrue(self.k.run("convert 24GB GiB").ok)

    def test_two_clients_queued_cells_are_not_misrouted(self):
        # 2 clients x 400 cells sent without waiting: each client gets exactly
        # its own 400 replies, in order, with its own results.
        clients = []
        for _ in range(2):
            # a session of its own: the shell socket's identity is the session id
            kc = BlockingKernelClient()
            kc.load_connection_info(self.k.km.get_connection_info())
            kc.start_channels()
            clients.append(kc)
        try:
            sent = []
            for c, kc in enumerate(clients):
                sent.append([kc.execute("%%%%kernel-test\nresult c%d-%d" % (c, i))
                             for i in range(400)])
            for c, kc in enumerate(clients):
                got = []
                while len(got) < 400:
                    got.append(kc.get_shell_msg(timeout=60 * SLOW))
                self.assertEqual([m["parent_header"]["msg_id"] for m in got], sent[c])
                self.assertTrue(all(m["content"]["status"] == "ok" for m in got))
        finally:
            for kc in clients:
                kc.stop_channels()

    def test_fifty_megabyte_cell(self):
        # 50 MB of code (one comment line and a verb): answered, and the kernel
        # serves the next request.
        code = "# " + "x" * (50 << 20) + "\nconvert 24GB GiB"
        r = self.k.run(code, timeout=120)
        self.assertTrue(r.ok, r.text[:500])
        self.assertIn("22.35 GiB", r.text)
        self.assertTrue(self.k.run("convert 1GiB MiB").ok)

    def test_deep_nesting_in_each_frame(self):
        # 200,000 nested arrays in the header, parent, metadata and content in
        # turn (signed: they pass the HMAC), then all four: each dropped or
        # answered, never a crash.
        deep = b"[" * 200000 + b"]" * 200000
        good_header = json.dumps({"msg_id": "deep", "msg_type": "kernel_info_request",
                                  "session": "s", "username": "u", "date": "2026-01-01T00:00:00Z",
                                  "version": "5.3"}).encode()
        sock = self.raw.socket("shell")
        nested = [b'{"msg_id":"deep","msg_type":"kernel_info_request","x":' + deep + b"}",
                  b'{"x":' + deep + b"}", b'{"x":' + deep + b"}", b'{"x":' + deep + b"}"]
        for i in range(5):
            parts = [good_header, b"{}", b"{}", b"{}"]
            if i < 4:
                parts[i] = nested[i]
            else:
                parts = nested
            sock.send_multipart([DELIM, self.raw.sign(parts)] + parts)
        frames, msg_id = self.raw.frames("kernel_info_request", {})
        sock.send_multipart(frames)
        deadline = time.monotonic() + 20 * SLOW
        while time.monotonic() < deadline:
            m = Raw.recv(sock, 1)
            if m and Raw.parse(m)[2].get("msg_id") == msg_id:
                break
        else:
            self.fail("no answer after deeply nested frames")
        self.assertIsNone(self.k.km.provisioner.process.poll())


class TestCommandDiesWithKernel(MeasureEnv, unittest.TestCase):
    """`measure -- sleep 44.N`: /bin/sh -c forks the sleep, so the sleep is the
    kernel's grandchild and a death signal on the direct child alone would miss it."""

    @classmethod
    def setUpClass(cls):
        cls.env = cls.make_env()

    @classmethod
    def tearDownClass(cls):
        cls.drop_env()

    def start(self, code, argv):
        k = Kernel(env=self.env)
        k.kc.execute(code)
        pids = wait_for(lambda: pids_with_argv(argv), 10)
        self.assertTrue(pids, "the measured command did not start")
        return k, pids

    def finish(self, k):
        try:
            k.kc.stop_channels()
        except Exception:
            pass
        k.kc = None
        proc = k.km.provisioner.process
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        k.km.cleanup_resources()

    def marker(self):
        return "44.%06d" % random.randrange(10 ** 6)

    def check_gone(self, pids, what):
        left = wait_for(lambda: not any(live(p) for p in pids), 5)
        self.assertTrue(left, "%s left %s running" % (what, [p for p in pids if live(p)]))

    def test_shutdown_now(self):
        # jupyter_client interrupts first (SIGINT), then SIGKILLs the kernel's
        # group at once: a command that ignores SIGINT is still ended.
        m = self.marker()
        k, pids = self.start("measure -- trap '' INT; sleep %s" % m, ["sleep", m])
        k.km.shutdown_kernel(now=True)
        self.check_gone(pids, "shutdown_kernel(now=True)")
        k.kc.stop_channels()
        k.kc = None

    def test_sigterm(self):
        m = self.marker()
        k, pids = self.start("measure -- sleep %s" % m, ["sleep", m])
        proc = k.km.provisioner.process
        t0 = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(10 * SLOW)
        # before jupyter_client's SIGKILL would come (2.5 s after its SIGTERM)
        self.assertLess(time.monotonic() - t0, 2.5 * SLOW)
        self.check_gone(pids, "kill -TERM of the kernel")
        self.finish(k)

    def test_sigterm_with_a_child_ignoring_it(self):
        m = self.marker()
        k, pids = self.start("measure -- trap '' TERM INT HUP; sleep %s" % m, ["sleep", m])
        proc = k.km.provisioner.process
        t0 = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(10 * SLOW)
        self.assertLess(time.monotonic() - t0, 2.5 * SLOW)
        self.check_gone(pids, "kill -TERM of the kernel (the command ignoring SIGTERM)")
        self.finish(k)

    def test_sigkill(self):
        m = self.marker()
        k, pids = self.start("measure -- sleep %s" % m, ["sleep", m])
        proc = k.km.provisioner.process
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10 * SLOW)
        self.check_gone(pids, "kill -9 of the kernel")
        self.finish(k)

    def test_setsid_child_is_reaped(self):
        # The child leaves the group (setsid), outlives the command, then exits:
        # the kernel adopted it (a subreaper while the command ran) and must
        # reap it rather than keep a zombie.
        pidfile = os.path.join(self.dir, "escaped-%d" % random.randrange(10 ** 6))
        with Kernel(env=self.env) as k:
            r = k.run("measure -- setsid sh -c 'echo $$ > %s; exec sleep 1' & sleep 0.2"
                      % pidfile, timeout=30)
            self.assertTrue(r.ok, r.text)
            with open(pidfile) as f:
                escaped = int(f.read())
            kernel = k.pid

            def reaped():
                st = proc_state(escaped)
                return st is None or st[1] != kernel

            time.sleep(1.5)
            self.assertTrue(wait_for(reaped, 5), "a zombie of the escaped child under the kernel")
            self.assertTrue(k.run("convert 24GB GiB").ok)


class TestParentWatch(unittest.TestCase):
    """JPY_PARENT_PID, as jupyter_client's launcher sets it and ipykernel reads it."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="vs-parent-")
        self.conn = os.path.join(self.dir, "kernel.json")
        write_connection_file(self.conn, ip="127.0.0.1", key=b"k-" + os.urandom(8).hex().encode())

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def ready(self):
        kc = BlockingKernelClient(connection_file=self.conn)
        kc.load_connection_file()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=30 * SLOW)
        finally:
            kc.stop_channels()

    def test_exits_when_the_direct_parent_dies(self):
        # A client process starts the kernel (as jupyter console does), then is
        # killed: the kernel is adopted by another process and must exit.
        helper = subprocess.Popen(
            [sys.executable, "-c",
             "import os, subprocess, sys, time\n"
             "env = dict(os.environ, JPY_PARENT_PID=str(os.getpid()))\n"
             "p = subprocess.Popen([sys.argv[1], 'kernel', '-f', sys.argv[2]], env=env)\n"
             "print(p.pid, flush=True)\n"
             "time.sleep(120)\n", BINARY, self.conn],
            stdout=subprocess.PIPE, text=True)
        kernel = int(helper.stdout.readline())
        try:
            self.ready()
            self.assertTrue(live(kernel))
            helper.kill()
            helper.wait()
            self.assertTrue(wait_for(lambda: not live(kernel), 5),
                            "the kernel outlived its parent")
        finally:
            if live(kernel):
                os.kill(kernel, signal.SIGKILL)
            helper.stdout.close()

    def test_exits_when_a_named_parent_dies(self):
        # JPY_PARENT_PID names a process that is not this kernel's parent.
        other = subprocess.Popen(["sleep", "120"])
        env = dict(os.environ, JPY_PARENT_PID=str(other.pid))
        k = subprocess.Popen([BINARY, "kernel", "-f", self.conn], env=env,
                             stderr=subprocess.PIPE, text=True)
        try:
            self.ready()
            time.sleep(1.2)
            self.assertIsNone(k.poll(), "exited while its parent lived")
            other.kill()
            other.wait()  # reaped: a zombie would still answer kill(pid, 0)
            k.wait(5 * SLOW)
            self.assertIn("JPY_PARENT_PID", k.stderr.read())
        finally:
            if k.poll() is None:
                k.kill()
                k.wait()
            k.stderr.close()

    def test_no_parent_pid_no_watch(self):
        env = dict(os.environ)
        env.pop("JPY_PARENT_PID", None)
        k = subprocess.Popen([BINARY, "kernel", "-f", self.conn], env=env)
        try:
            self.ready()
            time.sleep(1.5)
            self.assertIsNone(k.poll())
            os.kill(k.pid, signal.SIGTERM)
            self.assertEqual(k.wait(5 * SLOW), 0)
        finally:
            if k.poll() is None:
                k.kill()
                k.wait()


class TestHostileSurroundings(unittest.TestCase):
    """A stderr whose reader has gone; a heartbeat ping of several frames."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="vs-hostile-")
        self.conn = os.path.join(self.dir, "kernel.json")
        write_connection_file(self.conn, ip="127.0.0.1", key=b"k-" + os.urandom(8).hex().encode())
        with open(self.conn) as f:
            self.info = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self):
        kc = BlockingKernelClient(connection_file=self.conn)
        kc.load_connection_file()
        kc.start_channels()
        kc.wait_for_ready(timeout=30 * SLOW)
        return kc

    def socket(self, kind, channel):
        s = zmq.Context.instance().socket(kind)
        s.linger = 0
        s.connect("tcp://127.0.0.1:%d" % self.info["%s_port" % channel])
        return s

    def start(self, stderr):
        return subprocess.Popen([BINARY, "kernel", "-f", self.conn], stderr=stderr)

    def stop(self, k):
        if k.poll() is None:
            os.kill(k.pid, signal.SIGTERM)
            try:
                k.wait(5 * SLOW)
            except subprocess.TimeoutExpired:
                k.kill()
                k.wait()

    def test_a_closed_stderr_pipe_does_not_end_the_kernel(self):
        # stderr is a pipe whose read end is closed: the kernel's log line about
        # an unsigned message fails with EPIPE (SIGPIPE would end the process).
        rd, wr = os.pipe()
        k = self.start(wr)
        os.close(wr)
        os.close(rd)
        kc = None
        try:
            kc = self.client()
            shell = self.socket(zmq.DEALER, "shell")
            header = json.dumps({"msg_id": "unsigned-1", "msg_type": "kernel_info_request",
                                 "session": "s", "username": "u", "version": "5.3",
                                 "date": "2026-01-01T00:00:00Z"}).encode()
            shell.send_multipart([DELIM, b"0" * 64, header, b"{}", b"{}", b"{}"])
            time.sleep(0.5 * SLOW)
            shell.close(0)
            self.assertIsNone(k.poll(), "the kernel ended (status %r)" % k.poll())
            r = kc.execute_interactive("convert 24GB GiB", timeout=30 * SLOW,
                                       output_hook=lambda m: None)
            self.assertEqual(r["content"]["status"], "ok")
            self.assertIsNone(k.poll())
        finally:
            if kc is not None:
                kc.stop_channels()
            self.stop(k)

    def test_heartbeat_echoes_every_frame(self):
        k = self.start(subprocess.DEVNULL)
        try:
            self.client().stop_channels()
            hb = self.socket(zmq.REQ, "hb")
            frames = [b"ping", b"", b"second \xff", b"third" * 1000]
            hb.send_multipart(frames)
            self.assertTrue(hb.poll(5000 * SLOW), "no heartbeat reply")
            self.assertEqual(hb.recv_multipart(), frames)
            hb.send(b"one")  # and a single frame still, after it
            self.assertTrue(hb.poll(5000 * SLOW), "no heartbeat reply")
            self.assertEqual(hb.recv_multipart(), [b"one"])
            hb.close(0)
        finally:
            self.stop(k)


if __name__ == "__main__":
    unittest.main()
