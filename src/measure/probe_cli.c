/* `vramsheet probe`: the measurement sampler without Jupyter, for runs on other
 * machines (torchrun, Slurm). Writes JSON lines that `measure import` reads. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "measure/measure.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/pool.h"
#include "util/redact.h"

static const char usage_text[] =
    "usage: vramsheet probe --out FILE [--interval MS] [--phase NAME] [--timeout SECONDS]\n"
    "                       [--samples] -- COMMAND [ARG...]\n"
    "\n"
    "Runs COMMAND (executed directly, PATH searched; use `-- sh -c '...'` for shell text)\n"
    "in its own process group, samples every GPU through NVML (libnvidia-ml.so.1, or\n"
    "VRAMSHEET_NVML_LIBRARY) and appends JSON lines to FILE: one \"run\" line (host,\n"
    "rank, command, driver, GPUs), one \"peak\" line per phase, GPU and counter (device\n"
    "used memory, the command's process memory where the driver reports it, and the\n"
    "counters the command writes), and one \"end\" line (exit status, overflow phase).\n"
    "The command names its phases on the file descriptor in VRAMSHEET_PHASE_FD:\n"
    "`phase NAME`, `dims length=N concurrency=N ...`, `counter NAME BYTES [gpu=I]`.\n"
    "Its output passes through. In a notebook, `measure import FILE...` merges the\n"
    "files per host and GPU.\n"
    "\n"
    "  --out FILE        where to append; {host}, {rank} and {pid} are replaced, so one\n"
    "                    path serves every rank (probe-{host}-{rank}.jsonl)\n"
    "  --interval MS     sampling period in milliseconds (default 10)\n"
    "  --phase NAME      the phase before the command's first phase line (default run)\n"
    "  --timeout SECONDS end the command's process group after this long\n"
    "  --samples         also write one \"sample\" line per GPU and sample (large files)\n"
    "  --help            this text\n"
    "\n"
    "The rank is taken from RANK, else SLURM_PROCID; the local rank from LOCAL_RANK,\n"
    "else SLURM_LOCALID. SIGINT and SIGTERM end the command's process group and the\n"
    "peaks measured so far are still written.\n"
    "\n"
    "Exit status: the command's (128 + N when signal N ended it); 1 when nothing could\n"
    "be measured (no NVIDIA driver, the command cannot start, FILE cannot be written);\n"
    "2 for a usage error.\n";

static volatile sig_atomic_t probe_stop;

static void on_signal(int sig)
{
    (void)sig;
    probe_stop = 1;
}

typedef struct probe {
    int fd;
    const char *host;
    int rank_known, local_rank_known; /* the environment says */
    unsigned rank, local_rank;
    int failed;
} probe;

/* 1 and *out the rank in a (else b) when it is 0..1000000; 0 otherwise. */
static int env_rank(const char *a, const char *b, unsigned *out)
{
    const char *v = getenv(a);
    char *end;
    long n;
    if (!v || !*v)
        v = b ? getenv(b) : NULL;
    if (!v || !*v)
        return 0;
    n = strtol(v, &end, 10);
    if (*end || n < 0 || n > 1000000)
        return 0;
    *out = (unsigned)n;
    return 1;
}

static json_t *index_or_null(int known, unsigned v)
{
    return known ? json_integer(v) : json_null();
}

/* One JSON line in one write, so that lines of ranks sharing a file stay whole. */
static void put_line(probe *p, json_t *j)
{
    char *s;
    size_t n, off = 0;
    if (!j) {
        p->failed = 1;
        return;
    }
    json_object_set_new(j, "host", json_string(p->host));
    json_object_set_new(j, "rank", index_or_null(p->rank_known, p->rank));
    json_object_set_new(j, "local_rank", index_or_null(p->local_rank_known, p->local_rank));
    s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) {
        p->failed = 1;
        return;
    }
    n = strlen(s);
    s[n] = '\n'; /* json_dumps's NUL becomes the newline */
    while (off < n + 1) {
        ssize_t w = write(p->fd, s + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            p->failed = 1;
            break;
        }
        off += (size_t)w;
    }
    vs_pool_json_free(s);
}

