#include "sheet/envelope.h"

#include "sheet/derived.h"

#include <stdlib.h>
#include <string.h>

#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/checked.h"

int vs_envelope_format_bits(unsigned *bits, const char *format, vs_error *err)
{
    vs_vocab_format f;
    return vs_vocab_format_parse(&f, bits, format, err);
}

const char *vs_envelope_format_quant_note(unsigned bits)
{
    if (bits == 0 || bits > 8)
        return NULL;
    return "quantised weights: scales, metadata and layers kept in another format are not "
           "included, so this is not a guaranteed peak";
}

int vs_sheet_weight_bits(const json_t *sheet, unsigned *bits)
{
    uint64_t v;
    if (vs_sheet_card_uint(sheet, VS_CK_BITS, &v) && v > 0 && v <= 64) {
        *bits = (unsigned)v;
        return 1;
    }
    return vs_envelope_format_bits(bits, vs_sheet_card_str(sheet, VS_CK_FORMAT), NULL) == 0;
}

int vs_envelope_weights_bytes(uint64_t *out, uint64_t params, unsigned bits, vs_error *err)
{
    /* params = 8q + r, so params x bits / 8 = q x bits + r x bits / 8: only the
     * last term has a fraction, and it rounds up. */
    uint64_t q = params / 8, r = params % 8, v;
    if (vs_checked_mul(&v, q, (uint64_t)bits) || vs_checked_add(&v, v, (r * bits + 7) / 8) ||
        v > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT,
                            "the weights (%llu params x %u bits) exceed the largest amount a "
                            "record holds, 9,223,372,036,854,775,807 B (2^63 - 1)",
                            (unsigned long long)params, bits);
    *out = v;
    return 0;
}

/* What phase `in` (NULL: the plain sum) holds of the components that are
 * managed (want_cache 0) or allocator cache (1), per GPU. */
static uint64_t held(const vs_component_views *views, const vs_placement *pl, const char *in,
                     int want_cache)
{
    uint64_t sum = 0;
    size_t i;
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        if (!v->known || !(want_cache ? v->cache : v->managed) ||
            (in && !vs_phases_holds(json_string_value(v->phase), in)))
            continue;
        sum += vs_placement_per_gpu(pl, json_string_value(v->cls), v->value);
    }
    return sum;
}

/* cache_bytes and tensors_bytes of e. The tensors' peak is the largest of
 * the phases' tensors, which need not be in the phase the cache makes worst
 * (a decode whose reserved-but-free memory outweighs the denoising). */
static void tensors_part(vs_envelope *e, const vs_component_views *views, const vs_placement *pl)
{
    size_t j;
    if (!held(views, pl, NULL, 1))
        return; /* no cache: the tensors are the allocator's whole part */
    if (!e->phases.n) {
        e->cache_bytes = held(views, pl, NULL, 1);
        if (e->cache_bytes > e->allocator_bytes)
            e->cache_bytes = e->allocator_bytes;
        e->tensors_bytes = e->allocator_bytes - e->cache_bytes;
        return;
    }
    e->cache_bytes = held(views, pl, e->phases.row[e->phases.worst].name, 1);
    if (e->cache_bytes > e->allocator_bytes)
        e->cache_bytes = e->allocator_bytes;
    e->tensors_bytes = 0;
    for (j = 0; j < e->phases.n; j++) {
        const vs_phase_row *r = &e->phases.row[j];
        uint64_t out = held(views, pl, r->name, 0) + held(views, pl, r->name, 1);
        uint64_t t = r->bytes > out ? r->bytes - out : 0;
        if (t > e->tensors_bytes)
            e->tensors_bytes = t;
    }
    /* what is allocated is reserved too: never above the allocator's peak */
    if (e->tensors_bytes > e->allocator_bytes)
        e->tensors_bytes = e->allocator_bytes;
}

