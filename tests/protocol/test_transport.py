"""The vramsheet kernel's transport: what jupyter_kernel_test does not cover.

Signatures, malformed input, identities, stop_on_error, silent, stdin, comms,
completion cursors after non-ASCII text, the heartbeat during a long cell, both
interrupt modes, restart and shutdown. Cells that must run long, ask for input
or produce displays are the kernel's scripted test cells ("%%kernel-test",
enabled by VRAMSHEET_KERNEL_TEST=1, see src/kernel/testcell.h), so that these
tests depend on the transport only.
"""
import hashlib
import hmac
import json
import os
import random
import signal
import subprocess
import tempfile
import time
import unittest
import uuid

import zmq

import vsclient
from vsclient import SLOW, Kernel

TEST_ENV = {"VRAMSHEET_KERNEL_TEST": "1"}
DELIM = b"<IDS|MSG>"


def sleep_cell(ms):
    return "%%kernel-test\nsleep {}".format(ms)


class Raw:
    """Hand-made messages on the kernel's sockets, with the connection's key."""

    def __init__(self, kernel):
        self.km = kernel.km
        self.key = self.km.session.key
        self.ctx = zmq.Context.instance()
        self.sockets = []

    def socket(self, channel, identity=None):
        info = self.km.get_connection_info()
        kind = {"shell": zmq.DEALER, "control": zmq.DEALER, "hb": zmq.REQ,
                "iopub": zmq.SUB}[channel]
        s = self.ctx.socket(kind)
        s.linger = 0
        if identity:
            s.identity = identity
        if kind == zmq.SUB:
            s.setsockopt(zmq.SUBSCRIBE, b"")
        port = info["%s_port" % channel]
        if info["transport"] == "ipc":
            s.connect("ipc://%s-%d" % (info["ip"], port))
        else:
            s.connect("tcp://%s:%d" % (info["ip"], port))
        self.sockets.append(s)
        return s

    def close(self):
        for s in self.sockets:
            s.close(0)

    def sign(self, parts):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for p in parts:
            h.update(p)
        return h.hexdigest().encode()

    def frames(self, msg_type, content, ids=(), sign=True, msg_id=None):
        header = {"msg_id": msg_id or uuid.uuid4().hex, "msg_type": msg_type,
                  "session": "raw-test", "username": "test", "date": "2026-01-01T00:00:00Z",
                  "version": "5.3"}
        parts = [json.dumps(header).encode(), b"{}", b"{}", json.dumps(content).encode()]
        sig = self.sign(parts) if sign else b"0" * 64
        return list(ids) + [DELIM, sig] + parts, header["msg_id"]

    @staticmethod
    def recv(sock, timeout):
        if sock.poll(int(timeout * 1000)):
            return sock.recv_multipart()
        return None

    @staticmethod
    def parse(frames):
        i = frames.index(DELIM)
        return frames[:i], json.loads(frames[i + 2]), json.loads(frames[i + 3]), \
            json.loads(frames[i + 5])


