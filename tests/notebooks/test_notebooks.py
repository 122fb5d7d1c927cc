"""Executes every notebook in notebooks/ with the vramsheet kernel via nbclient.

Each must run without an error output; notebooks named in CHECKS also have their
outputs checked. The kernelspec comes from JUPYTER_PATH (ctest: the build tree's).
Records go to a temporary repository, so notebooks that commit leave nothing.
"""
import copy
import glob
import json
import math
import re
import os
import tempfile
import time
import types
import unittest

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = os.path.join(os.environ.get("VS_SOURCE_DIR",
                                        os.path.join(os.path.dirname(__file__), "..", "..")),
                         "notebooks")
JSON_MIME = "application/vnd.vramsheet.v1+json"


def text_of(cell):
    parts = []
    for o in cell.outputs:
        if o.output_type == "stream":
            parts.append(o.text)
        elif "data" in o:
            parts.append(o.data.get("text/plain", ""))
    return "\n".join(parts)


def json_of(cell):
    for o in cell.outputs:
        if o.output_type == "execute_result":
            data = o.data.get(JSON_MIME)
            return json.loads(data) if isinstance(data, str) else data
    return None


def check_first_steps(test, cells):
    help_cell, convert_cell, help_convert = cells
    test.assertIn("text/html", help_cell.outputs[-1].data)
    test.assertIn("convert", text_of(help_cell))
    test.assertEqual(help_cell.execution_count, 1)
    test.assertIn("22.35 GiB", text_of(convert_cell))
    payload = json_of(convert_cell)
    test.assertEqual(payload["kind"], "convert")
    test.assertEqual(payload["bytes"], 24000000000)
    test.assertEqual(payload["unit"], "GiB")
    # "value" is exact: a number, or a decimal string where a double would round.
    test.assertAlmostEqual(float(payload["value"]), 24e9 / 2 ** 30, places=9)
    test.assertIn("GiB", text_of(help_convert))
    test.assertEqual(help_convert.execution_count, 3)


def payloads(cell):
    """Every vramsheet payload of a cell, in order (displays and the result)."""
    out = []
    for o in cell.outputs:
        data = o.get("data", {}).get(JSON_MIME) if "data" in o else None
        if data is not None:
            out.append(json.loads(data) if isinstance(data, str) else data)
    return out


def cell_of(outputs):
    """A cell-like holder of outputs kept from one run."""
    return types.SimpleNamespace(outputs=outputs)


def payload(cell, kind):
    found = [p for p in payloads(cell) if p.get("kind") == kind]
    assert found, "no %s payload in %r" % (kind, cell.source)
    return found[-1]


GIB = 2 ** 30


def check_seed(test, cells):
    card, reserve, formats, convert, offers, commit, history = cells
    w = payload(card, "weights")
    test.assertEqual((w["params"], w["bits"], w["bytes"]), (7000000000, 16, 14000000000))
    test.assertIn("13.04 GiB", text_of(card))
    env = payload(reserve, "envelope")
    test.assertEqual(env["envelope_bytes"], 14000000000 + 6 * GIB)
    test.assertTrue(env["conservative"])
    test.assertIn("19.04 GiB", text_of(reserve))
    test.assertIn("image/svg+xml", reserve.outputs[-1].data)
    rows = payload(formats, "formats")["rows"]
    test.assertEqual([r["weights_bytes"] for r in rows],
                     [28000000000, 14000000000, 7000000000, 3500000000])
    for gib in ("26.08", "13.04", "6.52", "3.26", "32.08", "19.04", "12.52", "9.26"):
        test.assertIn(gib + " GiB", text_of(formats))
    test.assertIn("not a guaranteed peak", text_of(formats))
    test.assertIn("22.35 GiB", text_of(convert))
    cand = payload(offers, "candidates")["rows"]
    test.assertEqual([r["gpu"] for r in cand], ["RTX 4090", "RTX 6000 Ada"])
    for r in cand:
        verdicts = {q["name"]: q["verdict"] for q in r["requirements"]}
        test.assertEqual(verdicts.pop("capacity"), "admissible")
        test.assertEqual(set(verdicts.values()), {"to-confirm"})
        test.assertEqual(r["verdict"], "to-confirm")
        test.assertIsNone(r["rank"])
    c = payload(commit, "commit")
    test.assertRegex(c["commit"], "^[0-9a-f]{40}$")
    test.assertEqual(c["sheet"], "seed-example-7b-inference-campaign-a")
    h = payload(history, "history")
    test.assertEqual([r["commit"] for r in h["revisions"]], [c["commit"]])


