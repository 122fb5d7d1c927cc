#include "render/markdown.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sheet/derived.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/checked.h"
#include "util/json.h"

/* Text that came from a person or a file, written so that it reads as the
 * same characters and nothing else: no HTML (<img onerror=...>), no link or
 * image ([x](javascript:...)), no emphasis, code or heading it did not ask
 * for. HTML's < and & become entities; Markdown's punctuation is
 * backslash-escaped (CommonMark: any ASCII punctuation may be); a line
 * break becomes a space, so that text cannot start a block (a heading, a
 * list, a quote) of its own; what starts a block at the text's start is
 * escaped too. An underscore inside a word (kv_cache) starts no emphasis and
 * is kept as it is. A control character reads as U+FFFD. in_cell: a table
 * cell's pipes too. */
void vs_markdown_text(vs_buf *b, const char *s, int in_cell)
{
    const char *start = s, *first = s + strspn(s, " ");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (s == first && !in_cell && strchr("#-+=", c)) {
            vs_buf_putc(b, '\\'); /* a heading, a list item, a setext underline */
            vs_buf_putc(b, (char)c);
        } else if (c == '\n' || c == '\r') {
            vs_buf_putc(b, ' ');
        } else if (c == '<') {
            vs_buf_puts(b, "&lt;");
        } else if (c == '>') {
            vs_buf_puts(b, "&gt;");
        } else if (c == '&') {
            vs_buf_puts(b, "&amp;");
        } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
            vs_buf_puts(b, "\xef\xbf\xbd");
        } else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f) {
            vs_buf_puts(b, "\xef\xbf\xbd"); /* a C1 control (U+0080..U+009F) */
            s++;
        } else if (strchr("\\`*[]~", c) || (c == '|' && in_cell) ||
                   (c == '_' && (s == start || !isalnum((unsigned char)s[-1]) ||
                                 !isalnum((unsigned char)s[1])))) {
            vs_buf_putc(b, '\\');
            vs_buf_putc(b, (char)c);
        } else if ((c == '.' || c == ')') && !in_cell && s > first &&
                   strspn(first, "0123456789") == (size_t)(s - first) &&
                   (!s[1] || s[1] == ' ' || s[1] == '\t')) {
            vs_buf_putc(b, '\\'); /* "1. " at the start would be a numbered list */
            vs_buf_putc(b, (char)c);
        } else {
            vs_buf_putc(b, (char)c);
        }
    }
}

/* Text as a code span: shown verbatim (a code span's content is never HTML or
 * Markdown), between more backticks than any run inside it; line breaks and
 * control characters as in md_text. */
static void md_code(vs_buf *b, const char *s)
{
    size_t run = 0, longest = 0, n = strlen(s);
    const char *p;
    int pad;
    for (p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    pad = n && (s[0] == '`' || s[n - 1] == '`' || (s[0] == ' ' && s[n - 1] == ' '));
    vs_buf_fill(b, '`', longest + 1);
    if (pad)
        vs_buf_putc(b, ' ');
    for (p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n' || c == '\r')
            vs_buf_putc(b, ' ');
        else if ((c < 0x20 && c != '\t') || c == 0x7f)
            vs_buf_puts(b, "\xef\xbf\xbd");
        else if (c == 0xc2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] <= 0x9f && ++p)
            vs_buf_puts(b, "\xef\xbf\xbd");
        else
            vs_buf_putc(b, (char)c);
    }
    if (pad)
        vs_buf_putc(b, ' ');
    vs_buf_fill(b, '`', longest + 1);
}

/* A table cell. */
static void cell(vs_buf *b, const char *s)
{
    vs_buf_puts(b, " ");
    if (!s || !*s)
        vs_buf_puts(b, "—");
    else
        vs_markdown_text(b, s, 1);
    vs_buf_puts(b, " |");
}

static void row_start(vs_buf *b)
{
    vs_buf_puts(b, "|");
}
static void row_end(vs_buf *b)
{
    vs_buf_puts(b, "\n");
}

static void header(vs_buf *b, const char *const *cols, const char *align)
{
    size_t i;
    row_start(b);
    for (i = 0; cols[i]; i++)
        cell(b, cols[i]);
    row_end(b);
    vs_buf_puts(b, "|");
    for (i = 0; cols[i]; i++)
        vs_buf_puts(b, align && align[i] == 'r' ? " ---: |" : " --- |");
    vs_buf_puts(b, "\n");
}

