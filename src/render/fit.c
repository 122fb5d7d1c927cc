/* The `fit` and `engine` results: table, charts, payload. */
#include "render/fit.h"

#include <stdio.h>
#include <string.h>

#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

static const char *gib(char *out, size_t n, int64_t bytes)
{
    char t[40];
    if (bytes < 0) {
        vs_units_round(t, sizeof t, (uint64_t)(-bytes), VS_UNIT_GIB, 2);
        snprintf(out, n, "-%s GiB", t);
    } else {
        vs_units_round(t, sizeof t, (uint64_t)bytes, VS_UNIT_GIB, 2);
        snprintf(out, n, "%s GiB", t);
    }
    return out;
}

static const char *basis_words(const char *b)
{
    if (!b)
        return "unknown";
    if (!strcmp(b, "cuda"))
        return "CUDA total";
    if (!strcmp(b, "reported"))
        return "reported=";
    if (!strcmp(b, "device"))
        return "nvidia-smi total";
    if (!strcmp(b, "unified"))
        return "unified memory";
    return "nominal";
}

/* Pixels for v of scale over w pixels, clamped to the bar (and a little past it). */
static int px(uint64_t v, uint64_t scale, int w)
{
    double r = scale ? (double)v / (double)scale : 0;
    if (r > 1.07)
        r = 1.07;
    return (int)(r * w);
}

/* One small chart per offer: the budget as a bar, split into the non-KV part
 * and the KV pool, and a mark where the card's KV need ends. */
static void chart(vs_buf *s, const vs_fit_row *r, int y)
{
    /* 640 wide: the name to x0, the bar (and a need mark up to 1.07 of it), then
     * "pool 140.40 GiB, need 160.00 GiB" (33 characters of 10 px sans-serif,
     * under 0.6 em each: 198 px) from x0 + 1.07 w + 8 = 436 to 634 */
    const int x0 = 150, w = 260, h = 14;
    uint64_t scale = r->capacity_bytes ? r->capacity_bytes : 1;
    int wb = px(r->budget_bytes, scale, w);
    int wn = px(r->non_kv_bytes < r->budget_bytes ? r->non_kv_bytes : r->budget_bytes, scale, w);
    char a[64], b[64];
    vs_buf_printf(s, "<text x='4' y='%d' font-size='11'>", y + 11);
    vs_buf_put_html(s, r->gpu);
    vs_buf_puts(s, "</text>");
    vs_buf_printf(s,
                  "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>"
                  "<rect x='%d' y='%d' width='%d' height='%d' fill='#9aa7b8'/>"
                  "<rect x='%d' y='%d' width='%d' height='%d' fill='#7cc48a'/>",
                  x0, y, w, h, x0, y, wn, h, x0 + wn, y, wb > wn ? wb - wn : 0, h);
    if (r->need_known) {
        uint64_t end = r->non_kv_bytes + r->need_bytes;
        int wk = px(end < r->need_bytes ? UINT64_MAX : end, scale, w);
        vs_buf_printf(s, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2'/>",
                      x0 + wk, y - 2, x0 + wk, y + h + 2,
                      r->need_bytes > (r->kv_pool_bytes > 0 ? (uint64_t)r->kv_pool_bytes : 0)
                          ? "#c0392b"
                          : "#222");
    }
    vs_buf_printf(s, "<text x='%d' y='%d' font-size='10'>pool %s, need %s</text>",
                  x0 + w * 107 / 100 + 8, y + 11, gib(a, sizeof a, r->kv_pool_bytes),
                  r->need_known ? gib(b, sizeof b, (int64_t)r->need_bytes) : "?");
}

/* The launch column's word: a command on the GPU alone, one with an offload to
 * host memory, or none. */
static const char *launch_word(const json_t *l)
{
    const json_t *d;
    size_t i;
    if (!json_object_get(l, "command"))
        return "no";
    json_array_foreach(json_object_get(l, "devices"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "device")), "host"))
            return "offload";
    }
    return "yes";
}

/* Every command of the fit in one fold: a notebook shows the table and the
 * rules first, and a click opens the commands (`launch` records them). */
