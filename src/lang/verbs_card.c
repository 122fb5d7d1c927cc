/* verbs_card.c — the verbs that set the workload card (see verbs_card.h). */
#include "lang/verbs_card.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/format_components.h"
#include "lang/verbs_common.h"
#include "model/hfcache.h"
#include "model/hfhub.h"
#include "model/model.h"
#include "model/pipeline_files.h"
#include "model/quant.h"
#include "render/card.h"
#include "render/card_lines.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

static int same_str(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
}

/* Changing the model, its revision or the format makes the files' bytes
 * describe something else. Returns 1 when there were any. */
static int clear_weights_files(json_t *sheet)
{
    json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    int had = json_is_object(wf);
    json_object_set_new(sheet, "weights_files", json_null());
    return had;
}

/* Emits the card line of a verb that set key, its headline written in head
 * (freed here). */
static int emit_line(vs_ctx *ctx, const json_t *sheet, const char *key, vs_buf *head,
                     const char *const *notes, vs_error *err)
{
    int rc = vs_buf_failed(head)
                 ? vs_error_oom(err)
                 : vs_verb_emit(ctx, vs_render_card_line(sheet, key, vs_buf_str(head), notes, NULL),
                                err);
    vs_buf_free(head);
    return rc;
}

/* -------------------------------------------------------------------- card */

/* The whole card as a table: the card-setting verbs print one line each. */
int vs_verb_card(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet, *card;
    vs_buf head = VS_BUF_INIT, unset_words = VS_BUF_INIT;
    const char *notes[2] = {NULL, NULL}, *task;
    vs_vocab_task t = VS_TASK_INFERENCE;
    uint64_t v;
    unsigned wbits, unset = 0;
    int rc, generates;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 0, "card", err)) < 0)
        return rc;
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    card = vs_sheet_card(sheet);
    task = vs_sheet_card_str(sheet, VS_CK_TASK);
    if (task && vs_vocab_task_parse(&t, task, NULL) < 0)
        t = VS_TASK_COUNT; /* a word no task has: none of the branches below */
    generates = task && (t == VS_TASK_GENERATE_IMAGE || t == VS_TASK_GENERATE_VIDEO);
    vs_render_card_headline(&head, sheet);
    /* what the method needs on the card and the sheet does not say yet */
    if (!vs_sheet_card_str(sheet, VS_CK_MODEL))
        unset |= VS_CARD_UNSET_MODEL;
    if (!vs_sheet_card_uint(sheet, VS_CK_PARAMS, &v))
        unset |= VS_CARD_UNSET_PARAMS;
    if (!generates && !vs_sheet_card_uint(sheet, VS_CK_LENGTH, &v)) /* generation has no tokens */
        unset |= VS_CARD_UNSET_LENGTH;
    if (!task)
        unset |= VS_CARD_UNSET_TASK;
    if (!vs_sheet_weight_bits(sheet, &wbits) &&
        !json_is_object(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES)))
        unset |= VS_CARD_UNSET_FORMAT;
    if (generates) {
        /* image and video generation: the resolution, the batch, the frames */
        if (!vs_sheet_card_uint(sheet, VS_CK_WIDTH, &v))
            unset |= VS_CARD_UNSET_RESOLUTION;
        if (!vs_sheet_card_uint(sheet, VS_CK_BATCH, &v))
            unset |= VS_CARD_UNSET_BATCH;
        if (t == VS_TASK_GENERATE_VIDEO && !vs_sheet_card_uint(sheet, VS_CK_FRAMES, &v))
            unset |= VS_CARD_UNSET_FRAMES;
    } else if (!task || t == VS_TASK_INFERENCE) {
        if (!vs_sheet_card_uint(sheet, VS_CK_CONCURRENCY, &v))
            unset |= VS_CARD_UNSET_CONCURRENCY;
    } else if (!vs_sheet_card_uint(sheet, VS_CK_MICROBATCH, &v)) {
        unset |= VS_CARD_UNSET_MICROBATCH;
    }
    if (!json_is_string(vs_sheet_card_field(card, VS_CK_QUALITY)))
        unset |= VS_CARD_UNSET_QUALITY;
    vs_render_card_unset(&unset_words, unset);
    if (unset)
        notes[0] = vs_buf_str(&unset_words);
    if (vs_buf_failed(&head) || vs_buf_failed(&unset_words))
        rc = vs_error_oom(err);
    else
        rc = vs_verb_emit(ctx, vs_render_card(sheet, vs_buf_str(&head), notes, NULL), err);
    vs_buf_free(&head);
    vs_buf_free(&unset_words);
    return rc;
}