class KernelCase(unittest.TestCase):
    """One kernel per test class, with test cells enabled and stderr captured."""

    interrupt_mode = None

    @classmethod
    def setUpClass(cls):
        cls.log = tempfile.NamedTemporaryFile(prefix="vs-kernel-", suffix=".log")
        cls.k = Kernel(env=TEST_ENV, stderr=cls.log, interrupt_mode=cls.interrupt_mode)

    @classmethod
    def tearDownClass(cls):
        cls.k.close()
        cls.log.close()

    def setUp(self):
        self.raw = Raw(self.k)
        # Drop what earlier tests left on the client's channels.
        for get in (self.k.kc.get_iopub_msg, self.k.kc.get_shell_msg):
            while True:
                try:
                    get(timeout=0.05)
                except Exception:
                    break

    def tearDown(self):
        self.raw.close()

    def log_text(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait_log(self, needle, timeout=5):
        deadline = time.monotonic() + timeout * SLOW
        while time.monotonic() < deadline:
            if needle in self.log_text():
                return True
            time.sleep(0.05)
        return False

    def count(self):
        """The current execution count, read through a silent cell's reply."""
        return self.k.run("", silent=True).content["execution_count"]


class TestMessages(KernelCase):
    def test_execute_order_and_headers(self):
        r = self.k.run("%%kernel-test\nstream stdout hi\ndisplay - shown\nresult 42")
        types = [m["msg_type"] for m in r.messages]
        self.assertEqual(types, ["status", "execute_input", "stream", "display_data",
                                 "execute_result", "status"])
        self.assertEqual(r.messages[0]["content"]["execution_state"], "busy")
        self.assertEqual(r.messages[-1]["content"]["execution_state"], "idle")
        self.assertEqual(r.result, {"text/plain": "42"})
        self.assertEqual(r.of_type("execute_result")[0]["content"]["execution_count"],
                         r.content["execution_count"])
        ids = [m["header"]["msg_id"] for m in r.messages] + [r.reply["header"]["msg_id"]]
        self.assertEqual(len(ids), len(set(ids)))
        for m in r.messages + [r.reply]:
            self.assertEqual(len(m["header"]["msg_id"]), 36)
            self.assertEqual(m["header"]["msg_id"][14], "4")  # UUID4
            self.assertGreaterEqual(tuple(map(int, m["header"]["version"].split("."))), (5, 3))
            self.assertTrue(m["header"]["session"])
            self.assertIsNotNone(m["header"]["date"])

    def test_execution_count_silent_and_store_history(self):
        n = self.count()
        r = self.k.run("%%kernel-test\nresult a")
        self.assertEqual(r.content["execution_count"], n + 1)
        # silent: no execute_input, no outputs, no count.
        r = self.k.run("%%kernel-test\nstream stdout x\ndisplay - y\nresult z", silent=True)
        self.assertTrue(r.ok)
        self.assertEqual([m["msg_type"] for m in r.messages], ["status", "status"])
        # store_history=False: outputs, but the count stays.
        r = self.k.run("%%kernel-test\nresult b", store_history=False)
        self.assertEqual(r.content["execution_count"], n + 1)
        self.assertEqual(r.result, {"text/plain": "b"})
        self.assertEqual(len(r.of_type("execute_input")), 1)
        r = self.k.run("%%kernel-test\nresult c")
        self.assertEqual(r.content["execution_count"], n + 2)
        # Only stored cells are in the history.
        msg_id = self.k.kc.history(hist_access_type="tail", n=2, output=True, raw=True)
        h = self.k.reply(msg_id)["content"]["history"]
        self.assertEqual([e[2][0] for e in h], ["%%kernel-test\nresult a",
                                                "%%kernel-test\nresult c"])
        self.assertEqual(h[1][2][1], "c")
        self.assertEqual(h[1][1], n + 2)

    def test_error_reply_and_iopub(self):
        r = self.k.run("%%kernel-test\nresult unused\nfail what was expected")
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "ValueError")
        self.assertEqual(r.content["evalue"], "line 3, column 1: what was expected")
        self.assertEqual(r.content["traceback"],
                         ["ValueError: line 3, column 1: what was expected"])
        errors = r.of_type("error")
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0]["content"]["ename"], "ValueError")
        self.assertIsNone(r.result)

    def test_display_update_and_streams(self):
        r = self.k.run("%%kernel-test\ndisplay gauge 10%\nupdate gauge 90%\n"
                       "stream stderr warn\nbytes stdout 61ff62c3")
        self.assertTrue(r.ok)
        d = r.of_type("display_data")[0]["content"]
        self.assertEqual(d["transient"], {"display_id": "gauge"})
        u = r.of_type("update_display_data")[0]["content"]
        self.assertEqual(u["transient"], {"display_id": "gauge"})
        self.assertEqual(u["data"], {"text/plain": "90%"})
        streams = r.of_type("stream")
        self.assertEqual(streams[0]["content"], {"name": "stderr", "text": "warn"})
        # Invalid UTF-8 from a command is repaired, not lost.
        self.assertEqual(streams[1]["content"]["text"], "a\ufffdb\ufffd")

    def test_stdin(self):
        msg_id = self.k.kc.execute("%%kernel-test\ninput your name?", allow_stdin=True)
        req = self.k.kc.get_stdin_msg(timeout=10 * SLOW)
        self.assertEqual(req["msg_type"], "input_request")
        self.assertEqual(req["content"]["prompt"], "your name?")
        self.assertFalse(req["content"]["password"])
        self.assertEqual(req["parent_header"]["msg_id"], msg_id)
        self.k.kc.input("Ada")
        reply, messages = self.k.collect(msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(vsclient.Result(reply, messages).result, {"text/plain": "Ada"})
        # password prompts say so
        msg_id = self.k.kc.execute("%%kernel-test\npassword secret?", allow_stdin=True)
        req = self.k.kc.get_stdin_msg(timeout=10 * SLOW)
        self.assertTrue(req["content"]["password"])
        self.k.kc.input("x")
        self.k.collect(msg_id)
        # Without allow_stdin the cell fails instead of waiting.
        r = self.k.run("%%kernel-test\ninput never", allow_stdin=False)
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "ValueError")

    def test_comms(self):
        msg = self.k.kc.session.msg("comm_info_request", {})
        self.k.kc.shell_channel.send(msg)
        reply = self.k.reply(msg["header"]["msg_id"])
        self.assertEqual(reply["content"], {"status": "ok", "comms": {}})
        msg = self.k.kc.session.msg("comm_open", {"comm_id": "c-1", "target_name": "nope",
                                                  "data": {}})
        self.k.kc.shell_channel.send(msg)
        deadline = time.monotonic() + 5 * SLOW
        while True:
            m = self.k.kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.01))
            if m["msg_type"] == "comm_close":
                break
        self.assertEqual(m["content"]["comm_id"], "c-1")
        self.assertEqual(m["parent_header"]["msg_id"], msg["header"]["msg_id"])

    def test_exit_asks_the_client_to_leave(self):
        # What ipykernel answers to `exit`: jupyter console leaves on this payload
        # (jupyter_console/ptshell.py, handle_execute_reply); the kernel keeps running.
        for word in ("exit", "quit", "  exit()\n"):
            r = self.k.run(word)
            self.assertEqual(r.content["status"], "ok")
            self.assertEqual(r.content["payload"], [{"source": "ask_exit", "keepkernel": False}])
            self.assertEqual(r.of_type("error"), [])
            self.assertIn("asking the client to leave", r.of_type("stream")[0]["content"]["text"])
        r = self.k.run("convert 1GiB MiB")
        self.assertEqual(r.content["payload"], [])
        # a continued line: incomplete, with an indent
        msg_id = self.k.kc.is_complete("convert 24GB \\")
        c = self.k.reply(msg_id)["content"]
        self.assertEqual((c["status"], c["indent"]), ("incomplete", "    "))

    def test_completion_cursor_in_code_points(self):
        code = 'sheet "é€😀 ü"\nconv'
        msg_id = self.k.kc.complete(code, len(code))
        c = self.k.reply(msg_id)["content"]
        self.assertEqual(c["status"], "ok")
        self.assertEqual(c["cursor_end"], len(code))  # code points, not bytes
        self.assertIn("convert", c["matches"])
        self.assertEqual(code[c["cursor_start"]:c["cursor_end"]], "conv")
        # A cursor past the end, or negative, is clamped, not a crash.
        for pos in (len(code) + 100, -5):
            msg_id = self.k.kc.complete(code, pos)
            c = self.k.reply(msg_id)["content"]
            self.assertEqual(c["status"], "ok")
            self.assertLessEqual(c["cursor_end"], len(code))
            self.assertLessEqual(c["cursor_start"], c["cursor_end"])
        msg_id = self.k.kc.inspect("é€😀 convert", 10 ** 6)
        self.assertEqual(self.k.reply(msg_id)["content"]["status"], "ok")

    def test_kernel_info_on_control(self):
        msg = self.k.kc.session.msg("kernel_info_request", {})
        self.k.kc.control_channel.send(msg)
        reply = self.k.kc.get_control_msg(timeout=5 * SLOW)
        self.assertEqual(reply["msg_type"], "kernel_info_reply")
        c = reply["content"]
        self.assertEqual(c["language_info"]["name"], "vramsheet")
        self.assertEqual(c["implementation"], "vramsheet")
        self.assertGreaterEqual(tuple(map(int, c["protocol_version"].split("."))), (5, 3))

    def test_history_range_and_search(self):
        self.k.run("%%kernel-test\nresult first")
        self.k.run("%%kernel-test\nresult second")
        n = self.count()
        msg_id = self.k.kc.history(hist_access_type="range", session=0, start=n - 1, stop=n + 1,
                                   output=False, raw=True)
        h = self.k.reply(msg_id)["content"]["history"]
        self.assertEqual([e[1] for e in h], [n - 1, n])
        self.assertEqual(h[1][2], "%%kernel-test\nresult second")
        msg_id = self.k.kc.history(hist_access_type="search", pattern="%%kernel-test?result s*",
                                   output=False, raw=True, n=1, unique=True)
        h = self.k.reply(msg_id)["content"]["history"]
        self.assertEqual([e[2] for e in h], ["%%kernel-test\nresult second"])


