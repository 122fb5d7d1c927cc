#include "render/gauge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/units.h"

/* The bar's geometry: percentages of the device total, one decimal, so the
 * widths are proportional to the bytes whatever the width the page gives. */
static double pct(uint64_t part, uint64_t whole)
{
    double p;
    if (!whole)
        return 0;
    p = (double)part * 100.0 / (double)whole;
    return p > 100 ? 100 : p;
}

/* "36.15 GiB" into out (at least 32 bytes: 20 digits, two decimals, the unit). */
static void gib(char *out, size_t n, uint64_t bytes)
{
    size_t len;
    vs_units_round(out, n - 4, bytes, VS_UNIT_GIB, 2);
    len = strlen(out);
    memcpy(out + len, " GiB", 5);
}

static const char *verb_of(const char *state)
{
    return !strcmp(state, "running") ? "measuring" : state;
}

static void gauge_text(vs_buf *text, const vs_gauge *g)
{
    static const char *const headers[] = {
        "GPU", "used now (device)", "of total", "peak this phase", "peak this run", "process now"};
    vs_table *t = vs_table_new(6, headers);
    unsigned i;
    vs_buf_printf(text, "%s %s: phase %s, %.1f s\n", verb_of(g->state), g->run, g->phase,
                  (double)g->elapsed_ms / 1000.0);
    for (i = 0; t && i < g->ngpus; i++) {
        const vs_gauge_gpu *x = &g->gpus[i];
        char name[200], now[160], of[32], pp[160], rp[160], proc[200];
        const char *cells[6];
        snprintf(name, sizeof name, "%u %s", i, x->name ? x->name : "");
        vs_units_describe(now, sizeof now, x->used_bytes);
        if (x->total_known)
            snprintf(of, sizeof of, "%.1f%%", pct(x->used_bytes, x->total_bytes));
        else
            snprintf(of, sizeof of, "total unknown");
        vs_units_describe(pp, sizeof pp, x->phase_peak_bytes);
        vs_units_describe(rp, sizeof rp, x->run_peak_bytes);
        if (x->process_known)
            vs_units_describe(proc, sizeof proc, x->process_bytes);
        else
            snprintf(proc, sizeof proc, "unavailable: %s",
                     g->process_why ? g->process_why : "not reported");
        cells[0] = name, cells[1] = now, cells[2] = of, cells[3] = pp, cells[4] = rp,
        cells[5] = proc;
        vs_table_add_row(t, cells);
    }
    vs_table_align_right(t, 2);
    vs_table_text(t, text);
    if (g->envelope_known) {
        char e[64];
        gib(e, sizeof e, g->envelope_bytes);
        vs_buf_printf(text, "envelope per GPU (the sheet's known part): %s\n", e);
    }
    if (vs_table_failed(t))
        text->failed = 1;
    vs_table_free(t);
}

/* One GPU: a line of figures above a bar. The bar's elements carry classes
 * (vs-gauge-bar, vs-gauge-used, vs-gauge-peak, vs-gauge-envelope) and their
 * widths or positions as percentages of the device total. */
static void gauge_gpu_html(vs_buf *h, const vs_gauge *g, unsigned i)
{
    const vs_gauge_gpu *x = &g->gpus[i];
    char used[64], total[64], pp[64], rp[64], proc[64];
    double pu = x->total_known ? pct(x->used_bytes, x->total_bytes) : 0;
    gib(used, sizeof used, x->used_bytes);
    gib(total, sizeof total, x->total_known ? x->total_bytes : 0);
    gib(pp, sizeof pp, x->phase_peak_bytes);
    gib(rp, sizeof rp, x->run_peak_bytes);
    vs_buf_printf(h,
                  "<div class='vs-gauge-gpu' data-gpu='%u' style='margin:4px 0 10px 0'>\n"
                  "<div style='white-space:nowrap'><b>GPU %u</b> ",
                  i, i);
    vs_buf_put_html(h, x->name ? x->name : "");
    if (x->total_known)
        vs_buf_printf(h, ": <b class='vs-gauge-pct'>%.1f%%</b> &mdash; %s of %s", pu, used, total);
    else
        vs_buf_printf(h, ": %s (device total unknown)", used);
    vs_buf_printf(h,
                  "</div>\n<div style='white-space:nowrap;font-size:90%%'>peak this phase "
                  "%s, peak this run %s; process: ",
                  pp, rp);
    if (x->process_known) {
        gib(proc, sizeof proc, x->process_bytes);
        vs_buf_puts(h, proc);
    } else {
        vs_buf_puts(h, "unavailable (");
        vs_buf_put_html(h, g->process_why ? g->process_why : "not reported");
        vs_buf_puts(h, ")");
    }
    vs_buf_puts(h, "</div>\n");
    if (!x->total_known) {
        vs_buf_puts(h, "</div>\n");
        return;
    }
    vs_buf_printf(h,
                  "<div class='vs-gauge-bar' role='meter' aria-valuemin='0' aria-valuemax='100' "
                  "aria-valuenow='%.1f' title='used %s of %s' style='position:relative;"
                  "width:100%%;max-width:560px;height:18px;margin-top:3px;background:#e8e8e8;"
                  "border:1px solid #999;box-sizing:border-box'>\n"
                  "<div class='vs-gauge-used' style='width:%.1f%%;height:100%%;background:%s'>"
                  "</div>\n",
                  pu, used, total, pu,
                  g->envelope_known && x->used_bytes > g->envelope_bytes ? "#e15759" : "#4e79a7");
    if (x->run_peak_bytes)
        vs_buf_printf(h,
                      "<div class='vs-gauge-peak' title='peak this run %s' style='position:"
                      "absolute;left:%.1f%%;top:0;height:100%%;border-left:2px solid #222'>"
                      "</div>\n",
                      rp, pct(x->run_peak_bytes, x->total_bytes));
    if (g->envelope_known) {
        char e[64];
        gib(e, sizeof e, g->envelope_bytes);
        vs_buf_printf(h,
                      "<div class='vs-gauge-envelope' title='envelope per GPU %s%s' "
                      "style='position:absolute;left:%.1f%%;top:-4px;height:24px;"
                      "border-left:2px dashed #f28e2b'></div>\n",
                      e, g->envelope_bytes > x->total_bytes ? ", above the device total" : "",
                      pct(g->envelope_bytes, x->total_bytes));
    }
    vs_buf_puts(h, "</div>\n</div>\n");
}

