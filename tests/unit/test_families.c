/* The family registry against published checkpoints: each config.json in
 * tests/model/configs/ is modelled on a real checkpoint's published config
 * (the source is named beside each row), and its parameter count must equal
 * the checkpoint's published total. tests/model/tally.py sums the same tensor
 * lists independently (written again in Python from the modeling files) and
 * checks the same totals; here the C registry must give them too, and its
 * concrete tensor list must sum to its own count. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "lang/verb.h"
#include "model/family.h"
#include "model/hfconfig.h"
#include "render/bundle.h"

#include "check_run.h"

#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif

typedef unsigned long long ull;

static const struct published {
    const char *file, *family;
    ull total, active; /* active 0: dense (= total) */
    const char *source;
} published[] = {
    {"llama-3.1-8b.json", "llama", 8030261248ULL, 0,
     "meta-llama/Llama-3.1-8B on huggingface.co: safetensors 8,030,261,248 params (BF16)"},
    {"mistral-7b-v0.1.json", "mistral", 7241732096ULL, 0,
     "mistralai/Mistral-7B-v0.1: safetensors 7,241,732,096 params"},
    {"mixtral-8x7b-v0.1.json", "mixtral", 46702792704ULL, 12879925248ULL,
     "mistralai/Mixtral-8x7B-v0.1: safetensors 46,702,792,704 params; 12.9B active (Mistral AI, "
     "Mixtral of experts, 2024)"},
    {"qwen2.5-7b.json", "qwen2", 7615616512ULL, 0, "Qwen/Qwen2.5-7B: safetensors 7,615,616,512"},
    {"qwen1.5-moe-a2.7b.json", "qwen2_moe", 14315784192ULL, 0,
     "Qwen/Qwen1.5-MoE-A2.7B: safetensors 14,315,784,192 (keras-hub preset qwen1.5_moe_2.7b_en "
     "params 14315784192)"},
    {"qwen3-8b.json", "qwen3", 8190735360ULL, 0, "Qwen/Qwen3-8B: safetensors 8,190,735,360"},
    {"qwen3-30b-a3b.json", "qwen3_moe", 30532122624ULL, 3353032704ULL,
     "Qwen/Qwen3-30B-A3B: safetensors 30,532,122,624; the GGUF general.parameter_count of its "
     "llama.cpp conversions is the same; 3.3B activated (Qwen3 model card)"},
    {"gemma-7b.json", "gemma", 8537680896ULL, 0, "google/gemma-7b: safetensors 8,537,680,896"},
    {"gemma-2-9b.json", "gemma2", 9241705984ULL, 0, "google/gemma-2-9b: safetensors 9,241,705,984"},
    {"gemma-3-1b-it.json", "gemma3_text", 999885952ULL, 0,
     "google/gemma-3-1b-it: 999,885,952 (keras-hub gemma3_presets.py, gemma3_instruct_1b)"},
    {"gemma-3-27b-it.json", "gemma3", 27432406640ULL, 0,
     "google/gemma-3-27b-it: safetensors 27,432,406,640 with the SigLIP tower and projector "
     "(keras-hub medgemma_instruct_27b params 27432406640)"},
    {"phi-3-mini-4k-instruct.json", "phi3", 3821079552ULL, 0,
     "microsoft/Phi-3-mini-4k-instruct: safetensors 3,821,079,552"},
    {"gpt2.json", "gpt2", 124439808ULL, 0,
     "openai-community/gpt2: 124,439,808 parameters (the attn.bias causal masks in its files are "
     "buffers)"},
    {"starcoderbase-1b.json", "gpt_bigcode", 1137207296ULL, 0,
     "bigcode/starcoderbase-1b: safetensors 1,137,207,296"},
    {"pythia-160m.json", "gpt_neox", 162322944ULL, 0,
     "EleutherAI/pythia-160m: 162,322,944 (Biderman et al. 2023, Pythia, table 1)"},
    {"falcon-7b.json", "falcon", 6921720704ULL, 0, "tiiuae/falcon-7b: safetensors 6,921,720,704"},
    {"bloom-560m.json", "bloom", 559214592ULL, 0, "bigscience/bloom-560m: safetensors 559,214,592"},
    {"deepseek-v2-lite.json", "deepseek_v2", 15706484224ULL, 0,
     "deepseek-ai/DeepSeek-V2-Lite: safetensors 15,706,484,224 (15.7B total, 2.4B active)"},
    {"deepseek-v3.json", "deepseek_v3", 671026419200ULL, 0,
     "deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: 671B main-model parameters, the MTP module "
     "(11.5B unique + its embedding and head copies) apart"},
    {"gpt-oss-20b.json", "gpt_oss", 20914757184ULL, 0,
     "openai/gpt-oss-20b: 20.9B (OpenAI gpt-oss model card); ollama's general.parameter_count "
     "20914757184"},
    {"olmo-2-1124-7b.json", "olmo2", 7298617344ULL, 0,
     "allenai/OLMo-2-1124-7B: safetensors 7,298,617,344 (F32)"},
    {"starcoder2-7b.json", "starcoder2", 7173923840ULL, 0,
     "bigcode/starcoder2-7b: safetensors 7,173,923,840"},
    {"t5-base.json", "t5", 222903552ULL, 0, "google-t5/t5-base: safetensors 222,903,552"},
    {"mt5-small.json", "t5", 300176768ULL, 0, "google/mt5-small: safetensors 300,176,768"},
    {"bert-base-uncased.json", "bert", 110106428ULL, 0,
     "google-bert/bert-base-uncased: safetensors 110,106,428 (with its pre-training heads)"},
    {"llava-1.5-7b-hf.json", "llava", 7063427072ULL, 0,
     "llava-hf/llava-1.5-7b-hf: safetensors 7,063,427,072"},
    {"llama-3.2-11b-vision.json", "mllama", 10670220835ULL, 0,
     "meta-llama/Llama-3.2-11B-Vision: safetensors 10,670,220,835"},
    /* The 2026 families: each total is transformers 5.24.0's on the meta device
     * (tests/tools/family_oracle.py, kept in tests/data/family_oracle.json), beside
     * the published figure. */
    {"qwen3-next-80b-a3b-instruct.json", "qwen3_next", 79674391296ULL, 3874929408ULL,
     "Qwen/Qwen3-Next-80B-A3B-Instruct: transformers 79,674,391,296 (80B total, 3B active, "
     "Qwen3-Next model card; the checkpoint's mtp.* layers are not in the model class)"},
    {"llama-4-scout-17b-16e-instruct.json", "llama4", 108641793536ULL, 18044827136ULL,
     "meta-llama/Llama-4-Scout-17B-16E-Instruct: safetensors 108,641,793,536 (109B total, 17B "
     "active: Llama 4 model card); transformers the same"},
    {"nvidia-nemotron-nano-9b-v2.json", "nemotron_h", 8888227328ULL, 0,
     "nvidia/NVIDIA-Nemotron-Nano-9B-v2: safetensors 8,888,227,328 (8.89B); transformers the same"},
    {"jamba-v0.1.json", "jamba", 51570323328ULL, 12110311296ULL,
     "ai21labs/Jamba-v0.1: transformers 51,570,323,328 (52B total, 12B active: Jamba model "
     "card)"},
    {"qwen2.5-vl-7b-instruct.json", "qwen2_5_vl", 8292166656ULL, 0,
     "Qwen/Qwen2.5-VL-7B-Instruct: safetensors 8,292,166,656; transformers the same"},
    {"qwen3-vl-8b-instruct.json", "qwen3_vl", 8767123696ULL, 0,
     "Qwen/Qwen3-VL-8B-Instruct: safetensors 8,767,123,696; transformers the same"},
    {"qwen3-vl-30b-a3b-instruct.json", "qwen3_vl_moe", 31070754032ULL, 3891664112ULL,
     "Qwen/Qwen3-VL-30B-A3B-Instruct: safetensors 31,070,754,032 (31.1B); transformers the same"},
    {"mistral-small-3.1-24b-instruct-2503.json", "mistral3", 24011361280ULL, 0,
     "mistralai/Mistral-Small-3.1-24B-Instruct-2503: safetensors 24,011,361,280; transformers "
     "5.24.0 gives 23,340,272,640 = that less lm_head (131,072 x 5,120): its Mistral3Config ties "
     "by default, the checkpoint stores lm_head"},
    {"nvidia-nemotron-3-nano-30b-a3b.json", "nemotron_h", 31577937344ULL, 3580073408ULL,
     "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: transformers 31,577,937,344 (31.6B total, "
     "3.6B active with embeddings: its model card); 23 MoE layers of 128 experts, 6 active"},
    {"granite-4.0-h-small.json", "granitemoehybrid", 32207337984ULL, 8803121664ULL,
     "ibm-granite/granite-4.0-h-small: transformers 32,207,337,984 (32B total, 9B active: Granite "
     "4.0 model card)"},
    {"falcon-h1-tiny-90m-base.json", "falcon_h1", 91131072ULL, 0,
     "tiiuae/Falcon-H1-Tiny-90M-Base: transformers 91,131,072 (90M: its model card)"},
    /* Qwen3.5: the language models' keys as Qwen's configs give them (the
     * defaults of transformers' Qwen3_5TextConfig and Qwen3_5MoeTextConfig), the
     * vision tower Qwen3_5VisionConfig's with out_hidden_size at the text width */
    {"qwen3.5-9b.json", "qwen3_5", 9409813744ULL, 0,
     "Qwen/Qwen3.5-9B: transformers 9,409,813,744 (a 9B model with its vision tower)"},
    {"qwen3.5-35b-a3b.json", "qwen3_5_moe", 35107181936ULL, 3901560176ULL,
     "Qwen/Qwen3.5-35B-A3B: transformers 35,107,181,936 (35B total, 3B active by its name)"},
    /* Phi-4-multimodal: transformers has no phi4mm class (the checkpoint's own
     * code); its Phi4MultimodalForCausalLM, built from the config its conversion
     * script writes, gives 4,743,988,032, and the checkpoint's LoRA adapters
     * (vision r 256, speech r 320 on qkv, o, gate_up and down of 32 layers)
     * 830,472,192 beside it */
    {"phi-4-multimodal-instruct.json", "phi4mm", 5574460224ULL, 0,
     "microsoft/Phi-4-multimodal-instruct: 5.57B params (its Hugging Face page; 5.6B in its model "
     "card); transformers 4,743,988,032 + the LoRA adapters 830,472,192"},
};

