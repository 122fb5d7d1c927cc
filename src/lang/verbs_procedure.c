/* verbs_procedure.c — the lines of the validation procedure (see verbs_procedure.h). */
#include "lang/verbs_procedure.h"

#include <stdlib.h>
#include <string.h>

#include "lang/verbs_common.h"
#include "render/lines.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

const char *const vs_verb_stage_words[] = {"short", "usual", "limit", NULL};
const char *const vs_verb_stage_keys[] = {"length", "concurrency", "microbatch", "width", "height",
                                          "frames", "batch",       "note",       NULL};

int vs_verb_stage(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "stage short|usual|limit [length=N] [concurrency=N] [microbatch=N] "
                         "[width=N height=N frames=N batch=N] [note=\"...\"]";
    /* the card's dimensions: language models', then image and video generation's */
#define NDIMS VS_SHEET_NDIMS
    const char *dims[NDIMS];
    const vs_arg *a = vs_line_positional(line, 0), *note = vs_line_pair(line, "note");
    json_t *sheet, *stages, *st;
    uint64_t v[NDIMS], card_v;
    int have[NDIMS], rc, any = 0, limit;
    size_t i;

    if ((rc = vs_line_check_keys(line, vs_verb_stage_keys, err)) < 0)
        return rc;
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    limit = !strcmp(a->value, "limit");
    for (i = 0; i < NDIMS; i++)
        dims[i] = vs_sheet_card_key_names[vs_sheet_card_dims[i]];
    for (i = 0; i < NDIMS; i++) {
        if ((rc = vs_line_get_count(line, dims[i], 0, &v[i], &have[i], err)) < 0) /* 32k, 32Ki */
            return rc;
        if (have[i] && (v[i] == 0 || v[i] > (uint64_t)INT64_MAX))
            return vs_arg_error(vs_line_pair(line, dims[i]), err,
                                vs_error_set(err, VS_EVALUE, "%s= must be at least 1", dims[i]));
        if (limit) {
            /* The limit stage is the card's requirement, never a smaller run. */
            int on_card = vs_sheet_card_uint(sheet, vs_sheet_card_dims[i], &card_v);
            if (have[i] && on_card && v[i] != card_v) {
                const vs_arg *k = vs_line_pair(line, dims[i]);
                return vs_error_set_at(err, VS_EVALUE, k->line, k->value_column,
                                       "the limit stage is the card's required %s (%llu): a run "
                                       "at other dimensions does not validate the card (change "
                                       "the card with `%s N` instead)",
                                       dims[i], (unsigned long long)card_v, dims[i]);
            }
            if (!have[i] && on_card) {
                v[i] = card_v;
                have[i] = 1;
            }
        }
        any |= have[i];
    }
    if (!any)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "a stage needs its dimensions: length=N and concurrency=N (or "
                               "microbatch=N)%s",
                               limit ? "; or set them on the card first" : "");
    st = json_pack("{s:s, s:o, s:o, s:o, s:s?}", "name", a->value, "length",
                   have[0] ? json_integer((json_int_t)v[0]) : json_null(), "concurrency",
                   have[1] ? json_integer((json_int_t)v[1]) : json_null(), "microbatch",
                   have[2] ? json_integer((json_int_t)v[2]) : json_null(), "note",
                   note ? note->value : NULL);
    if (!st)
        return vs_error_oom(err);
    /* generation's dimensions only when given: a language model's stage keeps its shape */
    for (i = 3; i < NDIMS; i++)
        if (have[i] && json_object_set_new(st, dims[i], json_integer((json_int_t)v[i]))) {
            json_decref(st);
            return vs_error_oom(err);
        }
    stages = vs_sheet_array(sheet, VS_SK_STAGES);
    if (!stages) {
        stages = json_array();
        if (!stages || json_object_set_new(sheet, "stages", stages)) {
            json_decref(st);
            return vs_error_oom(err);
        }
    }
    for (i = 0; i < json_array_size(stages); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(stages, i), "name"));
        if (n && !strcmp(n, a->value))
            break;
    }
    if (i < json_array_size(stages))
        json_array_set_new(stages, i, st);
    else
        json_array_append_new(stages, st);
    return vs_verb_emit(ctx, vs_render_stages(stages, dims, NDIMS), err);
}
#undef NDIMS

