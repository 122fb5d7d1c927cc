/* Sizing verbs: the workload card, the reserve, the estimators, the placement,
 * weights only, the envelope and the formats table, and the procedure lines
 * (stage, invalidate, oom, decide). Each verb checks its line, changes the
 * current sheet through sheet.h, and emits one bundle built by render/sizing. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/derive.h"
#include "lang/estimate_generate.h"
#include "lang/verb.h"
#include "model/gguf.h"
#include "model/hfcache.h"
#include "model/model.h"
#include "model/pipeline_files.h"
#include "render/bundle.h"
#include "render/card.h"
#include "render/component.h"
#include "render/envelope.h"
#include "render/formats.h"
#include "render/lines.h"
#include "render/weights.h"
#include "sheet/envelope.h"
#include "sheet/estimate.h"
#include "sheet/kvlayout.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

static int oom(vs_error *err)
{
    return vs_error_set(err, VS_ENOMEM, "out of memory");
}

static int emit(vs_ctx *ctx, vs_bundle *bundle, vs_error *err)
{
    if (!bundle)
        return oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

static json_t *sheet_of(vs_ctx *ctx, vs_error *err)
{
    json_t *s = vs_ctx_sheet(ctx);
    if (!s)
        oom(err);
    return s;
}

/* The first positional as a whole number >= 1. */
static int positional_uint(const vs_line *line, const char *syntax, uint64_t *out, vs_error *err)
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

static int card_set(json_t *sheet, const char *key, json_t *value_take, vs_error *err)
{
    json_t *card = vs_sheet_card(sheet);
    if (!value_take)
        return oom(err);
    if (!json_is_object(card)) {
        card = json_object();
        if (!card || json_object_set_new(sheet, "card", card)) {
            json_decref(value_take);
            return oom(err);
        }
    }
    if (json_object_set_new(card, key, value_take))
        return oom(err);
    /* The limit stage is the card's dimensions by definition: it follows
     * the card rather than keeping the value the card had when it was written. */
    if (!strcmp(key, "length") || !strcmp(key, "concurrency") || !strcmp(key, "microbatch") ||
        !strcmp(key, "width") || !strcmp(key, "height") || !strcmp(key, "frames") ||
        !strcmp(key, "batch")) {
        size_t i;
        json_t *st;
        vs_json_array_foreach(vs_sheet_array(sheet, "stages"), i, st)
        {
            const char *name = json_string_value(json_object_get(st, "name"));
            if (name && !strcmp(name, "limit") &&
                json_object_set(st, key, json_object_get(card, key)) < 0)
                return oom(err);
        }
    }
    return 0;
}

static const char *card_str(const json_t *sheet, const char *key)
{
    return json_string_value(json_object_get(vs_sheet_card(sheet), key));
}

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
    json_t *wf = json_object_get(sheet, "weights_files");
    int had = json_is_object(wf);
    json_object_set_new(sheet, "weights_files", json_null());
    return had;
}

static const char *class_for(const char *name)
{
    if (!strcmp(name, "kv_cache"))
        return "kv_cache";
    if (!strcmp(name, "gradients"))
        return "gradients";
    if (!strcmp(name, "optimizer_state") || !strcmp(name, "master_copy"))
        return "optimizer";
    if (!strcmp(name, "activations"))
        return "activations";
    if (!strcmp(name, "adapter_weights") || !strcmp(name, "quant_metadata"))
        return "parameters";
    return "other";
}

static int valid_class(const char *c)
{
    static const char *const cls[] = {"other",       "kv_cache",   "gradients", "optimizer",
                                      "activations", "parameters", NULL};
    size_t i;
    for (i = 0; cls[i]; i++)
        if (!strcmp(cls[i], c))
            return 1;
    return 0;
}

/* -------------------------------------------------------------------- card */

/* The whole card as a table: the card-setting verbs print one line each. */
static int verb_card(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const dims[] = {"params", "length", NULL};
    json_t *sheet, *card;
    vs_buf head = VS_BUF_INIT, unset = VS_BUF_INIT;
    const char *notes[2] = {NULL, NULL}, *task, *id, *title;
    uint64_t v;
    size_t i;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 0, "card", err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    card = vs_sheet_card(sheet);
    task = card_str(sheet, "task");
    id = json_string_value(json_object_get(sheet, "id"));
    title = json_string_value(json_object_get(sheet, "title"));
    vs_buf_printf(&head,
                  "workload card of sheet %s (\"%s\"), held fixed: every candidate is "
                  "compared against it",
                  id ? id : "?", title ? title : "");
    /* what the method needs on the card and the sheet does not say yet */
    if (!card_str(sheet, "model"))
        vs_buf_puts(&unset, "model");
    for (i = 0; dims[i]; i++)
        if (!vs_sheet_card_uint(sheet, dims[i], &v) &&
            (strcmp(dims[i], "length") || !task || strncmp(task, "generate-", 9)))
            vs_buf_printf(&unset, "%s%s", unset.len ? ", " : "", dims[i]);
    if (!task)
        vs_buf_printf(&unset, "%stask", unset.len ? ", " : "");
    if (!vs_sheet_weight_bits(sheet) && !json_is_object(json_object_get(sheet, "weights_files")))
        vs_buf_printf(&unset, "%sformat", unset.len ? ", " : "");
    if (task && !strncmp(task, "generate-", 9)) {
        /* image and video generation: the resolution, the batch, the frames */
        if (!vs_sheet_card_uint(sheet, "width", &v))
            vs_buf_printf(&unset, "%sresolution", unset.len ? ", " : "");
        if (!vs_sheet_card_uint(sheet, "batch", &v))
            vs_buf_printf(&unset, "%sbatch", unset.len ? ", " : "");
        if (!strcmp(task, "generate-video") && !vs_sheet_card_uint(sheet, "frames", &v))
            vs_buf_printf(&unset, "%sframes", unset.len ? ", " : "");
    } else if (!task || !strcmp(task, "inference")) {
        if (!vs_sheet_card_uint(sheet, "concurrency", &v))
            vs_buf_printf(&unset, "%sconcurrency", unset.len ? ", " : "");
    } else if (!vs_sheet_card_uint(sheet, "microbatch", &v)) {
        vs_buf_printf(&unset, "%smicrobatch", unset.len ? ", " : "");
    }
    if (!json_is_string(json_object_get(card, "quality")))
        vs_buf_printf(&unset, "%squality", unset.len ? ", " : "");
    if (unset.len) {
        vs_buf_puts(&unset, ": not set yet");
        notes[0] = vs_buf_str(&unset);
    }
    if (vs_buf_failed(&head) || vs_buf_failed(&unset))
        rc = oom(err);
    else
        rc = emit(ctx, vs_render_card(sheet, vs_buf_str(&head), notes, NULL), err);
    vs_buf_free(&head);
    vs_buf_free(&unset);
    return rc;
}

/* ------------------------------------------------------------------- model */

static const char *const model_keys[] = {"revision", "params",  "config",
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

static int verb_model(vs_ctx *ctx, const vs_line *line, vs_error *err)
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
    const char *notes[6] = {NULL}, *revision;
    char *hf_config = NULL, *hf_commit = NULL, *hf_note = NULL;
    size_t nn = 0;
    char note[256];
    vs_buf head = VS_BUF_INIT;

    if ((rc = vs_line_check_keys(line, model_keys, err)) < 0)
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
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    /* an ORG/NAME whose cached snapshot holds a model_index.json is a diffusers pipeline */
    if (!cfg && !pipe && vs_hf_is_repo_id(name->value)) {
        vs_error quiet;
        vs_error_clear(&quiet);
        if (!(snap = calloc(1, sizeof *snap)))
            return oom(err);
        if (vs_hf_find(snap, name->value, rev ? rev->value : NULL, &quiet) == 0 &&
            vs_pipeline_is_dir(snap->path) && (hf_commit = strdup(snap->commit)))
            pipe_dir = snap->path;
        if (!pipe_dir) {
            free(snap);
            snap = NULL;
        }
    }
    if (var && !pipe_dir) {
        free(snap);
        free(hf_commit);
        return vs_error_set_at(err, VS_EVALUE, var->line, var->column,
                               "variant= goes with a diffusers pipeline (pipeline=DIR, or a "
                               "cached ORG/NAME with a model_index.json)");
    }
    /* without config=, an ORG/NAME is looked for in the local Hugging Face cache */
    if (!cfg && !pipe_dir && vs_hf_is_repo_id(name->value) &&
        (rc = vs_hf_model_config(name->value, rev ? rev->value : NULL, &hf_config, &hf_commit,
                                 &hf_note, err)) < 0)
        return vs_arg_error(rev ? rev : name, err, rc);
    revision = hf_commit ? hf_commit : rev ? rev->value : NULL;

    if (!same_str(card_str(sheet, "model"), name->value)) {
        /* another model: nothing learnt about the previous one still holds */
        had_files = clear_weights_files(sheet);
        if ((rc = card_set(sheet, "arch", json_null(), err)) ||
            (rc = card_set(sheet, "params", json_null(), err)) ||
            (rc = card_set(sheet, "params_source", json_null(), err)) ||
            (rc = card_set(sheet, "revision", json_null(), err)))
            goto hf_done;
    }
    if ((rc = card_set(sheet, "model", json_string(name->value), err)) < 0)
        goto hf_done;
    if (revision && !same_str(card_str(sheet, "revision"), revision)) {
        had_files |= clear_weights_files(sheet);
        if ((rc = card_set(sheet, "revision", json_string(revision), err)) < 0)
            goto hf_done;
    }
    if (pipe_dir) {
        /* every weighted component's safetensors headers; the sheet's weights are their sum */
        rc = vs_pipeline_apply(sheet, pipe_dir, var ? var->value : NULL, &pipe_payload, err);
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
        if ((rc = card_set(sheet, "arch", json_null(), err)) < 0)
            goto hf_done;
    }
    if (cfg || hf_config) {
        rc = vs_model_apply_config(sheet, cfg ? cfg->value : hf_config, &cfg_payload, err);
        if (rc < 0) {
            rc = vs_arg_error(cfg ? cfg : name, err, rc);
            goto hf_done;
        }
        have_cfg_params = vs_sheet_card_uint(sheet, "params", &cfg_params);
    }
    if (hf_note && !have_params)
        notes[nn++] = hf_note;
    if (have_params) {
        if ((rc = card_set(sheet, "params", json_integer((json_int_t)params), err)) ||
            (rc = card_set(sheet, "params_source", json_string("declared"), err))) {
            json_decref(cfg_payload);
            goto hf_done;
        }
        if (have_cfg_params && cfg_params != params) {
            char a[40], b[40];
            vs_units_grouped(a, sizeof a, params);
            vs_units_grouped(b, sizeof b, cfg_params);
            snprintf(note, sizeof note,
                     "the declared params=%s replaces the %s computed from the config", a, b);
            notes[nn++] = note;
        }
    }
    if (had_files)
        notes[nn++] = "the weights read from files were for another model or revision: cleared "
                      "(`weights from=PATH` reads them again)";
    if (!vs_sheet_card_uint(sheet, "params", &params))
        notes[nn++] = "no parameter count yet: give params=COUNT or config=PATH";
    vs_buf_printf(&head, "model %s", name->value);
    if (card_str(sheet, "revision"))
        vs_buf_printf(&head, " at revision %s", card_str(sheet, "revision"));
    if (vs_sheet_card_uint(sheet, "params", &params)) {
        char g[40];
        const char *src = card_str(sheet, "params_source");
        vs_units_grouped(g, sizeof g, params);
        vs_buf_printf(&head, ": %s params%s%s%s", g, src ? " (" : "", src ? src : "",
                      src ? ")" : "");
    }
    if (cfg_payload) {
        /* what one token uses, what is counted besides the language model, and
         * what the checkpoint holds that the count leaves out */
        json_t *x, *active = json_object_get(json_object_get(vs_sheet_card(sheet), "arch"),
                                             "params_active");
        size_t k;
        char g[40];
        if (json_is_integer(active)) {
            vs_units_grouped(g, sizeof g, (uint64_t)json_integer_value(active));
            vs_buf_printf(&head, ", %s active per token", g);
        }
        if (json_array_size(json_object_get(cfg_payload, "parts")) > 1) {
            vs_json_array_foreach(json_object_get(cfg_payload, "parts"), k, x)
            {
                vs_units_grouped(g, sizeof g,
                                 (uint64_t)json_integer_value(json_object_get(x, "params")));
                vs_buf_printf(&head, "%s %s %s",
                              k ? "," : "; counted:", json_string_value(json_object_get(x, "part")),
                              g);
            }
        }
        vs_json_array_foreach(json_object_get(cfg_payload, "params_excluded"), k, x)
        {
            vs_units_grouped(g, sizeof g,
                             (uint64_t)json_integer_value(json_object_get(x, "params")));
            vs_buf_printf(&head, "; left out: %s params of %s", g,
                          json_string_value(json_object_get(x, "reason")));
        }
    }
    if (pipe_payload) {
        json_t *x;
        size_t k;
        vs_buf_printf(&head, "; diffusers pipeline %s:",
                      json_string_value(json_object_get(pipe_payload, "pipeline")));
        vs_json_array_foreach(json_object_get(pipe_payload, "components"), k, x)
        {
            char d[160];
            vs_units_describe(d, sizeof d,
                              (uint64_t)json_integer_value(json_object_get(x, "bytes")));
            vs_buf_printf(&head, "%s %s %s", k ? "," : "",
                          json_string_value(json_object_get(x, "name")), d);
        }
        vs_json_array_foreach(json_object_get(pipe_payload, "notes"), k, x) if (nn < 5)
            notes[nn++] = json_string_value(x);
    }
    if (json_is_object(json_object_get(vs_sheet_card(sheet), "arch"))) {
        vs_buf_puts(&head, "; architecture ");
        vs_render_arch(json_object_get(vs_sheet_card(sheet), "arch"), &head);
    }
    if (vs_buf_failed(&head)) {
        json_decref(cfg_payload);
        vs_buf_free(&head);
        rc = oom(err);
        goto hf_done;
    }
    {
        json_t *extra = cfg_payload                 ? json_pack("{s:o}", "config", cfg_payload)
                        : hf_commit || pipe_payload ? json_object()
                                                    : NULL;
        if (extra && pipe_payload)
            json_object_set(extra, "weights", pipe_payload);
        if (extra && hf_commit) /* where the cache put it */
            json_object_set_new(extra, "hf_cache",
                                json_pack("{s:s?, s:s, s:s}", "config", hf_config, "commit",
                                          hf_commit, "ref", rev ? rev->value : "main"));
        rc = emit(ctx, vs_render_card_line(sheet, "model", vs_buf_str(&head), notes, extra), err);
    }
    vs_buf_free(&head);
hf_done:
    json_decref(pipe_payload);
    free(snap);
    free(hf_config);
    free(hf_commit);
    free(hf_note);
    return rc;
}

