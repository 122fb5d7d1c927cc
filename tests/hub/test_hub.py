#!/usr/bin/env python3
"""`model ORG/NAME` and `weights` against a local stand-in for the Hub.

fake_hub.py plays the Hub (API, resolve, a CDN on another port with Range)
and counts every byte it sends. The repositories are written here with
Python's struct and json: a 163-shard safetensors checkpoint (DeepSeek-V3's
shard count; sparse files, header then a hole), a gated one-file checkpoint,
a GGUF repository with a large vocabulary in its metadata, and one with two
GGUF files. The checks:
- sizing the 163 shards reads headers only: under 3 MB served, in under 2 s;
  no range is longer than the header it asks for; with 20 ms a range, the
  shards are read side by side (well under the 6.5 s of one after another);
- the bytes, parameters and dtypes equal this file's own tally of the tensors
  it wrote, and `weights from=` on the same files on disk;
- the record keeps the commit and each header's sha256, equal to the sha256 of
  the file's first 8 + header-length bytes computed here;
- a second run with HF_HUB_OFFLINE=1 reads the cache and asks nothing;
- offline with an empty cache (HF_HUB_OFFLINE=1, or `hub offline` for the
  session), nothing is asked and the download command is named; without
  libcurl the note says how to get it;
- a diffusers pipeline: model_index.json, then each component's headers
  (the variant where a component has it, a sharded text encoder), as
  `pipeline=` reads the same files on disk;
- a gated repository: refused without a token, with the message to log in;
  read with HF_TOKEN or the token file; the token reaches the Hub, never the
  CDN, and is never printed, recorded or written into the cache;
- a wrong name and a wrong revision, from the Hub's X-Error-Code or from the
  status alone; a server that ignores Range (refused,
  the transfer aborted long before the shard is sent); a slow server (a
  progress line); a stalled one (a timeout); a broken API (HTTP 500).

Environment: VS_BUILD_DIR (the build tree, holding vramsheet),
VS_SOURCE_DIR (the sources). Exit status 0 passed, 1 failed.
"""
import hashlib
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("VS_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
BUILD = os.environ.get("VS_BUILD_DIR", os.getcwd())
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SOURCE, "tests", "model"))
import fake_hub  # noqa: E402
import gguf_independent as gg  # noqa: E402  (its GGUF writer)

VRAMSHEET = os.path.join(BUILD, "vramsheet")
TOKEN = "hf_TESTtokenNeverPrinted0123456789"
COMMIT_BIG = "1" * 8 + "a" * 32
COMMIT_GATED = "2" * 40
COMMIT_GGUF = "3" * 40
COMMIT_TWO = "4" * 40
FAILED = []

# bytes per element of the safetensors dtypes written here (safetensors' spec)
DT = {"BF16": 2, "F32": 4, "F8_E4M3": 1}


def log(*a):
    print("test_hub:", *a, flush=True)


def check(cond, what):
    if cond:
        log("ok:", what)
    else:
        log("FAILED:", what)
        FAILED.append(what)
    return cond


def write_safetensors(path, tensors):
    """tensors: [(name, dtype, shape)]. The data a sparse hole. Returns
    (header length, data bytes, {dtype: (bytes, params)})."""
    header, off, tally = {}, 0, {}
    for name, dtype, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        b = n * DT[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + b]}
        off += b
        tb, tp = tally.get(dtype, (0, 0))
        tally[dtype] = (tb + b, tp + n)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + off)
    return len(text), off, tally


