/* jscan.h — a small pull reader for strict JSON, for the model files' headers.
 *
 * A 30-shard checkpoint has about 2 MB of safetensors headers and index; built
 * as a jansson tree they take several times the 50 ms budget to read. This
 * reader walks the text once without building anything: the caller asks for
 * the value it expects (an object's next key, a string, an unsigned integer)
 * and skips the rest. It accepts exactly RFC 8259 JSON (UTF-8 checked, no
 * "\u0000", nesting at most VS_JSCAN_DEPTH deep); a failure stops the reader
 * and keeps the byte offset and what was expected. Pure: no I/O, no globals.
 */
#ifndef VS_MODEL_JSCAN_H
#define VS_MODEL_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#define VS_JSCAN_DEPTH 64

/* What a reader returns when it cannot go on. These are not VS_E* codes (their
 * values meet VS_ENOMEM's and VS_EVALUE's): a caller turns them into one,
 * naming its file, from nomem, error and error_at (model/safetensors.c's
 * not_json). The end of an object or an array is 0, never one of these. */
enum {
    VS_JSCAN_BAD = -1,      /* not JSON, or memory ran out (nomem set); the reader stops */
    VS_JSCAN_NOT_COUNT = -2 /* vs_jscan_uint: JSON, but not an integer that fits 64 bits */
};

typedef struct vs_jscan {
    const char *start, *p, *end;
    const char *error; /* NULL while the text is well-formed so far */
    size_t error_at;   /* byte offset of the error */
    char *str;         /* the last string read (decoded, NUL-terminated) */
    size_t str_len;
    size_t str_cap;
    int nomem;
} vs_jscan;

void vs_jscan_init(vs_jscan *s, const char *text, size_t len);
void vs_jscan_free(vs_jscan *s); /* the string buffer */

/* Opens an object ('{'). 0, or VS_JSCAN_BAD (error set). */
int vs_jscan_object(vs_jscan *s);
/* The next key of the object being read: 1 and s->str; 0 at its end ('}'
 * consumed); VS_JSCAN_BAD on error. first is 1 for the first call on this object. */
int vs_jscan_key(vs_jscan *s, int first);
/* Opens an array ('['). */
int vs_jscan_array(vs_jscan *s);
/* 1 when the array has a next element (',' consumed), 0 at its end (']'
 * consumed), VS_JSCAN_BAD on error. */
int vs_jscan_next(vs_jscan *s, int first);
/* A string into s->str. 0 or VS_JSCAN_BAD. */
int vs_jscan_string(vs_jscan *s);
/* A non-negative integer that fits 64 bits (no fraction, no exponent). 0,
 * VS_JSCAN_BAD when not JSON, VS_JSCAN_NOT_COUNT when JSON but not such an
 * integer (s->error set). */
int vs_jscan_uint(vs_jscan *s, uint64_t *out);
/* Any value, checked and skipped. 0 or VS_JSCAN_BAD. */
int vs_jscan_skip(vs_jscan *s);
/* Only whitespace left. 0 or VS_JSCAN_BAD. */
int vs_jscan_end(vs_jscan *s);
/* The next value's first character after whitespace ('\0' at the end). */
char vs_jscan_peek(vs_jscan *s);

#endif