/* ------------------------------------------------------------------- model */

const char *const vs_verb_model_keys[] = {"revision", "params",  "config",
                                          "pipeline", "variant", NULL};

/* 1 when a variant name is a plain word (fp16, bf16, non_ema): it is spliced into file names. */
static int plain_variant(const char *v)
{
    size_t i;
    if (!v[0] || strlen(v) > 32)
        return 0;
    for (i = 0; v[i]; i++)
        if (!isalnum((unsigned char)v[i]) && v[i] != '_' && v[i] != '-')
            return 0;
    return 1;
}

int vs_verb_model(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax =
        "model NAME [revision=REV] [params=COUNT] [config=PATH | pipeline=DIR [variant=fp16]]";
    json_t *sheet, *cfg_payload = NULL, *pipe_payload = NULL;
    const vs_arg *name, *rev = vs_line_pair(line, "revision"), *cfg = vs_line_pair(line, "config");
    const vs_arg *pipe = vs_line_pair(line, "pipeline"), *var = vs_line_pair(line, "variant");
    vs_hf_snapshot *snap = NULL;
    const char *pipe_dir = pipe ? pipe->value : NULL;
    uint64_t params = 0, cfg_params = 0;
    int have_params = 0, had_files = 0, rc, have_cfg_params = 0;
    const char *notes[8] = {NULL}, *revision, *qnote = NULL;
    char *hf_config = NULL, *hf_commit = NULL, *hf_note = NULL, hub_note[200] = "";
    char hub_dir[VS_HF_PATH_MAX + 300];
    vs_hub_progress hp;
    vs_hub_stats hub = {0, 0, 0, 0};
    size_t nn = 0;
    vs_buf head = VS_BUF_INIT, note = VS_BUF_INIT;

    if ((rc = vs_line_check_keys(line, vs_verb_model_keys, err)) < 0)
        return rc;
    name = vs_line_positional(line, 0);
    if (!name)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `%s`: the model's name (a Hugging Face id or your own)",
                               syntax);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if ((rc = vs_line_get_count(line, "params", 0, &params, &have_params, err)) < 0)
        return rc;
    if (have_params && (params == 0 || params > (uint64_t)INT64_MAX))
        return vs_arg_error(vs_line_pair(line, "params"), err,
                            vs_error_set(err, VS_EVALUE,
                                         "params= must be from 1 to 9,223,372,036,854,775,807 "
                                         "(what a record holds)"));
    if (cfg && pipe)
        return vs_error_set_at(err, VS_EVALUE, pipe->line, pipe->column,
                               "give config=PATH (a language model) or pipeline=DIR (a diffusers "
                               "pipeline), not both");
    if (var && (!plain_variant(var->value)))
        return vs_error_set_at(err, VS_EVALUE, var->line, var->value_column,
                               "variant= is a plain word (fp16, bf16), not '%s'", var->value);
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    /* an ORG/NAME whose cached snapshot holds a model_index.json is a diffusers pipeline */
    if (!cfg && !pipe && vs_hfcache_is_repo_id(name->value)) {
        vs_error quiet;
        vs_error_clear(&quiet);
        if (!(snap = malloc(sizeof *snap))) /* vs_hfcache_find writes every field */
            return vs_error_oom(err);
        if (vs_hfcache_find(snap, name->value, rev ? rev->value : NULL, &quiet) == 0 &&
            vs_pipeline_is_dir(snap->path) && (hf_commit = strdup(snap->commit)))
            pipe_dir = snap->path;
        if (!pipe_dir) {
            free(snap);
            snap = NULL;
        }
    }
    /* without config=, an ORG/NAME is looked for in the local Hugging Face
     * cache, and when it is not there, asked of the Hub (model/hfhub.h) */
    vs_verb_hub_progress(ctx, &hp);
    if (!cfg && !pipe_dir && vs_hfcache_is_repo_id(name->value)) {
        if ((rc = vs_hfcache_model_config(name->value, rev ? rev->value : NULL, &hf_config,
                                          &hf_commit, &hf_note, &hp, &hub, err)) < 0)
            return vs_arg_error(rev ? rev : name, err, rc);
        if (!hf_config && hf_commit && !pipe && (snap = malloc(sizeof *snap))) {
            /* the Hub's model_index.json: a diffusers pipeline after all */
            vs_error quiet;
            vs_error_clear(&quiet);
            if (vs_hfcache_find(snap, name->value, hf_commit, &quiet) == 0 &&
                vs_pipeline_is_dir(snap->path)) {
                pipe_dir = snap->path;
                free(hf_note);
                hf_note = NULL;
            } else {
                free(snap);
                snap = NULL;
            }
        }
        if (hub.requests && hf_commit) {
            snprintf(hub_note, sizeof hub_note,
                     "asked the Hub: %s (%llu bytes in %u request%s), kept in the local cache",
                     hf_config ? "config.json fetched" : "the commit resolved",
                     (unsigned long long)hub.bytes, hub.requests, hub.requests == 1 ? "" : "s");
            vs_ctx_effect(ctx, "wrote what the Hub said of %s into the local cache", name->value);
        }
    }
    if (var && !pipe_dir) {
        free(snap);
        free(hf_commit);
        free(hf_config);
        free(hf_note);
        return vs_error_set_at(err, VS_EVALUE, var->line, var->column,
                               "variant= goes with a diffusers pipeline (pipeline=DIR, or an "
                               "ORG/NAME with a model_index.json)");
    }
    revision = hf_commit ? hf_commit : rev ? rev->value : NULL;

    if (!same_str(vs_sheet_card_str(sheet, VS_CK_MODEL), name->value)) {
        /* another model: nothing learnt about the previous one still holds */
        had_files = clear_weights_files(sheet);
        if ((rc = vs_verb_card_set(sheet, VS_CK_ARCH, json_null(), err)) ||
            (rc = vs_verb_card_set(sheet, VS_CK_PARAMS, json_null(), err)) ||
            (rc = vs_verb_card_set(sheet, VS_CK_PARAMS_SOURCE, json_null(), err)) ||
            (rc = vs_verb_card_set(sheet, VS_CK_REVISION, json_null(), err)))
            goto hf_done;
    }
    if ((rc = vs_verb_card_set(sheet, VS_CK_MODEL, json_string(name->value), err)) < 0)
        goto hf_done;
    if (revision && !same_str(vs_sheet_card_str(sheet, VS_CK_REVISION), revision)) {
        had_files |= clear_weights_files(sheet);
        if ((rc = vs_verb_card_set(sheet, VS_CK_REVISION, json_string(revision), err)) < 0)
            goto hf_done;
    }
    if (pipe_dir) {
        /* every weighted component's safetensors headers; the sheet's weights are their sum */
        rc = vs_pipeline_apply(sheet, pipe_dir, var ? var->value : NULL, &pipe_payload, err);
        if (rc < 0 && snap && rc != VS_ENOMEM) {
            /* not all in the snapshot: the components' headers from the Hub */
            vs_error he;
            vs_error_clear(&he);
            json_decref(pipe_payload);
            pipe_payload = NULL;
            if (vs_hfhub_pipeline_headers(name->value, snap->commit, var ? var->value : NULL,
                                          hub_dir, sizeof hub_dir - 32, &hp, &hub, &he) == 0) {
                rc = vs_pipeline_apply(sheet, hub_dir, var ? var->value : NULL, &pipe_payload, err);
                strcat(hub_dir, "/model_index.json");
                if (rc == 0)
                    rc = vs_hfhub_annotate(sheet, pipe_payload, hub_dir, err);
            } else {
                char m[VS_ERROR_MESSAGE_MAX];
                snprintf(m, sizeof m, "%s", he.message);
                vs_error_prefix(err, "%s; ", m);
            }
        }
        if (rc < 0 && snap && rc != VS_ENOMEM) {
            /* from the cache: say how to fetch what is missing, and where it goes */
            char m[VS_ERROR_MESSAGE_MAX];
            snprintf(m, sizeof m, "%s", err->message);
            vs_error_set(err, rc,
                         "%s; nothing is downloaded: `huggingface-cli download %s --revision %s` "
                         "fetches the pipeline's files into %s",
                         m, name->value, snap->commit, snap->path);
        }
        if (rc < 0) {
            rc = vs_arg_error(pipe ? pipe : name, err, rc);
            goto hf_done;
        }
        had_files = 0;
        if ((rc = vs_verb_card_set(sheet, VS_CK_ARCH, json_null(), err)) < 0)
            goto hf_done;
    }
    if (cfg || hf_config) {
        vs_sheet_card_touch(sheet); /* the config writes card.arch and params */
        vs_hfconfig read;
        rc = vs_model_apply_config(sheet, cfg ? cfg->value : hf_config, &read, err);
        if (rc < 0) {
            rc = vs_arg_error(cfg ? cfg : name, err, rc);
            goto hf_done;
        }
        if (!(cfg_payload = vs_render_card_config(vs_sheet_card_get(sheet, VS_CK_ARCH), &read))) {
            rc = vs_error_oom(err);
            goto hf_done;
        }
        have_cfg_params = vs_sheet_card_uint(sheet, VS_CK_PARAMS, &cfg_params);
        /* a quantised checkpoint: its scheme is the card's format, its weights the tally */
        if ((rc = vs_quant_apply_config(sheet, cfg ? cfg->value : hf_config, &qnote, err)) < 0) {
            rc = vs_arg_error(cfg ? cfg : name, err, rc);
            goto hf_done;
        }
        if (qnote)
            notes[nn++] = qnote;
    }
    if (hub_note[0])
        notes[nn++] = hub_note;
    if (hf_note && (!have_params || hub.requests))
        notes[nn++] = hf_note;
    if (have_params) {
        if ((rc = vs_verb_card_set(sheet, VS_CK_PARAMS, json_integer((json_int_t)params), err)) ||
            (rc = vs_verb_card_set(sheet, VS_CK_PARAMS_SOURCE, json_string("declared"), err)))
            goto hf_done;
        if (have_cfg_params && cfg_params != params) {
            vs_render_card_params_note(&note, params, cfg_params);
            notes[nn++] = vs_buf_str(&note);
        }
    }
    if (had_files)
        notes[nn++] = vs_render_card_note(VS_CARD_NOTE_FILES_OTHER_MODEL);
    if (!vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params))
        notes[nn++] = vs_render_card_note(VS_CARD_NOTE_NO_PARAMS);
    vs_render_card_model_headline(&head, sheet, name->value, cfg_payload, pipe_payload);
    if (pipe_payload) {
        json_t *x;
        size_t k;
        vs_json_array_foreach(json_object_get(pipe_payload, "notes"), k, x) if (nn < 5)
            notes[nn++] = json_string_value(x);
    }
    if (vs_buf_failed(&head) || vs_buf_failed(&note)) {
        vs_buf_free(&head);
        rc = vs_error_oom(err);
        goto hf_done;
    }
    {
        vs_card_model_read r = {.config = cfg_payload,
                                .pipeline = pipe_payload,
                                .hf_commit = hf_commit,
                                .hf_config = hf_config,
                                .hf_ref = rev ? rev->value : NULL,
                                .hub_bytes = hub.bytes,
                                .hub_requests = hub.requests};
        rc = vs_verb_emit(ctx, vs_render_card_model(sheet, vs_buf_str(&head), notes, &r), err);
    }
    vs_buf_free(&head);
