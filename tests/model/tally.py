#!/usr/bin/env python3
"""An independent tally of each fixture's parameters: the tensor list of the
checkpoint written out again here, per family, from the Hugging Face modeling
files (transformers' modeling_<family>.py; DeepSeek's modeling_deepseek.py),
and summed. It does not share code with the C registry (src/model/families/);
tests/unit/test_families.c checks the C counts against the same published
totals. Run: tally.py CONFIG_DIR  (exit 1 on any mismatch)."""
import json
import os
import sys

# fixture -> (published total, published active or None, source)
PUBLISHED = {
    "llama-3.1-8b.json": (8030261248, None, "huggingface.co/meta-llama/Llama-3.1-8B, safetensors parameters"),
    # 28 x (2 x 3,072^2 + 2 x 3,072 x 1,024 + 3 x 3,072 x 8,192 + 2 x 3,072) + 128,256 x 3,072 (tied) + 3,072
    "llama-3.1-70b.json": (70553706496, None, "huggingface.co/meta-llama/Llama-3.1-70B-Instruct, safetensors parameters (model.safetensors.index.json total_size 141,107,412,992 B in bf16)"),
    "llama-3.2-3b.json": (3212749824, None, "huggingface.co/meta-llama/Llama-3.2-3B, safetensors parameters (3.21B), worked by hand"),
    "mistral-7b-v0.1.json": (7241732096, None, "huggingface.co/mistralai/Mistral-7B-v0.1, safetensors parameters"),
    "mixtral-8x7b-v0.1.json": (46702792704, 12879925248, "huggingface.co/mistralai/Mixtral-8x7B-v0.1, safetensors parameters"),
    "qwen2.5-7b.json": (7615616512, None, "huggingface.co/Qwen/Qwen2.5-7B, safetensors parameters"),
    "qwen1.5-moe-a2.7b.json": (14315784192, None, "huggingface.co/Qwen/Qwen1.5-MoE-A2.7B, safetensors parameters"),
    "qwen3-8b.json": (8190735360, None, "huggingface.co/Qwen/Qwen3-8B, safetensors parameters"),
    "qwen3-30b-a3b.json": (30532122624, 3353032704, "huggingface.co/Qwen/Qwen3-30B-A3B, safetensors parameters"),
    "gemma-7b.json": (8537680896, None, "huggingface.co/google/gemma-7b, safetensors parameters"),
    "gemma-2-9b.json": (9241705984, None, "huggingface.co/google/gemma-2-9b, safetensors parameters"),
    "gemma-3-1b-it.json": (999885952, None, "keras-hub gemma3_presets.py, gemma3_instruct_1b params"),
    "gemma-3-27b-it.json": (27432406640, None, "huggingface.co/google/gemma-3-27b-it, safetensors parameters"),
    "phi-3-mini-4k-instruct.json": (3821079552, None, "huggingface.co/microsoft/Phi-3-mini-4k-instruct, safetensors parameters"),
    "gpt2.json": (124439808, None, "huggingface.co/openai-community/gpt2 (124M; the count without the attn.bias mask buffers)"),
    "starcoderbase-1b.json": (1137207296, None, "huggingface.co/bigcode/starcoderbase-1b, safetensors parameters"),
    "pythia-160m.json": (162322944, None, "EleutherAI Pythia paper (Biderman et al. 2023), table 1: 162,322,944"),
    "falcon-7b.json": (6921720704, None, "huggingface.co/tiiuae/falcon-7b, safetensors parameters"),
    "bloom-560m.json": (559214592, None, "huggingface.co/bigscience/bloom-560m, safetensors parameters"),
    "deepseek-v2-lite.json": (15706484224, None, "huggingface.co/deepseek-ai/DeepSeek-V2-Lite, safetensors parameters"),
    "deepseek-v3.json": (671026419200, None, "DeepSeek-V3 README_WEIGHTS.md: main model 671B, MTP excluded"),
    "gpt-oss-20b.json": (20914757184, None, "ollama show gpt-oss:20b, general.parameter_count 20914757184 (OpenAI model card: 20.9B)"),
    "olmo-2-1124-7b.json": (7298617344, None, "huggingface.co/allenai/OLMo-2-1124-7B, safetensors parameters"),
    "starcoder2-7b.json": (7173923840, None, "huggingface.co/bigcode/starcoder2-7b, safetensors parameters"),
    "t5-base.json": (222903552, None, "huggingface.co/google-t5/t5-base, safetensors parameters"),
    "mt5-small.json": (300176768, None, "huggingface.co/google/mt5-small, safetensors parameters"),
    "bert-base-uncased.json": (110106428, None, "huggingface.co/google-bert/bert-base-uncased, safetensors parameters"),
    "llava-1.5-7b-hf.json": (7063427072, None, "huggingface.co/llava-hf/llava-1.5-7b-hf, safetensors parameters"),
    "llama-3.2-11b-vision.json": (10670220835, None, "huggingface.co/meta-llama/Llama-3.2-11B-Vision, safetensors parameters"),
}


