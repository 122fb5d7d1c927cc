/* The difference between two versions of a sheet as a MIME bundle: the table of
 * vs_diff_changes() (sheet/diff.h), text and HTML from the same rows. */
#include "render/diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/derived.h"
#include "sheet/diff.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/pool.h"

static int is_bytes_key(const char *k)
{
    return k && (!strcmp(k, "bytes") || !strcmp(k, "peak_bytes") || !strcmp(k, "memory_bytes") ||
                 !strcmp(k, "reported_bytes") || !strcmp(k, "total_bytes"));
}

/* --- rendering --- */

static void fmt_value(vs_buf *b, const char *key, const json_t *v)
{
    char d[160];
    if (!v || json_is_null(v)) {
        vs_buf_puts(b, key && is_bytes_key(key) ? "unknown" : "not set");
    } else if (json_is_integer(v) && is_bytes_key(key) && json_integer_value(v) >= 0) {
        vs_units_describe(d, sizeof d, (uint64_t)json_integer_value(v));
        vs_buf_puts(b, d);
    } else if (json_is_string(v)) {
        vs_buf_printf(b, "\"%s\"", json_string_value(v));
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (s && strlen(s) > 240)
            strcpy(s + 237, "...");
        vs_buf_puts(b, s ? s : "?");
        vs_pool_json_free(s);
    }
}

/* One line about a whole item (added or removed). */
static void fmt_item(vs_buf *b, const char *section, const json_t *v)
{
    if (!strcmp(section, "components")) {
        fmt_value(b, "bytes", json_object_get(v, "bytes"));
        vs_buf_printf(b, ", %s", vs_json_str_of(v, "status") ? vs_json_str_of(v, "status") : "?");
        if (vs_json_str_of(v, "source"))
            vs_buf_printf(b, ", source: %s", vs_json_str_of(v, "source"));
    } else if (!strcmp(section, "measurements")) {
        vs_buf_puts(b, "peak ");
        fmt_value(b, "peak_bytes", json_object_get(v, "peak_bytes"));
        if (vs_json_str_of(v, "gpu_name"))
            vs_buf_printf(b, " on %s", vs_json_str_of(v, "gpu_name"));
        if (vs_json_str_of(v, "scope"))
            vs_buf_printf(b, " (%s scope)", vs_json_str_of(v, "scope"));
        if (vs_json_str_of(v, "state") && strcmp(vs_json_str_of(v, "state"), "current"))
            vs_buf_printf(b, ", %s", vs_json_str_of(v, "state"));
    } else if (!strcmp(section, "offers")) {
        const json_t *mb = json_object_get(v, "memory_bytes");
        if (json_is_integer(mb) && json_integer_value(mb) >= 0) {
            char gb[96];
            vs_units_round(gb, sizeof gb, (uint64_t)json_integer_value(mb), VS_UNIT_GB, 2);
            vs_buf_printf(b, "%s GB nominal", gb);
        } else {
            vs_buf_puts(b, "memory unknown");
        }
        if (vs_json_str_of(v, "price"))
            vs_buf_printf(b, ", %s %s", vs_json_str_of(v, "price"),
                          vs_json_str_of(v, "currency") ? vs_json_str_of(v, "currency") : "");
        if (vs_json_str_of(v, "period"))
            vs_buf_printf(b, " for %s", vs_json_str_of(v, "period"));
    } else if (!strcmp(section, "evidence")) {
        vs_buf_printf(b, "%s (source: %s)",
                      vs_json_str_of(v, "verdict") ? vs_json_str_of(v, "verdict") : "?",
                      vs_json_str_of(v, "source") ? vs_json_str_of(v, "source") : "?");
    } else if (json_is_object(v) && json_object_size(v) == 1 && vs_json_str_of(v, "name")) {
        vs_buf_puts(b, vs_json_str_of(v, "name"));
    } else {
        fmt_value(b, NULL, v);
    }
}

