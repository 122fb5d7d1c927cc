/* TensorRT-LLM's command: `trtllm-serve MODEL` (the PyTorch backend) with the
 * flags that decide its memory. */
#include <stdio.h>
#include <string.h>

#include "engine/launch.h"

#define ARGS                                                                                       \
    "tensorrt_llm/commands/serve.py (the serve command's click options, "                          \
    "NVIDIA/TensorRT-LLM 4c05a74)"

static int build(json_t *argv, const vs_launch_in *in, vs_buf *note, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    const char *model = vs_launch_card_str(in->sheet, "model");
    const vs_engine_val *f = vs_engine_get(e, "free_gpu_memory_fraction"),
                        *dt = vs_engine_get(e, "kv_cache_dtype");
    char frac[32];
    int rc;
    /* trtllm-serve's group runs `serve` when its first word is no subcommand
     * (DefaultGroup.resolve_command), so MODEL follows the program */
    if ((rc = vs_launch_word(argv, "trtllm-serve", err)) < 0 ||
        (rc = vs_launch_word(argv, model ? model : "MODEL", err)) < 0)
        return rc;
    if (!model)
        vs_buf_puts(note, "the card names no model: MODEL stands for it");
    /* the fit's rule is the PyTorch backend's (KvCacheCreator), the default one */
    if ((rc = vs_launch_flag(argv, "--backend", err, "pytorch")) < 0 ||
        (rc = vs_launch_flag(argv, "--tp_size", err, "%llu",
                             (unsigned long long)(e->tp ? e->tp : 1))) < 0)
        return rc;
    /* the requests scheduled at once and the longest one: the card's */
    if (e->concurrency_known && (rc = vs_launch_flag(argv, "--max_batch_size", err, "%llu",
                                                     (unsigned long long)e->concurrency)) < 0)
        return rc;
    if (e->length_known && (rc = vs_launch_flag(argv, "--max_seq_len", err, "%llu",
                                                (unsigned long long)e->length)) < 0)
        return rc;
    if (f && f->set) {
        vs_launch_ppm(frac, sizeof frac, f->u);
        if ((rc = vs_launch_flag(argv, "--kv_cache_free_gpu_memory_fraction", err, "%s", frac)) < 0)
            return rc;
    }
    vs_buf_printf(
        note,
        "%s--max_num_tokens is left at the release's default (BuildConfig.max_num_tokens), "
        "which sizes the profiling run",
        note->len ? "; " : "");
    /* the cache's dtype has no flag in serve.py: it is kv_cache_config.dtype of
     * the LLM API's options */
    if (dt && dt->word && strcmp(dt->word, "auto"))
        vs_buf_printf(note,
                      "; kv_cache_dtype %s has no flag: put `kv_cache_config: {dtype: %s}` in a "
                      "YAML file given as --extra_llm_api_options",
                      dt->word, dt->word);
    return 0;
}

/* one serve.py is stored: it stands for both releases (the flags written are
 * serve's own options, not read at either tag) */
static const vs_launch_release releases[] = {
    {"0.21.0", ARGS ", standing for 0.21.0"}, {"1.0.0", ARGS ", standing for 1.0.0"}, {NULL, NULL}};

const vs_launch_rule vs_launch_tensorrt_llm = {
    "tensorrt_llm", "trtllm-serve MODEL", "version", releases, 0, "trtllm", build, NULL};