class TestStopOnError(KernelCase):
    def queue_while_stopped(self, cells, stop_on_error=True):
        """Sends cells while the kernel is stopped, so they all wait in its queue."""
        os.kill(self.k.pid, signal.SIGSTOP)
        try:
            ids = [self.k.kc.execute(c, stop_on_error=stop_on_error) for c in cells]
            time.sleep(0.2)
        finally:
            os.kill(self.k.pid, signal.SIGCONT)
        return [vsclient.Result(*self.k.collect(i)) for i in ids]

    def test_queued_cells_are_aborted(self):
        n = self.count()
        rs = self.queue_while_stopped(["%%kernel-test\nfail boom", "%%kernel-test\nresult 1",
                                       "%%kernel-test\nresult 2"])
        self.assertEqual(rs[0].content["ename"], "ValueError")
        for r in rs[1:]:
            self.assertEqual(r.content["status"], "error")
            self.assertEqual(r.content["ename"], "Aborted")
            self.assertEqual(r.of_type("execute_input"), [])
            self.assertIsNone(r.result)
        # Nothing ran: the count moved for the failed cell only, and the next cell runs.
        r = self.k.run("%%kernel-test\nresult after")
        self.assertTrue(r.ok)
        self.assertEqual(r.content["execution_count"], n + 2)

    def test_without_stop_on_error_cells_run(self):
        rs = self.queue_while_stopped(["%%kernel-test\nfail boom", "%%kernel-test\nresult 1"],
                                      stop_on_error=False)
        self.assertEqual(rs[0].content["status"], "error")
        self.assertTrue(rs[1].ok)
        self.assertEqual(rs[1].result, {"text/plain": "1"})

    def test_cell_sent_after_the_error_reply_runs(self):
        r = self.k.run("%%kernel-test\nfail boom")
        self.assertEqual(r.content["status"], "error")
        self.assertTrue(self.k.run("%%kernel-test\nresult 1").ok)


