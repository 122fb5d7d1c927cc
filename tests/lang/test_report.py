"""`vramsheet report`: one page on a recorded sheet, Markdown or HTML.

The records are made by `vramsheet run` (two commits of one sheet); the expected
figures are worked by hand: the KV reserve goes from 2 GiB to 4 GiB, a delta of
2 x 2^30 = 2,147,483,648 B; 7e9 x 2 B + 4 GiB = 18,294,967,296 B per GPU; the T4's
device-reported 15360 MiB = 16,106,127,360 B is below it (exclude), the RTX
4090's 24564 MiB = 25,757,220,864 B above it (capacity admissible, the rest
to confirm).
"""
import os
import subprocess
import tempfile
import unittest

BINARY = os.environ.get("VS_BINARY", "vramsheet")
TITLE = 'demo <img src=x onerror=alert(1)> # not a heading'
CELLS = """sheet "%s"
model m params=7e9
format bf16
length 4096
reserve kv_cache 2GiB status=estimated source="hand"
gpu "RTX 4090"
gpu "T4"
invalidate "a context longer than 4096 tokens"
decide "RTX 4090, pending the context check"
commit "one"
# %%
reserve kv_cache 4GiB status=estimated source="hand, 8k"
length 8192
commit "two"
""" % TITLE.replace('"', '\\"')


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="vs-report-")
        cls.env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(cls.tmp.name, "records"))
        path = os.path.join(cls.tmp.name, "cells.vs")
        with open(path, "w") as f:
            f.write(CELLS)
        r = subprocess.run([BINARY, "run", path], capture_output=True, text=True, env=cls.env)
        assert r.returncode == 0, r.stderr
        ids = os.listdir(os.path.join(cls.tmp.name, "records", "sheets"))
        assert len(ids) == 1, ids
        cls.id = ids[0]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def report(self, *args):
        return subprocess.run([BINARY, "report"] + list(args), capture_output=True, text=True,
                              env=self.env, timeout=30)

    def test_markdown_page(self):
        r = self.report(self.id, "--since", "~1")
        self.assertEqual(r.returncode, 0, r.stderr)
        md = r.stdout
        self.assertTrue(md.startswith("# Sizing report: "))
        self.assertIn("18,294,967,296 B", md)
        self.assertIn("+2,147,483,648 B", md)
        self.assertRegex(md, r"RTX 4090 .*\+6\.95 GiB .*to-confirm")
        self.assertRegex(md, r"T4 .*-2\.04 GiB .*exclude")
        self.assertIn("a context longer than 4096 tokens", md)
        self.assertIn("RTX 4090, pending the context check", md)
        # a title is text, never markup: no raw HTML element, no second heading
        self.assertNotIn("<img", md)
        self.assertEqual([l for l in md.splitlines() if l.startswith("# ")], [md.splitlines()[0]])

    def test_html_page_is_self_contained(self):
        r = self.report(self.id + "@~0", "--since", "~1", "--format", "html")
        self.assertEqual(r.returncode, 0, r.stderr)
        html = r.stdout
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertIn("<svg", html)
        self.assertNotIn("<script", html.lower())
        self.assertNotRegex(html, r"(src|href)=\"(https?:)?//")
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;", html)
        self.assertNotIn("<img", html)
        self.assertIn("2,147,483,648", html)

    def test_without_since_there_is_no_change_section(self):
        r = self.report(self.id)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("What changed since", r.stdout)
        # the earlier revision is reported as it was
        r = self.report(self.id + "@~1")
        self.assertIn("14,000,000,000 B", r.stdout)
        self.assertIn("2,147,483,648 B", r.stdout)

    def test_errors(self):
        self.assertEqual(self.report().returncode, 2)
        self.assertEqual(self.report(self.id, "--format", "pdf").returncode, 2)
        r = self.report("no-such-sheet")
        self.assertEqual(r.returncode, 1)
        self.assertIn("vramsheet report:", r.stderr)
        self.assertEqual(self.report(self.id, "--since", "~9").returncode, 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