static void fmt_change(vs_buf *b, const json_t *c)
{
    const char *section = vs_json_str_of(c, "section"), *change = vs_json_str_of(c, "change");
    const json_t *from = json_object_get(c, "from"), *to = json_object_get(c, "to");
    const json_t *fields = json_object_get(c, "fields"), *f, *delta;
    size_t i;
    if (!strcmp(change, "added")) {
        fmt_item(b, section, to);
    } else if (!strcmp(change, "removed")) {
        fmt_item(b, section, from);
    } else if (json_array_size(fields)) {
        json_array_foreach(fields, i, f)
        {
            const char *k = json_string_value(f);
            const json_t *df = json_object_get(from, k), *dt = json_object_get(to, k);
            if (i)
                vs_buf_puts(b, "; ");
            if (!strcmp(k, "derived") && json_is_object(df) && json_is_object(dt) &&
                json_equal(json_object_get(df, "estimator"), json_object_get(dt, "estimator")) &&
                json_equal(json_object_get(df, "keys"), json_object_get(dt, "keys"))) {
                /* the same estimate recomputed for another card: what it read */
                vs_buf ch = VS_BUF_INIT;
                vs_derived_changes(json_object_get(df, "reads"), json_object_get(dt, "reads"), &ch);
                vs_buf_printf(b, "re-estimated for %s", ch.len ? vs_buf_str(&ch) : "the same card");
                vs_buf_free(&ch);
                continue;
            }
            vs_buf_printf(b, "%s: ", k);
            fmt_value(b, k, df);
            vs_buf_puts(b, " → ");
            fmt_value(b, k, dt);
        }
    } else {
        const char *item = vs_json_str_of(c, "item");
        const char *key = item && !strcmp(section, "card") ? item : NULL;
        fmt_value(b, key, from);
        vs_buf_puts(b, " → ");
        fmt_value(b, key, to);
    }
    delta = json_object_get(c, "delta_bytes");
    if (json_is_integer(delta) && json_integer_value(delta) != 0) {
        json_int_t d = json_integer_value(delta);
        char g[64];
        vs_units_grouped(g, sizeof g, (uint64_t)(d < 0 ? -d : d));
        vs_buf_printf(b, " (%s%s B)", d < 0 ? "-" : "+", g);
    }
}

vs_bundle *vs_diff_bundle(const json_t *a, const json_t *b, const char *from_label,
                          const char *to_label, json_t *extra_take)
{
    static const char *const headers[] = {"section", "change", "item", "detail"};
    json_t *changes = vs_diff_changes(a, b), *payload = NULL, *c;
    vs_bundle *bundle = NULL;
    vs_table *t = NULL;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, d = VS_BUF_INIT;
    const char *id = vs_json_str_of(b, "id") ? vs_json_str_of(b, "id") : vs_json_str_of(a, "id");
    size_t i;
    if (!changes)
        goto done;
    if (!from_label)
        from_label = "before";
    if (!to_label)
        to_label = "after";
    vs_buf_printf(&text, "Difference in sheet %s: %s → %s\n", id ? id : "?", from_label, to_label);
    vs_buf_puts(&html, "<p>Difference in sheet <code>");
    vs_buf_put_html(&html, id ? id : "?");
    vs_buf_puts(&html, "</code>: ");
    vs_buf_put_html(&html, from_label);
    vs_buf_puts(&html, " → ");
    vs_buf_put_html(&html, to_label);
    vs_buf_puts(&html, "</p>\n");
    if (!json_array_size(changes)) {
        vs_buf_puts(&text, "No difference.\n");
        vs_buf_puts(&html, "<p>No difference.</p>\n");
    } else {
        if (!(t = vs_table_new(4, headers)))
            goto done;
        json_array_foreach(changes, i, c)
        {
            const char *cells[4];
            vs_buf_reset(&d);
            fmt_change(&d, c);
            cells[0] = vs_json_str_of(c, "section");
            cells[1] = vs_json_str_of(c, "change");
            cells[2] = vs_json_str_of(c, "item");
            cells[3] = vs_buf_str(&d);
            vs_table_add_row(t, cells);
        }
        vs_table_text(t, &text);
        vs_table_html(t, &html);
        if (vs_table_failed(t))
            goto done;
    }
    payload = json_pack("{s:s, s:s?, s:s, s:s, s:b, s:O}", "kind", "diff", "sheet", id, "from",
                        from_label, "to", to_label, "same", json_array_size(changes) == 0,
                        "changes", changes);
    if (!payload || vs_buf_failed(&text) || vs_buf_failed(&html))
        goto done;
    if (json_is_object(extra_take)) {
        const char *warning = vs_json_str_of(extra_take, "warning");
        json_object_update(payload, extra_take);
        if (warning) {
            vs_buf_printf(&text, "warning: %s\n", warning);
            vs_buf_puts(&html, "<p>warning: ");
            vs_buf_put_html(&html, warning);
            vs_buf_puts(&html, "</p>\n");
        }
    }
    bundle = vs_bundle_new(vs_buf_str(&text), vs_buf_str(&html), NULL, payload);
    payload = NULL;
done:
    json_decref(extra_take);
    json_decref(payload);
    json_decref(changes);
    vs_table_free(t);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&d);
    return bundle;
}