/* Any JSON scalar as text (integers exact, strings as they are). */
static void scalar(char *out, size_t len, const json_t *v)
{
    if (!v || json_is_null(v))
        snprintf(out, len, "%s", "");
    else if (json_is_string(v))
        snprintf(out, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_true(v))
        snprintf(out, len, "%s", "yes");
    else if (json_is_false(v))
        snprintf(out, len, "%s", "no");
    else if (json_is_real(v))
        snprintf(out, len, "%.17g", json_real_value(v));
    else
        snprintf(out, len, "%s", "(structured)");
}

/* Three cells: exact bytes, GB, GiB; or unknown. */
static void bytes_cells(vs_buf *b, const json_t *v)
{
    char n[64], gb[96], gib[96];
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        cell(b, "unknown");
        cell(b, "unknown");
        cell(b, "unknown");
        return;
    }
    vs_units_grouped(n, sizeof n, (uint64_t)json_integer_value(v));
    vs_units_round(gb, sizeof gb - 3, (uint64_t)json_integer_value(v), VS_UNIT_GB, 2);
    vs_units_round(gib, sizeof gib - 4, (uint64_t)json_integer_value(v), VS_UNIT_GIB, 2);
    strcat(n, " B");
    strcat(gb, " GB");
    strcat(gib, " GiB");
    cell(b, n);
    cell(b, gb);
    cell(b, gib);
}

static void describe(char *out, size_t len, const json_t *v)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        vs_units_describe(out, len, (uint64_t)json_integer_value(v));
    else
        snprintf(out, len, "%s", "unknown");
}

static void card_section(vs_buf *b, const json_t *sheet)
{
    static const char *const keys[] = {
        "model",  "revision",    "params",     "params_source", "task",    "format", "bits",
        "length", "concurrency", "microbatch", "accumulation",  "quality", NULL};
    static const char *const labels[] = {"model",
                                         "revision",
                                         "parameters",
                                         "parameter count from",
                                         "task",
                                         "weight format",
                                         "bits per weight",
                                         "required length (tokens)",
                                         "concurrency (sequences)",
                                         "microbatch",
                                         "accumulation",
                                         "quality criterion",
                                         NULL};
    static const char *const cols[] = {"card", "value", NULL};
    const json_t *card = vs_sheet_card(sheet), *arch, *wf;
    char v[512];
    size_t i;
    vs_buf_puts(b, "## Workload card\n\n");
    header(b, cols, NULL);
    for (i = 0; keys[i]; i++) {
        const json_t *x = json_object_get(card, keys[i]);
        scalar(v, sizeof v, x);
        if (!strcmp(keys[i], "params") && json_is_integer(x) && json_integer_value(x) >= 0)
            vs_units_grouped(v, sizeof v, (uint64_t)json_integer_value(x));
        row_start(b);
        cell(b, labels[i]);
        cell(b, *v ? v : "not set");
        row_end(b);
    }
    arch = vs_sheet_card_field(card, VS_CK_ARCH);
    if (json_is_object(arch)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)arch, k, x)
        {
            char label[96];
            if (json_is_object(x) || json_is_array(x))
                continue;
            scalar(v, sizeof v, x);
            snprintf(label, sizeof label, "architecture: %s", k);
            row_start(b);
            cell(b, label);
            cell(b, *v ? v : "not set");
            row_end(b);
        }
    }
    {
        /* the runtime: its name and the keys as written (defaults are the engine's) */
        const json_t *eng = vs_sheet_card_field(card, VS_CK_ENGINE);
        const char *name = json_string_value(vs_sheet_engine_field(eng, VS_EK_NAME));
        if (name) {
            const char *k;
            json_t *x;
            vs_buf e = VS_BUF_INIT;
            vs_buf_puts(&e, name);
            json_object_foreach(vs_sheet_engine_field(eng, VS_EK_KEYS), k, x)
                vs_buf_printf(&e, " %s=%s", k, json_string_value(x) ? json_string_value(x) : "?");
            row_start(b);
            cell(b, "engine");
            cell(b, vs_buf_str(&e));
            row_end(b);
            vs_buf_free(&e);
        }
    }
    vs_buf_puts(b, "\n");
    wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    if (json_is_object(wf)) {
        describe(v, sizeof v, json_object_get(wf, "bytes"));
        vs_buf_puts(b, "Weights read from the files at ");
        md_code(b, vs_json_str_of(wf, "path") ? vs_json_str_of(wf, "path") : "?");
        vs_buf_printf(b, ": %s.\n\n", v);
    }
}

