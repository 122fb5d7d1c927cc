#include "util/json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pool.h"
#include "util/utf8.h"
#include "util/word.h"

json_t *vs_json_stringn(const char *s, size_t len)
{
    if (!vs_utf8_valid_nul(s, len))
        return NULL;
    return json_stringn_nocheck(s, len);
}

const char *vs_json_str_of(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

json_t *vs_json_copy(json_t *v)
{
    json_t *c = NULL;
    if (!v)
        return NULL;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        void *it;
        if (!(c = json_object()))
            return NULL;
        for (it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
            json_t *x = vs_json_copy(json_object_iter_value(it));
            if (!x || json_object_setn_new_nocheck(c, json_object_iter_key(it),
                                                   json_object_iter_key_len(it), x) < 0) {
                json_decref(c);
                return NULL;
            }
        }
        return c;
    }
    case JSON_ARRAY: {
        size_t i, n = json_array_size(v);
        if (!(c = json_array()))
            return NULL;
        for (i = 0; i < n; i++) {
            json_t *x = vs_json_copy(json_array_get(v, i));
            if (!x || json_array_append_new(c, x) < 0) {
                json_decref(c);
                return NULL;
            }
        }
        return c;
    }
    default:
        return json_incref(v);
    }
}

json_t *vs_json_object_of(const char *key, ...)
{
    va_list ap;
    json_t *o = json_object(), *v;
    int ok = o != NULL;
    va_start(ap, key);
    for (; key; key = va_arg(ap, const char *)) {
        v = va_arg(ap, json_t *);
        if (!v)
            ok = 0;
        else if (!ok)
            json_decref(v);
        else if (json_object_set_new_nocheck(o, key, v) < 0) /* it releases v */
            ok = 0;
    }
    va_end(ap);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* What vs_json_dump_string does with each byte: 0 copy it, 1 check a UTF-8
 * sequence, else the letter of its escape ('u': \u00XX). */
static const unsigned char byte_class[256] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u', 'u',  'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 0,   0,   '"', 0,    0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,    0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,    0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   '\\', 0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,    0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,    1,   1,
    1,   1,   1,   1,   1,   1,   1,   1,   1};

/* Copies the BLOCK bytes at src to dst and returns how many of them, from
 * the first, need no more than that copy (BLOCK when all): a control
 * character, '"', '\\' or a byte of a multi-byte sequence stops it. Copying
 * whatever comes is what makes the common case one load, one store and one
 * test per block; the bytes copied past the stop are overwritten. */
#define BLOCK 16
static inline size_t block_copy(const char *src, char *dst)
{
    size_t k = vs_word_block_run(src, 0x20, '"', '\\', 0, 0, 0);
    memcpy(dst, src, BLOCK);
    return k;
}

/* Writes the escaped string straight into out's spare room: results are
 * mostly text, HTML and SVG. The room kept ahead is the rest of the input,
 * a block, and one escape, so every block and escape is written unchecked.
 * With quotes 0, the escape alone (a piece of a longer string). On failure
 * out keeps its length (what was written past it is not counted). */
static int escape_long(const char *s, size_t len, vs_buf *out, int quotes)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, k;
    char *w, *room_end;
    if (out->cap - out->len <= len + len / 8 + BLOCK + 16 || out->failed) {
        vs_buf_reserve(out, len + len / 8 + BLOCK + 16);
        if (out->failed)
            return -1;
    }
    w = out->data + out->len;
    room_end = out->data + out->cap;
    if (quotes)
        *w++ = '"';
    for (;;) {
        unsigned char c, e;
        while (i + BLOCK <= len) {
            k = block_copy(s + i, w);
            i += k;
            w += k;
            if (k < BLOCK)
                break;
        }
        if (i + BLOCK > len) {
            /* the tail, as one block padded with spaces (there is room for a
             * whole block): most strings, keys and short values, are only this */
            char tail[16];
            vs_word_pad16(tail, s + i, len - i);
            k = block_copy(tail, w);
            if (k > len - i)
                k = len - i;
            i += k;
            w += k;
            if (i == len)
                break;
        }
        c = u[i];
        e = byte_class[c];
        if (e == 1) {
            if (!(k = vs_utf8_seq(u + i, len - i)))
                return -1;
            memcpy(w, s + i, k);
            w += k;
            i += k;
        } else {
            w[0] = '\\';
            w[1] = (char)e;
            if (e == 'u') {
                w[2] = '0';
                w[3] = '0';
                w[4] = hex[c >> 4];
                w[5] = hex[c & 15];
                w += 4;
            }
            w += 2;
            i++;
        }
        if ((size_t)(room_end - w) <= (len - i) + BLOCK + 8) {
            /* escapes used up the slack: make more */
            out->len = (size_t)(w - out->data);
            vs_buf_reserve(out, (len - i) + (len - i) / 8 + BLOCK + 16);
            if (out->failed)
                return -1;
            w = out->data + out->len;
            room_end = out->data + out->cap;
        }
    }
    if (quotes)
        *w++ = '"';
    *w = '\0';
    out->len = (size_t)(w - out->data);
    return 0;
}