static void gauge_html(vs_buf *h, const vs_gauge *g)
{
    unsigned i;
    vs_buf_printf(h, "<div class='vs-gauge' data-run='%s'>\n<p><b>%s %s</b>: phase <code>", g->run,
                  verb_of(g->state), g->run);
    vs_buf_put_html(h, g->phase);
    vs_buf_printf(h, "</code>, %.1f s; black mark: peak this run", (double)g->elapsed_ms / 1000.0);
    if (g->envelope_known) {
        char e[64];
        gib(e, sizeof e, g->envelope_bytes);
        vs_buf_printf(h, "; orange dashed mark: the sheet's envelope per GPU, %s", e);
    }
    vs_buf_puts(h, "</p>\n");
    for (i = 0; i < g->ngpus; i++)
        gauge_gpu_html(h, g, i);
    vs_buf_puts(h, "</div>\n");
}

const char *vs_render_gauge_why(char *out, size_t n, int available, int attributed,
                                unsigned foreign_pids)
{
    if (available && attributed)
        return NULL;
    if (!available)
        snprintf(out, n, "the driver lists no processes");
    else if (!foreign_pids)
        snprintf(out, n, "the driver lists no process of the command's yet");
    else
        snprintf(out, n,
                 "the driver lists %u process(es), none of the command's (another PID "
                 "namespace?)",
                 foreign_pids);
    return out;
}

vs_bundle *vs_render_gauge(const vs_gauge *g)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload, *gpus = json_array();
    vs_bundle *b = NULL;
    unsigned i;
    payload = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o}", "kind", "gauge", "run", g->run, "state",
        g->state, "phase", g->phase, "elapsed_ms", (json_int_t)g->elapsed_ms, "envelope_bytes",
        g->envelope_known ? json_integer((json_int_t)g->envelope_bytes) : json_null(),
        "process_unavailable", g->process_why ? json_string(g->process_why) : json_null(), "gpus",
        gpus);
    for (i = 0; payload && i < g->ngpus; i++) {
        const vs_gauge_gpu *x = &g->gpus[i];
        json_array_append_new(
            gpus,
            json_pack("{s:i, s:s, s:I, s:I, s:I, s:o, s:I}", "gpu", (int)i, "gpu_name",
                      x->name ? x->name : "", "used_bytes", (json_int_t)x->used_bytes,
                      "phase_peak_bytes", (json_int_t)x->phase_peak_bytes, "run_peak_bytes",
                      (json_int_t)x->run_peak_bytes, "process_bytes",
                      x->process_known ? json_integer((json_int_t)x->process_bytes) : json_null(),
                      "total_bytes", (json_int_t)(x->total_known ? x->total_bytes : 0)));
    }
    if (payload) {
        gauge_text(&text, g);
        gauge_html(&html, g);
        if (!vs_buf_failed(&text) && !vs_buf_failed(&html)) {
            b = vs_bundle_new(vs_buf_str(&text), vs_buf_str(&html), NULL, payload);
            payload = NULL;
        }
    }
    json_decref(payload);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return b;
}

void vs_render_command_head(vs_buf *out, const char *command, int html)
{
    const char *p = command ? command : "", *e;
    size_t more = 0;
    while (*p == '\n' || *p == '\r' || *p == ' ' || *p == '\t')
        p++;
    e = strchr(p, '\n');
    if (e) {
        const char *q;
        for (q = e; *q; q++)
            if (*q == '\n' && q[1] && q[1] != '\n')
                more++;
    }
    {
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *line = malloc(n + 1);
        if (!line) {
            out->failed = 1;
            return;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        if (html)
            vs_buf_put_html(out, line);
        else
            vs_buf_puts(out, line);
        free(line);
    }
    if (more)
        vs_buf_printf(out, " (+%zu more line%s)", more, more == 1 ? "" : "s");
}

void vs_render_run_html(vs_buf *html, const vs_run_head *h, const vs_table *peaks)
{
    vs_buf_printf(html, "<p><b>measured run %s</b> on ", h->run);
    vs_buf_put_html(html, h->host && h->host[0] ? h->host : "this host");
    vs_buf_printf(html, ", %.2f s, exit status %d: <code>", (double)h->elapsed_ms / 1000.0,
                  h->exit_status);
    vs_render_command_head(html, h->command, 1);
    vs_buf_puts(html, "</code></p>");
    if (h->overflow_phase && h->overflow_phase[0]) {
        vs_buf_puts(html, "<p><b>Out of memory in phase ");
        vs_buf_put_html(html, h->overflow_phase);
        vs_buf_puts(html, "</b>. ");
        vs_buf_put_html(html, h->triage ? h->triage : "");
        vs_buf_puts(html, " ");
        vs_buf_put_html(html, h->advice ? h->advice : "");
        vs_buf_puts(html, "</p>");
    }
    if (peaks)
        vs_table_html(peaks, html);
    if (h->not_valid_why) {
        vs_buf_puts(html, "<p>This run does not validate the card: ");
        vs_buf_put_html(html, h->not_valid_why);
        vs_buf_puts(html, ".</p>");
    }
}