#define N_PUBLISHED (sizeof published / sizeof published[0])

static vs_arch load(const char *file)
{
    char path[512], *buf;
    FILE *f;
    long n;
    vs_arch a;
    vs_error err;
    int rc;
    snprintf(path, sizeof path, "%s/%s", VS_MODEL_CONFIGS, file);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    vs_error_clear(&err);
    rc = vs_arch_parse(&a, buf, (size_t)n, &err);
    free(buf);
    ck_assert_msg(rc == 0, "%s: %s", file, err.message);
    return a;
}

typedef struct sum {
    ull params, mtp, tensors;
    int saw_name;
    const char *want;
} sum;

static int add_tensor(void *ud, const vs_tensor *t)
{
    sum *s = ud;
    ull n = 1;
    unsigned i;
    for (i = 0; i < t->ndims; i++)
        n *= t->shape[i];
    if (t->part == VS_PART_MTP)
        s->mtp += n;
    else
        s->params += n;
    s->tensors++;
    if (s->want && !strcmp(t->name, s->want))
        s->saw_name = 1;
    return 0;
}

START_TEST(published_totals)
{
    const struct published *p = &published[_i];
    vs_arch a = load(p->file);
    sum s = {0, 0, 0, 0, NULL};
    ck_assert_str_eq(a.family, p->family);
    ck_assert_msg(a.params_total == p->total, "%s: %llu, published %llu (%s)", p->file,
                  (ull)a.params_total, p->total, p->source);
    if (p->active)
        ck_assert_msg(a.params_active == p->active, "%s: active %llu, published %llu", p->file,
                      (ull)a.params_active, p->active);
    else if (!a.experts)
        ck_assert_uint_eq(a.params_active, a.params_total);
    /* the concrete tensors sum to the count */
    ck_assert_int_eq(vs_family_tensors(&a, add_tensor, &s), 0);
    ck_assert_uint_eq(s.params, a.params_total);
    ck_assert_uint_eq(s.mtp, a.part_params[VS_PART_MTP]);
    ck_assert_uint_gt(a.kv.n, 0);
}
END_TEST

