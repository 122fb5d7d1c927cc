/* The engine verbs: `engine` (the runtime the card runs under) and `fit`, rows
 * of vs_verbs_engine (lang/verb.h); and `estimate runtime`, a row of the
 * estimators' table (lang/estimators.def), which reads the engine, the model
 * and the placement and stores the engine's runtime items as estimated
 * components. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "engine/cuda_graphs.h"
#include "engine/engine.h"
#include "engine/fit.h"
#include "engine/launch.h"
#include "lang/derive.h"
#include "lang/format_weights.h"
#include "lang/verb.h"
#include "lang/verbs_common.h"
#include "model/gguf.h"
#include "model/quant.h"
#include "render/bundle.h"
#include "render/fit.h"
#include "render/runtime.h"
#include "sheet/classify.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"

/* The source every component this verb adds starts with, so that a later
 * `engine` line knows which ones are its own (a declared reserve or a
 * measurement of the same name is never touched). */
#define ITEM_SOURCE "runtime item of engine "
#define EST_SOURCE "engine estimate: "

/* An item `estimate runtime` made: it follows the engine through lang/derive. */
static int derived_runtime(const json_t *comp)
{
    const char *e =
        json_string_value(json_object_get(json_object_get(comp, "derived"), "estimator"));
    return e && !strcmp(e, "runtime");
}

static int ours(const json_t *comp)
{
    const char *src = json_string_value(json_object_get(comp, "source"));
    if (derived_runtime(comp))
        return 1;
    return src && (!strncmp(src, ITEM_SOURCE, strlen(ITEM_SOURCE)) ||
                   !strncmp(src, EST_SOURCE, strlen(EST_SOURCE)));
}

/* The catalogue's architecture word of the sheet's first offer with one; gpu gets
 * that offer's name and catalogue name (the board they say, SXM or PCIe, decides
 * NCCL's share where a generation has both). */
static const char *offer_architecture(const json_t *sheet, char *gpu, size_t gpu_size)
{
    size_t i;
    json_t *o;
    gpu[0] = '\0';
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), i, o)
    {
        vs_gpu_spec spec;
        vs_error err;
        const char *cat = json_string_value(json_object_get(o, "catalog"));
        if (cat && vs_catalog_find(&spec, cat, &err) == 0) {
            const char *a = json_string_value(json_object_get(spec.entry, "architecture"));
            const char *name = json_string_value(json_object_get(o, "name"));
            if (a) {
                snprintf(gpu, gpu_size, "%s %s", name ? name : "", cat);
                return a;
            }
        }
    }
    return NULL;
}

static uint64_t arch_uint(const json_t *sheet, const char *key)
{
    const json_t *v = json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* 1 when the card's architecture holds key with the string value word ("mlp": "plain") */
static int arch_is(const json_t *sheet, const char *key, const char *word)
{
    const char *v = json_string_value(json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), key));
    return v && !strcmp(v, word);
}

/* Puts one runtime item: estimated (bytes known) or unknown, unless a
 * component of that name is the person's (declared or measured). */
static int put_item(json_t *sheet, const char *name, int known, uint64_t bytes, const char *source,
                    vs_buf *said, vs_error *err)
{
    json_t *old = vs_sheet_component(sheet, name);
    int rc;
    if (old && !ours(old))
        return 0;
    rc = vs_sheet_set_component(
        sheet, name, known, bytes,
        vs_vocab_status_name(known ? VS_STATUS_ESTIMATED : VS_STATUS_UNKNOWN), source, NULL,
        vs_vocab_class_name(VS_CLASS_OTHER), err);
    if (rc < 0)
        return rc;
    if (known)
        vs_render_runtime_estimated(said, name, bytes, source + strlen(EST_SOURCE));
    return 0;
}

/* The items `estimate runtime` can give, by name. */
static int wanted(const char *items, const char *name)
{
    const char *p = items;
    size_t n = strlen(name);
    if (!items)
        return 1;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == items || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
        p += n;
    }
    return 0;
}

static const vs_derived_read runtime_reads[] = {{"engine", NULL},      {"arch", NULL},
                                                {"placement", NULL},   {"length", NULL},
                                                {"concurrency", NULL}, {NULL, NULL}};

/* An engine's own runtime rule (its row's runtime_estimate: llama.cpp's compute
 * buffer), for the one item it estimates. */
