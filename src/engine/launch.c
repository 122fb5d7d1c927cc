/* The launch rules' table and what they share (engine/launch.h). */
#include "engine/launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sheet/classify.h"
#include "sheet/sheet.h"

const vs_launch_rule *const vs_launch_rules[] = {&vs_launch_vllm,         &vs_launch_llamacpp,
                                                 &vs_launch_sglang,       &vs_launch_tensorrt_llm,
                                                 &vs_launch_transformers, NULL};

const vs_launch_rule *vs_launch_find(const char *engine)
{
    size_t i;
    for (i = 0; engine && vs_launch_rules[i]; i++)
        if (!strcmp(vs_launch_rules[i]->engine, engine))
            return vs_launch_rules[i];
    return NULL;
}

const vs_launch_release *vs_launch_release_of(const vs_launch_rule *r, const vs_engine_env *e)
{
    const vs_engine_val *v = r->release_key ? vs_engine_get(e, r->release_key) : NULL;
    size_t i;
    for (i = 0; r->releases[i + 1].name; i++)
        if (v && v->word && !strcmp(v->word, r->releases[i].name))
            break;
    return &r->releases[i];
}

void vs_launch_engine_list(char *out, size_t len)
{
    size_t i, n = 0;
    out[0] = '\0';
    for (i = 0; vs_launch_rules[i] && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%s",
                              !i                       ? ""
                              : vs_launch_rules[i + 1] ? ", "
                                                       : " or ",
                              vs_launch_rules[i]->engine);
}

int vs_launch_word(json_t *argv, const char *word, vs_error *err)
{
    if (json_array_append_new(argv, json_string(word)))
        return vs_error_oom(err);
    return 0;
}

int vs_launch_flag(json_t *argv, const char *flag, vs_error *err, const char *fmt, ...)
{
    char v[512];
    va_list ap;
    int rc;
    if ((rc = vs_launch_word(argv, flag, err)) < 0)
        return rc;
    if (!fmt)
        return 0;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    return vs_launch_word(argv, v, err);
}

void vs_launch_ppm(char *out, size_t len, uint64_t ppm)
{
    char frac[8];
    size_t n;
    snprintf(frac, sizeof frac, "%06llu", (unsigned long long)(ppm % 1000000));
    for (n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
        frac[n - 1] = '\0';
    if (n)
        snprintf(out, len, "%llu.%s", (unsigned long long)(ppm / 1000000), frac);
    else
        snprintf(out, len, "%llu", (unsigned long long)(ppm / 1000000));
}

const char *vs_launch_card_str(const json_t *sheet, const char *key)
{
    return json_string_value(json_object_get(vs_sheet_card(sheet), key));
}

uint64_t vs_launch_arch_count(const json_t *sheet, const char *key)
{
    const json_t *v = json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static int safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_./:=,+@%-", c) != NULL;
}

void vs_launch_shell_join(vs_buf *b, const json_t *argv)
{
    size_t i;
    const json_t *w;
    json_array_foreach(argv, i, w)
    {
        const char *s = json_string_value(w), *p;
        int plain = s && *s;
        for (p = s; plain && *p; p++)
            plain = safe_char(*p);
        if (i)
            vs_buf_putc(b, ' ');
        if (plain) {
            vs_buf_puts(b, s);
            continue;
        }
        /* single quotes keep everything but the quote itself, written '\'' */
        vs_buf_putc(b, '\'');
        for (p = s ? s : ""; *p; p++) {
            if (*p == '\'')
                vs_buf_puts(b, "'\\''");
            else
                vs_buf_putc(b, *p);
        }
        vs_buf_putc(b, '\'');
    }
}

/* Tokens per second fall with every byte the CPU holds: each token reads the
 * offloaded weights from host memory. Qualitative: no figure is claimed. */
#define THROUGHPUT_NOTE                                                                            \
    "throughput drops: every token reads the offloaded weights from host memory and runs them "    \
    "on the CPU"

static void human(char *out, size_t len, uint64_t bytes)
{
    snprintf(out, len, "%llu.%02llu GiB", (unsigned long long)(bytes >> 30),
             (unsigned long long)(((bytes & ((1ull << 30) - 1)) * 100) >> 30));
}

/* The sheet's offer of that name, or NULL. */
static const json_t *offer_of(const json_t *sheet, const char *name)
{
    const json_t *o;
    size_t i;
    json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), i, o)
    {
        const char *n = json_string_value(json_object_get(o, "name"));
        if (n && !strcmp(n, name))
            return o;
    }
    return NULL;
}

