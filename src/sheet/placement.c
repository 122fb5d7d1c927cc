#include "sheet/placement.h"

#include <stdio.h>
#include <string.h>

#include "sheet/sheet_access.h"
#include "sheet/vocab.h"

static const char *const kind_names[] = {"single", "ddp", "zero", "fsdp", "tensor"};

int vs_placement_kind_parse(vs_place_kind *out, const char *name, vs_error *err)
{
    size_t i;
    if (name && !strcmp(name, "tp")) { /* tensor parallelism, as engines spell it */
        *out = VS_PLACE_TENSOR;
        return 0;
    }
    for (i = 0; name && i < sizeof kind_names / sizeof kind_names[0]; i++) {
        if (!strcmp(name, kind_names[i])) {
            *out = (vs_place_kind)i;
            return 0;
        }
    }
    return vs_error_set(err, VS_EVALUE,
                        "placement must be single, ddp, zero, fsdp or tensor (tp), not '%s'",
                        name ? name : "");
}

const char *vs_placement_kind_name(vs_place_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : "single";
}

int vs_offload_parse(vs_offload *out, const char *name, vs_error *err)
{
    if (name && !strcmp(name, "model"))
        *out = VS_OFFLOAD_MODEL;
    else if (name && !strcmp(name, "sequential"))
        *out = VS_OFFLOAD_SEQUENTIAL;
    else if (name && !strcmp(name, "none"))
        *out = VS_OFFLOAD_NONE;
    else
        return vs_error_set(err, VS_EVALUE, "offload= must be model, sequential or none, not '%s'",
                            name ? name : "");
    return 0;
}

const char *vs_offload_name(vs_offload o)
{
    return o == VS_OFFLOAD_MODEL ? "model" : o == VS_OFFLOAD_SEQUENTIAL ? "sequential" : NULL;
}

void vs_placement_offload_weights(const vs_placement *p, const json_t *weights_files,
                                  uint64_t whole, uint64_t per_gpu_whole, uint64_t *gpu,
                                  uint64_t *host, const char **basis)
{
    json_t *comps = json_object_get(weights_files, "components"), *c;
    uint64_t best = 0, pinned = 0;
    size_t i;
    int any = 0;
    if (p->offload == VS_OFFLOAD_NONE) {
        *gpu = per_gpu_whole;
        *host = 0;
        *basis = NULL;
        return;
    }
    *host = whole;
    json_array_foreach(comps, i, c)
    {
        json_t *v =
            json_object_get(c, p->offload == VS_OFFLOAD_MODEL ? "bytes" : "largest_group_bytes");
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            continue;
        any = 1;
        if (vs_placement_pinned(p, c)) { /* on the GPU throughout, never in host memory */
            pinned += (uint64_t)json_integer_value(v);
            continue;
        }
        if ((uint64_t)json_integer_value(v) > best)
            best = (uint64_t)json_integer_value(v);
    }
    if (!any) {
        *gpu = whole;
        *basis = p->offload == VS_OFFLOAD_MODEL
                     ? "the whole model: read as one checkpoint, it is one component"
                     : "the whole model: no pipeline components with modules were read";
        return;
    }
    *gpu = best + pinned;
    *host = whole > pinned ? whole - pinned : 0;
    *basis = pinned ? "the largest component (model CPU offload) and the bitsandbytes 8-bit "
                      "ones, which it leaves on the GPU"
             : p->offload == VS_OFFLOAD_MODEL ? "the largest component (model CPU offload)"
                                              : "the largest module of any component, its own "
                                                "tensors (sequential CPU offload)";
}

int vs_placement_pinned(const vs_placement *p, const json_t *component)
{
    /* `format bnb-int8 components=` puts its scheme first in by_dtype */
    const char *q = json_string_value(
        json_object_get(json_array_get(json_object_get(component, "by_dtype"), 0), "dtype"));
    return p->offload == VS_OFFLOAD_MODEL && q && !strcmp(q, "bnb-int8");
}

int vs_placement_loads_on_gpu(const json_t *component)
{
    const char *q = json_string_value(
        json_object_get(json_array_get(json_object_get(component, "by_dtype"), 0), "dtype"));
    return q && !strncmp(q, "bnb-", 4);
}

int vs_placement_check(const vs_placement *p, vs_error *err)
{
    if ((unsigned)p->kind > VS_PLACE_TENSOR)
        return vs_error_set(err, VS_EVALUE, "unknown placement kind");
    if (p->gpus < 1)
        return vs_error_set(err, VS_EVALUE, "a placement needs gpus=1 or more");
    if (p->kind == VS_PLACE_SINGLE && p->gpus != 1)
        return vs_error_set(err, VS_EVALUE,
                            "placement single is one GPU; several GPUs only count with a named "
                            "placement (ddp, zero, fsdp, tensor)");
    if (p->kind == VS_PLACE_ZERO && (p->stage < 1 || p->stage > 3))
        return vs_error_set(err, VS_EVALUE, "placement zero needs stage=1, 2 or 3");
    if (p->kind != VS_PLACE_ZERO && p->stage != 0)
        return vs_error_set(err, VS_EVALUE, "stage= belongs to placement zero only");
    if (p->offload != VS_OFFLOAD_NONE && (p->kind != VS_PLACE_SINGLE || p->gpus != 1))
        return vs_error_set(err, VS_EVALUE,
                            "offload= is one GPU with the weights in host memory (diffusers' "
                            "enable_model_cpu_offload, enable_sequential_cpu_offload): placement "
                            "single only");
    return 0;
}

