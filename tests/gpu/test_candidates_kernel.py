"""Kernel-level tests of the GPU verbs: a real Jupyter client drives the
vramsheet kernel and checks the application/vnd.vramsheet.v1+json payloads.

Run by ctest (src/catalog/build.cmake) with JUPYTER_PATH set to the build
tree's kernelspec.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "protocol"))
from vsclient import Kernel  # noqa: E402

MIME = "application/vnd.vramsheet.v1+json"
GIB = 1 << 30
MIB = 1 << 20

SEED = """\
model example/llama-7b params=7e9
task inference
format bf16
reserve 6GiB
gpu "RTX 4090" memory=24GB price=47.14USD period=3d cards=1
gpu "RTX 6000 Ada" memory=48GB price=55.71USD period=3d cards=1
"""

IMPLIED = ["length", "concurrency", "available-memory", "compatibility", "quality"]


def row(payload, gpu):
    for r in payload["rows"]:
        if r["gpu"] == gpu:
            return r
    raise AssertionError("no row for %s in %r" % (gpu, [r["gpu"] for r in payload["rows"]]))


def verdicts(r):
    return {q["name"]: q["verdict"] for q in r["requirements"]}


class CandidatesKernelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kernel = Kernel()

    @classmethod
    def tearDownClass(cls):
        cls.kernel.close()

    def run_ok(self, code):
        r = self.kernel.run(code)
        self.assertTrue(r.ok, r.text)
        self.assertIsNotNone(r.result, "the cell returned no result")
        return r

    def test_seed_selection(self):
        self.run_ok('sheet "gpu kernel test: seed"\n' + SEED)
        r = self.run_ok("candidates")
        p = r.result[MIME]
        self.assertEqual(p["kind"], "candidates")
        self.assertEqual(p["envelope_bytes"], 14_000_000_000 + 6 * GIB)
        self.assertEqual(len(p["rows"]), 2)
        for gpu in ("RTX 4090", "RTX 6000 Ada"):
            x = row(p, gpu)
            for key in ("gpu", "capacity_bytes", "capacity_basis", "verdict", "requirements",
                        "rank"):
                self.assertIn(key, x)
            v = verdicts(x)
            self.assertEqual(v["capacity"], "admissible")
            for name in IMPLIED:
                self.assertEqual(v[name], "to-confirm", name)
            for q in x["requirements"]:
                self.assertIsInstance(q["evidence"], list)
            self.assertEqual(x["verdict"], "to-confirm")
            self.assertIsNone(x["rank"])
            self.assertIsInstance(x["capacity_bytes"], int)
        self.assertEqual(row(p, "RTX 6000 Ada")["capacity_basis"], "nominal")
        self.assertEqual(row(p, "RTX 6000 Ada")["capacity_bytes"], 48_000_000_000)
        self.assertEqual(row(p, "RTX 4090")["capacity_basis"], "reported")
        self.assertEqual(row(p, "RTX 4090")["capacity_bytes"], 24564 * MIB)
        self.assertEqual(row(p, "RTX 4090")["nominal_bytes"], 24_000_000_000)
        self.assertEqual(p["retained"], 0)
        self.assertTrue(any("rank no speed" in n for n in p["notes"]), p["notes"])
        text = r.result["text/plain"]
        self.assertIn("19.04 GiB", text)
        self.assertIn("22.35 GiB", text)
        self.assertIn("<table", r.result["text/html"])
        self.assertIn("RTX 6000 Ada", r.result["image/svg+xml"])

    def test_evidence_and_ranking(self):
        self.run_ok('sheet "gpu kernel test: ranking"\n' + SEED
                    + 'require "CUDA 12.4 driver"\n')
        cell = []
        for gpu in ("RTX 4090", "RTX 6000 Ada"):
            for name in IMPLIED + ["CUDA 12.4 driver"]:
                cell.append('evidence "%s" "%s" admissible source="kernel test" '
                            'version="2026-11" scope="lot of 1 card"' % (gpu, name))
        r = self.run_ok("\n".join(cell))
        self.assertEqual(r.result[MIME]["kind"], "evidence")
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(p["retained"], 2)
        self.assertEqual(row(p, "RTX 4090")["rank"], 1)      # 47.14 USD
        self.assertEqual(row(p, "RTX 6000 Ada")["rank"], 2)  # 55.71 USD
        ev = [q for q in row(p, "RTX 4090")["requirements"] if q["name"] == "CUDA 12.4 driver"]
        self.assertEqual(ev[0]["evidence"][0]["source"], "kernel test")
        self.assertEqual(ev[0]["evidence"][0]["scope"], "lot of 1 card")

        # One exclusion removes the cheaper candidate; the other is still ranked.
        self.run_ok('evidence "RTX 4090" quality exclude source="eval run 3"')
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(row(p, "RTX 4090")["verdict"], "exclude")
        self.assertIsNone(row(p, "RTX 4090")["rank"])
        self.assertEqual(row(p, "RTX 6000 Ada")["rank"], 1)

    def test_errors(self):
        self.run_ok('sheet "gpu kernel test: errors"\ngpu "RTX 4090" memory=24GB')
        r = self.kernel.run('evidence "RTX 3090" compatibility admissible source=x')
        self.assertFalse(r.ok)
        self.assertEqual(r.content["ename"], "NameError")
        self.assertTrue(r.content["evalue"].startswith("line 1, column 10: "), r.content["evalue"])
        self.assertIn('"RTX 4090"', r.content["evalue"])
        r = self.kernel.run('evidence "RTX 4090" "ROCm 6" admissible source=x')
        self.assertFalse(r.ok)
        self.assertIn('"available-memory"', r.content["evalue"])
        r = self.kernel.run('evidence "RTX 4090" compatibility admissible')
        self.assertFalse(r.ok)
        self.assertEqual(r.content["ename"], "ValueError")
        self.assertIn("source=", r.content["evalue"])

    def test_catalogue(self):
        p = self.run_ok("gpus").result[MIME]
        self.assertEqual(p["kind"], "catalog")
        names = {g["name"]: g for g in p["gpus"]}
        for name in ("H200", "H100 SXM", "H100 PCIe", "A100 40GB", "A100 80GB", "L40S", "L4",
                     "A10G", "RTX 6000 Ada", "RTX 4090", "RTX 3090", "RTX A6000", "V100 16GB",
                     "V100 32GB", "T4", "MI300X"):
            self.assertIn(name, names)
            self.assertTrue(names[name]["sources"], name)
        self.assertEqual(names["H200"]["reported_bytes"], 143771 * MIB)
        self.assertIsNone(names["H100 PCIe"]["reported_bytes"])
        for name in ("H100 NVL", "B200", "A10", "RTX 5090", "MI325X"):
            self.assertIn(name, names)
        # Every total the catalogue gives has its public link; every one it
        # lacks says why.
        for g in p["gpus"]:
            if g["reported_bytes"] is not None:
                self.assertEqual(g["reported_bytes"], g["reported_mib"] * MIB, g["name"])
                self.assertTrue(g["reported_source"].startswith("https://"), g["name"])
            else:
                self.assertTrue(g["reported_unknown"], g["name"])
            if g["cuda_total_bytes"] is not None:
                self.assertTrue(g["cuda_total_source"].startswith("https://"), g["name"])
        text = self.run_ok("gpus").result["text/plain"]
        self.assertIn("Device-reported total unknown (no public capture found): H100 PCIe", text)

    def test_nominal_basis_cannot_exclude_alone(self):
        # 1e9 params x 16 bits = 2,000,000,000 B, plus 73.98 GiB
        # (79,435,420,139.52 B, rounded up) = 81,435,420,140 B = 75.84 GiB per GPU:
        # over 80 GB (74.51 GiB) but not over 80 GiB (85,899,345,920 B). The
        # H100 SXM's nvidia-smi total, 81559 MiB = 85,520,809,984 B, holds it.
        self.run_ok('sheet "gpu kernel test: nominal basis"\nmodel x params=1e9\nformat bf16\n'
                    'reserve 73.98GiB\ngpu "H100 PCIe"\ngpu "H100 SXM"')
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(p["envelope_bytes"], 81_435_420_140)
        pcie, sxm = row(p, "H100 PCIe"), row(p, "H100 SXM")
        self.assertEqual(pcie["capacity_basis"], "nominal")
        self.assertEqual(pcie["capacity_bytes"], 80_000_000_000)
        cap = [q for q in pcie["requirements"] if q["name"] == "capacity"][0]
        self.assertEqual(cap["verdict"], "to-confirm")
        self.assertIn("80.00 GiB, the nominal figure read in binary units", cap["note"])
        self.assertIn("missing: the device-reported total", cap["note"])
        self.assertNotEqual(pcie["verdict"], "exclude")
        self.assertEqual(sxm["capacity_basis"], "reported")
        self.assertEqual(verdicts(sxm)["capacity"], "admissible")
        # Past 80 GiB the nominal figure excludes on its own: 2,000,000,000 B
        # + 79 GiB (84,825,604,096 B) = 86,825,604,096 B > 85,899,345,920 B.
        self.run_ok("reserve 79GiB")
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(verdicts(row(p, "H100 PCIe"))["capacity"], "exclude")
        # The card's own total, with its source, decides at once.
        self.run_ok("reserve 73.98GiB\n"
                    'gpu "H100 PCIe" reported=75GiB reported_source="nvidia-smi memory.total"')
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(row(p, "H100 PCIe")["capacity_basis"], "reported")
        self.assertEqual(row(p, "H100 PCIe")["reported_basis"],
                         "declared with reported=; source: nvidia-smi memory.total")
        self.assertEqual(verdicts(row(p, "H100 PCIe"))["capacity"], "exclude")

    def test_names_and_cards(self):
        self.run_ok('sheet "gpu kernel test: names"\nmodel x params=7e9\nformat bf16\n'
                    'reserve 6GiB')
        r = self.kernel.run("gpu h100 sxm")
        self.assertFalse(r.ok)
        self.assertEqual(r.content["ename"], "ValueError")
        self.assertEqual(r.content["evalue"],
                         'line 1, column 5: quote a name with spaces: gpu "H100 SXM"')
        p = self.run_ok('gpu "H100 80GB"').result[MIME]
        self.assertEqual(p["offer"]["catalog"], "H100 SXM")
        self.assertEqual(p["offer"]["reported_bytes"], 81559 * MIB)
        # Fewer cards than the placement's GPUs: said on a line of its own.
        r = self.run_ok("placement tensor gpus=2\ncandidates")
        self.assertTrue(any(n.startswith("H100 80GB: cards=1 is fewer than the placement's gpus=2")
                            for n in r.result[MIME]["notes"]), r.result[MIME]["notes"])
        text = self.run_ok("envelope").result["text/plain"]
        self.assertIn("\nH100 80GB: cards=1 is fewer than the placement's gpus=2: the per-GPU "
                      "envelope does not apply to this offer (give cards=2, or a placement on "
                      "1 GPU)\n", text)


if __name__ == "__main__":
    unittest.main()