/* Weights only = params × bits / 8, rounded up to a whole byte; 0 when unknown. */
static int weights_bytes(const json_t *sheet, uint64_t *out, const char **basis)
{
    const json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    uint64_t params, bits, prod;
    if (json_is_object(wf) && json_is_integer(json_object_get(wf, "bytes")) &&
        json_integer_value(json_object_get(wf, "bytes")) >= 0) {
        *out = (uint64_t)json_integer_value(json_object_get(wf, "bytes"));
        *basis = "stored bytes of the weight files";
        return 1;
    }
    if (!vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params) ||
        !vs_sheet_card_uint(sheet, VS_CK_BITS, &bits) || vs_checked_mul(&prod, params, bits))
        return 0;
    *out = prod / 8 + (prod % 8 != 0);
    *basis = "params × bits / 8";
    return 1;
}

static void components_section(vs_buf *b, const json_t *sheet)
{
    static const char *const cols[] = {"component", "bytes",  "GB",    "GiB",
                                       "status",    "source", "phase", NULL};
    const json_t *arr = vs_sheet_array(sheet, VS_SK_COMPONENTS), *c;
    uint64_t known = 0, w;
    const char *basis = NULL;
    size_t i, unknown = 0;
    int overflow = 0, have_w;
    vs_buf_puts(b, "## Components\n\n");
    header(b, cols, "lrrrlll");
    have_w = weights_bytes(sheet, &w, &basis);
    row_start(b);
    cell(b, "weights");
    if (have_w) {
        json_t *wj = json_integer((json_int_t)w);
        bytes_cells(b, wj);
        json_decref(wj);
        cell(b, vs_vocab_status_name(VS_STATUS_ESTIMATED));
        cell(b, basis);
    } else {
        bytes_cells(b, NULL);
        cell(b, vs_vocab_status_name(VS_STATUS_UNKNOWN));
        cell(b, "needs params and format");
    }
    cell(b, "load");
    row_end(b);
    json_array_foreach(arr, i, c)
    {
        const json_t *bytes = vs_sheet_component_get(c, VS_COMPK_BYTES);
        row_start(b);
        cell(b, vs_sheet_component_str(c, VS_COMPK_NAME));
        bytes_cells(b, bytes);
        cell(b, vs_sheet_component_str(c, VS_COMPK_STATUS));
        cell(b, vs_sheet_component_str(c, VS_COMPK_SOURCE));
        cell(b, vs_sheet_component_str(c, VS_COMPK_PHASE));
        row_end(b);
        if (json_is_integer(bytes) && json_integer_value(bytes) >= 0) {
            if (vs_checked_add(&known, known, (uint64_t)json_integer_value(bytes)))
                overflow = 1;
        } else {
            unknown++;
        }
    }
    vs_buf_puts(b, "\n");
    if (!overflow) {
        char d[160];
        vs_units_describe(d, sizeof d, known);
        vs_buf_printf(b, "Declared reserve (known components): %s", d);
        if (have_w && !vs_checked_add(&known, known, w)) {
            vs_units_describe(d, sizeof d, known);
            vs_buf_printf(b, "; with the weights, indicative envelope: %s", d);
        }
        vs_buf_puts(b, ".");
    }
    if (unknown)
        vs_buf_printf(b, " %zu component%s unknown: the envelope is incomplete.", unknown,
                      unknown == 1 ? " is" : "s are");
    vs_buf_puts(b, " A sum of independent maxima is a conservative envelope, not an observed "
                   "peak.\n\n");
}

static void placement_section(vs_buf *b, const json_t *sheet)
{
    const json_t *p = vs_sheet_get(sheet, VS_SK_PLACEMENT);
    char gpus[32], stage[32];
    if (!json_is_object(p))
        return;
    scalar(gpus, sizeof gpus, json_object_get(p, "gpus"));
    scalar(stage, sizeof stage, json_object_get(p, "stage"));
    vs_buf_puts(b, "## Placement\n\n");
    vs_markdown_text(b, vs_json_str_of(p, "kind") ? vs_json_str_of(p, "kind") : "single", 0);
    vs_buf_printf(b, " on %s GPU%s%s", *gpus ? gpus : "1", strcmp(gpus, "1") ? "s" : "",
                  *stage ? ", stage " : "");
    vs_markdown_text(b, stage, 0);
    vs_buf_puts(b, ".\n\n");
}

