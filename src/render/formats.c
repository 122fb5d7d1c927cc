#include "render/formats.h"

#include <stdio.h>

#include "render/result.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

vs_bundle *vs_render_formats(const json_t *sheet, const vs_envelope *env, const vs_format_row *rows,
                             size_t nrows)
{
    static const char *const hdr[] = {"format",      "bits",         "weights",
                                      "weights GB",  "weights GiB",  "envelope per GPU",
                                      "envelope GB", "envelope GiB", "note"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_table *t = vs_table_new(9, hdr);
    /* the payload written as the rows go, not built as a tree and dumped;
     * the integers as signed, as they were in the tree */
    vs_jw w = VS_JW_INIT(&p);
    uint64_t params = 0;
    char gp[40], desc[160], pls[128], headline[512];
    const char *notes[4];
    size_t nn = 0, i;
    int flagged = 0;
    if (!t)
        return NULL;
    for (i = 1; i <= 7; i++)
        vs_table_align_right(t, i);
    vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params);
    vs_units_grouped(gp, sizeof gp, params);
    vs_units_describe(desc, sizeof desc, env->reserve_bytes);
    snprintf(headline, sizeof headline, "formats for %s params, the same reserve: %s per GPU (%s)",
             gp, desc, vs_render_placement_text(sheet, pls, sizeof pls));
    vs_buf_reserve(&p, 256 + nrows * 256);
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "formats");
    vs_jw_key(&w, "rows");
    vs_jw_open(&w, '[');
    for (i = 0; i < nrows; i++) {
        char bits[16], wb[VS_RENDER_AMT], wgb[VS_RENDER_AMT], wgib[VS_RENDER_AMT],
            eb[VS_RENDER_AMT], egb[VS_RENDER_AMT], egib[VS_RENDER_AMT];
        const char *q = rows[i].basis ? NULL : vs_envelope_format_quant_note(rows[i].bits);
        const char *row[9] = {
            rows[i].format, bits, wb, wgb, wgib, eb, egb, egib, q ? "* not a guaranteed peak" : ""};
        if (rows[i].bits_text)
            snprintf(bits, sizeof bits, "%s", rows[i].bits_text);
        else
            snprintf(bits, sizeof bits, "%u", rows[i].bits);
        vs_render_amount(rows[i].weights_bytes, wb, wgb, wgib);
        vs_render_amount(rows[i].envelope_bytes, eb, egb, egib);
        vs_table_add_row(t, row);
        if (q)
            flagged = 1;
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "format", rows[i].format);
        vs_jw_key(&w, "bits");
        vs_jw_i64(&w, (int64_t)rows[i].bits);
        vs_jw_key(&w, "weights_bytes");
        vs_jw_i64(&w, (int64_t)rows[i].weights_bytes);
        vs_jw_key(&w, "weights_gpu_bytes");
        vs_jw_i64(&w, (int64_t)rows[i].weights_gpu_bytes);
        vs_jw_key(&w, "envelope_bytes");
        vs_jw_i64(&w, (int64_t)rows[i].envelope_bytes);
        vs_jw_member_bool(&w, "quantized", q != NULL);
        vs_jw_member_str(&w, "note", q);
        vs_jw_member_str(&w, "bits_per_weight", rows[i].bits_text);
        vs_jw_member_str(&w, "basis", rows[i].basis);
        vs_jw_close(&w, '}');
    }
    vs_jw_close(&w, ']');
    vs_jw_key(&w, "params");
    vs_jw_i64(&w, (int64_t)params);
    vs_jw_key(&w, "reserve_bytes");
    vs_jw_i64(&w, (int64_t)env->reserve_bytes);
    vs_jw_key(&w, "gpus");
    vs_jw_i64(&w, (int64_t)env->gpus);
    vs_jw_member_bool(&w, "conservative", env->conservative);
    vs_jw_key(&w, "unknown_count");
    vs_jw_i64(&w, (int64_t)env->n_unknown);
    vs_jw_close(&w, '}');
    vs_render_put_headline(&text, &html, headline);
    vs_render_put_table(&text, &html, t);
    vs_table_free(t);
    vs_buf_puts(&text, "\n");
    if (flagged)
        notes[nn++] = "* quantised (8 bits or fewer): scales, metadata and layers kept in another "
                      "format are not included, so the row is not a guaranteed peak";
    notes[nn++] = "the same reserve in every row shows only the arithmetic effect of the format; "
                  "in a real run the other allocations can change too";
    if (env->n_unknown)
        notes[nn++] = "some components are unknown: each envelope is only its known part";
    if (env->conservative)
        notes[nn++] =
            "each envelope is a conservative sum of independent maxima, not an observed peak";
    vs_render_put_notes(&text, &html, notes, nn);
    return vs_render_finish_text(&text, &html, NULL, &p);
}
