#include "measure/measure.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct session {
    const vs_measure_options *o;
    vs_measure_result *res;
    vs_sampler *sampler;
    vs_nvml *nvml;
    int64_t start_mono;
    vs_phasefd_dim running[VS_PHASEFD_DIMS_MAX]; /* dims in force */
    size_t nrunning;
    int oom_noted;
} session;

static void merge_dims(vs_phasefd_dim *into, size_t *n, const vs_phasefd_dim *from, size_t nfrom)
{
    size_t i, j;
    for (i = 0; i < nfrom; i++) {
        for (j = 0; j < *n; j++) {
            if (!strcmp(into[j].key, from[i].key)) {
                into[j].value = from[i].value;
                break;
            }
        }
        if (j == *n && *n < VS_PHASEFD_DIMS_MAX)
            into[(*n)++] = from[i];
    }
}

static vs_measure_phase_dims *dims_entry(session *s, const char *phase)
{
    vs_measure_result *r = s->res;
    size_t i;
    vs_measure_phase_dims *d;
    for (i = 0; i < r->ndims; i++)
        if (!strcmp(r->dims[i].phase, phase))
            return &r->dims[i];
    if (r->ndims >= VS_SAMPLER_PHASES_MAX)
        return NULL;
    d = &r->dims[r->ndims++];
    memset(d, 0, sizeof *d);
    snprintf(d->phase, sizeof d->phase, "%s", phase);
    merge_dims(d->dims, &d->ndims, s->running, s->nrunning);
    return d;
}

static void note_bad(session *s, const char *line, const char *why)
{
    if (s->res->bad_lines++ == 0)
        snprintf(s->res->first_bad_line, sizeof s->res->first_bad_line, "%.120s: %.120s", line,
                 why);
    if (s->o->on_bad_line)
        s->o->on_bad_line(s->o->cb, line, why);
}

static void on_phase_line(void *cb, const char *line, size_t len)
{
    session *s = cb;
    vs_phasefd_event ev;
    vs_error e;
    char phase[VS_PHASEFD_NAME_MAX];
    vs_error_clear(&e);
    if (vs_phasefd_parse(&ev, line, len, &e) < 0) {
        note_bad(s, line, e.message);
        return;
    }
    switch (ev.kind) {
    case VS_PHASEFD_NONE:
        break;
    case VS_PHASEFD_PHASE:
        if (vs_sampler_set_phase(s->sampler, ev.name)) {
            char why[160];
            vs_sampler_current_phase(s->sampler, phase, sizeof phase);
            snprintf(why, sizeof why,
                     "a run keeps at most %d phases: this one and later new ones are counted "
                     "in phase '%.63s'",
                     VS_SAMPLER_PHASES_MAX, phase);
            note_bad(s, line, why);
            break;
        }
        dims_entry(s, ev.name);
        break;
    case VS_PHASEFD_DIMS: {
        vs_measure_phase_dims *d;
        merge_dims(s->running, &s->nrunning, ev.dims, ev.ndims);
        vs_sampler_current_phase(s->sampler, phase, sizeof phase);
        d = dims_entry(s, phase);
        if (d)
            merge_dims(d->dims, &d->ndims, ev.dims, ev.ndims);
        break;
    }
    case VS_PHASEFD_COUNTER: {
        vs_measure_result *r = s->res;
        int gpu_known = ev.gpu_known;
        unsigned gpu = ev.gpu;
        size_t i;
        if (ev.uuid[0]) {
            if (!vs_nvml_index_of_uuid(s->nvml, ev.uuid, &gpu)) {
                note_bad(s, line, "no GPU has that uuid");
                return;
            }
            gpu_known = 1;
        }
        if (gpu_known && gpu >= r->ngpus) {
            note_bad(s, line, "no GPU of that index");
            return;
        }
        vs_sampler_current_phase(s->sampler, phase, sizeof phase);
        for (i = 0; i < r->ncounters; i++) {
            vs_measure_counter *c = &r->counters[i];
            if (c->gpu_known == gpu_known && (!gpu_known || c->gpu == gpu) &&
                !strcmp(c->phase, phase) && !strcmp(c->name, ev.name)) {
                if (ev.bytes > c->bytes) {
                    c->bytes = ev.bytes;
                    c->at = vs_clock_wall_ms();
                }
                return;
            }
        }
        if (r->ncounters >= VS_MEASURE_COUNTERS_MAX) {
            note_bad(s, line, "too many counters");
            return;
        }
        {
            vs_measure_counter *c = &r->counters[r->ncounters++];
            snprintf(c->phase, sizeof c->phase, "%s", phase);
            snprintf(c->name, sizeof c->name, "%s", ev.name);
            c->gpu_known = gpu_known;
            c->gpu = gpu_known ? gpu : 0;
            c->bytes = ev.bytes;
            c->at = vs_clock_wall_ms();
        }
        break;
    }
    }
}

