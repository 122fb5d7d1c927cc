"""Kernel-level test of `engine` and `fit`: a real Jupyter client (jupyter_client,
through tests/protocol/vsclient) drives the vramsheet kernel. The expected figures
come from a public vLLM start-up log (generative-computing/mellea pull request
#416: total_gpu_memory 79.19GiB x 0.80, weights 1.12GiB, non_torch 0.16GiB,
activation peak 0.23GiB, KV cache 61.84GiB, 36184 blocks, 70.67x at 8192 tokens),
worked by hand in tests/unit/test_engine.c.

Run by ctest (tests/sizing/build.cmake); by hand:
  JUPYTER_PATH=build/jupyter /usr/bin/python3 -m unittest -v test_engine_kernel
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "protocol"))
from vsclient import Kernel  # noqa: E402

MIME = "application/vnd.vramsheet.v1+json"

CELL = """sheet "engine kernel: mellea 416"
model qwen3-0.6b params=601295421
format bf16
task inference
length 8192
concurrency 64
estimate kv layers=28 kv_heads=8 head_dim=128
gpu "log GPU" memory=80GB reported=79.19GiB reported_source="mellea#416 log"
engine vllm gpu_memory_utilization=0.80 graphs_in_budget=no"""


class EngineKernelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kernel = Kernel(env={"VRAMSHEET_RECORDS": "/nonexistent/vs-engine-test"})

    @classmethod
    def tearDownClass(cls):
        cls.kernel.close()

    def run_ok(self, code):
        r = self.kernel.run(code)
        errors = r.of_type("error")
        self.assertTrue(r.ok, errors[-1]["content"] if errors else None)
        self.assertIsNotNone(r.result)
        return r.result

    def test_engine_then_fit(self):
        r = self.kernel.run(CELL)
        self.assertTrue(r.ok)
        # the engine line re-estimates the KV cache as vLLM allocates it: here the
        # model's own bytes, 2 x 28 x 8 x 128 x 2 B x 8,192 x 64 = 60,129,542,144 B
        # (8,192 tokens are 512 whole blocks of 16, 16-bit values)
        red = r.result[MIME]
        self.assertEqual(red["kind"], "rederived")
        self.assertEqual([(w["name"], w["from_bytes"], w["to_bytes"]) for w in red["rows"]],
                         [("kv_cache", 60129542144, 60129542144)])
        p = [m["content"]["data"][MIME] for m in r.of_type("display_data")
             if m["content"]["data"].get(MIME, {}).get("kind") == "engine"][-1]
        self.assertEqual(p["name"], "vllm")
        keys = {k["name"]: k for k in p["keys"]}
        self.assertEqual(keys["gpu_memory_utilization"]["value"], "0.8")
        self.assertTrue(keys["gpu_memory_utilization"]["given"])
        self.assertEqual(keys["block_size"]["value"], "16")
        self.assertIn("vllm/config/cache.py", keys["block_size"]["source"])
        self.assertEqual([i["bytes"] for i in p["runtime_items"]], [None, None, None])

        # with the runtime items unknown the figures are upper bounds
        res = self.run_ok("fit")
        row = res[MIME]["rows"][0]
        self.assertEqual(res[MIME]["kind"], "fit")
        self.assertTrue(row["upper_bound"])
        self.assertEqual(row["verdict"], "to-confirm")
        self.assertIn("non_torch (runtime item)", row["unknown"])
        self.assertIn("≤", res["text/plain"])
        self.assertIn("<svg", res["image/svg+xml"])

        res = self.run_ok(
            'reserve non_torch 0.16GiB status=measured source="mellea#416"\n'
            'reserve activation_peak 0.23GiB status=measured source="mellea#416"\n'
            'reserve cuda_graphs 0.13GiB status=measured source="mellea#416"\n'
            'fit formats="bf16 fp8"')
        row = res[MIME]["rows"][0]
        for key in ("gpu", "capacity_bytes", "capacity_basis", "budget_bytes", "non_kv_bytes",
                    "kv_pool_bytes", "kv_tokens", "max_concurrency", "max_length", "unknown",
                    "verdict"):
            self.assertIn(key, row)
        self.assertEqual(row["capacity_bytes"], round(79.19 * 2**30))
        self.assertEqual(row["capacity_basis"], "reported")
        self.assertLessEqual(abs(row["blocks"] - 36184), 11)
        self.assertLessEqual(abs(row["max_concurrency"] - 70.67), 0.027)
        self.assertFalse(row["upper_bound"])
        self.assertEqual(row["verdict"], "admissible")
        self.assertEqual([f["format"] for f in row["formats"]], ["bf16", "fp8"])
        self.assertTrue(all(f["fits"] for f in row["formats"]))
        self.assertIn("70.6", res["text/plain"])

        # candidates follow the same computation
        res = self.run_ok("candidates")
        reqs = {r["name"]: r["verdict"] for r in res[MIME]["rows"][0]["requirements"]}
        self.assertEqual(reqs["capacity"], "admissible")
        self.assertEqual(reqs["concurrency"], "admissible")

        # 72 requests of 8192 tokens are more than the pool holds
        res = self.run_ok("concurrency 72\nfit")
        self.assertEqual(res[MIME]["rows"][0]["concurrency"], "exclude")

    def test_bad_engine_key(self):
        r = self.kernel.run('sheet "engine kernel: bad"\nengine vllm block=16')
        self.assertFalse(r.ok)
        err = r.of_type("error")[-1]["content"]
        self.assertIn("block_size=", err["evalue"])


if __name__ == "__main__":
    unittest.main()