hf_done:
    vs_buf_free(&note);
    json_decref(cfg_payload);
    json_decref(pipe_payload);
    free(snap);
    free(hf_config);
    free(hf_commit);
    free(hf_note);
    return rc;
}

/* -------------------------------------------------------------------- task */

#define TASK_MARK "listed by `task "

int vs_verb_task(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    char syntax[160], words[140];
    static const char *const training[] = {"gradients",   "optimizer_state", "master_copy",
                                           "activations", "buffers",         NULL};
    const vs_arg *a;
    json_t *sheet, *comps, *c;
    size_t i, k, nadded = 0;
    int rc;
    vs_vocab_task task;
    const char *names[12];
    vs_buf head = VS_BUF_INIT, src = VS_BUF_INIT;
    const char *notes[3] = {NULL};

    snprintf(syntax, sizeof syntax, "task %s",
             vs_verb_join_names(words, sizeof words, vs_vocab_task_names, "|", "|"));
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_vocab_task_parse(&task, a->value, err)) < 0)
        return vs_arg_error(a, err, rc);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = vs_verb_card_set(sheet, VS_CK_TASK, json_string(a->value), err)) < 0)
        return rc;

    /* Placeholders an earlier `task` listed and nobody documented belong to that
     * task, not to this one. */
    comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    for (i = json_array_size(comps); i-- > 0;) {
        const char *s, *st;
        c = json_array_get(comps, i);
        st = vs_sheet_component_str(c, VS_COMPK_STATUS);
        if (!vs_vocab_status_is(st, VS_STATUS_UNKNOWN)) /* most are not: one lookup for them */
            continue;
        s = vs_sheet_component_str(c, VS_COMPK_SOURCE);
        if (s && !strncmp(s, TASK_MARK, strlen(TASK_MARK)))
            vs_sheet_remove_component(sheet, i);
    }

    if (task != VS_TASK_INFERENCE && task != VS_TASK_GENERATE_IMAGE &&
        task != VS_TASK_GENERATE_VIDEO) {
        const char *list[10];
        size_t n = 0;
        if (task == VS_TASK_LORA || task == VS_TASK_QLORA)
            list[n++] = "adapter_weights";
        if (task == VS_TASK_QLORA)
            list[n++] = "quant_metadata";
        for (k = 0; training[k]; k++)
            list[n++] = training[k];
        vs_buf_printf(&src, TASK_MARK "%s`: still to document (estimate or measure)", a->value);
        if (vs_buf_failed(&src)) {
            rc = vs_error_oom(err);
            goto done;
        }
        for (k = 0; k < n; k++) {
            if (vs_sheet_component(sheet, list[k]))
                continue;
            if ((rc = vs_sheet_set_component(
                     sheet, list[k], 0, 0, vs_vocab_status_name(VS_STATUS_UNKNOWN),
                     vs_buf_str(&src), NULL, vs_verb_class_for(list[k]), err)) < 0)
                goto done;
            names[nadded++] = list[k];
        }
    }
    vs_render_card_task_headline(&head, a->value, task, names, nadded);
    notes[0] = vs_render_card_task_note(task);
    if (vs_buf_failed(&head)) {
        rc = vs_error_oom(err);
        goto done;
    }
    rc = vs_verb_emit(ctx, vs_render_card_line(sheet, "task", vs_buf_str(&head), notes, NULL), err);