def g(c, *keys, default=None):
    for k in keys:
        if c.get(k) is not None:
            return c[k]
    return default


def llama_like(c, qkv_bias=False, o_bias=False, qk_norm=0, norms=2, tied=False, mlp=None):
    """Embedding, final norm, head, and per layer q/k/v/o + norms + gated MLP.
    qk_norm: 0 none, 1 per head, 2 whole projection (OLMo 2)."""
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    n = c["num_attention_heads"]
    kv = g(c, "num_key_value_heads", default=n)
    d = g(c, "head_dim", default=h // n)
    tie = g(c, "tie_word_embeddings", default=tied)
    per = h * n * d * 2 + h * kv * d * 2 + norms * h
    if qkv_bias:
        per += n * d + 2 * kv * d
    if o_bias:
        per += h
    per += {0: 0, 1: 2 * d, 2: n * d + kv * d}[qk_norm]
    total = V * h * (1 if tie else 2) + h
    if mlp is None:
        per += 3 * h * c["intermediate_size"]
        return total + L * per, None
    mlp_total, mlp_active = mlp
    return total + L * per + mlp_total, total + L * per + mlp_active


def moe_mlp(c, n_exp, k, inter, shared=0, shared_gate=False, dense=None, bias_per_exp=0, router_bias=False):
    h, L = c["hidden_size"], c["num_hidden_layers"]
    dense = dense or set()
    tot = act = 0
    for l in range(L):
        if l in dense:
            x = 3 * h * c["intermediate_size"]
            tot += x
            act += x
            continue
        router = n_exp * h + (n_exp if router_bias else 0)
        e = 3 * h * inter + bias_per_exp
        s = 3 * h * shared + (h if shared_gate else 0)
        tot += router + n_exp * e + s
        act += router + k * e + s
    return tot, act


def tally(name, c):
    t = c.get("model_type")
    if t == "llama":
        return llama_like(c, c.get("attention_bias", False), c.get("attention_bias", False))
    if t == "mistral":
        return llama_like(c)
    if t == "qwen2":
        return llama_like(c, qkv_bias=True)
    if t == "qwen3":
        return llama_like(c, qk_norm=1)
    if t == "olmo2":
        return llama_like(c, qk_norm=2)
    if t == "mixtral":
        return llama_like(c, mlp=moe_mlp(c, c["num_local_experts"], c["num_experts_per_tok"], c["intermediate_size"]))
    if t == "qwen2_moe":
        return llama_like(c, qkv_bias=True, mlp=moe_mlp(c, c["num_experts"], c["num_experts_per_tok"], c["moe_intermediate_size"], c["shared_expert_intermediate_size"], True))
    if t == "qwen3_moe":
        return llama_like(c, qk_norm=1, mlp=moe_mlp(c, c["num_experts"], c["num_experts_per_tok"], c["moe_intermediate_size"]))
    if t == "gemma":
        return llama_like(c, tied=True)
    if t == "gemma2":
        return llama_like(c, tied=True, norms=4)
    if t == "gemma3_text":
        return llama_like(c, tied=True, norms=4, qk_norm=1)
    if t == "gemma3":
        tc = dict(vocab_size=262208, tie_word_embeddings=True)
        tc.update(c["text_config"])
        text, _ = llama_like(tc, tied=True, norms=4, qk_norm=1)
        v = c["vision_config"]
        D, I, P, S = v["hidden_size"], v["intermediate_size"], v["patch_size"], v["image_size"]
        tower = D * 3 * P * P + D + (S // P) ** 2 * D  # patch conv + bias, positions
        tower += v["num_hidden_layers"] * (4 * (D * D + D) + 2 * (D * I) + I + D + 4 * D) + 2 * D
        proj = D * tc["hidden_size"] + D
        return text + tower + proj, None
    if t == "phi3":
        h, n, L, V = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"], c["vocab_size"]
        kv, d, i = c["num_key_value_heads"], h // n, c["intermediate_size"]
        return 2 * V * h + h + L * ((n + 2 * kv) * d * h + h * n * d + 2 * i * h + h * i + 2 * h), None
    if t in ("gpt2", "gpt_bigcode"):
        h, L, V, P = c["n_embd"], c["n_layer"], c["vocab_size"], c["n_positions"]
        i = c.get("n_inner") or 4 * h
        qkv = 3 * h if t == "gpt2" or not c.get("multi_query", True) else h + 2 * (h // c["n_head"])
        return (V + P) * h + 2 * h + L * (4 * h + h * qkv + qkv + h * h + h + h * i + i + i * h + h), None
    if t == "gpt_neox":
        h, L, V, i = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"], c["intermediate_size"]
        return 2 * V * h + 2 * h + L * (4 * h + 3 * h * h + 3 * h + h * h + h + 2 * h * i + i + h), None
    if t == "falcon":
        h, n, L, V = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"], c["vocab_size"]
        d = h // n
        kv = 1 if c.get("multi_query", True) else n
        return V * h + 2 * h + L * ((n + 2 * kv) * d * h + h * h + 8 * h * h + 2 * h), None
    if t == "bloom":
        h, L, V = g(c, "hidden_size", "n_embed"), g(c, "n_layer", "num_hidden_layers"), c["vocab_size"]
        return V * h + 2 * h + 2 * h + L * (2 * h + 3 * h * h + 3 * h + h * h + h + 2 * h + 8 * h * h + 4 * h + h), None
    if t in ("deepseek_v2", "deepseek_v3"):
        h, n, L, V = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"], c["vocab_size"]
        qr, kr = c.get("q_lora_rank"), c["kv_lora_rank"]
        nope, rope, vd = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"]
        attn = (h * qr + qr + qr * n * (nope + rope)) if qr else h * n * (nope + rope)
        attn += h * (kr + rope) + kr + kr * n * (nope + vd) + n * vd * h + 2 * h
        E, k, mi, sh = c["n_routed_experts"], c["num_experts_per_tok"], c["moe_intermediate_size"], c["n_shared_experts"]
        corr = E if t == "deepseek_v3" else 0
        dense = set(range(c["first_k_dense_replace"]))
        mt, ma = moe_mlp(c, E, k, mi, mi * sh)
        # moe_mlp counted every layer as sparse: put the dense ones back
        nd = len(dense)
        per_sparse_t = E * h + E * 3 * h * mi + 3 * h * mi * sh
        per_sparse_a = E * h + k * 3 * h * mi + 3 * h * mi * sh
        mt += nd * (3 * h * c["intermediate_size"] - per_sparse_t) + (L - nd) * corr
        ma += nd * (3 * h * c["intermediate_size"] - per_sparse_a) + (L - nd) * corr
        base = 2 * V * h + h + L * attn
        return base + mt, base + ma
    if t == "gpt_oss":
        h, n, kv, d, L, V = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], c["num_hidden_layers"], c["vocab_size"]
        E, i, k = c["num_local_experts"], c["intermediate_size"], c["num_experts_per_tok"]
        attn = (h * n * d + n * d) + 2 * (h * kv * d + kv * d) + (n * d * h + h) + n + 2 * h
        exp = h * 2 * i + 2 * i + i * h + h
        return 2 * V * h + h + L * (attn + E * h + E + E * exp), 2 * V * h + h + L * (attn + E * h + E + k * exp)
    if t == "starcoder2":
        h, n, kv, L, V, i = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"], c["vocab_size"], c["intermediate_size"]
        d = h // n
        return V * h + 2 * h + L * (2 * h * n * d + 2 * h * kv * d + n * d + 2 * kv * d + h + 2 * h * i + i + h + 4 * h), None
    if t in ("t5", "mt5"):
        d, f, n, dk, V = c["d_model"], c["d_ff"], c["num_heads"], c["d_kv"], c["vocab_size"]
        Le, Ld = c["num_layers"], c.get("num_decoder_layers") or c["num_layers"]
        ff = (3 if str(c.get("feed_forward_proj", "relu")).startswith("gated") else 2) * d * f
        a = 4 * d * n * dk
        rel = c.get("relative_attention_num_buckets", 32) * n
        enc = Le * (a + ff + 2 * d) + rel + d
        dec = Ld * (2 * a + ff + 3 * d) + rel + d
        return V * d * (1 if c.get("tie_word_embeddings", True) else 2) + enc + dec, None
    if t == "bert":
        h, L, V, i = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"], c["intermediate_size"]
        emb = (V + c["max_position_embeddings"] + c["type_vocab_size"]) * h + 2 * h
        layer = 4 * (h * h + h) + 2 * h + h * i + i + i * h + h + 2 * h
        heads = V + h * h + h + 2 * h + 2 * h + 2
        return emb + L * layer + h * h + h + heads, None
    if t == "llava":
        tc = dict(vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32)
        tc.update(c["text_config"])
        text, _ = llama_like(tc)
        v = c["vision_config"]
        D, I, P, S = v["hidden_size"], v["intermediate_size"], v["patch_size"], v["image_size"]
        tower = D + D * 3 * P * P + ((S // P) ** 2 + 1) * D + 2 * D
        tower += v["num_hidden_layers"] * (4 * (D * D + D) + 2 * D * I + I + D + 4 * D) + 2 * D
        H = tc["hidden_size"]
        return text + tower + (H * D + H) + (H * H + H), None
    if t == "mllama":
        tc, v = c["text_config"], c["vision_config"]
        h, n, kv, L, V, i = tc["hidden_size"], tc["num_attention_heads"], tc["num_key_value_heads"], tc["num_hidden_layers"], tc["vocab_size"], tc["intermediate_size"]
        d = h // n
        cross = len(tc["cross_attention_layers"])
        common = 2 * h * n * d + 2 * h * kv * d + 3 * h * i + 2 * h
        text = (V + 8) * h + h + V * h + L * common + cross * (2 * d + 2)
        D, I, P, S, T = v["hidden_size"], v["intermediate_size"], v["patch_size"], v["image_size"], v["max_num_tiles"]
        np_ = (S // P) ** 2 + 1
        R = len(v["supported_aspect_ratios"]) + 1
        layer = 4 * D * D + 2 * D * I + I + D + 4 * D
        vis = D * 3 * P * P + D + np_ * D + 1 + R * T * np_ * D + 2 * (R * T * D + 1) + 4 * D
        vis += v["num_hidden_layers"] * layer + v["num_global_layers"] * (layer + 2)
        return text + vis + h * v["vision_output_dim"] + h, None
    raise SystemExit(f"{name}: no tally for model_type {t}")


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "configs")
    bad = 0
    # the 2026 families are checked against transformers itself instead (the
    # oracle's figures, tests/data/family_oracle.json; test_families.c)
    oracle_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "family_oracle.json")
    oracle = json.load(open(oracle_path))["models"] if os.path.exists(oracle_path) else {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        if name in oracle:
            print(f"skip {name}: transformers {oracle[name]['params']:,} (tests/data/family_oracle.json)")
            continue
        c = json.load(open(os.path.join(folder, name)))
        total, active = tally(name, c)
        if name not in PUBLISHED:
            print(f"{name}: {total} (no published total listed)")
            bad += 1
            continue
        pt, pa, src = PUBLISHED[name]
        ok = total == pt and (pa is None or active == pa)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: tally {total:,} active {active if active is None else format(active, ',')} published {pt:,} ({src})")
        bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
