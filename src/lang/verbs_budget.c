/* verbs_budget.c — the memory budget around the weights (see verbs_budget.h). */
#include "lang/verbs_budget.h"

#include <stdio.h>
#include <string.h>

#include "lang/format_weights.h"
#include "lang/verbs_common.h"
#include "model/gguf.h"
#include "model/hfcache.h"
#include "model/model.h"
#include "model/quant.h"
#include "render/component.h"
#include "render/envelope.h"
#include "render/formats.h"
#include "render/lines.h"
#include "render/result_memo.h"
#include "render/weights.h"
#include "sheet/envelope.h"
#include "sheet/kvlayout.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

/* ----------------------------------------------------------------- reserve */

const char *const vs_verb_reserve_keys[] = {"status", "source", "phase", "class", NULL};

/* The cell's string of a vocabulary word (vs_component_words). */
static json_t *ctx_word(void *ctx, const char *word)
{
    return vs_ctx_word(ctx, word);
}

/* The cell's view of a stored component (vs_component_words). */
static const vs_component_view *ctx_view(void *ctx, size_t at, const json_t *c)
{
    return vs_ctx_component_held(ctx, at, c);
}

/* The line's result. The component stored holds what the line said (it was
 * kept because it holds exactly those fields, or built from them), so the
 * result is drawn from the words alone: a cell run again takes it as kept
 * (render/result_memo.h), keyed on every one of them. */
static vs_bundle *reserve_result(vs_ctx *ctx, const vs_component_view *stored,
                                 const vs_reserve_said *said)
{
    vs_result_key key;
    vs_bundle *b;
    vs_result_key_init(&key, "reserve");
    vs_result_key_str(&key, said->name);
    vs_result_key_u64(&key, (uint64_t)said->lump << 1 | (uint64_t)said->known);
    vs_result_key_u64(&key, said->bytes);
    vs_result_key_str(&key, said->status);
    vs_result_key_str(&key, said->cls);
    vs_result_key_str(&key, said->phase);
    vs_result_key_str(&key, said->source);
    vs_result_key_u64(&key, (uint64_t)stored->managed);
    if (!(b = vs_result_memo_get(vs_ctx_results(ctx), &key))) {
        b = vs_render_reserve(stored, said);
        vs_result_memo_put(vs_ctx_results(ctx), &key, b);
    }
    return b;
}

