"""Executes every notebook in notebooks/ with the vramsheet kernel via nbclient.

Each must run without an error output; notebooks named in CHECKS also have their
outputs checked. The kernelspec comes from JUPYTER_PATH (ctest: the build tree's).
Records go to a temporary repository, so notebooks that commit leave nothing.
"""
import copy
import glob
import json
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
    card, fp8, formats, offers = cells
    kv16 = payload(card, "component")
    test.assertEqual(kv16["bytes"], 2 * 32 * 8 * 128 * 2 * 32768 * 16)
    env = payload(fp8, "envelope")
    kv = {c["name"]: c for c in env["components"]}
    test.assertEqual(kv["kv_cache"]["bytes"], 2 * 32 * 8 * 128 * 1 * 32768 * 16)
    test.assertIsNone(kv["cuda_context"]["bytes"])
    test.assertEqual(env["unknown"], ["cuda_context"])
    test.assertEqual(len(payload(formats, "formats")["rows"]), 3)
    verdicts = {r["gpu"]: r["verdict"] for r in payload(offers, "candidates")["rows"]}
    test.assertEqual(verdicts, {"H100 SXM": "to-confirm", "H200": "to-confirm", "L40S": "exclude"})


def check_qlora(test, cells):
    card, estimates, full_ckpt, ddp, zero3 = cells
    unknown = set(payload(card, "envelope")["unknown"])
    test.assertTrue({"gradients", "optimizer_state", "activations"} <= unknown, unknown)
    none_ckpt = payload(estimates, "envelope")
    full = payload(full_ckpt, "envelope")
    act = lambda e: {c["name"]: c["bytes"] for c in e["components"]}["activations"]
    s, b, h, a, layers = 2048, 4, 4096, 32, 32
    test.assertEqual(act(none_ckpt), layers * (s * b * h * 34 + 5 * a * s * s * b))
    test.assertEqual(act(full), layers * 2 * s * b * h)
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


# notebook file name -> function(test, code cells in order)
CHECKS = {"00-first-steps.ipynb": check_first_steps,
          "01-seed-7b-inference.ipynb": check_seed,
          "02-long-context-inference.ipynb": check_long_context,
          "03-qlora-finetune.ipynb": check_qlora,
          "04-measure-by-stages.ipynb": check_measure,
          "05-reproduce-a-decision.ipynb": check_reproduce}


class TestNotebooks(unittest.TestCase):
    def execute(self, path, records=None):
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
        result = lambda outs: [o for o in outs if o.get("output_type") == "execute_result"]
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
        self.assertEqual(len(names), 6, names)
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
                                           "05-reproduce-a-decision.ipynb": 2}.get(name, 0), name)


if __name__ == "__main__":
    unittest.main()
