#include "measure/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/runner.h"
#include "util/clock.h"

#define PID_CACHE 256
#define ROUND_WAIT_S 1 /* the longest a phase change waits for its round */

typedef struct pid_verdict {
    unsigned pid;
    int in_tree;
} pid_verdict;

struct vs_sampler {
    vs_nvml *nvml;
    vs_sampler_options opts;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    pthread_cond_t round_done; /* a round wanted by a phase change is taken */
    int started, stop;
    int round_wanted;     /* set_phase asks the thread for a round now */
    uint64_t rounds_done; /* rounds the thread has taken */
    pid_t root;
    unsigned ngpus;
    vs_sampler_phase phases[VS_SAMPLER_PHASES_MAX];
    size_t nphases, current;
    uint64_t *device_now, *process_now, *device_start;
    int have_start;
    int process_available, process_attributed;
    unsigned foreign_pids;
    uint64_t samples, errors;
    char last_error[256];
    int64_t cpu_ns, max_gap_ms, last_round_ms;
    /* sampler thread only */
    pid_verdict cache[PID_CACHE];
    size_t ncache;
    unsigned long tick;
};

static int add_phase(vs_sampler *s, const char *name)
{
    vs_sampler_phase *p;
    if (s->nphases >= VS_SAMPLER_PHASES_MAX)
        return (int)s->nphases - 1;
    p = &s->phases[s->nphases];
    p->gpus = calloc(s->ngpus, sizeof *p->gpus);
    if (!p->gpus)
        return -1;
    snprintf(p->name, sizeof p->name, "%s", name);
    return (int)s->nphases++;
}

int vs_sampler_new(vs_sampler **out, vs_nvml *nvml, const char *first_phase,
                   const vs_sampler_options *opts, vs_error *err)
{
    vs_sampler *s = calloc(1, sizeof *s);
    pthread_condattr_t ca;
    *out = NULL;
    if (!s)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    s->nvml = nvml;
    if (opts)
        s->opts = *opts;
    if (s->opts.interval_ms <= 0)
        s->opts.interval_ms = 10;
    if (s->opts.process_every <= 0)
        s->opts.process_every = 1;
    s->ngpus = vs_nvml_count(nvml);
    s->device_now = calloc(s->ngpus ? s->ngpus : 1, sizeof *s->device_now);
    s->process_now = calloc(s->ngpus ? s->ngpus : 1, sizeof *s->process_now);
    s->device_start = calloc(s->ngpus ? s->ngpus : 1, sizeof *s->device_start);
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &ca);
    pthread_cond_init(&s->round_done, &ca);
    pthread_condattr_destroy(&ca);
    if (!s->device_now || !s->process_now || !s->device_start ||
        add_phase(s, first_phase && *first_phase ? first_phase : "run") < 0) {
        vs_sampler_free(s);
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}

static int in_tree(vs_sampler *s, unsigned pid, pid_t root)
{
    size_t i;
    int v;
    for (i = 0; i < s->ncache; i++)
        if (s->cache[i].pid == pid)
            return s->cache[i].in_tree;
    v = vs_runner_pid_in_tree((pid_t)pid, root);
    /* A process of the tree stays in it; one outside may only be a stranger, so
     * both verdicts are kept. */
    if (s->ncache < PID_CACHE) {
        s->cache[s->ncache].pid = pid;
        s->cache[s->ncache].in_tree = v;
        s->ncache++;
    }
    return v;
}