static void stages_section(vs_buf *b, const json_t *sheet)
{
    static const char *const cols[] = {"stage",      "length", "concurrency",
                                       "microbatch", "note",   NULL};
    static const char *const keys[] = {"name", "length", "concurrency", "microbatch", "note", NULL};
    const json_t *arr = vs_sheet_array(sheet, VS_SK_STAGES), *s;
    size_t i, k;
    char v[256];
    vs_buf_puts(b, "## Procedure\n\n");
    if (!json_array_size(arr)) {
        vs_buf_puts(b, "No stages declared yet (short input and small batch, then the usual "
                       "input, then the required limit).\n\n");
        return;
    }
    header(b, cols, "lrrrl");
    json_array_foreach(arr, i, s)
    {
        row_start(b);
        for (k = 0; keys[k]; k++) {
            scalar(v, sizeof v, json_object_get(s, keys[k]));
            cell(b, v);
        }
        row_end(b);
    }
    vs_buf_puts(b, "\n");
}

static void dims_text(char *out, size_t len, const json_t *dims)
{
    const char *k;
    json_t *v;
    size_t n = 0;
    out[0] = '\0';
    if (!json_is_object(dims))
        return;
    json_object_foreach((json_t *)dims, k, v)
    {
        char s[64];
        scalar(s, sizeof s, v);
        n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s=%s", n ? " " : "", k, s);
        if (n >= len)
            break;
    }
}

static void measurements_section(vs_buf *b, const json_t *sheet)
{
    static const char *const cols[] = {"phase",          "stage", "GPU", "counter", "scope",
                                       "peak bytes",     "GB",    "GiB", "dims",    "state",
                                       "validates card", NULL};
    const json_t *arr = vs_sheet_array(sheet, VS_SK_MEASUREMENTS), *m, *runs;
    size_t i;
    char v[512];
    vs_buf_puts(b, "## Measurements\n\n");
    if (!json_array_size(arr)) {
        vs_buf_puts(b, "None yet.\n\n");
    } else {
        header(b, cols, "lllllrrrlll");
        json_array_foreach(arr, i, m)
        {
            char gpu[160], idx[32];
            row_start(b);
            cell(b, vs_json_str_of(m, "phase"));
            cell(b, vs_json_str_of(m, "stage"));
            scalar(idx, sizeof idx, json_object_get(m, "gpu"));
            snprintf(gpu, sizeof gpu, "%s%s%s", idx,
                     *idx && vs_json_str_of(m, "gpu_name") ? " " : "",
                     vs_json_str_of(m, "gpu_name") ? vs_json_str_of(m, "gpu_name") : "");
            cell(b, gpu);
            cell(b, vs_json_str_of(m, "counter"));
            cell(b, vs_json_str_of(m, "scope"));
            bytes_cells(b, json_object_get(m, "peak_bytes"));
            dims_text(v, sizeof v, json_object_get(m, "dims"));
            cell(b, v);
            cell(b, vs_json_str_of(m, "state") ? vs_json_str_of(m, "state") : "current");
            scalar(v, sizeof v, json_object_get(m, "validates_card"));
            cell(b, v);
            row_end(b);
        }
        vs_buf_puts(b, "\nAllocated and reserved counters are different scopes and are never "
                       "added; a device-wide reading covers more than the process.\n\n");
    }
    runs = vs_sheet_array(sheet, VS_SK_RUNS);
    json_array_foreach(runs, i, m)
    {
        char st[32];
        scalar(st, sizeof st, json_object_get(m, "exit_status"));
        vs_buf_puts(b, "- run ");
        vs_markdown_text(b, vs_json_str_of(m, "id") ? vs_json_str_of(m, "id") : "?", 0);
        vs_buf_puts(b, ": ");
        md_code(b, vs_json_str_of(m, "command") ? vs_json_str_of(m, "command") : "");
        vs_buf_printf(b, "%s%s%s", *st ? ", exit status " : "", st,
                      vs_json_str_of(m, "overflow_phase") ? ", out of memory in " : "");
        vs_markdown_text(
            b, vs_json_str_of(m, "overflow_phase") ? vs_json_str_of(m, "overflow_phase") : "", 0);
        vs_buf_puts(b, "\n");
    }
    if (json_array_size(runs))
        vs_buf_puts(b, "\n");
}

