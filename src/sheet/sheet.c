#include "sheet/sheet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/vocab.h"
#include "util/json.h"

/* Where each component is, by name (see index_of). */
#define INDEX_KEY "_component_at"

/* The layout's keys of a component: name, bytes, status, source, phase, class. */
#define LAYOUT_KEYS 6

json_t *vs_sheet_new(const char *title)
{
    char id[VS_SHEET_ID_MAX];
    json_t *s;
    vs_sheet_slug(title ? title : "untitled", id, sizeof id);
    s = json_pack("{s:s, s:s, s:s?, s:n,"
                  " s:{s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n,"
                  " s:n, s:n, s:n, s:n},"
                  " s:n, s:[], s:{s:s, s:i, s:n, s:n}, s:[], s:[], s:[], s:[], s:[], s:[], s:[],"
                  " s:[], s:n}",
                  "schema", VS_SHEET_SCHEMA, "id", id, "title", title, "lineage", "card", "model",
                  "revision", "params", "params_source", "task", "format", "bits", "length",
                  "concurrency", "microbatch", "accumulation", "width", "height", "frames", "batch",
                  "quality", "arch", "engine", "weights_files", "components", "placement", "kind",
                  "single", "gpus", 1, "stage", "offload", "stages", "offers", "requirements",
                  "evidence", "runs", "measurements", "invalidate", "oom", "decision");
    return s;
}

/* 32-bit FNV-1a: a short, stable fingerprint for titles the slug cannot spell. */
static uint32_t fnv1a(const unsigned char *p)
{
    uint32_t h = 2166136261u;
    for (; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

int vs_sheet_slug(const char *title, char *out, size_t outlen)
{
    const unsigned char *p;
    size_t n = 0, cap;
    int dash = 0, foreign = 0;
    if (outlen < 2)
        return VS_EVALUE;
    for (p = (const unsigned char *)title; *p; p++)
        foreign |= *p >= 0x80;
    /* Letters outside ASCII cannot be spelled in a slug; without a fingerprint
     * "日本" and "中国" (or "Ünïcödé" and "Anïcödé") would name the same sheet. */
    cap = outlen < VS_SHEET_ID_MAX ? outlen : VS_SHEET_ID_MAX;
    if (foreign)
        cap = cap > 10 ? cap - 9 : 1;
    for (p = (const unsigned char *)title; *p && n + 1 < cap; p++) {
        unsigned char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && n > 0) {
                if (n + 2 >= cap)
                    break;
                out[n++] = '-';
            }
            dash = 0;
            out[n++] = (char)c;
        } else {
            dash = 1;
        }
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, outlen, "%s", "sheet");
    if (foreign)
        snprintf(out + strlen(out), outlen - strlen(out), "-%08x",
                 (unsigned)fnv1a((const unsigned char *)title));
    return 0;
}

int vs_sheet_id_valid(const char *id)
{
    size_t n = strlen(id), i;
    if (n == 0 || n >= VS_SHEET_ID_MAX || id[0] == '-' || id[n - 1] == '-')
        return 0;
    for (i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return 0;
        if (c == '-' && i > 0 && id[i - 1] == '-')
            return 0;
    }
    return 1;
}

json_t *vs_sheet_card(const json_t *sheet)
{
    return vs_sheet_get(sheet, VS_SK_CARD);
}

json_t *vs_sheet_array(const json_t *sheet, vs_sheet_key k)
{
    json_t *a = vs_sheet_get(sheet, k);
    return json_is_array(a) ? a : NULL;
}

