#!/usr/bin/env python3
"""GGUF files read by vramsheet and by Hugging Face's own parser, compared.

Writes GGUF files here with Python's struct (header and tensor table; the data a
sparse hole): Llama-3-8B at Q4_K_M with its tensor types chosen by llama.cpp's
rules (src/llama-quant.cpp: use_more_bits), a three-file split set, a Gemma-3
style file with per-layer KV heads and a sliding-window pattern, and a
DeepSeek-V3 style file with MLA keys and 3-D expert tensors at MXFP4. Then:
- vramsheet's reader (tests/model/gguf_dump.c) and @huggingface/gguf (npm,
  installed into VS_BUILD_DIR/gguf_js by `npm ci` of tests/model/gguf_js) must
  agree tensor by tensor (name, ggml type, shape, offset) and on the metadata;
- each tensor's bytes must be this file's arithmetic (ggml-common.h's blocks);
- only the header is read.

Exit status: 0 passed, 77 skipped (node or npm missing, or npm cannot install
the package: no network), 1 failed.
Environment: VS_BUILD_DIR (the build tree), VS_SOURCE_DIR (the sources).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("VS_BUILD_DIR", os.getcwd())
NETWORK_ERRORS = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|"
                            r"network|getaddrinfo|socket hang up|ECONNRESET", re.I)

# (elements per block, bytes per block) by ggml type id: ggml/src/ggml-common.h
BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 8: (32, 34), 12: (256, 144), 13: (256, 176),
          14: (256, 210), 30: (1, 2), 39: (32, 17)}
F32, F16, Q8_0, Q4_K, Q6_K, MXFP4 = 0, 1, 8, 12, 14, 39


def log(*a):
    print("gguf_independent:", *a, flush=True)


def skip(why):
    log("SKIPPED:", why)
    sys.exit(77)


def fail(why):
    log("FAILED:", why)
    sys.exit(1)


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    """One metadata entry; vtype as docs/gguf.md numbers them."""
    out = s(key) + struct.pack("<I", vtype)
    return out + val(vtype, value)


def val(vtype, value):
    fmt = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
           11: "<q", 12: "<d"}
    if vtype in fmt:
        return struct.pack(fmt[vtype], value)
    if vtype == 8:
        return s(value)
    etype, items = value  # array
    return struct.pack("<IQ", etype, len(items)) + b"".join(val(etype, i) for i in items)


def nbytes(ttype, shape):
    n = 1
    for d in shape:
        n *= d
    blk, size = BLOCKS[ttype]
    assert n % blk == 0
    return n // blk * size


def write_gguf(path, kvs, tensors, align=32):
    """tensors: [(name, shape (ggml order), type)]. Returns the data length."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for k in kvs:
        out += k
    off = 0
    for name, shape, ttype in tensors:
        out += s(name) + struct.pack("<I", len(shape))
        out += b"".join(struct.pack("<Q", d) for d in shape)
        out += struct.pack("<IQ", ttype, off)
        off += (nbytes(ttype, shape) + align - 1) // align * align
    out += b"\0" * ((-len(out)) % align)
    with open(path, "wb") as f:
        f.write(out)
        f.truncate(len(out) + off)
    return len(out), off


def use_more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def llama_tensors():
    L, H, KV, FF, V = 32, 4096, 1024, 14336, 128256
    t = [("token_embd.weight", [H, V], Q4_K)]
    for i in range(L):
        more = use_more_bits(i, L)
        t += [(f"blk.{i}.attn_norm.weight", [H], F32),
              (f"blk.{i}.attn_q.weight", [H, H], Q4_K),
              (f"blk.{i}.attn_k.weight", [H, KV], Q4_K),
              (f"blk.{i}.attn_v.weight", [H, KV], Q6_K if more else Q4_K),
              (f"blk.{i}.attn_output.weight", [H, H], Q4_K),
              (f"blk.{i}.ffn_norm.weight", [H], F32),
              (f"blk.{i}.ffn_gate.weight", [H, FF], Q4_K),
              (f"blk.{i}.ffn_up.weight", [H, FF], Q4_K),
              (f"blk.{i}.ffn_down.weight", [FF, H], Q6_K if more else Q4_K)]
    t += [("output_norm.weight", [H], F32), ("output.weight", [H, V], Q6_K)]
    return t