def check_long_context(test, cells):
    card, fp8, formats, offers, candidates = cells
    test.assertIn("GPU offer: L40S", text_of(offers))
    kv16 = payload(card, "component")
    test.assertEqual(kv16["bytes"], 2 * 32 * 8 * 128 * 2 * 32768 * 16)
    env = payload(fp8, "envelope")
    kv = {c["name"]: c for c in env["components"]}
    test.assertEqual(kv["kv_cache"]["bytes"], 2 * 32 * 8 * 128 * 1 * 32768 * 16)
    test.assertIsNone(kv["cuda_context"]["bytes"])
    test.assertEqual(env["unknown"], ["cuda_context"])
    test.assertEqual(len(payload(formats, "formats")["rows"]), 3)
    verdicts = {r["gpu"]: r["verdict"] for r in payload(candidates, "candidates")["rows"]}
    test.assertEqual(verdicts, {"H100 SXM": "to-confirm", "H200": "to-confirm", "L40S": "exclude"})


def check_qlora(test, cells):
    card, training, estimates, full_ckpt, ddp, zero3 = cells
    unknown = set(payload(card, "envelope")["unknown"])
    test.assertTrue({"gradients", "optimizer_state", "activations"} <= unknown, unknown)
    # 41.9M trainable x (2 B gradients + 4 B master copy + 8 B AdamW moments)
    test.assertIn("41,900,000 trainable", text_of(training))
    none_ckpt = payload(estimates, "envelope")
    full = payload(full_ckpt, "envelope")
    act = lambda e: {c["name"]: c["bytes"] for c in e["components"]}["activations"]
    s, b, h, a, layers = 2048, 4, 4096, 32, 32
    test.assertEqual(act(none_ckpt), layers * (s * b * h * 34 + 5 * a * s * s * b))
    # full: each layer's input, and one layer recomputed in the backward (eager)
    test.assertEqual(act(full), layers * 2 * s * b * h + (s * b * h * 34 + 5 * a * s * s * b))
    d, z = payload(ddp, "envelope"), payload(zero3, "envelope")
    test.assertEqual(d["envelope_bytes"], full["envelope_bytes"])  # DDP replicates
    test.assertLess(z["envelope_bytes"], d["envelope_bytes"])       # ZeRO-3 shards
    test.assertIn("two cards are never one memory space", text_of(zero3))


def check_measure(test, cells):
    card, short, usual, limit, oom, measurements = cells
    for cell in (short, usual):
        m = payload(cell, "measurement")
        test.assertEqual((m["exit_status"], m["overflow_phase"]), (0, None))
        test.assertEqual({r["phase"] for r in m["rows"]}, {"load", "generate"})
        test.assertIn("FAKE", m["rows"][0]["gpu_name"])
    # nbclient applies the gauge's updates in place: one display, in its final state
    gauges = [p for p in payloads(short) if p.get("kind") == "gauge"]
    test.assertEqual(len(gauges), 1)
    test.assertEqual(gauges[0]["state"], "finished")
    m = payload(limit, "measurement")
    test.assertEqual((m["exit_status"], m["overflow_phase"]), (1, "generate"))
    gen = [r for r in m["rows"] if r["phase"] == "generate"][0]
    test.assertEqual(gen["peak_bytes"], 25232932864)
    test.assertIn("concurrency", text_of(oom))
    rows = payload(measurements, "measurement")["rows"]
    test.assertEqual([r["stage"] for r in rows if r["phase"] == "generate"],
                     ["short", "usual", "limit"])
    test.assertFalse(any(r["validates_card"] for r in rows))


