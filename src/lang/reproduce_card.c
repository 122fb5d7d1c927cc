/* What `reproduce` changes on the new campaign's card (reproduce_card.h). */
#include "lang/reproduce_card.h"

#include <stdio.h>
#include <string.h>

#include "lang/derive.h"
#include "lang/parse.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/error.h"
#include "util/json.h"

/* key= on the reproduce line, the verb it runs as, the card field it sets */
typedef struct override {
    const char *key;
    const char *verb;
} override;

/* The format first: an estimate reading both the format and a dimension is
 * re-estimated once, after all of them, whatever the order. */
static const override overrides[] = {{"format", "format"},
                                     {"length", "length"},
                                     {"concurrency", "concurrency"},
                                     {"engine", "engine"},
                                     {NULL, NULL}};

const char *const vs_reproduce_card_keys[] = {"format", "length", "concurrency", "engine", NULL};

int vs_reproduce_card_given(const vs_line *line)
{
    size_t i;
    for (i = 0; overrides[i].key; i++)
        if (vs_line_pair(line, overrides[i].key))
            return 1;
    return 0;
}

/* A card value as a person reads it: "4,096", "bf16", "llamacpp
 * cache_type_k=q8_0", "(not set)". */
static void put_value(vs_buf *out, const json_t *v)
{
    char g[32];
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        vs_buf_puts(out, vs_units_grouped(g, sizeof g, (uint64_t)json_integer_value(v)));
    } else if (json_is_string(v)) {
        vs_buf_puts(out, json_string_value(v));
    } else if (json_is_object(v) && json_is_string(json_object_get(v, "name"))) {
        const char *k;
        const json_t *kv;
        vs_buf_puts(out, json_string_value(json_object_get(v, "name")));
        json_object_foreach((json_t *)json_object_get(v, "keys"), k, kv)
        {
            vs_buf_printf(out, " %s=", k);
            if (json_is_string(kv))
                vs_buf_puts(out, json_string_value(kv));
            else
                vs_buf_puts(out, "?");
        }
    } else {
        vs_buf_puts(out, "(not set)");
    }
}

static void put_bytes(vs_buf *out, const json_t *bytes)
{
    char gib[48];
    if (json_is_integer(bytes) && json_integer_value(bytes) >= 0)
        vs_buf_printf(
            out, "%s GiB",
            vs_units_round(gib, sizeof gib, (uint64_t)json_integer_value(bytes), VS_UNIT_GIB, 2));
    else
        vs_buf_puts(out, "unknown");
}

/* Runs `VERB VALUE` on the current sheet as a typed line would, its errors
 * placed at the value and prefixed with the override as written. */
static int run_override(vs_ctx *ctx, const override *o, const vs_arg *a, vs_error *err)
{
    const vs_verb *v = vs_verb_find(o->verb);
    vs_buf text = VS_BUF_INIT;
    vs_cell *cell = NULL;
    vs_error e;
    int rc;
    vs_error_clear(&e);
    if (!v)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column, "no `%s` verb", o->verb);
    if (strchr(a->value, '\n'))
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                               "%s= is one line: the rest of a `%s` line", o->key, o->verb);
    vs_buf_printf(&text, "%s %s", o->verb, a->value);
    if (vs_buf_failed(&text)) {
        rc = vs_error_oom(err);
        goto done;
    }
    rc = vs_parse_cell(&cell, vs_buf_str(&text), text.len, &e);
    if (rc == 0 && cell->nlines != 1)
        rc = vs_error_set(&e, VS_EVALUE, "expected `%s=...` to be the rest of a `%s` line", o->key,
                          o->verb);
    if (rc == 0) {
        vs_line one = cell->lines[0];
        one.line = a->line;
        one.column = a->column;
        rc = v->run(ctx, &one, &e);
    }
    if (rc < 0) {
        if (rc == VS_ENOMEM)
            rc = vs_error_oom(err);
        else
            rc = vs_error_set_at(err, rc, a->line, a->value_column, "%s=%s: %s", o->key, a->value,
                                 e.message[0] ? e.message : "refused");
    }
done:
    vs_cell_free(cell);
    vs_buf_free(&text);
    return rc;
}

static const json_t *component_named(const json_t *list, const char *name)
{
    size_t i;
    const json_t *c;
    vs_json_array_foreach(list, i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, name))
            return c;
    }
    return NULL;
}