/* -------------------------------------------------------------------- task */

static const char *const task_words[] = {"inference", "finetune",       "lora",           "qlora",
                                         "pretrain",  "generate-image", "generate-video", NULL};

#define TASK_MARK "listed by `task "

static int verb_task(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax =
        "task inference|finetune|lora|qlora|pretrain|generate-image|generate-video";
    static const char *const training[] = {"gradients",   "optimizer_state", "master_copy",
                                           "activations", "buffers",         NULL};
    const vs_arg *a;
    json_t *sheet, *comps, *c;
    size_t i, k, nadded = 0;
    int rc, known = 0;
    const char *names[12];
    vs_buf head = VS_BUF_INIT, src = VS_BUF_INIT;
    const char *notes[3] = {NULL};

    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    for (i = 0; task_words[i]; i++)
        if (!strcmp(task_words[i], a->value))
            known = 1;
    if (!known)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "unknown task '%s'; expected inference, finetune, lora, qlora, "
                               "pretrain, generate-image or generate-video",
                               a->value);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = card_set(sheet, "task", json_string(a->value), err)) < 0)
        return rc;

    /* Placeholders an earlier `task` listed and nobody documented belong to that
     * task, not to this one. */
    comps = vs_sheet_array(sheet, "components");
    for (i = json_array_size(comps); i-- > 0;) {
        const char *s, *st;
        c = json_array_get(comps, i);
        st = json_string_value(json_object_get(c, "status"));
        if (!st || strcmp(st, "unknown") != 0) /* most are not: one lookup for them */
            continue;
        s = json_string_value(json_object_get(c, "source"));
        if (s && !strncmp(s, TASK_MARK, strlen(TASK_MARK)))
            vs_sheet_remove_component(sheet, i);
    }

    if (!strncmp(a->value, "generate-", 9)) {
        vs_buf_printf(&head, "task %s: adds no component by itself", a->value);
        notes[0] = "a diffusers pipeline (`model NAME pipeline=DIR`) sets the weights; `resolution "
                   "WxH`, `batch N`"
                   " and (video) `frames N` are held fixed; `estimate latents`, `estimate "
                   "attention` and `estimate decode` (its own phase) document the rest";
    } else if (strcmp(a->value, "inference") != 0) {
        const char *list[10];
        size_t n = 0;
        if (!strcmp(a->value, "lora") || !strcmp(a->value, "qlora"))
            list[n++] = "adapter_weights";
        if (!strcmp(a->value, "qlora"))
            list[n++] = "quant_metadata";
        for (k = 0; training[k]; k++)
            list[n++] = training[k];
        vs_buf_printf(&src, TASK_MARK "%s`: still to document (estimate or measure)", a->value);
        if (vs_buf_failed(&src)) {
            rc = oom(err);
            goto done;
        }
        for (k = 0; k < n; k++) {
            if (vs_sheet_component(sheet, list[k]))
                continue;
            if ((rc = vs_sheet_set_component(sheet, list[k], 0, 0, "unknown", vs_buf_str(&src),
                                             NULL, class_for(list[k]), err)) < 0)
                goto done;
            names[nadded++] = list[k];
        }
        vs_buf_printf(&head, "task %s: nothing is multiplied; ", a->value);
        if (nadded) {
            vs_buf_puts(&head,
                        "these components are listed as unknown until estimated or measured:");
            for (k = 0; k < nadded; k++)
                vs_buf_printf(&head, "%s %s", k ? "," : "", names[k]);
        } else {
            vs_buf_puts(&head, "its components are already on the sheet");
        }
        notes[0] = "`estimate training`, `estimate activations` and `reserve NAME AMOUNT` document "
                   "them; an envelope with unknown components is only its known part";
    } else {
        vs_buf_puts(&head, "task inference: adds no component by itself");
        notes[0] = "the KV cache (`estimate kv`), workspaces and the CUDA context are yours to "
                   "declare with `reserve` or estimate";
    }
    if (vs_buf_failed(&head)) {
        rc = oom(err);
        goto done;
    }
    rc = emit(ctx, vs_render_card_line(sheet, "task", vs_buf_str(&head), notes, NULL), err);
done:
    vs_buf_free(&head);
    vs_buf_free(&src);
    return rc;
}

/* ------------------------------------------------------------------ format */

static const char *const format_words[] = {"fp32", "fp16", "bf16", "fp8", "int8",
                                           "int4", "nf4",  "fp4",  NULL};
static const char *const format_keys[] = {"bits", NULL};

static int verb_format(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "format fp32|fp16|bf16|fp8|int8|int4|nf4|fp4, or format bits=N";
    const vs_arg *a, *kb = vs_line_pair(line, "bits");
    json_t *sheet;
    char name[32], head[160];
    unsigned bits = 0;
    uint64_t n = 0;
    int rc, had_files = 0;
    const char *notes[3] = {NULL};
    size_t nn = 0;

    if ((rc = vs_line_check_keys(line, format_keys, err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (a && kb)
        return vs_error_set_at(err, VS_EVALUE, kb->line, kb->column,
                               "give a format name or bits=N, not both");
    if (kb) {
        if ((rc = vs_line_get_uint(line, "bits", 1, &n, NULL, err)) < 0)
            return rc;
        if (n < 1 || n > 64)
            return vs_error_set_at(err, VS_EVALUE, kb->line, kb->value_column,
                                   "bits= must be 1 to 64, not %llu", (unsigned long long)n);
        bits = (unsigned)n;
        snprintf(name, sizeof name, "bits=%u", bits);
    } else if (a) {
        size_t k;
        /* FP8, BF16: any case, kept in lower case */
        snprintf(name, sizeof name, "%s", a->value);
        for (k = 0; name[k]; k++)
            name[k] = (char)tolower((unsigned char)name[k]);
        bits = vs_format_bits(name);
        if (!bits || !strncmp(name, "bits=", 5) || strlen(a->value) >= sizeof name)
            return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                   "unknown format '%s'; expected %s", a->value, syntax);
    } else {
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    }
    if ((rc = vs_line_no_extra(line, kb ? 0 : 1, syntax, err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if (!same_str(card_str(sheet, "format"), name))
        had_files = clear_weights_files(sheet);
    if ((rc = card_set(sheet, "format", json_string(name), err)) ||
        (rc = card_set(sheet, "bits", json_integer(bits), err)))
        return rc;
    if (vs_format_quant_note(bits))
        notes[nn++] = vs_format_quant_note(bits);
    if (had_files)
        notes[nn++] = "the weights read from files were in another format: cleared (`weights "
                      "from=PATH` reads the files of this format)";
    snprintf(head, sizeof head, "format %s: %u bits per weight", name, bits);
    return emit(ctx, vs_render_card_line(sheet, "format", head, notes, NULL), err);
}

/* ---------------------------------------------- length, concurrency, batch */

static int set_dim(vs_ctx *ctx, const vs_line *line, const char *key, const char *syntax,
                   const char *what, vs_error *err)
{
    json_t *sheet;
    uint64_t v;
    int rc;
    char head[200], g[40], note[160];
    const char *notes[2] = {NULL, NULL};
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if ((rc = positional_uint(line, syntax, &v, err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = card_set(sheet, key, json_integer((json_int_t)v), err)) < 0)
        return rc;
    vs_units_grouped(g, sizeof g, v);
    snprintf(head, sizeof head, "%s %s: %s", key, g, what);
    notes[0] = vs_units_count_note(note, sizeof note, vs_line_positional(line, 0)->value);
    return emit(ctx, vs_render_card_line(sheet, key, head, notes, NULL), err);
}

static int verb_length(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, "length", "length TOKENS (length 4096)",
                   "the required tokens per sequence, held fixed for every candidate", err);
}

static int verb_concurrency(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, "concurrency", "concurrency N (concurrency 8)",
                   "simultaneous sequences (inference), held fixed for every candidate", err);
}

static int verb_frames(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, "frames", "frames N (frames 81)",
                   "frames per generated video, held fixed for every candidate", err);
}

static int verb_batch(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return set_dim(ctx, line, "batch", "batch N (batch 4)",
                   "images or videos generated together, held fixed for every candidate", err);
}

/* `resolution WxH`: the card's width and height in pixels. */
static int verb_resolution(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "resolution WIDTHxHEIGHT (resolution 1024x1024)";
    const vs_arg *a = vs_line_positional(line, 0);
    unsigned long long w = 0, h = 0;
    char tail = 0, head[200];
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
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = card_set(sheet, "width", json_integer((json_int_t)w), err)) < 0 ||
        (rc = card_set(sheet, "height", json_integer((json_int_t)h), err)) < 0)
        return rc;
    snprintf(head, sizeof head,
             "resolution %llux%llu: the generated image or video frame in pixels, held fixed for "
             "every candidate",
             w, h);
    return emit(ctx, vs_render_card_line(sheet, "resolution", head, NULL, NULL), err);
}

static const char *const microbatch_keys[] = {"accumulation", NULL};

static int verb_microbatch(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "microbatch N [accumulation=N]";
    json_t *sheet;
    uint64_t v, acc = 0;
    int rc, have_acc = 0;
    char head[200];
    if ((rc = vs_line_check_keys(line, microbatch_keys, err)) < 0)
        return rc;
    if ((rc = positional_uint(line, syntax, &v, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "accumulation", 0, &acc, &have_acc, err)) < 0)
        return rc;
    if (have_acc && (acc == 0 || acc > (uint64_t)INT64_MAX))
        return vs_arg_error(vs_line_pair(line, "accumulation"), err,
                            vs_error_set(err, VS_EVALUE, "accumulation= must be at least 1"));
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((rc = card_set(sheet, "microbatch", json_integer((json_int_t)v), err)) < 0)
        return rc;
    if (have_acc && (rc = card_set(sheet, "accumulation", json_integer((json_int_t)acc), err)) < 0)
        return rc;
    if (have_acc)
        snprintf(head, sizeof head,
                 "microbatch %llu, accumulation %llu: sequences per forward/backward pass; "
                 "accumulation keeps the update comparable without more memory",
                 (unsigned long long)v, (unsigned long long)acc);
    else
        snprintf(head, sizeof head, "microbatch %llu: sequences per forward/backward pass",
                 (unsigned long long)v);
    return emit(ctx, vs_render_card_line(sheet, "microbatch", head, NULL, NULL), err);
}

/* Joins the positional arguments with single spaces (quality "a b" or quality a b). */
static int join_positionals(const vs_line *line, size_t from, vs_buf *out)
{
    size_t i, n = vs_line_npositional(line);
    for (i = from; i < n; i++) {
        if (i > from)
            vs_buf_putc(out, ' ');
        vs_buf_puts(out, vs_line_positional(line, i)->value);
    }
    return vs_buf_failed(out) ? -1 : 0;
}

static int verb_quality(vs_ctx *ctx, const vs_line *line, vs_error *err)
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
    if (join_positionals(line, 0, &q) < 0)
        return (vs_buf_free(&q), oom(err));
    if (!(sheet = sheet_of(ctx, err))) {
        vs_buf_free(&q);
        return VS_ENOMEM;
    }
    rc = card_set(sheet, "quality", json_string(vs_buf_str(&q)), err);
    if (rc < 0) {
        vs_buf_free(&q);
        return rc;
    }
    vs_buf_printf(&head,
                  "quality \"%s\": the criterion every change (format, length, candidate) is "
                  "re-checked against",
                  vs_buf_str(&q));
    vs_buf_free(&q);
    if (vs_buf_failed(&head)) {
        vs_buf_free(&head);
        return oom(err);
    }
    rc = emit(ctx, vs_render_card_line(sheet, "quality", vs_buf_str(&head), NULL, NULL), err);
    vs_buf_free(&head);
    return rc;
}

/* ----------------------------------------------------------------- reserve */

static const char *const reserve_keys[] = {"status", "source", "phase", "class", NULL};