def node_modules():
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        skip("node/npm are not installed, so @huggingface/gguf cannot be installed")
    folder = os.path.join(BUILD, "gguf_js")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(HERE, "gguf_js", "package-lock.json"), "rb") as f:
        lock = f.read()
    mod = os.path.join(folder, "node_modules", "@huggingface", "gguf", "package.json")
    stamp = os.path.join(folder, "node_modules", ".vramsheet-lock")
    try:
        with open(stamp, "rb") as f:
            if f.read() == lock and os.path.exists(mod):
                return node, folder
    except OSError:
        pass
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(os.path.join(HERE, "gguf_js", name), os.path.join(folder, name))
    log("npm ci (@huggingface/gguf) in", folder)
    try:
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        skip("npm ci did not finish in 120 s (no network?)")
    if r.returncode != 0:
        if NETWORK_ERRORS.search(r.stdout):
            skip("npm cannot install @huggingface/gguf (no network?):\n" + r.stdout[-1500:])
        fail("npm ci failed:\n" + r.stdout[-1500:])
    if not os.path.exists(mod):
        fail("npm ci left no " + mod)
    with open(stamp, "wb") as f:
        f.write(lock)
    return node, folder


def main():
    dump = os.path.join(BUILD, "gguf_dump")
    if not os.path.exists(dump):
        fail("no %s: build the gguf_dump target" % dump)
    node, modules = node_modules()
    tmp = tempfile.mkdtemp(prefix="vs-gguf-ind-")
    try:
        files = {}  # path -> (tensors, header length, metadata checks)
        base = [kv("general.name", 8, "test"), kv("general.flag", 7, True),
                kv("general.f", 6, 0.5), kv("tokenizer.ggml.tokens", 9, (8, ["<s>", "a", "b"]))]

        p = os.path.join(tmp, "llama-q4_k_m.gguf")
        t = llama_tensors()
        hl, _ = write_gguf(p, [kv("general.architecture", 8, "llama"),
                               kv("llama.block_count", 4, 32),
                               kv("llama.context_length", 4, 8192),
                               kv("llama.embedding_length", 4, 4096),
                               kv("llama.attention.head_count", 4, 32),
                               kv("llama.attention.head_count_kv", 4, 8),
                               kv("general.file_type", 4, 15)] + base, t)
        files[p] = (t, hl, {"block_count": 32, "head_count_kv": 8, "file_type": 15})

        small = [(f"blk.{i}.ffn_up.weight", [256, 64], Q8_0) for i in range(9)]
        for k in range(3):
            p = os.path.join(tmp, "tiny-%05d-of-00003.gguf" % (k + 1))
            part = small[3 * k:3 * k + 3]
            hl, _ = write_gguf(p, [kv("general.architecture", 8, "llama"),
                                   kv("split.no", 2, k), kv("split.count", 2, 3),
                                   kv("split.tensors.count", 5, 9)], part)
            files[p] = (part, hl, {"split_no": k, "split_count": 3})

        p = os.path.join(tmp, "gemma3-swa.gguf")
        t = [("token_embd.weight", [256, 1000], Q8_0), ("blk.0.attn_q.weight", [256, 256], F16)]
        hl, _ = write_gguf(p, [kv("general.architecture", 8, "gemma3"),
                               kv("gemma3.block_count", 4, 6),
                               kv("gemma3.attention.head_count", 4, 8),
                               kv("gemma3.attention.head_count_kv", 9, (4, [4, 4, 4, 4, 4, 0])),
                               kv("gemma3.attention.sliding_window", 4, 1024),
                               kv("gemma3.attention.sliding_window_pattern", 9,
                                  (7, [True] * 5 + [False])),
                               kv("gemma3.attention.key_length", 4, 256),
                               kv("gemma3.attention.value_length", 4, 256)] + base, t)
        files[p] = (t, hl, {"sliding_window": 1024, "key_length": 256,
                            "head_count_kv_per_layer": [4, 4, 4, 4, 4, 0],
                            "sliding_window_per_layer": [1, 1, 1, 1, 1, 0]})

        p = os.path.join(tmp, "deepseek-mla.gguf")
        t = [("token_embd.weight", [7168, 129280], Q8_0),
             ("blk.3.attn_kv_a_mqa.weight", [7168, 576], Q8_0),
             ("blk.3.ffn_gate_exps.weight", [7168, 2048, 256], MXFP4),
             ("blk.3.ffn_down_exps.weight", [2048, 7168, 256], MXFP4),
             ("blk.3.attn_norm.weight", [7168], F32)]
        hl, _ = write_gguf(p, [kv("general.architecture", 8, "deepseek2"),
                               kv("deepseek2.block_count", 4, 61),
                               kv("deepseek2.attention.head_count", 4, 128),
                               kv("deepseek2.attention.head_count_kv", 4, 128),
                               kv("deepseek2.attention.kv_lora_rank", 4, 512),
                               kv("deepseek2.attention.q_lora_rank", 4, 1536),
                               kv("deepseek2.rope.dimension_count", 4, 64),
                               kv("deepseek2.expert_count", 4, 256),
                               kv("deepseek2.expert_used_count", 4, 8),
                               kv("deepseek2.context_length", 4, 163840)] + base, t)
        files[p] = (t, hl, {"kv_lora_rank": 512, "q_lora_rank": 1536,
                            "rope_dimension_count": 64, "expert_count": 256,
                            "expert_used_count": 8, "context_length": 163840})

        paths = list(files)
        r = subprocess.run([dump] + paths, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        if r.returncode != 0:
            fail("gguf_dump: " + r.stderr)
        ours = json.loads(r.stdout)
        r = subprocess.run([node, os.path.join(HERE, "gguf_js", "read.cjs"), modules] + paths,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        if r.returncode != 0:
            fail("@huggingface/gguf: " + r.stderr[-2000:])
        theirs = json.loads(r.stdout)

        compared = 0
        for p, (tensors, hl, checks) in files.items():
            o, h = ours[p], theirs[p]
            name = os.path.basename(p)
            if len(o["tensors"]) != len(h["tensors"]) or len(o["tensors"]) != len(tensors):
                fail("%s: %d tensors here, %d for @huggingface/gguf, %d written" % (
                    name, len(o["tensors"]), len(h["tensors"]), len(tensors)))
            total = 0
            for ot, ht, (tn, shape, ttype) in zip(o["tensors"], h["tensors"], tensors):
                if (ot["name"], ot["type"], ot["shape"], ot["offset"]) != (
                        ht["name"], ht["dtype"], [int(x) for x in ht["shape"]], int(ht["offset"])):
                    fail("%s: tensor %s differs: ours %s, @huggingface/gguf %s" % (name, tn, ot, ht))
                if ot["bytes"] != nbytes(ttype, shape):
                    fail("%s: %s is %d bytes here, %d by ggml-common.h" % (
                        name, tn, ot["bytes"], nbytes(ttype, shape)))
                total += nbytes(ttype, shape)
                compared += 1
            if o["data_bytes"] != total:
                fail("%s: %d data bytes, %d by hand" % (name, o["data_bytes"], total))
            if o["data_start"] != int(h["tensorDataOffset"]) or o["data_start"] != hl:
                fail("%s: data starts at %d here, %s for @huggingface/gguf, %d written" % (
                    name, o["data_start"], h["tensorDataOffset"], hl))
            if o["bytes_read"] > hl + 65536:
                fail("%s: %d bytes read for a %d-byte header" % (name, o["bytes_read"], hl))
            arch = h["metadata"].get("general.architecture")
            for k, want in checks.items():
                got = o.get(k, o["arch"].get(k))
                if got != want:
                    fail("%s: %s is %r, written %r" % (name, k, got, want))
                # and the same value through Hugging Face's reader
                hk = {"file_type": "general.file_type", "split_no": "split.no",
                      "split_count": "split.count"}.get(k)
                hv = h["metadata"].get(hk) if hk else None
                if hk is None:
                    key = {"head_count_kv_per_layer": "attention.head_count_kv",
                           "sliding_window_per_layer": "attention.sliding_window_pattern",
                           "kv_lora_rank": "attention.kv_lora_rank",
                           "q_lora_rank": "attention.q_lora_rank",
                           "rope_dimension_count": "rope.dimension_count",
                           "sliding_window": "attention.sliding_window",
                           "key_length": "attention.key_length",
                           "head_count_kv": "attention.head_count_kv"}.get(k, k)
                    hv = h["metadata"].get("%s.%s" % (arch, key))
                if isinstance(hv, list):
                    hv = [int(x) for x in hv]
                elif isinstance(hv, str) and hv.isdigit():
                    hv = int(hv)
                if hv != want:
                    fail("%s: @huggingface/gguf reads %s as %r, written %r" % (name, k, hv, want))
            log("%s: %d tensors, %d bytes, agree" % (name, len(tensors), total))
        log("passed: %d tensors compared in %d files" % (compared, len(files)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