def big_repo(folder):
    """163 shards of a DeepSeek-V3-like MoE: per shard 8 experts' FP8
    projections with their F32 scales, and a BF16 norm."""
    os.makedirs(folder)
    shutil.copy(os.path.join(SOURCE, "tests/model/configs/deepseek-v3.json"),
                os.path.join(folder, "config.json"))
    weight_map, tally, headers = {}, {}, {}
    for k in range(1, 164):
        name = "model-%05d-of-000163.safetensors" % k
        t = [("model.layers.%d.input_layernorm.weight" % k, "BF16", [7168])]
        for e in range(8):
            for w, shape in (("gate_proj", [2048, 7168]), ("up_proj", [2048, 7168]),
                             ("down_proj", [7168, 2048])):
                base = "model.layers.%d.mlp.experts.%d.%s" % (k, e, w)
                t.append((base + ".weight", "F8_E4M3", shape))
                t.append((base + ".weight_scale_inv", "F32",
                          [shape[0] // 128, shape[1] // 128]))
        hlen, _, tl = write_safetensors(os.path.join(folder, name), t)
        headers[name] = hlen
        for dt, (b, p) in tl.items():
            tb, tp = tally.get(dt, (0, 0))
            tally[dt] = (tb + b, tp + p)
        for tn, _, _ in t:
            weight_map[tn] = name
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": sum(b for b, _ in tally.values())},
                   "weight_map": weight_map}, f)
    return tally, headers


def header_sha(path, n):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read(n)).hexdigest()