def check_reproduce(test, cells):
    card, commits, history, diff, reproduce = cells
    revs = payload(history, "history")["revisions"]
    test.assertEqual(len(revs), 2)
    test.assertTrue(revs[0]["message"].endswith("KV cache estimated, one measurement"))
    test.assertIn("kv_cache", text_of(diff))
    sheet = payload(reproduce, "sheet") if any(p.get("kind") == "sheet" for p in payloads(reproduce)) else None
    text = text_of(reproduce)
    test.assertIn("to re-measure", text)
    test.assertIn("13b-inference-campaign-a", text)
    if sheet is not None:
        test.assertEqual(sheet["lineage"]["commit"], revs[0]["commit"])


def check_image_generation(test, cells):
    card, estimates, offers, offload, decode, lora = cells
    # the published parameter counts, stored as fp16: 2 bytes each
    published = {"unet": 2567463684, "vae": 83653863, "text_encoder": 123060480,
                 "text_encoder_2": 694659840}
    w = payload(card, "weights")
    test.assertEqual({c["name"]: c["bytes"] for c in w["components"]},
                     {k: 2 * v for k, v in published.items()})
    test.assertEqual(w["bytes"], 2 * sum(published.values()))
    env = payload(estimates, "envelope")
    comp = {c["name"]: c["bytes"] for c in env["components"]}
    test.assertEqual(comp["latents"], 4 * 4 * 128 * 128 * 2)
    test.assertEqual(comp["attention_scores"], 0)  # fused attention holds no scores
    # the decode in two parts: the decoder's tensors where they peak with cuDNN's workspace,
    # for each of the 4 images the third up block's upsampler conv: its input (512 channels at
    # 512 x 512), its last resnet's output (256 at 512 x 512), the upsampled tensor and the
    # conv's output (256 at 1024 x 1024) at 2 B, and 4 B of workspace per element of the conv's
    # input; and the allocator's cache, what InvokeAI's reserved constant (one image at 2,200 B a
    # pixel a byte, the three more at 128 channels x 5 live tensors) leaves above them: none here
    px = 1024 * 1024
    one = 512 * px // 4 * 2 + 256 * px // 4 * 2 + 2 * 256 * px * 2 + 256 * px * 4
    test.assertEqual(comp["vae_decode"], 4 * one)
    constant = px * 2 * 2200 + 3 * px * 2 * 128 * 5
    test.assertEqual(comp["vae_decode_cache"], max(0, constant - 4 * one))
    test.assertEqual(comp["vae_decode_cache"], 0)
    test.assertEqual(env["cache_bytes"], 0)
    test.assertEqual(env["tensors_bytes"], env["allocator_bytes"])
    # every weight in every phase; the latents (denoise) are freed before the decode
    test.assertEqual(env["worst_phase"], "decode")
    test.assertEqual(env["envelope_bytes"], 2 * sum(published.values()) + comp["vae_decode"] + GIB)
    test.assertEqual(env["sum_bytes"], env["envelope_bytes"] + comp["latents"])
    verdicts = {r["gpu"]: r["verdict"] for r in payload(offers, "candidates")["rows"]}
    test.assertNotEqual(verdicts["RTX 4090"], "exclude")  # 15.51 GiB within 23.99
    test.assertNotEqual(verdicts["H100 SXM"], "exclude")
    off = payload(offload, "envelope")
    test.assertEqual(off["weights_gpu_bytes"], 2 * published["unet"])  # the largest component
    test.assertEqual(off["host_bytes"], 2 * sum(published.values()))
    # model offload holds one component at a time: the peak is the worst phase, by
    # hand: decode = the vae + its decode + the declared 1 GiB; the plain sum stays
    # beside as the conservative figure
    test.assertEqual(off["peak_basis"], "worst phase")
    test.assertEqual(off["worst_phase"], "decode")
    test.assertEqual([p["name"] for p in off["phases"]], ["encode", "denoise", "decode"])
    test.assertEqual(off["envelope_bytes"], 2 * published["vae"] + comp["vae_decode"] + GIB)
    test.assertEqual(off["sum_bytes"],
                     2 * published["unet"] + comp["latents"] + comp["vae_decode"] + GIB)
    verdicts = {r["gpu"]: r["verdict"] for r in payload(offload, "candidates")["rows"]}
    test.assertNotEqual(verdicts["RTX 4090"], "exclude")
    test.assertIn("enable_vae_tiling", text_of(decode))
    sliced_env = payload(decode, "envelope")
    sliced = {c["name"]: c["bytes"] for c in sliced_env["components"]}
    # one image at a time: its tensors, and the allocator's cache up to InvokeAI's constant
    test.assertEqual(sliced["vae_decode"], one)
    test.assertEqual(sliced["vae_decode_cache"], px * 2 * 2200 - one)
    test.assertEqual(sliced_env["cache_bytes"], 0)  # the denoising is the worst phase
    # sliced, the decode is smaller than the denoising with the unet on the GPU
    test.assertEqual(sliced_env["worst_phase"], "denoise")
    test.assertEqual(sliced_env["envelope_bytes"], 2 * published["unet"] + comp["latents"] + GIB)
    trained = {c["name"]: c["bytes"] for c in payload(lora, "envelope")["components"]}
    rank4 = 4 * (10 * (14 * 640 + 4096) + 60 * (14 * 1280 + 4096))
    test.assertEqual(rank4, 5806080)
    test.assertEqual(trained["gradients"], 2 * rank4)
    test.assertEqual(trained["optimizer_state"], 8 * rank4)