done:
    vs_buf_free(&head);
    vs_buf_free(&src);
    return rc;
}

/* ------------------------------------------------------------------ format */

const char *const vs_verb_format_keys[] = {"bits", "group", "block", "components", NULL};

/* The checkpoint's own scheme (its config.json's quantization_config) is what
 * the loader loads: another format is refused rather than silently sized. */
static int checkpoint_scheme_refusal(const json_t *sheet, const char *name, const vs_arg *at,
                                     vs_error *err)
{
    const json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    const char *scheme = json_string_value(json_object_get(wf, "scheme"));
    const char *cur = vs_sheet_card_str(sheet, VS_CK_FORMAT);
    if (!scheme || !strstr(scheme, "from quantization_config") || same_str(cur, name))
        return 0;
    return vs_error_set_at(
        err, VS_EVALUE, at->line, at->column,
        "the checkpoint is quantised as %s by its config.json's quantization_config, which the "
        "loader follows; `format %s` would size weights it never loads. To size another format, "
        "read the unquantised model's config.json (`model NAME config=PATH`), or declare "
        "`model NAME params=N` without a config",
        cur ? cur : "?", name);
}

/* A llama.cpp file type on the card: llama-quantize's per-tensor types over
 * the card's tensor list, kept as the weights (1 when the card has no
 * architecture: the nominal bits stand). */
