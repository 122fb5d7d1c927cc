/* The words of the card verbs' headlines (render/card_lines.h). */
#include "render/card_lines.h"

#include <stdio.h>
#include <string.h>

#include "render/card.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/json.h"

void vs_render_card_headline(vs_buf *out, const json_t *sheet)
{
    const char *id = vs_sheet_get_str(sheet, VS_SK_ID);
    const char *title = vs_sheet_get_str(sheet, VS_SK_TITLE);
    vs_buf_printf(out,
                  "workload card of sheet %s (\"%s\"), held fixed: every candidate is "
                  "compared against it",
                  id ? id : "?", title ? title : "");
}

void vs_render_card_unset(vs_buf *out, unsigned unset)
{
    /* in the order of the bits: the order the method asks for them */
    static const char *const words[] = {"model",       "params",     "length", "task",
                                        "format",      "resolution", "batch",  "frames",
                                        "concurrency", "microbatch", "quality"};
    size_t i;
    int any = 0;
    for (i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (!(unset & (1u << i)))
            continue;
        vs_buf_printf(out, "%s%s", any ? ", " : "", words[i]);
        any = 1;
    }
    if (any)
        vs_buf_puts(out, ": not set yet");
}

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

json_t *vs_render_card_config(const json_t *arch, const vs_hfconfig *c)
{
    json_t *p = json_deep_copy(arch), *excluded = json_array(), *parts = json_array();
    char source[96];
    unsigned k;
    if (excluded && c->part_params[VS_PART_MTP])
        json_array_append_new(excluded,
                              json_pack("{s:s, s:I, s:s}", "part", vs_part_name(VS_PART_MTP),
                                        "params", (json_int_t)c->part_params[VS_PART_MTP], "reason",
                                        c->excluded_reason));
    for (k = 0; parts && k < VS_PART_COUNT; k++)
        if (k != VS_PART_MTP && c->part_params[k])
            json_array_append_new(parts, json_pack("{s:s, s:I}", "part", vs_part_name((vs_part)k),
                                                   "params", (json_int_t)c->part_params[k]));
    snprintf(source, sizeof source, "config.json (%s)", c->rule);
    if (!p || json_object_set_new(p, "kind", json_string("model")) ||
        json_object_set_new(p, "model_type", json_string(c->model_type)) ||
        json_object_set_new(p, "params", jint(c->params_total)) ||
        json_object_set_new(p, "params_active", jint(c->params_active)) ||
        json_object_set_new(p, "params_excluded", excluded) ||
        json_object_set_new(p, "parts", parts) ||
        json_object_set_new(p, "params_source", json_string(source)) ||
        json_object_set_new(p, "positions", c->positions ? jint(c->positions) : json_null())) {
        json_decref(p);
        return NULL;
    }
    return p;
}

void vs_render_card_model_headline(vs_buf *out, const json_t *sheet, const char *name,
                                   const json_t *config, const json_t *pipeline)
{
    json_t *card = vs_sheet_card(sheet), *arch = vs_sheet_card_field(card, VS_CK_ARCH);
    const char *revision = json_string_value(vs_sheet_card_field(card, VS_CK_REVISION));
    json_t *x;
    uint64_t params;
    size_t k;
    char g[40];
    vs_buf_printf(out, "model %s", name);
    if (revision)
        vs_buf_printf(out, " at revision %s", revision);
    if (vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params)) {
        const char *src = json_string_value(vs_sheet_card_field(card, VS_CK_PARAMS_SOURCE));
        vs_units_grouped(g, sizeof g, params);
        vs_buf_printf(out, ": %s params%s%s%s", g, src ? " (" : "", src ? src : "", src ? ")" : "");
    }
    if (config) {
        /* what one token uses, what is counted besides the language model, and
         * what the checkpoint holds that the count leaves out */
        json_t *active = json_object_get(arch, "params_active");
        json_t *parts = json_object_get(config, "parts");
        if (json_is_integer(active)) {
            vs_units_grouped(g, sizeof g, (uint64_t)json_integer_value(active));
            vs_buf_printf(out, ", %s active per token", g);
        }
        if (json_array_size(parts) > 1) {
            vs_json_array_foreach(parts, k, x)
            {
                vs_units_grouped(g, sizeof g,
                                 (uint64_t)json_integer_value(json_object_get(x, "params")));
                vs_buf_printf(out, "%s %s %s",
                              k ? "," : "; counted:", json_string_value(json_object_get(x, "part")),
                              g);
            }
        }
        vs_json_array_foreach(json_object_get(config, "params_excluded"), k, x)
        {
            vs_units_grouped(g, sizeof g,
                             (uint64_t)json_integer_value(json_object_get(x, "params")));
            vs_buf_printf(out, "; left out: %s params of %s", g,
                          json_string_value(json_object_get(x, "reason")));
        }
    }
    if (pipeline) {
        vs_buf_printf(out, "; diffusers pipeline %s:",
                      json_string_value(json_object_get(pipeline, "pipeline")));
        vs_json_array_foreach(json_object_get(pipeline, "components"), k, x)
        {
            char d[160];
            vs_units_describe(d, sizeof d,
                              (uint64_t)json_integer_value(json_object_get(x, "bytes")));
            vs_buf_printf(out, "%s %s %s", k ? "," : "",
                          json_string_value(json_object_get(x, "name")), d);
        }
    }
    if (json_is_object(arch)) {
        vs_buf_puts(out, "; architecture ");
        vs_render_arch(arch, out);
    }
}

