"""`vramsheet convert`: a notebook to a percent script and back.

The script expected is Jupytext's own: tests/data/jupytext/sample.py was
written by jupytext 1.19.6 from sample.ipynb (tests/tools/jupytext_oracle.py,
versions in tests/data/jupytext/VERSIONS). Every notebook of notebooks/ goes
there and back with the same cells; the notebooks written are checked with
nbformat's own validator when python3-nbformat is installed (.ci/deps installs
it), and always with the structural check below, written from nbformat 4.5's
schema (nbformat/v4/nbformat.v4.5.schema.json: the required keys of each cell
type, no others, ids of 1 to 64 of [a-zA-Z0-9-_], unique).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

BINARY = os.environ.get("VS_BINARY", "vramsheet")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "jupytext")

try:
    import nbformat
except ImportError:  # said once below, and the structural check runs anyway
    nbformat = None

CELL_KEYS = {
    "code": {"id", "cell_type", "metadata", "execution_count", "source", "outputs"},
    "markdown": {"id", "cell_type", "metadata", "source"},
    "raw": {"id", "cell_type", "metadata", "source"},
}
ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def cells_of(nb):
    """(type, source) of each cell, the source joined as nbformat does."""
    out = []
    for c in nb["cells"]:
        s = c["source"]
        out.append((c["cell_type"], s if isinstance(s, str) else "".join(s)))
    return out


def structural_errors(nb):
    errs = []
    if set(nb) != {"cells", "metadata", "nbformat", "nbformat_minor"}:
        errs.append("top-level keys %s" % sorted(nb))
    if nb.get("nbformat") != 4 or not isinstance(nb.get("nbformat_minor"), int) \
            or nb["nbformat_minor"] < 5:
        errs.append("not nbformat 4.5+")
    if not isinstance(nb.get("metadata"), dict):
        errs.append("metadata is not an object")
    ids = set()
    for i, c in enumerate(nb.get("cells", [])):
        kind = c.get("cell_type")
        if kind not in CELL_KEYS:
            errs.append("cell %d: cell_type %r" % (i, kind))
            continue
        if set(c) != CELL_KEYS[kind]:
            errs.append("cell %d: keys %s" % (i, sorted(c)))
        if not ID.match(c.get("id", "")) or c["id"] in ids:
            errs.append("cell %d: id %r" % (i, c.get("id")))
        ids.add(c.get("id"))
        if not isinstance(c.get("metadata"), dict):
            errs.append("cell %d: metadata" % i)
        src = c.get("source")
        if not (isinstance(src, str) or (isinstance(src, list)
                                         and all(isinstance(x, str) for x in src))):
            errs.append("cell %d: source" % i)
        if kind == "code" and (c.get("outputs") != [] or c.get("execution_count") is not None):
            errs.append("cell %d: outputs or execution_count" % i)
    return errs


class Convert(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if nbformat is None:
            sys.stderr.write("test_convert: python3-nbformat is not installed here: the "
                             "notebooks written get the structural check only\n")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vs-convert-")

    def tearDown(self):
        self.tmp.cleanup()

    def convert(self, *args):
        return subprocess.run([BINARY, "convert"] + list(args), capture_output=True, timeout=60)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def check_notebook(self, path):
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
        self.assertEqual(structural_errors(nb), [], path)
        self.assertEqual(nb["metadata"]["kernelspec"]["name"], "vramsheet")
        if nbformat is not None:
            nbformat.validate(nbformat.read(path, as_version=4))
        return nb

    def test_script_is_jupytexts(self):
        r = self.convert(os.path.join(DATA, "sample.ipynb"), "--to", "py", "-o", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(DATA, "sample.py"), "rb") as f:
            self.assertEqual(r.stdout.decode("utf-8"), f.read().decode("utf-8"))

    def test_jupytexts_script_back(self):
        out = self.path("sample.ipynb")
        r = self.convert(os.path.join(DATA, "sample.py"), "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"9 cells written to", r.stderr)
        with open(os.path.join(DATA, "sample.ipynb"), encoding="utf-8") as f:
            want = cells_of(json.load(f))
        self.assertEqual(cells_of(self.check_notebook(out)), want)

    def test_every_notebook_there_and_back(self):
        notebooks = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
        self.assertGreater(len(notebooks), 0)
        for nbpath in notebooks:
            name = os.path.basename(nbpath)[:-len(".ipynb")]
            py, back = self.path(name + ".py"), self.path(name + ".ipynb")
            r = self.convert(nbpath, "--to", "py", "-o", py)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(py, encoding="utf-8") as f:
                script = f.read()
            # every text cell's lines are comments, as Jupytext writes them
            kind = None
            for line in script.split("\n"):
                if line.startswith("# %%"):
                    kind = line
                elif kind == "# %% [markdown]" and line:
                    self.assertTrue(line == "#" or line.startswith("# "), (name, line))
            r = self.convert(py, "--to", "ipynb", "-o", back)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(nbpath, encoding="utf-8") as f:
                want = cells_of(json.load(f))
            self.assertEqual(cells_of(self.check_notebook(back)), want, name)

    def test_default_names_and_header(self):
        # a script as Jupytext writes it by default: its YAML header read past
        text = ("# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n"
                "#       extension: .py\n#       format_name: percent\n"
                "#   kernelspec:\n#     name: vramsheet\n# ---\n\n"
                "# %% [markdown]\n# Title\n\n# %%\nhelp convert\n")
        with open(self.path("h.py"), "w") as f:
            f.write(text)
        r = self.convert(self.path("h.py"))
        self.assertEqual(r.returncode, 0, r.stderr)
        nb = self.check_notebook(self.path("h.ipynb"))
        self.assertEqual(cells_of(nb), [("markdown", "Title"), ("code", "help convert")])
        r = self.convert(self.path("h.ipynb"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("h.py")) as f:
            self.assertEqual(f.read(), "# %% [markdown]\n# Title\n\n# %%\nhelp convert\n")

    def test_refusals(self):
        with open(self.path("m.py"), "w") as f:
            f.write("# %%\nhelp\n")
        r = self.convert(self.path("m.py"), "-o", self.path("m.py"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"would be written over itself", r.stderr)
        self.assertEqual(self.convert(self.path("m.py"), "--to", "pdf").returncode, 2)
        r = self.convert(self.path("m.py"), "--to", "py")
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"is not a notebook", r.stderr)
        with open(self.path("bad.ipynb"), "w") as f:
            f.write('{"cells": [}')
        r = self.convert(self.path("bad.ipynb"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"not a valid notebook: line 1, column 12", r.stderr)
        # a code line that would open a cell of its own: refused, nothing written
        nb = {"cells": [{"cell_type": "code", "source": "help\n# %% not a cell", "metadata": {},
                         "outputs": [], "execution_count": None, "id": "a"}],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        with open(self.path("split.ipynb"), "w") as f:
            json.dump(nb, f)
        r = self.convert(self.path("split.ipynb"))
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"cell 1, line 2", r.stderr)
        self.assertFalse(os.path.exists(self.path("split.py")))

    def test_run_reads_the_script_as_the_notebook(self):
        nbpath = os.path.join(ROOT, "notebooks", "00-first-steps.ipynb")
        py = self.path("first.py")
        self.assertEqual(self.convert(nbpath, "-o", py).returncode, 0)
        env = dict(os.environ, VRAMSHEET_RECORDS=self.path("records"))
        a = subprocess.run([BINARY, "run", nbpath], capture_output=True, env=env, timeout=60)
        b = subprocess.run([BINARY, "run", py], capture_output=True, env=env, timeout=60)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertIn(b"22.35 GiB", b.stdout)


if __name__ == "__main__":
    unittest.main()