/* The envelope of the components in views (see vs_envelope_compute). */
static int compute(vs_envelope *out, const json_t *sheet, const vs_component_views *views,
                   vs_error *err)
{
    vs_envelope e;
    vs_placement pl;
    json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    uint64_t params;
    unsigned bits = 0;
    int bits_known;
    size_t i;
    int rc;
    memset(&e, 0, sizeof e);
    if ((rc = vs_placement_from_sheet(&pl, sheet, err)))
        return rc;
    e.gpus = pl.gpus;
    bits_known = vs_sheet_weight_bits(sheet, &bits);
    if (json_is_object(wf) && json_is_integer(json_object_get(wf, "bytes")) &&
        json_integer_value(json_object_get(wf, "bytes")) >= 0) {
        e.weights_known = 1;
        e.weights_bytes = (uint64_t)json_integer_value(json_object_get(wf, "bytes"));
        /* a tally of the tensor list under a quantisation scheme (model/quant.h);
         * a loader's own figure (`measured weights`): one GPU's, as the log printed it */
        e.weights_basis = json_is_string(json_object_get(wf, "measured")) ? "measured"
                          : json_is_string(json_object_get(wf, "scheme")) ? "tensor list"
                                                                          : "safetensors files";
    } else if (vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params) && bits_known) {
        if ((rc = vs_envelope_weights_bytes(&e.weights_bytes, params, bits, err)))
            return rc;
        e.weights_known = 1;
        e.weights_basis = "params x bits / 8";
    }
    if (e.weights_known && !strcmp(e.weights_basis, "measured")) {
        e.weights_gpu_bytes = e.weights_bytes; /* already one GPU's share */
    } else if (e.weights_known) {
        e.weights_gpu_bytes = vs_placement_weights_per_gpu(&pl, wf, e.weights_bytes);
        /* offload=: the GPU holds one component (or block) of the weights */
        vs_placement_offload_weights(&pl, wf, e.weights_bytes, e.weights_gpu_bytes,
                                     &e.weights_gpu_bytes, &e.host_bytes, &e.offload_basis);
    }
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        uint64_t per;
        if (!v->known) {
            e.n_unknown++;
            continue;
        }
        per = vs_placement_per_gpu(&pl, json_string_value(v->cls), v->value);
        if (vs_checked_add(&e.reserve_bytes, e.reserve_bytes, per))
            return vs_error_set(err, VS_EUNIT, "the reserve does not fit in 64 bits");
        e.conservative = 1;
    }
    /* a measured component stands for the card only while its measurement
     * validates the card */
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        vs_buf why = VS_BUF_INIT;
        /* the buffer only for a measured one: the rest, most of a long
         * reserve, pass with a status compared (the envelope is computed by
         * several verbs a cell) */
        if (!vs_vocab_status_is(json_string_value(v->status), VS_STATUS_MEASURED))
            continue;
        if (!vs_derived_component_stale(
                sheet, json_array_get(vs_sheet_array(sheet, VS_SK_COMPONENTS), i), &why)) {
            vs_buf_free(&why);
            continue;
        }
        snprintf(e.stale + strlen(e.stale), sizeof e.stale - strlen(e.stale), "%s%s (%s)",
                 e.n_stale ? ", " : "",
                 json_string_value(v->name) ? json_string_value(v->name) : "?", vs_buf_str(&why));
        e.n_stale++;
        vs_buf_free(&why);
    }
    /* records keep bytes as JSON integers, which are signed 64-bit */
    if (vs_checked_add(&e.sum_bytes, e.weights_gpu_bytes, e.reserve_bytes) ||
        e.sum_bytes > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT,
                            "the envelope exceeds the largest amount a record holds, "
                            "9,223,372,036,854,775,807 B (2^63 - 1)");
    e.envelope_bytes = e.sum_bytes;
    /* under offload the components are on the GPU in turn: the worst phase */
    if (e.weights_known &&
        (rc = vs_phases_compute(&e.phases, sheet, views, &pl, e.weights_gpu_bytes, err)) < 0)
        return rc;
    if (e.phases.n)
        e.envelope_bytes = e.phases.row[e.phases.worst].bytes;
    /* managed memory: the device's, not the allocator's (in the worst phase
     * when the phases are the basis) */
    e.managed_bytes = held(views, &pl, e.phases.n ? e.phases.row[e.phases.worst].name : NULL, 0);
    if (e.managed_bytes > e.envelope_bytes) /* a managed component over its phase: never */
        e.managed_bytes = e.envelope_bytes;
    e.allocator_bytes = e.envelope_bytes - e.managed_bytes;
    e.tensors_bytes = e.allocator_bytes;
    tensors_part(&e, views, &pl);
    *out = e;
    return 0;
}

int vs_envelope_compute(vs_envelope *out, const json_t *sheet, const vs_component_views *views,
                        vs_error *err)
{
    vs_component_views own;
    int rc;
    if (views)
        return compute(out, sheet, views, err);
    if (vs_component_views_read(&own, sheet) < 0)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    rc = compute(out, sheet, &own, err);
    vs_component_views_free(&own);
    return rc;
}
