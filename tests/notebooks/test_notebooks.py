"""Executes every notebook in notebooks/ with the vramsheet kernel via nbclient.

Each must run without an error output; notebooks named in CHECKS also have their
outputs checked. The kernelspec comes from JUPYTER_PATH (ctest: the build tree's).
Records go to a temporary repository, so notebooks that commit leave nothing.
"""
import glob
import json
import os
import tempfile
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


# notebook file name -> function(test, code cells in order)
CHECKS = {"00-first-steps.ipynb": check_first_steps}


class TestNotebooks(unittest.TestCase):
    def execute(self, path):
        nb = nbformat.read(path, as_version=4)
        self.assertEqual(nb.metadata.kernelspec.name, "vramsheet")
        for cell in nb.cells:
            if cell.cell_type == "code":
                self.assertEqual(cell.outputs, [], "%s is committed with outputs" % path)
        with tempfile.TemporaryDirectory() as records:
            old = os.environ.get("VRAMSHEET_RECORDS")
            os.environ["VRAMSHEET_RECORDS"] = records
            try:
                NotebookClient(nb, timeout=120, kernel_name="vramsheet",
                               resources={"metadata": {"path": NOTEBOOKS}}).execute()
            finally:
                if old is None:
                    os.environ.pop("VRAMSHEET_RECORDS", None)
                else:
                    os.environ["VRAMSHEET_RECORDS"] = old
        return [c for c in nb.cells if c.cell_type == "code"]

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


if __name__ == "__main__":
    unittest.main()
