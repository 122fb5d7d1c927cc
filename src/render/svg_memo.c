/* svg_memo.c — the budget chart kept with what it was drawn from.
 *
 * `envelope` and `candidates` draw the same chart (render/envelope.c), and a
 * cell usually asks for both with nothing changed between them: the second
 * costs a comparison of the inputs instead of a drawing and an escaping.
 */
#include <stdlib.h>
#include <string.h>

#include "render/svg.h"
#include "util/json.h"

/* A text as the key holds it: 0 for none, else 1, the bytes and their NUL
 * (no text holds a NUL, so no two inputs write the same key). */
static void key_text(vs_buf *k, const char *s)
{
    if (!s) {
        vs_buf_putc(k, 0);
        return;
    }
    vs_buf_putc(k, 1);
    vs_buf_append(k, s, strlen(s) + 1);
}

static void key_u64(vs_buf *k, uint64_t v)
{
    vs_buf_append(k, (const char *)&v, sizeof v);
}

/* A held text by its address (the caller keeps it alive and unchanged while
 * the memo holds its key): a long reserve's names are not read again. */
static void key_ptr(vs_buf *k, const char *s)
{
    vs_buf_append(k, (const char *)&s, sizeof s);
}

static void key_write(vs_buf *k, const char *title, const vs_svg_segment *segs, size_t nsegs,
                      size_t held_from, const vs_svg_line *lines, size_t nlines)
{
    size_t i;
    vs_buf_reset(k);
    /* a held segment's key is 25 bytes, a text's at least 2 */
    vs_buf_reserve(k, 64 + nsegs * 25 + nlines * 24);
    key_text(k, title);
    key_u64(k, nsegs);
    key_u64(k, held_from);
    for (i = 0; i < nsegs; i++) {
        if (i < held_from) {
            key_text(k, segs[i].label);
            key_text(k, segs[i].status);
        } else {
            key_ptr(k, segs[i].label);
            key_ptr(k, segs[i].status);
        }
        vs_buf_putc(k, segs[i].known ? 1 : 0);
        key_u64(k, segs[i].bytes);
    }
    key_u64(k, nlines);
    for (i = 0; i < nlines; i++) {
        key_text(k, lines[i].label);
        key_u64(k, lines[i].bytes);
        key_text(k, lines[i].basis);
    }
}

const char *vs_svg_budget_memo(vs_svg_memo *m, const char *title, const vs_svg_segment *segs,
                               size_t nsegs, size_t held_from, const vs_svg_line *lines,
                               size_t nlines)
{
    vs_buf swap;
    char *svg;
    if (held_from > nsegs)
        held_from = nsegs;
    key_write(&m->scratch, title, segs, nsegs, held_from, lines, nlines);
    if (vs_buf_failed(&m->scratch)) {
        vs_buf_free(&m->scratch);
        return NULL;
    }
    if (m->svg && m->key.len == m->scratch.len && !memcmp(m->key.data, m->scratch.data, m->key.len))
        return m->svg;
    free(m->svg);
    m->svg = NULL;
    vs_buf_reset(&m->svg_json);
    swap = m->key;
    m->key = m->scratch;
    m->scratch = swap;
    if (!(svg = vs_svg_budget(title, segs, nsegs, lines, nlines)))
        return NULL;
    m->svg = svg;
    m->drawn++;
    return m->svg;
}

const vs_buf *vs_svg_memo_json(vs_svg_memo *m)
{
    if (!m->svg)
        return NULL;
    if (!m->svg_json.len) /* escaped when first asked for */
        vs_json_dump_string_lossy(m->svg, strlen(m->svg), &m->svg_json);
    if (vs_buf_failed(&m->svg_json)) {
        vs_buf_free(&m->svg_json);
        return NULL;
    }
    return &m->svg_json;
}

void vs_svg_memo_free(vs_svg_memo *m)
{
    if (!m->key.data && !m->scratch.data && !m->svg && !m->svg_json.data)
        return; /* most cells draw no chart */
    vs_buf_free(&m->key);
    vs_buf_free(&m->scratch);
    vs_buf_free(&m->svg_json);
    free(m->svg);
    m->svg = NULL;
}