static void candidates_section(vs_buf *b, const json_t *sheet)
{
    static const char *const ocols[] = {"offer",  "nominal memory", "device-reported", "price",
                                        "period", "cards",          "available",       NULL};
    static const char *const ecols[] = {"candidate", "requirement", "verdict", "source",
                                        "version",   "scope",       NULL};
    const json_t *offers = vs_sheet_array(sheet, VS_SK_OFFERS),
                 *reqs = vs_sheet_array(sheet, VS_SK_REQUIREMENTS);
    const json_t *ev = vs_sheet_array(sheet, VS_SK_EVIDENCE), *o;
    size_t i;
    char v[256];
    vs_buf_puts(b, "## Candidates\n\n");
    if (!json_array_size(offers) && !json_array_size(reqs) && !json_array_size(ev)) {
        vs_buf_puts(b, "No offers yet.\n\n");
        return;
    }
    if (json_array_size(offers)) {
        header(b, ocols, "lrrrlrl");
        json_array_foreach(offers, i, o)
        {
            char price[128], cards[32];
            const json_t *mb = json_object_get(o, "memory_bytes");
            row_start(b);
            cell(b, vs_json_str_of(o, "name"));
            if (json_is_integer(mb) && json_integer_value(mb) >= 0) {
                vs_units_round(v, sizeof v - 4, (uint64_t)json_integer_value(mb), VS_UNIT_GB, 2);
                strcat(v, " GB");
            } else {
                snprintf(v, sizeof v, "%s", "unknown");
            }
            cell(b, v);
            describe(v, sizeof v, json_object_get(o, "reported_bytes"));
            if (!json_is_integer(json_object_get(o, "reported_bytes")))
                snprintf(v, sizeof v, "%s", "not known");
            cell(b, v);
            snprintf(price, sizeof price, "%s%s%s",
                     vs_json_str_of(o, "price") ? vs_json_str_of(o, "price") : "",
                     vs_json_str_of(o, "currency") ? " " : "",
                     vs_json_str_of(o, "currency") ? vs_json_str_of(o, "currency") : "");
            cell(b, price);
            cell(b, vs_json_str_of(o, "period"));
            scalar(cards, sizeof cards, json_object_get(o, "cards"));
            cell(b, cards);
            cell(b, vs_json_str_of(o, "available"));
            row_end(b);
        }
        vs_buf_puts(b, "\nA catalogue's nominal memory or declared stock proves neither a software "
                       "installation nor an availability period; prices rank no speed.\n\n");
    }
    if (json_array_size(reqs)) {
        vs_buf_puts(b, "Mandatory requirements declared (besides capacity, length, concurrency or "
                       "microbatch, available memory, software compatibility and quality):\n\n");
        json_array_foreach(reqs, i, o)
        {
            vs_buf_puts(b, "- ");
            vs_markdown_text(b, vs_json_str_of(o, "name") ? vs_json_str_of(o, "name") : "?", 0);
            vs_buf_puts(b, "\n");
        }
        vs_buf_puts(b, "\n");
    }
    if (json_array_size(ev)) {
        static const char *const keys[] = {"candidate", "requirement", "verdict", "source",
                                           "version",   "scope",       NULL};
        size_t k;
        header(b, ecols, NULL);
        json_array_foreach(ev, i, o)
        {
            vs_buf moved = VS_BUF_INIT;
            row_start(b);
            for (k = 0; keys[k]; k++) {
                if (!strcmp(keys[k], "verdict") && vs_derived_evidence_moved(sheet, o, &moved)) {
                    /* obtained under another card: it decides nothing now */
                    vs_buf cv = VS_BUF_INIT;
                    vs_buf_printf(&cv, "%s (no longer holds: %s)", vs_json_str_of(o, "verdict"),
                                  vs_buf_str(&moved));
                    cell(b, vs_buf_str(&cv));
                    vs_buf_free(&cv);
                } else {
                    cell(b, vs_json_str_of(o, keys[k]));
                }
            }
            vs_buf_free(&moved);
            row_end(b);
        }
        vs_buf_puts(b, "\n");
    }
}

/* What `launch` would start: each offer's command, as a code span. */
static void launch_section(vs_buf *b, const json_t *sheet)
{
    const json_t *arr = vs_sheet_get(sheet, VS_SK_LAUNCH), *l;
    size_t i;
    if (!json_array_size(arr))
        return;
    vs_buf_puts(b, "## Launch\n\n");
    json_array_foreach(arr, i, l)
    {
        const char *note = vs_json_str_of(l, "note");
        vs_buf_puts(b, "- ");
        vs_markdown_text(b, vs_json_str_of(l, "offer") ? vs_json_str_of(l, "offer") : "?", 0);
        vs_buf_puts(b, " (");
        vs_markdown_text(b, vs_json_str_of(l, "engine") ? vs_json_str_of(l, "engine") : "?", 0);
        vs_buf_puts(b, "): ");
        md_code(b, vs_json_str_of(l, "command") ? vs_json_str_of(l, "command") : "?");
        vs_buf_puts(b, "; flags of ");
        vs_markdown_text(b, vs_json_str_of(l, "release") ? vs_json_str_of(l, "release") : "?", 0);
        if (note) {
            vs_buf_puts(b, "; ");
            vs_markdown_text(b, note, 0);
        }
        vs_buf_puts(b, "\n");
    }
    vs_buf_puts(b, "\n");
}