static void launch_html(vs_buf *html, const json_t *launches)
{
    const json_t *l;
    size_t i, ok = 0;
    json_array_foreach(launches, i, l) ok += json_object_get(l, "command") != NULL;
    vs_buf_printf(html, "<details><summary>launch: %zu command%s of %zu offer%s</summary>\n", ok,
                  ok == 1 ? "" : "s", json_array_size(launches),
                  json_array_size(launches) == 1 ? "" : "s");
    json_array_foreach(launches, i, l)
    {
        const char *cmd = json_string_value(json_object_get(l, "command")),
                   *note = json_string_value(json_object_get(l, "note")),
                   *why = json_string_value(json_object_get(l, "reason"));
        vs_buf_puts(html, "<p><b>");
        vs_buf_put_html(html, json_string_value(json_object_get(l, "offer")));
        vs_buf_puts(html, "</b>: ");
        if (cmd) {
            vs_buf_puts(html, "<code>");
            vs_buf_put_html(html, cmd);
            vs_buf_puts(html, "</code>");
            if (note) {
                vs_buf_puts(html, "<br>note: ");
                vs_buf_put_html(html, note);
            }
        } else {
            vs_buf_puts(html, "no command: ");
            vs_buf_put_html(html, why ? why : "");
        }
        vs_buf_puts(html, "</p>\n");
    }
    vs_buf_puts(html, "</details>\n");
}

static void payload(vs_buf *p, const vs_fit_ctx *c, const vs_fit_row *rows, size_t n,
                    const json_t *launches)
{
    vs_jw w = VS_JW_INIT(p);
    size_t i, j;
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "fit");
    vs_jw_member_str(&w, "engine", c->engine->name);
    vs_jw_member_str(&w, "layout_source", c->layout_source);
    vs_jw_key(&w, "rows");
    vs_jw_open(&w, '[');
    for (i = 0; i < n; i++) {
        const vs_fit_row *r = &rows[i];
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "gpu", r->gpu);
        vs_jw_member_bytes(&w, "capacity_bytes", r->capacity_known, r->capacity_bytes);
        vs_jw_member_str(&w, "capacity_basis", r->capacity_basis);
        vs_jw_member_str(&w, "capacity_note", r->capacity_note);
        vs_jw_member_bytes(&w, "budget_bytes", r->capacity_known, r->budget_bytes);
        vs_jw_member_bytes(&w, "non_kv_bytes", r->capacity_known, r->non_kv_bytes);
        vs_jw_key(&w, "kv_pool_bytes");
        if (r->capacity_known)
            vs_jw_i64(&w, r->kv_pool_bytes);
        else
            vs_jw_null(&w);
        vs_jw_member_bytes(&w, "kv_tokens", r->capacity_known, r->kv_tokens);
        vs_jw_member_bytes(&w, "blocks", r->blocks > 0, r->blocks);
        vs_jw_member_bytes(&w, "block_bytes", r->page_bytes > 0, r->page_bytes);
        vs_jw_member_bytes(&w, "kv_need_bytes", r->need_known, r->need_bytes);
        vs_jw_key(&w, "max_concurrency");
        if (r->capacity_known) {
            char d[64];
            snprintf(d, sizeof d, "%.17g", r->max_concurrency);
            if (!strpbrk(d, ".eEn"))
                strcat(d, ".0");
            vs_jw_raw(&w, d, strlen(d));
        } else {
            vs_jw_null(&w);
        }
        vs_jw_member_bytes(&w, "max_length", r->capacity_known, r->max_length);
        vs_jw_member_bytes(&w, "outside_budget_bytes", 1, r->outside_bytes);
        vs_jw_member_bool(&w, "upper_bound", r->upper_bound);
        vs_jw_member_value(&w, "unknown", r->unknown);
        vs_jw_member_str(&w, "verdict", vs_verdict_name(r->verdict));
        vs_jw_member_str(&w, "start", vs_verdict_name(r->start_verdict));
        vs_jw_member_str(&w, "concurrency", vs_verdict_name(r->concurrency_verdict));
        vs_jw_member_str(&w, "length", vs_verdict_name(r->length_verdict));
        vs_jw_member_str(&w, "note", r->note);
        vs_jw_member_str(&w, "budget_rule", r->budget_rule);
        vs_jw_member_str(&w, "kv_rule", r->kv_rule);
        vs_jw_member_str(&w, "kv_layout_note", r->layout_note[0] ? r->layout_note : NULL);
        vs_jw_member_u64(&w, "host_bytes", r->host_bytes);
        vs_jw_member_str(&w, "host_rule", r->host_rule[0] ? r->host_rule : NULL);
        if (r->ndevices) {
            /* each GPU on its own: an uneven split, mixed cards */
            vs_jw_member_str(&w, "devices_rule", r->devices_rule);
            vs_jw_key(&w, "devices");
            vs_jw_open(&w, '[');
            for (j = 0; j < r->ndevices; j++) {
                const vs_fit_device *d = &r->devices[j];
                vs_jw_open(&w, '{');
                vs_jw_member_u64(&w, "gpu", j);
                vs_jw_member_str(&w, "name", d->name[0] ? d->name : NULL);
                vs_jw_member_u64(&w, "capacity_bytes", d->capacity_bytes);
                vs_jw_member_u64(&w, "budget_bytes", d->budget_bytes);
                vs_jw_member_u64(&w, "share_bytes", d->share_bytes);
                vs_jw_key(&w, "kv_pool_bytes");
                vs_jw_i64(&w, d->kv_pool_bytes);
                vs_jw_member_bool(&w, "holds", d->holds);
                vs_jw_close(&w, '}');
            }
            vs_jw_close(&w, ']');
        }
        if (launches) {
            const json_t *l = json_array_get(launches, i);
            if (json_object_get(l, "command")) {
                vs_jw_member_value(&w, "launch", l);
            } else {
                vs_jw_key(&w, "launch");
                vs_jw_null(&w);
                vs_jw_member_str(&w, "launch_refused",
                                 json_string_value(json_object_get(l, "reason")));
            }
        }
        vs_jw_key(&w, "formats");
        vs_jw_open(&w, '[');
        for (j = 0; j < r->nformats; j++) {
            const vs_fit_format *f = &r->formats[j];
            char d[64];
            vs_jw_open(&w, '{');
            vs_jw_member_str(&w, "format", f->format);
            vs_jw_member_bytes(&w, "bits", f->bits_known, f->bits);
            vs_jw_member_bytes(&w, "weights_bytes", f->weights_known, f->weights_bytes);
            vs_jw_key(&w, "kv_pool_bytes");
            vs_jw_i64(&w, f->kv_pool_bytes);
            vs_jw_member_u64(&w, "kv_tokens", f->kv_tokens);
            vs_jw_key(&w, "max_concurrency");
            snprintf(d, sizeof d, "%.17g", f->max_concurrency);
            if (!strpbrk(d, ".eEn"))
                strcat(d, ".0");
            vs_jw_raw(&w, d, strlen(d));
            vs_jw_member_bool(&w, "fits", f->verdict != VS_VERDICT_EXCLUDE);
            vs_jw_member_str(&w, "verdict", vs_verdict_name(f->verdict));
            vs_jw_close(&w, '}');
        }
        vs_jw_close(&w, ']');
        vs_jw_close(&w, '}');
    }
    vs_jw_close(&w, ']');
    vs_jw_close(&w, '}');
}