int vs_verb_reserve(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "reserve AMOUNT | reserve NAME AMOUNT [status=estimated|measured] "
                         "[source=\"...\"] [phase=P] [class=C] | reserve NAME status=unknown | "
                         "reserve remove NAME";
    const vs_arg *a0 = vs_line_positional(line, 0), *a1 = vs_line_positional(line, 1);
    const vs_arg *amount_arg = NULL, *st, *src, *ph, *cl;
    const vs_arg *given[sizeof vs_verb_reserve_keys / sizeof *vs_verb_reserve_keys];
    const char *name, *status, *cls;
    json_t *sheet, *comp;
    vs_component_view stored;
    vs_vocab_status status_of;
    vs_vocab_class class_of;
    uint64_t bytes = 0;
    vs_component_words words;
    size_t at;
    int rc, known = 0;

    if ((rc = vs_line_take_keys(line, vs_verb_reserve_keys, given, err)) < 0)
        return rc;
    st = given[0]; /* vs_verb_reserve_keys' order */
    src = given[1];
    ph = given[2];
    cl = given[3];
    if (!a0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;

    if (!strcmp(a0->value, "remove") && !a0->quoted) {
        json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
        size_t i;
        if (!a1)
            return vs_error_set_at(err, VS_EVALUE, a0->line, a0->column,
                                   "expected `reserve remove NAME`");
        if ((rc = vs_line_no_extra(line, 2, "reserve remove NAME", err)) < 0)
            return rc;
        for (i = 0; i < json_array_size(comps); i++) {
            const char *n = json_string_value(json_object_get(json_array_get(comps, i), "name"));
            if (n && !strcmp(n, a1->value)) {
                vs_sheet_remove_component(sheet, i);
                /* the name lives in the parsed line, not in the removed object */
                return vs_verb_emit(ctx, vs_render_reserve_removed(a1->value), err);
            }
        }
        return vs_error_set_at(err, VS_ENOTFOUND, a1->line, a1->column,
                               "no component named '%s' on this sheet", a1->value);
    }

    if (a0->value[0] >= '0' && a0->value[0] <= '9') {
        /* one declared lump: reserve 6GiB */
        name = "reserve";
        amount_arg = a0;
        if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
            return rc;
    } else {
        name = a0->value;
        amount_arg = a1;
        if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
            return rc;
    }
    if (!name[0])
        return vs_error_set_at(err, VS_EVALUE, a0->line, a0->column, "a component needs a name");
    if (amount_arg) {
        if ((rc = vs_units_parse_bytes(&bytes, amount_arg->value, err)) < 0)
            return vs_arg_error(amount_arg, err, rc);
        if (bytes > (uint64_t)INT64_MAX)
            return vs_error_set_at(err, VS_EUNIT, amount_arg->line, amount_arg->column,
                                   "'%s' is more bytes than a record can hold", amount_arg->value);
        known = 1;
    }
    status = st ? st->value : (known ? vs_vocab_status_name(VS_STATUS_ESTIMATED) : NULL);
    if (!status)
        return vs_error_set_at(err, VS_EVALUE, a0->line, a0->column,
                               "expected an amount with a byte unit (reserve %s 2GiB) or "
                               "status=unknown for a component still to document",
                               name);
    if (vs_vocab_status_parse(&status_of, status, NULL) < 0) {
        char choices[80];
        return vs_error_set_at(
            err, VS_EVALUE, st->line, st->value_column, "status must be %s, not '%s'",
            vs_verb_join_names(choices, sizeof choices, vs_vocab_status_names, ", ", " or "),
            status);
    }
    if (status_of == VS_STATUS_UNKNOWN && known)
        return vs_error_set_at(err, VS_EVALUE, amount_arg->line, amount_arg->column,
                               "an unknown component has no amount: drop '%s' or say "
                               "status=estimated",
                               amount_arg->value);
    if (status_of != VS_STATUS_UNKNOWN && !known)
        return vs_error_set_at(err, VS_EVALUE, a0->line, a0->column,
                               "a %s component needs an amount with a byte unit (reserve %s 2GiB "
                               "status=%s)",
                               status, name, status);
    cls = cl ? cl->value : vs_verb_class_for(name);
    if (vs_vocab_class_parse(&class_of, cls, NULL) < 0) {
        char choices[100];
        return vs_error_set_at(
            err, VS_EVALUE, cl->line, cl->value_column, "class must be %s, not '%s'",
            vs_verb_join_names(choices, sizeof choices, vs_vocab_class_names, ", ", " or "), cls);
    }
    words.word = ctx_word;
    words.view = ctx_view;
    words.data = ctx;
    words.hint = vs_ctx_component_next(ctx);
    words.checked = 1; /* the line's words: the parser checked the cell as UTF-8 */
    if ((rc = vs_sheet_put_component(&comp, &stored, &at, sheet, &words, name, known, bytes, status,
                                     src ? src->value : "declared", ph ? ph->value : NULL, cls,
                                     err)) < 0)
        return vs_arg_error(a0, err, rc);
    /* the verbs that walk every component after a long reserve take this
     * view rather than reading the component again */
    vs_ctx_component_stored(ctx, at, comp, &stored);
    {
        vs_reserve_said said = {name,
                                amount_arg == a0,
                                known,
                                bytes,
                                status,
                                cls,
                                ph ? ph->value : NULL,
                                src ? src->value : "declared"};
        return vs_verb_emit(ctx, reserve_result(ctx, &stored, &said), err);
    }
}

/* --------------------------------------------------------------- placement */

const char *const vs_verb_placement_words[] = {"single", "ddp", "zero", "fsdp", "tensor", NULL};
const char *const vs_verb_placement_keys[] = {"stage", "gpus", "offload", "split", NULL};

/* split=3,1: llama.cpp's -ts, the share of the layers each GPU holds, one whole
 * number per GPU of a tensor placement; kept as the placement's "split". */
static int placement_split(json_t *pj, const vs_line *line, const vs_placement *p, vs_error *err)
{
    const vs_arg *sp = vs_line_pair(line, "split");
    json_t *arr;
    const char *c;
    uint64_t v = 0;
    int digits = 0;
    if (!sp)
        return 0;
    if (p->kind != VS_PLACE_TENSOR)
        return vs_error_set_at(err, VS_EVALUE, sp->line, sp->column,
                               "split= goes with placement tensor gpus=N: the share of the "
                               "layers each GPU holds (llama.cpp's -ts)");
    if (!(arr = json_array()))
        return vs_error_oom(err);
    for (c = sp->value;; c++) {
        if (*c >= '0' && *c <= '9' && v < 1000000) {
            v = v * 10 + (uint64_t)(*c - '0');
            digits = 1;
            continue;
        }
        if ((*c == ',' || *c == '\0') && digits && v > 0) {
            json_array_append_new(arr, json_integer((json_int_t)v));
            v = 0;
            digits = 0;
            if (*c == '\0')
                break;
            continue;
        }
        json_decref(arr);
        return vs_error_set_at(err, VS_EVALUE, sp->line, sp->value_column,
                               "split=: expected whole numbers above 0, one per GPU, "
                               "comma-separated (split=3,1)");
    }
    if (json_array_size(arr) != p->gpus) {
        size_t n = json_array_size(arr);
        json_decref(arr);
        return vs_error_set_at(err, VS_EVALUE, sp->line, sp->value_column,
                               "split= has %zu shares for %u GPUs: one share per GPU", n, p->gpus);
    }
    if (json_object_set_new(pj, "split", arr))
        return vs_error_oom(err);
    return 0;
}

int vs_verb_placement(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "placement single | ddp gpus=N | zero stage=1|2|3 gpus=N | fsdp gpus=N | "
                         "tensor gpus=N [split=3,1] | placement offload=model|sequential";
    const vs_arg *a = vs_line_positional(line, 0), *gp = vs_line_pair(line, "gpus");
    const vs_arg *off = vs_line_pair(line, "offload");
    vs_placement p = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_NONE};
    uint64_t gpus = 1, stage = 0;
    int rc, have_gpus = 0, have_stage = 0;
    json_t *sheet, *pj;

    if ((rc = vs_line_check_keys(line, vs_verb_placement_keys, err)) < 0)
        return rc;
    if (!a && !off)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, a ? 1 : 0, syntax, err)) < 0)
        return rc;
    if (a && (rc = vs_placement_kind_parse(&p.kind, a->value, err)) < 0)
        return vs_arg_error(a, err, rc);
    if (off && (rc = vs_offload_parse(&p.offload, off->value, err)) < 0)
        return vs_arg_error(off, err, rc);
    if (!a) /* `placement offload=model`: one GPU */
        a = off;
    if ((rc = vs_line_get_uint(line, "gpus", 0, &gpus, &have_gpus, err)) < 0 ||
        (rc = vs_line_get_uint(line, "stage", 0, &stage, &have_stage, err)) < 0)
        return rc;
    if (p.kind != VS_PLACE_SINGLE && !have_gpus)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "placement %s needs gpus=N: several GPUs only count with their "
                               "number named",
                               a->value);
    if (gpus > 1000000)
        return vs_error_set_at(err, VS_EVALUE, gp->line, gp->value_column,
                               "gpus= must be 1 to 1000000");
    p.gpus = (unsigned)gpus;
    p.stage = (unsigned)(stage > 3 ? 4 : stage);
    if (p.kind == VS_PLACE_ZERO && !have_stage)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "placement zero needs stage=1, 2 or 3 (1 shards the optimizer "
                               "state, 2 also the gradients, 3 also the parameters)");
    if ((rc = vs_placement_check(&p, err)) < 0)
        return vs_arg_error(have_stage && p.kind != VS_PLACE_ZERO ? vs_line_pair(line, "stage")
                                                                  : (gp ? gp : a),
                            err, rc);
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    pj = vs_placement_to_json(&p);
    if (!pj)
        return vs_error_oom(err);
    if ((rc = placement_split(pj, line, &p, err)) < 0) {
        json_decref(pj);
        return rc;
    }
    vs_sheet_card_touch(sheet);
    if (vs_sheet_set(sheet, VS_SK_PLACEMENT, pj))
        return vs_error_oom(err);
    {
        /* what one GPU holds of the weights under offload=, and the KV heads
         * each GPU holds under a tensor placement, when the card knows them */
        json_t *kvj = json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), "kv_layout");
        vs_envelope env;
        vs_kv_layout l;
        int env_known = p.offload != VS_OFFLOAD_NONE &&
                        vs_envelope_compute(&env, sheet, NULL, NULL) == 0 && env.weights_known;
        int kv_known = p.kind == VS_PLACE_TENSOR && json_is_array(kvj) &&
                       vs_kv_layout_from_json(&l, kvj, NULL) == 0 && l.n;
        return vs_verb_emit(
            ctx, vs_render_placement(&p, env_known ? &env : NULL, kv_known ? &l : NULL), err);
    }
}