/* One group of the components that moved, came or went between before and
 * after: "; re-estimated: kv_cache 0.50 GiB → 4.00 GiB", "; added: non_torch
 * (unknown)", "; removed: activation_peak (unknown)"; each an entry of list. */
static void say_group(const json_t *before, const json_t *after, const char *change, json_t *list,
                      vs_buf *said)
{
    int added = !strcmp(change, "added"), removed = !strcmp(change, "removed");
    const json_t *c;
    size_t i, n = 0;
    vs_json_array_foreach(removed ? before : after, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        const json_t *other = name ? component_named(removed ? after : before, name) : NULL;
        const json_t *bytes = json_object_get(c, "bytes"), *was;
        json_t *from, *to;
        if (!name || ((added || removed) && other))
            continue;
        was = other ? json_object_get(other, "bytes") : NULL;
        if (!added && !removed &&
            (!other ||
             json_equal(was ? (json_t *)was : json_null(), bytes ? (json_t *)bytes : json_null())))
            continue;
        if (n++ == 0)
            vs_buf_printf(said, "; %s: ", change);
        else
            vs_buf_puts(said, ", ");
        vs_buf_printf(said, "%s %s", name, added || removed ? "(" : "");
        if (!added && !removed) {
            put_bytes(said, was);
            vs_buf_puts(said, " → ");
        }
        put_bytes(said, bytes);
        if (added || removed)
            vs_buf_putc(said, ')');
        from = removed ? (json_t *)bytes : added ? NULL : (json_t *)was;
        to = removed ? NULL : (json_t *)bytes;
        json_array_append_new(list, json_pack("{s:s, s:s, s:O, s:O}", "component", name, "change",
                                              change, "from", from ? from : json_null(), "to",
                                              to ? to : json_null()));
    }
}

int vs_reproduce_card_apply(vs_ctx *ctx, const vs_line *line, json_t *facts, vs_buf *said,
                            vs_error *err)
{
    json_t *changes = json_array(), *moved = json_array(), *before = NULL, *sheet;
    size_t i, n = 0;
    int rc = 0, quiet;
    if (!vs_reproduce_card_given(line)) {
        json_decref(changes);
        json_decref(moved);
        return 0;
    }
    if (!changes || !moved || !(sheet = vs_ctx_sheet(ctx))) {
        rc = vs_error_oom(err);
        goto done;
    }
    /* components are replaced whole, never edited: a shallow copy keeps the old ones */
    before = json_copy(vs_sheet_array(sheet, VS_SK_COMPONENTS));
    quiet = vs_ctx_quiet(ctx, 1);
    for (i = 0; rc == 0 && overrides[i].key; i++) {
        const vs_arg *a = vs_line_pair(line, overrides[i].key);
        json_t *from, *to;
        if (!a)
            continue;
        from = json_deep_copy(json_object_get(vs_sheet_card(vs_ctx_sheet(ctx)), overrides[i].key));
        if ((rc = run_override(ctx, &overrides[i], a, err)) < 0) {
            json_decref(from);
            break;
        }
        to = json_object_get(vs_sheet_card(vs_ctx_sheet(ctx)), overrides[i].key);
        vs_buf_puts(said, n++ ? "; " : "");
        vs_buf_printf(said, "%s ", overrides[i].key);
        put_value(said, from);
        if (json_equal(from ? from : json_null(), to ? to : json_null())) {
            vs_buf_puts(said, " (unchanged)");
        } else {
            vs_buf_puts(said, " → ");
            put_value(said, to);
        }
        json_array_append_new(changes,
                              json_pack("{s:s, s:o, s:O}", "field", overrides[i].key, "from",
                                        from ? from : json_null(), "to", to ? to : json_null()));
    }
    /* the estimates follow the card now, so that what moved is said here */
    if (rc == 0)
        rc = vs_derive_follow_card(ctx, vs_ctx_sheet(ctx), err);
    vs_ctx_quiet(ctx, quiet);
    if (rc < 0)
        goto done;
    {
        const json_t *after = vs_sheet_array(vs_ctx_sheet(ctx), VS_SK_COMPONENTS);
        say_group(before, after, "re-estimated", moved, said);
        say_group(before, after, "added", moved, said);
        say_group(before, after, "removed", moved, said);
    }
    if (vs_buf_failed(said) || json_object_set(facts, "card_changes", changes) ||
        json_object_set(facts, "reestimated", moved))
        rc = vs_error_oom(err);
done:
    json_decref(before);
    json_decref(changes);
    json_decref(moved);
    return rc;
}