/* The offload when the fit excludes the offer for want of memory: 0 and *off
 * filled, or VS_EVALUE with the reason (the fit's, or the host's). */
static int offload(vs_launch_offload *off, const vs_launch_rule *r, const vs_launch_in *in,
                   vs_error *err)
{
    const vs_fit_row *row = in->row;
    const json_t *hb;
    uint64_t host, shortfall;
    char h[48], need[48];
    int rc;
    hb = json_object_get(offer_of(in->sheet, row->gpu), "host_bytes");
    if (!row->capacity_known || !row->need_known ||
        row->kv_pool_bytes >= (int64_t)row->need_bytes || !r->plan)
        return vs_error_set(err, VS_EVALUE, "%s does not hold the card under %s: %s", row->gpu,
                            r->engine, row->note[0] ? row->note : "the fit excludes it");
    shortfall = (uint64_t)((int64_t)row->need_bytes - row->kv_pool_bytes);
    if (!json_is_integer(hb))
        return vs_error_set(err, VS_EVALUE,
                            "%s does not hold the card under %s: %s; with the machine's host "
                            "memory declared (`gpu \"%s\" host=64GB`) the weights could be "
                            "offloaded to it",
                            row->gpu, r->engine, row->note, row->gpu);
    host = (uint64_t)json_integer_value(hb);
    if ((rc = r->plan(off, in, shortfall, err)) < 0)
        return rc;
    if (off->host_bytes > host) {
        human(h, sizeof h, host);
        human(need, sizeof need, off->host_bytes);
        return vs_error_set(err, VS_EVALUE,
                            "exclude: %s's host memory (%s) is smaller than the offloaded part "
                            "(%s: %s)",
                            row->gpu, h, need, off->rule);
    }
    return 0;
}

/* placement split=3,1, or an offer of mixed cards (devices=): each GPU's
 * share as the fit sized it (engine/fit_devices.c: llama.cpp's -ts splits
 * whole layers, with their KV cache; without -ts it splits by each device's
 * free memory, here each card's total), each within its own budget. */
static int split_devices(json_t **devices, const vs_launch_rule *r, const vs_launch_in *in,
                         vs_buf *note, vs_error *err)
{
    const json_t *split = vs_sheet_placement_get(in->sheet, VS_PK_SPLIT);
    const vs_fit_row *row = in->row;
    int by_split = json_array_size(split) > 0;
    size_t i;
    char b[48];
    if (!r->splits && by_split)
        return vs_error_set(err, VS_EVALUE,
                            "%s splits each layer evenly over the GPUs: an uneven split= is "
                            "llama.cpp's -ts (engine llamacpp)",
                            r->engine);
    if (!row->ndevices)
        return 0;
    if (!row->devices_uneven) {
        vs_buf_printf(note,
                      "%smixed cards: %s splits each layer evenly, so the smallest card bounds "
                      "every GPU's share",
                      note->len ? "; " : "", r->engine);
        return 0;
    }
    if (!(*devices = json_array()))
        return vs_error_oom(err);
    vs_buf_printf(note, "%s%s", note->len ? "; " : "",
                  by_split ? "split"
                           : "mixed cards, split by their totals as llama.cpp splits by free "
                             "memory without -ts:");
    for (i = 0; i < row->ndevices; i++) {
        const vs_fit_device *d = &row->devices[i];
        json_t *j;
        if (!d->holds) /* the fit excludes the offer then: said before this */
            return vs_error_set(err, VS_EVALUE, "%s does not hold the card: %s", row->gpu,
                                row->note);
        j = json_pack("{s:s, s:I}", "device", "gpu", "bytes", (json_int_t)d->share_bytes);
        if (j && d->name[0])
            json_object_set_new(j, "name", json_string(d->name));
        if (!j || json_array_append_new(*devices, j))
            return vs_error_oom(err);
        human(b, sizeof b, d->share_bytes);
        vs_buf_printf(note, "%s GPU %zu%s%s%s %s", i ? "," : "", i, d->name[0] ? " (" : "", d->name,
                      d->name[0] ? ")" : "", b);
    }
    return 0;
}