static int own_items(vs_ctx *ctx, const vs_line *line, json_t *sheet, const vs_fit_ctx *c,
                     const char *items, vs_error *err)
{
    vs_runtime_estimate est;
    vs_buf said = VS_BUF_INIT;
    char rule[640], src[720];
    vs_error e2;
    int rc;
    unsigned i = 0;
    const char *nm;
    while (i + 1 < VS_RT_COUNT && !(c->engine->estimates & VS_RT_BIT(i)))
        i++;
    nm = vs_runtime_item_name((vs_runtime_item)i);
    if (items && !wanted(items, nm))
        return c->engine->runtime_items_note
                   ? vs_error_set_at(err, VS_EVALUE, line->line, line->column, "%s",
                                     c->engine->runtime_items_note)
                   : vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                     "engine %s estimates %s only", c->engine->name, nm);
    if ((rc = c->engine->runtime_estimate(&est, rule, sizeof rule, &c->env,
                                          vs_sheet_card_get(sheet, VS_CK_ARCH), &e2)) < 0) {
        if (rc != VS_ENOTFOUND)
            return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                   "nothing estimated: %s", e2.message);
        /* no published figure backs the item on this GPU: it stays unknown, said so */
        vs_render_runtime_missing(&said, nm, e2.message);
        rc = vs_verb_emit(ctx, vs_render_runtime(vs_buf_str(&said)), err);
        vs_buf_free(&said);
        return rc;
    }
    snprintf(src, sizeof src, EST_SOURCE "%s", est.rule);
    if ((rc = put_item(sheet, nm, 1, est.bytes, src, &said, err)) == 0)
        rc = vs_verb_emit(ctx, vs_render_runtime(vs_buf_str(&said)), err);
    vs_buf_free(&said);
    return rc;
}

/* The cuda_graphs item by the release's capture sizes (engine/cuda_graphs.h):
 * 0 bytes under enforce_eager. 1 when stored, 0 when the rule has nothing for
 * the release (why says so), or a negative code. */
static int estimate_graphs(json_t *sheet, const vs_engine_env *env, vs_buf *said, vs_buf *why,
                           vs_error *err)
{
    const vs_engine_val *eager = vs_engine_get(env, "enforce_eager"),
                        *ver = vs_engine_get(env, "version"),
                        *seqs = vs_engine_get(env, "max_num_seqs"),
                        *mnbt = vs_engine_get(env, "max_num_batched_tokens");
    vs_runtime_estimate est;
    vs_cuda_graphs_count n;
    vs_error e2;
    char src[1024];
    int rc;
    uint64_t layers = arch_uint(sheet, "layers");
    if (eager && eager->set && eager->u)
        rc = put_item(sheet, "cuda_graphs", 1, 0,
                      EST_SOURCE "enforce_eager=yes: no CUDA graphs are captured", said, err);
    else if (vs_cuda_graphs_estimate(&est, &n, ver && ver->word ? ver->word : NULL,
                                     seqs ? seqs->u : 0, mnbt ? mnbt->u : 0, layers, &e2) == 0) {
        snprintf(src, sizeof src,
                 EST_SOURCE "%llu graphs (%llu piecewise, %llu full; largest %llu tokens) x %llu "
                            "layers under vLLM %s: %s",
                 (unsigned long long)(n.piecewise + n.full), (unsigned long long)n.piecewise,
                 (unsigned long long)n.full, (unsigned long long)n.largest,
                 (unsigned long long)layers, ver->word, est.rule);
        rc = put_item(sheet, "cuda_graphs", 1, est.bytes, src, said, err);
    } else {
        vs_render_runtime_missing(why, "cuda_graphs", e2.message);
        return 0;
    }
    return rc < 0 ? rc : 1;
}

/* estimate runtime [items=activation_peak,non_torch,cuda_graphs]: the runtime items of the
 * card's engine by the rules of engine/engine_runtime.c, as estimated components that
 * follow the engine, the model and the placement (lang/derive.h). The rules
 * come from vLLM's start-up logs; an engine with its own rule (llama.cpp's compute buffer,
 * SGLang's non_torch) estimates through its row's runtime_estimate. */
