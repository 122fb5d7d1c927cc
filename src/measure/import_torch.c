/* import_torch.c — a JSON dump of `torch.cuda.memory_stats()`
 * (json.dump(torch.cuda.memory_stats(), f)): one object of exact byte counts
 * ("allocated_bytes.all.peak", "reserved_bytes.all.peak",
 * "active_bytes.all.peak", ...), or an array of such objects, one per GPU (the
 * array's index is the GPU), or an object of them keyed by the device ("0",
 * "cuda:1"). The figures are exact: resolution 0. Keys read: the peaks and
 * currents of allocated, reserved, active and requested bytes (pools "all"),
 * num_ooms and num_alloc_retries as counts; the other keys are left. A value
 * of a key read that is not an integer >= 0 refuses the file, with the line
 * of the key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/import.h"

#define TORCH_TEXT_MAX ((size_t)16 << 20)

typedef struct torch_state {
    vs_buf text;
    int started;
} torch_state;

static const struct {
    const char *key;
    int bytes;            /* 0: a count */
    vs_vocab_scope scope; /* of bytes */
} keys[] = {
    {"allocated_bytes.all.peak", 1, VS_SCOPE_TENSORS},
    {"reserved_bytes.all.peak", 1, VS_SCOPE_ALLOCATOR},
    {"active_bytes.all.peak", 1, VS_SCOPE_TENSORS},
    {"requested_bytes.all.peak", 1, VS_SCOPE_TENSORS},
    {"allocated_bytes.all.current", 1, VS_SCOPE_TENSORS},
    {"reserved_bytes.all.current", 1, VS_SCOPE_ALLOCATOR},
    {"num_ooms", 0, VS_SCOPE_REPORTED},
    {"num_alloc_retries", 0, VS_SCOPE_REPORTED},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static int torch_sniff(const char *line, size_t n)
{
    return vs_import_find(line, n, "\"allocated_bytes.all.", 0) != NULL ||
           vs_import_find(line, n, "\"reserved_bytes.all.", 0) != NULL ||
           vs_import_find(line, n, "\"active_bytes.all.", 0) != NULL ||
           vs_import_find(line, n, "\"active.all.", 0) != NULL;
}

static int torch_line(vs_import *im, void *state, const char *line, size_t n)
{
    torch_state *st = state;
    if (!st->started) {
        vs_buf_init(&st->text);
        st->started = 1;
    }
    if (st->text.len + n + 1 > TORCH_TEXT_MAX)
        return vs_import_refuse(im, "a memory_stats() dump longer than 16 MiB");
    vs_buf_append(&st->text, line, n);
    vs_buf_putc(&st->text, '\n');
    return vs_buf_failed(&st->text) ? VS_ENOMEM : 0;
}

/* The line of the first "key" in text (1-based), for a refusal. */
static size_t line_of(const char *text, size_t len, const char *key)
{
    char q[80];
    const char *p;
    size_t line = 1, i;
    snprintf(q, sizeof q, "\"%s\"", key);
    p = vs_import_find(text, len, q, 0);
    if (!p)
        return 1;
    for (i = 0; text + i < p; i++)
        if (text[i] == '\n')
            line++;
    return line;
}

/* One device's stats; the GPU only when gpu_known (a dump of one device
 * names none). */
static int one_device(vs_import *im, torch_state *st, const json_t *obj, int gpu_known,
                      unsigned gpu)
{
    size_t k;
    vs_import_at at = {.phase = "dump", .gpu_known = gpu_known, .gpu = gpu};
    char counter[80], text[160];
    for (k = 0; k < NKEYS; k++) {
        json_t *v = json_object_get(obj, keys[k].key);
        int rc, tl;
        if (!v)
            continue;
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            im->why_line = line_of(st->text.data, st->text.len, keys[k].key);
            return vs_import_refuse(im, "\"%s\" must be an integer >= 0", keys[k].key);
        }
        snprintf(counter, sizeof counter, "torch.%s", keys[k].key);
        tl = snprintf(text, sizeof text, "\"%s\": %lld", keys[k].key,
                      (long long)json_integer_value(v));
        if (keys[k].bytes)
            rc = vs_import_bytes(im, &at, counter, keys[k].scope, (uint64_t)json_integer_value(v),
                                 0, text, (size_t)tl);
        else
            rc = vs_import_count(im, &at, counter, json_integer(json_integer_value(v)), "events",
                                 text, (size_t)tl);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* "3", "cuda:3", "cuda3": 1 and *gpu 3; 0 otherwise. */
static int device_key(const char *k, unsigned *gpu)
{
    char *end;
    long g;
    if (!strncmp(k, "cuda:", 5))
        k += 5;
    else if (!strncmp(k, "cuda", 4))
        k += 4;
    if (*k < '0' || *k > '9')
        return 0;
    g = strtol(k, &end, 10);
    if (*end || g > VS_IMPORT_GPU_MAX)
        return 0;
    *gpu = (unsigned)g;
    return 1;
}

static int torch_finish(vs_import *im, void *state)
{
    torch_state *st = state;
    json_error_t je;
    json_t *root, *v;
    const char *k;
    size_t i;
    int rc = 0, any = 0;
    if (!st->started || st->text.len == 0)
        return 0;
    root = json_loadb(st->text.data, st->text.len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        im->why_line = je.line > 0 ? (size_t)je.line : 1;
        return vs_import_refuse(im, "%s", je.text);
    }
    if (json_is_array(root)) {
        json_array_foreach(root, i, v)
        {
            if (i > VS_IMPORT_GPU_MAX || !json_is_object(v)) {
                im->why_line = 1;
                rc = vs_import_refuse(im, "an array of memory_stats() objects, one per GPU");
                break;
            }
            if ((rc = one_device(im, st, v, 1, (unsigned)i)) < 0)
                break;
        }
    } else if (json_is_object(root)) {
        json_object_foreach(root, k, v)
        {
            if (json_is_object(v)) {
                unsigned g = 0;
                any = 1;
                if (!device_key(k, &g)) {
                    im->why_line = line_of(st->text.data, st->text.len, k);
                    rc = vs_import_refuse(im, "\"%.40s\" is not a device (\"0\", \"cuda:1\")", k);
                    break;
                }
                if ((rc = one_device(im, st, v, 1, g)) < 0)
                    break;
            }
        }
        if (!any && rc == 0)
            rc = one_device(im, st, root, 0, 0);
    } else {
        im->why_line = 1;
        rc = vs_import_refuse(im, "a memory_stats() dump is a JSON object");
    }
    json_decref(root);
    return rc;
}

static void torch_clear(void *state)
{
    torch_state *st = state;
    if (st->started)
        vs_buf_free(&st->text);
    st->started = 0;
}

const vs_importer vs_import_torch = {
    "torch",
    "a JSON dump of torch.cuda.memory_stats() (one object, or one per GPU): "
    "allocated/reserved/active/requested_bytes.all.peak and .current in exact bytes, "
    "num_ooms and num_alloc_retries as counts",
    sizeof(torch_state),
    torch_sniff,
    torch_line,
    torch_finish,
    torch_clear,
};
