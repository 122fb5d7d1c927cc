#include "render/gpu.h"

#include <stdio.h>
#include <string.h>

#include "render/bundle.h"
#include "render/candidates.h"
#include "render/result.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/json.h"

/* Adds "<li>text</li>" to html and "  - text" to text. */
static void bullet(vs_buf *text, vs_buf *html, const char *s)
{
    vs_buf_append(text, "  - ", 4);
    vs_buf_puts(text, s);
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "<li>");
    vs_buf_put_html(html, s);
    vs_buf_puts(html, "</li>\n");
}

/* A paragraph: the line in text, <p>line</p> in html. */
static void para(vs_buf *text, vs_buf *html, const char *s)
{
    vs_buf_puts(text, s);
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, s);
    vs_buf_puts(html, "</p>\n");
}

static const char *flag_text(int known, int f)
{
    return !known ? "unknown" : f ? "yes" : "no";
}

static void describe_line(vs_buf *text, vs_buf *html, const char *label, const char *value)
{
    /* "  %-22s %s\n" written whole: a width sends vs_buf_printf to vsnprintf,
     * which copies the strings a byte at a time (printf pads bytes, as here) */
    size_t n = strlen(label);
    vs_buf_puts(text, "  ");
    vs_buf_append(text, label, n);
    vs_buf_fill(text, ' ', (n < 22 ? 22 - n : 0) + 1);
    vs_buf_puts(text, value);
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "<tr><th style='text-align:left'>");
    vs_buf_put_html(html, label);
    vs_buf_puts(html, "</th><td style='text-align:left'>");
    vs_buf_put_html(html, value);
    vs_buf_puts(html, "</td></tr>\n");
}

/* ------------------------------------------------------------------- gpu */

static void offer_text(vs_buf *text, vs_buf *html, const vs_gpu_offer_facts *f, const json_t *notes)
{
    vs_buf nb = VS_BUF_INIT;
    char d[160];
    size_t i;
    json_t *o;
    vs_buf_printf(text, "GPU offer: %s%s%s%s\n", f->name, f->spec ? " (catalogue: " : "",
                  f->spec ? f->spec->name : "", f->spec ? ")" : "");
    vs_buf_puts(html, "<p>GPU offer: <b>");
    vs_buf_put_html(html, f->name);
    vs_buf_puts(html, "</b></p>\n<table class='vramsheet'>\n<tbody>\n");
    if (f->memory_known) {
        vs_units_describe(d, sizeof d, f->memory_bytes);
        vs_buf_printf(&nb, "%s (as marketed)", d);
    } else {
        vs_buf_puts(&nb, "unknown");
    }
    describe_line(text, html, "nominal memory", vs_buf_str(&nb));
    vs_buf_reset(&nb);
    if (f->reported_known) {
        vs_units_describe(d, sizeof d, f->reported_bytes);
        vs_buf_printf(&nb, "%s (device-reported total; %s)", d,
                      f->reported_basis ? f->reported_basis : "");
    } else {
        vs_buf_puts(&nb, "unknown");
    }
    describe_line(text, html, "reported total", vs_buf_str(&nb));
    vs_buf_reset(&nb);
    describe_line(text, html, "capacity check on",
                  f->reported_known ? "the device-reported total"
                  : f->memory_known ? "the nominal memory (no device-reported total known)"
                                    : "nothing yet: give memory= or reported=");
    if (f->price)
        vs_buf_printf(&nb, "%s %s", f->price, f->currency ? f->currency : "");
    else
        vs_buf_puts(&nb, "no price");
    if (f->period)
        vs_buf_printf(&nb, " for %s", f->period);
    vs_buf_printf(&nb, ", %llu card%s (the total cost of the package, not a speed)",
                  (unsigned long long)f->cards, f->cards == 1 ? "" : "s");
    describe_line(text, html, "package", vs_buf_str(&nb));
    vs_buf_reset(&nb);
    describe_line(text, html, "available", f->available ? f->available : "not documented");
    if (f->interconnect)
        describe_line(text, html, "interconnect", f->interconnect);
    if (f->spec) {
        vs_buf_printf(&nb, "%s %s, %s %s (catalogue)", vs_vocab_format_name(VS_FORMAT_BF16),
                      flag_text(f->spec->bf16_known, f->spec->bf16),
                      vs_vocab_format_name(VS_FORMAT_FP8),
                      flag_text(f->spec->fp8_known, f->spec->fp8));
        describe_line(text, html, "formats", vs_buf_str(&nb));
        vs_buf_reset(&nb);
    }
    vs_buf_puts(html, "</tbody>\n</table>\n<ul>\n");
    json_array_foreach(notes, i, o) bullet(text, html, json_string_value(o));
    vs_buf_puts(html, "</ul>\n");
    if (vs_buf_failed(&nb))
        text->failed = 1;
    vs_buf_free(&nb);
}