static int estimate_runtime(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    static const char *const keys[] = {"items", NULL};
    const vs_arg *it = vs_line_pair(line, "items");
    const char *items = it ? it->value : NULL;
    vs_runtime_estimate est;
    vs_fit_ctx c;
    vs_error e2;
    vs_buf said = VS_BUF_INIT, why = VS_BUF_INIT;
    char src[800];
    int rc, stored = 0;
    const vs_engine_val *mnbt, *seqs, *smp;
    if ((rc = vs_line_check_keys(line, keys, err)) < 0)
        return rc;
    if (items && !wanted(items, "activation_peak") && !wanted(items, "non_torch") &&
        !wanted(items, "cuda_graphs"))
        return vs_arg_error(it, err,
                            vs_error_set(err, VS_EVALUE,
                                         "items=: expected activation_peak, non_torch, "
                                         "cuda_graphs or several (comma-separated)"));
    if ((rc = vs_fit_prepare(&c, sheet, err)) < 0)
        return rc;
    if (c.engine->runtime_estimate) {
        /* an engine's own rule may read the GPU (SGLang's non_torch by architecture) */
        const json_t *o = json_array_get(vs_sheet_array(sheet, VS_SK_OFFERS), 0);
        c.env.gpu_name = json_string_value(json_object_get(o, "catalog"));
        if (!c.env.gpu_name)
            c.env.gpu_name = json_string_value(json_object_get(o, "name"));
        rc = own_items(ctx, line, sheet, &c, items, err);
        goto done;
    }
    if (!(c.engine->estimates & (VS_RT_BIT(VS_RT_ACTIVATION_PEAK) | VS_RT_BIT(VS_RT_NON_TORCH)))) {
        size_t k;
        for (k = 0; vs_engines[k]; k++)
            if (vs_engines[k]->estimates)
                vs_buf_printf(&why, "%s%s", why.len ? ", " : "", vs_engines[k]->name);
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "estimate runtime has rules for the runtime items of %s only (from "
                             "their start-up logs); the card's engine is %s: measure or declare "
                             "them",
                             vs_buf_str(&why), c.engine->name);
        goto done;
    }
    {
        /* the release's batch defaults depend on the GPU: the sheet's first offer's */
        const json_t *o = json_array_get(vs_sheet_array(sheet, VS_SK_OFFERS), 0);
        vs_fit_row fr;
        memset(&fr, 0, sizeof fr);
        if (o && c.engine->defaults) {
            vs_fit_capacity(&fr, o);
            c.env.total_bytes = fr.capacity_known ? fr.capacity_bytes : 0;
            c.env.gpu_name = json_string_value(json_object_get(o, "catalog"));
            if (!c.env.gpu_name)
                c.env.gpu_name = json_string_value(json_object_get(o, "name"));
            c.engine->defaults(&c.env);
        }
    }
    mnbt = vs_engine_get(&c.env, "max_num_batched_tokens");
    seqs = vs_engine_get(&c.env, "max_num_seqs");
    if (wanted(items, "activation_peak")) {
        vs_runtime_shape sh;
        sh.tokens = mnbt->u;
        sh.seqs = seqs ? seqs->u : 0;
        sh.hidden = arch_uint(sheet, "hidden");
        sh.intermediate = arch_uint(sheet, "intermediate");
        sh.vocab = arch_uint(sheet, "vocab");
        sh.moe_intermediate = arch_uint(sheet, "moe_intermediate");
        sh.experts_per_token = arch_uint(sheet, "experts_per_token");
        sh.dense_layers = arch_uint(sheet, "dense_layers");
        sh.tp = c.env.tp;
        sh.mlp_plain = arch_is(sheet, "mlp", "plain");
        sh.sampler_off = 0;
        smp = vs_engine_get(&c.env, "sampler");
        if (vs_runtime_estimate_activation_sampler(&est, &sh, smp ? smp->word : NULL, &e2) == 0) {
            snprintf(src, sizeof src, EST_SOURCE "%s; within %.0f%% of the published figures",
                     est.rule, est.error * 100);
            if ((rc = put_item(sheet, "activation_peak", 1, est.bytes, src, &said, err)) < 0)
                goto done;
            stored++;
        } else {
            vs_render_runtime_missing(&why, "activation_peak", e2.message);
        }
    }
    if (wanted(items, "non_torch")) {
        char gpu[160];
        const char *arch = offer_architecture(sheet, gpu, sizeof gpu);
        if (vs_runtime_estimate_context(&est, arch, gpu, c.env.tp, &e2) == 0) {
            char term[320] = "";
            est.bytes += c.engine->non_torch_extra
                             ? c.engine->non_torch_extra(&c.env, arch, term, sizeof term)
                             : 0;
            snprintf(src, sizeof src,
                     EST_SOURCE "%s (%s)%s; within %.0f%% of the published figures above 0.1 "
                                "GiB (two held-out ones below it, 31 and 72 MiB, read under "
                                "half the estimate)",
                     est.rule, arch, term, est.error * 100);
            if ((rc = put_item(sheet, "non_torch", 1, est.bytes, src, &said, err)) < 0)
                goto done;
            stored++;
        } else {
            vs_render_runtime_missing(&why, "non_torch", arch ? e2.message : NULL);
        }
    }
    if (wanted(items, "cuda_graphs") && (c.engine->estimates & VS_RT_BIT(VS_RT_CUDA_GRAPHS))) {
        if ((rc = estimate_graphs(sheet, &c.env, &said, &why, err)) < 0)
            goto done;
        stored += rc;
    }
    if (!stored) {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column, "nothing estimated: %s",
                             vs_buf_str(&why));
        goto done;
    }
    vs_buf_puts(&said, vs_buf_str(&why));
    rc = vs_verb_emit(ctx, vs_render_runtime(vs_buf_str(&said)), err);