static json_t *iso_json(int64_t ms)
{
    char b[32];
    vs_clock_iso_utc(b, sizeof b, ms);
    return b[0] ? json_string(b) : json_null();
}

static void on_sample(void *cb, int64_t wall_ms, const char *phase, unsigned gpu, uint64_t used,
                      uint64_t process)
{
    put_line(cb,
             json_pack("{s:s, s:I, s:s, s:i, s:I, s:o}", "type", "sample", "t_ms",
                       (json_int_t)wall_ms, "phase", phase, "gpu", (int)gpu, "used_bytes",
                       (json_int_t)used, "process_bytes",
                       process == UINT64_MAX ? json_null() : json_integer((json_int_t)process)));
}

static void write_all(int fd, const char *d, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, d, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        d += w;
        n -= (size_t)w;
    }
}

static void on_output(void *cb, int stream, const char *d, size_t n)
{
    (void)cb;
    write_all(stream == 2 ? 2 : 1, d, n);
}

static void on_bad_line(void *cb, const char *line, const char *why)
{
    (void)cb;
    fprintf(stderr, "vramsheet probe: ignored phase line '%.120s': %s\n", line, why);
}

static int interrupted(void *cb)
{
    (void)cb;
    return probe_stop != 0;
}

static json_t *dims_of(const vs_measure_result *r, const char *phase)
{
    const vs_measure_phase_dims *d = vs_measure_dims_of(r, phase);
    json_t *o = json_object();
    size_t i;
    for (i = 0; o && d && i < d->ndims; i++)
        json_object_set_new(o, d->dims[i].key, json_integer((json_int_t)d->dims[i].value));
    return o;
}

static void peak_line(probe *p, const char *phase, int gpu_known, unsigned gpu,
                      const char *gpu_name, const char *counter, const char *scope, uint64_t bytes,
                      json_t *dims, int64_t at)
{
    put_line(p,
             json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:I, s:o, s:o}", "type", "peak", "phase",
                       phase, "gpu", gpu_known ? json_integer(gpu) : json_null(), "gpu_name",
                       gpu_name ? json_string(gpu_name) : json_null(), "counter", counter, "scope",
                       scope, "peak_bytes", (json_int_t)bytes, "dims", dims, "time", iso_json(at)));
}

/* The command as text: words quoted for a shell where they need it. */
static void command_text(vs_buf *b, char **argv, int argc)
{
    int i;
    for (i = 0; i < argc; i++) {
        const char *w = argv[i];
        if (i)
            vs_buf_putc(b, ' ');
        if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                            "_-./=:,+@%") == strlen(w)) {
            vs_buf_puts(b, w);
            continue;
        }
        vs_buf_putc(b, '\'');
        for (; *w; w++) {
            if (*w == '\'')
                vs_buf_puts(b, "'\\''");
            else
                vs_buf_putc(b, *w);
        }
        vs_buf_putc(b, '\'');
    }
}

/* --out with {host}, {rank} and {pid} replaced. */
static void out_path(vs_buf *b, const char *tmpl, const char *host, int rank_known, unsigned rank)
{
    const char *s = tmpl;
    while (*s) {
        if (!strncmp(s, "{host}", 6)) {
            vs_buf_puts(b, host);
            s += 6;
        } else if (!strncmp(s, "{rank}", 6)) {
            if (rank_known)
                vs_buf_printf(b, "%u", rank);
            else
                vs_buf_puts(b, "0");
            s += 6;
        } else if (!strncmp(s, "{pid}", 5)) {
            vs_buf_printf(b, "%d", (int)getpid());
            s += 5;
        } else {
            vs_buf_putc(b, *s++);
        }
    }
}