START_TEST(tensor_names)
{
    vs_arch a = load("deepseek-v3.json");
    sum s = {0, 0, 0, 0, "model.layers.61.mlp.experts.255.down_proj.weight"};
    ck_assert_int_eq(vs_family_tensors(&a, add_tensor, &s), 0);
    ck_assert_int_eq(s.saw_name, 1);
    /* 61 layers: 3 dense, 58 with 256 experts; one MTP layer */
    ck_assert_uint_gt(s.tensors, 256 * 3 * 59);
    ck_assert_ptr_nonnull(strstr(a.excluded_reason, "speculative decoding"));
    /* the MTP layer: one MoE decoder layer (README_WEIGHTS.md: "11.5B unique
     * parameters") with its own embedding and head copies, two norms on the way
     * in, eh_proj and the head's norm:
     *   attention 7168*1536 + 1536 + 1536*128*192 + 7168*576 + 512 + 512*128*256
     *             + 7168*128*128 + 2*7168                      =    187,121,664
     *   MoE       256*7168 + 256 + 256*3*7168*2048 + 3*7168*2048 = 11,320,164,608
     *   rest      2*129280*7168 + 3*7168 + 7168*14336          =  1,956,140,032 */
    ck_assert_uint_eq(187121664ULL + 11320164608ULL,
                      7168ULL * 1536 + 1536 + 1536ULL * 128 * 192 + 7168ULL * 576 + 512 +
                          512ULL * 128 * 256 + 7168ULL * 128 * 128 + 2 * 7168 + 256ULL * 7168 +
                          256 + 256ULL * 3 * 7168 * 2048 + 3ULL * 7168 * 2048);
    ck_assert_uint_eq(a.part_params[VS_PART_MTP], 187121664ULL + 11320164608ULL +
                                                      2ULL * 129280 * 7168 + 3 * 7168 +
                                                      7168ULL * 14336);

    a = load("gemma-3-27b-it.json");
    s = (sum){0, 0, 0, 0, "vision_tower.vision_model.encoder.layers.26.mlp.fc2.weight"};
    ck_assert_int_eq(vs_family_tensors(&a, add_tensor, &s), 0);
    ck_assert_int_eq(s.saw_name, 1);
    s = (sum){0, 0, 0, 0, "language_model.model.layers.61.self_attn.k_norm.weight"};
    ck_assert_int_eq(vs_family_tensors(&a, add_tensor, &s), 0);
    ck_assert_int_eq(s.saw_name, 1);
    /* SigLIP so400m at 896 px: 27 layers of 1152, 4096 positions */
    ck_assert_uint_eq(a.part_params[VS_PART_VISION], 416866032ULL);
    ck_assert_uint_eq(a.part_params[VS_PART_PROJECTOR], 1152ULL * 5376 + 1152);

    a = load("llava-1.5-7b-hf.json");
    /* CLIP ViT-L/14-336: 1024 + 1024*3*14*14 + 577*1024 + 2*2*1024 + 24 layers of
     * (4*(1024*1024+1024) + 2*1024*4096 + 4096 + 1024 + 4*1024) */
    ck_assert_uint_eq(
        a.part_params[VS_PART_VISION],
        1024ULL + 1024 * 3 * 14 * 14 + 577 * 1024 + 4 * 1024 +
            24ULL * (4 * (1024 * 1024 + 1024) + 2 * 1024 * 4096 + 4096 + 1024 + 4 * 1024));
    ck_assert_uint_eq(a.part_params[VS_PART_PROJECTOR], 4096ULL * 1024 + 4096 + 4096 * 4096 + 4096);
}
END_TEST