done:
    vs_buf_free(&said);
    vs_buf_free(&why);
    vs_fit_ctx_free(&c);
    return rc;
}

/* the engine verb's own key; each engine's come from its row */
static const char *const engine_verb_keys[] = {"estimate", NULL};

static int show_engine(vs_ctx *ctx, json_t *sheet, const char *notes, vs_error *err)
{
    vs_fit_ctx c;
    int rc = vs_fit_prepare(&c, sheet, err);
    const json_t *eng = vs_sheet_card_get(sheet, VS_CK_ENGINE);
    if (rc < 0)
        return rc;
    rc =
        vs_verb_emit(ctx, vs_render_engine(&c, vs_sheet_engine_field(eng, VS_EK_KEYS), notes), err);
    vs_fit_ctx_free(&c);
    return rc;
}

static int verb_engine(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *card, *keys, *eng, *comps, *cm;
    const vs_arg *name = vs_line_positional(line, 0), *est = vs_line_pair(line, "estimate");
    const vs_engine *e;
    vs_buf said = VS_BUF_INIT;
    size_t i, ei;
    int rc, estimate = 0, encoder;
    unsigned items;
    if (!sheet)
        return vs_error_oom(err);
    if (!name)
        return show_engine(ctx, sheet, NULL, err);
    if ((rc = vs_line_no_extra(line, 1, "engine NAME [key=value ...] [estimate=yes]", err)) < 0)
        return rc;
    e = vs_engine_find(name->value);
    if (!e) {
        vs_buf b = VS_BUF_INIT;
        for (i = 0; vs_engines[i]; i++)
            vs_buf_printf(&b, "%s%s", i ? ", " : "", vs_engines[i]->name);
        vs_error_set_at(err, VS_ENOTFOUND, name->line, name->column,
                        "unknown engine '%s'; the engines: %s", name->value, vs_buf_str(&b));
        vs_buf_free(&b);
        return VS_ENOTFOUND;
    }
    if (est) {
        if (!strcmp(est->value, "yes") || !strcmp(est->value, "true"))
            estimate = 1;
        else if (strcmp(est->value, "no") && strcmp(est->value, "false"))
            return vs_error_set_at(err, VS_EVALUE, est->line, est->value_column,
                                   "estimate=: expected yes or no");
    }
    if (!(keys = json_object()))
        return vs_error_oom(err);
    for (i = 0; i < line->nargs; i++) {
        const vs_arg *a = &line->args[i];
        size_t idx;
        vs_engine_val v;
        if (a->kind != VS_ARG_PAIR || !strcmp(a->key, "estimate"))
            continue;
        if (!vs_engine_key_index(e, a->key, &idx)) {
            vs_buf b = VS_BUF_INIT;
            int k;
            for (k = 0; e->keys[k].name; k++)
                vs_buf_printf(&b, "%s%s=", k ? " " : "", e->keys[k].name);
            vs_error_set_at(err, VS_EVALUE, a->line, a->column, "engine %s has no key %s=; %s",
                            e->name, a->key, e->keys[0].name ? "its keys: " : "it takes no keys");
            if (e->keys[0].name)
                snprintf(err->message + strlen(err->message),
                         sizeof err->message - strlen(err->message), "%s", vs_buf_str(&b));
            vs_buf_free(&b);
            json_decref(keys);
            return VS_EVALUE;
        }
        if ((rc = vs_engine_key_parse(&v, &e->keys[idx], a->value, err)) < 0) {
            json_decref(keys);
            return vs_arg_error(a, err, rc);
        }
        json_object_set_new(keys, e->keys[idx].name, json_string(a->value));
    }
    card = vs_sheet_card(sheet);
    if (!json_is_object(card)) {
        json_decref(keys);
        return vs_error_set(err, VS_EVALUE, "the sheet has no card");
    }
    eng = json_pack("{s:s, s:o}", "name", e->name, "keys", keys);
    vs_sheet_card_touch(sheet);
    if (!eng || json_object_set_new(card, "engine", eng))
        return vs_error_oom(err);
    /* The weights as this engine's loader keeps them (vLLM's MXFP4 MoE layout):
     * the same figure whether `engine` comes before or after `model` */
    {
        uint64_t wb = 0, wa = 0;
        char d0[96], d1[96];
        if ((rc = vs_quant_follow_engine(sheet, &wb, &wa, err)) < 0)
            goto done;
        if (rc == 1) {
            vs_units_describe(d0, sizeof d0, wb);
            vs_units_describe(d1, sizeof d1, wa);
            vs_buf_printf(&said, "weights re-summed as %s's loader keeps them: %s -> %s. ", e->name,
                          d0, d1);
        }
    }
    /* Runtime items: this engine's, and the serving extras its keys turn on,
     * are added as unknown (unless the person's components fill them); another
     * engine's that this one does not have go. */
    {
        vs_engine_env env;
        vs_error e2;
        memset(&env, 0, sizeof env);
        items = vs_engine_resolve(&env, e, keys, &e2) == 0 ? vs_engine_items(&env) : e->runtime;
    }
    comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    encoder = vs_engine_encoder_present(vs_sheet_card_get(sheet, VS_CK_ARCH));
    for (i = json_array_size(comps); i-- > 0;) {
        vs_runtime_item item;
        cm = json_array_get(comps, i);
        if (vs_runtime_item_find(&item, vs_sheet_component_str(cm, VS_COMPK_NAME)) && ours(cm) &&
            (!(items & VS_RT_BIT(item)) || !vs_engine_item_applies(item, encoder)))
            vs_sheet_remove_component(sheet, i);
    }
    for (i = 0; i < VS_RT_COUNT; i++) {
        const char *nm = vs_runtime_item_name((vs_runtime_item)i);
        char src[512];
        json_t *old;
        if (!(items & VS_RT_BIT(i)) || !vs_engine_item_applies((vs_runtime_item)i, encoder))
            continue;
        old = vs_sheet_component(sheet, nm);
        if (old && (!ours(old) || derived_runtime(old)))
            continue; /* the person's, or an estimate that follows the engine (lang/derive.h) */
        if (vs_runtime_item_source((vs_runtime_item)i))
            snprintf(src, sizeof src, ITEM_SOURCE "%s: %s", e->name,
                     vs_runtime_item_source((vs_runtime_item)i));
        else
            snprintf(src, sizeof src, ITEM_SOURCE "%s: unknown until measured or estimated",
                     e->name);
        if ((rc = put_item(sheet, nm, 0, 0, src, &said, err)) < 0)
            goto done;
    }
    /* keys holds the text as written: enforce_eager= is parsed as its key parses it */
    if (json_object_get(keys, "enforce_eager") && vs_engine_key_index(e, "enforce_eager", &ei)) {
        vs_engine_val v;
        vs_error e2;
        if (vs_engine_key_parse(&v, &e->keys[ei],
                                json_string_value(json_object_get(keys, "enforce_eager")),
                                &e2) == 0 &&
            v.u &&
            (rc = put_item(sheet, "cuda_graphs", 1, 0,
                           EST_SOURCE "enforce_eager=yes: no CUDA graphs are captured", &said,
                           err)) < 0)
            goto done;
    }
    if (estimate) {
        /* `estimate runtime`, recorded as an estimate that follows the engine */
        vs_arg arg;
        vs_line el;
        memset(&arg, 0, sizeof arg);
        memset(&el, 0, sizeof el);
        arg.kind = VS_ARG_WORD;
        arg.value = (char *)"runtime";
        arg.line = est->line;
        arg.column = arg.value_column = est->column;
        el.verb = (char *)"estimate";
        el.line = est->line;
        el.column = est->column;
        el.args = &arg;
        el.nargs = 1;
        if ((rc = vs_derive_run(ctx, &el, sheet, vs_estimator_find("runtime"), err)) < 0)
            goto done;
    }
    rc = show_engine(ctx, sheet, vs_buf_str(&said), err);
done:
    vs_buf_free(&said);
    return rc;
}

