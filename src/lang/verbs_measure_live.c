/* A measure while it runs: the live gauge it displays and updates (drawn by
 * render/gauge.c from the sampler's numbers), and the command's output
 * streamed as text (declared in lang/verbs_measure.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lang/verbs_measure.h"
#include "render/gauge.h"
#include "util/buf.h"
#include "util/utf8.h"

/* The gauge's numbers from the sampler; render/gauge.c draws them. */
static vs_bundle *gauge_bundle(vs_mv_gauge *gz, const vs_measure_live *live, const char *state,
                               int keep)
{
    vs_sampler_view *v = NULL;
    vs_gauge g;
    vs_gauge_gpu *gp;
    char why[160];
    unsigned i;
    vs_bundle *b;
    if (vs_sampler_view_get(live->sampler, &v) < 0)
        return NULL;
    gp = calloc(v->ngpus ? v->ngpus : 1, sizeof *gp);
    if (!gp) {
        vs_sampler_view_free(v);
        return NULL;
    }
    for (i = 0; i < v->ngpus; i++) {
        size_t p;
        gp[i].name = i < live->ngpus ? live->gpus[i].name : "";
        gp[i].total_known = i < live->ngpus && live->gpus[i].total_known;
        gp[i].total_bytes = gp[i].total_known ? live->gpus[i].total_bytes : 0;
        gp[i].used_bytes = v->device_now[i];
        gp[i].phase_peak_bytes = v->phases[v->current].gpus[i].device_peak;
        for (p = 0; p < v->nphases; p++)
            if (v->phases[p].gpus[i].device_peak > gp[i].run_peak_bytes)
                gp[i].run_peak_bytes = v->phases[p].gpus[i].device_peak;
        gp[i].process_known = v->process_available && v->process_attributed;
        gp[i].process_bytes = v->process_now[i];
    }
    g = (vs_gauge){gz->run,
                   state,
                   v->phases[v->current].name,
                   live->elapsed_ms,
                   gz->envelope_known,
                   gz->envelope_bytes,
                   vs_render_gauge_why(why, sizeof why, v->process_available, v->process_attributed,
                                       v->foreign_pids),
                   gp,
                   v->ngpus};
    b = vs_render_gauge(&g);
    if (keep && !gz->snap.gpus) {
        vs_mv_gauge_snap *sn = &gz->snap;
        sn->names = calloc(v->ngpus ? v->ngpus : 1, sizeof *sn->names);
        if (sn->names) {
            sn->g = g;
            sn->g.gpus = sn->gpus = gp;
            gp = NULL;
            for (i = 0; i < v->ngpus; i++) {
                snprintf(sn->names[i], sizeof sn->names[i], "%s", sn->gpus[i].name);
                sn->gpus[i].name = sn->names[i];
            }
            snprintf(sn->state, sizeof sn->state, "%s", state);
            snprintf(sn->phase, sizeof sn->phase, "%s", g.phase ? g.phase : "");
            snprintf(sn->why, sizeof sn->why, "%s", g.process_why ? g.process_why : "");
            sn->g.state = sn->state;
            sn->g.phase = sn->phase;
            sn->g.process_why = g.process_why ? sn->why : NULL;
        }
    }
    free(gp);
    vs_sampler_view_free(v);
    return b;
}

static void gauge_show(vs_mv_gauge *gz, const vs_measure_live *live, const char *state, int keep)
{
    vs_bundle *b = gauge_bundle(gz, live, state, keep);
    if (!b)
        return;
    vs_ctx_display(gz->ctx, b, gz->id, gz->shown);
    gz->shown = 1;
    vs_bundle_free(b);
}

static void on_tick(void *cb, const vs_measure_live *live)
{
    gauge_show(cb, live, "running", 0);
}

/* The gauge's last state, so that it does not stay "running". */
static void on_end(void *cb, const vs_measure_live *live, const vs_runner_result *run)
{
    vs_mv_gauge *gz = cb;
    if (gz->shown)
        gauge_show(gz, live,
                   run->interrupted ? "interrupted"
                   : run->timed_out ? "timed out"
                                    : "finished",
                   1);
}