vs_bundle *vs_render_fit(const vs_fit_ctx *c, const vs_fit_row *rows, size_t n,
                         const json_t *launches)
{
    static const char *const head[] = {"offer",     "capacity",  "budget",     "non-KV",  "KV pool",
                                       "KV tokens", "max conc.", "max length", "verdict", "launch"};
    vs_table *t = vs_table_new(launches ? 10 : 9, head);
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, svg = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_bundle *b = NULL;
    size_t i, j, col;
    int any_upper = 0;
    if (!t)
        return NULL;
    for (col = 1; col < 8; col++)
        vs_table_align_right(t, col);
    for (i = 0; i < n; i++) {
        const vs_fit_row *r = &rows[i];
        char cap[128], bud[64], nk[64], pool[64], tok[48], conc[48], len[48];
        const char *cells[10];
        if (r->capacity_known) {
            char g[64];
            snprintf(cap, sizeof cap, "%s (%s)", gib(g, sizeof g, (int64_t)r->capacity_bytes),
                     basis_words(r->capacity_basis));
            gib(bud, sizeof bud, (int64_t)r->budget_bytes);
            gib(nk, sizeof nk, (int64_t)r->non_kv_bytes);
            gib(pool, sizeof pool, r->kv_pool_bytes);
            vs_units_grouped(tok, sizeof tok, r->kv_tokens);
            snprintf(conc, sizeof conc, "%.2fx", r->max_concurrency);
            vs_units_grouped(len, sizeof len, r->max_length);
            if (r->upper_bound) {
                strcat(pool, " ≤");
                any_upper = 1;
            }
        } else {
            snprintf(cap, sizeof cap, "unknown");
            strcpy(bud, "?");
            strcpy(nk, "?");
            strcpy(pool, "?");
            strcpy(tok, "?");
            strcpy(conc, "?");
            strcpy(len, "?");
        }
        cells[0] = r->gpu;
        cells[1] = cap;
        cells[2] = bud;
        cells[3] = nk;
        cells[4] = pool;
        cells[5] = tok;
        cells[6] = conc;
        cells[7] = len;
        cells[8] = vs_verdict_name(r->verdict);
        cells[9] = launches ? launch_word(json_array_get(launches, i)) : NULL;
        vs_table_add_row(t, cells);
    }
    vs_buf_printf(&text, "fit under engine %s (%s)\n", c->engine->name,
                  c->layout_source ? c->layout_source : "KV layout unknown");
    vs_buf_printf(&html, "<div class='vramsheet-fit'><p>fit under engine <b>%s</b> (",
                  c->engine->name);
    vs_buf_put_html(&html, c->layout_source ? c->layout_source : "KV layout unknown");
    vs_buf_puts(&html, ")</p>\n");
    vs_table_text(t, &text);
    vs_table_html(t, &html);
    for (i = 0; i < n; i++) {
        const vs_fit_row *r = &rows[i];
        vs_buf_printf(&text, "%s: %s\n  budget: %s\n  KV: %s\n", r->gpu, r->note, r->budget_rule,
                      r->kv_rule);
        vs_buf_puts(&html, "<p><b>");
        vs_buf_put_html(&html, r->gpu);
        vs_buf_puts(&html, "</b>: ");
        vs_buf_put_html(&html, r->note);
        vs_buf_puts(&html, "<br>budget: ");
        vs_buf_put_html(&html, r->budget_rule);
        vs_buf_puts(&html, "<br>KV: ");
        vs_buf_put_html(&html, r->kv_rule);
        if (r->layout_note[0]) {
            vs_buf_printf(&text, "  layout: %s\n", r->layout_note);
            vs_buf_puts(&html, "<br>layout: ");
            vs_buf_put_html(&html, r->layout_note);
        }
        /* a capacity on a unified-memory basis says its rule and source */
        if (strstr(r->capacity_note, "unified memory")) {
            vs_buf_printf(&text, "  capacity: %s\n", r->capacity_note);
            vs_buf_puts(&html, "<br>capacity: ");
            vs_buf_put_html(&html, r->capacity_note);
        }
        if (r->host_rule[0]) {
            vs_buf_printf(&text, "  host: %s\n", r->host_rule);
            vs_buf_puts(&html, "<br>host: ");
            vs_buf_put_html(&html, r->host_rule);
        }
        if (r->ndevices) {
            vs_buf dv = VS_BUF_INIT;
            vs_buf_printf(&dv, "%s:", r->devices_rule);
            for (j = 0; j < r->ndevices; j++) {
                const vs_fit_device *d = &r->devices[j];
                char sh[64], bu[64], kp[64];
                gib(sh, sizeof sh, (int64_t)d->share_bytes);
                gib(bu, sizeof bu, (int64_t)d->budget_bytes);
                gib(kp, sizeof kp, d->kv_pool_bytes);
                vs_buf_printf(&dv, "%s GPU %zu%s%s%s %s of %s, KV pool %s%s", j ? "," : "", j,
                              d->name[0] ? " (" : "", d->name, d->name[0] ? ")" : "", sh, bu, kp,
                              d->holds ? "" : " (does not hold)");
            }
            vs_buf_printf(&text, "  devices: %s\n", vs_buf_str(&dv));
            vs_buf_puts(&html, "<br>devices: ");
            vs_buf_put_html(&html, vs_buf_str(&dv));
            if (vs_buf_failed(&dv))
                text.failed = 1; /* no bundle below: out of memory */
            vs_buf_free(&dv);
        }
        if (launches) {
            const json_t *l = json_array_get(launches, i);
            const char *cmd = json_string_value(json_object_get(l, "command"));
            if (cmd)
                vs_buf_printf(&text, "  launch: %s\n", cmd);
            else
                vs_buf_printf(&text, "  launch: none: %s\n",
                              json_string_value(json_object_get(l, "reason")));
        }
        vs_buf_puts(&html, "</p>\n");
        if (r->nformats) {
            vs_buf_puts(&text, "  formats:");
            vs_buf_puts(&html, "<p>formats:");
            for (j = 0; j < r->nformats; j++) {
                const vs_fit_format *f = &r->formats[j];
                char pl[64];
                vs_buf_printf(&text, " %s %s (pool %s, %.2fx)", f->format,
                              f->verdict == VS_VERDICT_EXCLUDE ? "no" : "fits",
                              gib(pl, sizeof pl, f->kv_pool_bytes), f->max_concurrency);
                vs_buf_printf(&html, " <code>%s</code> %s (pool %s, %.2fx)", f->format,
                              f->verdict == VS_VERDICT_EXCLUDE ? "no" : "fits", pl,
                              f->max_concurrency);
            }
            vs_buf_puts(&text, "\n");
            vs_buf_puts(&html, "</p>\n");
        }
    }
    if (any_upper) {
        const vs_fit_row *r = &rows[0];
        vs_buf_puts(&text, "≤: an upper bound; unknown: ");
        vs_buf_puts(&html, "<p>≤: an upper bound; unknown: ");
        for (j = 0; j < json_array_size(r->unknown); j++) {
            const char *u = json_string_value(json_array_get(r->unknown, j));
            vs_buf_printf(&text, "%s%s", j ? ", " : "", u);
            vs_buf_puts(&html, j ? ", " : "");
            vs_buf_put_html(&html, u);
        }
        vs_buf_puts(&text, "\n");
        vs_buf_puts(&html, "</p>\n");
    }
    if (launches && n)
        launch_html(&html, launches);
    vs_buf_puts(&html, "</div>\n");
    vs_buf_printf(&svg,
                  "<svg xmlns='http://www.w3.org/2000/svg' width='640' height='%d' "
                  "viewBox='0 0 640 %d' font-family='sans-serif'>",
                  (int)(n * 24 + 8), (int)(n * 24 + 8));
    for (i = 0; i < n; i++)
        if (rows[i].capacity_known)
            chart(&svg, &rows[i], (int)(i * 24 + 4));
    vs_buf_puts(&svg, "</svg>");
    payload(&p, c, rows, n, launches);
    if (!vs_table_failed(t) && !vs_buf_failed(&text) && !vs_buf_failed(&html) &&
        !vs_buf_failed(&svg) && !vs_buf_failed(&p))
        b = vs_bundle_new_text(vs_buf_str(&text), vs_buf_str(&html), n ? vs_buf_str(&svg) : NULL,
                               vs_buf_str(&p), p.len);
    vs_table_free(t);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&svg);
    vs_buf_free(&p);
    return b;
}

