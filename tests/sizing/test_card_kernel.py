"""Kernel-level tests of derived state: the card stays the truth.

A real Jupyter client (jupyter_client, through tests/protocol/vsclient.py)
drives the vramsheet kernel. Every estimate recomputes in the same cell when a
card field it read changes (length, concurrency, microbatch, format, model,
placement), saying so; validates_card follows the card into the committed
sheet.json; evidence obtained under another format no longer confirms the
quality; a measured component at smaller dims than the card is flagged and
never admits a capacity verdict; a cell run twice restates, never duplicates.
Expected bytes are hand arithmetic written in each test.

Run by ctest (tests/sizing/build.cmake); by hand:
  JUPYTER_PATH=build/jupyter /usr/bin/python3 -m unittest -v test_card_kernel
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "protocol"))
from vsclient import Kernel  # noqa: E402

MIME = "application/vnd.vramsheet.v1+json"
GIB = 2**30
ARROW = "\u2192"

LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
         "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
         "num_key_value_heads": 8, "vocab_size": 32000, "tie_word_embeddings": False,
         "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16"}


def kv_bytes(layers, kv_heads, head_dim, length, concurrency, per=2):
    return 2 * layers * kv_heads * head_dim * per * length * concurrency


class CardKernelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vs-card-test-")
        cls.records = os.path.join(cls.tmp, "records")
        cls.kernel = Kernel(env={"VRAMSHEET_RECORDS": cls.records})

    @classmethod
    def tearDownClass(cls):
        cls.kernel.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_cell(self, code):
        return self.kernel.run(code)

    def run_ok(self, code):
        r = self.run_cell(code)
        self.assertTrue(r.ok, r.text)
        self.assertIsNotNone(r.result, "the cell returned no result")
        return r

    @staticmethod
    def bundles(r):
        return [m["content"]["data"] for m in r.outputs
                if m["msg_type"] in ("display_data", "execute_result")]

    def rederived(self, r):
        """The re-estimate rows the cell reported, by component name."""
        rows = {}
        for b in self.bundles(r):
            p = b.get(MIME, {})
            if p.get("kind") == "rederived":
                for row in p["rows"]:
                    rows[row["name"]] = (row, b["text/plain"])
        return rows

    def sheet(self, title):
        p = self.run_ok('sheet "%s"' % title).result[MIME]
        self.assertEqual(p["kind"], "sheet")
        return p

    @staticmethod
    def component(sheet, name):
        for c in sheet["components"]:
            if c["name"] == name:
                return c
        raise AssertionError("no component %s in %s" % (name, sheet["components"]))

    # ------------------------------------------------------------ estimates

    def test_kv_follows_length_and_concurrency(self):
        t = "card: kv follows length"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\nestimate kv layers=32 kv_heads=8 head_dim=128" % t)
        self.assertEqual(kv_bytes(32, 8, 128, 4096, 8), 4 * GIB)
        r = self.run_ok("length 65536")
        rows = self.rederived(r)
        self.assertIn("kv_cache", rows)
        row, text = rows["kv_cache"]
        self.assertEqual(row["from_bytes"], 4 * GIB)
        self.assertEqual(row["to_bytes"], kv_bytes(32, 8, 128, 65536, 8))  # 64 GiB
        self.assertIn("kv_cache re-estimated: length 4,096 %s 65,536, 4.00 GiB %s 64.00 GiB"
                      % (ARROW, ARROW), text)
        r = self.run_ok("concurrency 16\nenvelope")
        self.assertIn("kv_cache re-estimated: concurrency 8 %s 16, 64.00 GiB %s 128.00 GiB"
                      % (ARROW, ARROW), r.text if "re-estimated" in r.text else
                      "".join(b["text/plain"] for b in self.bundles(r)))
        env = r.result[MIME]
        self.assertEqual(env["kind"], "envelope")
        kv = [c for c in env["components"] if c["name"] == "kv_cache"][0]
        self.assertEqual(kv["bytes"], 128 * GIB)
        self.assertEqual(env["envelope_bytes"], 14000000000 + 128 * GIB)
        # the record keeps the recipe: estimator, keys as written, what it read
        c = self.component(self.sheet(t), "kv_cache")
        self.assertEqual(c["derived"]["estimator"], "kv")
        self.assertEqual(c["derived"]["keys"], {"layers": "32", "kv_heads": "8", "head_dim": "128"})
        self.assertEqual(c["derived"]["reads"]["length"], 65536)
        self.assertEqual(c["derived"]["reads"]["concurrency"], 16)
        self.assertNotIn("arch", c["derived"]["reads"])  # every shape was on the line
        # a line that changes nothing the estimate read says nothing about it
        r = self.run_ok("quality \"exact match\"")
        self.assertEqual(self.rederived(r), {})

    def test_activations_follow_microbatch(self):
        t = "card: activations follow microbatch"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\ntask pretrain\nformat bf16\n'
                    "length 4096\nmicrobatch 1\n"
                    "estimate activations layers=32 hidden=4096 heads=32 checkpointing=selective"
                    % t)
        # selective: layers x 34 x s x b x h
        one = 32 * 34 * 4096 * 1 * 4096
        self.assertEqual(self.component(self.sheet(t), "activations")["bytes"], one)
        r = self.run_ok("microbatch 4 accumulation=8")
        row, text = self.rederived(r)["activations"]
        self.assertEqual((row["from_bytes"], row["to_bytes"]), (one, 4 * one))
        self.assertIn("microbatch 1 %s 4" % ARROW, text)
        self.assertEqual(self.component(self.sheet(t), "activations")["derived"]["keys"]["checkpointing"],
                         "selective")

    def test_quant_follows_format(self):
        t = "card: quant follows format"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat nf4\nestimate quant' % t)
        # bitsandbytes, double quantisation: ceil(7e9/64) x 1 B + ceil(7e9/64/256) x 4 B
        blocks = -(-7000000000 // 64)
        bnb = blocks + (-(-blocks // 256)) * 4
        self.assertEqual(bnb, 111083988)
        self.assertEqual(self.component(self.sheet(t), "quant_metadata")["bytes"], bnb)
        r = self.run_ok("format int4")
        row, text = self.rederived(r)["quant_metadata"]
        # GPTQ, group 128: a 16-bit scale and a 4-bit zero point per group
        gptq = -(-7000000000 // 128) * (16 + 4) // 8
        self.assertEqual((row["from_bytes"], row["to_bytes"]), (bnb, gptq))
        self.assertIn("format nf4 %s int4" % ARROW, text)
        c = self.component(self.sheet(t), "quant_metadata")
        self.assertEqual(c["bytes"], gptq)
        self.assertIn("scheme=gptq", c["source"])

    def test_training_follows_the_model(self):
        t = "card: training follows the model"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\ntask pretrain\nformat bf16\n'
                    "estimate training optimizer=adamw" % t)
        self.assertEqual(self.component(self.sheet(t), "gradients")["bytes"], 2 * 7000000000)
        r = self.run_ok("model example/7b params=13e9")
        rows = self.rederived(r)
        self.assertEqual(rows["gradients"][0]["to_bytes"], 2 * 13000000000)
        self.assertEqual(rows["optimizer_state"][0]["to_bytes"], 8 * 13000000000)
        self.assertEqual(rows["master_copy"][0]["to_bytes"], 4 * 13000000000)
        self.assertIn("params 7,000,000,000 %s 13,000,000,000" % ARROW, rows["gradients"][1])
        # written on the line: trainable= stays as written, the model no longer matters
        self.run_ok("estimate training optimizer=adamw trainable=1M")
        r = self.run_ok("model example/7b params=70e9")
        self.assertEqual(self.rederived(r), {})
        self.assertEqual(self.component(self.sheet(t), "gradients")["bytes"], 2 * 1000000)

    def test_kv_follows_the_model_shape(self):
        t = "card: kv follows the model shape"
        a = os.path.join(self.tmp, "a.json")
        b = os.path.join(self.tmp, "b.json")
        with open(a, "w") as f:
            json.dump(LLAMA, f)
        with open(b, "w") as f:
            json.dump(dict(LLAMA, num_hidden_layers=40), f)
        self.run_ok('sheet "%s"\nmodel m config=%s\nlength 4096\nconcurrency 8\nestimate kv'
                    % (t, a))
        r = self.run_ok("model m config=%s" % b)
        row, text = self.rederived(r)["kv_cache"]
        self.assertEqual((row["from_bytes"], row["to_bytes"]),
                         (kv_bytes(32, 8, 128, 4096, 8), kv_bytes(40, 8, 128, 4096, 8)))
        self.assertIn("; layers 32 %s 40;" % ARROW, text)
        # another model without a config: no shape left; unknown, saying why
        r = self.run_ok("model other")
        row, text = self.rederived(r)["kv_cache"]
        self.assertIsNone(row["to_bytes"])
        self.assertEqual(row["status"], "unknown")
        self.assertIn("could not be re-estimated", text)
        c = self.component(self.sheet(t), "kv_cache")
        self.assertEqual((c["status"], c["bytes"]), ("unknown", None))
        # its shape back: estimated again
        r = self.run_ok("model other config=%s" % a)
        self.assertEqual(self.rederived(r)["kv_cache"][0]["to_bytes"], kv_bytes(32, 8, 128, 4096, 8))

    def test_placement_follows_without_recomputing(self):
        # Estimates are per GPU before the placement, which the envelope applies
        # by class: a placement change re-runs no estimate (none reads it), and
        # the per-GPU share follows at once.
        t = "card: placement"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
                    "task pretrain\nmicrobatch 1\nestimate training optimizer=adamw" % t)
        r = self.run_ok("placement zero stage=1 gpus=4")
        self.assertEqual(self.rederived(r), {})
        c = self.component(self.sheet(t), "kv_cache")
        self.assertNotIn("placement", c["derived"]["reads"])
        env = self.run_ok("placement tensor gpus=2\nenvelope").result[MIME]
        kv = [c for c in env["components"] if c["name"] == "kv_cache"][0]
        self.assertEqual((kv["bytes"], kv["gpu_bytes"]), (4 * GIB, 2 * GIB))
        env = self.run_ok("placement zero stage=1 gpus=4\nenvelope").result[MIME]
        opt = [c for c in env["components"] if c["name"] == "optimizer_state"][0]
        self.assertEqual((opt["bytes"], opt["gpu_bytes"]), (8 * 7000000000, 2 * 7000000000))
        # and once the card moves, the estimate that read it follows under the placement
        r = self.run_ok("length 8192\nenvelope")
        self.assertEqual(self.rederived(r)["kv_cache"][0]["to_bytes"], 8 * GIB)
        kv = [c for c in r.result[MIME]["components"] if c["name"] == "kv_cache"][0]
        self.assertEqual(kv["gpu_bytes"], 8 * GIB)  # zero stage 1 replicates the KV cache

    def test_declared_amounts_are_never_recomputed(self):
        t = "card: declared amounts stay"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
                    "reserve kv_cache 16GiB source=\"vLLM log\"\nreserve workspace 2GiB" % t)
        r = self.run_ok("length 65536")
        self.assertEqual(self.rederived(r), {})
        s = self.sheet(t)
        self.assertEqual(self.component(s, "kv_cache")["bytes"], 16 * GIB)
        self.assertNotIn("derived", self.component(s, "kv_cache"))
        self.assertEqual(self.component(s, "workspace")["bytes"], 2 * GIB)

    def test_a_failing_cell_rolls_back_the_recomputation(self):
        t = "card: atomic"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\nestimate kv layers=32 kv_heads=8 head_dim=128" % t)
        r = self.run_cell("length 65536\nno_such_verb")
        self.assertFalse(r.ok)
        c = self.component(self.sheet(t), "kv_cache")
        self.assertEqual(c["bytes"], 4 * GIB)
        self.assertEqual(c["derived"]["reads"]["length"], 4096)

    # ---------------------------------------------------------- validation

    def test_validates_card_in_the_committed_record(self):
        t = "card validation committed"
        sid = "card-validation-committed"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\nrecord phase=generate gpu=0 counter=torch.max_memory_reserved "
                    "20GiB length=4096 concurrency=8" % t)
        self.assertTrue(self.sheet(t)["measurements"][0]["validates_card"])
        self.run_ok('concurrency 16\ncommit "concurrency 16"')
        text = subprocess.run(["git", "-C", self.records, "show",
                               "HEAD:sheets/%s/sheet.json" % sid],
                              check=True, capture_output=True, text=True).stdout
        rec = json.loads(text)
        self.assertEqual(rec["schema"], "vramsheet/sheet/2")
        self.assertIs(rec["measurements"][0]["validates_card"], False)
        md = subprocess.run(["git", "-C", self.records, "show", "HEAD:sheets/%s/sheet.md" % sid],
                            check=True, capture_output=True, text=True).stdout
        row = [ln for ln in md.splitlines() if "torch.max_memory_reserved" in ln]
        self.assertEqual(len(row), 1, md)
        cells = [c.strip() for c in row[0].strip().strip("|").split("|")]
        self.assertEqual(cells[-1], "no", row[0])  # the "validates card" column
        # the diff says what the recomputation read, not two JSON objects
        self.run_ok("estimate kv layers=32 kv_heads=8 head_dim=128\ncommit \"kv\"\n"
                    "concurrency 32\ncommit \"concurrency 32\"")
        d = self.run_ok("diff %s@HEAD~1 HEAD" % sid).text
        self.assertIn("re-estimated for concurrency 16 %s 32" % ARROW, d)
        self.assertNotIn('"reads"', d)

    def test_measured_at_smaller_dims_is_flagged(self):
        t = "card: measured at smaller dims"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\ngpu \"H100 SXM\"\n"
                    "record phase=generate gpu=0 counter=torch.max_memory_reserved 20GiB "
                    "length=4096 concurrency=8\nmeasured kv_cache from=#1" % t)
        cap = lambda p: [r for r in p["rows"][0]["requirements"] if r["name"] == "capacity"][0]
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(cap(p)["verdict"], "admissible")
        r = self.run_ok("concurrency 16\nenvelope")
        env = r.result[MIME]
        kv = [c for c in env["components"] if c["name"] == "kv_cache"][0]
        self.assertEqual(kv["status"], "measured")
        self.assertEqual(kv["flag"], "measured at smaller dims than the card")
        self.assertIn("measured at smaller dims than the card: kv_cache (concurrency 8 < the "
                      "card's 16)", r.text)
        p = self.run_ok("candidates").result[MIME]
        self.assertEqual(cap(p)["verdict"], "to-confirm")
        self.assertIn("measured at smaller dims than the card", self.run_ok("candidates").text)

    # ------------------------------------------------------------ evidence

    def test_quality_evidence_after_a_format_change(self):
        t = "card: evidence follows the format"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\ngpu \"H100 SXM\"\n"
                    "evidence \"H100 SXM\" quality admissible source=\"eval on bf16\" scope=\"bf16\""
                    % t)
        q = lambda p: [r for r in p["rows"][0]["requirements"] if r["name"] == "quality"][0]
        self.assertEqual(q(self.run_ok("candidates").result[MIME])["verdict"], "admissible")
        self.assertEqual(self.sheet(t)["evidence"][0]["card"]["format"], "bf16")
        r = self.run_ok("format int4\ncandidates")
        req = q(r.result[MIME])
        self.assertEqual(req["verdict"], "to-confirm")
        self.assertEqual(req["evidence"][0]["moved"], "format bf16 %s int4" % ARROW)
        self.assertIn("format bf16 %s int4" % ARROW, r.text)
        # the record for people says so too
        self.run_ok('commit "int4 after a bf16 quality check"')
        md = subprocess.run(["git", "-C", self.records, "show",
                             "HEAD:sheets/card-evidence-follows-the-format/sheet.md"],
                            check=True, capture_output=True, text=True).stdout
        self.assertIn("admissible (no longer holds: format bf16 %s int4)" % ARROW, md)
        # back to the format it was obtained under: it holds again
        self.assertEqual(q(self.run_ok("format bf16\ncandidates").result[MIME])["verdict"],
                         "admissible")

    def test_length_evidence_after_a_longer_card(self):
        t = "card: evidence follows the length"
        self.run_ok('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                    "concurrency 8\ngpu \"H100 SXM\"\n"
                    "evidence \"H100 SXM\" length admissible source=\"vLLM max_model_len\"" % t)
        ln = lambda p: [r for r in p["rows"][0]["requirements"] if r["name"] == "length"][0]
        self.assertEqual(ln(self.run_ok("length 2048\ncandidates").result[MIME])["verdict"],
                         "admissible")
        self.assertEqual(ln(self.run_ok("length 8192\ncandidates").result[MIME])["verdict"],
                         "to-confirm")

    # ----------------------------------------------------------- re-running

    def test_run_twice_restates(self):
        t = "card: run twice"
        cell = ('sheet "%s"\nmodel example/7b params=7e9\nformat bf16\nlength 4096\n'
                "concurrency 8\ngpu \"H100 SXM\"\n"
                "record phase=generate gpu=0 counter=torch.max_memory_reserved 20GiB "
                "length=4096 concurrency=8\n"
                "evidence \"H100 SXM\" quality admissible source=\"eval\" scope=\"bf16\"\n"
                "estimate kv layers=32 kv_heads=8 head_dim=128" % t)
        self.run_ok(cell)
        first = self.sheet(t)
        r = self.run_ok(cell)
        self.assertEqual(self.rederived(r), {})
        again = self.sheet(t)
        self.assertEqual(len(again["measurements"]), 1)
        self.assertEqual(len(again["evidence"]), 1)
        self.assertEqual(len(again["offers"]), 1)
        strip = lambda s: {k: v for k, v in s.items() if k not in ("action",)}
        for m in first["measurements"] + again["measurements"]:
            m.pop("time", None)
        self.assertEqual(strip(first), strip(again))


if __name__ == "__main__":
    unittest.main()
