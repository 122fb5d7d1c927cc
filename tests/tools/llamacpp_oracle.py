#!/usr/bin/env python3
"""llamacpp_oracle.py -- a real llama.cpp's own figures, for test_llamacpp_oracle.

Run by hand when llama.cpp moves, never by CI:

    tests/tools/llamacpp_oracle.py --bin BUILD/bin/llama-fit-params \
        --src LLAMA_CPP_SOURCE_TREE --out tests/data/llamacpp/fit_params.tsv

For each public model of tests/model/configs (the checkpoints' own config.json)
it writes a GGUF header at the model's real shapes -- the metadata llama.cpp's
loader reads and the tensors it requires, named and shaped as
src/models/<arch>.cpp creates them, F16 matrices and F32 norms, the data a hole
of a sparse file (docs/gguf.md of ggml-org/ggml: "GGUF", version 3, the
metadata, the tensor table, the data aligned to 32) -- and runs
`llama-fit-params -v -fitp on` over combinations of -c, -np, -fa, -ctk/-ctv,
-ub and --swa-full (llama-fit-params takes no --kv-unified). llama-fit-params loads the model and creates
the context without allocating (no_alloc), so no weight is read: it prints each
KV cache ("llama_kv_cache: size = ... MiB (N cells, L layers, s/S seqs)"), the
compute buffers it reserved, and the model buffers.

The output, one line per case, tab-separated:
  config  engine-keys  fit-params-args  kv_mib  caches  compute_mib  model_mib
kv_mib is the sum of the caches' printed sizes (two decimals, as llama.cpp prints
them), caches each cache's cells and layers, compute_mib the CPU compute buffer.
The header says which llama.cpp (the commit of the source tree) produced them.
Standard library only.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

F32, F16 = 0, 1


# ---- a GGUF header written by hand ----

def _str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _kv(key, value):
    if isinstance(value, bool):
        return _str(key) + struct.pack("<IB", 7, int(value))
    if isinstance(value, int):
        return _str(key) + struct.pack("<II", 4, value)
    if isinstance(value, float):
        return _str(key) + struct.pack("<If", 6, value)
    if isinstance(value, str):
        return _str(key) + struct.pack("<I", 8) + _str(value)
    if isinstance(value, list):  # bools (a per-layer pattern) or u32
        if all(isinstance(v, bool) for v in value):
            return _str(key) + struct.pack("<IIQ", 9, 7, len(value)) + bytes(int(v) for v in value)
        return (_str(key) + struct.pack("<IIQ", 9, 4, len(value))
                + b"".join(struct.pack("<I", v) for v in value))
    raise TypeError(key)


def write_gguf(path, arch, meta, tensors):
    """tensors: [(name, [ne0, ne1, ...], type)]; the data is a hole."""
    kvs = [("general.architecture", arch)] + list(meta.items())
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    out += b"".join(_kv(k, v) for k, v in kvs)
    off = 0
    for name, ne, t in tensors:
        n = 1
        for d in ne:
            n *= d
        out += _str(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        out += struct.pack("<IQ", t, off)
        off += (n * (4 if t == F32 else 2) + 31) // 32 * 32
    out += b"\0" * ((32 - len(out) % 32) % 32)
    with open(path, "wb") as f:
        f.write(out)
        f.truncate(len(out) + off)


# ---- the tensors llama.cpp's loader requires, per architecture ----

def attn(i, E, q, k, v, o_in=None, bias=False):
    t = [(f"blk.{i}.attn_norm.weight", [E], F32),
         (f"blk.{i}.attn_q.weight", [E, q], F16),
         (f"blk.{i}.attn_k.weight", [E, k], F16),
         (f"blk.{i}.attn_v.weight", [E, v], F16),
         (f"blk.{i}.attn_output.weight", [o_in or q, E], F16)]
    if bias:
        t += [(f"blk.{i}.attn_q.bias", [q], F32), (f"blk.{i}.attn_k.bias", [k], F32),
              (f"blk.{i}.attn_v.bias", [v], F32)]
    return t


def mlp(i, E, F):
    return [(f"blk.{i}.ffn_norm.weight", [E], F32), (f"blk.{i}.ffn_gate.weight", [E, F], F16),
            (f"blk.{i}.ffn_up.weight", [E, F], F16), (f"blk.{i}.ffn_down.weight", [F, E], F16)]


def head(E, V, tied):
    t = [("token_embd.weight", [E, V], F16), ("output_norm.weight", [E], F32)]
    if not tied:
        t.append(("output.weight", [E, V], F16))
    return t


def cfg_get(c, *keys, default=None):
    for k in keys:
        if k in c and c[k] is not None:
            return c[k]
    return default


def base_meta(a, c, L, E, H, KV, F, ctx, V):
    return {f"{a}.context_length": ctx, f"{a}.embedding_length": E, f"{a}.block_count": L,
            f"{a}.feed_forward_length": F, f"{a}.attention.head_count": H,
            f"{a}.attention.head_count_kv": KV, f"{a}.attention.layer_norm_rms_epsilon": 1e-5,
            f"{a}.vocab_size": V, "tokenizer.ggml.model": "none"}


def build(c):
    """(arch, meta, tensors) for a config.json (dict)."""
    mt = c.get("model_type")
    if mt == "gemma3" and "text_config" in c:
        # transformers' Gemma3TextConfig defaults, which a text_config relies on
        c = dict({"vocab_size": 262208, "max_position_embeddings": 131072}, **c["text_config"])
        c["model_type"] = "gemma3_text"
        mt = "gemma3_text"
    L = c.get("num_hidden_layers")
    E = c.get("hidden_size")
    H = c.get("num_attention_heads")
    KV = cfg_get(c, "num_key_value_heads", default=H)
    V = c.get("vocab_size")
    F = c.get("intermediate_size")
    D = cfg_get(c, "head_dim", default=E // H if H else 0)
    ctx = cfg_get(c, "max_position_embeddings", default=4096)
    tied = bool(c.get("tie_word_embeddings", False))
    t = []
    if mt in ("llama", "mistral", "mixtral"):
        a = "llama"
        meta = base_meta(a, c, L, E, H, KV, F, ctx, V)
        meta[f"{a}.rope.dimension_count"] = D
        experts = c.get("num_local_experts", 0)
        if experts:
            meta[f"{a}.expert_count"] = experts
            meta[f"{a}.expert_used_count"] = c["num_experts_per_tok"]
        t = head(E, V, tied)
        for i in range(L):
            t += attn(i, E, H * D, KV * D, KV * D)
            if experts:
                t += [(f"blk.{i}.ffn_norm.weight", [E], F32),
                      (f"blk.{i}.ffn_gate_inp.weight", [E, experts], F32),
                      (f"blk.{i}.ffn_gate_exps.weight", [E, F, experts], F16),
                      (f"blk.{i}.ffn_down_exps.weight", [F, E, experts], F16),
                      (f"blk.{i}.ffn_up_exps.weight", [E, F, experts], F16)]
            else:
                t += mlp(i, E, F)
        return a, meta, t
    if mt in ("qwen2", "qwen3", "qwen3_moe", "olmo2"):
        a = {"qwen2": "qwen2", "qwen3": "qwen3", "qwen3_moe": "qwen3moe", "olmo2": "olmo2"}[mt]
        meta = base_meta(a, c, L, E, H, KV, F, ctx, V)
        if mt != "qwen2":
            meta[f"{a}.attention.key_length"] = D
            meta[f"{a}.attention.value_length"] = D
        experts = c.get("num_experts", 0) if mt == "qwen3_moe" else 0
        if experts:
            meta[f"{a}.expert_count"] = experts
            meta[f"{a}.expert_used_count"] = c["num_experts_per_tok"]
            meta[f"{a}.expert_feed_forward_length"] = c["moe_intermediate_size"]
        t = head(E, V, tied and mt != "olmo2")
        for i in range(L):
            t += attn(i, E, H * D, KV * D, KV * D, bias=(mt == "qwen2"))
            if mt in ("qwen3", "qwen3_moe"):
                t += [(f"blk.{i}.attn_k_norm.weight", [D], F32),
                      (f"blk.{i}.attn_q_norm.weight", [D], F32)]
            if mt == "olmo2":
                t = t[:-5] + [x for x in t[-5:] if "attn_norm" not in x[0]]
                t += [(f"blk.{i}.attn_q_norm.weight", [E], F32),
                      (f"blk.{i}.attn_k_norm.weight", [KV * D], F32),
                      (f"blk.{i}.post_attention_norm.weight", [E], F32),
                      (f"blk.{i}.ffn_gate.weight", [E, F], F16),
                      (f"blk.{i}.ffn_up.weight", [E, F], F16),
                      (f"blk.{i}.ffn_down.weight", [F, E], F16),
                      (f"blk.{i}.post_ffw_norm.weight", [E], F32)]
            elif experts:
                Fe = c["moe_intermediate_size"]
                t += [(f"blk.{i}.ffn_norm.weight", [E], F32),
                      (f"blk.{i}.ffn_gate_inp.weight", [E, experts], F32),
                      (f"blk.{i}.ffn_gate_exps.weight", [E, Fe, experts], F16),
                      (f"blk.{i}.ffn_down_exps.weight", [Fe, E, experts], F16),
                      (f"blk.{i}.ffn_up_exps.weight", [E, Fe, experts], F16)]
            else:
                t += mlp(i, E, F)
        return a, meta, t
    if mt in ("gemma2", "gemma3_text"):
        a = "gemma2" if mt == "gemma2" else "gemma3"
        meta = base_meta(a, c, L, E, H, KV, F, ctx, V)
        meta[f"{a}.attention.key_length"] = D
        meta[f"{a}.attention.value_length"] = D
        meta[f"{a}.attention.sliding_window"] = c["sliding_window"]
        t = head(E, V, True)
        for i in range(L):
            t += attn(i, E, H * D, KV * D, KV * D)
            t += [(f"blk.{i}.post_attention_norm.weight", [E], F32)]
            if a == "gemma3":
                t += [(f"blk.{i}.attn_k_norm.weight", [D], F32),
                      (f"blk.{i}.attn_q_norm.weight", [D], F32)]
            t += mlp(i, E, F) + [(f"blk.{i}.post_ffw_norm.weight", [E], F32)]
        return a, meta, t
    if mt == "phi3":
        a = "phi3"
        meta = base_meta(a, c, L, E, H, KV, F, ctx, V)
        meta[f"{a}.rope.dimension_count"] = D
        meta[f"{a}.attention.sliding_window"] = c.get("sliding_window") or 0
        t = head(E, V, tied)
        for i in range(L):
            t += [(f"blk.{i}.attn_norm.weight", [E], F32),
                  (f"blk.{i}.attn_qkv.weight", [E, E + 2 * KV * D], F16),
                  (f"blk.{i}.attn_output.weight", [E, E], F16),
                  (f"blk.{i}.ffn_norm.weight", [E], F32),
                  (f"blk.{i}.ffn_down.weight", [F, E], F16),
                  (f"blk.{i}.ffn_up.weight", [E, 2 * F], F16)]
        return a, meta, t
    if mt == "gpt_oss":
        a = "gpt-oss"
        X = c["num_local_experts"]
        Fe = c["intermediate_size"]
        meta = base_meta(a, c, L, E, H, KV, Fe, ctx, V)
        meta.update({f"{a}.attention.key_length": D, f"{a}.attention.value_length": D,
                     f"{a}.rope.dimension_count": D,
                     f"{a}.attention.sliding_window": c["sliding_window"],
                     f"{a}.expert_count": X, f"{a}.expert_used_count": c["num_experts_per_tok"],
                     f"{a}.expert_feed_forward_length": Fe})
        t = head(E, V, False)
        for i in range(L):
            t += attn(i, E, H * D, KV * D, KV * D, bias=True)
            t += [(f"blk.{i}.post_attention_norm.weight", [E], F32),
                  (f"blk.{i}.attn_sinks.weight", [H], F32),
                  (f"blk.{i}.attn_output.bias", [E], F32),
                  (f"blk.{i}.ffn_gate_inp.weight", [E, X], F32),
                  (f"blk.{i}.ffn_gate_inp.bias", [X], F32),
                  (f"blk.{i}.ffn_gate_exps.weight", [E, Fe, X], F16),
                  (f"blk.{i}.ffn_down_exps.weight", [Fe, E, X], F16),
                  (f"blk.{i}.ffn_up_exps.weight", [E, Fe, X], F16),
                  (f"blk.{i}.ffn_gate_exps.bias", [Fe, X], F32),
                  (f"blk.{i}.ffn_down_exps.bias", [E, X], F32),
                  (f"blk.{i}.ffn_up_exps.bias", [Fe, X], F32)]
        return a, meta, t
    if mt in ("deepseek_v2", "deepseek_v3"):
        a = "deepseek2"
        R = c["kv_lora_rank"]
        rope = c["qk_rope_head_dim"]
        nope = c["qk_nope_head_dim"]
        vd = c["v_head_dim"]
        ql = c.get("q_lora_rank") or 0
        X = c["n_routed_experts"]
        Fe = c["moe_intermediate_size"]
        S = c.get("n_shared_experts", 0)
        dense = c.get("first_k_dense_replace", 0)
        meta = base_meta(a, c, L, E, H, 1, F, ctx, V)
        meta.update({f"{a}.attention.key_length": R + rope, f"{a}.attention.value_length": R,
                     f"{a}.attention.key_length_mla": nope + rope,
                     f"{a}.attention.value_length_mla": vd,
                     f"{a}.attention.kv_lora_rank": R, f"{a}.rope.dimension_count": rope,
                     f"{a}.leading_dense_block_count": dense, f"{a}.expert_count": X,
                     f"{a}.expert_used_count": c["num_experts_per_tok"],
                     f"{a}.expert_shared_count": S, f"{a}.expert_feed_forward_length": Fe,
                     f"{a}.expert_weights_scale": float(c.get("routed_scaling_factor", 1.0))})
        if ql:
            meta[f"{a}.attention.q_lora_rank"] = ql
        t = head(E, V, tied)
        for i in range(L):
            t += [(f"blk.{i}.attn_norm.weight", [E], F32),
                  (f"blk.{i}.attn_kv_a_norm.weight", [R], F32)]
            if ql:
                t += [(f"blk.{i}.attn_q_a_norm.weight", [ql], F32),
                      (f"blk.{i}.attn_q_a.weight", [E, ql], F16),
                      (f"blk.{i}.attn_q_b.weight", [ql, H * (nope + rope)], F16)]
            else:
                t += [(f"blk.{i}.attn_q.weight", [E, H * (nope + rope)], F16)]
            t += [(f"blk.{i}.attn_kv_a_mqa.weight", [E, R + rope], F16),
                  (f"blk.{i}.attn_k_b.weight", [nope, R, H], F16),
                  (f"blk.{i}.attn_v_b.weight", [R, vd, H], F16),
                  (f"blk.{i}.attn_output.weight", [H * vd, E], F16)]
            if i < dense:
                t += mlp(i, E, F)
            else:
                t += [(f"blk.{i}.ffn_norm.weight", [E], F32),
                      (f"blk.{i}.ffn_gate_inp.weight", [E, X], F32),
                      (f"blk.{i}.ffn_down_exps.weight", [Fe, E, X], F16),
                      (f"blk.{i}.ffn_gate_exps.weight", [E, Fe, X], F16),
                      (f"blk.{i}.ffn_up_exps.weight", [E, Fe, X], F16),
                      (f"blk.{i}.ffn_gate_shexp.weight", [E, Fe * S], F16),
                      (f"blk.{i}.ffn_down_shexp.weight", [Fe * S, E], F16),
                      (f"blk.{i}.ffn_up_shexp.weight", [E, Fe * S], F16)]
        return a, meta, t
    if mt == "starcoder2":
        a = "starcoder2"
        meta = base_meta(a, c, L, E, H, KV, F, ctx, V)
        del meta[f"{a}.attention.layer_norm_rms_epsilon"]
        meta[f"{a}.attention.layer_norm_epsilon"] = 1e-5
        t = head(E, V, tied) + [("output_norm.bias", [E], F32)]
        for i in range(L):
            t += attn(i, E, E, KV * D, KV * D, bias=True)
            t += [(f"blk.{i}.attn_norm.bias", [E], F32), (f"blk.{i}.attn_output.bias", [E], F32),
                  (f"blk.{i}.ffn_norm.weight", [E], F32), (f"blk.{i}.ffn_norm.bias", [E], F32),
                  (f"blk.{i}.ffn_down.weight", [F, E], F16), (f"blk.{i}.ffn_up.weight", [E, F], F16),
                  (f"blk.{i}.ffn_down.bias", [E], F32), (f"blk.{i}.ffn_up.bias", [F], F32)]
        return a, meta, t
    if mt == "jamba":
        # src/models/jamba.cpp: Mamba-1 where head_count_kv(il) is 0, attention
        # elsewhere; experts where the router is present (expert_layer_period/offset)
        a = "jamba"
        Ap, Ao = c["attn_layer_period"], c["attn_layer_offset"]
        Xp, Xo = c["expert_layer_period"], c["expert_layer_offset"]
        X = c["num_experts"]
        Di = c["mamba_expand"] * E
        Ds, Dc, R = c["mamba_d_state"], c["mamba_d_conv"], c["mamba_dt_rank"]
        kvs = [KV if i % Ap == Ao else 0 for i in range(L)]
        meta = base_meta(a, c, L, E, H, kvs, F, ctx, V)
        meta.update({f"{a}.ssm.conv_kernel": Dc, f"{a}.ssm.inner_size": Di,
                     f"{a}.ssm.state_size": Ds, f"{a}.ssm.time_step_rank": R,
                     f"{a}.expert_count": X, f"{a}.expert_used_count": c["num_experts_per_tok"]})
        t = head(E, V, tied)
        for i in range(L):
            t += [(f"blk.{i}.attn_norm.weight", [E], F32)]
            if kvs[i] == 0:
                t += [(f"blk.{i}.ssm_in.weight", [E, 2 * Di], F16),
                      (f"blk.{i}.ssm_conv1d.weight", [Dc, Di], F32),
                      (f"blk.{i}.ssm_conv1d.bias", [Di], F32),
                      (f"blk.{i}.ssm_x.weight", [Di, R + 2 * Ds], F16),
                      (f"blk.{i}.ssm_dt_norm.weight", [R], F32),
                      (f"blk.{i}.ssm_dt.weight", [R, Di], F16),
                      (f"blk.{i}.ssm_dt.bias", [Di], F32),
                      (f"blk.{i}.ssm_b_norm.weight", [Ds], F32),
                      (f"blk.{i}.ssm_c_norm.weight", [Ds], F32),
                      (f"blk.{i}.ssm_a", [Ds, Di], F32),
                      (f"blk.{i}.ssm_d", [Di], F32),
                      (f"blk.{i}.ssm_out.weight", [Di, E], F16)]
            else:
                t += attn(i, E, E, KV * D, KV * D)[1:]  # its attn_norm is above
            t += [(f"blk.{i}.ffn_norm.weight", [E], F32)]
            if i % Xp == Xo:
                t += [(f"blk.{i}.ffn_gate_inp.weight", [E, X], F32),
                      (f"blk.{i}.ffn_gate_exps.weight", [E, F, X], F16),
                      (f"blk.{i}.ffn_down_exps.weight", [F, E, X], F16),
                      (f"blk.{i}.ffn_up_exps.weight", [E, F, X], F16)]
            else:
                t += [(f"blk.{i}.ffn_gate.weight", [E, F], F16),
                      (f"blk.{i}.ffn_up.weight", [E, F], F16),
                      (f"blk.{i}.ffn_down.weight", [F, E], F16)]
        return a, meta, t
    if mt == "nemotron_h":
        # src/models/nemotron-h.cpp: Mamba-2 where head_count_kv(il) and
        # feed_forward_length(il) are both 0 (M), attention where only the latter is
        # (*), squared-ReLU MLPs (-): both keys one value per layer
        a = "nemotron_h"
        pat = c["hybrid_override_pattern"]
        Nh, Hd, Ds, G, Dc = (c["mamba_num_heads"], c["mamba_head_dim"], c["ssm_state_size"],
                             c["n_groups"], c["conv_kernel"])
        Di = Nh * Hd
        kvs = [KV if x == "*" else 0 for x in pat]
        ffs = [F if x == "-" else 0 for x in pat]
        meta = base_meta(a, c, L, E, H, kvs, ffs, ctx, V)
        meta.update({f"{a}.attention.key_length": D, f"{a}.attention.value_length": D,
                     f"{a}.ssm.conv_kernel": Dc, f"{a}.ssm.inner_size": Di,
                     f"{a}.ssm.state_size": Ds, f"{a}.ssm.time_step_rank": Nh,
                     f"{a}.ssm.group_count": G, f"{a}.attention.layer_norm_epsilon": 1e-5})
        t = head(E, V, tied)
        for i, x in enumerate(pat):
            t += [(f"blk.{i}.attn_norm.weight", [E], F32)]
            if x == "M":
                t += [(f"blk.{i}.ssm_in.weight", [E, 2 * Di + 2 * G * Ds + Nh], F16),
                      (f"blk.{i}.ssm_conv1d.weight", [Dc, Di + 2 * G * Ds], F32),
                      (f"blk.{i}.ssm_conv1d.bias", [Di + 2 * G * Ds], F32),
                      (f"blk.{i}.ssm_dt.bias", [Nh], F32),
                      (f"blk.{i}.ssm_a", [1, Nh], F32),
                      (f"blk.{i}.ssm_d", [1, Nh], F32),
                      (f"blk.{i}.ssm_norm.weight", [Di // G, G], F32),
                      (f"blk.{i}.ssm_out.weight", [Di, E], F16)]
            elif x == "*":
                t += attn(i, E, H * D, KV * D, KV * D)[1:]
            else:
                t += [(f"blk.{i}.ffn_down.weight", [F, E], F16),
                      (f"blk.{i}.ffn_up.weight", [E, F], F16)]
        return a, meta, t
    if mt == "qwen3_next":
        # src/models/qwen3next.cpp: gated delta nets where (il + 1) %
        # full_attention_interval != 0, gated attention (q and its gate in attn_q) on
        # the others; 512 experts and a shared expert on every layer
        a = "qwen3next"
        Kh, Vh = c["linear_num_key_heads"], c["linear_num_value_heads"]
        Kd = c["linear_key_head_dim"]
        Dc = c["linear_conv_kernel_dim"]
        every = c.get("full_attention_interval", 4)
        X, Fe, Fs = c["num_experts"], c["moe_intermediate_size"], c["shared_expert_intermediate_size"]
        key_dim, value_dim = Kd * Kh, Kd * Vh
        meta = base_meta(a, c, L, E, H, KV, F, ctx, V)
        meta.update({f"{a}.attention.key_length": D, f"{a}.attention.value_length": D,
                     f"{a}.rope.dimension_count": int(D * c.get("partial_rotary_factor", 1.0)),
                     f"{a}.ssm.conv_kernel": Dc, f"{a}.ssm.state_size": Kd,
                     f"{a}.ssm.group_count": Kh, f"{a}.ssm.time_step_rank": Vh,
                     f"{a}.ssm.inner_size": value_dim, f"{a}.full_attention_interval": every,
                     f"{a}.expert_count": X, f"{a}.expert_used_count": c["num_experts_per_tok"],
                     f"{a}.expert_feed_forward_length": Fe,
                     f"{a}.expert_shared_feed_forward_length": Fs})
        t = head(E, V, tied)
        for i in range(L):
            t += [(f"blk.{i}.attn_norm.weight", [E], F32),
                  (f"blk.{i}.post_attention_norm.weight", [E], F32)]
            if (i + 1) % every == 0:
                t += [(f"blk.{i}.attn_q.weight", [E, 2 * H * D], F16),
                      (f"blk.{i}.attn_k.weight", [E, KV * D], F16),
                      (f"blk.{i}.attn_v.weight", [E, KV * D], F16),
                      (f"blk.{i}.attn_output.weight", [H * D, E], F16),
                      (f"blk.{i}.attn_q_norm.weight", [D], F32),
                      (f"blk.{i}.attn_k_norm.weight", [D], F32)]
            else:
                t += [(f"blk.{i}.attn_qkv.weight", [E, 2 * key_dim + value_dim], F16),
                      (f"blk.{i}.attn_gate.weight", [E, value_dim], F16),
                      (f"blk.{i}.ssm_conv1d.weight", [Dc, 2 * key_dim + value_dim], F32),
                      (f"blk.{i}.ssm_dt.bias", [Vh], F32),
                      (f"blk.{i}.ssm_a", [Vh], F32),
                      (f"blk.{i}.ssm_ba.weight", [E, 2 * Vh], F16),
                      (f"blk.{i}.ssm_norm.weight", [Kd], F32),
                      (f"blk.{i}.ssm_out.weight", [value_dim, E], F16)]
            t += [(f"blk.{i}.ffn_gate_inp.weight", [E, X], F32),
                  (f"blk.{i}.ffn_down_exps.weight", [Fe, E, X], F16),
                  (f"blk.{i}.ffn_gate_exps.weight", [E, Fe, X], F16),
                  (f"blk.{i}.ffn_up_exps.weight", [E, Fe, X], F16),
                  (f"blk.{i}.ffn_gate_inp_shexp.weight", [E], F32),
                  (f"blk.{i}.ffn_gate_shexp.weight", [E, Fs], F16),
                  (f"blk.{i}.ffn_up_shexp.weight", [E, Fs], F16),
                  (f"blk.{i}.ffn_down_shexp.weight", [Fs, E], F16)]
        return a, meta, t
    raise SystemExit(f"no GGUF builder for model_type {mt}")


# ---- the cases: public models x llama.cpp settings ----

def S(c, np_=1, fa="on", ctk="f16", ctv="f16", ub=512, swa_full=False, unified=False):
    return dict(c=c, np=np_, fa=fa, ctk=ctk, ctv=ctv, ub=ub, swa_full=swa_full, unified=unified)


CASES = [
    ("mistral-7b-v0.1.json", S(131072)),
    ("mistral-7b-v0.1.json", S(8192, np_=4)),
    ("mistral-7b-v0.1.json", S(32768, ctk="q8_0", ctv="q8_0")),
    ("phi-3-mini-4k-instruct.json", S(131072)),
    ("phi-3-mini-4k-instruct.json", S(4096, np_=2, fa="off")),
    ("phi-3-mini-4k-instruct.json", S(8192, ctk="q4_0", ctv="q4_0")),
    ("gemma-3-27b-it.json", S(8192, np_=4, ctk="q8_0", ctv="q8_0")),
    ("gemma-3-27b-it.json", S(32768)),
    ("gemma-3-27b-it.json", S(8192, np_=4, ctk="q4_0", ctv="q8_0")),
    ("gemma-3-27b-it.json", S(16384, swa_full=True)),
    ("gemma-3-27b-it.json", S(4096, ub=2048, fa="off")),
    ("gemma-3-1b-it.json", S(32768, np_=3)),
    ("gemma-3-1b-it.json", S(1024, np_=3)),
    ("gemma-2-9b.json", S(8192)),
    ("gemma-2-9b.json", S(16384, np_=2, ctk="q8_0", ctv="q8_0")),
    ("gemma-2-9b.json", S(2048, ub=256)),
    ("gpt-oss-20b.json", S(131072)),
    ("gpt-oss-20b.json", S(32768, np_=4)),
    ("gpt-oss-20b.json", S(65536, np_=2, ctk="q8_0", ctv="q8_0")),
    ("gpt-oss-20b.json", S(8192, swa_full=True)),
    ("llama-3.1-8b.json", S(131072)),
    ("llama-3.1-8b.json", S(10000, np_=3)),
    ("llama-3.1-8b.json", S(16384, ctk="q8_0", ctv="f16")),
    ("qwen2.5-7b.json", S(32768)),
    ("qwen2.5-7b.json", S(8192, np_=8, ub=1024)),
    ("qwen3-8b.json", S(40960)),
    ("qwen3-8b.json", S(4096, ctk="q4_0", ctv="q4_0")),
    ("qwen3-30b-a3b.json", S(32768)),
    ("mixtral-8x7b-v0.1.json", S(32768)),
    ("mixtral-8x7b-v0.1.json", S(4096, np_=2, fa="off")),
    ("deepseek-v2-lite.json", S(32768)),
    ("deepseek-v2-lite.json", S(8192, ctk="q8_0", ctv="q8_0")),
    ("olmo-2-1124-7b.json", S(4096)),
    ("starcoder2-7b.json", S(16384)),
    ("starcoder2-7b.json", S(4096, np_=2)),
]

# Recurrent and hybrid architectures (written to --hybrid-out): llama.cpp prints
# the attention cache ("llama_kv_cache: size") and the recurrent cells
# ("llama_memory_recurrent: size ... (N cells, L layers" with L every layer of the
# model, its rows only on the recurrent ones); kv_mib sums both
HYBRID_CASES = [
    ("jamba-v0.1.json", S(4096, np_=4)),
    ("jamba-v0.1.json", S(32768)),
    ("jamba-v0.1.json", S(16384, np_=2, ctk="q8_0", ctv="q8_0")),
    ("qwen3-next-80b-a3b-instruct.json", S(32768, np_=2)),
    ("qwen3-next-80b-a3b-instruct.json", S(262144)),
    ("qwen3-next-80b-a3b-instruct.json", S(8192, np_=8, fa="off")),
    ("nvidia-nemotron-nano-9b-v2.json", S(131072)),
    ("nvidia-nemotron-nano-9b-v2.json", S(16384, np_=4)),
    ("nvidia-nemotron-nano-9b-v2.json", S(32768, np_=2, ctk="q8_0", ctv="q8_0")),
]


def engine_keys(s):
    """The same settings as vramsheet's engine llamacpp keys."""
    k = [f"n_ctx={s['c']}", f"parallel={s['np']}", f"flash_attn={s['fa']}",
         f"cache_type_k={s['ctk']}", f"cache_type_v={s['ctv']}", f"ubatch={s['ub']}"]
    if s["swa_full"]:
        k.append("swa_full=yes")
    if s["unified"]:
        k.append("kv_unified=yes")
    return " ".join(k)


