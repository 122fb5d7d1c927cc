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
    if (vs_sheet_card_uint(sheet, "bits", &v) && v > 0 && v <= 64) {
        *bits = (unsigned)v;
        return 1;
    }
    return vs_envelope_format_bits(
               bits, json_string_value(json_object_get(vs_sheet_card(sheet), "format")), NULL) == 0;
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

/* The envelope of the components in views (see vs_envelope_compute). */
static int compute(vs_envelope *out, const json_t *sheet, const vs_component_views *views,
                   vs_error *err)
{
    vs_envelope e;
    vs_placement pl;
    json_t *wf = json_object_get(sheet, "weights_files");
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
    } else if (vs_sheet_card_uint(sheet, "params", &params) && bits_known) {
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
        if (!vs_vocab_status_is(json_string_value(v->status), VS_STATUS_MEASURED) ||
            !vs_derived_component_stale(
                sheet, json_array_get(vs_sheet_array(sheet, "components"), i), &why)) {
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

void vs_envelope_payload_write(vs_jw *w, const vs_envelope *env, const json_t *sheet,
                               const vs_component_views *views)
{
    json_t *card = vs_sheet_card(sheet);
    vs_placement pl;
    size_t i;
    unsigned bits = 0;
    int bits_known = vs_sheet_weight_bits(sheet, &bits);
    uint64_t params;
    int have_params = vs_sheet_card_uint(sheet, "params", &params);
    const char *note;
    vs_buf unknown = VS_BUF_INIT;
    vs_jw uw = VS_JW_INIT(&unknown);
    if (vs_placement_from_sheet(&pl, sheet, NULL)) {
        pl.kind = VS_PLACE_SINGLE;
        pl.gpus = 1;
        pl.stage = 0;
    }
    vs_jw_open(&uw, '[');
    vs_jw_member_str(w, "kind", "envelope");
    vs_jw_member_bytes(w, "weights_bytes", env->weights_known, env->weights_bytes);
    vs_jw_member_bytes(w, "weights_gpu_bytes", env->weights_known, env->weights_gpu_bytes);
    vs_jw_member_str(w, "weights_basis", env->weights_known ? env->weights_basis : NULL);
    vs_jw_member_bool(w, "weights_known", env->weights_known);
    vs_jw_member_u64(w, "host_bytes", env->host_bytes);
    vs_jw_member_str(w, "offload_basis", env->offload_basis);
    {
        /* a pipeline's weights, one row per component (model/pipeline_files.h) */
        json_t *wc = json_object_get(json_object_get(sheet, "weights_files"), "components"), *c;
        vs_jw_key(w, "weights_components");
        if (!json_is_array(wc))
            vs_jw_null(w);
        else {
            vs_jw_open(w, '[');
            json_array_foreach(wc, i, c)
            {
                vs_jw_open(w, '{');
                vs_jw_member_str(w, "name", json_string_value(json_object_get(c, "name")));
                vs_jw_member_str(w, "class", json_string_value(json_object_get(c, "class")));
                vs_jw_member_u64(w, "bytes",
                                 (uint64_t)json_integer_value(json_object_get(c, "bytes")));
                vs_jw_member_u64(
                    w, "largest_group_bytes",
                    (uint64_t)json_integer_value(json_object_get(c, "largest_group_bytes")));
                vs_jw_close(w, '}');
            }
            vs_jw_close(w, ']');
        }
    }
    vs_jw_member_u64(w, "reserve_bytes", env->reserve_bytes);
    vs_jw_member_u64(w, "envelope_bytes", env->envelope_bytes);
    vs_jw_member_u64(w, "sum_bytes", env->sum_bytes);
    vs_jw_member_str(w, "peak_basis", env->phases.n ? "worst phase" : "sum");
    vs_jw_member_str(w, "worst_phase",
                     env->phases.n ? env->phases.row[env->phases.worst].name : NULL);
    vs_jw_key(w, "phases");
    vs_jw_open(w, '[');
    for (i = 0; i < env->phases.n; i++) {
        const vs_phase_row *r = &env->phases.row[i];
        vs_jw_open(w, '{');
        vs_jw_member_str(w, "name", r->name);
        vs_jw_member_u64(w, "weights_gpu_bytes", r->weights_bytes);
        vs_jw_member_str(w, "weights_of", r->weights_of);
        vs_jw_member_u64(w, "reserve_bytes", r->reserve_bytes);
        vs_jw_member_u64(w, "bytes", r->bytes);
        vs_jw_member_u64(w, "unknown", r->n_unknown);
        vs_jw_close(w, '}');
    }
    vs_jw_close(w, ']');
    vs_jw_member_bool(w, "conservative", env->conservative);
    vs_jw_member_bool(w, "complete", env->weights_known && env->n_unknown == 0);
    /* Written, not built as a tree: a long sheet has hundreds of components,
     * and this payload is most of an `envelope` result. */
    vs_jw_key(w, "components");
    vs_jw_open(w, '[');
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        const char *cls = json_string_value(v->cls);
        vs_jw_open(w, '{');
        vs_component_view_write(v, w);
        vs_jw_member_bytes(w, "gpu_bytes", v->known, vs_placement_per_gpu(&pl, cls, v->value));
        vs_jw_member_u64(w, "ways", vs_placement_ways(&pl, cls));
        if (env->n_stale && vs_vocab_status_is(json_string_value(v->status), VS_STATUS_MEASURED) &&
            vs_derived_component_stale(
                sheet, json_array_get(vs_sheet_array(sheet, "components"), i), NULL))
            vs_jw_member_str(w, "flag", VS_STALE_FLAG);
        vs_jw_close(w, '}');
        if (!v->known && v->name) /* the names list, written beside in the same walk */
            vs_jw_value(&uw, v->name);
    }
    vs_jw_close(w, ']');
    vs_jw_key(w, "unknown");
    vs_jw_close(&uw, ']');
    if (vs_buf_failed(&unknown))
        w->out->failed = 1;
    vs_jw_raw(w, vs_buf_str(&unknown), unknown.len);
    vs_buf_free(&unknown);
    vs_jw_member_u64(w, "gpus", env->gpus);
    vs_jw_key(w, "placement");
    vs_jw_open(w, '{');
    vs_jw_member_str(w, "kind", vs_placement_kind_name(pl.kind));
    vs_jw_member_u64(w, "gpus", pl.gpus);
    vs_jw_member_str(w, "offload", vs_offload_name(pl.offload));
    vs_jw_key(w, "stage");
    if (pl.kind == VS_PLACE_ZERO)
        vs_jw_i64(w, pl.stage);
    else
        vs_jw_null(w);
    vs_jw_close(w, '}');
    vs_jw_member_bytes(w, "params", have_params, params);
    vs_jw_member_bytes(w, "bits", bits_known, bits);
    vs_jw_member_str(w, "format", json_string_value(json_object_get(card, "format")));
    vs_jw_key(w, "notes");
    vs_jw_open(w, '[');
    if (env->weights_known && env->weights_basis &&
        !strcmp(env->weights_basis, "params x bits / 8") && bits_known &&
        (note = vs_envelope_format_quant_note(bits)))
        vs_jw_str(w, note);
    if (env->phases.n)
        vs_jw_str(w, "under CPU offload the components are on the GPU in turn: the envelope is "
                     "the worst phase of what the GPU holds in it; sum_bytes, the plain sum of "
                     "every maximum, is the conservative figure");
    if (env->conservative)
        vs_jw_str(w, "a conservative envelope: a sum of independent maxima, not an observed peak");
    if (env->n_unknown)
        vs_jw_str(w, "unknown components are missing from the envelope, not counted as zero: it "
                     "is only the known part");
    if (env->n_stale) {
        vs_buf sn = VS_BUF_INIT;
        vs_buf_printf(&sn,
                      "%s: %s; no capacity verdict is admissible on it until it is "
                      "measured again at the card's dims",
                      VS_STALE_FLAG, env->stale);
        vs_jw_str(w, vs_buf_str(&sn));
        vs_buf_free(&sn);
    }
    vs_jw_close(w, ']');
}
