/* json.h — jansson helpers for the paths every result takes.
 *
 * A cell of a few hundred lines makes a few hundred MIME bundles of a few
 * hundred KB in all, copies the session's sheets once (atomic cells), and the
 * kernel serialises every bundle. jansson's generic routines for these are
 * slow in ways that dominated a cell: json_dumps detects cycles with a hash
 * table keyed by printed pointers and walks strings one code point at a time;
 * json_deep_copy does the same cycle tracking and copies every string;
 * json_string checks UTF-8 one code point at a time. The routines here do the
 * same jobs for the trees this project builds (no cycles) with the same
 * results. Pure: no I/O, no globals.
 *
 * Scalars are shared, never mutated: nothing in vramsheet calls
 * json_string_set, json_integer_set or json_real_set, so a string or number
 * may be referenced from several trees (a sheet and its snapshot, a sheet and
 * a payload). Keep it that way, or stop using vs_json_copy.
 */
#ifndef VS_UTIL_JSON_H
#define VS_UTIL_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/buf.h"

/* jansson's json_array_foreach, with array evaluated once: jansson's macro
 * evaluates it on every turn, so `json_array_foreach(vs_sheet_array(sheet,
 * "offers"), i, o)` hashed a key per element (a third of classifying 300
 * pieces of evidence). break and continue work as in any for loop. */
#define vs_json_array_foreach(array, index, value)                                                 \
    vs_json_array_foreach_(array, index, value, VS_JSON_CAT_(vs_arr_, __LINE__),                   \
                           VS_JSON_CAT_(vs_once_, __LINE__))
/* (the loop's own variables are named after the line, so nested loops do not
 * shadow each other) */
#define VS_JSON_CAT_(a, b) VS_JSON_CAT2_(a, b)
#define VS_JSON_CAT2_(a, b) a##b
#define vs_json_array_foreach_(array, index, value, arr, once)                                     \
    for (json_t *arr = (json_t *)(array), *once = arr; once; once = NULL)                          \
        for ((index) = 0;                                                                          \
             (index) < json_array_size(arr) && ((value) = json_array_get(arr, (index)));           \
             (index)++)

/* A new JSON string of s[0..len), or NULL when s is not valid UTF-8 or memory
 * is short. One pass over the bytes instead of jansson's two. */
json_t *vs_json_stringn(const char *s, size_t len);

/* The string at key of object o, or NULL (no object, no such key, not a string). */
const char *vs_json_str_of(const json_t *o, const char *key);

/* A new tree equal to v: objects (keys in the same order) and arrays are
 * copied, strings, numbers, true, false and null are shared (their reference
 * count goes up). NULL when v is NULL or memory is short. */
json_t *vs_json_copy(json_t *v);

/* A new object of the given key, value pairs, in order, ending with a NULL
 * key: vs_json_object_of("kind", json_string_nocheck("convert"), "bytes",
 * json_integer(n), NULL). Keys are ASCII literals (not checked); values are
 * taken. NULL when a value is NULL or memory is short; every value is
 * released then. For hot paths, where json_pack parsing its format string
 * for every result showed. */
json_t *vs_json_object_of(const char *key, ...) __attribute__((sentinel));

/* Appends s[0..len) as a JSON string literal, quotes included, escaped as
 * json_dumps escapes it (\" \\ \b \f \n \r \t, other control bytes as
 * \u00XX). Returns 0, or -1 when s is not valid UTF-8 or an append failed. */
int vs_json_dump_string(const char *s, size_t len, vs_buf *out);

/* Appends the compact JSON text of v to out: byte for byte what
 * json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) writes. Returns 0, or -1 when
 * a string is not valid UTF-8 (jansson's json_dumps fails there too) or an
 * append failed; out keeps what was written before. */
int vs_json_dump(const json_t *v, vs_buf *out);
/* vs_json_dump of v, then v released: a payload built as a tree becomes the
 * text a result carries. When v is NULL (memory was short building it) or
 * cannot be written, out is marked failed and -1 returned. */
int vs_json_dump_take(json_t *v_take, vs_buf *out);

/* Writing JSON text straight into a buffer, for results built on hot paths:
 * no tree, no hashing, no second pass to serialise. Each call writes the
 * comma its position needs, so a payload reads as the object it writes:
 *
 *     vs_jw w = VS_JW_INIT(&buf);
 *     vs_jw_open(&w, '{');
 *     vs_jw_key(&w, "name");  vs_jw_str(&w, name);
 *     vs_jw_key(&w, "bytes"); vs_jw_u64(&w, n);
 *     vs_jw_close(&w, '}');
 *
 * Keys are ASCII literals without escapes (not checked). Strings are escaped
 * as vs_json_dump_string escapes them; bytes that are not UTF-8 (a snprintf
 * that cut a character) are written as U+FFFD rather than failing the result.
 * Errors are the buffer's: check vs_buf_failed once at the end. */
