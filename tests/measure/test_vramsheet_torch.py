"""The PyTorch helper without torch: a fake torch module records the calls."""
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "kernel", "python"))


def fake_torch(devices=2, uuid=True):
    torch = types.ModuleType("torch")
    cuda = types.SimpleNamespace()
    state = {"alloc": [1000 * (i + 1) for i in range(devices)],
             "reserved": [2000 * (i + 1) for i in range(devices)], "resets": [], "synced": 0}

    class Props(object):
        def __init__(self, i):
            if uuid:
                self.uuid = "0000000%d-1111-2222-3333-444444444444" % i

    cuda.is_available = lambda: True
    cuda.device_count = lambda: devices
    cuda.max_memory_allocated = lambda i: state["alloc"][i]
    cuda.max_memory_reserved = lambda i: state["reserved"][i]
    cuda.reset_peak_memory_stats = lambda i: state["resets"].append(i)
    cuda.get_device_properties = lambda i: Props(i)

    def sync():
        state["synced"] += 1
    cuda.synchronize = sync
    torch.cuda = cuda
    return torch, state


class HelperTest(unittest.TestCase):
    def setUp(self):
        import vramsheet_torch
        self.vs = vramsheet_torch
        self.vs._fd = None
        self.vs._warned = False
        self.read, self.write = os.pipe()
        os.environ["VRAMSHEET_PHASE_FD"] = str(self.write)
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        sys.modules.pop("torch", None)

    def tearDown(self):
        os.close(self.read)
        try:
            os.close(self.write)
        except OSError:
            pass
        os.environ.pop("VRAMSHEET_PHASE_FD", None)
        sys.modules.pop("torch", None)
        self.vs._fd = None

    def lines(self):
        os.close(self.write)
        data = b""
        while True:
            chunk = os.read(self.read, 65536)
            if not chunk:
                break
            data += chunk
        return data.decode().splitlines()

    def test_phases_and_counters_with_uuid(self):
        torch, state = fake_torch(2, uuid=True)
        sys.modules["torch"] = torch
        self.vs.dims(length=4096, concurrency=8, microbatch=None)
        with self.vs.phase("load"):
            pass
        lines = self.lines()
        self.assertEqual(lines[0], "dims length=4096 concurrency=8")
        self.assertEqual(lines[1], "phase load")
        self.assertIn("counter torch.max_memory_allocated 1000 uuid=GPU-00000000-1111-2222-3333-444444444444", lines)
        self.assertIn("counter torch.max_memory_reserved 4000 uuid=GPU-00000001-1111-2222-3333-444444444444", lines)
        self.assertEqual(len(lines), 6)
        self.assertEqual(state["resets"], [0, 1, 0, 1])  # at begin and after reporting
        self.assertEqual(state["synced"], 1)

    def test_visible_devices_map_to_nvml_indices(self):
        torch, _ = fake_torch(2, uuid=False)
        sys.modules["torch"] = torch
        os.environ["CUDA_VISIBLE_DEVICES"] = "3,5"
        self.vs.begin("generate")
        self.vs.end()
        lines = self.lines()
        self.assertIn("counter torch.max_memory_allocated 1000 gpu=3", lines)
        self.assertIn("counter torch.max_memory_reserved 4000 gpu=5", lines)

    def test_phase_on_error_still_reports(self):
        torch, _ = fake_torch(1, uuid=False)
        sys.modules["torch"] = torch
        with self.assertRaises(RuntimeError):
            with self.vs.phase("backward"):
                raise RuntimeError("CUDA out of memory")
        lines = self.lines()
        self.assertEqual(lines[0], "phase backward")
        self.assertIn("counter torch.max_memory_reserved 2000 gpu=0", lines)

    def test_names_are_sanitised_and_no_torch(self):
        self.vs.begin("my phase!")
        self.vs.counter("tok/s", 12, gpu=1)
        self.vs.end()  # torch never imported: nothing more
        self.assertNotIn("torch", sys.modules)
        self.assertEqual(self.lines(), ["phase my_phase_", "counter tok/s 12 gpu=1"])

    def test_noop_without_fd(self):
        os.environ.pop("VRAMSHEET_PHASE_FD")
        self.vs._fd = None
        self.assertFalse(self.vs.enabled())
        with self.vs.phase("load"):
            self.vs.dims(length=1)
        self.assertEqual(self.lines(), [])

    def test_bad_fd_warns_once(self):
        os.environ["VRAMSHEET_PHASE_FD"] = "987"
        self.vs._fd = None
        saved = sys.stderr
        import io
        sys.stderr = io.StringIO()
        try:
            self.vs.begin("a")
            self.vs.begin("b")
            text = sys.stderr.getvalue()
        finally:
            sys.stderr = saved
        self.assertEqual(text.count("cannot write"), 1)
        self.assertFalse(self.vs.enabled())


if __name__ == "__main__":
    unittest.main()