/* The attention layouts the configs describe. */
START_TEST(kv_layouts)
{
    vs_arch a = load("gemma-3-27b-it.json");
    /* 62 layers, every sixth global: 10 full, 52 sliding over 1024 tokens */
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(a.kv.g[0].layers, 52);
    ck_assert_uint_eq(a.kv.g[0].window, 1024);
    ck_assert_int_eq(a.kv.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(a.kv.g[1].layers, 10);
    ck_assert_uint_eq(a.kv.g[1].kv_heads, 16);
    ck_assert_uint_eq(a.kv.g[1].head_dim, 128);

    a = load("deepseek-v3.json");
    ck_assert_uint_eq(a.kv.n, 1);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_LATENT);
    ck_assert_uint_eq(a.kv.g[0].layers, 61);
    ck_assert_uint_eq(a.kv.g[0].latent, 512 + 64);

    a = load("gpt-oss-20b.json");
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_uint_eq(a.kv.g[0].layers + a.kv.g[1].layers, 24);
    ck_assert_uint_eq(a.kv.g[0].window, 128);

    a = load("gemma-2-9b.json");
    ck_assert_uint_eq(a.kv.g[0].layers, 21);
    ck_assert_uint_eq(a.kv.g[1].layers, 21);

    a = load("mistral-7b-v0.1.json");
    ck_assert_uint_eq(a.kv.n, 1);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(a.kv.g[0].window, 4096);

    a = load("mixtral-8x7b-v0.1.json"); /* sliding_window null: full */
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_FULL);

    a = load("qwen2.5-7b.json"); /* use_sliding_window false */
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_FULL);

    a = load("t5-base.json");
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_int_eq(a.kv.g[1].kind, VS_KV_CROSS);
    ck_assert_uint_eq(a.kv.g[1].layers, 12);

    a = load("bert-base-uncased.json");
    ck_assert_uint_eq(a.kv.n, 1);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_NONE);

    a = load("llama-3.2-11b-vision.json");
    ck_assert_uint_eq(a.kv.g[0].layers, 32);
    ck_assert_int_eq(a.kv.g[1].kind, VS_KV_CROSS);
    ck_assert_uint_eq(a.kv.g[1].layers, 8);

    a = load("phi-3-mini-4k-instruct.json");
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(a.kv.g[0].window, 2047);
    ck_assert_uint_eq(a.kv.g[0].head_dim, 96);
}
END_TEST

