/* SGLang's command: `python -m sglang.launch_server` with its memory flags. */
#include <stdio.h>
#include <string.h>

#include "engine/launch.h"

#define ARGS                                                                                       \
    "python/sglang/srt/server_args.py (ServerArgs: a field's flag is its name with dashes, "       \
    "tp_size -> --tp-size; sgl-project/sglang 001067f)"

#define ARGS05                                                                                     \
    "python/sglang/srt/server_args.py of the 0.5 series (ServerArgs.add_cli_args: a field's "      \
    "flag is its name with dashes; the text with sgl-project/sglang#10975's "                      \
    "_handle_gpu_memory_settings)"

static int build(json_t *argv, const vs_launch_in *in, vs_buf *note, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    const char *model = vs_launch_card_str(in->sheet, "model"),
               *rev = vs_launch_card_str(in->sheet, "revision");
    const vs_engine_val *f = vs_engine_get(e, "mem_fraction_static"),
                        *dt = vs_engine_get(e, "kv_cache_dtype");
    char frac[32];
    int rc;
    if ((rc = vs_launch_word(argv, "python", err)) < 0 ||
        (rc = vs_launch_flag(argv, "-m", err, "sglang.launch_server")) < 0 ||
        (rc = vs_launch_flag(argv, "--model-path", err, "%s", model ? model : "MODEL")) < 0)
        return rc;
    if (!model)
        vs_buf_puts(note, "the card names no model: MODEL stands for it");
    if (rev && (rc = vs_launch_flag(argv, "--revision", err, "%s", rev)) < 0)
        return rc;
    if ((rc = vs_launch_flag(argv, "--tp-size", err, "%llu",
                             (unsigned long long)(e->tp ? e->tp : 1))) < 0)
        return rc;
    if (f && f->set) {
        vs_launch_ppm(frac, sizeof frac, f->u);
        if ((rc = vs_launch_flag(argv, "--mem-fraction-static", err, "%s", frac)) < 0)
            return rc;
    }
    if (e->length_known && (rc = vs_launch_flag(argv, "--context-length", err, "%llu",
                                                (unsigned long long)e->length)) < 0)
        return rc;
    /* the pool's tokens as the fit counts them: a ceiling SGLang then keeps to */
    if (in->row->kv_tokens && !in->row->upper_bound &&
        (rc = vs_launch_flag(argv, "--max-total-tokens", err, "%llu",
                             (unsigned long long)in->row->kv_tokens)) < 0)
        return rc;
    if (dt && dt->word && strcmp(dt->word, "auto") &&
        (rc = vs_launch_flag(argv, "--kv-cache-dtype", err, "%s", dt->word)) < 0)
        return rc;
    return 0;
}

static const vs_launch_release releases[] = {{"0.4", ARGS}, {"0.5", ARGS05}, {NULL, NULL}};

const vs_launch_rule vs_launch_sglang = {
    "sglang", "python -m sglang.launch_server", "version", releases, 0, "sglang", build, NULL};