static void key_value(char *out, size_t n, const vs_engine_key *k, const vs_engine_val *v)
{
    if (!v->set) {
        snprintf(out, n, "-");
        return;
    }
    switch (k->kind) {
    case VS_EKEY_FRACTION:
        snprintf(out, n, "%.6g", (double)v->u / 1e6);
        break;
    case VS_EKEY_BOOL:
        snprintf(out, n, "%s", v->u ? "yes" : "no");
        break;
    case VS_EKEY_WORD:
        snprintf(out, n, "%s", v->word);
        break;
    case VS_EKEY_BYTES:
        vs_units_describe(out, n, v->u);
        break;
    default:
        vs_units_grouped(out, n, v->u);
    }
}

/* The engine's rules as the page shows them: the first line, then one list item
 * per indented line (a `name = rule` line keeps its words whole, where a <pre>
 * would wrap a source path in the middle), then the lines after. */
static void engine_help_html(vs_buf *html, const char *help)
{
    const char *p = help;
    int in_list = 0;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        int item = n >= 2 && p[0] == ' ' && p[1] == ' ';
        const char *q = p;
        size_t m = n;
        while (m && *q == ' ') {
            q++;
            m--;
        }
        if (m >= sizeof line)
            m = sizeof line - 1;
        memcpy(line, q, m);
        line[m] = '\0';
        if (item && !in_list) {
            vs_buf_puts(html, "<ul>");
            in_list = 1;
        } else if (!item && in_list) {
            vs_buf_puts(html, "</ul>\n");
            in_list = 0;
        }
        if (m) {
            vs_buf_puts(html, item ? "<li>" : "<p>");
            vs_buf_put_html(html, line);
            vs_buf_puts(html, item ? "</li>" : "</p>\n");
        }
        p = nl ? nl + 1 : NULL;
    }
    if (in_list)
        vs_buf_puts(html, "</ul>\n");
}