/* Hybrid models: only the attention layers keep keys and values; a recurrent
 * layer keeps a convolution state of conv_kernel - 1 positions and its SSM or
 * delta-rule state per sequence, as vLLM's MambaStateShapeCalculator
 * (vllm/model_executor/layers/mamba/mamba_utils.py, commit 02d7108) sizes them,
 * 16-bit except a gated delta net's fp32 state. Worked by hand here. */
START_TEST(hybrid_layouts)
{
    vs_arch a = load("qwen3-next-80b-a3b-instruct.json");
    /* 48 layers, every fourth full attention: 12 full (2 KV heads of 256), 36
     * gated delta nets: conv 3 x (2*16*128 + 32*128) x 2 B, state 32 x 128 x 128 x 4 B */
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_FULL);
    ck_assert_uint_eq(a.kv.g[0].layers, 12);
    ck_assert_uint_eq(a.kv.g[0].kv_heads, 2);
    ck_assert_uint_eq(a.kv.g[0].head_dim, 256);
    ck_assert_int_eq(a.kv.g[1].kind, VS_KV_STATE);
    ck_assert_uint_eq(a.kv.g[1].layers, 36);
    ck_assert_uint_eq(a.kv.g[1].state_bytes,
                      3ULL * (2 * 16 * 128 + 32 * 128) * 2 + 32ULL * 128 * 128 * 4);
    ck_assert_uint_eq(a.kv.g[1].state_bytes, 2146304ULL);
    ck_assert_uint_eq(a.kv.g[1].state_conv, 3ULL * 8192);
    ck_assert_uint_eq(a.kv.g[1].state_ssm, 32ULL * 128 * 128);

    a = load("nvidia-nemotron-nano-9b-v2.json");
    /* 27 M, 4 *, 25 - in hybrid_override_pattern; Mamba-2 with 128 heads of 80,
     * 8 groups, state 128: conv 3 x (10240 + 2*8*128) x 2, ssm 128 x 80 x 128 x 2 */
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_uint_eq(a.kv.g[0].layers, 4);
    ck_assert_uint_eq(a.kv.g[0].kv_heads, 8);
    ck_assert_uint_eq(a.kv.g[1].layers, 27);
    ck_assert_uint_eq(a.kv.g[1].state_bytes,
                      3ULL * (128 * 80 + 2 * 8 * 128) * 2 + 128ULL * 80 * 128 * 2);

    a = load("jamba-v0.1.json");
    /* attention on layer i % 8 == 4: 4 of 32; Mamba-1 with inner 2 x 4096 and
     * d_state 16: conv 3 x 8192 x 2, ssm 8192 x 16 x 2 */
    ck_assert_uint_eq(a.kv.g[0].layers, 4);
    ck_assert_uint_eq(a.kv.g[1].layers, 28);
    ck_assert_uint_eq(a.kv.g[1].state_bytes, 3ULL * 8192 * 2 + 8192ULL * 16 * 2);

    a = load("llama-4-scout-17b-16e-instruct.json");
    /* no_rope_layers: RoPE and 8,192-token chunks on 36 layers, global on 12 */
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_CHUNKED);
    ck_assert_uint_eq(a.kv.g[0].layers, 36);
    ck_assert_uint_eq(a.kv.g[0].window, 8192);
    ck_assert_int_eq(a.kv.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(a.kv.g[1].layers, 12);
    /* vision tower and projector as their own parts (transformers 5.24.0's
     * modules: vision_model.* less its adapter; adapter + multi_modal_projector):
     * 34 layers of 1408 with biases, 577 positions, patches of 3 x 14 x 14 */
    ck_assert_uint_eq(
        a.part_params[VS_PART_VISION],
        1408ULL + 577 * 1408 + 1408 * 588 + 4 * 1408 +
            34ULL * (4 * (1408 * 1408 + 1408) + 2 * 1408 * 5632 + 5632 + 1408 + 4 * 1408));
    ck_assert_uint_eq(a.part_params[VS_PART_VISION], 811115008ULL);
    ck_assert_uint_eq(a.part_params[VS_PART_PROJECTOR],
                      4096ULL * 5632 + 4096ULL * 4096 + 5120ULL * 4096);

    a = load("granite-4.0-h-small.json");
    /* layer_types: 4 attention, 36 Mamba-2 (128 heads of 64, 1 group, state 128):
     * conv 3 x (8192 + 2 x 128) x 2, ssm 128 x 64 x 128 x 2 */
    ck_assert_uint_eq(a.kv.g[0].layers, 4);
    ck_assert_uint_eq(a.kv.g[1].layers, 36);
    ck_assert_uint_eq(a.kv.g[1].state_bytes, 3ULL * (8192 + 2 * 128) * 2 + 128ULL * 64 * 128 * 2);

    a = load("falcon-h1-tiny-90m-base.json");
    /* every layer both: 24 attention layers (2 KV heads of 64) and 24 Mamba-2
     * states (d_ssm 768, 24 heads of 32, state 64): conv 3 x (768 + 2 x 64) x 2,
     * ssm 24 x 32 x 64 x 2 */
    ck_assert_uint_eq(a.kv.g[0].layers, 24);
    ck_assert_uint_eq(a.kv.g[0].head_dim, 64);
    ck_assert_uint_eq(a.kv.g[1].layers, 24);
    ck_assert_uint_eq(a.kv.g[1].state_bytes, 3ULL * (768 + 2 * 64) * 2 + 24ULL * 32 * 64 * 2);

    a = load("qwen2.5-vl-7b-instruct.json");
    /* the language model is Qwen2.5-7B's (tests/model/configs/qwen2.5-7b.json) */
    ck_assert_uint_eq(a.part_params[VS_PART_TEXT], 7615616512ULL);
    ck_assert_uint_eq(a.part_params[VS_PART_PROJECTOR],
                      1280ULL + 5120ULL * 5120 + 5120 + 3584ULL * 5120 + 3584);
    a = load("qwen3-vl-8b-instruct.json");
    ck_assert_uint_eq(a.part_params[VS_PART_TEXT], 8190735360ULL); /* Qwen3-8B's */
    ck_assert_uint_eq(a.part_params[VS_PART_VISION], 415891440ULL);
    ck_assert_uint_eq(a.kv.g[0].layers, 36);
}
END_TEST