def fit_args(s):
    a = ["-c", str(s["c"]), "-np", str(s["np"]), "-fa", s["fa"], "-ctk", s["ctk"], "-ctv", s["ctv"],
         "-ub", str(s["ub"])]
    if s["swa_full"]:
        a.append("--swa-full")
    if s["unified"]:
        a.append("--kv-unified")
    return a


SIZE = re.compile(r"llama_kv_cache: size = *([0-9.]+) MiB \( *(\d+) cells, *(\d+) layers")
RS = re.compile(r"llama_memory_recurrent: size = *([0-9.]+) MiB \( *(\d+) cells, *(\d+) layers")
COMPUTE = re.compile(r"(\S+) compute buffer size = *([0-9.]+) MiB")


HOST = re.compile(r"^Host (\d+) (\d+) (\d+)", re.M)


def run_case(binary, path, s):
    """The caches' sizes, the CPU compute buffer and the model's MiB. The log's last
    lines can be lost at exit (its writer thread), so a run that lacks them is
    repeated."""
    cmd = [binary, "-m", path, "-v", "-fitp", "on", "-t", "1"] + fit_args(s)
    for _ in range(8):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        log = p.stdout + p.stderr
        caches = SIZE.findall(log) + [(m, c, f"{l}rs") for m, c, l in RS.findall(log)]
        compute = [float(x) for d, x in COMPUTE.findall(log) if d == "CPU"]
        host = HOST.search(p.stdout)
        if p.returncode == 0 and caches and compute and host:
            break
    else:
        sys.stderr.write(log[-3000:])
        raise SystemExit(f"llama-fit-params failed on {path} {s}")
    kv = sum(float(m) for m, _, _ in caches)
    return (f"{kv:.2f}", ",".join(f"{cells}x{layers}" for _, cells, layers in caches),
            f"{compute[-1]:.2f}", host.group(1), " ".join(cmd[1:]))