/* ----------------------------------------------------- weights and envelope */

const char *const vs_verb_weights_keys[] = {"from", "sha256", "file", NULL};

static int no_weights(const json_t *sheet, vs_error *err)
{
    uint64_t p;
    if (!vs_sheet_card_uint(sheet, VS_CK_PARAMS, &p))
        return vs_error_set(err, VS_EVALUE,
                            "no weights yet: the card has no parameter count (`model NAME "
                            "params=COUNT`, or config=PATH, or `weights from=PATH`)");
    return vs_error_set(err, VS_EVALUE,
                        "no weights yet: the card has no format (`format bf16`, or bits=N)");
}

int vs_verb_weights(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *from = vs_line_pair(line, "from"), *sh = vs_line_pair(line, "sha256");
    const vs_arg *file = vs_line_pair(line, "file");
    int tally;
    json_t *sheet, *files = NULL;
    vs_bundle *b;
    vs_envelope env;
    int rc, hash = 0;
    if ((rc = vs_line_check_keys(line, vs_verb_weights_keys, err)) < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 0, "weights [from=PATH | file=NAME] [sha256=yes]", err)) < 0)
        return rc;
    if (from && file)
        return vs_error_set_at(err, VS_EVALUE, file->line, file->column,
                               "give from=PATH (files on disk) or file=NAME (a file of the card's "
                               "Hugging Face repository), not both");
    if (sh) {
        if (!from)
            return vs_error_set_at(err, VS_EVALUE, sh->line, sh->column,
                                   "sha256= goes with from=PATH");
        if (!strcmp(sh->value, "yes") || !strcmp(sh->value, "true"))
            hash = 1;
        else if (strcmp(sh->value, "no") && strcmp(sh->value, "false"))
            return vs_error_set_at(err, VS_EVALUE, sh->line, sh->value_column,
                                   "sha256= must be yes or no, not '%s'", sh->value);
    }
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    {
        const char *sc =
            json_string_value(json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "scheme"));
        tally = sc && strstr(sc, "from quantization_config"); /* model/quant_apply.c's */
    }
    vs_sheet_card_touch(sheet); /* the files' count becomes the card's params */
    if (from && (rc = vs_model_apply_weights_files(sheet, from->value, hash, &files, err)) < 0)
        return vs_arg_error(from, err, rc);
    if (!from && (file || json_is_null(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES)) || tally)) {
        /* a card read from a Hugging Face cache snapshot: that snapshot's files
         * (or file=, one of them), else their headers from the Hub; the real
         * files beat a quantization_config's tally */
        char msg[VS_ERROR_MESSAGE_MAX];
        vs_hub_progress hp;
        vs_hub_stats hub = {0, 0, 0, 0};
        vs_verb_hub_progress(ctx, &hp);
        rc = vs_hfcache_card_weights(sheet, file ? file->value : NULL, &files, &hp, &hub, err);
        if (rc == 1 && file)
            return vs_error_set_at(err, VS_EVALUE, file->line, file->column,
                                   "file= names a file of the card's Hugging Face repository: "
                                   "`model ORG/NAME` first (found in the local cache or on "
                                   "the Hub, so that the card has its commit)");
        if (hub.requests) { /* what the Hub cost, said once at the end */
            snprintf(msg, sizeof msg,
                     "%s: %u weights headers read from the Hub, %llu bytes in %u requests, "
                     "%llu ms; kept in the local cache\n",
                     vs_sheet_card_str(sheet, VS_CK_MODEL), hub.files,
                     (unsigned long long)hub.bytes, hub.requests, (unsigned long long)hub.ms);
            vs_ctx_stream(ctx, "stderr", msg, strlen(msg));
            vs_ctx_effect(ctx, "read weights headers from the Hub into the local cache");
        }
        if (rc < 0 && tally && !file && rc != VS_ENOMEM && rc != VS_EINTERRUPT) {
            rc = 0; /* no files to read: the config's tally stays the weights */
            vs_error_clear(err);
        }
        if (rc < 0) {
            snprintf(msg, sizeof msg, "%s", err->message);
            return vs_error_set_at(err, rc, file ? file->line : line->line,
                                   file ? file->value_column : line->column, "%s", msg);
        }
    }
    if ((rc = vs_envelope_compute(&env, sheet, vs_ctx_component_views(ctx, sheet), err)) < 0) {
        json_decref(files);
        return rc;
    }
    if (!env.weights_known) {
        json_decref(files);
        return no_weights(sheet, err);
    }
    b = vs_render_weights(sheet, &env, files);
    json_decref(files);
    return vs_verb_emit(ctx, b, err);
}