int vs_verb_invalidate(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet, *arr, *x;
    vs_buf t = VS_BUF_INIT;
    size_t i;
    int rc, dup = 0;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (vs_line_npositional(line) == 0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `invalidate \"CONDITION\"` (what would make the "
                               "conclusion wrong, e.g. \"a context longer than 4096 tokens\")");
    if (vs_verb_join_positionals(line, 0, &t) < 0)
        return (vs_buf_free(&t), vs_error_oom(err));
    if (!(sheet = vs_verb_sheet_of(ctx, err))) {
        vs_buf_free(&t);
        return VS_ENOMEM;
    }
    arr = vs_sheet_array(sheet, VS_SK_INVALIDATE);
    if (!arr) {
        arr = json_array();
        if (!arr || json_object_set_new(sheet, "invalidate", arr)) {
            vs_buf_free(&t);
            return vs_error_oom(err);
        }
    }
    json_array_foreach(arr, i, x) if (json_is_string(x) &&
                                      !strcmp(json_string_value(x), vs_buf_str(&t))) dup = 1;
    if (!dup && json_array_append_new(arr, json_string(vs_buf_str(&t)))) {
        vs_buf_free(&t);
        return vs_error_oom(err);
    }
    vs_buf_free(&t);
    return vs_verb_emit(ctx, vs_render_invalidate(arr), err);
}

const char *const vs_verb_oom_words[] = {"load",     "prefill",   "generate",   "forward",
                                         "backward", "optimizer", "validation", "export",
                                         "denoise",  "decode",    NULL};
const char *const vs_verb_oom_keys[] = {"phase", "note", NULL};

int vs_verb_oom(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const struct {
        const char *phase;
        vs_vocab_class classes[2]; /* component classes to look at (nclasses of them) */
        size_t nclasses;
        const char *examine[4];
    } triage[] = {
        {"load",
         {VS_CLASS_PARAMETERS},
         1,
         {"the weights: the parameter count and the format the real loader produces",
          "the format: a checkpoint loaded in fp32 before the cast, or layers kept in 16 bits",
          "transient allocations: two copies while loading or converting, the CUDA context", NULL}},
        {"prefill",
         {VS_CLASS_KV_CACHE, VS_CLASS_ACTIVATIONS},
         2,
         {"the context: the length of the prompts (prefill attention workspace grows with it)",
          "concurrency: the sequences prefilled together", "the KV cache allocated up front",
          NULL}},
        {"generate",
         {VS_CLASS_KV_CACHE},
         1,
         {"the context: tokens kept per sequence (the KV cache grows with them)",
          "concurrency: simultaneous sequences", "the cache dtype (fp16, fp8)", NULL}},
        {"forward",
         {VS_CLASS_ACTIVATIONS},
         1,
         {"the microbatch", "the saved activations (length x microbatch x hidden x layers)",
          "the computation strategy: checkpointing, attention kernel", NULL}},
        {"backward",
         {VS_CLASS_ACTIVATIONS, VS_CLASS_GRADIENTS},
         2,
         {"the microbatch", "the saved activations and the gradients",
          "the computation strategy: activation checkpointing (selective, full)", NULL}},
        {"optimizer",
         {VS_CLASS_OPTIMIZER, VS_CLASS_GRADIENTS},
         2,
         {"the optimizer state and the master copy (first step allocates them)",
          "the precision policy (mixed, bf16, 8-bit optimizer)",
          "the placement: ZeRO/FSDP sharding of the optimizer state", NULL}},
        {"validation",
         {VS_CLASS_KV_CACHE, VS_CLASS_ACTIVATIONS},
         2,
         {"the evaluation batch and generation length",
          "caches or graphs kept from training while evaluating", NULL, NULL}},
        {"export",
         {VS_CLASS_PARAMETERS},
         1,
         {"copies made while merging adapters or saving", "dtype conversion of the whole model",
          NULL, NULL}},
        {"denoise",
         {VS_CLASS_ACTIVATIONS},
         1,
         {"the denoiser's attention over latent tokens: fused attention (SDPA, flash) instead of "
          "eager, which holds tokens^2 scores per head",
          "the resolution and the batch (tokens grow with H x W; classifier-free guidance doubles "
          "the batch)",
          "the weights on the GPU: pipe.enable_model_cpu_offload() keeps one component there, "
          "enable_sequential_cpu_offload() one module's weights",
          NULL}},
        {"decode",
         {VS_CLASS_ACTIVATIONS},
         1,
         {"the VAE decode at the card's resolution and frames: pipe.enable_vae_tiling() decodes "
          "one tile at a time",
          "pipe.enable_vae_slicing(): one image of the batch decoded at a time",
          "a lower resolution or fewer frames (the decode grows with H x W x frames)",
          "the denoiser still on the GPU during the decode: model CPU offload moves it out "
          "first"}},
    };
    const vs_arg *ph = vs_line_pair(line, "phase"), *nt = vs_line_pair(line, "note");
    const char *phase;
    json_t *sheet, *arr, *entry, *suspects, *c;
    vs_bundle *result;
    size_t t, i, nex;
    vs_buf note = VS_BUF_INIT;
    int rc;

    if ((rc = vs_line_check_keys(line, vs_verb_oom_keys, err)) < 0)
        return rc;
    if (!ph) {
        const vs_arg *a = vs_line_positional(line, 0);
        if (!a)
            return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                   "expected `oom phase=load|prefill|generate|forward|backward|"
                                   "optimizer|validation|export|denoise|decode`: where the first "
                                   "overflow happened");
        ph = a;
    }
    phase = ph->value;
    for (t = 0; t < sizeof triage / sizeof triage[0]; t++)
        if (!strcmp(triage[t].phase, phase))
            break;
    if (t == sizeof triage / sizeof triage[0])
        return vs_error_set_at(err, VS_EVALUE, ph->line,
                               ph->kind == VS_ARG_PAIR ? ph->value_column : ph->column,
                               "unknown phase '%s'; expected load, prefill, generate, forward, "
                               "backward, optimizer, validation, export, denoise or decode",
                               phase);
    if (nt)
        vs_buf_puts(&note, nt->value);
    else if (vs_verb_join_positionals(line, ph->kind == VS_ARG_PAIR ? 0 : 1, &note) < 0)
        return (vs_buf_free(&note), vs_error_oom(err));
    if (!(sheet = vs_verb_sheet_of(ctx, err))) {
        vs_buf_free(&note);
        return VS_ENOMEM;
    }
    arr = vs_sheet_array(sheet, VS_SK_OOM);
    if (!arr) {
        arr = json_array();
        if (!arr || json_object_set_new(sheet, "oom", arr)) {
            vs_buf_free(&note);
            return vs_error_oom(err);
        }
    }
    entry = json_pack("{s:s, s:s?}", "phase", phase, "note", note.len ? vs_buf_str(&note) : NULL);
    vs_buf_free(&note);
    if (!entry || json_array_append_new(arr, entry))
        return vs_error_oom(err);
    /* the components of the classes the phase points at */
    if (!(suspects = json_array()))
        return vs_error_oom(err);
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_COMPONENTS), i, c)
    {
        vs_vocab_class cl;
        size_t k;
        if (!json_is_string(vs_sheet_component_get(c, VS_COMPK_NAME)) ||
            vs_vocab_class_parse(&cl, vs_sheet_component_str(c, VS_COMPK_CLASS), NULL) < 0)
            continue;
        for (k = 0; k < triage[t].nclasses && triage[t].classes[k] != cl; k++) {
        }
        if (k < triage[t].nclasses && json_array_append(suspects, c) < 0) {
            json_decref(suspects);
            return vs_error_oom(err);
        }
    }
    nex = 0;
    while (nex < 4 && triage[t].examine[nex])
        nex++;
    result = vs_render_oom(phase, triage[t].examine, nex, suspects);
    json_decref(suspects);
    return vs_verb_emit(ctx, result, err);
}