class TestBadInput(KernelCase):
    def assert_alive(self):
        sock = self.raw.socket("shell")
        frames, msg_id = self.raw.frames("kernel_info_request", {})
        sock.send_multipart(frames)
        got = Raw.recv(sock, 10 * SLOW)
        self.assertIsNotNone(got, "kernel stopped answering")
        _, header, parent, content = Raw.parse(got)
        self.assertEqual(parent["msg_id"], msg_id)
        self.assertEqual(header["msg_type"], "kernel_info_reply")
        self.assertIsNone(self.k.km.provisioner.process.poll())

    def test_unreadable_content_is_answered_with_an_error(self):
        # json.dumps writes these; jansson refuses a NUL, a lone surrogate and an
        # integer past 64 bits. The client must get a reply, never silence.
        sock = self.raw.socket("shell")
        cases = [("execute_request", {"code": "help\x00", "silent": False}),
                 ("execute_request", {"code": "\ud800"}),
                 ("is_complete_request", {"code": "\x00"}),
                 ("complete_request", {"code": "help", "cursor_pos": 2 ** 64})]
        for msg_type, content in cases:
            frames, msg_id = self.raw.frames(msg_type, content)
            sock.send_multipart(frames)
            got = Raw.recv(sock, 10 * SLOW)
            self.assertIsNotNone(got, "no reply to a %s with unreadable content" % msg_type)
            _, header, parent, reply = Raw.parse(got)
            self.assertEqual(parent["msg_id"], msg_id)
            self.assertEqual(header["msg_type"], msg_type.replace("_request", "_reply"))
            self.assertEqual(reply["status"], "error")
            self.assertEqual(reply["ename"], "ProtocolError")
            self.assertTrue(reply["traceback"][0].startswith("ProtocolError: "))
        self.assert_alive()

    def test_forged_signature_is_neither_answered_nor_executed(self):
        n = self.count()
        sock = self.raw.socket("shell")
        frames, forged = self.raw.frames("execute_request",
                                         {"code": "%%kernel-test\nresult forged",
                                          "silent": False}, sign=False)
        sock.send_multipart(frames)
        ctl = self.raw.socket("control")
        frames, _ = self.raw.frames("shutdown_request", {"restart": False}, sign=False)
        ctl.send_multipart(frames)
        self.assertIsNone(Raw.recv(sock, 0.5 * SLOW))
        self.assertIsNone(Raw.recv(ctl, 0.2 * SLOW))
        self.assertEqual(self.count(), n)  # nothing ran
        self.assertTrue(self.wait_log("bad signature"))
        self.assert_alive()

    def test_identities_are_echoed(self):
        sock = self.raw.socket("shell", identity=b"peer-identity")
        frames, msg_id = self.raw.frames("kernel_info_request", {},
                                         ids=[b"hop-1", b"hop-\x00\xff"])
        sock.send_multipart(frames)
        got = Raw.recv(sock, 10 * SLOW)
        ids, header, parent, _ = Raw.parse(got)
        self.assertEqual(ids, [b"hop-1", b"hop-\x00\xff"])
        self.assertEqual(parent["msg_id"], msg_id)

    def test_extra_buffers_are_accepted(self):
        sock = self.raw.socket("shell")
        frames, msg_id = self.raw.frames("kernel_info_request", {})
        sock.send_multipart(frames + [b"\x00binary", b""])
        _, header, parent, _ = Raw.parse(Raw.recv(sock, 10 * SLOW))
        self.assertEqual(parent["msg_id"], msg_id)

    def test_thousand_malformed_messages(self):
        rnd = random.Random(1234)
        shell, control = self.raw.socket("shell"), self.raw.socket("control")
        good, _ = self.raw.frames("execute_request", {"code": "x"})
        hdr = json.dumps({"msg_id": "m", "msg_type": "execute_request"}).encode()

        def signed(parts):
            return [DELIM, self.raw.sign(parts)] + parts

        makers = [
            lambda: [],
            lambda: [b""],
            lambda: [rnd.randbytes(rnd.randint(0, 300))],
            lambda: [DELIM],
            lambda: [DELIM, b"sig"],
            lambda: good[:-1],
            lambda: good[:1] + good[2:],
            lambda: [x if i != 1 else rnd.randbytes(64) for i, x in enumerate(good)],
            lambda: signed([b"{", b"{}", b"{}", b"{}"]),
            lambda: signed([hdr, b"{}", b"{}", b"\xff\xfe\xfd"]),
            lambda: signed([hdr, b"{}", b"{}", b'{"code": "\\u0000"}']),
            lambda: signed([hdr, b"[]", b"{}", b"{}"]),
            lambda: signed([b'{"msg_id": "x"}', b"{}", b"{}", b"{}"]),
            lambda: signed([b'{"msg_id": 1, "msg_type": 2}', b"{}", b"{}", b"{}"]),
            lambda: signed([hdr, b"{}", b"{}", b'{"code": 5}']),
            lambda: signed([json.dumps({"msg_id": "m", "msg_type": "complete_request"})
                            .encode(), b"{}", b"{}",
                            json.dumps({"code": "\u00e9" * 10, "cursor_pos": 10 ** 12})
                            .encode()]),
            lambda: signed([json.dumps({"msg_id": "m", "msg_type": "history_request"})
                            .encode(), b"{}", b"{}",
                            json.dumps({"hist_access_type": "search", "pattern": "*" * 500,
                                        "n": -3}).encode()]),
            lambda: [rnd.randbytes(8) for _ in range(rnd.randint(1, 40))],
            lambda: [DELIM] * 2000,
        ]
        for i in range(1000):
            frames = makers[i % len(makers)]()
            if not frames:
                frames = [b""]
            (shell if i % 2 else control).send_multipart(frames)
        self.assert_alive()
        # 10 MB in one message: a signed execute_request whose code is a comment.
        big, msg_id = self.raw.frames("is_complete_request", {"code": "#" + "x" * (10 << 20)})
        shell.send_multipart(big)
        deadline = time.monotonic() + 30 * SLOW
        while time.monotonic() < deadline:
            got = Raw.recv(shell, 1)
            if got and Raw.parse(got)[2].get("msg_id") == msg_id:
                break
        else:
            self.fail("no reply to a 10 MB message")
        self.assert_alive()
        self.assertTrue(self.wait_log("dropped a message on shell"))
        self.assertTrue(self.wait_log("dropped a message on control"))

    def test_unknown_message_types_are_ignored(self):
        sock = self.raw.socket("shell")
        frames, _ = self.raw.frames("frobnicate_request", {})
        sock.send_multipart(frames)
        self.assertIsNone(Raw.recv(sock, 0.3 * SLOW))
        self.assertTrue(self.wait_log("frobnicate_request"))
        self.assert_alive()