int vs_launch_build(json_t **out, const vs_launch_in *in_, vs_error *err)
{
    const vs_launch_rule *r = vs_launch_find(in_->ctx->engine->name);
    json_t *argv = NULL, *o = NULL, *devices = NULL;
    vs_buf note = VS_BUF_INIT, cmd = VS_BUF_INIT;
    vs_launch_offload off;
    vs_launch_in inb = *in_, *in = &inb;
    int rc;
    char names[160];
    *out = NULL;
    if (!r) {
        vs_launch_engine_list(names, sizeof names);
        return vs_error_set(err, VS_ENOTFOUND,
                            "engine %s has no launch command: declare %s with `engine NAME`",
                            in->ctx->engine->name, names);
    }
    memset(&off, 0, sizeof off);
    in->off = NULL;
    if (in->row->verdict == VS_VERDICT_EXCLUDE) {
        if ((rc = offload(&off, r, in, err)) < 0)
            return rc;
        in->off = &off;
    }
    if (!(argv = json_array()))
        return vs_error_oom(err);
    if ((rc = r->build(argv, in, &note, err)) < 0)
        goto done;
    if (in->off) {
        unsigned cards = in->row->cards ? in->row->cards : 1, g;
        char gb[48], hb[48];
        if (!(devices = json_array())) {
            rc = vs_error_oom(err);
            goto done;
        }
        for (g = 0; g < cards; g++)
            json_array_append_new(devices, json_pack("{s:s, s:I}", "device", "gpu", "bytes",
                                                     (json_int_t)off.gpu_bytes));
        {
            json_t *h =
                json_pack("{s:s, s:I}", "device", "host", "bytes", (json_int_t)off.host_bytes);
            if (h && off.mapped_bytes)
                json_object_set_new(h, "mapped_bytes", json_integer((json_int_t)off.mapped_bytes));
            json_array_append_new(devices, h);
        }
        human(gb, sizeof gb, off.gpu_bytes);
        human(hb, sizeof hb, off.host_bytes);
        vs_buf_printf(&note, "%soffload: %s; per GPU %s, host %s resident", note.len ? "; " : "",
                      off.rule, gb, hb);
        if (off.mapped_bytes) {
            char mb[48];
            human(mb, sizeof mb, off.mapped_bytes);
            /* what llama.cpp prints as its host model buffer: the mapped span,
             * in the page cache, of which only the pages read become resident */
            vs_buf_printf(&note,
                          ", %s of the file mapped (llama.cpp's host model buffer: the span from "
                          "the first to the last tensor on the CPU, in the page cache; %s)",
                          mb,
                          off.mapped_from_file
                              ? "in the GGUF's own order"
                              : "no GGUF on the sheet: in the order llama-quantize writes, the "
                                "tensors outside the layers first, then each layer in turn");
        }
        vs_buf_puts(&note, "; " THROUGHPUT_NOTE);
    }
    if (!in->off && (rc = split_devices(&devices, r, in, &note, err)) < 0)
        goto done;
    if (in->row->verdict == VS_VERDICT_TO_CONFIRM)
        vs_buf_printf(&note, "%sthe fit is to-confirm (%s): the figures are upper bounds",
                      note.len ? "; " : "", in->row->note);
    vs_launch_shell_join(&cmd, argv);
    if (note.failed || cmd.failed) {
        rc = vs_error_oom(err);
        goto done;
    }
    o = json_pack("{s:s, s:s, s:s, s:O, s:s, s:s?}", "offer", in->row->gpu, "engine", r->engine,
                  "release", vs_launch_release_of(r, &in->ctx->env)->source, "argv", argv,
                  "command", vs_buf_str(&cmd), "note", note.len ? vs_buf_str(&note) : NULL);
    if (o && devices && json_object_set(o, "devices", devices)) {
        json_decref(o);
        o = NULL;
    }
    if (!o) {
        rc = vs_error_oom(err);
        goto done;
    }
    *out = o;
    rc = 0;
done:
    json_decref(argv);
    json_decref(devices);
    vs_buf_free(&note);
    vs_buf_free(&cmd);
    return rc;
}

int vs_launch_fit_column(json_t **out, const json_t *sheet, const vs_fit_ctx *ctx,
                         const vs_fit_row *rows, size_t n, vs_error *err)
{
    json_t *col;
    size_t i;
    *out = NULL;
    if (!vs_launch_find(ctx->engine->name))
        return 0;
    if (!(col = json_array()))
        return vs_error_oom(err);
    for (i = 0; i < n; i++) {
        vs_launch_in in;
        json_t *l = NULL;
        vs_error why;
        int rc;
        in.sheet = sheet;
        in.ctx = ctx;
        in.row = &rows[i];
        in.off = NULL;
        rc = vs_launch_build(&l, &in, &why);
        if (rc == VS_EVALUE)
            l = json_pack("{s:s, s:s}", "offer", rows[i].gpu, "reason", why.message);
        else if (rc < 0) {
            json_decref(col);
            *err = why;
            return rc;
        }
        if (!l || json_array_append_new(col, l)) {
            json_decref(col);
            return vs_error_oom(err);
        }
    }
    *out = col;
    return 0;
}