static int verb_reserve(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "reserve AMOUNT | reserve NAME AMOUNT [status=estimated|measured] "
                         "[source=\"...\"] [phase=P] [class=C] | reserve NAME status=unknown | "
                         "reserve remove NAME";
    const vs_arg *a0 = vs_line_positional(line, 0), *a1 = vs_line_positional(line, 1);
    const vs_arg *amount_arg = NULL, *st = vs_line_pair(line, "status"),
                 *cl = vs_line_pair(line, "class");
    const vs_arg *src = vs_line_pair(line, "source"), *ph = vs_line_pair(line, "phase");
    const char *name, *status, *cls;
    json_t *sheet, *comp;
    vs_component_view stored;
    uint64_t bytes = 0;
    int rc, known = 0;
    char head[400], desc[160];

    if ((rc = vs_line_check_keys(line, reserve_keys, err)) < 0)
        return rc;
    if (!a0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;

    if (!strcmp(a0->value, "remove") && !a0->quoted) {
        json_t *comps = vs_sheet_array(sheet, "components");
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
                snprintf(head, sizeof head, "removed component %s from the reserve", a1->value);
                /* the name lives in the parsed line, not in the removed object */
                return emit(
                    ctx,
                    vs_render_lines(head, NULL, 0,
                                    json_pack("{s:s, s:s}", "kind", "removed", "name", a1->value)),
                    err);
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
    status = st ? st->value : (known ? "estimated" : NULL);
    if (!status)
        return vs_error_set_at(err, VS_EVALUE, a0->line, a0->column,
                               "expected an amount with a byte unit (reserve %s 2GiB) or "
                               "status=unknown for a component still to document",
                               name);
    if (strcmp(status, "estimated") && strcmp(status, "measured") && strcmp(status, "unknown"))
        return vs_error_set_at(err, VS_EVALUE, st->line, st->value_column,
                               "status must be estimated, measured or unknown, not '%s'", status);
    if (!strcmp(status, "unknown") && known)
        return vs_error_set_at(err, VS_EVALUE, amount_arg->line, amount_arg->column,
                               "an unknown component has no amount: drop '%s' or say "
                               "status=estimated",
                               amount_arg->value);
    if (strcmp(status, "unknown") && !known)
        return vs_error_set_at(err, VS_EVALUE, a0->line, a0->column,
                               "a %s component needs an amount with a byte unit (reserve %s 2GiB "
                               "status=%s)",
                               status, name, status);
    cls = cl ? cl->value : class_for(name);
    if (!valid_class(cls))
        return vs_error_set_at(err, VS_EVALUE, cl->line, cl->value_column,
                               "class must be other, kv_cache, gradients, optimizer, activations "
                               "or parameters, not '%s'",
                               cls);
    if ((rc = vs_sheet_put_component(&comp, &stored, sheet, name, known, bytes, status,
                                     src ? src->value : "declared", ph ? ph->value : NULL, cls,
                                     err)) < 0)
        return vs_arg_error(a0, err, rc);
    {
        /* One line, not a one-row table: a cell of many reserve lines reads as a
         * list, and `envelope` shows them all as a table. Pieces, not printf:
         * most lines of a long cell are these. */
        vs_buf headline = VS_BUF_INIT, where = VS_BUF_INIT;
        const char *notes[3] = {NULL, NULL, NULL};
        if (known) {
            vs_units_describe(desc, sizeof desc, bytes);
            vs_buf_puts(&headline, "reserve");
            if (amount_arg != a0) {
                vs_buf_putc(&headline, ' ');
                vs_buf_puts(&headline, name);
            }
            vs_buf_puts(&headline, ": ");
            vs_buf_puts(&headline, desc);
            vs_buf_puts(&headline, amount_arg == a0 ? ", one declared lump (" : " (");
            vs_buf_puts(&headline, status);
            vs_buf_putc(&headline, ')');
        } else {
            vs_buf_puts(&headline, "reserve ");
            vs_buf_puts(&headline, name);
            vs_buf_puts(&headline, ": unknown, still to estimate or measure");
        }
        vs_buf_puts(&where, "class ");
        vs_buf_puts(&where, cls);
        if (ph) {
            vs_buf_puts(&where, ", phase ");
            vs_buf_puts(&where, ph->value);
        }
        vs_buf_puts(&where, ", source: ");
        vs_buf_puts(&where, src ? src->value : "declared");
        if (vs_buf_failed(&headline) || vs_buf_failed(&where)) {
            rc = oom(err);
        } else {
            notes[0] = vs_buf_str(&where);
            if (!strcmp(status, "measured") && !ph)
                notes[1] = "a measurement keeps its context: say its phase=, and the counter in "
                           "source=";
            rc = emit(
                ctx,
                vs_render_component_line(&stored, "reserve", vs_buf_str(&headline), notes, NULL),
                err);
        }
        vs_buf_free(&headline);
        vs_buf_free(&where);
        return rc;
    }
}

/* ---------------------------------------------------------------- estimate */

static const char *const estimate_keys[] = {
    "layers",    "kv_heads",  "head_dim", "dtype",  "name",           "optimizer",
    "precision", "trainable", "hidden",   "heads",  "checkpointing",  "scheme",
    "group",     "double",    "bits",     "params", "encoder_length", "component",
    "channels",  "factor",    "temporal", "patch",  "downsample",     "text_tokens",
    "attention", "cfg",       "live",     "tile",   "slicing",        NULL};
static const char *const estimate_words[] = {
    "kv", "training", "activations", "quant", "runtime", "latents", "attention", "decode", NULL};
/* each estimator's keys come from its row of sheet/estimate.h */
const vs_verb_form vs_verb_forms[] = {{"estimate", "kv", vs_estimate_kv_keys},
                                      {"estimate", "training", vs_estimate_training_keys},
                                      {"estimate", "activations", vs_estimate_activations_keys},
                                      {"estimate", "quant", vs_estimate_quant_keys},
                                      {"estimate", "runtime", vs_estimate_runtime_keys},
                                      {"estimate", "latents", vs_estimate_latents_keys},
                                      {"estimate", "attention", vs_estimate_attention_keys},
                                      {"estimate", "decode", vs_estimate_decode_keys},
                                      {NULL, NULL, NULL}};

/* A shape: the key when given, else card.arch.<arch_key> (arch_key NULL: none). */
static int shape(const vs_line *line, const json_t *sheet, const char *key, const char *arch_key,
                 uint64_t *out, int *from_arch, vs_error *err)
{
    int present = 0, rc;
    json_t *arch = json_object_get(vs_sheet_card(sheet), "arch"), *v;
    if ((rc = vs_line_get_uint(line, key, 0, out, &present, err)) < 0)
        return rc;
    if (present) {
        if (*out == 0)
            return vs_arg_error(vs_line_pair(line, key), err,
                                vs_error_set(err, VS_EVALUE, "%s= must be at least 1", key));
        return 1;
    }
    v = arch_key ? json_object_get(arch, arch_key) : NULL;
    if (json_is_integer(v) && json_integer_value(v) > 0) {
        *out = (uint64_t)json_integer_value(v);
        if (from_arch)
            *from_arch = 1;
        return 1;
    }
    return 0;
}

static int need_shape(const vs_line *line, const char *key, const char *sub, vs_error *err)
{
    return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                           "`estimate %s` needs %s=N (or `model NAME config=PATH`, whose "
                           "config.json gives the shapes)",
                           sub, key);
}

static int need_card(const vs_line *line, const char *key, const char *sub, const char *example,
                     vs_error *err)
{
    return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                           "`estimate %s` uses the card's %s: set it first (`%s`)", sub, key,
                           example);
}

/* Sets an estimated component unless a measurement holds the name: then the
 * estimate is only shown. Returns 1 when stored, 0 when skipped. */
static int store_estimate(json_t *sheet, const char *name, uint64_t bytes, const char *source,
                          const char *cls, vs_buf *skipped, json_t *skipped_list, vs_error *err)
{
    json_t *old = vs_sheet_component(sheet, name);
    const char *st = json_string_value(json_object_get(old, "status"));
    int rc;
    if (st && !strcmp(st, "measured")) {
        char d[160];
        vs_units_describe(d, sizeof d, bytes);
        vs_buf_printf(skipped,
                      "%s is measured: the estimate (%s) was not stored; an estimate never "
                      "overwrites a measurement. ",
                      name, d);
        json_array_append_new(skipped_list, json_pack("{s:s, s:I}", "name", name, "estimate_bytes",
                                                      (json_int_t)bytes));
        return 0;
    }
    if (bytes > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT, "%s: the estimate does not fit a record", name);
    rc = vs_sheet_set_component(sheet, name, 1, bytes, "estimated", source, NULL, cls, err);
    return rc < 0 ? rc : 1;
}

static void grouped(char *out, size_t n, uint64_t v)
{
    vs_units_grouped(out, n, v);
}

/* The layout estimate kv sizes: layers= kv_heads= head_dim= on the line
 * describe one full group (shapes not given taken from the card's arch);
 * otherwise the card's kv_layout; otherwise the arch's one shape. Returns 1
 * when a layout was found, 0 when a shape is missing (*missing names it). */
static int kv_layout_for(vs_kv_layout *l, const vs_line *line, const json_t *sheet, int *from_arch,
                         const char **missing, vs_error *err)
{
    json_t *arch = json_object_get(vs_sheet_card(sheet), "arch");
    json_t *kv = json_object_get(arch, "kv_layout");
    uint64_t L, H, D;
    int rc, on_line = vs_line_pair(line, "layers") || vs_line_pair(line, "kv_heads") ||
                      vs_line_pair(line, "head_dim");
    if (!on_line && json_is_array(kv) && json_array_size(kv) > 0 &&
        vs_kv_layout_from_json(l, kv, NULL) == 0) {
        *from_arch = 1;
        return 1;
    }
    *missing = "layers";
    if ((rc = shape(line, sheet, "layers", "layers", &L, from_arch, err)) <= 0)
        return rc;
    *missing = "kv_heads";
    if ((rc = shape(line, sheet, "kv_heads", "kv_heads", &H, from_arch, err)) == 0)
        rc = shape(line, sheet, "kv_heads", "heads", &H, from_arch, err);
    if (rc <= 0)
        return rc;
    *missing = "head_dim";
    if ((rc = shape(line, sheet, "head_dim", "head_dim", &D, from_arch, err)) == 0) {
        json_t *hid = json_object_get(arch, "hidden"), *hd = json_object_get(arch, "heads");
        if (json_is_integer(hid) && json_is_integer(hd) && json_integer_value(hd) > 0 &&
            json_integer_value(hid) > 0 && json_integer_value(hid) % json_integer_value(hd) == 0) {
            D = (uint64_t)(json_integer_value(hid) / json_integer_value(hd));
            *from_arch = 1;
            rc = 1;
        }
    }
    if (rc <= 0)
        return rc;
    vs_kv_layout_uniform(l, L, H, D);
    return 1;
}

/* One group's formula with its numbers, as the text and the source show it. */
static void kv_group_formula(vs_buf *b, const vs_kv_group *g, const vs_kv_group_bytes *r,
                             const vs_kv_dims *d, const char *per, const char *dtype)
{
    char gl[40], gh[40], gd[40], gdv[40], gt[40], gc[40], gb[40], gw[40], glen[40];
    grouped(gl, sizeof gl, g->layers);
    grouped(gh, sizeof gh, r->kv_heads);
    grouped(gd, sizeof gd, g->head_dim);
    grouped(gdv, sizeof gdv, g->head_dim_v ? g->head_dim_v : g->head_dim);
    grouped(gt, sizeof gt, r->tokens);
    grouped(gc, sizeof gc, d->concurrency);
    grouped(gb, sizeof gb, r->bytes);
    grouped(gw, sizeof gw, g->window);
    grouped(glen, sizeof glen, d->length);
    switch (g->kind) {
    case VS_KV_FULL:
    case VS_KV_SLIDING:
    case VS_KV_CHUNKED:
    case VS_KV_CROSS:
        if (g->head_dim_v && g->head_dim_v != g->head_dim)
            vs_buf_printf(b, "%s layers x %s kv_heads x (%s + %s) head_dim", gl, gh, gd, gdv);
        else
            vs_buf_printf(b, "2 x %s layers x %s kv_heads x %s head_dim", gl, gh, gd);
        vs_buf_printf(b, " x %s (%s) x ", per, dtype);
        if (g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED)
            vs_buf_printf(b, "min(%s window, %s) = %s tokens", gw, glen, gt);
        else if (g->kind == VS_KV_CROSS)
            vs_buf_printf(b, "%s encoder tokens", gt);
        else
            vs_buf_printf(b, "%s tokens", gt);
        vs_buf_printf(b, " x %s sequences = %s B", gc, gb);
        break;
    case VS_KV_LATENT:
        vs_buf_printf(b, "%s layers x %llu latent x %s (%s) x %s tokens x %s sequences = %s B", gl,
                      (unsigned long long)g->latent, per, dtype, gt, gc, gb);
        break;
    case VS_KV_STATE:
        vs_buf_printf(b, "%s layers x %llu B state x %s sequences = %s B", gl,
                      (unsigned long long)g->state_bytes, gc, gb);
        break;
    default:
        vs_buf_printf(b, "%s layers keep no cache = 0 B", gl);
        break;
    }
}