/* ------------------------------------------------------------------ gpus */

/* What the `gpus` table cannot say in a cell: where totals are unknown, and
 * which CUDA totals (what vLLM budgets from) the catalogue knows. */
void vs_render_gpu_note_uncatalogued(vs_buf *note, const char *why)
{
    vs_buf_printf(note, "not in the catalogue (%s); its memory is as declared", why);
}

void vs_render_gpu_note_nominal_differs(vs_buf *note, const char *catalog)
{
    vs_buf_printf(note,
                  "memory= differs from the catalogue's %s nominal figure, so its "
                  "device-reported total is not used",
                  catalog);
}

void vs_render_gpu_note_format_unsupported(vs_buf *note, const char *format, const char *catalog)
{
    vs_buf_printf(note,
                  "the card's format is %s and the catalogue gives %s no %s "
                  "support: compatibility needs evidence",
                  format, catalog, format);
}

void vs_render_gpu_note_proves_nothing(vs_buf *note)
{
    vs_buf_puts(note, "a catalogue figure or a declared stock proves neither a software "
                      "installation, nor free memory, nor an availability period");
}

static void catalogue_notes(vs_buf *text, vs_buf *html, const vs_buf *unsourced, const vs_buf *cuda)
{
    vs_buf b = VS_BUF_INIT;
    vs_buf_puts(&b, "The reported total is one nvidia-smi capture and depends on the ECC state; "
                    "free memory is less (driver, CUDA context, other processes).");
    vs_buf_printf(text, "\n%s\n", vs_buf_str(&b));
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, vs_buf_str(&b));
    vs_buf_puts(html, "</p>\n<ul>\n");
    vs_buf_reset(&b);
    if (unsourced->len) {
        vs_buf_printf(&b,
                      "Device-reported total unknown (no public capture found): %s. Their "
                      "capacity check is on the nominal memory until you give reported= (the "
                      "card's own nvidia-smi memory.total, or amd-smi's VRAM total).",
                      vs_buf_str(unsourced));
        bullet(text, html, vs_buf_str(&b));
        vs_buf_reset(&b);
    }
    if (cuda->len)
        vs_buf_printf(&b, "CUDA totals (cudaMemGetInfo, what vLLM budgets from): %s.",
                      vs_buf_str(cuda));
    else
        vs_buf_puts(&b, "CUDA totals (cudaMemGetInfo, what vLLM budgets from, below nvidia-smi's): "
                        "none is given here, for want of a public log printing one in bytes.");
    bullet(text, html, vs_buf_str(&b));
    vs_buf_puts(html, "</ul>\n");
    if (vs_buf_failed(&b))
        text->failed = 1;
    vs_buf_free(&b);
}