static int llamacpp_tally(json_t *sheet, const char *name, vs_error *err)
{
    uint64_t params = 0, bytes = 0;
    unsigned bits = 0;
    char bt[24], basis[160], scheme[240];
    json_t *wf;
    int rc;
    vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params);
    rc = vs_model_gguf_format_row(sheet, name, params, &bits, bt, sizeof bt, basis, sizeof basis,
                                  &bytes, err);
    if (rc)
        return rc < 0 && !basis[0] && rc == VS_EVALUE && strstr(err->message, "file type") ? 1 : rc;
    snprintf(scheme, sizeof scheme, "%s, named by format (%s bits per weight)", name, bt);
    wf = json_pack("{s:n, s:I, s:I, s:[{s:s, s:I, s:I}], s:[], s:[], s:s, s:s}", "path", "bytes",
                   (json_int_t)bytes, "params", (json_int_t)params, "by_dtype", "dtype", name,
                   "bytes", (json_int_t)bytes, "params", (json_int_t)params, "other_dtype", "files",
                   "scheme", scheme, "source", basis);
    if (!wf || json_object_set_new(sheet, "weights_files", wf))
        return vs_error_oom(err);
    return 0;
}

int vs_verb_format(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "format NAME [bits=N] [group=G] [block=N] [components=A,B], or format "
                         "bits=N (`help "
                         "format` lists the names)";
    const vs_arg *a, *kb = vs_line_pair(line, "bits"), *kg = vs_line_pair(line, "group"),
                     *kk = vs_line_pair(line, "block");
    json_t *sheet;
    char name[64], word[32], kept[200], kept_rows[480], keyed[200];
    vs_buf head = VS_BUF_INIT;
    unsigned bits = 0;
    vs_vocab_format f;
    uint64_t n = 0, group = 0, block = 0;
    int rc, had_files = 0, is_quant = 0, is_lq = 0;
    const char *notes[4] = {NULL};
    size_t nn = 0, k;
    vs_quant q;

    if ((rc = vs_line_check_keys(line, vs_verb_format_keys, err)) < 0)
        return rc;
    if (vs_line_pair(line, "components")) /* some components of a pipeline */
        return vs_format_components_apply(ctx, line, vs_line_pair(line, "components"), err);
    a = vs_line_positional(line, 0);
    if (kb && (rc = vs_line_get_uint(line, "bits", 1, &n, NULL, err)) < 0)
        return rc;
    if ((kg && (rc = vs_line_get_uint(line, "group", 1, &group, NULL, err)) < 0) ||
        (kk && (rc = vs_line_get_uint(line, "block", 1, &block, NULL, err)) < 0))
        return rc;
    if (!a && (kg || kk))
        return vs_error_set_at(err, VS_EVALUE, (kg ? kg : kk)->line, (kg ? kg : kk)->column,
                               "group= and block= go with a scheme (`format gptq bits=4 "
                               "group=128`, `format fp8 block=128`)");
    if (!a && kb) {
        if (n < 1 || n > 64)
            return vs_error_set_at(err, VS_EVALUE, kb->line, kb->value_column,
                                   "bits= must be 1 to 64, not %llu", (unsigned long long)n);
        bits = (unsigned)n;
        vs_vocab_format_print(name, sizeof name, VS_FORMAT_BITS, bits);
    } else if (a) {
        /* FP8, BF16, Q4_K_M: any case, kept in lower case */
        if (strlen(a->value) >= sizeof word)
            return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                   "unknown format '%s'; expected %s", a->value, syntax);
        snprintf(word, sizeof word, "%s", a->value);
        for (k = 0; word[k]; k++)
            word[k] = (char)tolower((unsigned char)word[k]);
        rc = vs_quant_from_format(&q, word, n, group, block, NULL, err);
        if (rc < 0)
            return vs_arg_error(a, err, rc);
        if (rc == 0) {
            is_quant = 1;
            bits = q.bits;
            vs_quant_format_name(&q, name, sizeof name);
        } else if (vs_vocab_format_parse(&f, &bits, word, NULL) == 0 && f != VS_FORMAT_BITS) {
            const vs_vocab_scheme *sc = vs_vocab_scheme_of(word);
            is_lq = f == VS_FORMAT_SCHEME && sc && !strcmp(sc->family, "llama.cpp");
            if (kb || kg || kk)
                return vs_error_set_at(err, VS_EVALUE,
                                       (kb   ? kb
                                        : kg ? kg
                                             : kk)
                                           ->line,
                                       (kb   ? kb
                                        : kg ? kg
                                             : kk)
                                           ->column,
                                       "`format %s` takes no keys: bits=, group= and block= go "
                                       "with %s",
                                       word, vs_quant_scheme_words(keyed, sizeof keyed, "=", ", "));
            snprintf(name, sizeof name, "%s", word);
        } else {
            return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                   "unknown format '%s'; expected %s", a->value, syntax);
        }
    } else {
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    }
    if ((rc = vs_line_no_extra(line, a ? 1 : 0, syntax, err)) < 0)
        return rc;
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = checkpoint_scheme_refusal(sheet, name, a ? a : kb, err)) < 0)
        return rc;
    if (!same_str(vs_sheet_card_str(sheet, VS_CK_FORMAT), name))
        had_files = clear_weights_files(sheet);
    if ((rc = vs_verb_card_set(sheet, VS_CK_FORMAT, json_string(name), err)) ||
        (rc = vs_verb_card_set(sheet, VS_CK_BITS, json_integer(bits), err)))
        return rc;
    if (is_quant && !json_is_object(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES))) {
        if ((rc = vs_quant_apply_format(sheet, &q, err)) < 0)
            return vs_arg_error(a, err, rc);
        if (rc == 1)
            notes[nn++] = "the card has no config.json, so no tensor list: params x nominal bits, "
                          "without scales or the tensors the loaders keep in 16 bits "
                          "(`model NAME config=PATH` sums them)";
        else
            had_files = 0;
    } else if (a && !is_quant && !is_lq && vs_quant_from_plain(&q, name) == 0 &&
               !json_is_object(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES))) {
        /* nf4 and int8 as bitsandbytes, fp8 as vLLM's online Fp8LinearMethod:
         * Linear layers only, the embeddings, lm_head and norms kept in 16
         * bits (model/quant.h vs_quant_from_plain); over the tensor list when
         * the card has one */
        if ((rc = vs_quant_apply_format(sheet, &q, err)) < 0)
            return vs_arg_error(a, err, rc);
        if (rc == 0) {
            /* the card keeps the word typed; the tally says the scheme */
            if ((rc = vs_verb_card_set(sheet, VS_CK_FORMAT, json_string(name), err)) ||
                (rc = vs_verb_card_set(sheet, VS_CK_BITS, json_integer(bits), err)))
                return rc;
            had_files = 0;
            is_quant = 1;
            snprintf(kept, sizeof kept, "%s as %s, over the tensor list: the Linear layers only",
                     name, vs_quant_plain_keeper(&q));
            notes[nn++] = kept;
        }
    } else if (is_lq && !json_is_object(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES))) {
        if ((rc = llamacpp_tally(sheet, name, err)) < 0)
            return vs_arg_error(a, err, rc);
        if (rc == 1)
            notes[nn++] = "the card has no architecture: params x nominal bits until "
                          "`model NAME config=PATH` gives llama-quantize's per-tensor choice";
        else
            had_files = 0;
    }
    if (is_quant && nn < 2 && vs_quant_kept_line(sheet, kept_rows, sizeof kept_rows))
        notes[nn++] = kept_rows;
    if (!nn && !is_quant && !is_lq && vs_envelope_format_quant_note(bits))
        notes[nn++] = vs_envelope_format_quant_note(bits);
    if (had_files)
        notes[nn++] = vs_render_card_note(VS_CARD_NOTE_FILES_OTHER_FORMAT);
    vs_render_card_format_headline(&head, name, bits);
    return emit_line(ctx, sheet, "format", &head, notes, err);
}

