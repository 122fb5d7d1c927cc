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
    vs_buf_reserve(out, 256 + (again ? again->len : headline ? strlen(headline) : 0));
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

/* s escaped into out (a piece of a line that vs_bundle_line_open began) */
static void put_esc(vs_buf *out, const char *s)
{
    vs_json_escape_lossy(s, strlen(s), out);
}

#define PUT_LIT(b, lit) vs_buf_append((b), (lit), sizeof(lit) - 1)

vs_bundle *vs_render_reserve(const vs_component_view *stored, const vs_reserve_said *said)
{
    /* One line, not a one-row table: a cell of many reserve lines reads as a
     * list, and `envelope` shows them all as a table. Written piece by piece
     * straight into the bundle, the words escaped as they go and the amount
     * (digits, commas, unit names: nothing to escape) copied: most lines of
     * a long cell are these. The headline is "reserve NAME: AMOUNT (STATUS)",
     * then "; class CLASS[, phase PHASE], source: SOURCE" and, for a
     * measurement without its phase, a note; the payload's formula is the
     * headline again, copied from the text. */
    vs_buf out = VS_BUF_INIT;
    escaped_at head;
    char desc[160];
    size_t room =
        2 * (strlen(said->name) + strlen(said->source) + (said->phase ? strlen(said->phase) : 0)) +
        1024;
    head.at = vs_bundle_line_open(&out, room);
    if (said->known) {
        vs_units_describe(desc, sizeof desc, said->bytes);
        PUT_LIT(&out, "reserve");
        if (!said->lump) {
            vs_buf_putc(&out, ' ');
            put_esc(&out, said->name);
        }
        PUT_LIT(&out, ": ");
        vs_buf_puts(&out, desc);
        if (said->lump)
            PUT_LIT(&out, ", one declared lump (");
        else
            PUT_LIT(&out, " (");
        put_esc(&out, said->status);
        vs_buf_putc(&out, ')');
    } else {
        PUT_LIT(&out, "reserve ");
        put_esc(&out, said->name);
        PUT_LIT(&out, ": unknown, still to estimate or measure");
    }
    head.len = out.len - head.at;
    PUT_LIT(&out, "; class ");
    put_esc(&out, said->cls);
    if (said->phase) {
        PUT_LIT(&out, ", phase ");
        put_esc(&out, said->phase);
    }
    PUT_LIT(&out, ", source: ");
    put_esc(&out, said->source);
    if (!said->phase && vs_vocab_status_is(said->status, VS_STATUS_MEASURED))
        PUT_LIT(&out, "; a measurement keeps its context: say its phase=, and the counter in "
                      "source=");
    vs_bundle_line_close(&out, head.at);
    component_payload(&out, stored, "reserve", NULL, &head, NULL, NULL);
    return vs_bundle_line_end(&out);
}

#undef PUT_LIT

vs_bundle *vs_render_reserve_removed(const char *name)
{
    char head[400];
    snprintf(head, sizeof head, "removed component %s from the reserve", name);
    return vs_render_lines(head, NULL, 0, json_pack("{s:s, s:s}", "kind", "removed", "name", name));
}