int vs_verb_envelope(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet;
    vs_envelope env;
    const vs_component_views *views;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 0, "envelope", err)) < 0)
        return rc;
    if (!(sheet = vs_verb_sheet_of(ctx, err)) || !(views = vs_ctx_component_views(ctx, sheet)))
        return vs_error_oom(err);
    /* the components read once, for the sum, the chart, the table and the payload */
    if ((rc = vs_envelope_compute(&env, sheet, views, err)) == 0)
        rc = env.weights_known
                 ? vs_verb_emit(ctx,
                                vs_render_envelope_memo(sheet, &env, views, vs_ctx_chart_memo(ctx)),
                                err)
                 : no_weights(sheet, err);
    return rc;
}

const char *const vs_verb_formats_keys[] = {"bits", "group", "block", NULL};

int vs_verb_formats(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const vs_vocab_format defaults[] = {VS_FORMAT_FP32, VS_FORMAT_BF16, VS_FORMAT_INT8,
                                               VS_FORMAT_INT4};
    json_t *sheet;
    vs_envelope env;
    vs_placement pl;
    vs_format_row rows[32];
    vs_format_weights fw[32];
    vs_format_keys keys[32];
    const vs_arg *at[32] = {NULL};
    char words[32][32];
    size_t n = 0, i;
    uint64_t params;
    int rc;
    memset(rows, 0, sizeof rows);
    memset(keys, 0, sizeof keys);
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    for (i = 0; i < line->nargs; i++) {
        const vs_arg *a = &line->args[i];
        uint64_t v = 0;
        if (a->kind == VS_ARG_PAIR && strcmp(a->key, "bits") && strcmp(a->key, "group") &&
            strcmp(a->key, "block"))
            return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                   "unknown key '%s=' for `formats`; expected format names, "
                                   "bits=N, or a scheme's keys (gptq bits=3 group=64, fp8 "
                                   "block=128)",
                                   a->key);
        if (a->kind == VS_ARG_PAIR) {
            if ((rc = vs_units_parse_uint(&v, a->value, err)) < 0)
                return vs_arg_error(a, err, rc);
            /* a key of the scheme just before it ("gptq bits=3"), else a plain bits=N row */
            if (n && at[n - 1]->kind != VS_ARG_PAIR &&
                vs_format_weights_takes(words[n - 1], a->key)) {
                if (v < 1)
                    return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                                           "%s= must be at least 1", a->key);
                if (!strcmp(a->key, "bits"))
                    keys[n - 1].bits = v;
                else if (!strcmp(a->key, "group"))
                    keys[n - 1].group = v;
                else
                    keys[n - 1].block = v;
                continue;
            }
            if (strcmp(a->key, "bits"))
                return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                       "%s= goes after the scheme that takes it (gptq or awq "
                                       "group=, fp8 block=)",
                                       a->key);
            if (v < 1 || v > 64)
                return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                                       "bits= must be 1 to 64");
        }
        if (n == sizeof rows / sizeof rows[0])
            return vs_error_set_at(err, VS_EVALUE, a->line, a->column, "at most 32 formats");
        if (a->kind == VS_ARG_PAIR)
            snprintf(words[n], sizeof words[n], "bits=%llu", (unsigned long long)v);
        else
            snprintf(words[n], sizeof words[n], "%s", a->value);
        at[n++] = a;
    }
    if (n == 0) {
        for (i = 0; i < 4; i++)
            snprintf(words[i], sizeof words[i], "%s", vs_vocab_format_name(defaults[i]));
        n = 4;
    }
    if (!vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`formats` needs the card's parameter count (`model NAME "
                               "params=COUNT` or config=PATH)");
    if ((rc = vs_envelope_compute(&env, sheet, vs_ctx_component_views(ctx, sheet), err)) < 0 ||
        (rc = vs_placement_from_sheet(&pl, sheet, err)) < 0)
        return rc;
    for (i = 0; i < n; i++) {
        if ((rc = vs_format_weights_of(sheet, words[i], &keys[i], &fw[i], err)) < 0)
            return at[i] ? vs_arg_error(at[i], err, rc) : rc;
        rows[i].format = fw[i].name;
        rows[i].bits = fw[i].bits;
        rows[i].bits_text = fw[i].bits_text[0] ? fw[i].bits_text : NULL;
        rows[i].basis = fw[i].basis[0] ? fw[i].basis : NULL;
        rows[i].weights_bytes = fw[i].bytes;
        rows[i].weights_gpu_bytes =
            vs_placement_per_gpu(&pl, VS_VOCAB_WEIGHTS, rows[i].weights_bytes);
        if (__builtin_add_overflow(rows[i].weights_gpu_bytes, env.reserve_bytes,
                                   &rows[i].envelope_bytes))
            return vs_error_set(err, VS_EUNIT, "the envelope does not fit in 64 bits");
    }
    return vs_verb_emit(ctx, vs_render_formats(sheet, &env, rows, n), err);
}