/* ---------------------------------------------- length, concurrency, batch */

static int set_dim(vs_ctx *ctx, const vs_line *line, vs_card_key k, const char *syntax,
                   vs_error *err)
{
    const char *key = vs_sheet_card_key_names[k];
    json_t *sheet;
    uint64_t v;
    int rc;
    char note[160], beyond[320];
    vs_buf head = VS_BUF_INIT;
    const char *notes[3] = {NULL, NULL, NULL};
    json_t *arch;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if ((rc = vs_verb_positional_uint(line, syntax, &v, err)) < 0)
        return rc;
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = vs_verb_card_set(sheet, k, json_integer((json_int_t)v), err)) < 0)
        return rc;
    vs_render_card_dim_headline(&head, key, v);
    notes[0] = vs_units_count_note(note, sizeof note, vs_line_positional(line, 0)->value);
    /* beyond the model's context: said, not refused (a longer context is a
     * choice the engine may allow, at the quality the model gives there) */
    arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    if (k == VS_CK_LENGTH && json_is_integer(json_object_get(arch, "context")) &&
        v > (uint64_t)json_integer_value(json_object_get(arch, "context"))) {
        const char *rs = json_string_value(json_object_get(arch, "rope_scaling"));
        const char *ck = json_string_value(json_object_get(arch, "context_key"));
        char gl[32], gc[32];
        vs_units_grouped(gl, sizeof gl, v);
        vs_units_grouped(gc, sizeof gc,
                         (uint64_t)json_integer_value(json_object_get(arch, "context")));
        snprintf(
            beyond, sizeof beyond,
            "warning: %s tokens exceed the model's context of %s tokens (config.json %s, %s%s); "
            "the cache is sized as asked",
            gl, gc, ck ? ck : "max_position_embeddings", rs ? "rope_scaling " : "no rope_scaling",
            rs ? rs : "");
        notes[notes[0] ? 1 : 0] = beyond;
    }
    return emit_line(ctx, sheet, key, &head, notes, err);
}