int vs_verb_decide(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet, *unknown, *c;
    vs_bundle *result;
    vs_buf t = VS_BUF_INIT;
    char *asked = NULL;
    size_t i;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (vs_line_npositional(line) == 0) {
        if ((rc = vs_ctx_input(ctx, "decision: ", &asked, err)) < 0)
            return rc;
        vs_buf_puts(&t, asked ? asked : "");
        free(asked);
    } else if (vs_verb_join_positionals(line, 0, &t) < 0) {
        vs_buf_free(&t);
        return vs_error_oom(err);
    }
    if (vs_buf_failed(&t) || t.len == 0) {
        vs_buf_free(&t);
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `decide \"DECISION\"` (the candidate retained and what "
                               "is still pending)");
    }
    if (!(sheet = vs_verb_sheet_of(ctx, err))) {
        vs_buf_free(&t);
        return VS_ENOMEM;
    }
    if (json_object_set_new(sheet, "decision", json_string(vs_buf_str(&t)))) {
        vs_buf_free(&t);
        return vs_error_oom(err);
    }
    vs_buf_free(&t);
    unknown = json_array();
    if (!unknown)
        return vs_error_oom(err);
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_COMPONENTS), i, c)
    {
        if (!json_is_integer(vs_sheet_component_get(c, VS_COMPK_BYTES))) {
            const char *nm = vs_sheet_component_str(c, VS_COMPK_NAME);
            json_array_append_new(unknown, json_string(nm ? nm : "?"));
        }
    }
    result = vs_render_decision(vs_sheet_get_str(sheet, VS_SK_DECISION), unknown,
                                json_array_size(vs_sheet_array(sheet, VS_SK_MEASUREMENTS)),
                                json_array_size(vs_sheet_array(sheet, VS_SK_INVALIDATE)) != 0);
    json_decref(unknown);
    return vs_verb_emit(ctx, result, err);
}
