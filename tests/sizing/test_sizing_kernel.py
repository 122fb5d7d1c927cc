"""Kernel-level tests of the sizing verbs: a real Jupyter client (jupyter_client)
drives the vramsheet kernel, and the application/vnd.vramsheet.v1+json payloads
and the printed GiB figures of SPEC section 2 are checked. A sheet taken from
the kernel is also validated against records/sheet.schema.json.

Run by ctest (tests/sizing/build.cmake) with JUPYTER_PATH set to the build tree's
kernelspec; by hand:
  JUPYTER_PATH=build/jupyter /usr/bin/python3 -m unittest -v test_sizing_kernel
"""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "protocol"))
from vsclient import Kernel  # noqa: E402

MIME = "application/vnd.vramsheet.v1+json"


class Cell:
    """A cell's reply, its display/result bundles and its error, from vsclient."""

    def __init__(self, r):
        self.reply = r.reply
        self.ok = r.ok
        self.bundles = [m["content"]["data"] for m in r.outputs
                        if m["msg_type"] in ("display_data", "execute_result")]
        self.result = r.result
        errors = r.of_type("error")
        self.error = errors[-1]["content"] if errors else None

    def payload(self):
        return self.result[MIME]

    def text(self):
        return self.result["text/plain"]


class SizingKernelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kernel = Kernel(env={"VRAMSHEET_RECORDS": "/nonexistent/vs-sizing-test"})

    @classmethod
    def tearDownClass(cls):
        cls.kernel.close()

    def run_cell(self, code):
        return Cell(self.kernel.run(code))

    def run_ok(self, code):
        c = self.run_cell(code)
        self.assertTrue(c.ok, c.error)
        self.assertIsNotNone(c.result, "the cell returned no result")
        return c

    def test_seed_weights_and_envelope(self):
        c = self.run_ok('sheet "sizing kernel: seed"\nmodel example/7b params=7e9\n'
                        "task inference\nformat bf16\nweights")
        p = c.payload()
        self.assertEqual(p["kind"], "weights")
        self.assertEqual((p["params"], p["bits"], p["bytes"]), (7000000000, 16, 14000000000))
        self.assertIsInstance(p["bytes"], int)
        self.assertIn("14,000,000,000 B = 14.00 GB = 13.04 GiB", c.text())
        # every line before the last came as a display with its own payload
        kinds = [b[MIME]["kind"] for b in c.bundles]
        self.assertEqual(kinds[-1], "weights")
        self.assertIn("card", kinds)
        self.assertIn("text/html", c.result)
        # the card verbs say in one line what they set; the payload keeps the whole card
        for b in c.bundles:
            if b[MIME]["kind"] == "card":
                self.assertEqual(b["text/plain"].count("\n"), 1, b["text/plain"])
                self.assertNotIn("<table", b["text/html"])
                self.assertEqual(b[MIME]["card"]["model"], "example/7b")
        c = self.run_ok("card")
        self.assertEqual(c.payload()["kind"], "card")
        self.assertEqual(c.payload()["card"]["task"], "inference")
        self.assertIn("<table", c.result["text/html"])
        self.assertIn("7,000,000,000 (declared)", c.text())

        c = self.run_ok("reserve 6GiB\nenvelope")
        p = c.payload()
        self.assertEqual(p["kind"], "envelope")
        self.assertEqual(p["weights_bytes"], 14000000000)
        self.assertEqual(p["reserve_bytes"], 6 * 2**30)
        self.assertEqual(p["envelope_bytes"], 20442450944)
        self.assertIs(p["conservative"], True)
        self.assertEqual(p["unknown"], [])
        self.assertEqual([x["name"] for x in p["components"]], ["reserve"])
        self.assertEqual(set(p["components"][0]), {"name", "bytes", "status", "source", "phase",
                                                   "class", "gpu_bytes", "ways"})
        self.assertIn("19.04 GiB", c.text())
        self.assertIn("conservative envelope", c.text())
        self.assertIn("<svg", c.result["image/svg+xml"])

    def test_seed_formats(self):
        self.run_ok('sheet "sizing kernel: formats"\nmodel example/7b params=7e9\n'
                    "format bf16\nreserve 6GiB")
        c = self.run_ok("formats bits=32 bits=16 bits=8 bits=4")
        rows = c.payload()["rows"]
        self.assertEqual([r["bits"] for r in rows], [32, 16, 8, 4])
        self.assertEqual([r["weights_bytes"] for r in rows],
                         [28000000000, 14000000000, 7000000000, 3500000000])
        self.assertEqual([r["envelope_bytes"] - r["weights_bytes"] for r in rows], [6 * 2**30] * 4)
        self.assertTrue(rows[3]["quantized"])
        self.assertFalse(rows[0]["quantized"])
        lines = c.text().splitlines()
        for w, e in (("26.08", "32.08"), ("13.04", "19.04"), ("6.52", "12.52"), ("3.26", "9.26")):
            row = [ln for ln in lines if " %s GiB" % w in ln]
            self.assertEqual(len(row), 1, (w, c.text()))
            self.assertIn(" %s GiB" % e, row[0])
        four = [ln for ln in lines if " 3.26 GiB" in ln][0]
        self.assertIn("not a guaranteed peak", four)

    def test_thirteen_b_lower_bound(self):
        c = self.run_ok('sheet "sizing kernel: 13b"\nmodel example/13b params=13e9\n'
                        "format fp16\nweights")
        self.assertEqual(c.payload()["bytes"], 26000000000)
        self.assertIn("26,000,000,000 B = 26.00 GB = 24.21 GiB", c.text())
        self.assertIn("a lower bound, not a GPU recommendation", c.text())

    def test_errors_name_line_and_column(self):
        self.run_ok('sheet "sizing kernel: errors"\nmodel m params=7e9\nformat bf16\nreserve 6GiB')
        c = self.run_cell("reserve 2GiB\nreserve kv 3")
        self.assertFalse(c.ok)
        self.assertEqual(c.reply["content"]["ename"], "UnitError")
        self.assertTrue(c.reply["content"]["evalue"].startswith("line 2, column 12: "),
                        c.reply["content"]["evalue"])
        # the cell was atomic: the first line's reserve is gone
        c = self.run_ok("envelope")
        self.assertEqual(c.payload()["reserve_bytes"], 6 * 2**30)

    def test_training_sheet_matches_the_record_schema(self):
        try:
            import jsonschema
        except ImportError:  # pragma: no cover - the Debian test machine has it
            self.skipTest("jsonschema is not installed")
        self.run_ok('sheet "sizing kernel: training"\nmodel m params=7e9\nformat bf16\n'
                    "task finetune\nlength 2048\nmicrobatch 1\n"
                    "estimate training optimizer=adamw\n"
                    "estimate activations layers=32 hidden=4096 heads=32\n"
                    "placement zero stage=2 gpus=4\nstage short length=128 microbatch=1\n"
                    'invalidate "a longer context"\noom phase=backward\ndecide "pending"')
        c = self.run_ok("envelope")
        p = c.payload()
        self.assertEqual(p["unknown"], ["buffers"])
        self.assertEqual(p["gpus"], 4)
        by = {x["name"]: x for x in p["components"]}
        self.assertEqual(by["gradients"]["gpu_bytes"], 14000000000 // 4)
        self.assertEqual(by["activations"]["gpu_bytes"], 956301312 * 32)
        c = self.run_ok('sheet "sizing kernel: training"')
        sheet = dict(c.payload())
        del sheet["kind"], sheet["action"]
        with open(os.path.join(ROOT, "records", "sheet.schema.json")) as f:
            schema = json.load(f)
        jsonschema.validate(sheet, schema)
        with open(os.path.join(ROOT, "records", "examples", "seed-7b-inference",
                               "sheet.json")) as f:
            jsonschema.validate(json.load(f), schema)

    def test_generation_sheet_with_a_decode_matches_the_record_schema(self):
        """The default decode stores two parts, the second with "memory": "cache"."""
        try:
            import jsonschema
        except ImportError:  # pragma: no cover - the Debian test machine has it
            self.skipTest("jsonschema is not installed")
        self.run_ok('sheet "sizing kernel: generation"\ntask generate-image\n'
                    "resolution 1024x1024\nestimate decode dtype=fp16")
        c = self.run_ok('sheet "sizing kernel: generation"')
        sheet = dict(c.payload())
        del sheet["kind"], sheet["action"]
        by = {x["name"]: x for x in sheet["components"]}
        self.assertEqual(by["vae_decode_cache"].get("memory"), "cache")
        self.assertNotIn("memory", by["vae_decode"])
        with open(os.path.join(ROOT, "records", "sheet.schema.json")) as f:
            schema = json.load(f)
        jsonschema.validate(sheet, schema)


if __name__ == "__main__":
    unittest.main()