/* escape_long, with short strings with nothing to escape (most strings a
 * payload writes: a name, a status, a class) taken first: one padded block
 * tested and copied whole, where room is left, without escape_long's loop
 * and bookkeeping. Inline in each caller. */
static inline int escape_into(const char *s, size_t len, vs_buf *out, int quotes)
{
    if (len < BLOCK && out->cap - out->len > BLOCK + 2 && !out->failed) {
        char tail[BLOCK], *w = out->data + out->len;
        vs_word_pad16(tail, s, len);
        if (vs_word_block_run(tail, 0x20, '"', '\\', 0, 0, 0) >= len) {
            if (quotes)
                *w++ = '"';
            memcpy(w, tail, BLOCK); /* the bytes past len are overwritten below */
            w += len;
            if (quotes)
                *w++ = '"';
            *w = '\0';
            out->len = (size_t)(w - out->data);
            return 0;
        }
    }
    return escape_long(s, len, out, quotes);
}

int vs_json_dump_string(const char *s, size_t len, vs_buf *out)
{
    return escape_into(s, len, out, 1);
}

static void dump_integer(json_int_t v, vs_buf *out)
{
    char d[24], *p = vs_word_u64_digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, d + sizeof d);
    if (v < 0)
        *--p = '-';
    vs_buf_append(out, p, (size_t)(d + sizeof d - p));
}

int vs_json_dump(const json_t *v, vs_buf *out)
{
    json_t *jv = (json_t *)v; /* jansson's iterators take non-const objects */
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        void *it;
        int first = 1;
        vs_buf_putc(out, '{');
        for (it = json_object_iter(jv); it; it = json_object_iter_next(jv, it)) {
            if (!first)
                vs_buf_putc(out, ',');
            first = 0;
            if (vs_json_dump_string(json_object_iter_key(it), json_object_iter_key_len(it), out) <
                0)
                return -1;
            vs_buf_putc(out, ':');
            if (vs_json_dump(json_object_iter_value(it), out) < 0)
                return -1;
        }
        vs_buf_putc(out, '}');
        break;
    }
    case JSON_ARRAY: {
        size_t i, n = json_array_size(v);
        vs_buf_putc(out, '[');
        for (i = 0; i < n; i++) {
            if (i)
                vs_buf_putc(out, ',');
            if (vs_json_dump(json_array_get(v, i), out) < 0)
                return -1;
        }
        vs_buf_putc(out, ']');
        break;
    }
    case JSON_STRING:
        if (vs_json_dump_string(json_string_value(v), json_string_length(v), out) < 0)
            return -1;
        break;
    case JSON_INTEGER:
        dump_integer(json_integer_value(v), out);
        break;
    case JSON_REAL: {
        /* rare in results, and jansson's shortest-exact formatting is the
         * reference: let it write them */
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s)
            return -1;
        vs_buf_puts(out, s);
        vs_pool_json_free(s);
        break;
    }
    case JSON_TRUE:
        vs_buf_append(out, "true", 4);
        break;
    case JSON_FALSE:
        vs_buf_append(out, "false", 5);
        break;
    case JSON_NULL:
        vs_buf_append(out, "null", 4);
        break;
    }
    return vs_buf_failed(out) ? -1 : 0;
}

int vs_json_dump_take(json_t *v_take, vs_buf *out)
{
    int rc = v_take ? vs_json_dump(v_take, out) : -1;
    json_decref(v_take);
    if (rc < 0)
        out->failed = 1;
    return rc;
}