/* Nemotron 3 Nano: 23 Mamba-2, 23 MoE and 6 attention layers (the pattern's letters);
 * the MoE layers keep no cache. Its experts by hand: 23 layers x 128 x (2 x 1856 x 2688)
 * = 29,374,808,064 of the 31,577,937,344, 6 of 128 active. layers_block_type gives the
 * same model. */
START_TEST(nemotron_h_moe_layers)
{
    vs_arch a = load("nvidia-nemotron-3-nano-30b-a3b.json"), b;
    char path[512], *text;
    json_t *j, *types;
    vs_error err;
    size_t i;
    const char *pat = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
    uint64_t experts = 23ULL * 128 * 2 * 1856 * 2688;
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_FULL);
    ck_assert_uint_eq(a.kv.g[0].layers, 6);
    ck_assert_uint_eq(a.kv.g[0].kv_heads, 2);
    ck_assert_int_eq(a.kv.g[1].kind, VS_KV_STATE);
    ck_assert_uint_eq(a.kv.g[1].layers, 23);
    ck_assert_uint_eq(a.params_total - a.params_active, experts - experts / 128 * 6);
    snprintf(path, sizeof path, "%s/nvidia-nemotron-3-nano-30b-a3b.json", VS_MODEL_CONFIGS);
    j = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(j);
    types = json_array();
    for (i = 0; pat[i]; i++)
        json_array_append_new(types, json_string(pat[i] == 'M'   ? "mamba"
                                                 : pat[i] == 'E' ? "moe"
                                                                 : "attention"));
    json_object_del(j, "hybrid_override_pattern");
    json_object_del(j, "num_hidden_layers");
    json_object_set_new(j, "layers_block_type", types);
    text = json_dumps(j, 0);
    json_decref(j);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_arch_parse(&b, text, strlen(text), &err), 0);
    free(text);
    ck_assert_uint_eq(b.params_total, a.params_total);
    ck_assert_uint_eq(b.params_active, a.params_active);
}
END_TEST

/* Phi-4-multimodal: each part against transformers 5.24.0's modules
 * (tests/data/family_oracle.json), the adapters worked by hand, and without
 * its adapters the checkpoint is transformers' class alone. */