static void on_oom(void *cb, const char *pattern)
{
    session *s = cb;
    (void)pattern;
    if (!s->oom_noted) {
        s->oom_noted = 1;
        vs_sampler_current_phase(s->sampler, s->res->overflow_phase, sizeof s->res->overflow_phase);
    }
}

static void on_started(void *cb, pid_t pid)
{
    session *s = cb;
    vs_sampler_set_root(s->sampler, pid);
}

static void on_output(void *cb, int stream, const char *data, size_t len)
{
    session *s = cb;
    if (s->o->on_output)
        s->o->on_output(s->o->cb, stream, data, len);
}

static void on_tick(void *cb)
{
    session *s = cb;
    vs_measure_live live;
    if (!s->o->on_tick)
        return;
    live.sampler = s->sampler;
    live.gpus = s->res->gpus;
    live.ngpus = s->res->ngpus;
    live.elapsed_ms = vs_clock_mono_ms() - s->start_mono;
    s->o->on_tick(s->o->cb, &live);
}

static int interrupted(void *cb)
{
    session *s = cb;
    return s->o->interrupted ? s->o->interrupted(s->o->cb) : 0;
}

int vs_measure_run(const vs_measure_options *o, vs_measure_result *res, vs_error *err)
{
    session s;
    vs_runner_options ro;
    vs_sampler_options so;
    unsigned i;
    int rc;
    const char *first = o->phase && *o->phase ? o->phase : "run";

    memset(res, 0, sizeof *res);
    memset(&s, 0, sizeof s);
    s.o = o;
    s.res = res;
    rc = vs_nvml_open(&s.nvml, err);
    if (rc < 0)
        return rc;
    res->ngpus = vs_nvml_count(s.nvml);
    res->gpus = calloc(res->ngpus, sizeof *res->gpus);
    res->counters = calloc(VS_MEASURE_COUNTERS_MAX, sizeof *res->counters);
    res->dims = calloc(VS_SAMPLER_PHASES_MAX, sizeof *res->dims);
    if (!res->gpus || !res->counters || !res->dims) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < res->ngpus; i++)
        res->gpus[i] = *vs_nvml_gpu_at(s.nvml, i);
    snprintf(res->driver, sizeof res->driver, "%s", vs_nvml_driver_version(s.nvml));
    snprintf(res->nvml_version, sizeof res->nvml_version, "%s", vs_nvml_version(s.nvml));
    snprintf(res->memory_api, sizeof res->memory_api, "%s", vs_nvml_memory_api(s.nvml));
    if (gethostname(res->host, sizeof res->host) < 0)
        res->host[0] = '\0';
    res->host[sizeof res->host - 1] = '\0';
    if (o->dims && o->ndims)
        merge_dims(s.running, &s.nrunning, o->dims,
                   o->ndims > VS_PHASEFD_DIMS_MAX ? VS_PHASEFD_DIMS_MAX : o->ndims);

    memset(&so, 0, sizeof so);
    so.interval_ms = o->interval_ms;
    res->interval_ms = o->interval_ms > 0 ? o->interval_ms : 10;
    so.on_sample = o->on_sample;
    so.cb = o->cb;
    rc = vs_sampler_new(&s.sampler, s.nvml, first, &so, err);
    if (rc < 0)
        goto done;
    dims_entry(&s, first);
    res->started_at = vs_clock_wall_ms();
    s.start_mono = vs_clock_mono_ms();
    rc = vs_sampler_start(s.sampler, err);
    if (rc < 0)
        goto done;

    memset(&ro, 0, sizeof ro);
    ro.command = o->command;
    ro.argv = o->argv;
    ro.extra_env = o->extra_env;
    ro.timeout_s = o->timeout_s;
    ro.grace_ms = o->grace_ms;
    ro.tick_ms = o->tick_ms;
    ro.cb = &s;
    ro.on_output = on_output;
    ro.on_phase_line = on_phase_line;
    ro.on_oom = on_oom;
    ro.on_started = on_started;
    ro.on_tick = on_tick;
    ro.interrupted = interrupted;
    rc = vs_runner_run(&ro, &res->run, err);
    vs_sampler_stop(s.sampler);
    if (rc < 0)
        goto done;
    if (o->on_end) {
        vs_measure_live live;
        live.sampler = s.sampler;
        live.gpus = res->gpus;
        live.ngpus = res->ngpus;
        live.elapsed_ms = res->run.elapsed_ms;
        o->on_end(o->cb, &live, &res->run);
    }
    snprintf(res->process_api, sizeof res->process_api, "%s", vs_nvml_process_api(s.nvml));
    rc = vs_sampler_view_get(s.sampler, &res->view);
    if (rc < 0) {
        vs_error_set(err, rc, "out of memory");
        goto done;
    }
