/* llama.cpp's per-architecture rules, read at commit 0c1e570. */
#include "engine/llamacpp_arch.h"

#include <stdio.h>
#include <string.h>

#define AT " at " VS_LLAMACPP_COMMIT

/* Architectures whose load_arch_hparams sets no sliding window (swa_type stays
 * LLAMA_SWA_TYPE_NONE), and those that keep the one the file describes. */
static const vs_llamacpp_arch archs[] = {
    {"llama", VS_LCP_SWA_NONE,
     "src/models/llama.cpp" AT " sets no sliding window (Mistral and Mixtral convert to it)"},
    {"phi3", VS_LCP_SWA_NONE,
     "src/models/phi3.cpp" AT ": \"Phi SWA is currently disabled\" (swa_type NONE)"},
    {"qwen2", VS_LCP_SWA_NONE, "src/models/qwen2.cpp" AT " sets no sliding window"},
    {"qwen3", VS_LCP_SWA_NONE, "src/models/qwen3.cpp" AT " sets no sliding window"},
    {"qwen2moe", VS_LCP_SWA_NONE, "src/models/qwen2moe.cpp" AT " sets no sliding window"},
    {"qwen3moe", VS_LCP_SWA_NONE, "src/models/qwen3moe.cpp" AT " sets no sliding window"},
    {"starcoder2", VS_LCP_SWA_NONE, "src/models/starcoder2.cpp" AT " sets no sliding window"},
    {"gemma", VS_LCP_SWA_NONE, "src/models/gemma.cpp" AT " sets no sliding window"},
    {"phimoe", VS_LCP_SWA_NONE, "src/models/phimoe.cpp" AT " sets no sliding window"},
    {"gpt2", VS_LCP_SWA_NONE, "src/models/gpt2.cpp" AT " sets no sliding window"},
    {"starcoder", VS_LCP_SWA_NONE, "src/models/starcoder.cpp" AT " sets no sliding window"},
    {"gptneox", VS_LCP_SWA_NONE, "src/models/gptneox.cpp" AT " sets no sliding window"},
    {"falcon", VS_LCP_SWA_NONE, "src/models/falcon.cpp" AT " sets no sliding window"},
    {"bloom", VS_LCP_SWA_NONE, "src/models/bloom.cpp" AT " sets no sliding window"},
    {"deepseek2", VS_LCP_SWA_NONE, "src/models/deepseek2.cpp" AT " sets no sliding window"},
    {"t5", VS_LCP_SWA_NONE, "src/models/t5.cpp" AT " sets no sliding window"},
    {"bert", VS_LCP_SWA_NONE, "src/models/bert.cpp" AT " sets no sliding window"},
    /* the ones with a sliding-window cache (llama_kv_cache_iswa) */
    {"gemma2", VS_LCP_SWA_KEPT,
     "src/models/gemma2.cpp" AT ": window 4096 unless the file says, load_swa_pattern(ml, 2)"},
    {"gemma3", VS_LCP_SWA_KEPT,
     "src/models/gemma3.cpp" AT ": the file's window, load_swa_pattern(ml, 6)"},
    {"gemma3n", VS_LCP_SWA_KEPT, "src/models/gemma3n.cpp" AT ": load_swa_pattern(ml, 5)"},
    {"gemma4", VS_LCP_SWA_KEPT, "src/models/gemma4.cpp" AT ": the file's per-layer pattern"},
    {"gpt-oss", VS_LCP_SWA_KEPT,
     "src/models/openai-moe.cpp" AT ": load_swa_pattern(ml, 2), the pattern fixed in code"},
    {"cohere2", VS_LCP_SWA_KEPT, "src/models/cohere2.cpp" AT ": load_swa_pattern(ml, 4)"},
    {"cohere2moe", VS_LCP_SWA_KEPT,
     "src/models/cohere2moe.cpp" AT ": load_swa_pattern(ml, 4, dense first)"},
    {"llama4", VS_LCP_SWA_KEPT,
     "src/models/llama4.cpp" AT ": chunked attention of 8192, load_swa_pattern(ml, 4)"},
    {"exaone4", VS_LCP_SWA_KEPT,
     "src/models/exaone4.cpp" AT ": 64-layer models, window 4096, load_swa_pattern(ml, 4)"},
    {"exaone-moe", VS_LCP_SWA_KEPT, "src/models/exaone-moe.cpp" AT ": load_swa_pattern(ml, 4)"},
    {"olmo2", VS_LCP_SWA_KEPT,
     "src/models/olmo2.cpp" AT ": a window only when the file gives one, load_swa_pattern(ml, 4)"},
    {"granite_swa", VS_LCP_SWA_KEPT, "src/models/granite-swa.cpp" AT ": the file's pattern"},
    {"afmoe", VS_LCP_SWA_KEPT, "src/models/afmoe.cpp" AT ": load_swa_pattern(ml, 4)"},
    {"laguna", VS_LCP_SWA_KEPT,
     "src/models/laguna.cpp" AT ": load_swa_pattern(ml, 4, dense first) with a window"},
    {"smallthinker", VS_LCP_SWA_KEPT,
     "src/models/smallthinker.cpp" AT ": window 4096, load_swa_pattern(ml, 4, dense first)"},
    {"plamo3", VS_LCP_SWA_KEPT, "src/models/plamo3.cpp" AT ": load_swa_pattern(ml, 8)"},
    {"mimo2", VS_LCP_SWA_KEPT, "src/models/mimo2.cpp" AT ": the file's pattern"},
    {"step35", VS_LCP_SWA_KEPT, "src/models/step35.cpp" AT ": the file's pattern"},
    {"lfm2", VS_LCP_SWA_KEPT, "src/models/lfm2.cpp" AT ": attention layers slide"},
};

