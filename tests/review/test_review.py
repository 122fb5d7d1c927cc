"""A reviewer's pass over a sheet's history, end to end through the `vramsheet`
binary and git itself: a records repository with a work tree, a sheet committed
with an f16 KV cache, edited to q8_0 and committed, then lengthened and
committed; `diff` must name the engine change, `reproduce` with gpu=, engine=
and length= must record the card it says, `report --since` must give the byte
deltas, and `run --check` must answer 0, 1, 2 and 3 on four small files that
start from these records (the failing one saying what its cell undid). What the records hold is read back with the git CLI
and Python's json, not through vramsheet.

Figures worked by hand (the KV estimate of `estimate kv layers=32 kv_heads=8
head_dim=128` as llama.cpp allocates it: a cell of one layer holds K and V of
8 x 128 = 1,024 values): f16, 2 x 1,024 x 2 B = 4,096 B, x 32 layers = 131,072 B
per token; 4,096 tokens: 536,870,912 B. q8_0 (34 bytes per 32 values,
ggml-common.h): 2 x 1,024 / 32 x 34 = 2,176 B, x 32 = 69,632 B per token; 4,096
tokens: 285,212,672 B; 8,192: 570,425,344 B (+33,554,432 B on the f16 4,096);
32,768: 2,281,701,376 B. The weights: 7e9 x 16 bits / 8 = 14,000,000,000 B. The
T4's device-reported 15360 MiB = 16,106,127,360 B is below 14e9 + 2,281,701,376
= 16,281,701,376 B, the known part alone: exclude.
"""
import json
import os
import subprocess
import tempfile
import unittest