static void sample_round(vs_sampler *s)
{
    unsigned g;
    int64_t at = vs_clock_wall_ms(), mono = vs_clock_mono_ms();
    int want_procs;
    pid_t root;
    pthread_mutex_lock(&s->mu);
    root = s->root;
    pthread_mutex_unlock(&s->mu);
    want_procs = root > 0 && (s->tick++ % (unsigned long)s->opts.process_every) == 0;
    for (g = 0; g < s->ngpus; g++) {
        uint64_t used = 0, proc_sum = 0;
        int ok, avail = 0, attributed = 0;
        unsigned foreign = 0;
        vs_error e;
        vs_error_clear(&e);
        ok = vs_nvml_memory(s->nvml, g, &used, NULL, &e) == 0;
        if (ok && want_procs) {
            const vs_nvml_proc *procs;
            size_t n = 0, i;
            if (vs_nvml_processes(s->nvml, g, &procs, &n, &avail, &e) < 0) {
                avail = 0;
                ok = 0;
            }
            for (i = 0; avail && i < n; i++) {
                if (in_tree(s, procs[i].pid, root)) {
                    attributed = 1;
                    if (procs[i].used_bytes != UINT64_MAX) /* each below 2^63 (nvml.h) */
                        proc_sum = procs[i].used_bytes > (uint64_t)INT64_MAX - proc_sum
                                       ? (uint64_t)INT64_MAX
                                       : proc_sum + procs[i].used_bytes;
                } else {
                    foreign++;
                }
            }
        }
        pthread_mutex_lock(&s->mu);
        if (!ok) {
            s->errors++;
            snprintf(s->last_error, sizeof s->last_error, "%.255s", e.message);
        } else {
            vs_sampler_cell *c = &s->phases[s->current].gpus[g];
            s->device_now[g] = used;
            if (!s->have_start)
                s->device_start[g] = used;
            c->samples++;
            if (used > c->device_peak || c->device_peak_at == 0) {
                c->device_peak = used;
                c->device_peak_at = at;
            }
            if (avail) {
                s->process_available = 1;
                if (attributed)
                    s->process_attributed = 1;
                s->foreign_pids = foreign;
                s->process_now[g] = proc_sum;
                if (proc_sum > c->process_peak || c->process_peak_at == 0) {
                    c->process_peak = proc_sum;
                    c->process_peak_at = at;
                }
            }
        }
        pthread_mutex_unlock(&s->mu);
        if (ok && s->opts.on_sample) {
            char phase[64];
            vs_sampler_current_phase(s, phase, sizeof phase);
            s->opts.on_sample(s->opts.cb, at, phase, g, used, avail ? proc_sum : UINT64_MAX);
        }
    }
    pthread_mutex_lock(&s->mu);
    s->have_start = 1;
    s->samples++;
    if (s->last_round_ms && mono - s->last_round_ms > s->max_gap_ms)
        s->max_gap_ms = mono - s->last_round_ms;
    s->last_round_ms = mono;
    pthread_mutex_unlock(&s->mu);
}

static void *thread_main(void *arg)
{
    vs_sampler *s = arg;
    struct timespec next, cpu;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct timespec now;
        pthread_mutex_unlock(&s->mu);
        sample_round(s);
        next.tv_nsec += (long)s->opts.interval_ms * 1000000L;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec + 1 ||
            (now.tv_sec >= next.tv_sec && now.tv_nsec > next.tv_nsec &&
             (now.tv_sec - next.tv_sec) * 1000000000L + (now.tv_nsec - next.tv_nsec) >
                 (long)s->opts.interval_ms * 1000000L))
            next = now; /* fell behind (a stopped machine): no burst to catch up */
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
        pthread_mutex_lock(&s->mu);
        s->cpu_ns = (int64_t)cpu.tv_sec * 1000000000LL + cpu.tv_nsec;
        s->rounds_done++;
        s->round_wanted = 0;
        pthread_cond_broadcast(&s->round_done);
        while (!s->stop && !s->round_wanted) {
            int r = pthread_cond_timedwait(&s->cond, &s->mu, &next);
            if (r == ETIMEDOUT)
                break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    sample_round(s); /* the state at the end */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    pthread_mutex_lock(&s->mu);
    s->cpu_ns = (int64_t)cpu.tv_sec * 1000000000LL + cpu.tv_nsec;
    s->rounds_done++;
    pthread_cond_broadcast(&s->round_done);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int vs_sampler_start(vs_sampler *s, vs_error *err)
{
    int r;
    if (s->started)
        return 0;
    sample_round(s);
    r = pthread_create(&s->thread, NULL, thread_main, s);
    if (r != 0)
        return vs_error_set(err, VS_EMEASURE, "cannot start the sampler thread: %s", strerror(r));
    s->started = 1;
    return 0;
}

void vs_sampler_set_root(vs_sampler *s, pid_t root)
{
    pthread_mutex_lock(&s->mu);
    s->root = root;
    pthread_mutex_unlock(&s->mu);
}

int vs_sampler_set_phase(vs_sampler *s, const char *name)
{
    size_t i;
    int folded = 0;
    pthread_mutex_lock(&s->mu);
    /* The phase that ends gets a round of its own before the switch: a phase
     * shorter than the interval (or one the thread was not scheduled in, on a
     * loaded machine) still has its state at its end, instead of none. */
    if (s->started && !s->stop && strcmp(s->phases[s->current].name, name) != 0) {
        uint64_t seen = s->rounds_done;
        struct timespec until;
        /* Bounded: the caller is the loop that drains the command's output, and
         * a driver call that hangs must not stop it (the phase then switches
         * without that round). */
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += ROUND_WAIT_S;
        s->round_wanted = 1;
        pthread_cond_signal(&s->cond);
        while (!s->stop && s->rounds_done == seen)
            if (pthread_cond_timedwait(&s->round_done, &s->mu, &until) == ETIMEDOUT)
                break;
    }
    for (i = 0; i < s->nphases; i++) {
        if (!strcmp(s->phases[i].name, name)) {
            s->current = i;
            goto done;
        }
    }
    {
        int k = add_phase(s, name);
        folded = s->nphases >= VS_SAMPLER_PHASES_MAX && k == (int)s->nphases - 1 &&
                 strcmp(s->phases[k].name, name) != 0;
        if (k >= 0)
            s->current = (size_t)k;
    }
done:
    pthread_mutex_unlock(&s->mu);
    return folded;
}

void vs_sampler_current_phase(vs_sampler *s, char *out, size_t outlen)
{
    pthread_mutex_lock(&s->mu);
    snprintf(out, outlen, "%s", s->phases[s->current].name);
    pthread_mutex_unlock(&s->mu);
}

void vs_sampler_stop(vs_sampler *s)
{
    if (!s || !s->started)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->started = 0;
}

void vs_sampler_free(vs_sampler *s)
{
    size_t i;
    if (!s)
        return;
    vs_sampler_stop(s);
    for (i = 0; i < s->nphases; i++)
        free(s->phases[i].gpus);
    free(s->device_now);
    free(s->process_now);
    free(s->device_start);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cond);
    pthread_cond_destroy(&s->round_done);
    free(s);
}