def prepare_pipelines():
    """Notebook 07 reads sparse safetensors files that git cannot hold: written first."""
    import subprocess
    import sys
    subprocess.run([sys.executable, os.path.join(NOTEBOOKS, "pipelines", "write_sparse.py")],
                   check=True, stdout=subprocess.DEVNULL)


def check_engines(test, cells):
    """Llama-3.1-70B-Instruct (its public config.json: 80 layers, 8 KV heads of 128,
    70,553,706,496 parameters) in fp8 under vLLM, tensor parallel 2; by hand below,
    the tensor list summed here."""
    card, kv, offers, engine, candidates, evidence, compare, refit, commits = cells
    test.assertIn("KV heads per GPU: full layers 4 of 8", text_of(kv))
    test.assertIn("gpu_memory_utilization", text_of(engine))
    test.assertIn("70,553,706,496 params", text_of(card))
    # per GPU: 2 (K and V) x 80 layers x 4 of 8 KV heads x 128 x 2 B x 32,768 x 4
    test.assertIn("80 full (8 KV heads x 128)", text_of(card))
    test.assertEqual(payload(kv, "component")["bytes"], 2 * 80 * 8 * 128 * 2 * 32768 * 4)
    fit = {r["gpu"]: r for r in payload(engine, "fit")["rows"]}
    test.assertEqual(list(fit), ["H100 SXM", "H200", "A100 80GB", "L40S"])
    h100 = fit["H100 SXM"]
    # fp8 is vLLM's online Fp8LinearMethod over the tensor list: per layer q and o
    # 8,192 x 8,192, k and v 1,024 x 8,192, gate, up and down 28,672 x 8,192 =
    # 855,638,016 fp8 bytes and 7 float32 scales; embed_tokens and lm_head in bf16
    # (128,256 a multiple of 64, so vLLM pads nothing); 161 norms of 8,192 in bf16
    # stay whole on each GPU, the rest is split in two
    linear = 80 * (2 * 8192 * 8192 + 2 * 1024 * 8192 + 3 * 28672 * 8192)
    test.assertEqual(linear, 68451041280)
    norms = (2 * 80 + 1) * 8192 * 2
    whole = linear + 80 * 7 * 4 + 2 * 128256 * 8192 * 2 + norms
    test.assertEqual(whole, 72656373952)
    per_gpu = norms + (whole - norms + 1) // 2
    test.assertEqual(per_gpu, 36329505888)
    # budget ceil(85,520,809,984 x 0.9) = 76,968,728,986; pool 40,639,223,098;
    # page 2 x 16 x 4 x 128 x 2 = 32,768 B a layer: 40,639,223,098 // 32,768 // 80
    # = 15,502 blocks, 248,032 tokens; a request of 32,768 tokens is 2,048 blocks:
    # 7.5693359375x
    test.assertEqual(h100["budget_bytes"], 76968728986)
    test.assertEqual(h100["non_kv_bytes"], per_gpu)
    test.assertEqual(h100["blocks"], (76968728986 - per_gpu) // 32768 // 80)
    test.assertEqual(h100["blocks"], 15502)
    test.assertEqual(h100["kv_tokens"], 15502 * 16)
    test.assertAlmostEqual(float(h100["max_concurrency"]), 15502 / 2048, places=9)
    test.assertTrue(h100["upper_bound"])
    test.assertEqual(h100["verdict"], "to-confirm")
    # L40S: ceil(48,305,799,168 x 0.9) = 43,475,219,252 - 36,329,505,888 leaves
    # 7,145,713,364 B: 2,725 blocks, 1.33 requests of 32,768 < 4
    test.assertEqual(fit["L40S"]["blocks"], (43475219252 - per_gpu) // 32768 // 80)
    test.assertEqual(fit["L40S"]["blocks"], 2725)
    test.assertEqual(fit["L40S"]["verdict"], "exclude")
    # bf16 weights (70,553,706,496 B per GPU) leave an H100 1.19 requests
    bf16 = [f for f in h100["formats"] if f["format"] == "bf16"][0]
    test.assertEqual(bf16["kv_pool_bytes"], 76968728986 - 70553706496)
    verdicts = {r["gpu"]: r["verdict"] for r in payload(candidates, "candidates")["rows"]}
    test.assertEqual(verdicts, {"H100 SXM": "to-confirm", "H200": "to-confirm",
                                "A100 80GB": "to-confirm", "L40S": "exclude"})
    # https://github.com/vllm-project/vllm/pull/10511, as printed: model weights
    # take 14.96GiB; available_kv_cache_memory 53.29GiB
    rows = {r["class"]: r for r in payload(compare, "compare")["rows"]}
    test.assertEqual(rows["weights"]["measured_bytes"], round(14.96 * 2 ** 30))
    test.assertEqual(rows["weights"]["status"], "covers")
    test.assertEqual(rows["kv_cache"]["measured_bytes"], round(53.29 * 2 ** 30))
    test.assertIn("vllm#10511", text_of(evidence) + text_of(compare) + evidence.source)
    # every item known: ceil(85,520,809,984 x 0.9) - 8,030,261,248 x 2 - 1.79 GiB -
    # 1.26 GiB (a declared size rounds up to a whole byte) = the log's 53.29 GiB plus
    # 0.9 x (79.65 - 79.22) GiB, the difference of the two totals
    r = payload(refit, "fit")["rows"][0]
    test.assertFalse(r["upper_bound"])
    test.assertEqual(r["kv_pool_bytes"], 76968728986 - 16060522496 - math.ceil(1.79 * GIB)
                     - math.ceil(1.26 * GIB))
    test.assertAlmostEqual(r["kv_pool_bytes"] / GIB, 53.29 + 0.9 * (79.65 - 79.22), delta=0.02)
    test.assertEqual(r["verdict"], "admissible")
    test.assertEqual(len([p for p in payloads(commits) if p.get("kind") == "commit"]), 2)


# notebook file name -> function(test, code cells in order)
CHECKS = {"00-first-steps.ipynb": check_first_steps,
          "01-seed-7b-inference.ipynb": check_seed,
          "02-long-context-inference.ipynb": check_long_context,
          "03-qlora-finetune.ipynb": check_qlora,
          "04-measure-by-stages.ipynb": check_measure,
          "05-reproduce-a-decision.ipynb": check_reproduce,
          "06-engines-and-fit.ipynb": check_engines,
          "07-image-generation.ipynb": check_image_generation}


class TestNotebooks(unittest.TestCase):
    def execute(self, path, records=None):
        if os.path.basename(path).startswith("07-"):
            prepare_pipelines()
        nb = nbformat.read(path, as_version=4)
        self.assertEqual(nb.metadata.kernelspec.name, "vramsheet")
        for cell in nb.cells:
            if cell.cell_type == "code":
                self.assertEqual(cell.outputs, [], "%s is committed with outputs" % path)
        with tempfile.TemporaryDirectory() as tmp:
            env = {"VRAMSHEET_RECORDS": records or os.path.join(tmp, "records")}
            if os.path.basename(path).startswith("04-"):
                env.update(self.fake_nvml(tmp))
            old = {k: os.environ.get(k) for k in env}
            os.environ.update(env)  # the kernel inherits the environment
            try:
                NotebookClient(nb, timeout=120, kernel_name="vramsheet",
                               resources={"metadata": {"path": NOTEBOOKS}}).execute()
            finally:
                for k, v in old.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        return [c for c in nb.cells if c.cell_type == "code"]

    def execute_twice(self, path, times=2, records=None):
        """Run All `times` times in one kernel: the code cells' outputs of each run."""
        if os.path.basename(path).startswith("07-"):
            prepare_pipelines()
        nb = nbformat.read(path, as_version=4)
        runs = []
        with tempfile.TemporaryDirectory() as tmp:
            env = {"VRAMSHEET_RECORDS": records or os.path.join(tmp, "records")}
            if os.path.basename(path).startswith("04-"):
                env.update(self.fake_nvml(tmp))
            old = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                client = NotebookClient(nb, timeout=120, kernel_name="vramsheet",
                                        resources={"metadata": {"path": NOTEBOOKS}})
                with client.setup_kernel():
                    for _ in range(times):
                        for i, cell in enumerate(nb.cells):
                            if cell.cell_type == "code":
                                client.execute_cell(cell, i)
                        runs.append([copy.deepcopy(c.outputs) for c in nb.cells
                                     if c.cell_type == "code"])
            finally:
                for k, v in old.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        return runs

    def fake_nvml(self, tmp):
        """The tests' fake NVML, as on a machine without a GPU: one scripted H200
        whose used memory the notebook's stand-in workload writes."""
        lib = os.environ.get("VS_FAKE_NVML", "")
        if not os.path.exists(lib):
            self.skipTest("VS_FAKE_NVML is not built")
        script = os.path.join(tmp, "fake-nvml-script")
        with open(script, "w") as f:
            f.write('gpu 0 name="FAKE NVIDIA H200 (scripted by tests/fake_nvml)" '
                    'total=150754820096 used=1000000\n')
        return {"VRAMSHEET_NVML_LIBRARY": lib, "FAKE_NVML_SCRIPT": script,
                "FAKE_NVML_STATE": os.path.join(tmp, "fake-nvml-state")}

    def test_reproduce_rerun_in_new_kernel(self):
        """Notebook 05 again in a new kernel against the records it wrote: the
        same sheets, no error, no new commit; commit says the records hold it."""
        path = os.path.join(NOTEBOOKS, "05-reproduce-a-decision.ipynb")
        with tempfile.TemporaryDirectory() as tmp:
            records = os.path.join(tmp, "records")
            first = self.execute(path, records)
            time.sleep(1.1)  # a `record` line run again is recorded a second later
            again = self.execute(path, records)
            for cell in again:
                errors = [o for o in cell.outputs if o.output_type == "error"]
                self.assertEqual(errors, [], cell.source)
            check_reproduce(self, again)
            commits = [p for p in payloads(again[1]) if p.get("kind") == "commit"]
            self.assertEqual(len(commits), 2)
            self.assertTrue(all(c["unchanged"] for c in commits), commits)
            self.assertIn("already hold this state", text_of(again[1]))
            self.assertEqual(payload(again[2], "history")["revisions"],
                             payload(first[2], "history")["revisions"])
            self.assertEqual(payload(again[3], "diff")["changes"],
                             payload(first[3], "diff")["changes"])

    def test_every_notebook(self):
        paths = sorted(glob.glob(os.path.join(NOTEBOOKS, "*.ipynb")))
        self.assertTrue(paths, "no notebooks in %s" % NOTEBOOKS)
        self.assertIn("00-first-steps.ipynb", [os.path.basename(p) for p in paths])
        for path in paths:
            name = os.path.basename(path)
            with self.subTest(notebook=name):
                cells = self.execute(path)
                for cell in cells:
                    errors = [o for o in cell.outputs if o.output_type == "error"]
                    self.assertEqual(errors, [], "%s: %s" % (name, cell.source))
                    self.assertTrue(cell.outputs, "%s: no output for %r" % (name, cell.source))
                if name in CHECKS:
                    CHECKS[name](self, cells)


# What may differ between two runs of the same cells: clocks (times, elapsed
# milliseconds, the gauge's samples) and the commit ids they feed. Everything
# else, every figure, verdict and message, must be the same.
VOLATILE = [
    (re.compile(r"\b[0-9a-f]{40}\b"), "<commit>"),
    (re.compile(r"\b[0-9a-f]{7,12}\b(?=[^0-9a-f])"), "<short>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( [+-]\d{4}| UTC)?"), "<time>"),
    (re.compile(r'("(elapsed_ms|time|started|elapsed_s|t_ms|samples|pid|max_gap_ms|cpu_ns)": ?)[^,}\]]+'), r"\1<n>"),
    (re.compile(r"\b\d+ samples every"), "<n> samples every"),
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b"), "<dt>"),
]


def restated(o):
    """False for the output of `sheet "TITLE"`, which says by design whether it
    created the sheet or found it current, and shows the whole sheet as it is."""
    data = o.get("data", {}).get(JSON_MIME) if "data" in o else None
    if isinstance(data, str):
        data = json.loads(data)
    return not (isinstance(data, dict) and data.get("kind") == "sheet")


def normalized(outputs):
    text = json.dumps([{k: v for k, v in o.items() if k not in ("execution_count", "metadata",
                                                                "transient")}
                       for o in outputs if restated(o)], sort_keys=True, ensure_ascii=False)
    for rx, rep in VOLATILE:
        text = rx.sub(rep, text)
    return text


class TestRunTwice(TestNotebooks):
    """Re-running is restating. Run All again in the same kernel: no error, no
    duplicate (a measurement, evidence, offer or commit), the notebook's
    conclusion (its last cell) unchanged, and a third run identical to the
    second, cell by cell. (Cells in between show the sheet as it is when they
    run, and in a second run it already holds what later cells add: a card line
    shows the whole card, an envelope the offers named further down.)"""

    def test_every_notebook(self):
        pass  # run by TestNotebooks

    def test_reproduce_rerun_in_new_kernel(self):
        pass  # run by TestNotebooks

    def check_rerun(self, name):
        first, second, third = self.execute_twice(os.path.join(NOTEBOOKS, name), times=3)
        for k, b in enumerate(second + third):
            errors = [o for o in b if o.get("output_type") == "error"]
            self.assertEqual(errors, [], "%s cell %d, a later run" % (name, k % len(first) + 1))
        # the conclusion: a commit's result says whether it wrote, which a run again
        # restates (the new-kernel test checks it names the first run's commit)
        result = lambda outs: [o for o in outs if o.get("output_type") == "execute_result"
                               and commit_payload(o) is None]
        self.assertEqual(normalized(result(first[-1])), normalized(result(second[-1])),
                         "%s: the last cell's result differs on the second run" % name)
        for k, (b, c) in enumerate(zip(second, third)):
            self.assertEqual(normalized(b), normalized(c),
                             "%s cell %d differs between the second and third runs" % (name, k + 1))

    def test_run_all_again_in_one_kernel(self):
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(NOTEBOOKS, "*.ipynb")))
        self.assertIn("01-seed-7b-inference.ipynb", names)
        self.assertIn("04-measure-by-stages.ipynb", names)
        for name in names:
            with self.subTest(notebook=name):
                self.check_rerun(name)

    def test_measure_run_again_restates(self):
        """Notebook 04 run again: each `measure` gives the result of the run it
        made the first time, so it restates that run (m1, m2, m3 stay; no m4)."""
        path = os.path.join(NOTEBOOKS, "04-measure-by-stages.ipynb")
        first, second = self.execute_twice(path, times=2)
        for k in (1, 2, 3):
            p1 = [p for p in payloads(cell_of(first[k])) if p.get("kind") == "measurement"]
            p2 = [p for p in payloads(cell_of(second[k])) if p.get("kind") == "measurement"]
            self.assertEqual(p1[-1]["run"], "m%d" % k)
            self.assertIsNone(p1[-1].get("restates"))
            self.assertEqual(p2[-1]["run"], "m%d" % k)
            self.assertTrue(p2[-1]["restates"])
            self.assertEqual(p2[-1]["rows"], p1[-1]["rows"])
            text = text_of(cell_of(second[k]))
            self.assertIn("this run restates m%d" % k, text)
        rows = [p for p in payloads(cell_of(second[5])) if p.get("kind") == "measurement"][-1]["rows"]
        self.assertEqual(sorted({r["run"] for r in rows}), ["m1", "m2", "m3"])
        self.assertEqual(len(rows), 6)  # load and generate, three runs


