#include "render/weights.h"

#include <stdio.h>
#include <string.h>

#include "render/result.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

static json_t *int_or_null(int known, uint64_t v)
{
    return known ? json_integer((json_int_t)v) : json_null();
}

vs_bundle *vs_render_weights(const json_t *sheet, const vs_envelope *env,
                             const json_t *files_payload)
{
    static const char *const hdr[] = {"quantity", "bytes", "GB", "GiB", "basis"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *card = vs_sheet_card(sheet), *p, *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    vs_table *t = vs_table_new(5, hdr);
    uint64_t params = 0;
    int have_params = vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params);
    unsigned bits = 0;
    int bits_known = vs_sheet_weight_bits(sheet, &bits);
    int measured = env->weights_basis && !strcmp(env->weights_basis, "measured");
    int files = env->weights_basis && (!strcmp(env->weights_basis, "safetensors files") ||
                                       !strcmp(env->weights_basis, "tensor list") || measured);
    const char *scheme = json_string_value(json_object_get(wf, "scheme"));
    const char *fmt = json_string_value(vs_sheet_card_field(card, VS_CK_FORMAT));
    char b[VS_RENDER_AMT], gb[VS_RENDER_AMT], gib[VS_RENDER_AMT], desc[160], basis[160], pl[128],
        gp[40], ftnote[96];
    const char *notes[4];
    size_t nn = 0;
    const char *qnote = files || !bits_known ? NULL : vs_envelope_format_quant_note(bits);

    if (!t)
        return NULL;
    vs_table_align_right(t, 1);
    vs_table_align_right(t, 2);
    vs_table_align_right(t, 3);
    vs_units_grouped(gp, sizeof gp, params);
    if (measured)
        snprintf(basis, sizeof basis, "%s", json_string_value(json_object_get(wf, "measured")));
    else if (files && scheme)
        snprintf(basis, sizeof basis, "tensor by tensor: %s", scheme);
    else if (files)
        snprintf(basis, sizeof basis, "the files' tensor bytes (%s)",
                 json_string_value(json_object_get(wf, "path"))
                     ? json_string_value(json_object_get(wf, "path"))
                     : "safetensors");
    else
        snprintf(basis, sizeof basis, "%s params x %u bits / 8", gp, bits);
    vs_render_amount(env->weights_bytes, b, gb, gib);
    {
        const char *row[5] = {"weights only", b, gb, gib, basis};
        vs_table_add_row(t, row);
    }
    if (env->weights_gpu_bytes != env->weights_bytes || env->gpus > 1) {
        char b2[VS_RENDER_AMT], gb2[VS_RENDER_AMT], gib2[VS_RENDER_AMT];
        const char *row[5] = {"weights per GPU", b2, gb2, gib2,
                              vs_render_placement_text(sheet, pl, sizeof pl)};
        vs_render_amount(env->weights_gpu_bytes, b2, gb2, gib2);
        vs_table_add_row(t, row);
    }
    vs_units_describe(desc, sizeof desc, env->weights_bytes);
    /* the card's format in the words `format` takes (`help format`) */
    if (measured)
        vs_buf_printf(&text, "weights only (format %s), as the loader reported them: %s\n",
                      fmt ? fmt : "not set", desc);
    else if (files && scheme)
        vs_buf_printf(&text,
                      "weights only (format %s), tensor by tensor as the loader keeps "
                      "them: %s\n",
                      fmt ? fmt : "not set", desc);
    else if (files)
        vs_buf_printf(&text, "weights only, from the files: %s\n", desc);
    else
        vs_buf_printf(&text, "weights only (format %s): %s params x %u bits / 8 = %s\n",
                      fmt ? fmt : "not set", gp, bits, desc);
    vs_buf_puts(&html, "<p>");
    if (fmt && (!files || scheme || measured)) {
        vs_buf_puts(&html, "format <code>");
        vs_buf_put_html(&html, fmt);
        vs_buf_puts(&html, "</code>: ");
    }
    vs_buf_put_html(&html, measured          ? "weights only, as the loader reported them: "
                           : files && scheme ? "weights only, tensor by tensor: "
                           : files           ? "weights only, from the files: "
                                             : "weights only: ");
    vs_buf_put_html(&html, desc);
    vs_buf_puts(&html, "</p>\n");
    vs_render_put_table(&text, &html, t);
    vs_table_free(t);
    notes[nn++] = "a lower bound, not a GPU recommendation: the KV cache, activations, "
                  "workspaces, the CUDA context and other allocations come on top";
    if (qnote)
        notes[nn++] = qnote;
    if (measured)
        notes[nn++] = "one GPU's weights as the loader reported them (weights do not depend on "
                      "length or concurrency); they stand until the model or the format changes";
    else if (files)
        notes[nn++] = "the sheet's weights are these bytes until the model or the format changes";
    if (files && json_is_string(json_object_get(files_payload, "file_type"))) {
        snprintf(ftnote, sizeof ftnote, "GGUF file type %s (general.file_type)",
                 json_string_value(json_object_get(files_payload, "file_type")));
        notes[nn++] = ftnote;
    }

    if (files && json_is_array(json_object_get(wf, "by_dtype")) &&
        json_array_size(json_object_get(wf, "by_dtype"))) {
        static const char *const h2[] = {"dtype", "params", "bytes", "GB", "GiB"};
        vs_table *d = vs_table_new(5, h2);
        size_t i;
        json_t *x;
        if (d) {
            vs_table_align_right(d, 1);
            vs_table_align_right(d, 2);
            vs_table_align_right(d, 3);
            vs_table_align_right(d, 4);
            vs_json_array_foreach(json_object_get(wf, "by_dtype"), i, x)
            {
                char pc[40] = "";
                json_t *xp = json_object_get(x, "params");
                const char *row[5] = {json_string_value(json_object_get(x, "dtype")), pc, b, gb,
                                      gib};
                if (json_is_integer(xp))
                    vs_units_grouped(pc, sizeof pc, (uint64_t)json_integer_value(xp));
                vs_render_amount((uint64_t)json_integer_value(json_object_get(x, "bytes")), b, gb,
                                 gib);
                vs_table_add_row(d, row);
            }
            vs_buf_puts(&text, "\nby dtype:\n");
            vs_buf_puts(&html, "<p>by dtype</p>\n");
            vs_render_put_table(&text, &html, d);
            vs_table_free(d);
        } else {
            text.failed = 1;
        }
    }
    if (files && json_array_size(json_object_get(wf, "components"))) {
        /* a diffusers pipeline: each component's bytes */
        static const char *const h4[] = {"component", "class", "params", "bytes", "GB", "GiB"};
        vs_table *d = vs_table_new(6, h4);
        size_t i;
        json_t *x;
        if (d) {
            vs_table_align_right(d, 2);
            vs_table_align_right(d, 3);
            vs_table_align_right(d, 4);
            vs_table_align_right(d, 5);
            vs_json_array_foreach(json_object_get(wf, "components"), i, x)
            {
                char pc[40] = "";
                const char *row[6] = {json_string_value(json_object_get(x, "name")),
                                      json_string_value(json_object_get(x, "class")),
                                      pc,
                                      b,
                                      gb,
                                      gib};
                if (json_is_integer(json_object_get(x, "params")))
                    vs_units_grouped(pc, sizeof pc,
                                     (uint64_t)json_integer_value(json_object_get(x, "params")));
                vs_render_amount((uint64_t)json_integer_value(json_object_get(x, "bytes")), b, gb,
                                 gib);
                vs_table_add_row(d, row);
            }
            vs_buf_puts(&text, "\npipeline components:\n");
            vs_buf_puts(&html, "<p>pipeline components</p>\n");
            vs_render_put_table(&text, &html, d);
            vs_table_free(d);
        } else {
            text.failed = 1;
        }
    }
    if (files && json_array_size(json_object_get(wf, "other_dtype"))) {
        static const char *const h3[] = {"tensors kept in another format", "dtype", "tensors",
                                         "bytes"};
        vs_table *d = vs_table_new(4, h3);
        size_t i;
        json_t *x;
        if (d) {
            vs_table_align_right(d, 2);
            vs_table_align_right(d, 3);
            vs_json_array_foreach(json_object_get(wf, "other_dtype"), i, x)
            {
                char nt[40] = "";
                json_t *xt = json_object_get(x, "tensors");
                const char *row[4] = {json_string_value(json_object_get(x, "pattern")),
                                      json_string_value(json_object_get(x, "dtype")), nt, desc};
                if (json_is_integer(xt))
                    vs_units_grouped(nt, sizeof nt, (uint64_t)json_integer_value(xt));
                vs_units_describe(desc, sizeof desc,
                                  (uint64_t)json_integer_value(json_object_get(x, "bytes")));
                vs_table_add_row(d, row);
            }
            vs_buf_puts(&text, "\n");
            vs_render_put_table(&text, &html, d);
            vs_table_free(d);
        } else {
            text.failed = 1;
        }
    }
    vs_buf_puts(&text, "\n");
    vs_render_put_notes(&text, &html, notes, nn);

    p = files_payload ? json_deep_copy(files_payload) : json_object();
    if (!p)
        goto fail;
    json_object_set_new(p, "kind", json_string("weights"));
    if (!files || !json_object_get(p, "params"))
        json_object_set_new(p, "params", int_or_null(have_params, params));
    if (!files_payload)
        json_object_set_new(p, "bits", bits_known && !files ? json_integer(bits) : json_null());
    json_object_set_new(p, "bytes", json_integer((json_int_t)env->weights_bytes));
    json_object_set_new(p, "basis", json_string(env->weights_basis));
    json_object_set_new(p, "gpu_bytes", json_integer((json_int_t)env->weights_gpu_bytes));
    json_object_set_new(p, "gpus", json_integer(env->gpus));
    /* read from files, "format" is theirs ("gguf", "safetensors"); the card's is card_format */
    if (!json_is_string(json_object_get(files_payload, "format")))
        json_object_set_new(p, "format", json_deep_copy(vs_sheet_card_field(card, VS_CK_FORMAT)));
    if (!json_object_get(p, "format"))
        json_object_set_new(p, "format", json_null());
    json_object_set_new(p, "card_format", json_deep_copy(vs_sheet_card_field(card, VS_CK_FORMAT)));
    if (!json_object_get(p, "card_format"))
        json_object_set_new(p, "card_format", json_null());
    json_object_set_new(p, "lower_bound", json_true());
    if (files && !json_object_get(p, "components") &&
        json_is_array(json_object_get(wf, "components")))
        json_object_set_new(p, "components", json_deep_copy(json_object_get(wf, "components")));
    if (files && !files_payload) {
        json_object_set_new(p, "path", json_deep_copy(json_object_get(wf, "path")));
        json_object_set_new(p, "by_dtype", json_deep_copy(json_object_get(wf, "by_dtype")));
        json_object_set_new(p, "other_dtype", json_deep_copy(json_object_get(wf, "other_dtype")));
    }
    {
        json_t *ns = json_array();
        size_t i;
        for (i = 0; ns && i < nn; i++)
            json_array_append_new(ns, json_string(notes[i]));
        json_object_set_new(p, "notes", ns ? ns : json_array());
    }
    return vs_render_finish(&text, &html, NULL, p);
fail:
    vs_buf_free(&text);
    vs_buf_free(&html);
    return NULL;
}