class TestLongCellSignalMode(KernelCase):
    interrupt_mode = "signal"

    def test_heartbeat_and_control_during_a_long_cell(self):
        msg_id = self.k.kc.execute(sleep_cell(60000))
        time.sleep(0.2)
        hb = self.raw.socket("hb")
        for i in range(5):
            hb.send(b"ping-%d" % i)
            self.assertEqual(Raw.recv(hb, 1 * SLOW), [b"ping-%d" % i])
        msg = self.k.kc.session.msg("kernel_info_request", {})
        self.k.kc.control_channel.send(msg)
        reply = self.k.kc.get_control_msg(timeout=2 * SLOW)
        self.assertEqual(reply["msg_type"], "kernel_info_reply")
        self.k.km.interrupt_kernel()
        reply, _ = self.k.collect(msg_id, timeout=5 * SLOW)
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")

    def test_sigint_interrupts_a_cell(self):
        msg_id = self.k.kc.execute(sleep_cell(60000))
        time.sleep(0.3)
        t0 = time.monotonic()
        self.k.km.interrupt_kernel()  # signal mode: SIGINT
        reply, messages = self.k.collect(msg_id, timeout=5 * SLOW)
        self.assertLess(time.monotonic() - t0, 2 * SLOW)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
        self.assertTrue(self.k.run("%%kernel-test\nresult alive").ok)

    def test_sigint_while_idle_is_harmless(self):
        for _ in range(3):
            os.kill(self.k.pid, signal.SIGINT)
            time.sleep(0.05)
        # The next cell is not interrupted by an old signal, and the kernel lives.
        r = self.k.run("%%kernel-test\nsleep 50\nresult alive")
        self.assertTrue(r.ok)
        self.assertIsNone(self.k.km.provisioner.process.poll())