void vs_render_card_params_note(vs_buf *out, uint64_t declared, uint64_t computed)
{
    char a[40], b[40];
    vs_units_grouped(a, sizeof a, declared);
    vs_units_grouped(b, sizeof b, computed);
    vs_buf_printf(out, "the declared params=%s replaces the %s computed from the config", a, b);
}

static int generates(vs_vocab_task kind)
{
    return kind == VS_TASK_GENERATE_IMAGE || kind == VS_TASK_GENERATE_VIDEO;
}

void vs_render_card_task_headline(vs_buf *out, const char *task, vs_vocab_task kind,
                                  const char *const *added, size_t nadded)
{
    size_t k;
    if (generates(kind) || kind == VS_TASK_INFERENCE) {
        vs_buf_printf(out, "task %s: adds no component by itself", task);
        return;
    }
    vs_buf_printf(out, "task %s: nothing is multiplied; ", task);
    if (!nadded) {
        vs_buf_puts(out, "its components are already on the sheet");
        return;
    }
    vs_buf_puts(out, "these components are listed as unknown until estimated or measured:");
    for (k = 0; k < nadded; k++)
        vs_buf_printf(out, "%s %s", k ? "," : "", added[k]);
}

const char *vs_render_card_task_note(vs_vocab_task kind)
{
    if (generates(kind))
        return "a diffusers pipeline (`model NAME pipeline=DIR`) sets the weights; `resolution "
               "WxH`, `batch N` and (video) `frames N` are held fixed; `estimate latents`, "
               "`estimate attention` and `estimate decode` (its own phase) document the rest";
    if (kind == VS_TASK_INFERENCE)
        return "the KV cache (`estimate kv`), workspaces and the CUDA context are yours to "
               "declare with `reserve` or estimate";
    return "`estimate training`, `estimate activations` and `reserve NAME AMOUNT` document "
           "them; an envelope with unknown components is only its known part";
}

void vs_render_card_quality_headline(vs_buf *out, const char *criterion)
{
    vs_buf_printf(out,
                  "quality \"%s\": the criterion every change (format, length, candidate) is "
                  "re-checked against",
                  criterion);
}

void vs_render_card_format_headline(vs_buf *out, const char *format, unsigned bits)
{
    vs_buf_printf(out, "format %s: %u bits per weight", format, bits);
}

void vs_render_card_dim_headline(vs_buf *out, const char *key, uint64_t v)
{
    static const struct {
        const char *key, *what;
    } dims[] = {
        {"length", "the required tokens per sequence, held fixed for every candidate"},
        {"concurrency", "simultaneous sequences (inference), held fixed for every candidate"},
        {"frames", "frames per generated video, held fixed for every candidate"},
        {"batch", "images or videos generated together, held fixed for every candidate"},
    };
    size_t i;
    char g[40];
    vs_units_grouped(g, sizeof g, v);
    vs_buf_printf(out, "%s %s", key, g);
    for (i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (!strcmp(dims[i].key, key)) {
            vs_buf_printf(out, ": %s", dims[i].what);
            break;
        }
}

void vs_render_card_resolution_headline(vs_buf *out, uint64_t width, uint64_t height)
{
    vs_buf_printf(out,
                  "resolution %llux%llu: the generated image or video frame in pixels, held "
                  "fixed for every candidate",
                  (unsigned long long)width, (unsigned long long)height);
}

void vs_render_card_microbatch_headline(vs_buf *out, uint64_t microbatch, int have_accumulation,
                                        uint64_t accumulation)
{
    if (have_accumulation)
        vs_buf_printf(out,
                      "microbatch %llu, accumulation %llu: sequences per forward/backward pass; "
                      "accumulation keeps the update comparable without more memory",
                      (unsigned long long)microbatch, (unsigned long long)accumulation);
    else
        vs_buf_printf(out, "microbatch %llu: sequences per forward/backward pass",
                      (unsigned long long)microbatch);
}

const char *vs_render_card_note(vs_card_note note)
{
    switch (note) {
    case VS_CARD_NOTE_FILES_OTHER_MODEL:
        return "the weights read from files were for another model or revision: cleared "
               "(`weights from=PATH` reads them again)";
    case VS_CARD_NOTE_FILES_OTHER_FORMAT:
        return "the weights read from files were in another format: cleared (`weights "
               "from=PATH` reads the files of this format)";
    case VS_CARD_NOTE_NO_PARAMS:
        break;
    }
    return "no parameter count yet: give params=COUNT or config=PATH";
}