static int estimate_kv(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    uint64_t len, conc, bytes, per_gpu = 0, per_token = 0, enc = 0;
    int rc, from_arch = 0, have_enc = 0, cross = 0, uniform;
    const vs_arg *dt = vs_line_pair(line, "dtype"), *nm = vs_line_pair(line, "name");
    const char *dtype = dt ? dt->value : "fp16", *name = nm ? nm->value : "kv_cache", *missing;
    unsigned bits;
    char per[32], gb[40], gtp[40];
    vs_buf src = VS_BUF_INIT, skipped = VS_BUF_INIT, tpnote = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs = NULL, *groups = NULL;
    const char *notes[6] = {NULL};
    size_t nn = 0, i;
    vs_kv_layout l;
    vs_kv_dims d;
    vs_kv_group_bytes r[VS_KV_GROUPS_MAX];
    vs_placement pl;

    if (!sk)
        return oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_kv_keys, err)) < 0)
        goto done;
    if ((rc = kv_layout_for(&l, line, sheet, &from_arch, &missing, err)) <= 0) {
        rc = rc < 0 ? rc : need_shape(line, missing, "kv", err);
        goto done;
    }
    uniform = l.n == 1 && l.g[0].kind == VS_KV_FULL;
    bits = vs_dtype_bits(dtype);
    if (!bits) {
        rc = vs_error_set_at(err, VS_EVALUE, dt->line, dt->value_column,
                             "unknown cache dtype '%s'; expected %s (in any case)", dtype,
                             vs_dtype_names());
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, "length", &len)) {
        rc = need_card(line, "length", "kv", "length 4096", err);
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, "concurrency", &conc)) {
        rc = need_card(line, "concurrency", "kv", "concurrency 8", err);
        goto done;
    }
    if ((rc = vs_line_get_uint(line, "encoder_length", 0, &enc, &have_enc, err)) < 0)
        goto done;
    if (have_enc && enc == 0) {
        rc = vs_arg_error(vs_line_pair(line, "encoder_length"), err,
                          vs_error_set(err, VS_EVALUE, "encoder_length= must be at least 1"));
        goto done;
    }
    for (i = 0; i < l.n; i++)
        cross |= l.g[i].kind == VS_KV_CROSS;
    /* under tensor parallelism each GPU holds its share of the KV heads (one at
     * least) and the whole latent: the component is what all GPUs hold together */
    memset(&d, 0, sizeof d);
    d.length = len;
    d.concurrency = conc;
    d.encoder_length = enc;
    d.bits = bits;
    d.tp = 1;
    if (vs_placement_from_sheet(&pl, sheet, NULL) == 0 && pl.kind == VS_PLACE_TENSOR && pl.gpus > 1)
        d.tp = pl.gpus;
    if ((rc = vs_kv_layout_bytes(&per_gpu, &per_token, r, &l, &d, err)) < 0)
        goto done;
    if (__builtin_mul_overflow(per_gpu, d.tp, &bytes)) {
        rc = vs_error_set(err, VS_EUNIT, "the KV cache does not fit in 64-bit bytes");
        goto done;
    }
    if (bits % 8 == 0)
        snprintf(per, sizeof per, "%u B", bits / 8);
    else
        snprintf(per, sizeof per, "%u/8 B", bits);
    groups = json_array();
    for (i = 0; groups && i < l.n; i++) {
        if (i)
            vs_buf_puts(&src, " + ");
        if (l.n > 1)
            vs_buf_printf(&src, "%s: ", vs_kv_kind_name(l.g[i].kind));
        kv_group_formula(&src, &l.g[i], &r[i], &d, per, dtype);
        json_array_append_new(
            groups,
            json_pack("{s:s, s:I, s:I, s:I, s:I}", "kind", vs_kv_kind_name(l.g[i].kind), "layers",
                      (json_int_t)l.g[i].layers, "tokens", (json_int_t)r[i].tokens, "kv_heads",
                      (json_int_t)r[i].kv_heads, "bytes", (json_int_t)r[i].bytes));
    }
    if (!groups) {
        rc = oom(err);
        goto done;
    }
    grouped(gb, sizeof gb, bytes);
    if (l.n > 1)
        vs_buf_printf(&src, " = %s B", gb);
    if (d.tp > 1) {
        grouped(gtp, sizeof gtp, d.tp);
        vs_buf_printf(&src, ", per GPU; x %s GPUs (placement tensor) = %s B", gtp, gb);
    }
    if (vs_buf_failed(&src)) {
        rc = oom(err);
        goto done;
    }
    if ((rc = store_estimate(sheet, name, bytes, vs_buf_str(&src), "kv_cache", &skipped, sk, err)) <
        0)
        goto done;
    if (uniform)
        notes[nn++] =
            "keys and values of every layer for every token kept: GQA and MQA through "
            "kv_heads; the cache dtype, not the weights' format, sets the bytes per value";
    else
        notes[nn++] = "each group of layers keeps what its attention needs: full layers every "
                      "token, sliding and chunked layers at most their window, a latent layer one "
                      "compressed vector per token (DeepSeek-V2, Liu et al. 2024, section 2.1), a "
                      "cross-attention layer the encoder's tokens; an engine's pages and padding "
                      "come on top";
    if (cross && !have_enc)
        notes[nn++] = "cross-attention layers sized for encoder_length = length (give "
                      "encoder_length=N for the encoder's tokens)";
    if (d.tp > 1) {
        vs_buf_printf(&tpnote,
                      "placement tensor on %llu GPUs: each GPU holds ceil(kv_heads / %llu) KV "
                      "heads, one at least (fewer heads than GPUs are replicated), and the whole "
                      "of any latent cache",
                      (unsigned long long)d.tp, (unsigned long long)d.tp);
        notes[nn++] = vs_buf_str(&tpnote);
    }
    if (from_arch)
        notes[nn++] = "shapes not given on the line come from the card's config.json architecture";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack(
        "{s:o, s:o, s:o, s:s, s:i, s:I, s:I, s:o, s:I, s:O, s:I, s:O}", "layers",
        uniform ? json_integer((json_int_t)l.g[0].layers) : json_null(), "kv_heads",
        uniform ? json_integer((json_int_t)l.g[0].kv_heads) : json_null(), "head_dim",
        uniform ? json_integer((json_int_t)l.g[0].head_dim) : json_null(), "dtype", dtype, "bits",
        (int)bits, "length", (json_int_t)len, "concurrency", (json_int_t)conc, "encoder_length",
        cross ? json_integer((json_int_t)(enc ? enc : len)) : json_null(), "tp", (json_int_t)d.tp,
        "groups", groups, "bytes_per_token", (json_int_t)per_token, "skipped", sk);
    {
        const char *names[1] = {name};
        vs_buf head = VS_BUF_INIT;
        json_t *extra = json_array_size(sk)
                            ? vs_json_object_of("estimate_bytes", json_integer((json_int_t)bytes),
                                                (const char *)NULL)
                            : NULL;
        vs_buf_printf(&head, "estimate kv: %s", vs_buf_str(&src));
        rc = vs_buf_failed(&head)
                 ? oom(err)
                 : emit(ctx,
                        vs_render_components(sheet, "kv", names, 1, vs_buf_str(&head), notes,
                                             inputs, extra),
                        err);
        vs_buf_free(&head);
    }
done:
    vs_buf_free(&src);
    vs_buf_free(&skipped);
    vs_buf_free(&tpnote);
    json_decref(groups);
    json_decref(sk);
    return rc;
}

static int estimate_training(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *op = vs_line_pair(line, "optimizer"), *pr = vs_line_pair(line, "precision");
    const vs_arg *comp_arg = vs_line_pair(line, "component");
    json_t *comp = NULL;
    char compnote[300];
    vs_training_rule rule;
    vs_training_est e;
    uint64_t trainable = 0, adapter = 0;
    int rc, have_trainable = 0, lora;
    const char *task = card_str(sheet, "task");
    char gt[40], src[3][320], head[700], asrc[320];
    const char *names[4];
    size_t nnames = 0, nn = 0;
    const char *notes[7] = {NULL};
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;

    if (!sk)
        return oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_training_keys, err)) < 0)
        goto done;
    if ((rc = vs_training_rule_get(&rule, op ? op->value : NULL, pr ? pr->value : NULL, err)) < 0) {
        rc = vs_arg_error(op && (!pr || strstr(err->message, "optimizer")) ? op : pr, err, rc);
        goto done;
    }
    if ((rc = vs_line_get_count(line, "trainable", 0, &trainable, &have_trainable, err)) < 0)
        goto done;
    lora = task && (!strcmp(task, "lora") || !strcmp(task, "qlora"));
    if (comp_arg) {
        /* one component of a diffusers pipeline is trained; the others stay frozen */
        json_t *wc = json_object_get(json_object_get(sheet, "weights_files"), "components"), *x;
        size_t k;
        vs_buf cnames = VS_BUF_INIT;
        json_array_foreach(wc, k, x)
        {
            const char *n = json_string_value(json_object_get(x, "name"));
            if (n && !strcmp(n, comp_arg->value))
                comp = x;
            vs_buf_printf(&cnames, "%s%s", cnames.len ? ", " : "", n ? n : "?");
        }
        if (!comp) {
            rc = vs_arg_error(comp_arg, err,
                              vs_error_set(err, VS_EVALUE,
                                           json_array_size(wc)
                                               ? "component=%s: the pipeline's components are %s"
                                               : "component=%s needs a diffusers pipeline on the "
                                                 "card (`model NAME pipeline=DIR`)%s",
                                           comp_arg->value, vs_buf_str(&cnames)));
            vs_buf_free(&cnames);
            goto done;
        }
        vs_buf_free(&cnames);
        if (!have_trainable && !lora)
            trainable = (uint64_t)json_integer_value(json_object_get(comp, "params"));
    }
    if (!have_trainable && !comp) {
        if (lora) {
            rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                 "task %s trains an adapter: give trainable=N (its parameter "
                                 "count); the whole model's would overstate every component",
                                 task);
            goto done;
        }
        if (!vs_sheet_card_uint(sheet, "params", &trainable)) {
            rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                 "`estimate training` needs the card's params (`model NAME "
                                 "params=N`) or trainable=N");
            goto done;
        }
    }
    if ((rc = vs_estimate_training(&e, &rule, trainable, err)) < 0)
        goto done;
    grouped(gt, sizeof gt, trainable);
    snprintf(src[0], sizeof src[0], "%s trainable x %u B (gradients; precision=%s)", gt,
             rule.gradient_bytes, rule.precision);
    snprintf(src[1], sizeof src[1], "%s trainable x %u B (%s moments; optimizer=%s)", gt,
             rule.state_bytes, rule.optimizer, rule.optimizer);
    if (rule.master_bytes)
        snprintf(src[2], sizeof src[2], "%s trainable x %u B (fp32 master copy; precision=%s)", gt,
                 rule.master_bytes, rule.precision);
    else
        snprintf(src[2], sizeof src[2], "0 B: precision=%s keeps no separate master copy",
                 rule.precision);
    if ((rc = store_estimate(sheet, "gradients", e.gradients, src[0], "gradients", &skipped, sk,
                             err)) < 0 ||
        (rc = store_estimate(sheet, "optimizer_state", e.optimizer_state, src[1], "optimizer",
                             &skipped, sk, err)) < 0 ||
        (rc = store_estimate(sheet, "master_copy", e.master_copy, src[2], "optimizer", &skipped, sk,
                             err)) < 0)
        goto done;
    names[nnames++] = "gradients";
    names[nnames++] = "optimizer_state";
    names[nnames++] = "master_copy";
    if (lora) {
        unsigned ab = !strcmp(rule.precision, "fp32") ? 4 : 2;
        if (__builtin_mul_overflow(trainable, (uint64_t)ab, &adapter)) {
            rc = vs_error_set(err, VS_EUNIT, "the adapter weights do not fit in 64 bits");
            goto done;
        }
        snprintf(asrc, sizeof asrc, "%s adapter params x %u B (%s working copy)", gt, ab,
                 ab == 4 ? "fp32" : "16-bit");
        if ((rc = store_estimate(sheet, "adapter_weights", adapter, asrc, "parameters", &skipped,
                                 sk, err)) < 0)
            goto done;
        names[nnames++] = "adapter_weights";
    }
    snprintf(head, sizeof head,
             "estimate training optimizer=%s precision=%s: %s trainable params x (%u B gradients + "
             "%u B master copy + %u B optimizer state) = %u B per trainable param, the weights on "
             "top (%s)",
             rule.optimizer, rule.precision, gt, rule.gradient_bytes, rule.master_bytes,
             rule.state_bytes, rule.gradient_bytes + rule.master_bytes + rule.state_bytes,
             rule.why);
    notes[nn++] = "source: Rajbhandari et al. 2020, ZeRO (mixed-precision Adam: 2 B weights + 2 B "
                  "gradients + K = 12 B of optimizer state, the master copy included, per "
                  "parameter); ZeRO stage 1 shards all 12";
    if (lora)
        notes[nn++] = "LoRA/QLoRA: gradients and optimizer state cover the trainable adapter only; "
                      "the frozen weights keep the sheet's format";
    if (comp) {
        snprintf(compnote, sizeof compnote,
                 "component %s (%s) is trained%s; the pipeline's other components stay frozen in "
                 "their stored format (their bytes are the sheet's weights, unchanged)",
                 comp_arg->value, json_string_value(json_object_get(comp, "class")),
                 lora ? " through its adapter" : ": trainable = its parameters, from its files");
        notes[nn++] = compnote;
    }
    notes[nn++] = "activations are separate: `estimate activations`";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack("{s:s, s:s, s:I, s:b, s:i, s:i, s:i, s:O}", "optimizer", rule.optimizer,
                       "precision", rule.precision, "trainable", (json_int_t)trainable,
                       "trainable_declared", have_trainable, "gradient_bytes",
                       (int)rule.gradient_bytes, "master_bytes", (int)rule.master_bytes,
                       "state_bytes", (int)rule.state_bytes, "skipped", sk);
    rc =
        emit(ctx, vs_render_components(sheet, "training", names, nnames, head, notes, inputs, NULL),
             err);
done:
    vs_buf_free(&skipped);
    json_decref(sk);
    return rc;
}