def run(script, env, cwd):
    path = os.path.join(cwd, "cell.vs")
    with open(path, "w") as f:
        f.write(script)
    t0 = time.monotonic()
    p = subprocess.run([VRAMSHEET, "run", path], env=env, cwd=cwd, capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def record(records, sheet):
    out = subprocess.run(["git", "-C", records, "show", "main:sheets/%s/sheet.json" % sheet],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    if not os.access(VRAMSHEET, os.X_OK):
        log("FAILED: no", VRAMSHEET)
        return 1
    tmp = tempfile.mkdtemp(prefix="vs-hub-")
    hub = fake_hub.FakeHub()
    try:
        return checks(tmp, hub)
    finally:
        hub.close()
        shutil.rmtree(tmp, ignore_errors=True)


def base_env(tmp, cache):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update({"HF_HUB_CACHE": os.path.join(tmp, cache), "HF_HOME": os.path.join(tmp, "hfhome"),
                "HF_ENDPOINT": "", "VRAMSHEET_RECORDS": os.path.join(tmp, "records-" + cache)})
    return env


def checks(tmp, hub):
    env0 = base_env(tmp, "cache")
    env0["HF_ENDPOINT"] = hub.endpoint

    # ---- the 163-shard checkpoint
    folder = os.path.join(tmp, "repos", "big")
    tally, headers = big_repo(folder)
    hub.add(fake_hub.Repo("deepseek-ai/Fake-V3", COMMIT_BIG, folder))
    env = dict(env0, HF_TOKEN=TOKEN)
    rec = os.path.join(tmp, "rec1")
    rc, out, err, secs = run('records %s\nsheet "big"\nmodel deepseek-ai/Fake-V3\nweights\n'
                             'commit "from the hub"\n' % rec, env, tmp)
    check(rc == 0, "163 shards from the Hub: the cell ran (%s)" % (err.strip()[-300:] or "ok"))
    served = hub.bytes()
    log("163 shards: %d bytes served in %d requests, %.2f s" % (served, hub.requests(), secs))
    check(served < 3_000_000, "163 shards: under 3 MB served (%d bytes)" % served)
    ranges, cdn_auth, hub_auth = (list(hub.cdn_count.ranges), list(hub.cdn_count.auth_seen),
                                  list(hub.hub_count.auth_seen))
    # a shared machine can be busy: the best of up to three cold runs (each with
    # an empty cache, so each asks the Hub again)
    best = secs
    for n in range(2):
        if best < 2.0:
            break
        e = dict(env, HF_HUB_CACHE=os.path.join(tmp, "cache-time%d" % n))
        rc_t, _, _, t = run("model deepseek-ai/Fake-V3\nweights\n", e, tmp)
        if rc_t == 0:
            best = min(best, t)
    check(best < 2.0, "163 shards: under 2 s on loopback (best %.2f s, first %.2f s)"
          % (best, secs))
    # a link with latency: each CDN answer waits 20 ms; one file after another
    # would take 326 x 20 ms = 6.5 s, several at once far less (on loopback the
    # files are read one at a time unless VRAMSHEET_HUB_WORKERS says otherwise)
    hub.mode, hub.delay = "slow", 0.02
    rc_l, _, err_l, t = run("model deepseek-ai/Fake-V3\nweights\n",
                            dict(env, HF_HUB_CACHE=os.path.join(tmp, "cache-latency"),
                                 VRAMSHEET_HUB_WORKERS="8"), tmp)
    hub.mode, hub.delay = "ok", 0.0
    check(rc_l == 0 and t < 326 * 0.02 / 2,
          "20 ms a range: the shards are read side by side (%.2f s, one by one >= 6.5 s)" % t)
    longest = max((b - a + 1 for a, b in ranges), default=0)
    check(longest <= max(headers.values()),
          "no range longer than a header (%d <= %d)" % (longest, max(headers.values())))
    check(len(ranges) == 2 * 163, "two ranges per shard (8 bytes, then the header)")
    check(cdn_auth == [], "the token never reached the CDN (another origin)")
    check(all(a == "Bearer " + TOKEN for a in hub_auth) and hub_auth, "the token reached the Hub")
    want_bytes = sum(b for b, _ in tally.values())
    want_params = sum(p for _, p in tally.values())
    r = record(rec, "big") if rc == 0 else {}
    wf = r.get("weights_files") or {}
    check(wf.get("bytes") == want_bytes,
          "weights bytes = this file's tally (%s, %d)" % (wf.get("bytes"), want_bytes))
    check(wf.get("params") == want_params, "params = tally (%s, %d)" % (wf.get("params"),
                                                                         want_params))
    got_dt = {d["dtype"]: (d["bytes"], d["params"]) for d in wf.get("by_dtype", [])}
    check(got_dt == tally, "by_dtype = tally")
    check(r.get("card", {}).get("revision") == COMMIT_BIG, "the record keeps the commit")
    check((wf.get("hub") or {}).get("commit") == COMMIT_BIG, "weights_files.hub names the commit")
    files = {f["name"]: f for f in wf.get("files", [])}
    good = len(files) == 163 and all(
        f.get("partial") is True and f.get("header_bytes") == 8 + headers[n] and
        f.get("header_sha256") == header_sha(os.path.join(folder, n), 8 + headers[n])
        for n, f in files.items())
    check(good, "each file: partial, header_bytes = 8 + header length, header_sha256 = "
          "sha256 of those bytes on disk")
    # the same files on disk, read as local files
    rc2, out2, err2, _ = run('records %s\nsheet "local"\nmodel deepseek-ai/Fake-V3 '
                             'config=%s/config.json\nweights from=%s\ncommit "local"\n'
                             % (rec, folder, folder), dict(env0, HF_HUB_OFFLINE="1"), tmp)
    r2 = record(rec, "local") if rc2 == 0 else {}
    wf2 = r2.get("weights_files") or {}
    check(rc2 == 0 and wf2.get("bytes") == wf.get("bytes") and
          wf2.get("by_dtype") == wf.get("by_dtype") and wf2.get("params") == wf.get("params"),
          "`weights from=` on the files on disk gives the same bytes, params and dtypes")
    check(TOKEN not in out + err, "the token is not printed")
    leaked = subprocess.run(["grep", "-rl", TOKEN, rec, env["HF_HUB_CACHE"]],
                            capture_output=True, text=True).stdout
    check(leaked == "", "the token is in no record and no cache file")
    blobs = os.path.join(env["HF_HUB_CACHE"], "models--deepseek-ai--Fake-V3")
    check(open(os.path.join(blobs, "refs", "main")).read() == COMMIT_BIG, "refs/main = commit")
    snap = os.path.join(blobs, "snapshots", COMMIT_BIG)
    check(os.path.islink(os.path.join(snap, "config.json")) and
          open(os.path.join(snap, "config.json"), "rb").read() ==
          open(os.path.join(folder, "config.json"), "rb").read(),
          "config.json in the snapshot, linked to its blob, byte for byte")
    check(not os.path.exists(os.path.join(snap, "model-00001-of-000163.safetensors")),
          "no header is in the snapshot (it would pass for the file)")

    # offline: from the cache, nothing asked
    hub.reset_counts()
    rc, out, err, _ = run('records %s\nsheet "again"\nmodel deepseek-ai/Fake-V3\nweights\n'
                          'commit "offline"\n' % rec, dict(env, HF_HUB_OFFLINE="1"), tmp)
    r3 = record(rec, "again") if rc == 0 else {}
    check(rc == 0 and hub.requests() == 0, "offline: model and weights from the cache, "
          "nothing asked (%d requests; %s)" % (hub.requests(), err.strip()[-200:]))
    check((r3.get("weights_files") or {}).get("bytes") == want_bytes, "offline: the same bytes")

    # offline, empty cache: nothing asked, the download command named
    env_empty = base_env(tmp, "empty")
    env_empty.update(HF_ENDPOINT=hub.endpoint, HF_HUB_OFFLINE="1")
    rc, out, err, _ = run("model deepseek-ai/Fake-V3\n", env_empty, tmp)
    check(rc == 0 and hub.requests() == 0 and "huggingface-cli download" in out and
          "HF_HUB_OFFLINE" in out, "offline, empty cache: nothing asked, the command named")
    # `hub offline`, the session's own setting: nothing asked either
    env_sess = base_env(tmp, "session")
    env_sess.update(HF_ENDPOINT=hub.endpoint, HF_TOKEN=TOKEN)
    rc, out, err, _ = run("hub\nhub offline\nmodel deepseek-ai/Fake-V3\nhub online\nhub\n",
                          env_sess, tmp)
    check(rc == 0 and hub.requests() == 0 and "`hub offline` is set for this session" in out and
          "token: HF_TOKEN" in out and TOKEN not in out + err and
          out.count("asked for what the local cache lacks") == 3,
          "`hub offline`: nothing asked, the command named; `hub` names the token's source only")
    # without libcurl
    env_nocurl = base_env(tmp, "nocurl")
    env_nocurl.update(HF_ENDPOINT=hub.endpoint, VRAMSHEET_CURL_LIBRARY="/nonexistent/libcurl.so")
    rc, out, err, _ = run("model deepseek-ai/Fake-V3\n", env_nocurl, tmp)
    check(rc == 0 and hub.requests() == 0 and "libcurl" in out and
          "huggingface-cli download" in out, "without libcurl: says how to get the files")

    # ---- a gated repository
    gfolder = os.path.join(tmp, "repos", "gated")
    os.makedirs(gfolder)
    shutil.copy(os.path.join(SOURCE, "tests/model/configs/llama-3.1-8b.json"),
                os.path.join(gfolder, "config.json"))
    ghlen, gdata, gtally = write_safetensors(os.path.join(gfolder, "model.safetensors"), [
        ("model.embed_tokens.weight", "BF16", [128256, 4096]),
        ("model.norm.weight", "BF16", [4096])])
    hub.add(fake_hub.Repo("meta-llama/Gated-8B", COMMIT_GATED, gfolder, gated_token=TOKEN))
    envg = base_env(tmp, "gated")
    envg["HF_ENDPOINT"] = hub.endpoint
    rc, out, err, _ = run("model meta-llama/Gated-8B\n", envg, tmp)
    check(rc == 0 and "gated" in out and "huggingface-cli login" in out,
          "gated, no token: `model` says it is gated and how to log in")
    rc, out, err, _ = run("model meta-llama/Gated-8B revision=%s\nweights\n" % COMMIT_GATED,
                          envg, tmp)
    check(rc != 0 and "gated" in out + err and "login" in out + err,
          "gated, no token: `weights` fails saying how to log in")
    os.makedirs(envg["HF_HOME"], exist_ok=True)
    with open(os.path.join(envg["HF_HOME"], "token"), "w") as f:
        f.write(TOKEN + "\n")
    rc, out, err, _ = run("model meta-llama/Gated-8B\nweights\n", envg, tmp)
    check(rc == 0 and "{:,}".format(gdata) in out,
          "gated, the token file of HF_HOME: read (%s B)" % "{:,}".format(gdata))
    check(TOKEN not in out + err, "gated: the token is not printed")
    os.remove(os.path.join(envg["HF_HOME"], "token"))

    # large files gated behind an open API: the refusal comes on the 8-byte range
    hub.add(fake_hub.Repo("meta-llama/Gated-Files", COMMIT_GATED, gfolder, gated_token=TOKEN,
                          gate="lfs"))
    hub.reset_counts()
    rc, out, err, _ = run("model meta-llama/Gated-Files\nweights\n",
                          dict(envg, HF_HUB_CACHE=os.path.join(tmp, "c-gf")), tmp)
    gf_ranges = list(hub.cdn_count.ranges)
    check(rc != 0 and "gated" in out + err and "login" in out + err and
          "range" not in out + err and gf_ranges == [],
          "gated files, open API: the ranged request's 401 says gated, log in (%s)"
          % (out + err).strip()[-160:])

    # ---- wrong name, wrong revision
    rc, out, err, _ = run("model nobody/Nothing-Here\n", envg, tmp)
    check(rc == 0 and "no such repository" in out, "a wrong name: `model` says so")
    rc, out, err, _ = run("model deepseek-ai/Fake-V3 revision=v9.9\n",
                          dict(envg, HF_HUB_CACHE=os.path.join(tmp, "c-rev")), tmp)
    check(rc == 0 and "no revision v9.9" in out, "a wrong revision: `model` says so")

    # the same from a server that answers with statuses only (no X-Error-Code)
    hub.mode = "plain"
    rc, out, err, _ = run("model meta-llama/Gated-8B\nmodel nobody/Nothing-Here\n"
                          "model deepseek-ai/Fake-V3 revision=v9.9\n",
                          dict(envg, HF_HUB_CACHE=os.path.join(tmp, "c-plain")), tmp)
    hub.mode = "ok"
    check(rc == 0 and "or it is private or gated" in out and "huggingface-cli login" in out and
          "no revision v9.9" in out, "statuses only (401, 404): gated or private with how to "
          "log in; no such name or revision")

    # ---- GGUF: growing ranges until the tensor table is parsed
    gg_folder = os.path.join(tmp, "repos", "gguf")
    os.makedirs(gg_folder)
    vocab = ["tok%06d" % i for i in range(128256)]
    kvs = [gg.kv("general.architecture", 8, "llama"), gg.kv("llama.block_count", 4, 32),
           gg.kv("llama.context_length", 4, 131072), gg.kv("llama.embedding_length", 4, 4096),
           gg.kv("llama.attention.head_count", 4, 32),
           gg.kv("llama.attention.head_count_kv", 4, 8), gg.kv("general.file_type", 4, 15),
           gg.kv("tokenizer.ggml.tokens", 9, (8, vocab))]
    tensors = gg.llama_tensors()
    gpath = os.path.join(gg_folder, "Fake-8B-Q4_K_M.gguf")
    data_start, _ = gg.write_gguf(gpath, kvs, tensors)
    with open(os.path.join(gg_folder, "README.md"), "w") as f:
        f.write("a GGUF repository\n")
    hub.add(fake_hub.Repo("fake/Fake-8B-GGUF", COMMIT_GGUF, gg_folder))
    envq = base_env(tmp, "gguf")
    envq["HF_ENDPOINT"] = hub.endpoint
    hub.reset_counts()
    rec = os.path.join(tmp, "rec2")
    rc, out, err, _ = run('records %s\nsheet "q"\nmodel fake/Fake-8B-GGUF\nweights\ncommit "q"\n'
                          'sheet "ql"\nmodel fake/Fake-8B-GGUF\nweights from=%s\ncommit "l"\n'
                          % (rec, gpath), envq, tmp)
    served = hub.bytes()
    check(rc == 0, "GGUF from the Hub: the cell ran (%s)" % err.strip()[-300:])
    q = (record(rec, "q") if rc == 0 else {}).get("weights_files") or {}
    ql = (record(rec, "ql") if rc == 0 else {}).get("weights_files") or {}
    want = sum(gg.nbytes(t, s) for _, s, t in tensors)
    check(q.get("bytes") == want and ql.get("bytes") == want and
          q.get("by_dtype") == ql.get("by_dtype"),
          "GGUF: bytes = the tally (%s, %d) and = `weights from=`" % (q.get("bytes"), want))
    f0 = (q.get("files") or [{}])[0]
    check(f0.get("header_bytes") == data_start and
          f0.get("header_sha256") == header_sha(gpath, data_start),
          "GGUF: header_bytes = the data section's start (%d), its sha256" % data_start)
    log("GGUF: header %d bytes, %d served" % (data_start, served))
    check(served < 2 * data_start + 64 * 1024 + 20000,
          "GGUF: growing ranges read under twice the header (%d)" % served)

    hub.reset_counts()
    rc, out, err, _ = run("model fake/Fake-8B-GGUF\n", envq, tmp)
    check(rc == 0 and hub.requests() == 0 and "no config.json" in out,
          "GGUF, again: the cache's .no_exist mark says there is no config.json, nothing asked")

    # two GGUF files: which one is asked
    two = os.path.join(tmp, "repos", "two")
    os.makedirs(two)
    for q_ in ("Q4_K_M", "Q8_0"):
        gg.write_gguf(os.path.join(two, "Two-%s.gguf" % q_), kvs[:2], tensors[:3])
    os.makedirs(os.path.join(two, "Q2_K"))
    for i in range(2):  # a split set in a folder: split.no, split.count, split.tensors.count
        gg.write_gguf(os.path.join(two, "Q2_K", "Two-Q2_K-%05d-of-00002.gguf" % (i + 1)),
                      kvs[:2] + [gg.kv("split.no", 2, i), gg.kv("split.count", 2, 2),
                                 gg.kv("split.tensors.count", 5, 3)],
                      tensors[:2] if i == 0 else tensors[2:3])
    hub.add(fake_hub.Repo("fake/Two-GGUF", COMMIT_TWO, two))
    rc, out, err, _ = run("model fake/Two-GGUF\nweights\n", envq, tmp)
    check(rc != 0 and "Two-Q4_K_M.gguf" in out + err and "Two-Q8_0.gguf" in out + err and
          "file=" in out + err, "two GGUF files: both named, file= to choose")
    rec3 = os.path.join(tmp, "rec3")
    want8 = sum(gg.nbytes(t, s) for _, s, t in tensors[:3])
    rc, out, err, _ = run('records %s\nsheet "two"\nmodel fake/Two-GGUF\n'
                          'weights file=Two-Q8_0.gguf\ncommit "q8"\n' % rec3, envq, tmp)
    t8 = (record(rec3, "two") if rc == 0 else {}).get("weights_files") or {}
    check(rc == 0 and t8.get("bytes") == want8 and
          [f["name"] for f in t8.get("files", [])] == ["Two-Q8_0.gguf"],
          "file=Two-Q8_0.gguf: that file's headers, its bytes (%s, %d)" % (t8.get("bytes"), want8))
    rc, out, err, _ = run('records %s\nsheet "split"\nmodel fake/Two-GGUF\n'
                          'weights file=Q2_K/Two-Q2_K-00001-of-00002.gguf\ncommit "q2"\n' % rec3,
                          envq, tmp)
    t2 = (record(rec3, "split") if rc == 0 else {}).get("weights_files") or {}
    check(rc == 0 and t2.get("bytes") == want8 and len(t2.get("files", [])) == 2,
          "file= in a folder, the first of a split set: both shards' headers (%s)"
          % (err.strip()[-200:] if rc else t2.get("bytes")))
    hub.reset_counts()
    rc, out, err, _ = run("model fake/Two-GGUF\nweights file=Two-Q8_0.gguf\n"
                          "weights file=Two-Q4_K_M.gguf\n", dict(envq, HF_HUB_OFFLINE="1"), tmp)
    check(rc != 0 and hub.requests() == 0 and "{:,} B".format(want8) in out and
          "HF_HUB_OFFLINE" in out + err,
          "offline: file= read before comes from the cache, one never read is refused")

    # ---- a diffusers pipeline: model_index.json, then each component's headers
    pipe = os.path.join(tmp, "repos", "pipe")
    for d in ("unet", "vae", "text_encoder", "tokenizer", "scheduler"):
        os.makedirs(os.path.join(pipe, d))
    with open(os.path.join(pipe, "model_index.json"), "w") as f:
        json.dump({"_class_name": "StableDiffusionPipeline", "_diffusers_version": "0.30.0",
                   "unet": ["diffusers", "UNet2DConditionModel"],
                   "vae": ["diffusers", "AutoencoderKL"],
                   "text_encoder": ["transformers", "CLIPTextModel"],
                   "tokenizer": ["transformers", "CLIPTokenizer"],
                   "scheduler": ["diffusers", "PNDMScheduler"]}, f)
    with open(os.path.join(pipe, "tokenizer", "vocab.json"), "w") as f:
        f.write("{}")
    ptally = {}
    for name, dt in (("diffusion_pytorch_model.safetensors", "F32"),
                     ("diffusion_pytorch_model.fp16.safetensors", "BF16")):
        _, b, _ = write_safetensors(os.path.join(pipe, "unet", name), [
            ("down_blocks.%d.resnets.0.conv1.weight" % i, dt, [1280, 1280, 3, 3])
            for i in range(4)])
        ptally[name] = b
    _, vb, _ = write_safetensors(os.path.join(pipe, "vae", "diffusion_pytorch_model.safetensors"),
                                 [("decoder.conv_in.weight", "F32", [512, 4, 3, 3]),
                                  ("decoder.up_blocks.0.resnets.0.conv1.weight", "F32",
                                   [512, 512, 3, 3])])
    tb, wm = 0, {}
    for k in (1, 2):  # a sharded text encoder
        shard = "model-%05d-of-00002.safetensors" % k
        tn = "text_model.encoder.layers.%d.mlp.fc1.weight" % k
        _, b, _ = write_safetensors(os.path.join(pipe, "text_encoder", shard),
                                    [(tn, "F32", [3072, 768])])
        tb += b
        wm[tn] = shard
    with open(os.path.join(pipe, "text_encoder", "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": tb}, "weight_map": wm}, f)
    hub.add(fake_hub.Repo("fake/Pipe", "5" * 40, pipe))
    envp = base_env(tmp, "pipe")
    envp["HF_ENDPOINT"] = hub.endpoint
    rec4 = os.path.join(tmp, "rec4")
    rc, out, err, _ = run('records %s\nsheet "p"\nmodel fake/Pipe variant=fp16\ncommit "hub"\n'
                          'sheet "pl"\nmodel fake/Pipe pipeline=%s variant=fp16\ncommit "l"\n'
                          % (rec4, pipe), envp, tmp)
    pw = (record(rec4, "p") if rc == 0 else {}).get("weights_files") or {}
    pl = (record(rec4, "pl") if rc == 0 else {}).get("weights_files") or {}
    want = ptally["diffusion_pytorch_model.fp16.safetensors"] + vb + tb
    check(rc == 0 and pw.get("bytes") == want and pl.get("bytes") == want and
          pw.get("components") == pl.get("components"),
          "a pipeline from the Hub: its components' headers, bytes = tally (%s, %d) and = "
          "pipeline= on disk (%s)" % (pw.get("bytes"), want, err.strip()[-200:]))
    check(all(f.get("partial") and f.get("header_sha256") for f in pw.get("files", [])) and
          len(pw.get("files", [])) == 4, "a pipeline: each component file's header digest")
    hub.reset_counts()
    rc, out, err, _ = run("model fake/Pipe variant=fp16\n", dict(envp, HF_HUB_OFFLINE="1"), tmp)
    check(rc == 0 and hub.requests() == 0 and
          "unet {:,} B".format(ptally["diffusion_pytorch_model.fp16.safetensors"]) in out,
          "a pipeline, offline: from the cache, nothing asked (%s)" % (out + err)[:300])

    # ---- servers that misbehave
    envb = base_env(tmp, "bad1")
    envb["HF_ENDPOINT"] = hub.endpoint
    hub.mode = "ignore_range"
    hub.reset_counts()
    rc, out, err, _ = run("model meta-llama/Gated-8B\nweights\n", dict(envb, HF_TOKEN=TOKEN), tmp)
    shard = os.path.getsize(os.path.join(gfolder, "model.safetensors"))
    check(rc != 0 and "range" in out + err and "whole file" in out + err,
          "a server that ignores Range: refused (%s)" % (out + err).strip()[-200:])
    check(hub.cdn_count.bytes < min(shard // 4, 64 << 20),
          "... the transfer aborted: %d of the %d bytes sent" % (hub.cdn_count.bytes, shard))
    hub.mode = "slow"
    hub.delay = 0.6
    rc, out, err, _ = run("model meta-llama/Gated-8B\nweights\n",
                          dict(envb, HF_TOKEN=TOKEN, HF_HUB_CACHE=os.path.join(tmp, "c-slow")),
                          tmp)
    check(rc == 0 and "reading headers from the Hub" in err,
          "a slow server: read, with a progress line (%s)" % err.strip()[-200:])
    # an interrupt (SIGINT, as `vramsheet run` gets it) stops all the transfers
    hub.mode, hub.delay = "slow", 0.5
    e = dict(env0, HF_TOKEN=TOKEN, HF_HUB_CACHE=os.path.join(tmp, "c-int"),
             VRAMSHEET_HUB_WORKERS="8")
    with open(os.path.join(tmp, "int.vs"), "w") as f:
        f.write("model deepseek-ai/Fake-V3\nweights\n")
    proc = subprocess.Popen([VRAMSHEET, "run", os.path.join(tmp, "int.vs")], env=e, cwd=tmp,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    waited = time.monotonic() - t0
    manifest = os.path.join(e["HF_HUB_CACHE"], "models--deepseek-ai--Fake-V3", "vramsheet-headers",
                            COMMIT_BIG + ".json")
    check(proc.returncode != 0 and "interrupt" in (out + err).lower() and waited < 2.0 and
          not os.path.exists(manifest),
          "an interrupt stops the fetch within a transfer (%.2f s), the folder left incomplete"
          % waited)
    hub.mode = "stall"
    hub.delay = 4
    rc, out, err, secs = run("model meta-llama/Gated-8B\nweights\n",
                             dict(envb, HF_TOKEN=TOKEN, HF_HUB_DOWNLOAD_TIMEOUT="1",
                                  HF_HUB_CACHE=os.path.join(tmp, "c-stall")), tmp)
    check(rc != 0 and secs < 4 and "cannot read" in out + err,
          "a stalled server: a timeout after HF_HUB_DOWNLOAD_TIMEOUT (%.1f s)" % secs)
    hub.mode = "broken"
    rc, out, err, _ = run("model meta-llama/Gated-8B\n",
                          dict(envb, HF_HUB_CACHE=os.path.join(tmp, "c-broken")), tmp)
    check(rc == 0 and "HTTP 500" in out, "a broken API: `model` says HTTP 500")
    hub.mode = "ok"

    log("%d failed" % len(FAILED) if FAILED else "all passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
