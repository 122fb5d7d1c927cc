/* compare.c (render) — the `compare` table and payload. */
#include "render/compare.h"

#include <stdio.h>
#include <string.h>

#include "render/bundle.h"
#include "render/result.h"
#include "sheet/units.h"

static void amount(char *out, size_t n, int has, int64_t v)
{
    char b[96];
    if (!has) {
        snprintf(out, n, "-");
        return;
    }
    vs_units_describe(b, sizeof b, (uint64_t)(v < 0 ? -v : v));
    snprintf(out, n, "%s%s", v < 0 ? "-" : "", b);
}

/* The page's form: GiB with two decimals (MiB under 1 GiB), so that the six
 * columns stay within a notebook's width; the text and the payload keep the
 * exact bytes. */
static void amount_short(char *out, size_t n, int has, int64_t v)
{
    char b[64];
    uint64_t m = (uint64_t)(v < 0 ? -v : v);
    if (!has) {
        snprintf(out, n, "-");
        return;
    }
    vs_unit u = m >= ((uint64_t)1 << 30) ? VS_UNIT_GIB : VS_UNIT_MIB;
    vs_units_round(b, sizeof b, m, u, 2);
    snprintf(out, n, "%s%s %s", v < 0 ? "-" : "", b, vs_unit_name(u));
}

static json_t *int_or_null(int has, int64_t v)
{
    return has ? json_integer(v) : json_null();
}

int vs_compare_render(const vs_compare *c, vs_buf *text, vs_buf *html, json_t **payload)
{
    static const char *const headers[] = {"class", "estimated",           "measured",
                                          "from",  "estimate - measured", "status"};
    vs_table *t = vs_table_new(6, headers);
    vs_table *th = vs_table_new(6, headers);
    json_t *rows = json_array();
    int k;
    *payload = NULL;
    if (!t || !th || !rows) {
        vs_table_free(t);
        vs_table_free(th);
        json_decref(rows);
        return VS_ENOMEM;
    }
    vs_table_align_right(t, 1);
    vs_table_align_right(t, 2);
    vs_table_align_right(t, 4);
    vs_table_align_right(th, 1);
    vs_table_align_right(th, 2);
    vs_table_align_right(th, 4);
    for (k = 0; k < VS_CMP_NROWS; k++) {
        const vs_compare_row *r = &c->rows[k];
        char est[128], meas[128], delta[128], status[64];
        const char *cells[6];
        amount(est, sizeof est, r->has_estimate, r->estimated_bytes);
        if (r->has_estimate && r->unknown)
            snprintf(est + strlen(est), sizeof est - strlen(est), " + %zu unknown", r->unknown);
        else if (!r->has_estimate && r->unknown)
            snprintf(est, sizeof est, "unknown (%zu)", r->unknown);
        amount(meas, sizeof meas, r->has_measured, r->measured_bytes);
        amount(delta, sizeof delta, r->has_delta, r->delta_bytes);
        snprintf(status, sizeof status, "%s%s", r->status,
                 !strcmp(r->status, "under-estimate") ? " (!)" : "");
        cells[0] = r->cls;
        cells[1] = est;
        cells[2] = meas;
        cells[3] = r->measured_from ? r->measured_from : "-";
        cells[4] = delta;
        cells[5] = status;
        vs_table_add_row(t, cells);
        amount_short(est, sizeof est, r->has_estimate, r->estimated_bytes);
        if (r->has_estimate && r->unknown)
            snprintf(est + strlen(est), sizeof est - strlen(est), " + %zu unknown", r->unknown);
        else if (!r->has_estimate && r->unknown)
            snprintf(est, sizeof est, "unknown (%zu)", r->unknown);
        amount_short(meas, sizeof meas, r->has_measured, r->measured_bytes);
        amount_short(delta, sizeof delta, r->has_delta, r->delta_bytes);
        vs_table_add_row(th, cells);
        json_array_append_new(
            rows,
            json_pack("{s:s, s:o, s:o, s:o, s:s, s:I, s:o, s:I}", "class", r->cls,
                      "estimated_bytes", int_or_null(r->has_estimate, r->estimated_bytes),
                      "measured_bytes", int_or_null(r->has_measured, r->measured_bytes),
                      "delta_bytes", int_or_null(r->has_delta, r->delta_bytes), "status", r->status,
                      "resolution_bytes", (json_int_t)r->resolution_bytes, "measured_from",
                      r->measured_from ? json_string(r->measured_from) : json_null(), "unknown",
                      (json_int_t)r->unknown));
    }
    if (c->gpu_known)
        vs_buf_printf(text, "estimate against measurement on GPU %d, per GPU of %u\n", c->gpu,
                      c->gpus);
    else
        vs_buf_printf(text, "estimate against measurement (figures with no GPU), per GPU of %u\n",
                      c->gpus);
    vs_table_text(t, text);
    if (c->under)
        vs_buf_printf(text,
                      "%zu under-estimate(s) (!): the estimate is below what was measured "
                      "by more than the printed figures' rounding\n",
                      c->under);
    if (c->no_room) {
        char b[96] = "";
        if (c->has_shortfall)
            vs_units_describe(b, sizeof b, (uint64_t)c->shortfall_bytes);
        vs_buf_printf(text,
                      "the engine found no room for the KV cache (%s%s%s): it refused to start; "
                      "a positive kv_cache estimate is a pool it did not have\n",
                      c->no_room_from, c->has_shortfall ? ", short by " : "", b);
        vs_buf_printf(html, "<p>the engine found no room for the KV cache (%s)</p>",
                      c->no_room_from);
    }
    vs_buf_puts(text, "unaccounted = the measured total minus the measured parts; a printed "
                      "figure is rounded: resolution_bytes says by how much\n");
    vs_buf_printf(html, "<p>estimate against measurement%s</p>",
                  c->under ? " (under-estimates "
                             "flagged)"
                           : "");
    vs_table_html(th, html);
    vs_buf_puts(html,
                "<p>in GiB (2^30 bytes; MiB = 2^20 under 1 GiB), rounded to two decimals: the "
                "exact bytes are in the plain text and the payload</p>");
    vs_table_free(t);
    vs_table_free(th);
    *payload = json_pack("{s:s, s:o, s:o, s:I, s:I, s:b, s:o}", "kind", "compare", "rows", rows,
                         "gpu", c->gpu_known ? json_integer(c->gpu) : json_null(), "gpus",
                         (json_int_t)c->gpus, "under_estimates", (json_int_t)c->under,
                         "engine_found_no_room", c->no_room, "kv_shortfall_bytes",
                         c->has_shortfall ? json_integer(c->shortfall_bytes) : json_null());
    if (!*payload || vs_buf_failed(text) || vs_buf_failed(html))
        return VS_ENOMEM;
    return 0;
}

vs_bundle *vs_render_compare(const vs_compare *c)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload = NULL;
    if (vs_compare_render(c, &text, &html, &payload) < 0) {
        json_decref(payload);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return NULL;
    }
    return vs_render_finish(&text, &html, NULL, payload);
}