static void tail_sections(vs_buf *b, const json_t *sheet)
{
    const json_t *arr, *x;
    const char *decision = vs_sheet_get_str(sheet, VS_SK_DECISION);
    size_t i;
    vs_buf_puts(b, "## Decision\n\n");
    vs_markdown_text(b, decision ? decision : "None yet.", 0);
    vs_buf_puts(b, "\n\n");
    vs_buf_puts(b, "## Invalidating conditions\n\n");
    arr = vs_sheet_array(sheet, VS_SK_INVALIDATE);
    if (!json_array_size(arr))
        vs_buf_puts(b, "None declared.\n");
    json_array_foreach(arr, i, x)
    {
        vs_buf_puts(b, "- ");
        vs_markdown_text(b, json_string_value(x) ? json_string_value(x) : "?", 0);
        vs_buf_puts(b, "\n");
    }
    vs_buf_puts(b, "\n");
    arr = vs_sheet_array(sheet, VS_SK_OOM);
    if (json_array_size(arr)) {
        vs_buf_puts(b, "## Overflows\n\n");
        json_array_foreach(arr, i, x)
        {
            vs_buf_puts(b, "- out of memory in ");
            vs_markdown_text(b, vs_json_str_of(x, "phase") ? vs_json_str_of(x, "phase") : "?", 0);
            vs_buf_puts(b, vs_json_str_of(x, "note") ? ": " : "");
            vs_markdown_text(b, vs_json_str_of(x, "note") ? vs_json_str_of(x, "note") : "", 0);
            vs_buf_puts(b, "\n");
        }
        vs_buf_puts(b, "\n");
    }
}

char *vs_markdown_sheet(const json_t *sheet)
{
    vs_buf b = VS_BUF_INIT;
    const json_t *lin = vs_sheet_get(sheet, VS_SK_LINEAGE);
    const char *title = vs_sheet_get_str(sheet, VS_SK_TITLE),
               *id = vs_sheet_get_str(sheet, VS_SK_ID);
    vs_buf_puts(&b, "# ");
    vs_markdown_text(&b, title ? title : id ? id : "untitled sheet", 0);
    vs_buf_puts(&b, "\n\nSizing sheet ");
    md_code(&b, id ? id : "?");
    vs_buf_puts(&b, " (");
    vs_markdown_text(&b,
                     vs_sheet_get_str(sheet, VS_SK_SCHEMA) ? vs_sheet_get_str(sheet, VS_SK_SCHEMA)
                                                           : VS_SHEET_SCHEMA,
                     0);
    vs_buf_puts(&b, "). The record is `sheet.json` beside this file; this page is rendered from "
                    "it.\n\n");
    if (json_is_object(lin)) {
        vs_buf_puts(&b, "Lineage: reproduced from sheet ");
        md_code(&b, vs_json_str_of(lin, "sheet") ? vs_json_str_of(lin, "sheet") : "?");
        vs_buf_puts(&b, " at commit ");
        md_code(&b, vs_json_str_of(lin, "commit") ? vs_json_str_of(lin, "commit") : "?");
        if (vs_json_str_of(lin, "title")) {
            vs_buf_puts(&b, " (\"");
            vs_markdown_text(&b, vs_json_str_of(lin, "title"), 0);
            vs_buf_puts(&b, "\")");
        }
        vs_buf_puts(&b, ".\n\n");
    }
    card_section(&b, sheet);
    components_section(&b, sheet);
    placement_section(&b, sheet);
    stages_section(&b, sheet);
    measurements_section(&b, sheet);
    candidates_section(&b, sheet);
    launch_section(&b, sheet);
    tail_sections(&b, sheet);
    while (b.len > 1 && b.data[b.len - 1] == '\n' && b.data[b.len - 2] == '\n')
        b.data[--b.len] = '\0';
    return vs_buf_take(&b);
}