static int estimate_activations(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *ck = vs_line_pair(line, "checkpointing"), *nm = vs_line_pair(line, "name");
    const char *name = nm ? nm->value : "activations";
    vs_checkpointing mode;
    uint64_t L, H, A = 0, s, b, bytes;
    int rc, from_arch = 0;
    char gL[40], gH[40], gA[40], gs[40], gb[40], gbytes[40], src[600], head[700];
    const char *notes[4] = {NULL};
    size_t nn = 0;
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;

    if (!sk)
        return oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_activations_keys, err)) < 0)
        goto done;
    if ((rc = vs_checkpointing_parse(&mode, ck ? ck->value : NULL, err)) < 0) {
        rc = vs_arg_error(ck, err, rc);
        goto done;
    }
    if ((rc = shape(line, sheet, "layers", "layers", &L, &from_arch, err)) <= 0) {
        rc = rc < 0 ? rc : need_shape(line, "layers", "activations", err);
        goto done;
    }
    if ((rc = shape(line, sheet, "hidden", "hidden", &H, &from_arch, err)) <= 0) {
        rc = rc < 0 ? rc : need_shape(line, "hidden", "activations", err);
        goto done;
    }
    if (mode == VS_CKPT_NONE) {
        if ((rc = shape(line, sheet, "heads", "heads", &A, &from_arch, err)) <= 0) {
            rc = rc < 0 ? rc : need_shape(line, "heads", "activations", err);
            goto done;
        }
    } else if ((rc = shape(line, sheet, "heads", "heads", &A, &from_arch, err)) < 0) {
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, "length", &s)) {
        rc = need_card(line, "length", "activations", "length 4096", err);
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, "microbatch", &b)) {
        rc = need_card(line, "microbatch", "activations", "microbatch 4", err);
        goto done;
    }
    if ((rc = vs_estimate_activations(&bytes, L, H, A, s, b, mode, err)) < 0)
        goto done;
    grouped(gL, sizeof gL, L);
    grouped(gH, sizeof gH, H);
    grouped(gA, sizeof gA, A);
    grouped(gs, sizeof gs, s);
    grouped(gb, sizeof gb, b);
    grouped(gbytes, sizeof gbytes, bytes);
    if (mode == VS_CKPT_NONE)
        snprintf(src, sizeof src,
                 "%s layers x %s tokens x %s microbatch x %s hidden x (34 + 5 x %s heads x %s / "
                 "%s) = %s B (checkpointing=none; Korthikanti et al. 2022)",
                 gL, gs, gb, gH, gA, gs, gH, gbytes);
    else if (mode == VS_CKPT_SELECTIVE)
        snprintf(src, sizeof src,
                 "%s layers x %s tokens x %s microbatch x %s hidden x 34 = %s B "
                 "(checkpointing=selective; Korthikanti et al. 2022)",
                 gL, gs, gb, gH, gbytes);
    else
        snprintf(
            src, sizeof src,
            "%s layers x 2 x %s tokens x %s microbatch x %s hidden = %s B (checkpointing=full: "
            "the layer input only; Korthikanti et al. 2022)",
            gL, gs, gb, gH, gbytes);
    if ((rc = store_estimate(sheet, name, bytes, src, "activations", &skipped, sk, err)) < 0)
        goto done;
    snprintf(head, sizeof head, "estimate activations: %s", src);
    notes[nn++] =
        "source: Korthikanti et al. 2022, \"Reducing Activation Recomputation in Large "
        "Transformer Models\": per layer s*b*h*(34 + 5*a*s/h) bytes of 16-bit "
        "activations; selective recomputation keeps 34*s*b*h, full keeps the 2*s*b*h input";
    if (from_arch)
        notes[nn++] = "shapes not given on the line come from the card's config.json architecture";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack("{s:I, s:I, s:I, s:I, s:I, s:s, s:O}", "layers", (json_int_t)L, "hidden",
                       (json_int_t)H, "heads", (json_int_t)A, "length", (json_int_t)s, "microbatch",
                       (json_int_t)b, "checkpointing", vs_checkpointing_name(mode), "skipped", sk);
    {
        const char *names[1] = {name};
        rc = emit(ctx,
                  vs_render_components(sheet, "activations", names, 1, head, notes, inputs, NULL),
                  err);
    }
done:
    vs_buf_free(&skipped);
    json_decref(sk);
    return rc;
}

static int estimate_quant(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *sc = vs_line_pair(line, "scheme"), *dq = vs_line_pair(line, "double");
    const vs_arg *nm = vs_line_pair(line, "name");
    const char *name = nm ? nm->value : "quant_metadata", *scheme,
               *format = card_str(sheet, "format");
    vs_quant_rule q;
    uint64_t group = 0, params = 0, bits = 0, bytes;
    int rc, have_params = 0, dbl = 1, have_bits = 0, have_group = 0;
    char gp[40], gg[40], gbytes[40], g2[40], src[700], head[800];
    const char *notes[4] = {NULL};
    size_t nn = 0;
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;

    if (!sk)
        return oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_quant_keys, err)) < 0)
        goto done;
    if (sc)
        scheme = sc->value;
    else if (format && (!strcmp(format, "nf4") || !strcmp(format, "fp4")))
        scheme = "bnb";
    else if (format && !strcmp(format, "int4"))
        scheme = "gptq";
    else {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "`estimate quant` needs scheme=bnb|gptq|group (the card's format "
                             "%s does not imply one)",
                             format ? format : "is not set and");
        goto done;
    }
    if (dq) {
        if (!strcmp(dq->value, "yes") || !strcmp(dq->value, "true"))
            dbl = 1;
        else if (!strcmp(dq->value, "no") || !strcmp(dq->value, "false"))
            dbl = 0;
        else {
            rc = vs_error_set_at(err, VS_EVALUE, dq->line, dq->value_column,
                                 "double= must be yes or no, not '%s'", dq->value);
            goto done;
        }
    }
    if ((rc = vs_line_get_uint(line, "group", 0, &group, &have_group, err)) < 0 ||
        (rc = vs_line_get_uint(line, "bits", 0, &bits, &have_bits, err)) < 0 ||
        (rc = vs_line_get_count(line, "params", 0, &params, &have_params, err)) < 0)
        goto done;
    /* 0 stands for "the scheme's default" below; a written group=0 is a mistake */
    if (have_group && (rc = vs_quant_group_check(group, err)) < 0) {
        rc = vs_arg_error(vs_line_pair(line, "group"), err, rc);
        goto done;
    }
    if (!have_bits)
        bits = vs_sheet_weight_bits(sheet) <= 8 ? vs_sheet_weight_bits(sheet) : 0;
    if (bits > 64) {
        rc = vs_arg_error(vs_line_pair(line, "bits"), err,
                          vs_error_set(err, VS_EVALUE, "bits= must be 1 to 8"));
        goto done;
    }
    if ((rc = vs_quant_rule_get(&q, scheme, group, dbl, (unsigned)bits, 16, err)) < 0) {
        rc = vs_arg_error(sc ? sc : vs_line_pair(line, "group"), err, rc);
        goto done;
    }
    if (!have_params && !vs_sheet_card_uint(sheet, "params", &params)) {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "`estimate quant` needs the card's params or params=COUNT (the "
                             "quantised ones)");
        goto done;
    }
    if ((rc = vs_estimate_quant(&bytes, &q, params, err)) < 0)
        goto done;
    grouped(gp, sizeof gp, params);
    grouped(gg, sizeof gg, q.group);
    grouped(gbytes, sizeof gbytes, bytes);
    if (q.group2) {
        uint64_t groups = params / q.group + (params % q.group != 0);
        grouped(g2, sizeof g2, groups);
        snprintf(src, sizeof src,
                 "ceil(%s / %s) x %u bits + ceil(%s / %llu) x %u bits = %s B (scheme=%s, double "
                 "quantisation)",
                 gp, gg, q.meta_bits, g2, (unsigned long long)q.group2, q.meta2_bits, gbytes,
                 q.scheme);
    } else {
        snprintf(src, sizeof src, "ceil(%s / %s) x %u bits = %s B (scheme=%s%s)", gp, gg,
                 q.meta_bits, gbytes, q.scheme,
                 !strcmp(q.scheme, "bnb") ? ", no double quantisation" : "");
    }
    if ((rc = store_estimate(sheet, name, bytes, src, "parameters", &skipped, sk, err)) < 0)
        goto done;
    snprintf(head, sizeof head, "estimate quant: %s", src);
    notes[nn++] = q.source;
    notes[nn++] = "not included: per-tensor constants (code tables, act-order indices) and the "
                  "layers kept in 16 bits (embeddings, lm_head, norms), which `weights "
                  "from=PATH` measures exactly";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack("{s:s, s:I, s:i, s:I, s:i, s:I, s:O}", "scheme", q.scheme, "group",
                       (json_int_t)q.group, "meta_bits", (int)q.meta_bits, "group2",
                       (json_int_t)q.group2, "meta2_bits", (int)q.meta2_bits, "params",
                       (json_int_t)params, "skipped", sk);
    {
        const char *names[1] = {name};
        rc = emit(ctx, vs_render_components(sheet, "quant", names, 1, head, notes, inputs, NULL),
                  err);
    }
done:
    vs_buf_free(&skipped);
    json_decref(sk);
    return rc;
}

/* What each estimator reads from the card (sheet/derived.h): when any of it
 * changes, the estimate is recomputed from its keys (lang/derive.h). A read
 * with `unless` keys is skipped when the line wrote all of them. An estimator
 * whose figure depends on the placement (or, later, the engine) lists
 * {"placement", NULL}; today's are per GPU before the placement, which the
 * envelope applies by class, so none reads it. */
static const vs_derived_read kv_reads[] = {
    {"length", NULL}, {"concurrency", NULL}, {"arch", "layers,kv_heads,head_dim"}, {NULL, NULL}};
static const vs_derived_read training_reads[] = {
    {"params", "trainable"}, {"task", NULL}, {NULL, NULL}};
static const vs_derived_read act_reads[] = {
    {"length", NULL}, {"microbatch", NULL}, {"arch", "layers,hidden,heads"}, {NULL, NULL}};
static const vs_derived_read quant_reads[] = {
    {"format", "scheme,bits"}, {"bits", "bits"}, {"params", "params"}, {NULL, NULL}};

/* estimate runtime: lang/verbs_engine.c (it reads the engine, the model and the placement) */
extern const vs_derived_read vs_runtime_reads[];
int vs_estimate_runtime(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err);

const vs_estimator vs_estimators[] = {
    {&vs_estimator_kv, estimate_kv, kv_reads},
    {&vs_estimator_training, estimate_training, training_reads},
    {&vs_estimator_activations, estimate_activations, act_reads},
    {&vs_estimator_quant, estimate_quant, quant_reads},
    {&vs_estimator_runtime, vs_estimate_runtime, vs_runtime_reads},
    {&vs_estimator_latents, vs_estimate_latents_run, vs_generate_reads},
    {&vs_estimator_attention, vs_estimate_attention_run, vs_generate_reads},
    {&vs_estimator_decode, vs_estimate_decode_run, vs_generate_reads},
    {NULL, NULL, NULL}};

static int verb_estimate(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "estimate kv|training|activations|quant|runtime|latents|attention|decode "
                         "[KEY=VALUE ...]";
    const vs_arg *a = vs_line_positional(line, 0);
    const vs_estimator *e;
    json_t *sheet;
    int rc;
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if ((e = vs_estimator_find(a->value)) != NULL)
        return vs_estimate_run(ctx, line, sheet, e, err);
    return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                           "unknown estimator '%s'; expected kv, training, activations, quant, "
                           "runtime, latents, attention or decode",
                           a->value);
}

/* --------------------------------------------------------------- placement */

static const char *const placement_words[] = {"single", "ddp", "zero", "fsdp", "tensor", NULL};
static const char *const placement_keys[] = {"stage", "gpus", "offload", NULL};

static int verb_placement(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "placement single | ddp gpus=N | zero stage=1|2|3 gpus=N | fsdp gpus=N | "
                         "tensor gpus=N | placement offload=model|sequential";
    static const char *const classes[] = {"weights",     "parameters", "gradients", "optimizer",
                                          "activations", "kv_cache",   "other"};
    const vs_arg *a = vs_line_positional(line, 0), *gp = vs_line_pair(line, "gpus");
    const vs_arg *off = vs_line_pair(line, "offload");
    vs_placement p = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_NONE};
    uint64_t gpus = 1, stage = 0;
    int rc, have_gpus = 0, have_stage = 0;
    json_t *sheet, *ways, *pj, *offj = json_null();
    char head[200], lines_buf[7][120], offline[400];
    const char *lines[10];
    size_t i;

    if ((rc = vs_line_check_keys(line, placement_keys, err)) < 0)
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
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    pj = vs_placement_to_json(&p);
    if (!pj || json_object_set_new(sheet, "placement", pj))
        return oom(err);
    ways = json_object();
    if (!ways)
        return oom(err);
    for (i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        unsigned w = vs_placement_ways(&p, classes[i]);
        if (w > 1)
            snprintf(lines_buf[i], sizeof lines_buf[i], "%s: split %u ways (1/%u per GPU)",
                     classes[i], w, w);
        else
            snprintf(lines_buf[i], sizeof lines_buf[i], "%s: whole on every GPU", classes[i]);
        lines[i] = lines_buf[i];
        json_object_set_new(ways, classes[i], json_integer(w));
    }
    {
        char d[128];
        snprintf(head, sizeof head,
                 "placement: %s; the envelope and the capacity check are per GPU",
                 vs_placement_describe(&p, d, sizeof d));
    }
    {
        /* the KV heads each GPU holds, group by group, when the card knows them */
        json_t *kvj = json_object_get(json_object_get(vs_sheet_card(sheet), "arch"), "kv_layout");
        json_t *heads = json_array();
        vs_kv_layout l;
        char kvline[400];
        size_t n = sizeof classes / sizeof classes[0], k, used = 0;
        if (!heads) {
            json_decref(ways);
            return oom(err);
        }
        if (p.offload != VS_OFFLOAD_NONE) {
            /* what one GPU holds of the weights, and the host memory beside it */
            vs_envelope env;
            char g1[160], g2[160];
            if (vs_envelope_compute(&env, sheet, NULL, NULL) == 0 && env.weights_known) {
                vs_units_describe(g1, sizeof g1, env.weights_gpu_bytes);
                vs_units_describe(g2, sizeof g2, env.host_bytes);
                snprintf(offline, sizeof offline,
                         "offload=%s: weights on the GPU %s (%s); host memory for the weights %s",
                         vs_offload_name(p.offload), g1, env.offload_basis, g2);
                offj =
                    json_pack("{s:s, s:I, s:I, s:s}", "offload", vs_offload_name(p.offload),
                              "weights_gpu_bytes", (json_int_t)env.weights_gpu_bytes, "host_bytes",
                              (json_int_t)env.host_bytes, "basis", env.offload_basis);
            } else {
                snprintf(offline, sizeof offline,
                         "offload=%s: the weights are not known yet (`model NAME pipeline=DIR`)",
                         vs_offload_name(p.offload));
            }
            lines[n++] = offline;
        }
        if (p.kind == VS_PLACE_TENSOR && json_is_array(kvj) &&
            vs_kv_layout_from_json(&l, kvj, NULL) == 0 && l.n) {
            used = (size_t)snprintf(kvline, sizeof kvline, "KV heads per GPU:");
            for (k = 0; k < l.n && used < sizeof kvline; k++) {
                const vs_kv_group *g = &l.g[k];
                uint64_t h = vs_kv_group_heads_per_gpu(g, p.gpus);
                if (g->kind == VS_KV_LATENT)
                    used += (size_t)snprintf(kvline + used, sizeof kvline - used,
                                             "%s %llu latent layers not split (each GPU holds "
                                             "the whole latent)",
                                             k ? ";" : "", (unsigned long long)g->layers);
                else if (g->kind == VS_KV_NONE || g->kind == VS_KV_STATE)
                    continue;
                else
                    used += (size_t)snprintf(
                        kvline + used, sizeof kvline - used, "%s %s layers %llu of %llu%s",
                        k ? ";" : "", vs_kv_kind_name(g->kind), (unsigned long long)h,
                        (unsigned long long)g->kv_heads,
                        g->kv_heads < p.gpus ? " (fewer KV heads than GPUs: replicated)" : "");
                json_array_append_new(heads,
                                      json_pack("{s:s, s:I, s:I}", "kind", vs_kv_kind_name(g->kind),
                                                "kv_heads", (json_int_t)g->kv_heads, "per_gpu",
                                                (json_int_t)(g->kind == VS_KV_LATENT ? 0 : h)));
            }
            lines[n++] = kvline;
        }
        return emit(
            ctx,
            vs_render_lines(
                head, lines, n,
                json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o}", "kind", "placement", "placement",
                          vs_placement_kind_name(p.kind), "gpus", (json_int_t)p.gpus, "stage",
                          p.kind == VS_PLACE_ZERO ? json_integer(p.stage) : json_null(), "ways",
                          ways, "kv_heads_per_gpu", heads, "offload", offj ? offj : json_null())),
            err);
    }
}

