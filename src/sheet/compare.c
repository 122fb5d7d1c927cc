/* compare.c — estimate against measurement per component class. */
#include "sheet/compare.h"

#include <limits.h>
#include <string.h>

#include "sheet/envelope.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"

/* A row's name: the component class it sums where there is one. */
static const char *row_name(int k)
{
    switch (k) {
    case VS_CMP_WEIGHTS:
        return VS_VOCAB_WEIGHTS;
    case VS_CMP_KV:
        return vs_vocab_class_name(VS_CLASS_KV_CACHE);
    case VS_CMP_ACTIVATIONS:
        return vs_vocab_class_name(VS_CLASS_ACTIVATIONS);
    case VS_CMP_NON_TORCH:
        return "non_torch";
    case VS_CMP_CUDA_GRAPHS:
        return "cuda_graphs";
    case VS_CMP_OTHER:
        return vs_vocab_class_name(VS_CLASS_OTHER);
    case VS_CMP_MANAGED:
        return "managed memory";
    case VS_CMP_CACHE:
        return "allocator cache";
    case VS_CMP_ALLOCATOR:
        return "allocator";
    case VS_CMP_TENSORS:
        return "tensors";
    case VS_CMP_UNACCOUNTED:
        return "unaccounted";
    default:
        return "total";
    }
}

/* Which counter stands for which class. Several counters of one class are
 * the same quantity as different programs print it (a llama.cpp buffer line
 * and its breakdown row): the largest is taken, never their sum. */
static const struct {
    const char *counter;
    int cls;
} counters[] = {
    {"vllm.model_weights", VS_CMP_WEIGHTS},
    {"llamacpp.model_buffer", VS_CMP_WEIGHTS},
    {"llamacpp.model", VS_CMP_WEIGHTS},
    {"vllm.kv_cache_memory", VS_CMP_KV},
    {"llamacpp.kv_buffer", VS_CMP_KV},
    {"llamacpp.context", VS_CMP_KV},
    {"vllm.activation_peak", VS_CMP_ACTIVATIONS},
    {"llamacpp.compute_buffer", VS_CMP_ACTIVATIONS},
    {"llamacpp.compute", VS_CMP_ACTIVATIONS},
    {"vllm.non_torch_memory", VS_CMP_NON_TORCH},
    {"vllm.cuda_graph_memory", VS_CMP_CUDA_GRAPHS},
    {"vllm.cuda_graph_memory_estimate", VS_CMP_CUDA_GRAPHS},
    {"sglang.model_weights", VS_CMP_WEIGHTS},
    {"sglang.kv_cache_memory", VS_CMP_KV},
    {"sglang.cuda_graph_memory", VS_CMP_CUDA_GRAPHS},
    {"trtllm.model_weights", VS_CMP_WEIGHTS},
    {"trtllm.kv_cache_memory", VS_CMP_KV},
    {"trtllm.execution_context", VS_CMP_ACTIVATIONS},
    {"llamacpp.output_buffer", VS_CMP_OTHER},
    {"llamacpp.rs_buffer", VS_CMP_OTHER},
};

/* Totals, most telling first: what the device had in use, else what the
 * engine says it holds. */
static const char *const totals[] = {VS_COUNTER_DEVICE, "nvidia-smi.memory.used", "llamacpp.self",
                                     "vllm.usable_memory", NULL};

/* PyTorch's caching-allocator counters, as a run or a log names them: what
 * the allocator made, never the CUDA managed memory beside it. Its reserved
 * segments, cached-but-free included (torch.cuda.max_memory_reserved,
 * memory_stats' reserved_bytes, torchtune.peak_memory_reserved): the
 * allocator row; its live tensors (max_memory_allocated, allocated_bytes,
 * active_bytes and requested_bytes, torchtune.peak_memory_alloc and
 * peak_memory_active): the tensors row. */