BINARY = os.environ.get("VS_BINARY", "vramsheet")
PER_TOKEN = 2 * 32 * 8 * 128 * 2           # f16
PER_TOKEN_Q8 = 2 * 32 * (8 * 128 // 32) * 34  # q8_0: 34 bytes per 32 values

F16 = """sheet "Review demo"
model m params=7e9
format bf16
length 4096
concurrency 1
engine llamacpp cache_type_k=f16 cache_type_v=f16
estimate kv layers=32 kv_heads=8 head_dim=128
gpu "RTX 4090"
commit "f16 KV cache"
"""
Q8 = """show review-demo
engine llamacpp cache_type_k=q8_0 cache_type_v=q8_0 flash_attn=on
commit "q8_0 KV cache"
"""
LONGER = """show review-demo
length 8192
commit "8k context"
"""
CAMPAIGN_B = """reproduce review-demo@~1 as "campaign B" gpu="RTX 5090" engine="llamacpp \
cache_type_k=q8_0 cache_type_v=q8_0 flash_attn=on" length=32768
commit "campaign B: a 5090, 32k"
"""
EVIDENCE = "".join('evidence "RTX 4090" %s admissible source="%s"\n' % (r, s) for r, s in [
    ("length", "run r1 at 8192 tokens"), ("concurrency", "run r1"),
    ("available-memory", "nvidia-smi on the host"), ("compatibility", "llama.cpp build"),
    ("quality", "eval run")])
CHECKS = {
    0: "show review-demo\nreserve activation_peak 512MiB status=estimated source=\"hand\"\n"
       + EVIDENCE,
    1: 'show campaign-b\ngpu "T4"\n',
    2: "show review-demo\n",
    3: 'show review-demo\nlength 16384\nreproduce review-demo as "campaign C" length=banana\n',
}


def git(records, *args):
    return subprocess.run(["git", "-C", records] + list(args), capture_output=True, text=True,
                          check=True).stdout


class Review(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="vs-review-")
        cls.records = os.path.join(cls.tmp.name, "records")
        subprocess.run(["git", "init", "-q", "-b", "main", cls.records], check=True)
        cls.env = dict(os.environ, VRAMSHEET_RECORDS=cls.records, GIT_AUTHOR_NAME="reviewer",
                       GIT_AUTHOR_EMAIL="reviewer@example.org", GIT_COMMITTER_NAME="reviewer",
                       GIT_COMMITTER_EMAIL="reviewer@example.org")
        cls.out = {}
        for name, cells in [("f16", F16), ("q8", Q8), ("diff", "diff review-demo@~1 ~0\n"),
                            ("longer", LONGER), ("campaign_b", CAMPAIGN_B)]:
            r = cls.run_cells(name, cells)
            assert r.returncode == 0, (name, r.stderr)
            cls.out[name] = r.stdout

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def run_cells(cls, name, cells, *args):
        path = os.path.join(cls.tmp.name, name + ".vs")
        with open(path, "w") as f:
            f.write(cells)
        return subprocess.run([BINARY, "run", path] + list(args), capture_output=True, text=True,
                              env=cls.env, timeout=60)

    def record(self, sheet, rev="main"):
        return json.loads(git(self.records, "show", "%s:sheets/%s/sheet.json" % (rev, sheet)))

    def test_history_in_git(self):
        log = git(self.records, "log", "--format=%s", "--", "sheets/review-demo").splitlines()
        self.assertEqual(log, ["review-demo: 8k context", "review-demo: q8_0 KV cache",
                               "review-demo: f16 KV cache"])
        self.assertEqual(git(self.records, "status", "--porcelain"), "")

    def test_diff_names_the_engine_change(self):
        text = self.out["diff"]
        self.assertNotIn("No difference", text)
        self.assertIn('card        changed  engine    keys: {"cache_type_k":"f16","cache_type_v":'
                      '"f16"} → {"cache_type_k":"q8_0","cache_type_v":"q8_0","flash_attn":"on"}',
                      text)
        # the KV cache followed the cache types: 536,870,912 B → 285,212,672 B
        self.assertIn("components  changed  kv_cache  bytes: %s B = 0.54 GB = 0.50 GiB → %s B"
                      % (format(PER_TOKEN * 4096, ","), format(PER_TOKEN_Q8 * 4096, ",")), text)

    def test_reproduce_records_the_card_it_says(self):
        self.assertIn("Its offer: RTX 5090, in place of the source's 1", self.out["campaign_b"])
        self.assertIn("Its card: length 4,096 → 32,768; engine llamacpp cache_type_k=q8_0 "
                      "cache_type_v=q8_0 flash_attn=on (unchanged); re-estimated: kv_cache "
                      "0.27 GiB → 2.13 GiB.", self.out["campaign_b"])
        b = self.record("campaign-b")
        self.assertEqual([o["name"] for o in b["offers"]], ["RTX 5090"])
        self.assertEqual(b["card"]["length"], 32768)
        self.assertEqual(b["card"]["engine"], {"name": "llamacpp", "keys": {
            "cache_type_k": "q8_0", "cache_type_v": "q8_0", "flash_attn": "on"}})
        kv = [c for c in b["components"] if c["name"] == "kv_cache"][0]
        self.assertEqual(kv["bytes"], PER_TOKEN_Q8 * 32768)  # 2,281,701,376
        self.assertEqual(kv["derived"]["reads"]["length"], 32768)
        q8_commit = git(self.records, "log", "--format=%H", "-n", "1", "--skip", "1", "--",
                        "sheets/review-demo").strip()
        self.assertEqual(b["lineage"], {"sheet": "review-demo", "commit": q8_commit,
                                        "title": "Review demo"})

    def test_report_since_gives_byte_deltas(self):
        r = subprocess.run([BINARY, "report", "review-demo", "--since", "~2"], capture_output=True,
                           text=True, env=self.env, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        since = r.stdout[r.stdout.index("## What changed since"):]
        self.assertIn("engine", since)
        self.assertIn("q8_0", since)
        # q8_0 at 8,192 against f16 at 4,096: +33,554,432 B
        self.assertIn("+%s B" % format(PER_TOKEN_Q8 * 8192 - PER_TOKEN * 4096, ","), since)
        self.assertIn(format(PER_TOKEN_Q8 * 8192, ","), r.stdout)  # the kv_cache now
        self.assertIn("14,000,000,000 B", r.stdout)
        r = subprocess.run([BINARY, "report", "review-demo", "--since", "~2", "--format", "html"],
                           capture_output=True, text=True, env=self.env, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(format(PER_TOKEN * 4096, ","), r.stdout)
        self.assertNotIn("<script", r.stdout.lower())

    def test_run_check_exit_codes(self):
        verdicts = {0: "check: RTX 4090: admissible", 1: "check: T4: exclude",
                    2: "check: RTX 4090: to-confirm", 3: "length=banana: "}
        for want, cells in CHECKS.items():
            r = self.run_cells("check%d" % want, cells, "--check")
            self.assertEqual(r.returncode, want, (want, r.stderr))
            self.assertIn(verdicts[want], r.stderr)
        # the failing cell says what it undid, and left nothing behind
        self.assertRegex(r.stdout, r"undone: .*length; the sheets are as before the cell")
        self.assertNotIn("campaign-c", git(self.records, "ls-tree", "--name-only", "main:sheets"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
