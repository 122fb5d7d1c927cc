"""The README's cells run as they are and print what the README says.

Every fenced block with the info string `vramsheet` in README.md is one cell; the
HTML comment right after it, `<!-- prints: "TEXT" "TEXT" ... -->`, lists figures the
prose quotes. Each block runs through `vramsheet run` from the repository's root (so
the config.json paths named resolve), with records of its own; the test fails when a
block errors or its output lacks a quoted figure. A block without a `prints` comment
fails too: the README must not claim figures nobody checks.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("VS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("VS_BINARY", "vramsheet")
CELL = re.compile(r"```vramsheet\n(.*?)```\n(<!-- prints: (.*?) -->)?", re.S)


def cells():
    with open(os.path.join(SOURCE, "README.md")) as f:
        text = f.read()
    return [(m.group(1), re.findall(r'"([^"]+)"', m.group(3) or ""), m.group(2) is not None)
            for m in CELL.finditer(text)]


class ReadmeCells(unittest.TestCase):
    def test_every_docs_page_is_linked(self):
        with open(os.path.join(SOURCE, "README.md")) as f:
            text = f.read()
        for name in sorted(os.listdir(os.path.join(SOURCE, "docs"))):
            if name.endswith(".md"):
                self.assertIn("(docs/%s)" % name, text, "README's table does not link docs/" + name)

    def test_there_are_cells(self):
        self.assertGreaterEqual(len(cells()), 4)

    def test_each_cell_prints_its_figures(self):
        for i, (code, figures, has_prints) in enumerate(cells(), 1):
            with self.subTest(cell=i, first_line=code.splitlines()[0]):
                self.assertTrue(has_prints, "README cell %d has no <!-- prints: ... --> comment" % i)
                self.assertTrue(figures, "README cell %d quotes no figure" % i)
                with tempfile.TemporaryDirectory(prefix="vs-readme-") as tmp:
                    path = os.path.join(tmp, "cell.vs")
                    with open(path, "w") as f:
                        f.write(code)
                    env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(tmp, "records"),
                               HOME=tmp, HF_HUB_OFFLINE="1")
                    run = subprocess.run([BINARY, "run", path], cwd=SOURCE, env=env,
                                         capture_output=True, text=True, timeout=60)
                    self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
                    for fig in figures:
                        self.assertTrue(fig in run.stdout, "README cell %d: %r not printed; it printed:\n%s"
                                        % (i, fig, run.stdout[-1500:]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