typedef struct vs_jw {
    vs_buf *out;
    int comma; /* the next key or array element needs a ',' first */
} vs_jw;
#define VS_JW_INIT(buf)                                                                            \
    {                                                                                              \
        (buf), 0                                                                                   \
    }

void vs_jw_open(vs_jw *w, char bracket);  /* '{' or '[' */
void vs_jw_close(vs_jw *w, char bracket); /* '}' or ']' */
/* Inline, as vs_jw_key: a payload writes a key per field, and a literal's
 * length and copy are then settled when compiling. */
static inline void vs_jw_keyn(vs_jw *w, const char *key, size_t len)
{
    vs_buf *b = w->out;
    char *p;
    if (b->cap - b->len <= len + 5 || b->failed) {
        vs_buf_reserve(b, len + 5);
        if (b->failed)
            return;
    }
    p = b->data + b->len;
    if (w->comma)
        *p++ = ',';
    *p++ = '"';
    memcpy(p, key, len);
    p += len;
    *p++ = '"';
    *p++ = ':';
    *p = '\0';
    b->len = (size_t)(p - b->data);
    w->comma = 0; /* the value follows without one */
}
static inline void vs_jw_key(vs_jw *w, const char *key)
{
    vs_jw_keyn(w, key, strlen(key));
}
/* A string, or null for NULL. */
void vs_jw_str(vs_jw *w, const char *s);
void vs_jw_strn(vs_jw *w, const char *s, size_t len);
void vs_jw_u64(vs_jw *w, uint64_t v);
void vs_jw_i64(vs_jw *w, int64_t v);
void vs_jw_bool(vs_jw *w, int v);
void vs_jw_null(vs_jw *w);
/* v when known, else null: the shape of every amount in a payload. */
void vs_jw_bytes(vs_jw *w, int known, uint64_t v);
/* Any jansson value, as vs_json_dump writes it (null for NULL); marks the
 * buffer failed when a string in it is not valid UTF-8. */
void vs_jw_value(vs_jw *w, const json_t *v);
/* A value already written as JSON text (by another vs_jw, not checked). */
void vs_jw_raw(vs_jw *w, const char *json, size_t len);
/* A string whose escape (without its quotes) is already in w's buffer, the
 * len bytes at offset at (as vs_json_escape_lossy wrote them), written again
 * as a string: a result that repeats its headline in its payload copies it
 * rather than escaping it twice. Marks the buffer failed when the span is
 * not inside it. */
void vs_jw_str_again(vs_jw *w, size_t at, size_t len);

/* A member of the object w has open, key then value, in one call: payloads
 * are mostly such pairs. */
static inline void vs_jw_member_str(vs_jw *w, const char *key, const char *s)
{
    vs_jw_key(w, key);
    vs_jw_str(w, s);
}
static inline void vs_jw_member_u64(vs_jw *w, const char *key, uint64_t v)
{
    vs_jw_key(w, key);
    vs_jw_u64(w, v);
}
static inline void vs_jw_member_bool(vs_jw *w, const char *key, int v)
{
    vs_jw_key(w, key);
    vs_jw_bool(w, v);
}
static inline void vs_jw_member_bytes(vs_jw *w, const char *key, int known, uint64_t v)
{
    vs_jw_key(w, key);
    vs_jw_bytes(w, known, v);
}
static inline void vs_jw_member_value(vs_jw *w, const char *key, const json_t *v)
{
    vs_jw_key(w, key);
    vs_jw_value(w, v);
}

/* Appends s[0..len) as a JSON string literal like vs_json_dump_string, but
 * never fails on encoding: each byte that does not start a valid UTF-8
 * sequence is written as U+FFFD. */
void vs_json_dump_string_lossy(const char *s, size_t len, vs_buf *out);
/* The same without the quotes: the escape of a piece of a longer string.
 * Escaping is a byte at a time (a repaired byte too), so the pieces of a
 * string escaped one after another are the escape of the whole, as long as
 * no UTF-8 sequence is cut between two pieces. */
void vs_json_escape_lossy(const char *s, size_t len, vs_buf *out);

#endif