static void catalogue_text(vs_buf *text, vs_buf *html, const vs_gpu_spec *specs, size_t n)
{
    const char *const headers[] = {"GPU",
                                   "nominal memory",
                                   "reported total (nvidia-smi)",
                                   "ECC",
                                   vs_vocab_format_name(VS_FORMAT_BF16),
                                   vs_vocab_format_name(VS_FORMAT_FP8)};
    vs_buf unsourced = VS_BUF_INIT, cuda = VS_BUF_INIT;
    vs_table *t = vs_table_new(6, headers);
    size_t i;
    if (!t) {
        text->failed = 1;
        return;
    }
    vs_table_align_right(t, 1);
    vs_table_align_right(t, 2);
    for (i = 0; i < n; i++) {
        const vs_gpu_spec *s = &specs[i];
        char nom[160] = "unknown", rep[200] = "unknown";
        const char *cells[6];
        if (s->memory_known)
            vs_units_describe(nom, sizeof nom, s->memory_bytes);
        if (s->reported_known) {
            char dd[160];
            vs_units_describe(dd, sizeof dd, s->reported_bytes);
            snprintf(rep, sizeof rep, "%llu MiB = %s", (unsigned long long)s->reported_mib, dd);
        } else {
            snprintf(rep, sizeof rep, "unknown (no public capture)");
            vs_buf_printf(&unsourced, "%s%s", unsourced.len ? ", " : "", s->name);
        }
        if (s->cuda_known) {
            char dd[160];
            vs_units_describe(dd, sizeof dd, s->cuda_bytes);
            vs_buf_printf(&cuda, "%s%s: %s (%s)", cuda.len ? "; " : "", s->name, dd,
                          s->cuda_source ? s->cuda_source : "no source");
        }
        cells[0] = s->name;
        cells[1] = nom;
        cells[2] = rep;
        cells[3] = s->ecc ? s->ecc : "unknown";
        cells[4] = flag_text(s->bf16_known, s->bf16);
        cells[5] = flag_text(s->fp8_known, s->fp8);
        vs_table_add_row(t, cells);
    }
    vs_buf_puts(text, "GPU catalogue (src/catalog/gpus.json; each figure has its source):\n\n");
    vs_table_text(t, text);
    vs_buf_puts(html, "<p>GPU catalogue (each figure has its source)</p>\n");
    vs_table_html(t, html);
    catalogue_notes(text, html, &unsourced, &cuda);
    if (vs_table_failed(t) || vs_buf_failed(&unsourced) || vs_buf_failed(&cuda))
        text->failed = 1;
    vs_buf_free(&unsourced);
    vs_buf_free(&cuda);
    vs_table_free(t);
}

/* --------------------------------------------------------------- require */

static void requirements_text(vs_buf *text, vs_buf *html, const char *added, int was_new,
                              const json_t *names)
{
    size_t i;
    json_t *n;
    vs_buf_printf(text, "%s \"%s\". Mandatory requirements of this sheet:\n",
                  was_new ? "Requirement added:" : "Already required:", added);
    vs_buf_puts(html, "<p>");
    vs_buf_printf(html, "%s ", was_new ? "Requirement added:" : "Already required:");
    vs_buf_put_html(html, added);
    vs_buf_puts(html, ". Mandatory requirements of this sheet:</p>\n<ul>\n");
    json_array_foreach(names, i, n) bullet(text, html, json_string_value(n));
    vs_buf_puts(html, "</ul>\n");
    vs_buf_printf(text, "Every one is %s for each candidate until `evidence` says otherwise.\n",
                  vs_vocab_verdict_name(VS_VOCAB_VERDICT_TO_CONFIRM));
}

/* -------------------------------------------------------------- evidence */

static void evidence_text(vs_buf *text, vs_buf *html, const json_t *entry,
                          const vs_classification *c, const vs_classify_row *row,
                          const vs_classify_req *r)
{
    vs_buf b = VS_BUF_INIT;
    const char *offer = vs_json_str_of(entry, "candidate"),
               *req = vs_json_str_of(entry, "requirement");
    const char *version = vs_json_str_of(entry, "version"), *scope = vs_json_str_of(entry, "scope");
    vs_buf_printf(&b, "Evidence recorded: %s / %s: %s, source: %s", offer, req,
                  vs_json_str_of(entry, "verdict"), vs_json_str_of(entry, "source"));
    if (version)
        vs_buf_printf(&b, ", version %s", version);
    if (scope)
        vs_buf_printf(&b, ", scope: %s", scope);
    para(text, html, vs_buf_str(&b));
    vs_buf_reset(&b);
    if (r && row) {
        vs_buf_printf(&b, "%s for %s is now %s (", req, offer, vs_verdict_name(r->verdict));
        vs_candidates_why_text(&b, c, row, r);
        vs_buf_printf(&b, "); the candidate is %s.",
                      row->verdict == VS_VERDICT_ADMISSIBLE ? "retained"
                      : row->verdict == VS_VERDICT_EXCLUDE
                          ? "excluded"
                          : "not retained: a requirement is still to confirm");
        para(text, html, vs_buf_str(&b));
    }
    if (vs_buf_failed(&b))
        text->failed = 1;
    vs_buf_free(&b);
}