int vs_sheet_card_uint(const json_t *sheet, vs_card_key k, uint64_t *out)
{
    json_t *v = vs_sheet_card_get(sheet, k);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

/* A new array of the same components: a long reserve is most of a sheet,
 * and copying each component made the snapshot a tenth of a cell. */
static json_t *share_components(json_t *comps)
{
    json_t *a = json_array(), *c;
    size_t i;
    if (!a)
        return NULL;
    json_array_foreach(comps, i, c)
    {
        if (json_array_append(a, c) < 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *copy_field(const char *key, json_t *value)
{
    return json_is_array(value) && !strcmp(key, "components") ? share_components(value)
                                                              : vs_json_copy(value);
}

json_t *vs_sheet_snapshot(json_t *sheet)
{
    json_t *copy = json_object();
    void *it;
    if (!copy)
        return NULL;
    for (it = json_object_iter(sheet); it; it = json_object_iter_next(sheet, it)) {
        const char *k = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it), *x;
        if (!strcmp(k, INDEX_KEY))
            continue; /* a cache: a restored sheet rebuilds it when needed */
        x = copy_field(k, v);
        if (!x || json_object_setn_new_nocheck(copy, k, json_object_iter_key_len(it), x) < 0) {
            json_decref(copy);
            return NULL;
        }
    }
    return copy;
}

json_t *vs_sheet_snapshot_all(json_t *sheets)
{
    json_t *out = json_array(), *sheet;
    size_t i;
    if (!out)
        return NULL;
    json_array_foreach(sheets, i, sheet)
    {
        if (json_array_append_new(out, vs_sheet_snapshot(sheet)) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* Key k of length n is the literal lit: lengths first, then a fixed-size
 * compare the compiler inlines. */
#define KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && !memcmp((k), (lit), sizeof(lit) - 1))

void vs_component_view_read(vs_component_view *out, const json_t *component)
{
    void *it;
    json_t *c = (json_t *)component, *bytes = NULL;
    memset(out, 0, sizeof *out);
    for (it = json_object_iter(c); it; it = json_object_iter_next(c, it)) {
        const char *k = json_object_iter_key(it);
        size_t n = json_object_iter_key_len(it);
        json_t *v = json_object_iter_value(it), **slot = NULL;
        if (KEY_IS(k, n, "name"))
            slot = &out->name;
        else if (KEY_IS(k, n, "bytes"))
            bytes = v;
        else if (KEY_IS(k, n, "status"))
            slot = &out->status;
        else if (KEY_IS(k, n, "source"))
            slot = &out->source;
        else if (KEY_IS(k, n, "phase"))
            slot = &out->phase;
        else if (KEY_IS(k, n, "class"))
            slot = &out->cls;
        else {
            /* not a layout key: counted in neither keys nor nulls */
            if (KEY_IS(k, n, VS_MEMORY_KEY) && json_is_string(v)) {
                out->managed = !strcmp(json_string_value(v), VS_MEMORY_MANAGED);
                out->cache = !strcmp(json_string_value(v), VS_MEMORY_CACHE);
            }
            continue;
        }
        out->keys++;
        out->nulls += json_is_null(v);
        if (slot && json_is_string(v))
            *slot = v;
    }
    out->bytes_null = json_is_null(bytes);
    if (json_is_integer(bytes) && json_integer_value(bytes) >= 0) {
        out->known = 1;
        out->value = (uint64_t)json_integer_value(bytes);
    }
}

/* A component as stored: through its view (given, or read here when NULL)
 * when it has exactly the layout's keys (most of a long sheet's payload),
 * else as it is. */
static void component_write(const json_t *c, const vs_component_view *given, vs_jw *w)
{
    vs_component_view read;
    const vs_component_view *v = given;
    if (!v) {
        vs_component_view_read(&read, c);
        v = &read;
    }
    if (v->keys == 6 && json_object_size(c) == 6 && (v->known || v->bytes_null)) {
        vs_jw_open(w, '{');
        vs_component_view_write(v, w);
        vs_jw_close(w, '}');
    } else {
        vs_jw_value(w, c);
    }
}

void vs_sheet_fields_write(const json_t *sheet, const vs_component_views *views, vs_jw *w)
{
    const char *k;
    json_t *v, *c;
    size_t i;
    json_object_foreach((json_t *)sheet, k, v)
    {
        if (k[0] == '_')
            continue;
        vs_jw_key(w, k);
        if (strcmp(k, "components") != 0 || !json_is_array(v)) {
            vs_jw_value(w, v);
            continue;
        }
        vs_jw_open(w, '[');
        if (views && views->n != json_array_size(v))
            views = NULL; /* not this sheet's: read each */
        json_array_foreach(v, i, c)
        {
            component_write(c, views ? &views->v[i] : NULL, w);
        }
        vs_jw_close(w, ']');
    }
}

int vs_component_views_read(vs_component_views *out, const json_t *sheet)
{
    json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    size_t i, n = json_array_size(comps);
    out->n = 0;
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    if (!out->v)
        return VS_ENOMEM;
    for (i = 0; i < n; i++)
        vs_component_view_read(&out->v[i], json_array_get(comps, i));
    out->n = n;
    return 0;
}

void vs_component_views_free(vs_component_views *views)
{
    free(views->v);
    views->v = NULL;
    views->n = 0;
}

/* A view's string field (NULL: null), escaped straight into the buffer. */
static void put_field(vs_buf *b, const json_t *s)
{
    if (!s)
        vs_buf_append(b, "null", 4);
    else if (vs_json_dump_string(json_string_value(s), json_string_length(s), b) < 0)
        b->failed = 1;
}

/* Every payload that lists components writes each of them through here:
 * about a thousand times in a long cell (`reserve`, `envelope`, a `sheet`
 * run again). The keys after the first are literals with their comma, and
 * each string goes straight to the escaper, rather than one vs_jw call per
 * key and per value (their comma state and dispatch were a third of it).
 * The text is the same as vs_jw_member_* would write. */
#define PUT_KEY(b, lit) vs_buf_append((b), lit, sizeof lit - 1)
void vs_component_view_write(const vs_component_view *v, vs_jw *w)
{
    vs_buf *b = w->out;
    vs_jw_key(w, "name"); /* with the comma the object's state needs */
    put_field(b, v->name);
    PUT_KEY(b, ",\"bytes\":");
    vs_jw_bytes(w, v->known, v->value); /* after a key: no comma (w->comma is 0) */
    PUT_KEY(b, ",\"status\":");
    put_field(b, v->status);
    PUT_KEY(b, ",\"source\":");
    put_field(b, v->source);
    PUT_KEY(b, ",\"phase\":");
    put_field(b, v->phase);
    PUT_KEY(b, ",\"class\":");
    if (v->cls)
        put_field(b, v->cls);
    else if (vs_json_dump_string(vs_vocab_class_name(VS_CLASS_OTHER),
                                 strlen(vs_vocab_class_name(VS_CLASS_OTHER)), b) < 0)
        b->failed = 1;
    if (v->managed)
        PUT_KEY(b, ",\"" VS_MEMORY_KEY "\":\"" VS_MEMORY_MANAGED "\"");
    else if (v->cache)
        PUT_KEY(b, ",\"" VS_MEMORY_KEY "\":\"" VS_MEMORY_CACHE "\"");
    w->comma = 1;
}
#undef PUT_KEY

/* The name of component c, or NULL. Components are built (here and by the
 * record loader) with "name" as their first key: taking the first key skips a
 * hash lookup; any other layout falls back to the lookup. */
static json_t *name_of(json_t *c)
{
    void *it = json_object_iter(c);
    const char *k = it ? json_object_iter_key(it) : "";
    if (k[0] == 'n' && k[1] == 'a' && k[2] == 'm' && k[3] == 'e' && k[4] == '\0')
        return json_object_iter_value(it);
    return json_object_get(c, "name");
}

static int is_named(json_t *c, const char *name, size_t name_len)
{
    json_t *v = name_of(c);
    return json_is_string(v) && json_string_length(v) == name_len &&
           !memcmp(json_string_value(v), name, name_len);
}

/* The same for a component read as v. */
static int view_named(const vs_component_view *v, const char *name, size_t name_len)
{
    return v->name && json_string_length(v->name) == name_len &&
           !memcmp(json_string_value(v->name), name, name_len);
}

/* Where each component is, by name: an object name -> position kept under a
 * runtime key ("_": never recorded). Without it, every new component of a
 * long cell scanned the whole reserve for its name (quadratic: 9,700 name
 * checks for 139 lines, an eighth of a cell). It is a cache: trusted only
 * while it holds as many names as the sheet has components (names are
 * unique), a hit is checked by name, and anything else scans and rebuilds
 * it. Removals drop it (vs_sheet_remove_component); a snapshot leaves it
 * out. The index of sheet when it covers comps, else NULL. */
static json_t *index_of(const json_t *sheet, const json_t *comps)
{
    json_t *index = json_object_get(sheet, INDEX_KEY);
    return json_is_object(index) && json_object_size(index) == json_array_size(comps) ? index
                                                                                      : NULL;
}

/* Index of the component named name (name_len bytes) in comps, or -1.
 * *index_out, when not NULL, is the index found covering comps (or NULL): a
 * caller about to add the component hands it to index_put rather than
 * looking it up in the sheet again. */
static long find_component(const json_t *sheet, json_t *comps, const char *name, size_t name_len,
                           json_t **index_out)
{
    size_t i, n = json_array_size(comps);
    json_t *index = index_of(sheet, comps);
    if (index_out)
        *index_out = index;
    if (index) {
        json_t *at = json_object_getn(index, name, name_len);
        json_int_t k;
        if (!at)
            return -1;
        k = json_integer_value(at);
        if (k >= 0 && (size_t)k < n && is_named(json_array_get(comps, (size_t)k), name, name_len))
            return (long)k;
    }
    for (i = 0; i < n; i++)
        if (is_named(json_array_get(comps, i), name, name_len))
            return (long)i;
    return -1;
}

/* Records that position at (the last) holds name (name_len bytes). index is what
 * find_component found covering the components before this one was
 * appended, or NULL: the index is rebuilt first. Best effort: a failure only
 * leaves the next lookup to scan. */
static void index_put(json_t *sheet, json_t *comps, size_t at, const char *name, size_t name_len,
                      json_t *index)
{
    json_t *c;
    size_t i, n = json_array_size(comps);
    if (!index || json_object_size(index) + 1 != n) {
        if (!(index = json_object()) || json_object_set_new_nocheck(sheet, INDEX_KEY, index) < 0)
            return;
        json_array_foreach(comps, i, c)
        {
            json_t *nm = name_of(c);
            if (i != at && json_is_string(nm))
                json_object_setn_new_nocheck(index, json_string_value(nm), json_string_length(nm),
                                             json_integer((json_int_t)i));
        }
    }
    json_object_setn_new_nocheck(index, name, name_len, json_integer((json_int_t)at));
    if (json_object_size(index) != n) /* a name twice, or an entry lost: no index */
        json_object_del(sheet, INDEX_KEY);
}

int vs_sheet_component_with(json_t *sheet, size_t i, const char *key, json_t *value_take)
{
    json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    json_t *old = json_array_get(comps, i), *c;
    if (!old || !(c = json_copy(old))) {
        json_decref(value_take);
        return VS_ENOMEM;
    }
    if (!value_take || json_object_set_new(c, key, value_take) || json_array_set_new(comps, i, c))
        return VS_ENOMEM;
    return 0;
}

int vs_sheet_remove_component(json_t *sheet, size_t i)
{
    json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    json_object_del(sheet, INDEX_KEY); /* positions after i move */
    return json_array_remove(comps, i);
}

long vs_sheet_component_index(const json_t *sheet, const char *name)
{
    return find_component(sheet, vs_sheet_array(sheet, VS_SK_COMPONENTS), name, strlen(name), NULL);
}

json_t *vs_sheet_component(const json_t *sheet, const char *name)
{
    long i = vs_sheet_component_index(sheet, name);
    return i < 0 ? NULL : json_array_get(vs_sheet_array(sheet, VS_SK_COMPONENTS), (size_t)i);
}

/* v (a JSON string, or NULL for null) says s (NULL for null). */
static int same_text(const json_t *v, const char *s)
{
    return s ? v && !strcmp(json_string_value(v), s) : v == NULL;
}

/* Whether component c (read as v) is what vs_sheet_put_component would store
 * for these fields: the six layout keys and no other, each with the value
 * given (null where NULL or unknown). */
static int same_component(const json_t *c, const vs_component_view *v, int known, uint64_t bytes,
                          const char *status, const char *source, const char *phase,
                          const char *cls)
{
    /* as many nulls as these fields have: with the strings and the amount
     * equal, every other key is null, as stored */
    unsigned nulls = !known + !source + !phase;
    if (json_object_size(c) != 6 || v->keys != 6 || v->nulls != nulls || v->known != known ||
        (known && v->value != bytes))
        return 0;
    return same_text(v->status, status) && same_text(v->source, source) &&
           same_text(v->phase, phase) && same_text(v->cls, cls);
}

int vs_sheet_set_component(json_t *sheet, const char *name, int known, uint64_t bytes,
                           const char *status, const char *source, const char *phase,
                           const char *cls, vs_error *err)
{
    json_t *c;
    return vs_sheet_put_component(&c, NULL, NULL, sheet, NULL, name, known, bytes, status, source,
                                  phase, cls, err);
}

/* The view of a component just built from vals (the six layout fields in
 * order), as vs_component_view_read would read it, without walking the
 * object's keys back: every `reserve` line that adds one hands its view on. */
static void view_of_built(vs_component_view *v, json_t *const vals[LAYOUT_KEYS], int known,
                          uint64_t bytes)
{
    json_t **slots[LAYOUT_KEYS] = {&v->name, NULL, &v->status, &v->source, &v->phase, &v->cls};
    size_t k;
    memset(v, 0, sizeof *v);
    for (k = 0; k < LAYOUT_KEYS; k++) {
        v->nulls += json_is_null(vals[k]);
        if (slots[k] && json_is_string(vals[k]))
            *slots[k] = vals[k];
    }
    v->keys = LAYOUT_KEYS;
    v->known = known;
    v->bytes_null = !known;
    v->value = known ? bytes : 0;
}

/* A new string of s (n bytes; null for NULL). Strings come from the
 * person's cells and records, which the parser and the loader have checked
 * as UTF-8; a bad one still fails here rather than reaching the record,
 * unless words says its strings are a parsed cell's (.checked). */
static json_t *text_of(const vs_component_words *words, const char *s, size_t n)
{
    if (!s)
        return json_null();
    return words && words->checked ? json_stringn_nocheck(s, n) : vs_json_stringn(s, n);
}

/* The string words gives for s, else a new one (null for NULL). */
static json_t *word_or_new(const vs_component_words *words, const char *s)
{
    json_t *w = s && words && words->word ? words->word(words->data, s) : NULL;
    return w ? json_incref(w) : text_of(words, s, s ? strlen(s) : 0);
}

int vs_sheet_put_component(json_t **out, vs_component_view *view, size_t *at_out, json_t *sheet,
                           const vs_component_words *words, const char *name, int known,
                           uint64_t bytes, const char *status, const char *source,
                           const char *phase, const char *cls, vs_error *err)
{
    /* with their lengths: a long reserve sets six keys a line */
    static const struct {
        const char *s;
        size_t len;
    } keys[LAYOUT_KEYS] = {{"name", 4},   {"bytes", 5}, {"status", 6},
                           {"source", 6}, {"phase", 5}, {"class", 5}};
    json_t *arr = vs_sheet_array(sheet, VS_SK_COMPONENTS), *c, *index = NULL;
    json_t *vals[LAYOUT_KEYS];
    const size_t name_len = strlen(name);
    /* the hint is taken only while the index covers every component, which
     * it does only when no name is there twice: with a name twice, the
     * first one is the component (find_component), whatever the hint says */
    json_t *hinted = words && index_of(sheet, arr) ? json_array_get(arr, words->hint) : NULL;
    /* the caller's view of the hinted component names it without a walk
     * into the object's keys */
    const vs_component_view *held =
        hinted && words->view ? words->view(words->data, words->hint, hinted) : NULL;
    long at;
    vs_component_view was;
    size_t k;
    if (held ? view_named(held, name, name_len) : hinted && is_named(hinted, name, name_len)) {
        at = (long)words->hint;
    } else {
        at = find_component(sheet, arr, name, name_len, &index);
        held = NULL;
        if (at >= 0 && words && words->view)
            held = words->view(words->data, (size_t)at, json_array_get(arr, (size_t)at));
    }
    *out = NULL;
    json_t *old = at < 0 ? NULL : json_array_get(arr, (size_t)at);
    if (known && bytes > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT, "%s: %s bytes does not fit a record", name,
                            "the amount");
    if (held)
        was = *held;
    else if (old)
        vs_component_view_read(&was, old);
    if (!cls)
        cls = vs_vocab_class_name(VS_CLASS_OTHER);
    if (old && !vs_vocab_status_is(status, VS_STATUS_MEASURED)) {
        if (vs_vocab_status_is(json_string_value(was.status), VS_STATUS_MEASURED))
            return vs_error_set(err, VS_EVALUE,
                                "component '%s' is measured; an estimate never overwrites a "
                                "measurement (use another name, or `reserve %s ... "
                                "status=measured` to replace it)",
                                name, name);
    }
    if (old && same_component(old, &was, known, bytes, status, source, phase, cls)) {
        /* a cell run again declares what the sheet holds: nothing to rebuild */
        *out = old;
        if (view)
            *view = was;
        if (at_out)
            *at_out = (size_t)at;
        return 0;
    }
    /* key by key in the layout's order; json_pack parsed its format each time */
    vals[0] = text_of(words, name, name_len);
    vals[1] = known ? json_integer((json_int_t)bytes) : json_null();
    vals[2] = word_or_new(words, status);
    vals[3] = text_of(words, source, source ? strlen(source) : 0);
    vals[4] = text_of(words, phase, phase ? strlen(phase) : 0);
    vals[5] = word_or_new(words, cls);
    c = json_object();
    for (k = 0; k < LAYOUT_KEYS; k++) {
        /* a set that fails has released its value; the ones after it are ours */
        if (!c || !vals[k] || json_object_setn_new_nocheck(c, keys[k].s, keys[k].len, vals[k])) {
            if (c && vals[k])
                k++;
            for (; k < LAYOUT_KEYS; k++)
                json_decref(vals[k]);
            json_decref(c);
            return vs_error_set(err, VS_ENOMEM, "out of memory (or a name that is not UTF-8)");
        }
    }
    if (!arr) {
        arr = json_array();
        if (!arr || json_object_set_new(sheet, "components", arr)) {
            json_decref(c);
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        }
    }
    if (old) {
        if (json_array_set_new(arr, (size_t)at, c))
            return vs_error_set(err, VS_ENOMEM, "out of memory");
    } else {
        if (json_array_append_new(arr, c))
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        index_put(sheet, arr, json_array_size(arr) - 1, name, name_len, index);
    }
    *out = c;
    if (at_out)
        *at_out = old ? (size_t)at : json_array_size(arr) - 1;
    if (view) /* c holds vals: they live as long as it does */
        view_of_built(view, vals, known, bytes);
    return 0;
}

#define CARD_GEN_KEY "_card_gen"

/* One integer holds the generation and whether it was seen: 2 x the count,
 * plus 1 once seen. What follows the card asks after every line of a cell
 * (vs_sheet_card_unseen), and each key asked is a hash lookup in the sheet:
 * one key, not a count and a seen count side by side, halves it. A new
 * integer each time: snapshots share scalars (util/json.h), so it is
 * replaced, never set in place. When it cannot be written (memory) the key
 * goes, which reads as unseen. */
static json_int_t card_count(const json_t *g)
{
    return json_is_integer(g) ? json_integer_value(g) / 2 : 0;
}

static void card_gen_set(json_t *sheet, json_int_t count, int seen)
{
    if (json_object_set_new_nocheck(sheet, CARD_GEN_KEY, json_integer(count * 2 + !!seen)) < 0)
        json_object_del(sheet, CARD_GEN_KEY);
}

void vs_sheet_card_touch(json_t *sheet)
{
    card_gen_set(sheet, card_count(json_object_get(sheet, CARD_GEN_KEY)) + 1, 0);
}

int vs_sheet_card_unseen(const json_t *sheet)
{
    json_t *g = json_object_get(sheet, CARD_GEN_KEY);
    return !json_is_integer(g) || !(json_integer_value(g) & 1);
}

void vs_sheet_card_saw(json_t *sheet)
{
    card_gen_set(sheet, card_count(json_object_get(sheet, CARD_GEN_KEY)), 1);
}