int vs_verb_length(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, VS_CK_LENGTH, "length TOKENS (length 4096)", err);
}

int vs_verb_concurrency(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, VS_CK_CONCURRENCY, "concurrency N (concurrency 8)", err);
}

int vs_verb_frames(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, VS_CK_FRAMES, "frames N (frames 81)", err);
}

int vs_verb_batch(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, VS_CK_BATCH, "batch N (batch 4)", err);
}

/* `resolution WxH`: the card's width and height in pixels. */
int vs_verb_resolution(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "resolution WIDTHxHEIGHT (resolution 1024x1024)";
    const vs_arg *a = vs_line_positional(line, 0);
    unsigned long long w = 0, h = 0;
    char tail = 0;
    vs_buf head = VS_BUF_INIT;
    json_t *sheet;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (sscanf(a->value, "%llu%*[xX]%llu%c", &w, &h, &tail) != 2 ||
        !isdigit((unsigned char)a->value[0]) || w == 0 || h == 0 || w > 1048576 || h > 1048576)
        return vs_error_set_at(
            err, VS_EVALUE, a->line, a->column,
            "expected `%s`: width and height in pixels, 1 to 1,048,576, not '%s'", syntax,
            a->value);
    if (w % 8 || h % 8)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "%llux%llu: diffusers pipelines need a width and height divisible "
                               "by 8 (the VAE's factor; their check_inputs refuses others)",
                               w, h);
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = vs_verb_card_set(sheet, VS_CK_WIDTH, json_integer((json_int_t)w), err)) < 0 ||
        (rc = vs_verb_card_set(sheet, VS_CK_HEIGHT, json_integer((json_int_t)h), err)) < 0)
        return rc;
    vs_render_card_resolution_headline(&head, w, h);
    return emit_line(ctx, sheet, "resolution", &head, NULL, err);
}