/* ------------------------------------------------------------- the results */

/* A catalogue entry as the offer's payload carries it, written straight
 * (vs_jw) rather than packed as a tree and dumped: the keys in the same
 * order, the same values. */
static void spec_write(vs_jw *w, const vs_gpu_spec *s, const json_t *sources)
{
    vs_jw_open(w, '{');
    vs_jw_member_str(w, "name", s->name);
    vs_jw_member_bytes(w, "memory_bytes", s->memory_known, s->memory_bytes);
    vs_jw_member_bytes(w, "reported_bytes", s->reported_known, s->reported_bytes);
    vs_jw_member_str(w, "ecc", s->ecc); /* NULL: null */
    vs_jw_key(w, vs_vocab_format_name(VS_FORMAT_BF16));
    if (s->bf16_known)
        vs_jw_bool(w, s->bf16);
    else
        vs_jw_null(w);
    vs_jw_key(w, vs_vocab_format_name(VS_FORMAT_FP8));
    if (s->fp8_known)
        vs_jw_bool(w, s->fp8);
    else
        vs_jw_null(w);
    vs_jw_member_value(w, "sources", sources);
    vs_jw_close(w, '}');
}

vs_bundle *vs_render_gpu_offer(const vs_gpu_offer_facts *f, const json_t *offer,
                               const json_t *notes)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, payload = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&payload);
    const json_t *sources = f->spec ? json_object_get(f->spec->entry, "sources") : NULL;
    offer_text(&text, &html, f, notes);
    /* the offer, the notes and an entry's sources are required, as they were
     * when the payload was packed: without one there is no result */
    if (!offer || !notes || (f->spec && !sources))
        payload.failed = 1;
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "offer");
    vs_jw_member_value(&w, "offer", offer);
    vs_jw_key(&w, "catalog");
    if (f->spec)
        spec_write(&w, f->spec, sources);
    else
        vs_jw_null(&w);
    vs_jw_member_value(&w, "notes", notes);
    vs_jw_close(&w, '}');
    return vs_render_finish_text(&text, &html, NULL, &payload);
}

vs_bundle *vs_render_gpu_catalogue(const vs_gpu_spec *specs, size_t n)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *list = json_array();
    size_t i;
    for (i = 0; list && i < n; i++)
        json_array_append_new(list, json_deep_copy(specs[i].entry));
    catalogue_text(&text, &html, specs, n);
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:o}", "kind", "catalog", "gpus", list));
}

vs_bundle *vs_render_requirements(const char *added, int was_new, const json_t *names)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    requirements_text(&text, &html, added, was_new, names);
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:s, s:b, s:O}", "kind", "requirements", "added",
                                      added, "new", was_new, "requirements", names));
}

vs_bundle *vs_render_evidence(const json_t *entry, const vs_classification *c,
                              const vs_classify_row *row, const vs_classify_req *r,
                              const char *given)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    evidence_text(&text, &html, entry, c, row, r);
    return vs_render_finish(
        &text, &html, NULL,
        json_pack("{s:s, s:O, s:s, s:s}", "kind", "evidence", "evidence", entry,
                  "requirement_verdict", r ? vs_verdict_name(r->verdict) : given,
                  "candidate_verdict",
                  row ? vs_verdict_name(row->verdict) : vs_verdict_name(VS_VERDICT_TO_CONFIRM)));
}