def commit_payload(o):
    data = o.get("data", {}).get(JSON_MIME) if "data" in o else None
    if isinstance(data, str):
        data = json.loads(data)
    return data if isinstance(data, dict) and data.get("kind") == "commit" else None


class TestRunInNewKernel(TestNotebooks):
    """Run All twice in one kernel, then once more in a new kernel against the
    same records: no error in any run, and the new kernel's outputs are the
    first run's, output by output, except a `commit`'s: there the new kernel
    writes nothing, and says that the records hold that state at the very
    commit the first run wrote (same bytes, same state)."""

    def test_every_notebook(self):
        pass  # run by TestNotebooks

    def test_reproduce_rerun_in_new_kernel(self):
        pass  # run by TestNotebooks

    def test_every_notebook_in_a_new_kernel(self):
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(NOTEBOOKS, "*.ipynb")))
        self.assertEqual(len(names), 8, names)
        for name in names:
            with self.subTest(notebook=name):
                path = os.path.join(NOTEBOOKS, name)
                with tempfile.TemporaryDirectory() as tmp:
                    records = os.path.join(tmp, "records")
                    first, second = self.execute_twice(path, times=2, records=records)
                    (third,) = self.execute_twice(path, times=1, records=records)
                for k, outs in enumerate(second + third):
                    errors = [o for o in outs if o.get("output_type") == "error"]
                    self.assertEqual(errors, [], "%s cell %d, a later run" % (name, k % len(first) + 1))
                commits = 0
                for k, (a, c) in enumerate(zip(first, third)):
                    where = "%s cell %d" % (name, k + 1)
                    self.assertEqual(len(c), len(a), where + ": outputs in a new kernel")
                    for oa, oc in zip(a, c):
                        pa, pc = commit_payload(oa), commit_payload(oc)
                        if pa is None:
                            self.assertEqual(normalized([oc]), normalized([oa]),
                                             where + " differs in a new kernel")
                            continue
                        commits += 1
                        self.assertIsNotNone(pc, where + ": no commit in a new kernel")
                        self.assertFalse(pa["unchanged"], where)
                        self.assertTrue(pc["unchanged"], where + ": a new kernel wrote again")
                        self.assertEqual(pc["commit"], pa["commit"], where)
                        self.assertIn("already hold this state", text_of(cell_of([oc])), where)
                self.assertEqual(commits, {"01-seed-7b-inference.ipynb": 1,
                                           "05-reproduce-a-decision.ipynb": 2,
                                           "06-engines-and-fit.ipynb": 2}.get(name, 0), name)


if __name__ == "__main__":
    unittest.main()