done:
    vs_sampler_free(s.sampler);
    vs_nvml_free(s.nvml);
    if (rc < 0)
        vs_measure_result_clear(res);
    return rc;
}

void vs_measure_result_clear(vs_measure_result *res)
{
    if (!res)
        return;
    free(res->gpus);
    free(res->counters);
    free(res->dims);
    vs_sampler_view_free(res->view);
    memset(res, 0, sizeof *res);
}

const vs_measure_phase_dims *vs_measure_dims_of(const vs_measure_result *res, const char *phase)
{
    size_t i;
    for (i = 0; i < res->ndims; i++)
        if (!strcmp(res->dims[i].phase, phase))
            return &res->dims[i];
    return NULL;
}

const char *vs_measure_counter_scope(const char *name)
{
    vs_vocab_scope s = VS_SCOPE_REPORTED;
    if (!strcmp(name, VS_COUNTER_DEVICE))
        s = VS_SCOPE_DEVICE;
    else if (!strcmp(name, VS_COUNTER_PROCESS))
        s = VS_SCOPE_PROCESS;
    else if (strstr(name, "memory_allocated"))
        s = VS_SCOPE_TENSORS;
    else if (strstr(name, "memory_reserved"))
        s = VS_SCOPE_ALLOCATOR;
    return vs_vocab_scope_name(s);
}

const char *vs_measure_triage(const char *p)
{
    if (!p || !*p)
        return "The overflow could not be placed in a phase: name the phases with `phase NAME` "
               "lines on VRAMSHEET_PHASE_FD (or phase=) and run again.";
    if (strstr(p, "load") || strstr(p, "init") || strstr(p, "weight"))
        return "Overflow while loading: look at the weights (their size in the format the real "
               "loader produces), the weight format, and transient allocations during loading (a "
               "full-precision copy before conversion, everything on one GPU before sharding).";
    if (strstr(p, "prefill") || strstr(p, "generat") || strstr(p, "decode") || strstr(p, "infer") ||
        strstr(p, "serve") || strstr(p, "sampl"))
        return "Overflow during generation: look at the context length and the concurrency (the "
               "KV cache grows with both), and at the batch the server really forms.";
    if (strstr(p, "backward"))
        return "Overflow in the backward pass: look at the microbatch, the saved activations, and "
               "the computation strategy (activation checkpointing, sharding of gradients and "
               "optimizer state).";
    if (strstr(p, "forward") || strstr(p, "train"))
        return "Overflow in the forward pass: look at the microbatch and the sequence length (the "
               "activations kept for the backward pass grow with both).";
    if (strstr(p, "optim") || strstr(p, "step") || strstr(p, "update"))
        return "Overflow at the optimizer step: look at the optimizer state and master copies "
               "(their precision, an 8-bit optimizer, ZeRO/FSDP sharding).";
    if (strstr(p, "valid") || strstr(p, "eval"))
        return "Overflow during validation: look at the validation batch and length, and at "
               "outputs or caches kept across batches.";
    if (strstr(p, "export") || strstr(p, "save"))
        return "Overflow at export: look at full copies made for saving (gathering shards, format "
               "conversion on the GPU).";
    return "Overflow in a phase with no standard meaning: compare its peak with the phase "
           "before it to find what it adds.";
}