class TestLongCellMessageMode(KernelCase):
    interrupt_mode = "message"

    def test_interrupt_request_on_control(self):
        msg_id = self.k.kc.execute(sleep_cell(60000))
        time.sleep(0.3)
        msg = self.k.kc.session.msg("interrupt_request", {})
        self.k.kc.control_channel.send(msg)
        reply = self.k.kc.get_control_msg(timeout=2 * SLOW)
        self.assertEqual(reply["msg_type"], "interrupt_reply")
        self.assertEqual(reply["content"]["status"], "ok")
        reply, _ = self.k.collect(msg_id, timeout=5 * SLOW)
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
        self.assertTrue(self.k.run("%%kernel-test\nresult alive").ok)

    def test_interrupt_while_waiting_for_input(self):
        msg_id = self.k.kc.execute("%%kernel-test\ninput never answered", allow_stdin=True)
        self.k.kc.get_stdin_msg(timeout=5 * SLOW)
        self.k.km.interrupt_kernel()  # message mode: interrupt_request
        reply, _ = self.k.collect(msg_id, timeout=5 * SLOW)
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")


class TestLifecycle(unittest.TestCase):
    def test_restart_resets_count_on_the_same_ports(self):
        with Kernel(env=TEST_ENV) as k:
            k.run("%%kernel-test\nresult 1")
            self.assertEqual(k.run("%%kernel-test\nresult 2").content["execution_count"], 2)
            before = k.km.get_connection_info()
            pid = k.pid
            k.km.restart_kernel(now=False)
            self.assertNotEqual(k.pid, pid)
            self.assertEqual(k.km.get_connection_info(), before)
            k.kc.wait_for_ready(timeout=30 * SLOW)
            r = k.run("%%kernel-test\nresult again")
            self.assertEqual(r.content["execution_count"], 1)

    def shutdown_time(self, k, restart=False):
        proc = k.km.provisioner.process
        msg = k.kc.session.msg("shutdown_request", {"restart": restart})
        t0 = time.monotonic()
        k.kc.control_channel.send(msg)
        reply = k.kc.get_control_msg(timeout=5 * SLOW)
        self.assertEqual(reply["content"], {"status": "ok", "restart": restart})
        proc.wait(timeout=10 * SLOW)
        elapsed = time.monotonic() - t0
        self.assertEqual(proc.returncode, 0)
        return elapsed

    def test_shutdown_exits_within_two_seconds(self):
        with Kernel(env=TEST_ENV) as k:
            self.assertLess(self.shutdown_time(k, restart=True), 2 * SLOW)

    def test_shutdown_during_a_long_cell(self):
        with Kernel(env=TEST_ENV) as k:
            k.kc.execute(sleep_cell(60000))
            time.sleep(0.3)
            self.assertLess(self.shutdown_time(k), 2 * SLOW)

    def test_ipc_transport(self):
        with tempfile.TemporaryDirectory() as d:
            old = os.getcwd()
            os.chdir(d)  # ipc endpoints are files named after the ip field
            try:
                with Kernel(env=TEST_ENV, transport="ipc") as k:
                    self.assertEqual(k.km.get_connection_info()["transport"], "ipc")
                    self.assertEqual(k.run("%%kernel-test\nresult ipc").result,
                                     {"text/plain": "ipc"})
            finally:
                os.chdir(old)