static int torch_counter_class(const char *counter)
{
    if (strstr(counter, "memory_reserved") || strstr(counter, "reserved_bytes"))
        return VS_CMP_ALLOCATOR;
    if (strstr(counter, "memory_allocated") || strstr(counter, "allocated_bytes") ||
        strstr(counter, "active_bytes") || strstr(counter, "requested_bytes") ||
        !strncmp(counter, "torchtune.peak_memory_", 22))
        return VS_CMP_TENSORS;
    return VS_CMP_NONE;
}

int vs_compare_counter_class(const char *counter)
{
    size_t i;
    int torch;
    if (!counter)
        return VS_CMP_NONE;
    if ((torch = torch_counter_class(counter)) != VS_CMP_NONE)
        return torch;
    for (i = 0; totals[i]; i++)
        if (!strcmp(totals[i], counter))
            return VS_CMP_TOTAL;
    for (i = 0; i < sizeof counters / sizeof counters[0]; i++)
        if (!strcmp(counters[i].counter, counter))
            return counters[i].cls;
    return VS_CMP_NONE;
}

/* The class of measurement m: its scope when the importer recorded one that
 * names a PyTorch counter's part ("tensors": the tensors row, "allocator":
 * the allocator row; import_torch.c and import_torchtune.c read it from the
 * key, whatever the counter is called), else its counter's name. */
static int measurement_class(const json_t *m)
{
    const char *scope = json_string_value(json_object_get(m, "scope"));
    vs_vocab_scope s;
    if (scope && !vs_vocab_scope_parse(&s, scope, NULL)) {
        if (s == VS_SCOPE_TENSORS)
            return VS_CMP_TENSORS;
        if (s == VS_SCOPE_ALLOCATOR)
            return VS_CMP_ALLOCATOR;
    }
    return vs_compare_counter_class(json_string_value(json_object_get(m, "counter")));
}

/* The counters that say the engine found no room for the KV cache. */
static const char *const no_room_counters[] = {"vllm.no_kv_room", "sglang.no_kv_room",
                                               "vllm.kv_cache_shortfall", NULL};

static int is_no_room(const char *counter)
{
    size_t i;
    for (i = 0; counter && no_room_counters[i]; i++)
        if (!strcmp(no_room_counters[i], counter))
            return 1;
    return 0;
}

static int total_rank(const char *counter)
{
    int i;
    for (i = 0; totals[i]; i++)
        if (!strcmp(totals[i], counter))
            return i;
    return 99;
}

static int component_class(const char *name, const char *cls, int managed, int cache)
{
    vs_vocab_class c;
    if (managed)
        return VS_CMP_MANAGED;
    if (cache)
        return VS_CMP_CACHE;
    if (name && !strcmp(name, "non_torch"))
        return VS_CMP_NON_TORCH;
    if (name && !strcmp(name, "activation_peak"))
        return VS_CMP_ACTIVATIONS;
    if (name && !strcmp(name, "cuda_graphs"))
        return VS_CMP_CUDA_GRAPHS;
    if (vs_vocab_class_parse(&c, cls, NULL))
        return VS_CMP_OTHER;
    switch (c) {
    case VS_CLASS_KV_CACHE:
        return VS_CMP_KV;
    case VS_CLASS_ACTIVATIONS:
        return VS_CMP_ACTIVATIONS;
    case VS_CLASS_PARAMETERS:
        return VS_CMP_WEIGHTS;
    default:
        return VS_CMP_OTHER;
    }
}

static int overflow(vs_error *err)
{
    return vs_error_set(err, VS_EUNIT, "compare: bytes overflow");
}

/* 1 when m is a current byte measurement on gpu (or with no GPU). */
static int counts(const json_t *m, int gpu_known, unsigned gpu)
{
    json_t *g = json_object_get(m, "gpu"), *st = json_object_get(m, "state");
    if (!json_is_integer(json_object_get(m, "peak_bytes")))
        return 0;
    if (json_is_string(st) && strcmp(json_string_value(st), "current") != 0)
        return 0;
    return json_is_null(g) || !g || (gpu_known && json_integer_value(g) == (json_int_t)gpu);
}