static const char *const fit_keys[] = {"formats", NULL};

/* A GPU named on the fit line that is not an offer: a temporary offer from the
 * catalogue, with as many cards as the placement uses. */
static json_t *catalogue_offer(const json_t *sheet, const char *name, vs_error *err)
{
    vs_gpu_spec spec;
    json_t *pl = vs_sheet_get(sheet, VS_SK_PLACEMENT);
    json_int_t gpus = json_is_integer(vs_sheet_placement_field(pl, VS_PK_GPUS))
                          ? json_integer_value(vs_sheet_placement_field(pl, VS_PK_GPUS))
                          : 1;
    char basis[512];
    if (vs_catalog_find(&spec, name, err) < 0)
        return NULL;
    snprintf(basis, sizeof basis, "catalogue %s: nvidia-smi total %llu MiB; %s", spec.name,
             (unsigned long long)spec.reported_mib,
             spec.reported_source ? spec.reported_source : "no source");
    return json_pack("{s:s, s:o, s:o, s:o, s:I, s:s}", "name", spec.name, "memory_bytes",
                     spec.memory_known ? json_integer((json_int_t)spec.memory_bytes) : json_null(),
                     "reported_bytes",
                     spec.reported_known ? json_integer((json_int_t)spec.reported_bytes)
                                         : json_null(),
                     "reported_basis", spec.reported_known ? json_string(basis) : json_null(),
                     "cards", gpus, "catalog", spec.name);
}

