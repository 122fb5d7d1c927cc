#include "sheet/envelope.h"

#include <stdlib.h>
#include <string.h>

#include "sheet/placement.h"
#include "sheet/sheet.h"

unsigned vs_format_bits(const char *format)
{
    static const struct {
        const char *name;
        unsigned bits;
    } t[] = {{"fp32", 32}, {"fp16", 16}, {"bf16", 16}, {"fp8", 8},
             {"int8", 8},  {"int4", 4},  {"nf4", 4},   {"fp4", 4}};
    size_t i;
    if (!format)
        return 0;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(format, t[i].name))
            return t[i].bits;
    if (!strncmp(format, "bits=", 5)) {
        const char *p = format + 5;
        unsigned v = 0;
        if (*p < '1' || *p > '9')
            return 0;
        for (; *p; p++) {
            if (*p < '0' || *p > '9' || v > 64)
                return 0;
            v = v * 10 + (unsigned)(*p - '0');
        }
        return v >= 1 && v <= 64 ? v : 0;
    }
    return 0;
}

const char *vs_format_quant_note(unsigned bits)
{
    if (bits == 0 || bits > 8)
        return NULL;
    return "quantised weights: scales, metadata and layers kept in another format are not "
           "included, so this is not a guaranteed peak";
}

unsigned vs_sheet_weight_bits(const json_t *sheet)
{
    uint64_t bits;
    if (vs_sheet_card_uint(sheet, "bits", &bits) && bits > 0 && bits <= 64)
        return (unsigned)bits;
    return vs_format_bits(json_string_value(json_object_get(vs_sheet_card(sheet), "format")));
}

int vs_weights_bytes(uint64_t *out, uint64_t params, unsigned bits, vs_error *err)
{
    /* params = 8q + r, so params x bits / 8 = q x bits + r x bits / 8: only the
     * last term has a fraction, and it rounds up. */
    uint64_t q = params / 8, r = params % 8, v;
    if (__builtin_mul_overflow(q, (uint64_t)bits, &v) ||
        __builtin_add_overflow(v, (r * bits + 7) / 8, &v) || v > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT,
                            "the weights (%llu params x %u bits) exceed the largest amount a "
                            "record holds, 9,223,372,036,854,775,807 B (2^63 - 1)",
                            (unsigned long long)params, bits);
    *out = v;
    return 0;
}

int vs_envelope_compute(vs_envelope *out, const json_t *sheet, vs_error *err)
{
    vs_envelope e;
    vs_placement pl;
    json_t *wf = json_object_get(sheet, "weights_files"), *c;
    json_t *comps = vs_sheet_array(sheet, "components");
    uint64_t params;
    unsigned bits;
    size_t i;
    int rc;
    memset(&e, 0, sizeof e);
    if ((rc = vs_placement_from_sheet(&pl, sheet, err)))
        return rc;
    e.gpus = pl.gpus;
    bits = vs_sheet_weight_bits(sheet);
    if (json_is_object(wf) && json_is_integer(json_object_get(wf, "bytes")) &&
        json_integer_value(json_object_get(wf, "bytes")) >= 0) {
        e.weights_known = 1;
        e.weights_bytes = (uint64_t)json_integer_value(json_object_get(wf, "bytes"));
        e.weights_basis = "safetensors files";
    } else if (vs_sheet_card_uint(sheet, "params", &params) && bits > 0) {
        if ((rc = vs_weights_bytes(&e.weights_bytes, params, bits, err)))
            return rc;
        e.weights_known = 1;
        e.weights_basis = "params x bits / 8";
    }
    if (e.weights_known)
        e.weights_gpu_bytes = vs_placement_per_gpu(&pl, "weights", e.weights_bytes);
    /* json_array_foreach evaluates its array argument on every turn */
    json_array_foreach(comps, i, c)
    {
        vs_component_view v;
        uint64_t per;
        vs_component_view_read(&v, c);
        if (!v.known) {
            e.n_unknown++;
            continue;
        }
        per = vs_placement_per_gpu(&pl, json_string_value(v.cls), v.value);
        if (__builtin_add_overflow(e.reserve_bytes, per, &e.reserve_bytes))
            return vs_error_set(err, VS_EUNIT, "the reserve does not fit in 64 bits");
        e.conservative = 1;
    }
    /* records keep bytes as JSON integers, which are signed 64-bit */
    if (__builtin_add_overflow(e.weights_gpu_bytes, e.reserve_bytes, &e.envelope_bytes) ||
        e.envelope_bytes > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT,
                            "the envelope exceeds the largest amount a record holds, "
                            "9,223,372,036,854,775,807 B (2^63 - 1)");
    *out = e;
    return 0;
}