/* A Hugging Face family and the GGUF architecture its converter writes
 * (conversion/__init__.py and conversion/<family>.py, model_arch). */
typedef struct alias {
    const char *family, *arch;
} alias;

static const alias aliases[] = {
    {"mistral", "llama"},         {"mixtral", "llama"},         {"llava", "llama"},
    {"gemma3_text", "gemma3"},    {"gpt_oss", "gpt-oss"},       {"deepseek_v2", "deepseek2"},
    {"deepseek_v3", "deepseek2"}, {"qwen2_moe", "qwen2moe"},    {"qwen3_moe", "qwen3moe"},
    {"gpt_neox", "gptneox"},      {"gpt_bigcode", "starcoder"}, {"mt5", "t5"},
};

const vs_llamacpp_arch *vs_llamacpp_arch_find(const char *name)
{
    size_t i;
    if (!name)
        return NULL;
    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(aliases[i].family, name)) {
            name = aliases[i].arch;
            break;
        }
    for (i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (!strcmp(archs[i].name, name))
            return &archs[i];
    return NULL;
}

void vs_llamacpp_arch_layout(vs_kv_layout *out, int *changed, char *why, size_t why_size,
                             const vs_llamacpp_arch *a, const char *name, const vs_kv_layout *in)
{
    uint64_t slid = 0, window = 0;
    size_t i;
    *out = *in;
    *changed = 0;
    if (why && why_size)
        why[0] = '\0';
    if (!a) {
        if (why && why_size)
            snprintf(why, why_size,
                     "llama.cpp's rules for the architecture '%s' are not modelled: the model's "
                     "own layout is used",
                     name ? name : "(unknown)");
        return;
    }
    if (a->swa != VS_LCP_SWA_NONE)
        return;
    memset(out, 0, sizeof *out);
    for (i = 0; i < in->n; i++) {
        vs_kv_group g = in->g[i];
        vs_error err;
        if (g.kind == VS_KV_SLIDING || g.kind == VS_KV_CHUNKED) {
            slid += g.layers;
            window = g.window;
            g.kind = VS_KV_FULL;
            g.window = 0;
        }
        /* merging into a group of the same shape cannot overflow the table */
        if (vs_kv_layout_add(out, &g, &err) < 0)
            out->g[out->n - 1].layers += g.layers;
    }
    if (!slid) {
        *out = *in;
        return;
    }
    *changed = 1;
    if (why && why_size)
        snprintf(why, why_size,
                 "llama.cpp's '%s' architecture has no sliding window (%s): the model's %llu "
                 "sliding-window layers (window %llu) keep every token",
                 a->name, a->source, (unsigned long long)slid, (unsigned long long)window);
}

vs_llamacpp_layer vs_llamacpp_arch_tensor_layer(const char *n)
{
    /* LLM_TENSOR_LAYER_INPUT: TOKEN_EMBD, POS_EMBD, TOKEN_TYPES, PER_LAYER_TOKEN_EMBD */
    static const char *const input[] = {"token_embd.weight", "position_embd.weight",
                                        "token_types.weight", "per_layer_token_embd.weight"};
    size_t i;
    if (!n || !strncmp(n, "blk.", 4))
        return VS_LCP_LAYER_REPEATING;
    for (i = 0; i < sizeof input / sizeof input[0]; i++)
        if (!strcmp(n, input[i]))
            return VS_LCP_LAYER_INPUT;
    /* token_embd_norm is done on the first layer (LLM_TENSOR_LAYER_REPEATING) */
    if (!strncmp(n, "token_embd_norm.", 16))
        return VS_LCP_LAYER_REPEATING;
    return VS_LCP_LAYER_OUTPUT;
}