/* vs_json_dump_string_lossy, or with quotes 0 vs_json_escape_lossy */
static void lossy(const char *s, size_t len, vs_buf *out, int quotes)
{
    size_t mark = out->len, i = 0, k;
    vs_buf fixed = VS_BUF_INIT;
    if (escape_into(s, len, out, quotes) == 0 || vs_buf_failed(out))
        return;
    /* rare: take back the partial literal and write a repaired copy */
    out->len = mark;
    out->data[mark] = '\0';
    while (i < len) {
        if (!(k = vs_utf8_seq((const unsigned char *)s + i, len - i))) {
            vs_buf_append(&fixed, "\xEF\xBF\xBD", 3);
            i++;
        } else {
            vs_buf_append(&fixed, s + i, k);
            i += k;
        }
    }
    if (vs_buf_failed(&fixed))
        out->failed = 1;
    else
        escape_into(fixed.data ? fixed.data : "", fixed.len, out, quotes);
    vs_buf_free(&fixed);
}

void vs_json_dump_string_lossy(const char *s, size_t len, vs_buf *out)
{
    lossy(s, len, out, 1);
}

void vs_json_escape_lossy(const char *s, size_t len, vs_buf *out)
{
    lossy(s, len, out, 0);
}

/* the comma before a key or an array element */
static void jw_sep(vs_jw *w)
{
    if (w->comma)
        vs_buf_putc(w->out, ',');
    w->comma = 1;
}

void vs_jw_open(vs_jw *w, char bracket)
{
    jw_sep(w);
    vs_buf_putc(w->out, bracket);
    w->comma = 0;
}

void vs_jw_close(vs_jw *w, char bracket)
{
    vs_buf_putc(w->out, bracket);
    w->comma = 1;
}

void vs_jw_strn(vs_jw *w, const char *s, size_t len)
{
    jw_sep(w);
    vs_json_dump_string_lossy(s, len, w->out);
}

void vs_jw_str(vs_jw *w, const char *s)
{
    if (s)
        vs_jw_strn(w, s, strlen(s));
    else
        vs_jw_null(w);
}

void vs_jw_u64(vs_jw *w, uint64_t v)
{
    char d[24], *p = vs_word_u64_digits(v, d + sizeof d);
    jw_sep(w);
    vs_buf_append(w->out, p, (size_t)(d + sizeof d - p));
}

void vs_jw_i64(vs_jw *w, int64_t v)
{
    jw_sep(w);
    dump_integer((json_int_t)v, w->out);
}

void vs_jw_bool(vs_jw *w, int v)
{
    jw_sep(w);
    vs_buf_puts(w->out, v ? "true" : "false");
}

void vs_jw_null(vs_jw *w)
{
    jw_sep(w);
    vs_buf_append(w->out, "null", 4);
}

void vs_jw_bytes(vs_jw *w, int known, uint64_t v)
{
    if (known)
        vs_jw_u64(w, v);
    else
        vs_jw_null(w);
}

void vs_jw_raw(vs_jw *w, const char *json, size_t len)
{
    jw_sep(w);
    vs_buf_append(w->out, json, len);
}

void vs_jw_str_again(vs_jw *w, size_t at, size_t len)
{
    vs_buf *b = w->out;
    jw_sep(w);
    if (b->failed || at > b->len || len > b->len - at) {
        b->failed = 1;
        return;
    }
    vs_buf_reserve(b, len + 2);
    if (b->failed)
        return;
    /* the room is reserved first: the copy's source is in the same buffer */
    b->data[b->len++] = '"';
    memcpy(b->data + b->len, b->data + at, len);
    b->len += len;
    b->data[b->len++] = '"';
    b->data[b->len] = '\0';
}

void vs_jw_value(vs_jw *w, const json_t *v)
{
    if (!v) {
        vs_jw_null(w);
        return;
    }
    jw_sep(w);
    if (json_is_string(v)) { /* most values written are the sheet's strings */
        if (vs_json_dump_string(json_string_value(v), json_string_length(v), w->out) < 0)
            w->out->failed = 1;
        return;
    }
    if (vs_json_dump(v, w->out) < 0)
        w->out->failed = 1;
}