/* formats="q4_k_m gptq bits=3 group=64 bf16": the words of the vocabulary,
 * split on spaces and commas, a scheme's keys after it (`help format`). */
static int fit_formats(const vs_arg *fa, char names[][64], vs_format_keys *keys, size_t *nf,
                       vs_error *err)
{
    char fbuf[512], *p, *save = NULL;
    size_t n = 0;
    snprintf(fbuf, sizeof fbuf, "%s", fa->value);
    for (p = strtok_r(fbuf, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
        char *eq = strchr(p, '=');
        unsigned bits;
        size_t k;
        if (eq && n) {
            *eq = '\0';
            if (vs_format_weights_takes(names[n - 1], p)) {
                char *end;
                unsigned long long v = strtoull(eq + 1, &end, 10);
                if (*end || v < 1)
                    return vs_error_set_at(err, VS_EVALUE, fa->line, fa->value_column,
                                           "formats=: %s=%s is not a positive whole number", p,
                                           eq + 1);
                if (!strcmp(p, "bits"))
                    keys[n - 1].bits = v;
                else if (!strcmp(p, "group"))
                    keys[n - 1].group = v;
                else
                    keys[n - 1].block = v;
                continue;
            }
            *eq = '=';
        }
        if (n == VS_FIT_FORMATS_MAX)
            return vs_error_set_at(err, VS_EVALUE, fa->line, fa->value_column,
                                   "formats=: at most %d formats", VS_FIT_FORMATS_MAX);
        for (k = 0; p[k]; k++)
            p[k] = (char)tolower((unsigned char)p[k]);
        if (vs_envelope_format_bits(&bits, p, NULL) < 0 && !vs_gguf_type_by_name(p) &&
            vs_gguf_ftype_parse(p) < 0 && !vs_vocab_scheme_of(p)) {
            char words[400];
            return vs_error_set_at(err, VS_EVALUE, fa->line, fa->value_column,
                                   "formats=: unknown format '%s' (a plain width fp32 fp16 bf16 "
                                   "fp8 int8 int4 nf4 fp4 bits=N, a scheme %s, a GGUF type or a "
                                   "llama.cpp file type q4_k_m ...: `help format` lists them)",
                                   p, vs_quant_scheme_words(words, sizeof words, NULL, " "));
        }
        snprintf(names[n], sizeof names[n], "%s", p);
        memset(&keys[n], 0, sizeof keys[n]);
        n++;
    }
    *nf = n;
    return 0;
}

static int verb_fit(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *offers = NULL, *o, *launches = NULL;
    const vs_arg *fa = vs_line_pair(line, "formats");
    const char *formats[VS_FIT_FORMATS_MAX];
    char names[VS_FIT_FORMATS_MAX][64];
    vs_format_keys keys[VS_FIT_FORMATS_MAX];
    size_t nf = 0, i, n = 0;
    vs_fit_ctx c;
    vs_fit_row *rows = NULL;
    int rc;
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, fit_keys, err)) < 0)
        return rc;
    if (fa && (rc = fit_formats(fa, names, keys, &nf, err)) < 0)
        return rc;
    for (i = 0; i < nf; i++)
        formats[i] = names[i];
    if ((rc = vs_fit_prepare(&c, sheet, err)) < 0)
        return rc;
    /* the same bytes `formats` gives each name (a scheme over the tensor list,
     * a llama.cpp file type tensor by tensor); the card's own format is the card's */
    for (i = 0; i < nf && c.params_known; i++) {
        vs_format_weights fw;
        if (c.format && !strcmp(names[i], c.format))
            continue;
        if ((rc = vs_format_weights_of(sheet, names[i], &keys[i], &fw, err)) < 0) {
            err->line = fa->line;
            err->column = fa->value_column;
            goto done;
        }
        snprintf(names[i], sizeof names[i], "%s", fw.name);
        if (c.format && !strcmp(names[i], c.format))
            continue; /* "gptq" on a card of gptq bits=4 group=128: the card's weights */
        c.weights[c.nweights].format = names[i];
        c.weights[c.nweights++].bytes = fw.bytes;
    }
    if (!(offers = json_array())) {
        rc = vs_error_oom(err);
        goto done;
    }
    if (vs_line_npositional(line) == 0) {
        json_array_extend(offers, vs_sheet_array(sheet, VS_SK_OFFERS));
    } else {
        for (i = 0; i < vs_line_npositional(line); i++) {
            const vs_arg *a = vs_line_positional(line, i);
            json_t *found = vs_classify_offer_find(sheet, a->value);
            if (found) {
                json_array_append(offers, found);
            } else if ((o = catalogue_offer(sheet, a->value, err))) {
                json_array_append_new(offers, o);
            } else {
                err->line = a->line;
                err->column = a->column;
                rc = VS_ENOTFOUND;
                goto done;
            }
        }
    }
    if (json_array_size(offers) == 0) {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "no offer to fit: add one with `gpu NAME`, or name a GPU "
                             "(`fit \"H100 SXM\"`)");
        goto done;
    }
    rows = calloc(json_array_size(offers), sizeof *rows);
    if (!rows) {
        rc = vs_error_oom(err);
        goto done;
    }
    json_array_foreach(offers, i, o)
    {
        if ((rc = vs_fit_offer(&rows[n], &c, o, formats, nf, err)) < 0)
            goto done;
        n++;
    }
    /* the launch column: each offer's command under the card's engine, as
     * `launch` would write it (not recorded: `launch` records) */
    if ((rc = vs_launch_fit_column(&launches, sheet, &c, rows, n, err)) < 0)
        goto done;
    rc = vs_verb_emit(ctx, vs_render_fit(&c, rows, n, launches), err);
