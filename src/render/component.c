#include "render/component.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/lines.h"
#include "render/result.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

/* Where a headline already escaped lies in the buffer a payload is written
 * into (vs_bundle_line_begin says): the formula is copied from there. */
typedef struct {
    size_t at, len;
} escaped_at;

/* What produced the components, as members: estimator, formula (the
 * headline, or its escape at again when not NULL), inputs (taken; {} when
 * NULL), then the keys of extra (taken, may be NULL). */
static void write_origin(vs_jw *w, const char *estimator, const char *headline,
                         const escaped_at *again, json_t *inputs_take, json_t *extra_take)
{
    const char *k;
    json_t *v;
    vs_jw_member_str(w, "estimator", estimator);
    vs_jw_key(w, "formula");
    if (again)
        vs_jw_str_again(w, again->at, again->len);
    else
        vs_jw_str(w, headline);
    vs_jw_key(w, "inputs");
    if (inputs_take) {
        vs_jw_value(w, inputs_take);
    } else {
        vs_jw_open(w, '{');
        vs_jw_close(w, '}');
    }
    json_object_foreach(extra_take, k, v)
    {
        vs_jw_key(w, k);
        vs_jw_value(w, v);
    }
    json_decref(inputs_take);
    json_decref(extra_take);
}

/* The payload of one component (kind "component"): its fields, then what
 * produced it. Written, not built as a tree: most lines of a long cell are
 * `reserve` lines. */
static void component_payload(vs_buf *out, const vs_component_view *component,
                              const char *estimator, const char *headline, const escaped_at *again,
                              json_t *inputs_take, json_t *extra_take)
{
    vs_jw w = VS_JW_INIT(out);
    vs_buf_reserve(out, 256 + (headline ? strlen(headline) : 0));
    vs_jw_open(&w, '{');
    vs_component_view_write(component, &w);
    vs_jw_member_str(&w, "kind", "component");
    write_origin(&w, estimator, headline, again, inputs_take, extra_take);
    vs_jw_close(&w, '}');
}

/* The payload of the components an estimator set: one found gives kind
 * "component", several kind "components" with their total (null when any is
 * unknown). */
static void components_payload(vs_buf *out, const json_t *sheet, const char *estimator,
                               const char *const *names, size_t nnames, const char *headline,
                               json_t *inputs_take, json_t *extra_take)
{
    vs_jw w = VS_JW_INIT(out);
    vs_component_view *found = malloc((nnames ? nnames : 1) * sizeof *found);
    json_t *c;
    uint64_t total = 0;
    size_t i, n = 0;
    int all_known = 1;
    if (!found) {
        out->failed = 1;
        json_decref(inputs_take);
        json_decref(extra_take);
        return;
    }
    for (i = 0; i < nnames; i++) {
        if (!(c = vs_sheet_component(sheet, names[i])))
            continue;
        vs_component_view_read(&found[n], c);
        if (found[n].known)
            total += found[n].value;
        else
            all_known = 0;
        n++;
    }
    if (n == 1) {
        component_payload(out, &found[0], estimator, headline, NULL, inputs_take, extra_take);
        free(found);
        return;
    }
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "components");
    vs_jw_key(&w, "components");
    vs_jw_open(&w, '[');
    for (i = 0; i < n; i++) {
        vs_jw_open(&w, '{');
        vs_component_view_write(&found[i], &w);
        vs_jw_close(&w, '}');
    }
    vs_jw_close(&w, ']');
    vs_jw_member_bytes(&w, "total_bytes", all_known, total);
    write_origin(&w, estimator, headline, NULL, inputs_take, extra_take);
    vs_jw_close(&w, '}');
    free(found);
}