static void set_status(vs_compare *out, vs_compare_row *r)
{
    if (!r->has_measured) {
        r->status = "not measured";
        return;
    }
    if (!r->has_estimate) {
        r->status = "not estimated";
        return;
    }
    r->has_delta = 1;
    r->delta_bytes = r->estimated_bytes - r->measured_bytes;
    if (r->delta_bytes < 0 && (uint64_t)(-r->delta_bytes) > r->resolution_bytes) {
        r->status = "under-estimate";
        out->under++;
    } else {
        r->status = "covers";
    }
}

int vs_compare_sheet(vs_compare *out, const json_t *sheet, int gpu_known, unsigned gpu,
                     vs_error *err)
{
    vs_placement pl;
    vs_envelope env;
    vs_component_views views;
    json_t *m;
    size_t i;
    int rc, k, best_total = 99;
    memset(out, 0, sizeof *out);
    for (k = 0; k < VS_CMP_NROWS; k++)
        out->rows[k].cls = row_name(k);
    if ((rc = vs_placement_from_sheet(&pl, sheet, err)) < 0)
        return rc;
    out->gpus = pl.gpus;
    if ((rc = vs_component_views_read(&views, sheet)) < 0)
        return vs_error_set(err, rc, "out of memory");
    if ((rc = vs_envelope_compute(&env, sheet, &views, err)) < 0)
        goto done;
    /* estimates, per GPU after placement */
    if (env.weights_known) {
        out->rows[VS_CMP_WEIGHTS].has_estimate = 1;
        out->rows[VS_CMP_WEIGHTS].estimated_bytes = (int64_t)env.weights_gpu_bytes;
    } else {
        out->rows[VS_CMP_WEIGHTS].unknown++;
    }
    for (i = 0; i < views.n; i++) {
        const vs_component_view *v = &views.v[i];
        const char *cls = json_string_value(v->cls);
        int c = component_class(json_string_value(v->name), cls, v->managed, v->cache);
        vs_compare_row *r = &out->rows[c];
        uint64_t per;
        if (!v->known) {
            r->unknown++;
            continue;
        }
        per = vs_placement_per_gpu(&pl, cls, v->value);
        if (per > (uint64_t)INT64_MAX - (uint64_t)r->estimated_bytes) {
            rc = overflow(err);
            goto done;
        }
        r->has_estimate = 1;
        r->estimated_bytes += (int64_t)per;
    }
    for (k = 0; k < VS_CMP_UNACCOUNTED; k++) {
        vs_compare_row *r = &out->rows[k], *t = &out->rows[VS_CMP_TOTAL];
        t->unknown += r->unknown;
        if (r->has_estimate) {
            if (r->estimated_bytes > INT64_MAX - t->estimated_bytes) {
                rc = overflow(err);
                goto done;
            }
            t->has_estimate = 1;
            t->estimated_bytes += r->estimated_bytes;
        }
    }
    /* the allocator's part: the total less the managed memory */
    if (out->rows[VS_CMP_TOTAL].has_estimate) {
        vs_compare_row *a = &out->rows[VS_CMP_ALLOCATOR];
        a->has_estimate = 1;
        a->unknown = out->rows[VS_CMP_TOTAL].unknown;
        a->estimated_bytes =
            out->rows[VS_CMP_TOTAL].estimated_bytes - out->rows[VS_CMP_MANAGED].estimated_bytes;
        /* the live tensors': the allocator's part less its reserved-but-free memory */
        out->rows[VS_CMP_TENSORS].has_estimate = 1;
        out->rows[VS_CMP_TENSORS].unknown = a->unknown;
        out->rows[VS_CMP_TENSORS].estimated_bytes =
            a->estimated_bytes - out->rows[VS_CMP_CACHE].estimated_bytes;
    }
    /* the GPU compared: the lowest index a mapped measurement names */
    if (!gpu_known) {
        vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
        {
            json_t *g = json_object_get(m, "gpu");
            if (json_is_integer(g) && json_integer_value(g) >= 0 &&
                json_integer_value(g) <= INT_MAX && measurement_class(m) != VS_CMP_NONE &&
                (!gpu_known || (unsigned)json_integer_value(g) < gpu)) {
                gpu = (unsigned)json_integer_value(g);
                gpu_known = 1;
            }
        }
    }
    out->gpu_known = gpu_known;
    out->gpu = gpu_known ? (int)gpu : 0;
    /* measurements: the largest of a class's counters */
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
    {
        const char *counter = json_string_value(json_object_get(m, "counter"));
        int c = measurement_class(m);
        int64_t b;
        vs_compare_row *r;
        json_t *res = json_object_get(m, "resolution_bytes"), *g = json_object_get(m, "gpu");
        if (is_no_room(counter) &&
            (json_is_null(g) || !g || (gpu_known && json_integer_value(g) == (json_int_t)gpu))) {
            out->no_room = 1;
            out->no_room_from = counter;
            if (json_is_integer(json_object_get(m, "peak_bytes"))) {
                out->has_shortfall = 1;
                out->shortfall_bytes = json_integer_value(json_object_get(m, "peak_bytes"));
            }
            continue;
        }
        if (c == VS_CMP_NONE || !counts(m, gpu_known, gpu))
            continue;
        b = json_integer_value(json_object_get(m, "peak_bytes"));
        r = &out->rows[c];
        if (c == VS_CMP_TOTAL) {
            int tr = total_rank(counter);
            if (tr > best_total || (tr == best_total && b <= r->measured_bytes))
                continue;
            best_total = tr;
        } else if (r->has_measured && b <= r->measured_bytes) {
            continue;
        }
        r->has_measured = 1;
        r->measured_bytes = b;
        r->resolution_bytes = json_is_integer(res) ? (uint64_t)json_integer_value(res) : 0;
        r->measured_from = counter;
    }
    /* no room: the pool the engine had is 0, whatever else was printed */
    if (out->no_room) {
        vs_compare_row *r = &out->rows[VS_CMP_KV];
        r->has_measured = 1;
        r->measured_bytes = 0;
        r->resolution_bytes = 0;
        r->measured_from = out->no_room_from;
    }
    /* unaccounted: the measured total minus the measured parts */
    {
        vs_compare_row *u = &out->rows[VS_CMP_UNACCOUNTED], *t = &out->rows[VS_CMP_TOTAL];
        int parts = 0;
        int64_t sum = 0;
        uint64_t res = t->resolution_bytes;
        for (k = 0; k < VS_CMP_UNACCOUNTED; k++)
            if (out->rows[k].has_measured) {
                parts = 1;
                sum += out->rows[k].measured_bytes;
                res += out->rows[k].resolution_bytes;
            }
        if (t->has_measured && parts) {
            u->has_measured = 1;
            u->measured_bytes = t->measured_bytes - sum;
            u->resolution_bytes = res;
            u->measured_from = t->measured_from;
            u->status = (u->measured_bytes < 0 ? (uint64_t)(-u->measured_bytes)
                                               : (uint64_t)u->measured_bytes) > res
                            ? "unaccounted"
                            : "accounted";
        } else {
            u->status = "not measured";
        }
    }
    for (k = 0; k < VS_CMP_NROWS; k++)
        if (k != VS_CMP_UNACCOUNTED)
            set_status(out, &out->rows[k]);
    if (out->no_room)
        out->rows[VS_CMP_KV].status = "engine found no room";
    rc = 0;
done:
    vs_component_views_free(&views);
    return rc;
}