class TestCommandLine(unittest.TestCase):
    binary = os.environ.get("VS_BINARY", "vramsheet")

    def run_kernel(self, *args):
        return subprocess.run([self.binary, "kernel"] + list(args), capture_output=True,
                              text=True, timeout=10)

    def test_bad_or_missing_connection_file(self):
        r = self.run_kernel("-f", "/nonexistent/kernel-x.json")
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/kernel-x.json", r.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            f.write('{"shell_port": 1')
            f.flush()
            r = self.run_kernel("-f", f.name)
            self.assertEqual(r.returncode, 2)
            self.assertIn("not JSON", r.stderr)
        r = self.run_kernel()
        self.assertEqual(r.returncode, 2)
        self.assertIn("connection file", r.stderr)

    def test_port_in_use_is_status_1(self):
        s = zmq.Context.instance().socket(zmq.ROUTER)
        port = s.bind_to_random_port("tcp://127.0.0.1")
        try:
            with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
                json.dump({"shell_port": port, "iopub_port": port + 1, "stdin_port": port + 2,
                           "control_port": port + 3, "hb_port": port + 4, "ip": "127.0.0.1",
                           "key": "k", "transport": "tcp"}, f)
                f.flush()
                r = self.run_kernel("-f", f.name)
                self.assertEqual(r.returncode, 1)
                self.assertIn("cannot bind the shell channel", r.stderr)
        finally:
            s.close(0)

    def test_help(self):
        r = self.run_kernel("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("-f", r.stdout)


if __name__ == "__main__":
    unittest.main()