done:
    json_decref(launches);
    for (i = 0; i < n; i++)
        vs_fit_row_free(&rows[i]);
    free(rows);
    json_decref(offers);
    vs_fit_ctx_free(&c);
    return rc;
}

static const char engine_help[] =
    "Declares the runtime the card runs under (card.engine: its name and the keys as "
    "written); `engine` alone shows it with every default and its source. "
    "Under it, an `estimate kv` component is what this engine allocates (its pages or cells, "
    "padding and cache types, as `fit` counts them), re-estimated by every engine line. "
    "The engine's runtime items (non_torch, activation_peak, cuda_graphs; under vllm a "
    "multimodal model's encoder_profile too) become components, "
    "unknown until a `reserve` or a measurement of that name fills them (`reserve cuda_graphs "
    "0GiB status=measured source=\"--enforce-eager\"`); estimate=yes estimates vLLM's "
    "profiling peak (the larger of the forward pass over max_num_batched_tokens, MoE width "
    "times experts per token, divided by tp, and the sampler's run over max_num_seqs x vocab) "
    "and the non-torch memory of the offers' GPU generation, board and tp (activation within "
    "17.2% of the 26 published figures `engine vllm` lists, the sampler's kernel the "
    "release's under install=; non-torch within 20.2% above 0.1 GiB), vLLM's CUDA graphs from the "
    "release's "
    "capture "
    "sizes (graphs x 9 MiB, within a factor of 2.4 of four published logs), and llama.cpp's "
    "compute buffer (by architecture "
    "and ubatch), each with its stated error. version= (vllm, sglang, tensorrt_llm) or build= "
    "(llamacpp) names the release whose defaults apply to the keys not written: without it "
    "the newest modelled, as the card's version row says; another is refused with the list "
    "of the modelled ones. `engine NAME` shows "
    "that engine's rules with the engine files they come from. SGLang's and TensorRT-LLM's KV "
    "arithmetic matches 10 published start-up logs to 0.7% per token. Under sglang, "
    "estimate=yes estimates non_torch, what the GPU holds before the weights load, on the "
    "cards and tp sizes published runs back (unknown, said so, elsewhere); its rule, its "
    "errors and the pool they give are among the rules `engine sglang` shows. "
    "tensorrt_llm has no estimate=yes rules.";