void vs_sampler_view_free(vs_sampler_view *v)
{
    size_t i;
    if (!v)
        return;
    for (i = 0; i < v->nphases; i++)
        free(v->phases[i].gpus);
    free(v->phases);
    free(v->device_now);
    free(v->process_now);
    free(v->device_start);
    free(v);
}

int vs_sampler_view_get(vs_sampler *s, vs_sampler_view **out)
{
    vs_sampler_view *v = calloc(1, sizeof *v);
    size_t i, ng;
    int rc = VS_ENOMEM;
    *out = NULL;
    if (!v)
        return VS_ENOMEM;
    pthread_mutex_lock(&s->mu);
    ng = s->ngpus ? s->ngpus : 1;
    v->ngpus = s->ngpus;
    v->phases = calloc(s->nphases, sizeof *v->phases);
    v->device_now = malloc(ng * sizeof *v->device_now);
    v->process_now = malloc(ng * sizeof *v->process_now);
    v->device_start = malloc(ng * sizeof *v->device_start);
    if (!v->phases || !v->device_now || !v->process_now || !v->device_start)
        goto done;
    for (i = 0; i < s->nphases; i++) {
        v->phases[i] = s->phases[i];
        v->phases[i].gpus = malloc(ng * sizeof *v->phases[i].gpus);
        if (!v->phases[i].gpus)
            goto done;
        v->nphases = i + 1;
        memcpy(v->phases[i].gpus, s->phases[i].gpus, s->ngpus * sizeof *v->phases[i].gpus);
    }
    memcpy(v->device_now, s->device_now, s->ngpus * sizeof *v->device_now);
    memcpy(v->process_now, s->process_now, s->ngpus * sizeof *v->process_now);
    memcpy(v->device_start, s->device_start, s->ngpus * sizeof *v->device_start);
    v->current = s->current;
    v->process_available = s->process_available;
    v->process_attributed = s->process_attributed;
    v->foreign_pids = s->foreign_pids;
    v->samples = s->samples;
    v->errors = s->errors;
    memcpy(v->last_error, s->last_error, sizeof v->last_error);
    v->cpu_ns = s->cpu_ns;
    v->max_gap_ms = s->max_gap_ms;
    rc = 0;
done:
    pthread_mutex_unlock(&s->mu);
    if (rc < 0)
        vs_sampler_view_free(v);
    else
        *out = v;
    return rc;
}