/* ----------------------------------------------------- weights and envelope */

static const char *const weights_keys[] = {"from", "sha256", NULL};

static int no_weights(const json_t *sheet, vs_error *err)
{
    uint64_t p;
    if (!vs_sheet_card_uint(sheet, "params", &p))
        return vs_error_set(err, VS_EVALUE,
                            "no weights yet: the card has no parameter count (`model NAME "
                            "params=COUNT`, or config=PATH, or `weights from=PATH`)");
    return vs_error_set(err, VS_EVALUE,
                        "no weights yet: the card has no format (`format bf16`, or bits=N)");
}

static int verb_weights(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *from = vs_line_pair(line, "from"), *sh = vs_line_pair(line, "sha256");
    json_t *sheet, *files = NULL;
    vs_bundle *b;
    vs_envelope env;
    int rc, hash = 0;
    if ((rc = vs_line_check_keys(line, weights_keys, err)) < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 0, "weights [from=PATH] [sha256=yes]", err)) < 0)
        return rc;
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
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    if (from && (rc = vs_model_apply_weights_files(sheet, from->value, hash, &files, err)) < 0)
        return vs_arg_error(from, err, rc);
    if (!from && json_is_null(json_object_get(sheet, "weights_files"))) {
        /* a card read from a Hugging Face cache snapshot: that snapshot's files */
        char msg[VS_ERROR_MESSAGE_MAX];
        if ((rc = vs_hf_card_weights(sheet, &files, err)) < 0) {
            snprintf(msg, sizeof msg, "%s", err->message);
            return vs_error_set_at(err, rc, line->line, line->column, "%s", msg);
        }
    }
    if ((rc = vs_envelope_compute(&env, sheet, NULL, err)) < 0) {
        json_decref(files);
        return rc;
    }
    if (!env.weights_known) {
        json_decref(files);
        return no_weights(sheet, err);
    }
    b = vs_render_weights(sheet, &env, files);
    json_decref(files);
    return emit(ctx, b, err);
}

static int verb_envelope(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet;
    vs_envelope env;
    vs_component_views views;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 0, "envelope", err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)) || vs_component_views_read(&views, sheet) < 0)
        return oom(err);
    /* the components read once, for the sum, the chart, the table and the payload */
    if ((rc = vs_envelope_compute(&env, sheet, &views, err)) == 0)
        rc = env.weights_known ? emit(ctx, vs_render_envelope(sheet, &env, &views), err)
                               : no_weights(sheet, err);
    vs_component_views_free(&views);
    return rc;
}

static const char *const formats_keys[] = {"bits", NULL};

static int verb_formats(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const defaults[] = {"fp32", "bf16", "int8", "int4"};
    json_t *sheet;
    vs_envelope env;
    vs_placement pl;
    vs_format_row rows[32];
    char names[32][16], bits_text[32][24], basis[32][160];
    const vs_arg *gguf[32] = {NULL};
    size_t n = 0, i;
    uint64_t params;
    int rc;
    memset(rows, 0, sizeof rows);
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    for (i = 0; i < line->nargs; i++) {
        const vs_arg *a = &line->args[i];
        unsigned bits;
        if (n == sizeof rows / sizeof rows[0])
            return vs_error_set_at(err, VS_EVALUE, a->line, a->column, "at most 32 formats");
        if (a->kind == VS_ARG_PAIR) {
            uint64_t v;
            if (strcmp(a->key, "bits"))
                return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                       "unknown key '%s=' for `formats`; expected format names "
                                       "or bits=N",
                                       a->key);
            if ((rc = vs_units_parse_uint(&v, a->value, err)) < 0)
                return vs_arg_error(a, err, rc);
            if (v < 1 || v > 64)
                return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                                       "bits= must be 1 to 64");
            bits = (unsigned)v;
            snprintf(names[n], sizeof names[n], "bits=%u", bits);
        } else {
            bits = vs_format_bits(a->value);
            if (!bits && (vs_gguf_type_by_name(a->value) || vs_gguf_ftype_parse(a->value) >= 0)) {
                gguf[n] = a; /* a GGUF type or a llama.cpp file type: once params are known */
                bits = 1;
            }
            if (!bits)
                return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                       "unknown format '%s'; expected fp32 fp16 bf16 fp8 int8 int4 "
                                       "nf4 fp4, a GGUF type (q4_k q6_k q8_0 iq4_xs mxfp4 ...), a "
                                       "llama.cpp file type (q4_k_m q5_k_m q3_k_m ...) or bits=N",
                                       a->value);
            snprintf(names[n], sizeof names[n], "%s", a->value);
        }
        rows[n].bits = bits;
        n++;
    }
    if (n == 0) {
        for (i = 0; i < 4; i++) {
            snprintf(names[i], sizeof names[i], "%s", defaults[i]);
            rows[i].bits = vs_format_bits(defaults[i]);
        }
        n = 4;
    }
    if (!vs_sheet_card_uint(sheet, "params", &params))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`formats` needs the card's parameter count (`model NAME "
                               "params=COUNT` or config=PATH)");
    if ((rc = vs_envelope_compute(&env, sheet, NULL, err)) < 0 ||
        (rc = vs_placement_from_sheet(&pl, sheet, err)) < 0)
        return rc;
    for (i = 0; i < n; i++) {
        rows[i].format = names[i];
        if (gguf[i]) {
            rc = vs_model_gguf_format_row(sheet, gguf[i]->value, params, &rows[i].bits,
                                          bits_text[i], sizeof bits_text[i], basis[i],
                                          sizeof basis[i], &rows[i].weights_bytes, err);
            if (rc < 0)
                return vs_arg_error(gguf[i], err, rc);
            rows[i].bits_text = bits_text[i];
            rows[i].basis = basis[i][0] ? basis[i] : NULL;
        } else if ((rc = vs_weights_bytes(&rows[i].weights_bytes, params, rows[i].bits, err)) < 0)
            return rc;
        rows[i].weights_gpu_bytes = vs_placement_per_gpu(&pl, "weights", rows[i].weights_bytes);
        if (__builtin_add_overflow(rows[i].weights_gpu_bytes, env.reserve_bytes,
                                   &rows[i].envelope_bytes))
            return vs_error_set(err, VS_EUNIT, "the envelope does not fit in 64 bits");
    }
    return emit(ctx, vs_render_formats(sheet, &env, rows, n), err);
}

/* ---------------------------------------------------------------- procedure */

static const char *const stage_words[] = {"short", "usual", "limit", NULL};
static const char *const stage_keys[] = {"length", "concurrency", "microbatch", "width", "height",
                                         "frames", "batch",       "note",       NULL};