START_TEST(phi4mm_parts)
{
    vs_arch a = load("phi-4-multimodal-instruct.json");
    char path[512], *text;
    json_t *j;
    vs_error err;
    /* per layer, r x (in + out) for qkv (3072 -> 5120), o (3072 -> 3072),
     * gate_up (3072 -> 16384) and down (8192 -> 3072), at r 256 and 320 */
    uint64_t per_r = (3072 + 5120) + (3072 + 3072) + (3072 + 16384) + (8192 + 3072);
    ck_assert_uint_eq(a.part_params[VS_PART_ADAPTER], 32 * per_r * (256 + 320));
    ck_assert_uint_eq(a.part_params[VS_PART_ADAPTER], 830472192ULL);
    ck_assert_uint_eq(a.part_params[VS_PART_TEXT], 3836021760ULL); /* Phi-4-mini's 3.84B */
    ck_assert_uint_eq(a.part_params[VS_PART_VISION], 428565440ULL);
    ck_assert_uint_eq(a.part_params[VS_PART_AUDIO], 441238144ULL);
    ck_assert_uint_eq(a.part_params[VS_PART_PROJECTOR], 38162688ULL);
    /* the image projector: two extensors of 1152, up 1152 -> 3072, down 3072 -> 3072; the
     * audio's: two pairs of up 1024 -> 3072 and down 3072 -> 3072 */
    ck_assert_uint_eq(a.part_params[VS_PART_PROJECTOR],
                      2 * 1152ULL + (3072ULL * 1152 + 3072) + (3072ULL * 3072 + 3072) +
                          2 * ((3072ULL * 1024 + 3072) + (3072ULL * 3072 + 3072)));
    /* every layer full attention (the 262,144-token window is past the context):
     * 8 KV heads of 128; the towers and adapters hold none */
    ck_assert_uint_eq(a.kv.n, 1);
    ck_assert_int_eq(a.kv.g[0].kind, VS_KV_FULL);
    ck_assert_uint_eq(a.kv.g[0].layers, 32);
    ck_assert_uint_eq(a.kv.g[0].kv_heads, 8);
    ck_assert_uint_eq(a.kv.g[0].head_dim, 128);
    /* the card's arch names what vLLM's encoder pass runs: the two towers and the
     * projectors, 428,565,440 + 441,238,144 + 38,162,688 */
    j = vs_hfconfig_arch_json(&a, "config.json", NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "encoder_params")), 907966272);
    ck_assert_int_eq(vs_engine_encoder_present(j), 1);
    json_decref(j);
    a = load("qwen3-8b.json");
    j = vs_hfconfig_arch_json(&a, "config.json", NULL);
    ck_assert(json_is_null(json_object_get(j, "encoder_params")));
    ck_assert_int_eq(vs_engine_encoder_present(j), 0);
    json_decref(j);

    snprintf(path, sizeof path, "%s/phi-4-multimodal-instruct.json", VS_MODEL_CONFIGS);
    j = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(j);
    json_object_set_new(j, "vision_lora", json_null());
    json_object_del(j, "speech_lora");
    text = json_dumps(j, 0);
    json_decref(j);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_arch_parse(&a, text, strlen(text), &err), 0);
    free(text);
    ck_assert_uint_eq(a.part_params[VS_PART_ADAPTER], 0);
    ck_assert_uint_eq(a.params_total, 4743988032ULL);
}
END_TEST

/* layer_types wins over sliding_window_pattern wherever a family reads it. */
START_TEST(generic_layer_types)
{
    vs_arch a;
    vs_error err;
    const char *j = "{\"model_type\": \"llama\", \"num_hidden_layers\": 4, \"hidden_size\": 64, "
                    "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 32, "
                    "\"intermediate_size\": 96, \"vocab_size\": 100, \"sliding_window\": 16, "
                    "\"layer_types\": [\"sliding_attention\", \"sliding_attention\", "
                    "\"full_attention\", \"sliding_attention\"]}";
    ck_assert_int_eq(vs_arch_parse(&a, j, strlen(j), &err), 0);
    ck_assert_uint_eq(a.kv.n, 2);
    ck_assert_uint_eq(a.kv.g[0].layers, 3);
    ck_assert_uint_eq(a.kv.g[0].window, 16);
    ck_assert_uint_eq(a.kv.g[0].head_dim, 32);
    ck_assert_uint_eq(a.kv.g[1].layers, 1);
    /* a wrong length is refused */
    j = "{\"model_type\": \"gemma2\", \"num_hidden_layers\": 3, \"hidden_size\": 64, "
        "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100, "
        "\"sliding_window\": 16, \"layer_types\": [\"full_attention\"]}";
    ck_assert_int_eq(vs_arch_parse(&a, j, strlen(j), &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "layer_types"));
}
END_TEST

