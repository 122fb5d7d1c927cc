"""`measure import` checked by independent readers: public log lines are
imported and committed with `vramsheet run`; the record is validated with
jsonschema against records/sheet.schema.json, and each imported figure is
compared with Python's own exact arithmetic on the printed decimal
(round(Decimal(printed) * unit), half a unit of the last digit).

Lines: https://github.com/vllm-project/vllm/pull/17122 (vLLM V1),
https://github.com/vllm-project/vllm/issues/10517 (V0, "GB" that is GiB),
https://github.com/mozilla-ai/llamafile/pull/552 (llama.cpp buffers),
https://github.com/ggml-org/llama.cpp/issues/19437 (the breakdown table).

Run by ctest (tests/measure/build.cmake) with the vramsheet binary as argv[1]
(or VRAMSHEET); skipped with a message where jsonschema is missing.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from decimal import ROUND_HALF_UP, Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
VRAMSHEET = os.environ.get("VRAMSHEET", "vramsheet")

VLLM = """INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading took 14.9889 GiB and 3.652170 seconds
INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens
INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens per request: 4.84x
"""
VLLM_V0 = """Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
# GPU blocks: 1478, # CPU blocks: 2048
"""
LLAMA = """llm_load_tensors:        CPU buffer size =   297.00 MiB
llm_load_tensors:      CUDA0 buffer size =  7317.71 MiB
llama_kv_cache_init:      CUDA0 KV buffer size =   180.00 MiB
llama_new_context_with_model:      CUDA0 compute buffer size =   105.00 MiB
llama_memory_breakdown_print: |   - CUDA0 (GTX 1080 Ti) | 11165 = 8702 + (10001 =  9814 +     134 +      51) + 17592186036877 |
"""

GIB, MIB = 2 ** 30, 2 ** 20


def exact(printed, unit):
    """Bytes and resolution of a printed decimal, by Python's decimal module."""
    d = Decimal(printed)
    digits = -d.as_tuple().exponent if d.as_tuple().exponent < 0 else 0
    b = (d * unit).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    r = (Decimal(unit) / (2 * Decimal(10) ** digits)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(b), int(r)


class ImportRecords(unittest.TestCase):
    def test_records_validate_and_figures_are_exact(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema is not installed: the record is not validated")
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in (("v1.log", VLLM), ("v0.log", VLLM_V0), ("llama.log", LLAMA)):
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
            script = os.path.join(tmp, "s.vs")
            with open(script, "w") as f:
                f.write('sheet "logs"\nmeasure import "v1.log" "v0.log"\n'
                        'measure import "llama.log" format=llamacpp\ncommit "logs"\n')
            env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(tmp, "records"))
            out = subprocess.run([VRAMSHEET, "run", script], cwd=tmp, env=env,
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            with open(os.path.join(tmp, "records", "sheets", "logs", "sheet.json")) as f:
                sheet = json.load(f)
            with open(os.path.join(ROOT, "records", "sheet.schema.json")) as f:
                jsonschema.validate(sheet, json.load(f))
        self.assertEqual(sheet["schema"], "vramsheet/sheet/2")
        got = {}
        for m in sheet["measurements"]:
            got.setdefault((m["counter"], m["gpu"]), []).append(m)
        want = [
            (("vllm.model_weights", None), exact("14.9889", GIB)),  # V1's file
            (("vllm.model_weights", None), exact("14.9888", GIB)),  # V0's "GB", read as GiB
            (("vllm.kv_cache_memory", None), exact("3.81", GIB)),
            (("vllm.non_torch_memory", None), exact("0.35", GIB)),
            (("llamacpp.model_buffer", 0), exact("7317.71", MIB)),
            (("llamacpp.kv_buffer", 0), exact("180.00", MIB)),
            (("llamacpp.compute_buffer", 0), exact("105.00", MIB)),
            (("llamacpp.self", 0), (10001 * MIB, MIB // 2)),
        ]
        for key, (b, r) in want:
            self.assertIn(key, got)
            self.assertIn((b, r), [(m["peak_bytes"], m["resolution_bytes"]) for m in got[key]], key)
        self.assertEqual(got[("vllm.kv_cache_tokens", None)][0]["value"], 158656)
        self.assertIsNone(got[("vllm.kv_cache_tokens", None)][0]["peak_bytes"])
        self.assertEqual(got[("vllm.max_concurrency", None)][0]["value"], 4.84)
        self.assertEqual(got[("vllm.gpu_blocks", None)][0]["value"], 1478)
        # one run per log file, none of them validating the card
        self.assertEqual(len(sheet["runs"]), 3)
        self.assertFalse(any(m["validates_card"] for m in sheet["measurements"]))


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        VRAMSHEET = os.path.abspath(sys.argv.pop(1))
    unittest.main()
