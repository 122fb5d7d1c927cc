"""A measure cell through a real Jupyter client, against the fake NVML library.

The output streams while the command runs, the gauge is one display updated in
place (update_display_data), the heartbeat answers throughout, interrupt (signal
and message modes) ends the command's whole process group, and with no driver
the cell fails with MeasureError.
"""
import os
import shutil
import sys
import tempfile
import threading
import time
import unittest

import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "protocol"))

from vsclient import Kernel  # noqa: E402

MIME = "application/vnd.vramsheet.v1+json"
FAKE = os.environ.get("VS_FAKE_NVML", "")


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


class MeasureKernelBase(object):
    interrupt_mode = None

    @classmethod
    def setUpClass(cls):
        if not FAKE or not os.path.exists(FAKE):
            raise unittest.SkipTest("VS_FAKE_NVML is not built")
        cls.dir = tempfile.mkdtemp(prefix="vs-measure-kernel-")
        script = os.path.join(cls.dir, "script")
        with open(script, "w") as f:
            f.write('gpu 0 name="NVIDIA H200" total=150754820096 used=1000000\n')
        cls.state = os.path.join(cls.dir, "state")
        env = {"VRAMSHEET_NVML_LIBRARY": FAKE, "FAKE_NVML_SCRIPT": script,
               "FAKE_NVML_STATE": cls.state, "VRAMSHEET_RECORDS": os.path.join(cls.dir, "rec")}
        cls.k = Kernel(env=env, interrupt_mode=cls.interrupt_mode)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "k", None):
            cls.k.close()
        shutil.rmtree(getattr(cls, "dir", ""), ignore_errors=True)

    def interrupt_after(self, seconds):
        t = threading.Timer(seconds, self.k.km.interrupt_kernel)
        t.start()
        return t

    def test_interrupt_ends_process_group(self):
        pidfile = os.path.join(self.dir, "pid-%s" % self.interrupt_mode)
        t = self.interrupt_after(1.0)
        start = time.monotonic()
        r = self.k.run("measure phase=load -- echo $$ > %s; sleep 60 & sleep 60" % pidfile,
                       timeout=30)
        t.join()
        self.assertLess(time.monotonic() - start, 15)
        self.assertFalse(r.ok)
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        with open(pidfile) as f:
            pgid = int(f.read())
        self.assertFalse(group_alive(pgid))
        # the kernel lives on
        self.assertTrue(self.k.run("convert 24GB GiB").ok)


class SignalModeTest(MeasureKernelBase, unittest.TestCase):
    interrupt_mode = "signal"

    def test_streams_gauge_and_heartbeat(self):
        info = self.k.km.get_connection_info()
        ctx = zmq.Context.instance()
        hb = ctx.socket(zmq.REQ)
        hb.setsockopt(zmq.LINGER, 0)
        hb.connect("%s://%s:%d" % (info["transport"], info["ip"], info["hb_port"]))
        cmd = ("measure phase=load -- echo hello; "
               "printf 'gpu 0 used 5000000000\\n' > %s; sleep 1.5; "
               "echo 'phase generate' >&3; sleep 1.5; echo bye" % self.state)
        msg_id = self.k.kc.execute("sheet \"kernel\"\n" + cmd)
        rtts = []
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            hb.send(b"ping")
            self.assertTrue(hb.poll(1000), "the heartbeat did not answer within 1 s")
            self.assertEqual(hb.recv(), b"ping")
            rtts.append(time.monotonic() - t0)
            time.sleep(0.2)
        hb.close()
        reply, messages = self.k.collect(msg_id, timeout=30)
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertGreaterEqual(len(rtts), 5)
        self.assertLess(max(rtts), 1.0)

        streams = [m for m in messages if m["msg_type"] == "stream"]
        text = "".join(m["content"]["text"] for m in streams)
        self.assertIn("hello", text)
        self.assertIn("bye", text)
        # hello came out while the command still ran: before the first gauge update
        # that shows the generate phase
        kinds = [m["msg_type"] for m in messages]
        first_hello = next(i for i, m in enumerate(messages)
                           if m["msg_type"] == "stream" and "hello" in m["content"]["text"])
        updates = [i for i, m in enumerate(messages) if m["msg_type"] == "update_display_data"]
        self.assertGreaterEqual(len(updates), 3, kinds)
        self.assertLess(first_hello, updates[-1])

        gauges = [m for m in messages if m["msg_type"] in ("display_data", "update_display_data")
                  and m["content"]["data"].get(MIME, {}).get("kind") == "gauge"]
        self.assertEqual(gauges[0]["msg_type"], "display_data")
        ids = {m["content"].get("transient", {}).get("display_id") for m in gauges}
        self.assertEqual(len(ids), 1)
        self.assertIsNotNone(ids.pop())
        phases = {m["content"]["data"][MIME]["phase"] for m in gauges}
        self.assertIn("load", phases)
        self.assertIn("generate", phases)
        self.assertEqual(gauges[-1]["content"]["data"][MIME]["state"], "finished")

        result = [m for m in messages if m["msg_type"] == "execute_result"][-1]
        payload = result["content"]["data"][MIME]
        self.assertEqual(payload["kind"], "measurement")
        peaks = {(r["phase"], r["counter"]): r["peak_bytes"] for r in payload["rows"]}
        self.assertEqual(peaks[("load", "nvml.device_used")], 5000000000)

    def test_no_driver_is_measure_error(self):
        r = self.k.run("measure phase=load -- true")
        self.assertTrue(r.ok)  # the fake is loaded in this kernel
        # A kernel without a driver:
        with Kernel(env={"VRAMSHEET_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
                         "VRAMSHEET_RECORDS": os.path.join(self.dir, "rec2")}) as k2:
            r2 = k2.run("measure phase=load -- true")
            self.assertFalse(r2.ok)
            self.assertEqual(r2.content["ename"], "MeasureError")
            self.assertIn("no NVIDIA driver", r2.content["evalue"])


class MessageModeTest(MeasureKernelBase, unittest.TestCase):
    interrupt_mode = "message"


if __name__ == "__main__":
    unittest.main()
