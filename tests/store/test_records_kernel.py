"""Kernel-level tests of the records verbs: a real Jupyter client (jupyter_client,
through tests/protocol/vsclient.py) drives the vramsheet kernel against temporary
records repositories, and the git CLI reads what it wrote, as an independent
reader: SHEET@~N against SHEET@HEAD~N with another sheet's commits interleaved,
a same-sheet divergence on a bare remote refused on push and on pull, a notebook's
cells run again in a new kernel, completion of ids from the records, a hand edit
refused, validates_card written as the card is at commit time.

Run by ctest (tests/store/build.cmake) with JUPYTER_PATH set to the build tree's
kernelspec; by hand:
  JUPYTER_PATH=build/jupyter /usr/bin/python3 -m unittest -v test_records_kernel
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "protocol"))
from vsclient import Kernel  # noqa: E402

MIME = "application/vnd.vramsheet.v1+json"
ID = "llama-7b-campaign-a"
SETUP = """sheet "Llama 7B campaign A"
model meta-llama/Llama-2-7b-chat-hf params=6.74B
format bf16
reserve kv_cache 16GiB status=estimated source="kv formula"
"""
ENV = {"GIT_AUTHOR_NAME": "tester", "GIT_AUTHOR_EMAIL": "tester@example.org",
       "GIT_COMMITTER_NAME": "tester", "GIT_COMMITTER_EMAIL": "tester@example.org"}


def git(*args):
    return subprocess.run(["git"] + list(args), check=True, capture_output=True,
                          text=True, env=dict(os.environ, **ENV)).stdout


def payload(r):
    data = r.result[MIME] if r.result else None
    return json.loads(data) if isinstance(data, str) else data


def error(r):
    e = r.of_type("error")
    return e[-1]["content"] if e else None


class TestRecordsKernel(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.records = os.path.join(self.tmp.name, "records")

    def tearDown(self):
        self.tmp.cleanup()

    def kernel(self, records=None):
        env = dict(ENV, VRAMSHEET_RECORDS=records or self.records)
        return Kernel(env=env)

    def run_ok(self, k, code):
        r = k.run(code)
        self.assertTrue(r.ok, "%s\n%s" % (code, r.text))
        return r

    def test_sheet_revisions(self):
        with self.kernel() as k:
            self.run_ok(k, SETUP + 'commit "a1"')
            self.run_ok(k, 'sheet "other"\ncommit "o1"')
            self.run_ok(k, 'sheet "Llama 7B campaign A"\nreserve extra 1GiB\ncommit "a2"')
            self.run_ok(k, 'sheet "other"\nreserve o 1GiB\ncommit "o2"')
            mine = payload(self.run_ok(k, "show %s@~1" % ID))["revision"]["commit"]
            branch = payload(self.run_ok(k, "show %s@HEAD~1" % ID))["revision"]["commit"]
            self.assertEqual(mine, git("-C", self.records, "log", "--format=%H", "--",
                                       "sheets/%s/" % ID).split()[1])
            self.assertEqual(branch, git("-C", self.records, "rev-parse", "HEAD~1").strip())
            self.assertNotEqual(mine, branch)
            d = payload(self.run_ok(k, "diff %s@~1 ~0" % ID))
            self.assertFalse(d["same"])
            self.assertTrue(payload(self.run_ok(k, "diff %s@HEAD~1 HEAD" % ID))["same"])
            help_show = self.run_ok(k, "help show").text
            self.assertIn("~N", help_show)
            self.assertIn("HEAD~N", help_show)
        # a new kernel completes the records' ids
        with self.kernel() as k:
            msg_id = k.kc.complete("show ll", 7)
            reply = k.kc.get_shell_msg(timeout=30)
            self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
            self.assertIn(ID + "@", reply["content"]["matches"])

    def test_same_sheet_divergence_refused(self):
        hub = os.path.join(self.tmp.name, "hub.git")
        theirs = os.path.join(self.tmp.name, "theirs")
        git("init", "-q", "--bare", "-b", "main", hub)
        with self.kernel() as k:
            self.run_ok(k, SETUP + 'commit "base"\nrecords push %s' % hub)
        git("clone", "-q", hub, theirs)
        with self.kernel(theirs) as k:
            self.run_ok(k, 'show %s\nlength 8192\ncommit "theirs: longer"\nrecords push %s'
                        % (ID, hub))
        with self.kernel() as k:
            self.run_ok(k, 'show %s\ndecide "one 48 GB card"\ncommit "ours: decided"' % ID)
            ours_tip = git("-C", self.records, "rev-parse", "main")
            hub_tip = git("-C", hub, "rev-parse", "main")
            for verb in ("push", "pull"):
                r = k.run("records %s %s" % (verb, hub))
                self.assertFalse(r.ok, verb)
                e = error(r)
                self.assertEqual(e["ename"], "RecordsError")
                self.assertIn("sheets/%s/" % ID, e["evalue"])
                self.assertIn("never merged", e["evalue"])
                self.assertIn("replace", e["evalue"])
                self.assertEqual(git("-C", self.records, "rev-parse", "main"), ours_tip)
                self.assertEqual(git("-C", hub, "rev-parse", "main"), hub_tip)
            for repo in (hub, self.records):
                self.assertEqual(git("-C", repo, "fsck", "--strict", "--no-dangling"), "")
            self.assertEqual(git("-C", hub, "log", "--format=%s", "main").split("\n")[0],
                             "%s: theirs: longer" % ID)
            self.assertEqual(git("-C", self.records, "log", "--format=%s", "main").split("\n")[0],
                             "%s: ours: decided" % ID)
            self.assertEqual(git("-C", self.records, "status", "--porcelain"), "")
            # keep ours: the replace commit joins both histories, the push goes through
            c = payload(self.run_ok(k, 'commit "keep ours" replace'))
            self.assertEqual(c["joined"], hub_tip.strip())
            self.run_ok(k, "records push %s" % hub)
            git("-C", hub, "merge-base", "--is-ancestor", hub_tip.strip(), "main")
            sheet = json.loads(git("-C", hub, "show", "main:sheets/%s/sheet.json" % ID))
            self.assertEqual(sheet["decision"], "one 48 GB card")
            self.assertIsNone(sheet["card"]["length"])

    def test_rerun_in_new_kernel(self):
        cells = [SETUP + 'commit "first"',
                 "length 4096\nrecord phase=generate gpu=0 counter=torch.max_memory_reserved "
                 '20GiB length=4096\ncommit "measured"']
        with self.kernel() as k:
            for c in cells:
                self.run_ok(k, c)
        count = git("-C", self.records, "rev-list", "--count", "main")
        time.sleep(1.1)  # the record of the second run is a second later
        with self.kernel() as k:
            for c in cells:
                r = self.run_ok(k, c)
                self.assertTrue(payload(r)["unchanged"], r.text)
                self.assertIn("already hold this state", r.text)
        self.assertEqual(git("-C", self.records, "rev-list", "--count", "main"), count)

    def test_hand_edit_refused(self):
        with self.kernel() as k:
            self.run_ok(k, SETUP + 'commit "a1"')
            md = os.path.join(self.records, "sheets", ID, "sheet.md")
            with open(md, "a") as f:
                f.write("my note\n")
            r = k.run('length 4096\ncommit "a2"')
            self.assertFalse(r.ok)
            self.assertIn("sheets/%s/sheet.md" % ID, error(r)["evalue"])
            with open(md) as f:
                self.assertTrue(f.read().endswith("my note\n"))
            self.assertEqual(git("-C", self.records, "rev-list", "--count", "main"), "1\n")

    def test_validates_card_at_commit(self):
        with self.kernel() as k:
            self.run_ok(k, SETUP + "length 4096\nconcurrency 8\nrecord phase=generate gpu=0 "
                        "counter=torch.max_memory_reserved 20GiB length=4096 concurrency=8\n"
                        'commit "validates"')
            self.run_ok(k, 'concurrency 16\ncommit "more sequences"')
        sheet = json.loads(git("-C", self.records, "show", "main:sheets/%s/sheet.json" % ID))
        self.assertEqual([m["validates_card"] for m in sheet["measurements"]], [False])
        old = json.loads(git("-C", self.records, "show", "main~1:sheets/%s/sheet.json" % ID))
        self.assertEqual([m["validates_card"] for m in old["measurements"]], [True])


if __name__ == "__main__":
    unittest.main()