const char *const vs_verb_microbatch_keys[] = {"accumulation", NULL};

int vs_verb_microbatch(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "microbatch N [accumulation=N]";
    json_t *sheet;
    uint64_t v, acc = 0;
    int rc, have_acc = 0;
    vs_buf head = VS_BUF_INIT;
    if ((rc = vs_line_check_keys(line, vs_verb_microbatch_keys, err)) < 0)
        return rc;
    if ((rc = vs_verb_positional_uint(line, syntax, &v, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "accumulation", 0, &acc, &have_acc, err)) < 0)
        return rc;
    if (have_acc && (acc == 0 || acc > (uint64_t)INT64_MAX))
        return vs_arg_error(vs_line_pair(line, "accumulation"), err,
                            vs_error_set(err, VS_EVALUE, "accumulation= must be at least 1"));
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = vs_verb_card_set(sheet, VS_CK_MICROBATCH, json_integer((json_int_t)v), err)) < 0)
        return rc;
    if (have_acc &&
        (rc = vs_verb_card_set(sheet, VS_CK_ACCUMULATION, json_integer((json_int_t)acc), err)) < 0)
        return rc;
    vs_render_card_microbatch_headline(&head, v, have_acc, acc);
    return emit_line(ctx, sheet, "microbatch", &head, NULL, err);
}

int vs_verb_quality(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet;
    vs_buf q = VS_BUF_INIT, head = VS_BUF_INIT;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (vs_line_npositional(line) == 0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `quality \"CRITERION\"` (what the output must keep, e.g. "
                               "\"exact match within 0.5 points of the bf16 reference\")");
    if (vs_verb_join_positionals(line, 0, &q) < 0)
        return (vs_buf_free(&q), vs_error_oom(err));
    if (!(sheet = vs_verb_sheet_of(ctx, err))) {
        vs_buf_free(&q);
        return VS_ENOMEM;
    }
    rc = vs_verb_card_set(sheet, VS_CK_QUALITY, json_string(vs_buf_str(&q)), err);
    if (rc < 0) {
        vs_buf_free(&q);
        return rc;
    }
    vs_render_card_quality_headline(&head, vs_buf_str(&q));
    vs_buf_free(&q);
    return emit_line(ctx, sheet, "quality", &head, NULL, err);
}