int vs_placement_from_sheet(vs_placement *out, const json_t *sheet, vs_error *err)
{
    json_t *pl = vs_sheet_get(sheet, VS_SK_PLACEMENT), *g, *st, *off;
    vs_placement p = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_NONE};
    int rc;
    if (json_is_object(pl)) {
        const char *k = json_string_value(vs_sheet_placement_field(pl, VS_PK_KIND));
        if (k && (rc = vs_placement_kind_parse(&p.kind, k, err)))
            return rc;
        g = vs_sheet_placement_field(pl, VS_PK_GPUS);
        st = vs_sheet_placement_field(pl, VS_PK_STAGE);
        off = vs_sheet_placement_field(pl, VS_PK_OFFLOAD);
        if (json_is_string(off) && (rc = vs_offload_parse(&p.offload, json_string_value(off), err)))
            return rc;
        if (json_is_integer(g)) {
            if (json_integer_value(g) < 1 || json_integer_value(g) > 1000000)
                return vs_error_set(err, VS_EVALUE, "placement gpus must be 1 to 1000000");
            p.gpus = (unsigned)json_integer_value(g);
        }
        if (json_is_integer(st)) {
            if (json_integer_value(st) < 0 || json_integer_value(st) > 3)
                return vs_error_set(err, VS_EVALUE, "placement stage must be 1, 2 or 3");
            p.stage = (unsigned)json_integer_value(st);
        }
    }
    if ((rc = vs_placement_check(&p, err)))
        return rc;
    *out = p;
    return 0;
}

json_t *vs_placement_to_json(const vs_placement *p)
{
    json_t *j = json_pack("{s:s, s:I, s:o}", "kind", vs_placement_kind_name(p->kind), "gpus",
                          (json_int_t)p->gpus, "stage",
                          p->kind == VS_PLACE_ZERO ? json_integer(p->stage) : json_null());
    /* "offload" only when there is one: a record without it loads as none */
    if (j && p->offload != VS_OFFLOAD_NONE &&
        json_object_set_new(j, "offload", json_string(vs_offload_name(p->offload)))) {
        json_decref(j);
        return NULL;
    }
    return j;
}

unsigned vs_placement_ways(const vs_placement *p, const char *cls)
{
    vs_vocab_class c;
    int params, grads, optim, kv;
    /* one GPU, or replicas: every component whole (asked per component of
     * every envelope, so answered before any name is compared) */
    if (p->gpus <= 1 || p->kind == VS_PLACE_SINGLE || p->kind == VS_PLACE_DDP)
        return 1;
    c = vs_vocab_class_of(cls);
    params = c == VS_CLASS_PARAMETERS;
    grads = c == VS_CLASS_GRADIENTS;
    optim = c == VS_CLASS_OPTIMIZER;
    kv = c == VS_CLASS_KV_CACHE;
    switch (p->kind) {
    case VS_PLACE_ZERO:
        if (optim || (grads && p->stage >= 2) || (params && p->stage >= 3))
            return p->gpus;
        return 1;
    case VS_PLACE_FSDP:
        return (optim || grads || params) ? p->gpus : 1;
    case VS_PLACE_TENSOR:
        return (params || kv) ? p->gpus : 1;
    default:
        return 1; /* single; ddp replicates everything */
    }
}

uint64_t vs_placement_per_gpu(const vs_placement *p, const char *cls, uint64_t bytes)
{
    unsigned n = vs_placement_ways(p, cls);
    if (n <= 1)
        return bytes;
    return bytes / n + (bytes % n != 0);
}

uint64_t vs_placement_weights_per_gpu(const vs_placement *p, const json_t *weights_files,
                                      uint64_t whole)
{
    const json_t *r = json_object_get(weights_files, "replicated_bytes");
    uint64_t rep;
    if (p->kind != VS_PLACE_TENSOR || p->gpus <= 1 || !json_is_integer(r) ||
        json_integer_value(r) <= 0 || (uint64_t)json_integer_value(r) > whole)
        return vs_placement_per_gpu(p, VS_VOCAB_WEIGHTS, whole);
    rep = (uint64_t)json_integer_value(r);
    return rep + vs_placement_per_gpu(p, VS_VOCAB_WEIGHTS, whole - rep);
}

const char *vs_placement_describe(const vs_placement *p, char *out, size_t outlen)
{
    switch (p->kind) {
    case VS_PLACE_DDP:
        snprintf(out, outlen, "DDP on %u GPUs (everything replicated)", p->gpus);
        break;
    case VS_PLACE_ZERO:
        snprintf(out, outlen, "ZeRO stage %u on %u GPUs (%s sharded)", p->stage, p->gpus,
                 p->stage == 1   ? "optimizer state"
                 : p->stage == 2 ? "optimizer state and gradients"
                                 : "optimizer state, gradients and parameters");
        break;
    case VS_PLACE_FSDP:
        snprintf(out, outlen, "FSDP on %u GPUs (optimizer state, gradients and parameters sharded)",
                 p->gpus);
        break;
    case VS_PLACE_TENSOR:
        snprintf(out, outlen, "tensor parallel on %u GPUs (weights and KV cache split)", p->gpus);
        break;
    default:
        if (p->offload == VS_OFFLOAD_MODEL)
            snprintf(out, outlen,
                     "single GPU, model CPU offload (one component on the GPU at a "
                     "time)");
        else if (p->offload == VS_OFFLOAD_SEQUENTIAL)
            snprintf(out, outlen,
                     "single GPU, sequential CPU offload (one module's weights on the "
                     "GPU at a time)");
        else
            snprintf(out, outlen, "single GPU");
        break;
    }
    return out;
}