vs_bundle *vs_render_engine(const vs_fit_ctx *c, const json_t *keys_written, const char *notes)
{
    static const char *const head[] = {"key", "value", "from"};
    const vs_engine *e = c->engine;
    vs_table *t = vs_table_new(3, head);
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&p);
    vs_bundle *b = NULL;
    int i;
    if (!t)
        return NULL;
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "engine");
    vs_jw_member_str(&w, "name", e->name);
    vs_jw_key(&w, "keys_written");
    if (keys_written)
        vs_jw_value(&w, keys_written);
    else
        vs_jw_raw(&w, "{}", 2);
    vs_jw_key(&w, "keys");
    vs_jw_open(&w, '[');
    for (i = 0; e->keys[i].name; i++) {
        const vs_engine_key *k = &e->keys[i];
        const vs_engine_val *v = &c->env.val[i];
        char val[96], from[400];
        const char *cells[3];
        key_value(val, sizeof val, k, v);
        if (v->given)
            snprintf(from, sizeof from, "written on the engine line");
        else if (k->def)
            snprintf(from, sizeof from, "default: %s", k->source);
        else
            snprintf(from, sizeof from, "%s", k->source);
        if (!v->set && !k->def) {
            /* values from the card */
            if (!strcmp(k->source, "the card's length") && c->env.length_known)
                vs_units_grouped(val, sizeof val, c->env.length);
            else if (!strcmp(k->source, "the card's concurrency") && c->env.concurrency_known)
                vs_units_grouped(val, sizeof val, c->env.concurrency);
        }
        cells[0] = k->name;
        cells[1] = val;
        cells[2] = from;
        vs_table_add_row(t, cells);
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "name", k->name);
        vs_jw_member_str(&w, "value", val);
        vs_jw_member_bool(&w, "given", v->given);
        vs_jw_member_str(&w, "default", k->def);
        vs_jw_member_str(&w, "source", k->source);
        vs_jw_member_str(&w, "help", k->help);
        vs_jw_close(&w, '}');
    }
    vs_jw_close(&w, ']');
    vs_jw_key(&w, "runtime_items");
    vs_jw_open(&w, '[');
    vs_buf_printf(&text, "engine %s: %s\n", e->name, e->summary);
    vs_buf_printf(&html, "<div class='vramsheet-engine'><p>engine <b>%s</b>: ", e->name);
    vs_buf_put_html(&html, e->summary);
    vs_buf_puts(&html, "</p>\n");
    vs_table_text(t, &text);
    vs_table_html(t, &html);
    vs_buf_printf(&text, "%s\n", e->help);
    /* the rules, with their sources, folded: a notebook shows the keys and the
     * figures first, and a click opens the rules (`help engine` has them too) */
    vs_buf_puts(&html, "<details><summary>the engine's rules, with their sources</summary>\n");
    engine_help_html(&html, e->help);
    vs_buf_puts(&html, "</details>\n");
    for (i = 0; i < VS_RT_COUNT; i++) {
        const char *nm = vs_runtime_item_name((vs_runtime_item)i);
        char d[96];
        if (!(vs_engine_items(&c->env) & VS_RT_BIT(i)) ||
            !vs_engine_item_applies((vs_runtime_item)i, c->env.encoder))
            continue;
        if (c->env.item_known[i])
            vs_units_describe(d, sizeof d, c->env.item_bytes[i]);
        else
            snprintf(d, sizeof d, "unknown");
        vs_buf_printf(&text, "runtime item %s: %s\n", nm, d);
        vs_buf_printf(&html, "<p>runtime item <code>%s</code>: ", nm);
        vs_buf_put_html(&html, d);
        vs_buf_puts(&html, "</p>\n");
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "name", nm);
        vs_jw_member_bytes(&w, "bytes", c->env.item_known[i], c->env.item_bytes[i]);
        vs_jw_close(&w, '}');
    }
    vs_jw_close(&w, ']');
    if (notes && notes[0]) {
        vs_buf_printf(&text, "%s\n", notes);
        vs_buf_puts(&html, "<p>");
        vs_buf_put_html(&html, notes);
        vs_buf_puts(&html, "</p>\n");
    }
    vs_jw_member_str(&w, "notes", notes && notes[0] ? notes : NULL);
    vs_jw_close(&w, '}');
    vs_buf_puts(&html, "</div>\n");
    if (!vs_table_failed(t) && !vs_buf_failed(&text) && !vs_buf_failed(&html) && !vs_buf_failed(&p))
        b = vs_bundle_new_text(vs_buf_str(&text), vs_buf_str(&html), NULL, vs_buf_str(&p), p.len);
    vs_table_free(t);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&p);
    return b;
}