static int verb_stage(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "stage short|usual|limit [length=N] [concurrency=N] [microbatch=N] "
                         "[width=N height=N frames=N batch=N] [note=\"...\"]";
    /* the card's dimensions: language models', then image and video generation's */
    static const char *const dims[] = {"length", "concurrency", "microbatch", "width",
                                       "height", "frames",      "batch"};
#define NDIMS (sizeof dims / sizeof dims[0])
    const vs_arg *a = vs_line_positional(line, 0), *note = vs_line_pair(line, "note");
    json_t *sheet, *stages, *st, *x;
    uint64_t v[NDIMS], card_v;
    int have[NDIMS], rc, any = 0, limit;
    size_t i, nlines = 0;
    char lbuf[16][200], head[200];
    const char *lines[16];

    if ((rc = vs_line_check_keys(line, stage_keys, err)) < 0)
        return rc;
    if (!a)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (!(sheet = sheet_of(ctx, err)))
        return VS_ENOMEM;
    limit = !strcmp(a->value, "limit");
    for (i = 0; i < NDIMS; i++) {
        if ((rc = vs_line_get_count(line, dims[i], 0, &v[i], &have[i], err)) < 0) /* 32k, 32Ki */
            return rc;
        if (have[i] && (v[i] == 0 || v[i] > (uint64_t)INT64_MAX))
            return vs_arg_error(vs_line_pair(line, dims[i]), err,
                                vs_error_set(err, VS_EVALUE, "%s= must be at least 1", dims[i]));
        if (limit) {
            /* The limit stage is the card's requirement, never a smaller run. */
            int on_card = vs_sheet_card_uint(sheet, dims[i], &card_v);
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
        return oom(err);
    /* generation's dimensions only when given: a language model's stage keeps its shape */
    for (i = 3; i < NDIMS; i++)
        if (have[i] && json_object_set_new(st, dims[i], json_integer((json_int_t)v[i]))) {
            json_decref(st);
            return oom(err);
        }
    stages = vs_sheet_array(sheet, "stages");
    if (!stages) {
        stages = json_array();
        if (!stages || json_object_set_new(sheet, "stages", stages)) {
            json_decref(st);
            return oom(err);
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
    json_array_foreach(stages, i, x)
    {
        vs_buf l = VS_BUF_INIT;
        size_t k;
        if (nlines == 16)
            break;
        vs_buf_puts(&l, json_string_value(json_object_get(x, "name")));
        vs_buf_putc(&l, ':');
        for (k = 0; k < NDIMS; k++)
            if (json_is_integer(json_object_get(x, dims[k])))
                vs_buf_printf(&l, " %s=%" JSON_INTEGER_FORMAT, dims[k],
                              json_integer_value(json_object_get(x, dims[k])));
        if (json_is_string(json_object_get(x, "note")))
            vs_buf_printf(&l, " (%s)", json_string_value(json_object_get(x, "note")));
        snprintf(lbuf[nlines], sizeof lbuf[nlines], "%s", vs_buf_str(&l));
        vs_buf_free(&l);
        lines[nlines] = lbuf[nlines];
        nlines++;
    }
    snprintf(head, sizeof head,
             "procedure: short input and small batch, then the usual input, "
             "then the required limit; only the limit validates the card");
    return emit(ctx,
                vs_render_lines(
                    head, lines, nlines,
                    json_pack("{s:s, s:o}", "kind", "stages", "stages", json_deep_copy(stages))),
                err);
}
#undef NDIMS

static int verb_invalidate(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet, *arr, *x;
    vs_buf t = VS_BUF_INIT;
    const char *lines[64];
    size_t i, n = 0;
    int rc, dup = 0;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (vs_line_npositional(line) == 0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `invalidate \"CONDITION\"` (what would make the "
                               "conclusion wrong, e.g. \"a context longer than 4096 tokens\")");
    if (join_positionals(line, 0, &t) < 0)
        return (vs_buf_free(&t), oom(err));
    if (!(sheet = sheet_of(ctx, err))) {
        vs_buf_free(&t);
        return VS_ENOMEM;
    }
    arr = vs_sheet_array(sheet, "invalidate");
    if (!arr) {
        arr = json_array();
        if (!arr || json_object_set_new(sheet, "invalidate", arr)) {
            vs_buf_free(&t);
            return oom(err);
        }
    }
    json_array_foreach(arr, i, x) if (json_is_string(x) &&
                                      !strcmp(json_string_value(x), vs_buf_str(&t))) dup = 1;
    if (!dup && json_array_append_new(arr, json_string(vs_buf_str(&t)))) {
        vs_buf_free(&t);
        return oom(err);
    }
    vs_buf_free(&t);
    json_array_foreach(arr, i, x) if (n < 64) lines[n++] = json_string_value(x);
    return emit(ctx,
                vs_render_lines("the conclusion no longer holds if:", lines, n,
                                json_pack("{s:s, s:o}", "kind", "invalidate", "conditions",
                                          json_deep_copy(arr))),
                err);
}

static const char *const oom_words[] = {"load",     "prefill",   "generate",   "forward",
                                        "backward", "optimizer", "validation", "export",
                                        "denoise",  "decode",    NULL};
static const char *const oom_keys[] = {"phase", "note", NULL};

static int verb_oom(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const struct {
        const char *phase;
        const char *classes; /* component classes to look at, space-separated */
        const char *examine[4];
    } triage[] = {
        {"load",
         "parameters",
         {"the weights: the parameter count and the format the real loader produces",
          "the format: a checkpoint loaded in fp32 before the cast, or layers kept in 16 bits",
          "transient allocations: two copies while loading or converting, the CUDA context", NULL}},
        {"prefill",
         "kv_cache activations",
         {"the context: the length of the prompts (prefill attention workspace grows with it)",
          "concurrency: the sequences prefilled together", "the KV cache allocated up front",
          NULL}},
        {"generate",
         "kv_cache",
         {"the context: tokens kept per sequence (the KV cache grows with them)",
          "concurrency: simultaneous sequences", "the cache dtype (fp16, fp8)", NULL}},
        {"forward",
         "activations",
         {"the microbatch", "the saved activations (length x microbatch x hidden x layers)",
          "the computation strategy: checkpointing, attention kernel", NULL}},
        {"backward",
         "activations gradients",
         {"the microbatch", "the saved activations and the gradients",
          "the computation strategy: activation checkpointing (selective, full)", NULL}},
        {"optimizer",
         "optimizer gradients",
         {"the optimizer state and the master copy (first step allocates them)",
          "the precision policy (mixed, bf16, 8-bit optimizer)",
          "the placement: ZeRO/FSDP sharding of the optimizer state", NULL}},
        {"validation",
         "kv_cache activations",
         {"the evaluation batch and generation length",
          "caches or graphs kept from training while evaluating", NULL, NULL}},
        {"export",
         "parameters",
         {"copies made while merging adapters or saving", "dtype conversion of the whole model",
          NULL, NULL}},
        {"denoise",
         "activations",
         {"the denoiser's attention over latent tokens: fused attention (SDPA, flash) instead of "
          "eager, which holds tokens^2 scores per head",
          "the resolution and the batch (tokens grow with H x W; classifier-free guidance doubles "
          "the batch)",
          "the weights on the GPU: pipe.enable_model_cpu_offload() keeps one component there, "
          "enable_sequential_cpu_offload() one block",
          NULL}},
        {"decode",
         "activations",
         {"the VAE decode at the card's resolution and frames: pipe.enable_vae_tiling() decodes "
          "one tile at a time",
          "pipe.enable_vae_slicing(): one image of the batch decoded at a time",
          "a lower resolution or fewer frames (the decode grows with H x W x frames)",
          "the denoiser still on the GPU during the decode: model CPU offload moves it out "
          "first"}},
    };
    const vs_arg *ph = vs_line_pair(line, "phase"), *nt = vs_line_pair(line, "note");
    const char *phase;
    json_t *sheet, *arr, *entry, *suspects, *c, *examine;
    size_t t, i, n = 0, nl = 0;
    const char *lines[16];
    char lbuf[8][300], head[300];
    vs_buf note = VS_BUF_INIT;
    int rc;

    if ((rc = vs_line_check_keys(line, oom_keys, err)) < 0)
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
    else if (join_positionals(line, ph->kind == VS_ARG_PAIR ? 0 : 1, &note) < 0)
        return (vs_buf_free(&note), oom(err));
    if (!(sheet = sheet_of(ctx, err))) {
        vs_buf_free(&note);
        return VS_ENOMEM;
    }
    arr = vs_sheet_array(sheet, "oom");
    if (!arr) {
        arr = json_array();
        if (!arr || json_object_set_new(sheet, "oom", arr)) {
            vs_buf_free(&note);
            return oom(err);
        }
    }
    entry = json_pack("{s:s, s:s?}", "phase", phase, "note", note.len ? vs_buf_str(&note) : NULL);
    vs_buf_free(&note);
    if (!entry || json_array_append_new(arr, entry))
        return oom(err);
    suspects = json_array();
    examine = json_array();
    if (!suspects || !examine) {
        json_decref(suspects);
        json_decref(examine);
        return oom(err);
    }
    for (i = 0; i < 4 && triage[t].examine[i]; i++) {
        lines[n++] = triage[t].examine[i];
        json_array_append_new(examine, json_string(triage[t].examine[i]));
    }
    vs_json_array_foreach(vs_sheet_array(sheet, "components"), i, c)
    {
        const char *cls = json_string_value(json_object_get(c, "class"));
        const char *nm = json_string_value(json_object_get(c, "name"));
        const char *st = json_string_value(json_object_get(c, "status"));
        const char *p = cls ? strstr(triage[t].classes, cls) : NULL;
        if (!p || !nm)
            continue;
        json_array_append_new(suspects, json_string(nm));
        if (nl < 8 && n < 14) {
            snprintf(lbuf[nl], sizeof lbuf[nl], "on the sheet: %s (%s)", nm, st ? st : "?");
            lines[n++] = lbuf[nl++];
        }
    }
    if (n < 16)
        lines[n++] = "change one thing at a time, then re-check the quality criterion and the "
                     "coverage (length, data kept)";
    snprintf(head, sizeof head, "overflow at %s: what to examine", phase);
    return emit(ctx,
                vs_render_lines(head, lines, n,
                                json_pack("{s:s, s:s, s:o, s:o, s:s}", "kind", "oom", "phase",
                                          phase, "examine", examine, "suspects", suspects, "rule",
                                          "change one thing at a time, then re-check quality and "
                                          "coverage")),
                err);
}

static int verb_decide(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet, *unknown, *c;
    vs_buf t = VS_BUF_INIT, u = VS_BUF_INIT;
    char *asked = NULL;
    const char *lines[4];
    size_t i, n = 0, nmeas;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (vs_line_npositional(line) == 0) {
        if ((rc = vs_ctx_input(ctx, "decision: ", &asked, err)) < 0)
            return rc;
        vs_buf_puts(&t, asked ? asked : "");
        free(asked);
    } else if (join_positionals(line, 0, &t) < 0) {
        vs_buf_free(&t);
        return oom(err);
    }
    if (vs_buf_failed(&t) || t.len == 0) {
        vs_buf_free(&t);
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `decide \"DECISION\"` (the candidate retained and what "
                               "is still pending)");
    }
    if (!(sheet = sheet_of(ctx, err))) {
        vs_buf_free(&t);
        return VS_ENOMEM;
    }
    if (json_object_set_new(sheet, "decision", json_string(vs_buf_str(&t)))) {
        vs_buf_free(&t);
        return oom(err);
    }
    vs_buf_free(&t);
    unknown = json_array();
    if (!unknown)
        return oom(err);
    vs_json_array_foreach(vs_sheet_array(sheet, "components"), i, c)
    {
        if (!json_is_integer(json_object_get(c, "bytes"))) {
            const char *nm = json_string_value(json_object_get(c, "name"));
            json_array_append_new(unknown, json_string(nm ? nm : "?"));
            vs_buf_printf(&u, "%s%s", u.len ? ", " : "", nm ? nm : "?");
        }
    }
    nmeas = json_array_size(vs_sheet_array(sheet, "measurements"));
    lines[n++] = json_string_value(json_object_get(sheet, "decision"));
    if (u.len) {
        vs_buf_puts(&u, ": still unknown; the decision rests on the known part of the envelope");
        lines[n++] = vs_buf_str(&u);
    }
    if (nmeas == 0)
        lines[n++] = "no measurement on this sheet yet: the envelope is a hypothesis to verify "
                     "by stages (short, usual, limit)";
    if (json_array_size(vs_sheet_array(sheet, "invalidate")) == 0)
        lines[n++] = "no invalidating condition yet: `invalidate \"...\"` says what would make "
                     "this decision wrong";
    rc = emit(ctx,
              vs_render_lines("decision recorded:", lines, n,
                              json_pack("{s:s, s:s, s:o, s:I}", "kind", "decision", "decision",
                                        json_string_value(json_object_get(sheet, "decision")),
                                        "unknown", unknown, "measurements", (json_int_t)nmeas)),
              err);
    vs_buf_free(&u);
    return rc;
}

/* ------------------------------------------------------------------- table */

const vs_verb vs_verbs_sizing[] = {
    {"card", verb_card, "card", "show the whole workload card as a table",
     "Shows the current sheet's workload card as a table: model and revision, parameter count "
     "and where it came from, task, format and its bits, required length, concurrency "
     "(inference) or microbatch and accumulation (training), the quality criterion, the "
     "architecture read from a config.json, and the placement; a note names what the method "
     "still needs on the card. The card is held fixed: every candidate is compared against it. "
     "The verbs that set it (model, task, format, length, concurrency, microbatch, quality) "
     "each print one line saying what they set; `card` shows the whole. Payload kind \"card\", "
     "with the whole card, as those verbs give it too.",
     NULL, NULL},
    {"model", verb_model,
     "model NAME [revision=REV] [params=COUNT] [config=PATH | pipeline=DIR [variant=fp16]]",
     "the model and revision of the workload card, and its parameter count",
     "Sets the card's model (a Hugging Face id or any name) and revision. params= takes a count "
     "(6.74B, 7e9, 6738415616). config=PATH reads a Hugging Face config.json on disk: the "
     "architecture (layers, hidden, heads, KV heads, head dim, ...) and its KV layout (groups of "
     "full, sliding, chunked, latent, cross or no-cache layers) go into the card, and the "
     "parameter count is the sum of the checkpoint's tensors as the family's Hugging Face model "
     "class stores them (params_active: what one token uses in a mixture of experts; "
     "params_excluded: what the checkpoint holds and the count leaves out, such as "
     "DeepSeek-V3's multi-token-prediction layers; vision towers and projectors of multimodal "
     "models counted and named). Families: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, "
     "qwen3_moe, gemma, gemma2, gemma3_text, gemma3, phi3, gpt2, gpt_bigcode, gpt_neox, "
     "falcon, bloom, deepseek_v2, deepseek_v3, gpt_oss, olmo2, starcoder2, t5, mt5, bert, "
     "llava, mllama. `estimate kv` and `estimate "
     "activations` then take their shapes from it. A declared params= wins over the computed "
     "one. Changing the model or its revision clears what was learnt about the previous one "
     "(architecture, weights read from files). Nothing is downloaded. Without config=, an "
     "ORG/NAME is looked for in the local Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub, "
     "else ~/.cache/huggingface/hub, as huggingface_hub lays it out): "
     "models--ORG--NAME/refs/REV (default main; a 40-hex revision= is used as it is) names the "
     "snapshot commit, its config.json sets the shapes, and the revision recorded is that full "
     "commit; when the model, the ref, the snapshot or config.json is missing, a note says which "
     "files to fetch (`huggingface-cli download ...`) and where they go.\n"
     "pipeline=DIR reads a diffusers pipeline folder: its model_index.json names the components "
     "(unet or transformer, vae, text_encoder, text_encoder_2, text_encoder_3, image_encoder, "
     "...; tokenizers, schedulers and feature extractors hold no weights), and each one's exact "
     "bytes per dtype come from its folder's safetensors headers "
     "(diffusion_pytorch_model.safetensors or model.safetensors, or their sharded "
     ".index.json), as diffusers' from_pretrained finds them; variant=fp16 picks "
     "*.fp16.safetensors (a component without it falls back to its plain files, as diffusers "
     "does, and says so). The sheet's weights are the components' sum; `weights` and "
     "`envelope` list one row per component and the budget chart stacks them. A cached ORG/NAME "
     "whose snapshot holds a model_index.json is read the same way. A missing component file is "
     "named in the error.",
     model_keys, NULL},
    {"task", verb_task, "task inference|finetune|lora|qlora|pretrain|generate-image|generate-video",
     "inference or adaptation/training; training lists its components as unknown",
     "Sets the card's task. No hidden multiplier: `task inference` adds no component; finetune, "
     "lora, qlora and pretrain add the components still to document (gradients, optimizer_state, "
     "master_copy, activations, buffers; adapter_weights for lora/qlora; quant_metadata for "
     "qlora) with status unknown, until `estimate training`, `estimate activations` or `reserve` "
     "documents them. Placeholders an earlier task listed and nobody documented are removed. "
     "generate-image and generate-video (diffusers pipelines) add no component: `resolution`, "
     "`batch` and `frames` set their dimensions, `estimate latents|attention|decode` their "
     "activations.",
     NULL, task_words},
    {"format", verb_format, "format fp32|fp16|bf16|fp8|int8|int4|nf4|fp4 | format bits=N",
     "the weights' format (bits per value)",
     "Sets the card's weight format and its bits: fp32 32, fp16/bf16 16, fp8/int8 8, "
     "int4/nf4/fp4 4, or bits=N. Weights only = params x bits / 8 bytes, rounded up. Quantised "
     "formats (8 bits or fewer) say that scales, metadata and layers kept in another format are "
     "not included, so the figure is not a guaranteed peak (Hugging Face Transformers "
     "quantization docs, bitsandbytes: formats and limits); `estimate quant` and `weights "
     "from=PATH` document the rest. Changing "
     "the format clears the weights read from files.",
     format_keys, format_words},
    {"length", verb_length, "length TOKENS", "the required tokens per sequence",
     "Sets the card's required length: tokens per sequence the workload must process. It is "
     "held fixed: every candidate is compared at this length, and only a run at this length "
     "(the limit stage) validates the card. `estimate kv` and `estimate activations` use it.",
     NULL, NULL},
    {"concurrency", verb_concurrency, "concurrency N", "simultaneous sequences (inference)",
     "Sets the card's concurrency: sequences served at once (inference). The KV cache grows "
     "with it: 2 x L x H x D x bytes x length x concurrency (`estimate kv`).",
     NULL, NULL},
    {"microbatch", verb_microbatch, "microbatch N [accumulation=N]",
     "sequences per forward/backward pass, and gradient accumulation (training)",
     "Sets the card's microbatch (sequences per pass, which the saved activations scale with: "
     "`estimate activations`) and gradient accumulation (micro-steps per optimizer update: it "
     "keeps the update comparable without more memory).",
     microbatch_keys, NULL},
    {"resolution", verb_resolution, "resolution WIDTHxHEIGHT",
     "the generated image's (or video frame's) size in pixels (image and video generation)",
     "Sets the card's width and height (resolution 1024x1024), divisible by 8 as diffusers "
     "pipelines require. Held fixed like length: `estimate latents`, `estimate attention` and "
     "`estimate decode` follow it, and only a measurement run at least at this width and height "
     "validates the card (dims width= and height=).",
     NULL, NULL},
    {"frames", verb_frames, "frames N", "frames per generated video (task generate-video)",
     "Sets the card's frames (frames 81). Video VAEs compress time too: the latents hold "
     "(frames - 1) / 4 + 1 frames (Wan 2.1, HunyuanVideo; temporal= on the estimate line). Held "
     "fixed: a run with fewer frames does not validate the card.",
     NULL, NULL},
    {"batch", verb_batch, "batch N",
     "images or videos generated together (image and video generation)",
     "Sets the card's batch: images (num_images_per_prompt x prompts) or videos generated at "
     "once. The latents, the denoiser's attention and the VAE decode scale with it (cfg=yes on "
     "`estimate attention` doubles it for classifier-free guidance). Held fixed like concurrency.",
     NULL, NULL},
    {"quality", verb_quality, "quality \"CRITERION\"", "the quality criterion of the card",
     "Sets the card's quality criterion, e.g. \"exact match within 0.5 points of the bf16 "
     "reference\". A change of format, length or candidate is accepted only once it is "
     "re-checked against it.",
     NULL, NULL},
    {"reserve", verb_reserve,
     "reserve AMOUNT | reserve NAME AMOUNT [status=estimated|measured] [source=\"...\"] "
     "[phase=P] [class=C] | reserve NAME status=unknown [source=\"...\"] | reserve remove NAME",
     "a declared reserve: one lump, or named components with status and source",
     "Declares the reserve added to the weights. `reserve 6GiB` is one lump named reserve; "
     "`reserve kv_cache 16GiB status=estimated source=\"2 x 32 x 32 x 128 x 2 B x 4096 x 8\"` a "
     "named component; `reserve workspace status=unknown` one still to document (counted as "
     "missing, never as zero). Amounts carry a byte unit (B KB MB GB TB powers of 10, KiB MiB "
     "GiB TiB powers of 2). status is estimated (default with an amount), measured or unknown; "
     "phase= says when it peaks; class= (other, kv_cache, gradients, optimizer, activations, "
     "parameters; guessed from the name) says how a placement shards it. A measured component "
     "is never replaced by an estimate. A declared amount is never recomputed when the card "
     "changes (an `estimate` is).",
     reserve_keys, NULL},
    {"estimate", verb_estimate,
     "estimate kv [layers=L] [kv_heads=H] [head_dim=D] [dtype=fp16] [encoder_length=N] | "
     "estimate training "
     "[optimizer=adamw] [precision=mixed] [trainable=N] | estimate activations [layers=L] "
     "[hidden=H] [heads=A] [checkpointing=none|selective|full] | estimate quant "
     "[scheme=bnb|gptq|group] [group=N] [double=yes|no] [bits=N] [params=N]",
     "estimators that print their formula and add estimated components",
     "Each estimator prints its formula with the numbers and adds `estimated` components "
     "(never over a measured one). Shapes not given come from the card's config.json "
     "architecture (`model ... config=PATH`). An estimate follows the card: it keeps its "
     "keys as written and what it read from the card (length, concurrency, microbatch, "
     "format, params, task, the model's shape), and a later line that changes any of those "
     "recomputes it in the same cell, saying so (kv_cache re-estimated: length 4,096 -> "
     "65,536, 4.00 GiB -> 64.00 GiB); one the new card cannot compute becomes unknown, "
     "saying why.\n"
     "kv: the sum over the model's KV layer groups (the card's kv_layout, from config.json or a "
     "GGUF header's metadata), "
     "bytes(dtype) per value, length tokens, concurrency sequences: full 2 x layers x kv_heads x "
     "head_dim x bytes x length x concurrency (head_dim + head_dim_v when values differ); "
     "sliding and chunked the same over min(window, length) tokens; latent (DeepSeek MLA: "
     "kv_lora_rank + qk_rope_head_dim values, keys and values at once) layers x latent x bytes x "
     "length x concurrency; cross-attention over encoder_length=N encoder tokens (default: "
     "length); encoder-only layers keep nothing. layers= kv_heads= head_dim= on the line "
     "describe one full group instead. Under `placement tensor gpus=N` a GPU holds "
     "ceil(kv_heads / N) KV heads, one at least (replicated), and a latent cache whole. The "
     "payload gives each group (kind, layers, tokens, bytes) and bytes_per_token, what one more "
     "token costs; an engine's pages and padding come on top. Component kv_cache; dtype fp32 "
     "fp16 bf16 fp8 int8 int4.\n"
     "training: per trainable parameter, precision=mixed (default: 16-bit weights and "
     "gradients, fp32 master copy and moments): gradients 2 B, master copy 4 B, optimizer "
     "state 8 B (adamw), 4 B (sgd, one fp32 momentum), 2 B (adamw8bit); precision=fp32: 4 B "
     "gradients and no master copy; precision=bf16: 2 B gradients, 16-bit moments, no master "
     "copy. trainable=N (LoRA, QLoRA) limits them to the adapter, which is added as "
     "adapter_weights; frozen weights keep the sheet's format. Source: Rajbhandari et al. 2020, "
     "\"ZeRO: Memory Optimizations Toward Training Trillion Parameter Models\" (K = 12).\n"
     "activations: per layer s*b*h*(34 + 5*a*s/h) bytes with s = length, b = microbatch, 16-bit "
     "activations; selective: 34*s*b*h; full: 2*s*b*h (the layer input only), times layers. "
     "Source: Korthikanti et al. 2022, \"Reducing Activation Recomputation in Large Transformer "
     "Models\".\n"
     "quant: quantisation metadata by group: bitsandbytes nf4/fp4 (scheme=bnb) an fp32 absmax "
     "per block of 64, or with double quantisation (default) an 8-bit absmax per block and an "
     "fp32 constant per 256 blocks: 0.127 bits per parameter (Dettmers et al. 2023, QLoRA); "
     "GPTQ (scheme=gptq, group 128) an fp16 scale and a packed zero point per group (Frantar et "
     "al. 2022); scheme=group group=N a 16-bit scale per group. Component quant_metadata.\n"
     "training component=NAME (a diffusers pipeline's unet or transformer): trainable = that "
     "component's parameters from its files (a LoRA gives trainable=N); the other components "
     "stay frozen in their stored format.\n"
     "latents channels=C [factor=8] [temporal=4] [dtype=]: batch x channels x (H / 8) x (W / 8) "
     "[x (frames - 1) / temporal + 1] x bytes (diffusers' prepare_latents). Component latents.\n"
     "attention heads=A [patch=1|2] [downsample=1] [text_tokens=N] [attention=sdpa|eager] "
     "[cfg=yes|no]: the denoiser's attention over latent tokens, tokens = (H / (8 x patch x "
     "downsample)) x (W / ...) [x latent frames] + text tokens; eager attention materialises "
     "batch x heads x tokens^2 x bytes of scores (Vaswani et al. 2017), fused SDPA / flash "
     "attention none (0 B, said so). Component attention_scores.\n"
     "decode [tile=N] [slicing=yes] [channels=128 live=6]: the VAE decode, its own phase "
     "(decode): batch x frames x H x W x bytes x 2200, InvokeAI's measured constant for the SD "
     "and SDXL AutoencoderKL (invokeai/backend/util/vae_working_memory.py); channels= live= "
     "derive it from the decoder's last, full-resolution block instead (128 channels x 6 live "
     "tensors in diffusers' ResnetBlock2D). tile= is enable_vae_tiling (one tile at a time), "
     "slicing=yes enable_vae_slicing (one image at a time). Component vae_decode. All three "
     "follow the card's resolution, frames and batch.",
     estimate_keys, estimate_words},
    {"placement", verb_placement,
     "placement single | ddp gpus=N | zero stage=1|2|3 gpus=N | fsdp gpus=N | tensor gpus=N",
     "how the work is spread over GPUs: the envelope is per GPU",
     "Names the software placement; the envelope and the capacity check are per GPU after it. "
     "single (default): one GPU. ddp: everything replicated on every GPU. zero stage=1 shards "
     "the optimizer state (master copy included) N ways, stage=2 also the gradients, stage=3 "
     "also the parameters. fsdp: as ZeRO stage 3. tensor: the weights and the KV cache split N "
     "ways. Activations and other components are never divided. Two cards are never one memory "
     "space: without a placement a second GPU adds nothing. offload=model|sequential (single "
     "only): diffusers' enable_model_cpu_offload keeps one component on the GPU at a time (the "
     "per-GPU weights are the largest component) and enable_sequential_cpu_offload one block "
     "(the largest block of any component: its tensors grouped by name up to the first layer "
     "index, such as down_blocks.1 or transformer_blocks.7), the weights all in host memory, "
     "shown beside; capacity verdicts use the per-GPU figure.",
     placement_keys, placement_words},
    {"weights", verb_weights, "weights [from=PATH] [sha256=yes]",
     "weights only, in bytes, GB and GiB (a lower bound)",
     "Weights only = params x bits / 8 bytes (rounded up), shown as exact bytes, GB (10^9) and "
     "GiB (2^30): a lower bound, not a GPU recommendation. from=PATH reads safetensors headers "
     "(one file, or a model.safetensors.index.json with its shards) without loading tensors: the "
     "exact stored bytes per dtype, the tensors kept in another format, and the parameter count; "
     "from then on the sheet's weights are those bytes until the model or format changes. "
     "sha256=yes also hashes the files. from=FILE.gguf reads a GGUF header (versions 2 and 3; "
     "the first file of a split set NAME-00001-of-0000N.gguf brings the others) without its "
     "tensor data: bytes per tensor from each ggml type's block size and bytes per block "
     "(ggml/src/ggml-common.h, llama.cpp commit 01243c58), by_dtype keyed by ggml type (Q4_K, "
     "Q6_K, F32), the file type as llama.cpp names it (MOSTLY_Q4_K_M) and the architecture's "
     "metadata (block_count, head_count_kv, one per layer or one number, key/value lengths, "
     "sliding window and its pattern, MLA ranks, experts, context length). A folder stands for "
     "its index, model.safetensors or one GGUF file. After `model ORG/NAME` found in the local "
     "Hugging Face cache, `weights` without from= reads that snapshot's files, or says which to "
     "fetch. Quantised safetensors checkpoints (GPTQ, AWQ, FP8, MXFP4, NVFP4, bitsandbytes) "
     "count their stored tensors as they are (packed integers, scales, zeros), with the "
     "quantization_config of a config.json beside them named.",
     weights_keys, NULL},
    {"envelope", verb_envelope, "envelope", "weights + reserve per GPU, with the budget chart",
     "Indicative envelope = weights + every known reserve component, per GPU after the "
     "placement, with a stacked chart against the capacity of each GPU offer on the sheet "
     "(device-reported bytes when known, else nominal). Unknown components are missing, never "
     "zero: the envelope is then its known part, and says so. A sum of independent maxima is a "
     "conservative envelope, not an observed peak.",
     NULL, NULL},
    {"formats", verb_formats,
     "formats F1 F2 ... (names, GGUF types, llama.cpp file types or bits=N)",
     "one row per format, with the same reserve",
     "One row per format: weights = params x bits / 8 and the envelope per GPU with the same "
     "reserve, to show only the arithmetic effect of the format. Quantised rows are flagged: "
     "scales, metadata and layers kept in another format are not included, so they are not a "
     "guaranteed peak. With no format: fp32 bf16 int8 int4. A GGUF type (q4_0 q4_k q5_k q6_k "
     "q8_0 iq4_xs mxfp4 nvfp4 ...) counts its exact bits per weight, block scales included "
     "(ggml/src/ggml-common.h, llama.cpp commit 01243c58: Q4_K 4.5, Q6_K 6.5625, Q8_0 8.5). A "
     "llama.cpp file type (q4_k_m q5_k_m q3_k_m q4_0 q8_0 q6_k iq4_xs ...) with the card's "
     "architecture known gives the bytes tensor by tensor as llama-quantize would write them "
     "(src/llama-quant.cpp at commit 007dbbf3: the output at Q6_K, attn_v and ffn_down at Q6_K "
     "in half the layers for Q4_K_M, norms in F32, rows of the wrong width falling back), not "
     "one uniform width, over the family's tensor list as convert_hf_to_gguf.py names it "
     "(experts merged into ffn_*_exps; with 8 experts attn_v and attn_k at Q8_0, attn_output "
     "at Q5_K).",
     formats_keys, format_words},
    {"stage", verb_stage,
     "stage short|usual|limit [length=N] [concurrency=N] [microbatch=N] [width=N height=N "
     "frames=N batch=N] [note=\"...\"]",
     "a stage of the validation procedure",
     "Records a stage of the staged validation: short input and small batch first, "
     "then the usual input, then the required limit. The limit stage is the card's dimensions "
     "(filled from the card; other values are refused): a run at smaller dimensions never "
     "validates the card. Image and video generation stage their width, height, frames and "
     "batch the same way.",
     stage_keys, stage_words},
    {"invalidate", verb_invalidate, "invalidate \"CONDITION\"",
     "a condition that would invalidate the conclusion",
     "Adds a condition under which the conclusion no longer holds (a longer context, another "
     "evaluation, a new driver). It is committed with the sheet.",
     NULL, NULL},
    {"oom", verb_oom,
     "oom phase=load|prefill|generate|forward|backward|optimizer|validation|export|denoise|decode "
     "[note=\"...\"]",
     "after an overflow: what to examine for its phase",
     "Records where the first overflow happened and shows what to examine for it: load -> "
     "weights, format, transient allocation; prefill/generate -> context and concurrency (KV "
     "cache); forward/backward -> microbatch, activations, computation strategy; optimizer -> "
     "optimizer state, precision, sharding; denoise -> the denoiser's attention, resolution, "
     "batch, CPU offload; decode (the VAE decode, its own phase) -> tiled decoding "
     "(enable_vae_tiling), sliced decoding (enable_vae_slicing), a lower resolution, fewer "
     "frames. Change one thing at a time, then re-check quality and coverage.",
     oom_keys, oom_words},
    {"decide", verb_decide, "decide \"DECISION\"", "the decision, with what is still pending",
     "Records the decision (with no text, asks for it). It lists what the decision still rests "
     "on: unknown components, missing measurements, missing invalidating conditions.",
     NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