/* `engine`'s words, each engine's keys and the list of engines in its help
 * come from the engines' table (engine/engines.def). */
static const char *engine_word(size_t i)
{
    size_t k;
    for (k = 0; k < i && vs_engines[k]; k++)
        ;
    return vs_engines[k] ? vs_engines[k]->name : NULL;
}

static const char *engine_key(const char *word, size_t n, size_t i)
{
    size_t k, j;
    for (k = 0; vs_engines[k]; k++) {
        const vs_engine *e = vs_engines[k];
        if (strlen(e->name) != n || strncmp(e->name, word, n) != 0)
            continue;
        for (j = 0; j < i && e->keys[j].name; j++)
            ;
        return e->keys[j].name;
    }
    return NULL;
}

static void engine_list_help(vs_buf *out)
{
    size_t k;
    vs_buf_puts(out, "\nThe engines (the first is the default):");
    for (k = 0; vs_engines[k]; k++)
        vs_buf_printf(out, "\n  %-13s %s", vs_engines[k]->name, vs_engines[k]->summary);
}

static const vs_verb_registry engines_registry = {engine_word, engine_key, NULL, engine_list_help};

static const char fit_help[] =
    "For each offer (or the GPUs named, from the sheet or the catalogue), under the card's "
    "engine and placement, per GPU: the capacity the engine sees (the offer's reported=, "
    "else the catalogue's CUDA total, else the nvidia-smi total, else the nominal figure, and "
    "which), the engine's budget, the non-KV part (weights, the other components, the "
    "runtime items inside the budget), the KV pool, its tokens, the maximum concurrency at "
    "the card's length and the maximum length at the card's concurrency; formats=\"bf16 "
    "q4_k_m gptq bits=3 group=64\" tries each weights format, in the words of `format` and "
    "with the same weights `formats` gives them (a scheme summed over the card's tensor list, "
    "a llama.cpp file type tensor by tensor as llama-quantize chooses; the list below). With "
    "unknown runtime items every figure is an "
    "upper bound (marked ≤) and the verdict is at best to-confirm; exclude when even the "
    "upper bound does not hold the card. An engine with its own layout rules (llama.cpp's "
    "per architecture) says on a `layout:` line where its KV cache differs from the model's "
    "own layout and why; what it keeps in host memory (llama.cpp's token_embd, the layers "
    "below -ngl, --no-kv-offload's cache) is on a `host:` line and out of the non-KV part. "
    "Under an engine with a command line (`help launch` lists them) a launch column says "
    "whether each offer gets one (yes; offload: with weights in the host memory its host= "
    "declares; no), each offer's lines give the command `launch` would write, and the HTML "
    "keeps the commands folded under one line; fit records none of them (`launch` does). "
    "An uneven split (`placement tensor gpus=2 split=3,1`) or an offer of mixed cards "
    "(`gpu NAME devices=\"RTX 5090, RTX 4090\"`) is also sized per GPU, on a `devices:` line: "
    "under llama.cpp each GPU holds its share of the weights and the KV cache (by split=, "
    "which is -ts, else by each card's total, as llama.cpp splits by free memory without "
    "-ts) plus its own other components, against its own budget, and that decides the "
    "verdict, which names the GPU that does not hold; under vLLM, SGLang and TensorRT-LLM, "
    "which split every layer evenly, each card holds an even share and the smallest card "
    "decides, named in the verdict. "
    "Payload kind fit (kv_layout_note, host_bytes, host_rule, devices and devices_rule, "
    "launch or launch_refused beside the figures).";

const vs_verb vs_verbs_engine[] = {
    {"engine", verb_engine, "engine [NAME [key=value ...] [estimate=yes]]",
     "the runtime the card runs under (vllm, llamacpp, transformers, sglang, tensorrt_llm, "
     "none)",
     engine_help, engine_verb_keys, NULL, 0, &engines_registry},
    {"fit", verb_fit, "fit [GPU ...] [formats=\"bf16 q4_k_m gptq\"]",
     "what the engine does with each offer: budget, KV pool, tokens, concurrency, length", fit_help,
     fit_keys, NULL, VS_VERB_LISTS_FORMATS, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL}};

const vs_estimator vs_estimator_row_runtime = {&vs_estimator_runtime, estimate_runtime,
                                               runtime_reads};