int vs_cli_probe(int argc, char **argv)
{
    const char *out = NULL, *phase = NULL;
    double timeout = 0;
    long interval = 0;
    int samples = 0, i, cmd_at = -1, status = 1;
    char host[256];
    vs_buf path = VS_BUF_INIT, cmd = VS_BUF_INIT;
    vs_measure_options o;
    vs_measure_result r;
    vs_error err;
    probe p;
    struct sigaction sa, old_int, old_term;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            cmd_at = i + 1;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (!strcmp(a, "--samples")) {
            samples = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "vramsheet probe: %s needs a value\n\n%s", a, usage_text);
            return 2;
        }
        if (!strcmp(a, "--out")) {
            out = argv[++i];
        } else if (!strcmp(a, "--phase")) {
            phase = argv[++i];
            if (!vs_phasefd_name_valid(phase)) {
                fprintf(stderr,
                        "vramsheet probe: --phase: 1-63 characters of A-Z a-z 0-9 _ . : / + -\n");
                return 2;
            }
        } else if (!strcmp(a, "--interval")) {
            char *end;
            interval = strtol(argv[++i], &end, 10);
            if (*end || interval < 1 || interval > 10000) {
                fprintf(stderr, "vramsheet probe: --interval is milliseconds, 1 to 10000\n");
                return 2;
            }
        } else if (!strcmp(a, "--timeout")) {
            char *end;
            timeout = strtod(argv[++i], &end);
            if (*end || !(timeout > 0) || timeout > 1e7) {
                fprintf(stderr, "vramsheet probe: --timeout is a positive number of seconds\n");
                return 2;
            }
        } else {
            fprintf(stderr, "vramsheet probe: unknown option '%s'\n\n%s", a, usage_text);
            return 2;
        }
    }
    if (!out || cmd_at < 0 || cmd_at >= argc) {
        fprintf(stderr, "vramsheet probe: %s\n\n%s",
                !out ? "--out FILE is required" : "expected -- COMMAND", usage_text);
        return 2;
    }

    memset(&p, 0, sizeof p);
    p.fd = -1;
    if (gethostname(host, sizeof host) < 0)
        snprintf(host, sizeof host, "%s", "unknown");
    host[sizeof host - 1] = '\0';
    p.host = host;
    p.rank_known = env_rank("RANK", "SLURM_PROCID", &p.rank);
    p.local_rank_known = env_rank("LOCAL_RANK", "SLURM_LOCALID", &p.local_rank);
    out_path(&path, out, host, p.rank_known, p.rank);
    {
        /* the file is imported into records: credentials out of its command */
        vs_buf typed = VS_BUF_INIT, names = VS_BUF_INIT;
        command_text(&typed, argv + cmd_at, argc - cmd_at);
        if (vs_redact_command(&cmd, &names, vs_buf_str(&typed)) > 0 && !vs_buf_failed(&names))
            fprintf(stderr,
                    "vramsheet probe: %s redacted from the output (shown as %s); the command "
                    "runs with the values as typed\n",
                    vs_buf_str(&names), VS_REDACTED);
        if (vs_buf_failed(&typed))
            cmd.failed = 1;
        vs_buf_free(&typed);
        vs_buf_free(&names);
    }
    if (vs_buf_failed(&path) || vs_buf_failed(&cmd)) {
        fprintf(stderr, "vramsheet probe: out of memory\n");
        goto done;
    }
    p.fd = open(vs_buf_str(&path), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (p.fd < 0) {
        fprintf(stderr, "vramsheet probe: cannot write %s: %s\n", vs_buf_str(&path),
                strerror(errno));
        goto done;
    }

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll wakes up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    probe_stop = 0;

    memset(&o, 0, sizeof o);
    o.argv = argv + cmd_at;
    o.phase = phase;
    o.timeout_s = timeout;
    o.interval_ms = (int)interval;
    o.cb = &p;
    o.on_output = on_output;
    o.on_bad_line = on_bad_line;
    o.interrupted = interrupted;
    if (samples)
        o.on_sample = on_sample;
    vs_error_clear(&err);
    if (vs_measure_run(&o, &r, &err) < 0) {
        fprintf(stderr, "vramsheet probe: %s\n", err.message);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        goto done;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    {
        json_t *gpus = json_array();
        unsigned g;
        size_t k, c;
        for (g = 0; gpus && g < r.ngpus; g++)
            json_array_append_new(
                gpus, json_pack("{s:i, s:s, s:s, s:I, s:s, s:o}", "index", (int)g, "name",
                                r.gpus[g].name, "uuid", r.gpus[g].uuid, "total_bytes",
                                (json_int_t)(r.gpus[g].total_known ? r.gpus[g].total_bytes : 0),
                                "total_basis", "nvml", "cuda_total_bytes",
                                r.gpus[g].cuda_total_known
                                    ? json_integer((json_int_t)r.gpus[g].cuda_total_bytes)
                                    : json_null()));
        put_line(&p, json_pack("{s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:i, s:o, s:s}", "type", "run",
                               "command", vs_buf_str(&cmd), "started", iso_json(r.started_at),
                               "driver", r.driver, "nvml", r.nvml_version, "memory_api",
                               r.memory_api, "process_api", r.process_api, "interval_ms",
                               r.interval_ms, "gpus", gpus, "process_memory",
                               !r.view->process_available   ? "not reported by the driver"
                               : r.view->process_attributed ? "attributed"
                                                            : "unattributed"));
        for (k = 0; k < r.view->nphases; k++) {
            const vs_sampler_phase *ph = &r.view->phases[k];
            for (g = 0; g < r.view->ngpus; g++) {
                const vs_sampler_cell *cell = &ph->gpus[g];
                if (!cell->samples)
                    continue;
                peak_line(&p, ph->name, 1, g, r.gpus[g].name, VS_COUNTER_DEVICE,
                          vs_vocab_scope_name(VS_SCOPE_DEVICE), cell->device_peak,
                          dims_of(&r, ph->name), cell->device_peak_at);
                if (r.view->process_attributed && cell->process_peak_at)
                    peak_line(&p, ph->name, 1, g, r.gpus[g].name, VS_COUNTER_PROCESS,
                              vs_vocab_scope_name(VS_SCOPE_PROCESS), cell->process_peak,
                              dims_of(&r, ph->name), cell->process_peak_at);
            }
            for (c = 0; c < r.ncounters; c++) {
                const vs_measure_counter *ct = &r.counters[c];
                if (strcmp(ct->phase, ph->name) != 0)
                    continue;
                peak_line(&p, ph->name, ct->gpu_known, ct->gpu,
                          ct->gpu_known ? r.gpus[ct->gpu].name : NULL, ct->name,
                          vs_measure_counter_scope(ct->name), ct->bytes, dims_of(&r, ph->name),
                          ct->at);
            }
        }
        put_line(&p, json_pack("{s:s, s:i, s:i, s:o, s:o, s:I, s:b, s:b, s:i, s:I, s:I}", "type",
                               "end", "exit_status", r.run.exit_status, "signal", r.run.term_signal,
                               "overflow_phase",
                               r.overflow_phase[0] ? json_string(r.overflow_phase) : json_null(),
                               "oom_pattern",
                               r.run.oom_pattern[0] ? json_string(r.run.oom_pattern) : json_null(),
                               "elapsed_ms", (json_int_t)r.run.elapsed_ms, "timed_out",
                               r.run.timed_out, "interrupted", r.run.interrupted, "leftovers",
                               r.run.leftovers, "samples", (json_int_t)r.view->samples,
                               "sampler_cpu_ns", (json_int_t)r.view->cpu_ns));
        if (r.overflow_phase[0])
            fprintf(stderr, "vramsheet probe: out of memory in phase %s: %s\n", r.overflow_phase,
                    vs_measure_triage(r.overflow_phase));
        status = r.run.exit_status;
        if (p.failed) {
            fprintf(stderr, "vramsheet probe: could not write every line to %s\n",
                    vs_buf_str(&path));
            if (status == 0)
                status = 1;
        }
    }
    vs_measure_result_clear(&r);
done:
    if (p.fd >= 0)
        close(p.fd);
    vs_buf_free(&path);
    vs_buf_free(&cmd);
    return status;
}