vs_bundle *vs_render_components(const json_t *sheet, const char *estimator,
                                const char *const *names, size_t nnames, const char *headline,
                                const char *const *notes, json_t *inputs_take, json_t *extra_take)
{
    static const char *const hdr[] = {"component", "status", "class", "bytes",
                                      "GB",        "GiB",    "source"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_table *t = vs_table_new(7, hdr);
    size_t i;
    if (!t) {
        json_decref(inputs_take);
        json_decref(extra_take);
        return NULL;
    }
    vs_table_align_right(t, 3);
    vs_table_align_right(t, 4);
    vs_table_align_right(t, 5);
    for (i = 0; i < nnames; i++) {
        json_t *c = vs_sheet_component(sheet, names[i]), *jb;
        char b[VS_RENDER_AMT], gb[VS_RENDER_AMT], gib[VS_RENDER_AMT];
        const char *row[7];
        int known;
        if (!c)
            continue;
        jb = json_object_get(c, "bytes");
        known = json_is_integer(jb);
        if (known)
            vs_render_amount((uint64_t)json_integer_value(jb), b, gb, gib);
        row[0] = names[i];
        row[1] = json_string_value(json_object_get(c, "status"));
        row[2] = json_string_value(json_object_get(c, "class"));
        row[3] = known ? b : "unknown";
        row[4] = known ? gb : "";
        row[5] = known ? gib : "";
        row[6] = json_string_value(json_object_get(c, "source"));
        vs_table_add_row(t, row);
    }
    components_payload(&p, sheet, estimator, names, nnames, headline, inputs_take, extra_take);
    return vs_render_finish_table(&text, &html, headline, t, notes, &p);
}
vs_bundle *vs_render_component_line(const vs_component_view *component, const char *estimator,
                                    const char *headline, const char *const *notes,
                                    json_t *inputs_take)
{
    /* the line, then the payload, written into the bundle as they go; the
     * payload's formula is the headline, copied from the text's escape */
    vs_buf out = VS_BUF_INIT;
    escaped_at head;
    vs_bundle_line_begin(&out, headline, notes, 320, &head.at, &head.len);
    component_payload(&out, component, estimator, headline, headline ? &head : NULL, inputs_take,
                      NULL);
    return vs_bundle_line_end(&out);
}

vs_bundle *vs_render_reserve(const vs_component_view *stored, const vs_reserve_said *said)
{
    /* One line, not a one-row table: a cell of many reserve lines reads as a
     * list, and `envelope` shows them all as a table. Pieces, not printf: most
     * lines of a long cell are these. */
    vs_buf headline = VS_BUF_INIT, where = VS_BUF_INIT;
    const char *notes[3] = {NULL, NULL, NULL};
    vs_bundle *b = NULL;
    char desc[160];
    if (said->known) {
        vs_units_describe(desc, sizeof desc, said->bytes);
        vs_buf_puts(&headline, "reserve");
        if (!said->lump) {
            vs_buf_putc(&headline, ' ');
            vs_buf_puts(&headline, said->name);
        }
        vs_buf_puts(&headline, ": ");
        vs_buf_puts(&headline, desc);
        vs_buf_puts(&headline, said->lump ? ", one declared lump (" : " (");
        vs_buf_puts(&headline, said->status);
        vs_buf_putc(&headline, ')');
    } else {
        vs_buf_puts(&headline, "reserve ");
        vs_buf_puts(&headline, said->name);
        vs_buf_puts(&headline, ": unknown, still to estimate or measure");
    }
    vs_buf_puts(&where, "class ");
    vs_buf_puts(&where, said->cls);
    if (said->phase) {
        vs_buf_puts(&where, ", phase ");
        vs_buf_puts(&where, said->phase);
    }
    vs_buf_puts(&where, ", source: ");
    vs_buf_puts(&where, said->source);
    if (!vs_buf_failed(&headline) && !vs_buf_failed(&where)) {
        notes[0] = vs_buf_str(&where);
        if (!said->phase && vs_vocab_status_is(said->status, VS_STATUS_MEASURED))
            notes[1] = "a measurement keeps its context: say its phase=, and the counter in "
                       "source=";
        b = vs_render_component_line(stored, "reserve", vs_buf_str(&headline), notes, NULL);
    }
    vs_buf_free(&headline);
    vs_buf_free(&where);
    return b;
}

vs_bundle *vs_render_reserve_removed(const char *name)
{
    char head[400];
    snprintf(head, sizeof head, "removed component %s from the reserve", name);
    return vs_render_lines(head, NULL, 0, json_pack("{s:s, s:s}", "kind", "removed", "name", name));
}
