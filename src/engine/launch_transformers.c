/* transformers' command: the model loaded by from_pretrained with the keyword
 * arguments that decide its memory (dtype, device_map, max_memory,
 * attn_implementation), as a `python -c` line. transformers has no server of
 * its own: the line is what a script starts with. */
#include <stdio.h>
#include <string.h>

#include "engine/launch.h"

#define ARGS                                                                                       \
    "src/transformers/modeling_utils.py (PreTrainedModel.from_pretrained's keyword arguments, "    \
    "transformers v5.24.0); max_memory's sizes as accelerate's convert_file_size_to_int reads "    \
    "them"

#define MIB (1ull << 20)

/* What each GPU may give the weights: its budget less the KV cache the card
 * needs and the components that are not weights. */
static uint64_t weights_room(const vs_launch_in *in)
{
    const vs_engine_env *e = &in->ctx->env;
    const vs_fit_row *r = in->row;
    uint64_t w = e->weights_known ? e->weights_bytes : 0;
    uint64_t others = r->non_kv_bytes > w ? r->non_kv_bytes - w : 0;
    uint64_t held = others + r->need_bytes;
    return r->budget_bytes > held ? r->budget_bytes - held : 0;
}

/* device_map="auto" places whole modules on the GPUs up to max_memory and the
 * rest on the CPU (accelerate's infer_auto_device_map): the weights beyond
 * the GPU's room go to host memory, each forward pass streaming them in. */
static int plan(vs_launch_offload *out, const vs_launch_in *in, uint64_t shortfall, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    uint64_t room = weights_room(in), tp = e->tp ? e->tp : 1;
    (void)shortfall;
    if (!e->weights_known || room == 0)
        return vs_error_set(err, VS_EVALUE,
                            "the GPU's budget holds no weights beside the KV cache the card needs: "
                            "nothing to keep on it");
    /* one GPU: its room of weights, the KV cache and the other components */
    out->gpu_bytes =
        room + in->row->need_bytes +
        (in->row->non_kv_bytes > e->weights_bytes ? in->row->non_kv_bytes - e->weights_bytes : 0);
    out->host_bytes = (e->weights_bytes - room) * tp;
    snprintf(out->rule, sizeof out->rule,
             "device_map=\"auto\" with max_memory keeps %llu MiB of weights per GPU and puts the "
             "other %llu MiB on the CPU",
             (unsigned long long)(room / MIB),
             (unsigned long long)((e->weights_bytes - room) * tp / MIB));
    return 0;
}

/* the dtype keyword: the 16- and 32-bit formats by name, else the checkpoint's
 * own ("auto": a quantised config chooses its kept types) */
static const char *dtype_of(const char *format)
{
    if (format && !strcmp(format, "bf16"))
        return "torch.bfloat16";
    if (format && !strcmp(format, "fp16"))
        return "torch.float16";
    if (format && !strcmp(format, "fp32"))
        return "torch.float32";
    return "\"auto\"";
}

/* a Python string in double quotes, so the shell's single quotes hold it whole */
static void py_str(vs_buf *b, const char *s)
{
    vs_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            vs_buf_putc(b, '\\');
        vs_buf_putc(b, *s);
    }
    vs_buf_putc(b, '"');
}

static int build(json_t *argv, const vs_launch_in *in, vs_buf *note, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    const char *model = vs_launch_card_str(in->sheet, "model"),
               *rev = vs_launch_card_str(in->sheet, "revision"),
               *format = vs_launch_card_str(in->sheet, "format");
    const vs_engine_val *att = vs_engine_get(e, "attention"), *cache = vs_engine_get(e, "cache");
    uint64_t tp = e->tp ? e->tp : 1, room = weights_room(in), g;
    vs_buf py = VS_BUF_INIT;
    int rc;
    if (!model)
        vs_buf_puts(note, "the card names no model: MODEL stands for it");
    vs_buf_puts(&py, "import torch; from transformers import AutoModelForCausalLM; "
                     "model = AutoModelForCausalLM.from_pretrained(");
    py_str(&py, model ? model : "MODEL");
    if (rev) {
        vs_buf_puts(&py, ", revision=");
        py_str(&py, rev);
    }
    vs_buf_printf(&py, ", dtype=%s, device_map=\"auto\", max_memory={", dtype_of(format));
    for (g = 0; g < tp; g++)
        vs_buf_printf(&py, "%s%llu: \"%lluMiB\"", g ? ", " : "", (unsigned long long)g,
                      (unsigned long long)(room / MIB));
    if (in->off)
        vs_buf_printf(&py, ", \"cpu\": \"%lluMiB\"",
                      (unsigned long long)((in->off->host_bytes + MIB - 1) / MIB));
    vs_buf_puts(&py, "}");
    if (att && att->word)
        vs_buf_printf(&py, ", attn_implementation=\"%s\"",
                      !strcmp(att->word, "flash") ? "flash_attention_2" : att->word);
    vs_buf_puts(&py, ")");
    if (py.failed) {
        vs_buf_free(&py);
        return vs_error_oom(err);
    }
    if ((rc = vs_launch_word(argv, "python", err)) < 0 ||
        (rc = vs_launch_flag(argv, "-c", err, NULL)) < 0 ||
        (rc = vs_launch_word(argv, vs_buf_str(&py), err)) < 0) {
        vs_buf_free(&py);
        return rc;
    }
    vs_buf_free(&py);
    vs_buf_printf(note,
                  "%smax_memory caps each GPU's weights at its budget less the KV cache and the "
                  "other components (%llu MiB)",
                  note->len ? "; " : "", (unsigned long long)(room / MIB));
    if (tp > 1)
        vs_buf_puts(note, "; device_map=\"auto\" splits the layers over the GPUs (not a tensor "
                          "split): each GPU holds whole layers and their cache");
    if (cache && cache->word && !strcmp(cache->word, "static"))
        vs_buf_puts(note, "; cache=static is generate()'s cache_implementation=\"static\"");
    return 0;
}

static const vs_launch_release releases[] = {{"5.24.0", ARGS}, {NULL, NULL}};

const vs_launch_rule vs_launch_transformers = {
    "transformers", "python -c from_pretrained(...)", NULL, releases, 0, NULL, build, plan};