static json_t *bytes_or_null(int known, uint64_t v)
{
    return known ? json_integer((json_int_t)v) : json_null();
}

/* A string of the sheet (shared: scalars are never mutated), or null. */
static json_t *shared_string(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

json_t *vs_envelope_payload(const vs_envelope *env, const json_t *sheet)
{
    json_t *p = NULL, *comps = NULL, *unknown = NULL, *notes = NULL, *c,
           *card = vs_sheet_card(sheet), *sheet_comps = vs_sheet_array(sheet, "components");
    vs_placement pl;
    size_t i;
    unsigned bits = vs_sheet_weight_bits(sheet);
    uint64_t params;
    int have_params = vs_sheet_card_uint(sheet, "params", &params);
    const char *note;
    if (vs_placement_from_sheet(&pl, sheet, NULL)) {
        pl.kind = VS_PLACE_SINGLE;
        pl.gpus = 1;
        pl.stage = 0;
    }
    comps = json_array();
    unknown = json_array();
    notes = json_array();
    if (!comps || !unknown || !notes)
        goto fail;
    json_array_foreach(sheet_comps, i, c)
    {
        vs_component_view v;
        const char *cls;
        json_t *o;
        vs_component_view_read(&v, c);
        cls = json_string_value(v.cls);
        /* Built key by key, sharing the sheet's strings: json_pack parses its
         * format for every one of a long sheet's components. */
        o = json_object();
        if (!o || json_array_append_new(comps, o) ||
            json_object_set_new_nocheck(o, "name", shared_string(v.name)) ||
            json_object_set_new_nocheck(o, "bytes", bytes_or_null(v.known, v.value)) ||
            json_object_set_new_nocheck(o, "status", shared_string(v.status)) ||
            json_object_set_new_nocheck(o, "source", shared_string(v.source)) ||
            json_object_set_new_nocheck(o, "phase", shared_string(v.phase)) ||
            json_object_set_new_nocheck(o, "class",
                                        cls ? shared_string(v.cls) : json_string_nocheck("other")) ||
            json_object_set_new_nocheck(
                o, "gpu_bytes", bytes_or_null(v.known, vs_placement_per_gpu(&pl, cls, v.value))) ||
            json_object_set_new_nocheck(o, "ways",
                                        json_integer((json_int_t)vs_placement_ways(&pl, cls))))
            goto fail;
        if (!v.known && v.name && json_array_append_new(unknown, shared_string(v.name)))
            goto fail;
    }
    if (env->weights_known && env->weights_basis &&
        !strcmp(env->weights_basis, "params x bits / 8") && (note = vs_format_quant_note(bits)))
        json_array_append_new(notes, json_string(note));
    if (env->conservative)
        json_array_append_new(notes,
                              json_string("a conservative envelope: a sum of independent maxima, "
                                          "not an observed peak"));
    if (env->n_unknown)
        json_array_append_new(notes, json_string("unknown components are missing from the "
                                                 "envelope, not counted as zero: it is only the "
                                                 "known part"));
    p = json_pack(
        "{s:s, s:o, s:o, s:s?, s:o, s:I, s:I, s:b, s:b, s:o, s:o, s:I, s:o, s:o, s:o,"
        " s:s?, s:o}",
        "kind", "envelope", "weights_bytes", bytes_or_null(env->weights_known, env->weights_bytes),
        "weights_gpu_bytes", bytes_or_null(env->weights_known, env->weights_gpu_bytes),
        "weights_basis", env->weights_known ? env->weights_basis : NULL, "weights_known",
        json_boolean(env->weights_known), "reserve_bytes", (json_int_t)env->reserve_bytes,
        "envelope_bytes", (json_int_t)env->envelope_bytes, "conservative", env->conservative,
        "complete", env->weights_known && env->n_unknown == 0, "components", comps, "unknown",
        unknown, "gpus", (json_int_t)env->gpus, "placement", vs_placement_to_json(&pl), "params",
        bytes_or_null(have_params, params), "bits", bits ? json_integer(bits) : json_null(),
        "format", json_string_value(json_object_get(card, "format")), "notes", notes);
    if (p && !json_object_get(p, "weights_basis"))
        json_object_set_new(p, "weights_basis", json_null());
    if (p && !json_object_get(p, "format"))
        json_object_set_new(p, "format", json_null());
    return p;
fail:
    json_decref(comps);
    json_decref(unknown);
    json_decref(notes);
    return NULL;
}
