/* verbs_common.c — the helpers the verb files share (see verbs_common.h). */
#include "lang/verbs_common.h"

#include <stdio.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/json.h"

int vs_verb_emit(vs_ctx *ctx, vs_bundle *bundle_take, vs_error *err)
{
    if (!bundle_take)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle_take);
    return 0;
}

json_t *vs_verb_sheet_of(vs_ctx *ctx, vs_error *err)
{
    json_t *s = vs_ctx_sheet(ctx);
    if (!s)
        vs_error_oom(err);
    return s;
}

int vs_verb_positional_uint(const vs_line *line, const char *syntax, uint64_t *out, vs_error *err)
{
    const vs_arg *a = vs_line_positional(line, 0);
    int rc;
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_units_parse_count(out, a->value, err)) < 0) /* 4096, 32k, 32Ki */
        return vs_arg_error(a, err, rc);
    if (*out == 0 || *out > (uint64_t)INT64_MAX)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "expected a whole number from 1 to 9,223,372,036,854,775,807 "
                               "(what a record holds), not %s",
                               a->value);
    return vs_line_no_extra(line, 1, syntax, err);
}

int vs_verb_card_set(json_t *sheet, vs_card_key k, json_t *value_take, vs_error *err)
{
    json_t *card = vs_sheet_card(sheet);
    const char *key = vs_sheet_card_key_names[k];
    size_t d;
    if (!value_take)
        return vs_error_oom(err);
    /* A value equal to the one the card holds (a cell run again) leaves the
     * card where it was: its generation stays, and what follows the card has
     * nothing to walk after the line (lang/derive.h). */
    if (!json_is_object(card) || !json_equal(json_object_get(card, key), value_take))
        vs_sheet_card_touch(sheet);
    if (!json_is_object(card)) {
        card = json_object();
        if (!card || json_object_set_new(sheet, "card", card)) {
            json_decref(value_take);
            return vs_error_oom(err);
        }
    }
    if (json_object_set_new(card, key, value_take))
        return vs_error_oom(err);
    /* The limit stage is the card's dimensions by definition: it follows
     * the card rather than keeping the value the card had when it was written. */
    for (d = 0; d < VS_SHEET_NDIMS && vs_sheet_card_dims[d] != k; d++)
        ;
    if (d < VS_SHEET_NDIMS) {
        size_t i;
        json_t *st;
        vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_STAGES), i, st)
        {
            const char *name = json_string_value(json_object_get(st, "name"));
            if (name && !strcmp(name, "limit") &&
                json_object_set(st, key, json_object_get(card, key)) < 0)
                return vs_error_oom(err);
        }
    }
    return 0;
}

const char *vs_verb_class_for(const char *name)
{
    /* component names, each with the class it implies */
    static const struct {
        const char *name;
        vs_vocab_class cls;
    } implied[] = {
        {"kv_cache", VS_CLASS_KV_CACHE},         {"gradients", VS_CLASS_GRADIENTS},
        {"optimizer_state", VS_CLASS_OPTIMIZER}, {"master_copy", VS_CLASS_OPTIMIZER},
        {"activations", VS_CLASS_ACTIVATIONS},   {"adapter_weights", VS_CLASS_PARAMETERS},
        {"quant_metadata", VS_CLASS_PARAMETERS},
    };
    size_t i;
    /* the first letter before strcmp: every reserve line asks, and most
     * names (part_12, workspace) match none of these */
    for (i = 0; i < sizeof implied / sizeof implied[0]; i++)
        if (name[0] == implied[i].name[0] && !strcmp(name, implied[i].name))
            return vs_vocab_class_name(implied[i].cls);
    return vs_vocab_class_name(VS_CLASS_OTHER);
}

const char *vs_verb_join_names(char *out, size_t cap, const char *const *names, const char *sep,
                               const char *last)
{
    size_t i, used = 0;
    if (!cap)
        return out;
    out[0] = '\0';
    for (i = 0; names[i] && used < cap; i++) {
        int n = snprintf(out + used, cap - used, "%s%s",
                         i == 0         ? ""
                         : names[i + 1] ? sep
                                        : last,
                         names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return out;
}

int vs_verb_join_positionals(const vs_line *line, size_t from, vs_buf *out)
{
    size_t i, n = vs_line_npositional(line);
    for (i = from; i < n; i++) {
        if (i > from)
            vs_buf_putc(out, ' ');
        vs_buf_puts(out, vs_line_positional(line, i)->value);
    }
    return vs_buf_failed(out) ? -1 : 0;
}

static void hub_line(void *ctx, const char *text)
{
    vs_ctx_stream(ctx, "stderr", text, strlen(text));
}

static int hub_interrupted(void *ctx)
{
    return vs_ctx_interrupted(ctx);
}

void vs_verb_hub_progress(vs_ctx *ctx, vs_hub_progress *p)
{
    p->ctx = ctx;
    p->line = hub_line;
    p->interrupted = hub_interrupted;
    p->offline = vs_ctx_hub_offline(ctx);
}