void vs_mv_gauge_restated(vs_mv_gauge *gz, const char *run)
{
    vs_bundle *b;
    if (!gz->shown || !gz->snap.gpus)
        return;
    gz->snap.g.run = run;
    if ((b = vs_render_gauge(&gz->snap.g)) != NULL) {
        vs_ctx_display(gz->ctx, b, gz->id, 1);
        vs_bundle_free(b);
    }
}

static int on_interrupted(void *cb)
{
    return vs_ctx_interrupted(((vs_mv_gauge *)cb)->ctx);
}

/* Streams bytes as text: a sequence cut between two reads waits for its end;
 * invalid bytes and NULs become U+FFFD. */
static void stream_text(vs_mv_gauge *gz, int stream, const char *data, size_t len, int final)
{
    vs_buf in = VS_BUF_INIT, out = VS_BUF_INIT;
    size_t i = 0;
    int s = stream == 2 ? 2 : 1;
    vs_buf_append(&in, gz->carry[s], gz->ncarry[s]);
    if (len)
        vs_buf_append(&in, data, len);
    gz->ncarry[s] = 0;
    if (vs_buf_failed(&in))
        goto done;
    while (i < in.len) {
        int k = vs_utf8_prefix((const unsigned char *)in.data + i, in.len - i);
        if (k < 0 && !final && in.len - i < 4) {
            memcpy(gz->carry[s], in.data + i, in.len - i);
            gz->ncarry[s] = in.len - i;
            break;
        }
        if (k <= 0 || in.data[i] == '\0') {
            vs_buf_puts(&out, "\xEF\xBF\xBD");
            i++;
        } else {
            vs_buf_append(&out, in.data + i, (size_t)k);
            i += (size_t)k;
        }
    }
    if (out.len && !vs_buf_failed(&out))
        vs_ctx_stream(gz->ctx, s == 2 ? "stderr" : "stdout", out.data, out.len);
done:
    vs_buf_free(&in);
    vs_buf_free(&out);
}

static void on_output(void *cb, int stream, const char *data, size_t len)
{
    stream_text(cb, stream, data, len, 0);
}

static void on_bad_line(void *cb, const char *line, const char *why)
{
    vs_mv_gauge *gz = cb;
    char msg[512];
    int n =
        snprintf(msg, sizeof msg, "vramsheet: ignored phase line '%.120s': %.200s\n", line, why);
    if (n > 0)
        stream_text(gz, 2, msg, strlen(msg), 0);
}

void vs_mv_gauge_start(vs_mv_gauge *gz, vs_ctx *ctx, const char *run, int envelope_known,
                       uint64_t envelope_bytes, vs_measure_options *o)
{
    struct timespec ts;
    static unsigned serial; /* display ids stay unique within the kernel */
    memset(gz, 0, sizeof *gz);
    gz->ctx = ctx;
    snprintf(gz->run, sizeof gz->run, "%s", run);
    gz->envelope_known = envelope_known;
    gz->envelope_bytes = envelope_known ? envelope_bytes : 0;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(gz->id, sizeof gz->id, "vramsheet-gauge-%d-%lld-%u", (int)getpid(),
             (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, ++serial);
    o->cb = gz;
    o->on_output = on_output;
    o->on_tick = on_tick;
    o->on_end = on_end;
    o->interrupted = on_interrupted;
    o->on_bad_line = on_bad_line;
}

void vs_mv_gauge_flush(vs_mv_gauge *gz)
{
    stream_text(gz, 1, NULL, 0, 1);
    stream_text(gz, 2, NULL, 0, 1);
}

void vs_mv_gauge_clear(vs_mv_gauge *gz)
{
    free(gz->snap.gpus);
    free(gz->snap.names);
    gz->snap.gpus = NULL;
    gz->snap.names = NULL;
}
