"""`vramsheet run FILE --check` and the two file forms `run` reads.

The verdicts expected are worked by hand from the catalogue's device-reported
totals: 7e9 params x 16 bits / 8 = 14,000,000,000 B, + 6 GiB = 20,442,450,944 B
(19.04 GiB) per GPU; the RTX 4090 reports 24564 MiB = 25,757,220,864 B (fits, so
capacity admissible), the T4 15360 MiB = 16,106,127,360 B (the known part alone
exceeds it: exclude). The other mandatory requirements start to-confirm until
evidence says otherwise.
"""
import json
import os
import subprocess
import tempfile
import unittest

BINARY = os.environ.get("VS_BINARY", "vramsheet")

CARD = """sheet "check"
model m params=7e9
format bf16
length 4096
concurrency 1
quality "exact match"
reserve 6GiB
"""
EVIDENCE = "".join('evidence "RTX 4090" %s admissible source="%s"\n' % (r, s) for r, s in [
    ("length", "run r1 at 4096 tokens"), ("concurrency", "run r1"),
    ("available-memory", "nvidia-smi on the host"), ("compatibility", "provider image list"),
    ("quality", "eval run")])


class Run(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vs-run-")
        self.env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(self.tmp.name, "records"))

    def tearDown(self):
        self.tmp.cleanup()

    def run_file(self, name, text, *args):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return subprocess.run([BINARY, "run", path] + list(args), capture_output=True, text=True,
                              env=self.env, timeout=60)

    def test_check_admissible_is_0(self):
        r = self.run_file("ok.vs", CARD + 'gpu "RTX 4090"\n' + EVIDENCE, "--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("check: RTX 4090: admissible", r.stderr)

    def test_check_to_confirm_is_2(self):
        r = self.run_file("tc.vs", CARD + 'gpu "RTX 4090"\n', "--check")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("check: RTX 4090: to-confirm", r.stderr)

    def test_check_exclude_is_1_even_beside_to_confirm(self):
        r = self.run_file("ex.vs", CARD + 'gpu "RTX 4090"\ngpu "T4"\n', "--check")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("check: T4: exclude", r.stderr)

    def test_check_no_offer_is_2(self):
        r = self.run_file("none.vs", CARD, "--check")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no GPU offer", r.stderr)

    def test_check_error_is_3_and_plain_run_1(self):
        text = CARD + "length banana\n"
        self.assertEqual(self.run_file("err.vs", text, "--check").returncode, 3)
        self.assertEqual(self.run_file("err2.vs", text).returncode, 1)
        self.assertEqual(subprocess.run([BINARY, "run", "--check", "/nonexistent/x.vs"],
                                        capture_output=True, env=self.env).returncode, 3)

    def test_percent_markdown_cells_are_skipped(self):
        text = CARD + "# %% [markdown]\n# frobnicate is not a verb\nfrobnicate\n# %%\nweights\n"
        r = self.run_file("md.vs", text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("14,000,000,000 B", r.stdout)

    def test_notebook_runs_its_code_cells_like_the_script(self):
        script = CARD + "# %%\nweights\n"
        nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["frobnicate\n"]},
            {"cell_type": "code", "metadata": {}, "source": CARD.splitlines(True), "outputs": [],
             "execution_count": None},
            {"cell_type": "code", "metadata": {}, "source": "weights", "outputs": [], "execution_count": None}]}
        a = self.run_file("s.vs", script)
        b = self.run_file("n.ipynb", json.dumps(nb))
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        self.assertEqual(a.stdout, b.stdout)

    def test_bad_notebook_is_a_usage_error(self):
        r = self.run_file("bad.ipynb", '{"cells": [{"cell_type": "code"}]}')
        self.assertEqual(r.returncode, 2)
        self.assertIn("needs a cell_type and a source", r.stderr)

    def test_a_failing_cell_says_what_it_undid(self):
        # the earlier lines' echoes stay, then what the cell undid; a commit's
        # effect is kept (and said as kept by the error), so it is not "undone"
        text = ('sheet "undo"\nmodel m params=7e9\nlength 8192\nconcurrency 2\n'
                'commit "kept"\nestimate kv layers=32 kv_heads=8 head_dim=128\nconcurrency banana\n')
        r = self.run_file("undo.vs", text)
        self.assertEqual(r.returncode, 1)
        self.assertIn("undone: sheet, model, length, concurrency, estimate kv; the sheets are as "
                      "before the cell\n", r.stdout)
        self.assertIn("kept: committed", r.stderr)
        # a cell that fails at its first line undid nothing, and says nothing of it
        r = self.run_file("first.vs", "concurrency banana\n")
        self.assertNotIn("undone", r.stdout)

    def test_byte_order_mark_is_skipped(self):
        r = self.run_file("bom.vs", "\ufeff" + CARD + "weights\n")
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