/* A missing or impossible key is named, never guessed. */
START_TEST(refusals_name_the_key)
{
    static const struct {
        const char *json, *needle;
    } bad[] = {
        {"{\"model_type\": \"deepseek_v3\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100}",
         "kv_lora_rank"},
        {"{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\"}}",
         "vision_config"},
        {"{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"rwkv\"}, "
         "\"vision_config\": {}}",
         "rwkv"},
        {"{\"model_type\": \"mllama\", \"text_config\": {\"cross_attention_layers\": [40]}, "
         "\"vision_config\": {}}",
         "cross_attention_layers[0]"},
        {"{\"model_type\": \"gemma3\"}", "text_config"},
        {"{\"model_type\": \"qwen3_moe\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100, "
         "\"num_experts\": 4, \"num_experts_per_tok\": 8, \"moe_intermediate_size\": 8}",
         "num_experts_per_tok"},
        {"{\"model_type\": \"t5\", \"num_layers\": 2, \"d_model\": 64, \"d_kv\": 8, "
         "\"num_heads\": 8, \"vocab_size\": 100}",
         "d_ff"},
        {"{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100, "
         "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"sliding_window\": 8, "
         "\"layer_types\": [\"sliding_attention\", \"linear_attention\"]}",
         "linear_attention"},
        {"{\"model_type\": \"nemotron_h\", \"num_hidden_layers\": 3, \"hidden_size\": 64, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100, "
         "\"mamba_num_heads\": 4, \"mamba_head_dim\": 16, \"ssm_state_size\": 8, "
         "\"hybrid_override_pattern\": \"M*X\"}",
         "hybrid_override_pattern[2]"},
        {"{\"model_type\": \"qwen3_next\", \"num_hidden_layers\": 4, \"hidden_size\": 64, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100, "
         "\"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 8, "
         "\"shared_expert_intermediate_size\": 8, \"linear_num_key_heads\": 2, "
         "\"linear_key_head_dim\": 8, \"linear_num_value_heads\": 2, "
         "\"linear_value_head_dim\": 8}",
         "full_attention_interval"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vs_arch a;
        vs_error err;
        vs_error_clear(&err);
        ck_assert_int_lt(vs_arch_parse(&a, bad[i].json, strlen(bad[i].json), &err), 0);
        ck_assert_msg(strstr(err.message, bad[i].needle) != NULL, "'%s' lacks '%s'", err.message,
                      bad[i].needle);
    }
}
END_TEST

/* The names list is the table's lower-case model_types in table order,
 * joined with ", ": rebuilt here from the rows, independently of the join in
 * family.c, and checked whole. */
START_TEST(every_family_in_the_table)
{
    size_t n, i, j, k;
    const vs_family *const *t = vs_family_table(&n);
    char names[VS_FAMILY_NAMES_MAX], want[VS_FAMILY_NAMES_MAX] = "";
    ck_assert_uint_gt(n, 0);
    for (i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(t[i]->parse);
        ck_assert_ptr_nonnull(t[i]->kv_layout);
        ck_assert_ptr_nonnull(t[i]->tensors);
        ck_assert_str_eq(t[i]->model_types[0], t[i]->name);
        for (k = 0; k < i; k++)
            ck_assert_msg(strcmp(t[k]->name, t[i]->name) != 0, "%s twice", t[i]->name);
        for (j = 0; t[i]->model_types[j]; j++) {
            const char *mt = t[i]->model_types[j];
            ck_assert_ptr_eq(vs_family_find(mt, NULL), t[i]);
            if (strpbrk(mt, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
                continue;
            if (want[0])
                strcat(want, ", ");
            strcat(want, mt);
        }
        for (j = 0; t[i]->architectures && t[i]->architectures[j]; j++)
            ck_assert_ptr_eq(vs_family_find(NULL, t[i]->architectures[j]), t[i]);
    }
    ck_assert_str_eq(vs_family_names(names, sizeof names), want);
    /* the names of the families this suite's checkpoints test are listed */
    ck_assert_ptr_nonnull(strstr(names, "llama, mistral, mixtral"));
    ck_assert_ptr_nonnull(strstr(names, "t5, mt5"));
    ck_assert_ptr_null(strstr(names, "RefinedWeb"));
    /* `help model` lists them */
    {
        vs_bundle *page = vs_verb_help_bundle(vs_verb_find("model"));
        ck_assert_ptr_nonnull(page);
        ck_assert_ptr_nonnull(strstr(page->json, names));
        vs_bundle_free(page);
    }
    /* a names buffer too small is cut, never overrun */
    ck_assert_str_eq(vs_family_names(names, 6), "llama");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("families");
    TCase *tc = tcase_create("families");
    tcase_add_loop_test(tc, published_totals, 0, (int)N_PUBLISHED);
    tcase_add_test(tc, tensor_names);
    tcase_add_test(tc, kv_layouts);
    tcase_add_test(tc, hybrid_layouts);
    tcase_add_test(tc, generic_layer_types);
    tcase_add_test(tc, phi4mm_parts);
    tcase_add_test(tc, nemotron_h_moe_layers);
    tcase_add_test(tc, refusals_name_the_key);
    tcase_add_test(tc, every_family_in_the_table);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