QUANT = re.compile(r"^\[ *\d+/ *\d+\] +(\S+) +- \[([ 0-9,]+)\], type = +(\w+),.*?(?:\((\w+)\))?$",
                   re.M)


def quantize_list(binary, cfg_path, ftype, out):
    """The tensors llama-quantize --dry-run chooses for ftype at a config's shapes:
    name, ne, type, one a line. Returns the total it prints (MiB)."""
    with open(cfg_path) as f:
        arch, meta, tensors = build(json.load(f))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "f16.gguf")
        write_gguf(path, arch, meta, tensors)
        p = subprocess.run([binary, "--dry-run", path, ftype], capture_output=True, text=True,
                           timeout=600)
    log = p.stdout + p.stderr
    rows = QUANT.findall(log)
    total = re.search(r"quant size += *([0-9.]+) MiB", log)
    if p.returncode != 0 or not rows or not total:
        sys.stderr.write(log[-3000:])
        raise SystemExit("llama-quantize --dry-run failed")
    with open(out, "w") as f:
        f.write(f"# llama-quantize --dry-run {ftype} at the shapes of {os.path.basename(cfg_path)}: "
                f"quant size = {total.group(1)} MiB; name, ne, type\n")
        for name, ne, src, dst in rows:
            dims = [d.strip() for d in ne.split(",") if d.strip() and d.strip() != "1"] or ["1"]
            f.write(f"{name}\t{','.join(dims)}\t{(dst or src).lower()}\n")
    return total.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="llama-fit-params")
    ap.add_argument("--src", required=True, help="the llama.cpp source tree it was built from")
    ap.add_argument("--configs", default=os.path.join(os.path.dirname(__file__), "..", "model",
                                                      "configs"))
    ap.add_argument("--out", help="the CASES' file")
    ap.add_argument("--hybrid-out", help="also run HYBRID_CASES into this file")
    ap.add_argument("--only", help="the cases of one config (a trial run)")
    ap.add_argument("--tree", default="", help="where the source tree came from, for the header")
    ap.add_argument("--commit", help="the tree's commit line when --src is not a git checkout")
    ap.add_argument("--quantize", help="llama-quantize: also write the tensor list of "
                    "tests/data/llamacpp/deepseek-r1-distill-qwen-32b.json at Q4_K_M")
    ap.add_argument("--tensors", nargs=3, metavar=("CONFIG", "FTYPE", "OUT"),
                    help="with --quantize: the tensor list of one config of --configs at FTYPE "
                    "(F16 keeps the header's types: F16 matrices, F32 norms) into OUT, and stop")
    args = ap.parse_args()
    if args.quantize and args.tensors:
        cfg, ftype, out = args.tensors
        print(quantize_list(args.quantize, os.path.join(args.configs, cfg), ftype, out))
        return
    if args.quantize:
        data = os.path.dirname(args.out)
        print(quantize_list(args.quantize, os.path.join(data, "deepseek-r1-distill-qwen-32b.json"),
                            "Q4_K_M", os.path.join(data, "deepseek-r1-distill-qwen-32b-q4_k_m.tensors")))
    commit = subprocess.run(["git", "-C", args.src, "log", "-1", "--format=%H %cs %s"],
                            capture_output=True, text=True).stdout.strip() or args.commit or "unknown"
    if args.out:
        write_cases(args, commit, CASES, args.out)
    if args.hybrid_out:
        write_cases(args, commit, HYBRID_CASES, args.hybrid_out)


def write_cases(args, commit, cases, out):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for cfg, s in cases:
            if args.only and cfg != args.only:
                continue
            if cfg not in files:
                with open(os.path.join(args.configs, cfg)) as f:
                    arch, meta, tensors = build(json.load(f))
                files[cfg] = os.path.join(tmp, cfg.replace(".json", ".gguf"))
                write_gguf(files[cfg], arch, meta, tensors)
            kv, caches, compute, model, cmd = run_case(args.bin, files[cfg], s)
            rows.append((cfg, engine_keys(s), " ".join(fit_args(s)), kv, caches, compute, model))
            print("\t".join(rows[-1]), flush=True)
    with open(out, "w") as f:
        f.write("# llama-fit-params -v -fitp on (CPU build, no weights read) at llama.cpp "
                f"commit {commit}{' (' + args.tree + ')' if args.tree else ''}\n")
        f.write("# written by tests/tools/llamacpp_oracle.py from tests/model/configs; "
                "columns: config, engine llamacpp keys, llama-fit-params arguments, KV MiB "
                "(sum of the caches' printed sizes), caches (cells x layers), CPU compute "
                "buffer MiB, the model's host MiB (the last line of -fitp on)\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main()
