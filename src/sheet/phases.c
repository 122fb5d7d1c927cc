#include "sheet/phases.h"

#include <stdio.h>
#include <string.h>

#include "sheet/sheet_access.h"
#include "util/checked.h"

/* the order a pipeline runs them in: encode the prompt, denoise, decode */
static const char *const generation[] = {"encode", "denoise", "decode"};

/* what weights_of says of the load phase */
static const char load_weights[] = "the bitsandbytes components, quantised as they load";

/* The weights on the GPU while the pipeline loads, before any offload moves
 * them: every component bitsandbytes quantises (vs_placement_loads_on_gpu; a
 * pipeline's from_pretrained keeps each component it has loaded, so they
 * accumulate), plus the largest weight's 16-bit copy that bitsandbytes
 * quantises from (load_transient_bytes; one weight at a time). 0 when no
 * component loads to the GPU. 1 on overflow. */
static int load_weights_bytes(uint64_t *out, const json_t *wc)
{
    uint64_t sum = 0, transient = 0;
    json_t *c;
    size_t i;
    *out = 0;
    json_array_foreach(wc, i, c)
    {
        json_t *v = json_object_get(c, "bytes"), *t = json_object_get(c, "load_transient_bytes");
        if (!vs_placement_loads_on_gpu(c) || !json_is_integer(v) || json_integer_value(v) < 0)
            continue;
        if (vs_checked_add(&sum, sum, (uint64_t)json_integer_value(v)))
            return 1;
        if (json_is_integer(t) && json_integer_value(t) > 0 &&
            (uint64_t)json_integer_value(t) > transient)
            transient = (uint64_t)json_integer_value(t);
    }
    return sum && vs_checked_add(out, sum, transient);
}

const char *vs_phases_of_component(const char *name)
{
    if (!name)
        return "denoise";
    if (!strncmp(name, "vae", 3))
        return "decode";
    if (!strncmp(name, "text_encoder", 12) || !strncmp(name, "image_encoder", 13))
        return "encode";
    return "denoise";
}

/* A component's phase names one phase, or several between commas
 * ("loss,backward": what a training step saves in the forward is held through
 * the loss and the backward both). */
int vs_phases_holds(const char *phase, const char *in)
{
    size_t n = strlen(in);
    const char *p = phase;
    if (!phase || !*phase)
        return 1;
    while (p) {
        if (!strncmp(p, in, n) && (p[n] == 0 || p[n] == ','))
            return 1;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

static vs_phase_row *find(vs_phases *p, const char *name)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        if (!strcmp(p->row[i].name, name))
            return &p->row[i];
    return NULL;
}

static void add_phase(vs_phases *p, const char *name)
{
    if (find(p, name) || p->n == VS_PHASES_MAX || strlen(name) >= sizeof p->row[0].name)
        return;
    memset(&p->row[p->n], 0, sizeof p->row[p->n]);
    snprintf(p->row[p->n].name, sizeof p->row[p->n].name, "%s", name);
    p->n++;
}

/* each phase a comma-separated list names */
static void add_phases(vs_phases *p, const char *list)
{
    char one[sizeof p->row[0].name];
    const char *q;
    for (; *list; list = *q ? q + 1 : q) {
        size_t n = strcspn(list, ",");
        q = list + n;
        if (n && n < sizeof one) {
            memcpy(one, list, n);
            one[n] = 0;
            add_phase(p, one);
        }
    }
}

int vs_phases_compute(vs_phases *out, const json_t *sheet, const vs_component_views *views,
                      const vs_placement *pl, uint64_t offload_gpu, vs_error *err)
{
    json_t *wc = json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "components"), *c;
    const char *key = pl->offload == VS_OFFLOAD_SEQUENTIAL ? "largest_group_bytes" : "bytes";
    int have[VS_PHASES_MAX] = {0};
    uint64_t pinned = 0, loading = 0;
    size_t i, k;
    memset(out, 0, sizeof *out);
    /* without offload every weight is resident in every phase, a pipeline's as
     * a training step's, with or without a per-component tally (a `format`
     * line drops it): the phases the components name set the working memory
     * apart, since under torch.no_grad a phase's activations are freed before
     * the next phase runs (the denoiser's before the VAE decodes) */
    if (json_array_size(wc) && pl->offload != VS_OFFLOAD_NONE) {
        /* loading comes first, and is a phase when it puts weights on the GPU */
        if (load_weights_bytes(&loading, wc))
            return vs_error_set(err, VS_EUNIT, "the weights while loading do not fit in 64 bits");
        if (loading)
            add_phase(out, "load");
        for (i = 0; i < sizeof generation / sizeof generation[0]; i++)
            add_phase(out, generation[i]);
    }
    for (i = 0; i < views->n; i++) {
        const char *ph = json_string_value(views->v[i].phase);
        if (ph && *ph)
            add_phases(out, ph);
    }
    if (out->n < 2) { /* one phase is the sum again */
        out->n = 0;
        return 0;
    }
    /* what model offload never moves off the GPU is in every phase */
    json_array_foreach(wc, i, c)
    {
        json_t *v = json_object_get(c, key);
        if (vs_placement_pinned(pl, c) && json_is_integer(v) && json_integer_value(v) > 0 &&
            vs_checked_add(&pinned, pinned, (uint64_t)json_integer_value(v)))
            return vs_error_set(err, VS_EUNIT, "the pinned weights do not fit in 64 bits");
    }
    /* the weights of each phase: its largest component (sequential: the largest module
     * among its components) the offload moves */
    json_array_foreach(wc, i, c)
    {
        json_t *v = json_object_get(c, key);
        vs_phase_row *r =
            find(out, vs_phases_of_component(json_string_value(json_object_get(c, "name"))));
        if (!r || !json_is_integer(v) || json_integer_value(v) < 0)
            continue;
        have[r - out->row] = 1;
        if (vs_placement_pinned(pl, c)) {
            if (!r->weights_of)
                r->weights_of = json_string_value(json_object_get(c, "name"));
            continue;
        }
        if ((uint64_t)json_integer_value(v) >= r->weights_bytes) {
            r->weights_bytes = (uint64_t)json_integer_value(v);
            r->weights_of = json_string_value(json_object_get(c, "name"));
        }
    }
    for (k = 0; k < out->n; k++) {
        vs_phase_row *r = &out->row[k];
        if (pl->offload == VS_OFFLOAD_NONE) { /* nothing moves: every weight */
            r->weights_bytes = offload_gpu;
            r->weights_of = NULL;
        } else if (loading && !strcmp(r->name, "load")) { /* before the offload moves anything */
            r->weights_bytes = loading;
            r->weights_of = load_weights;
        } else if (!have[k]) /* a phase of no component: the weights as the offload leaves them */
            r->weights_bytes = offload_gpu;
        else if (vs_checked_add(&r->weights_bytes, r->weights_bytes, pinned))
            return vs_error_set(err, VS_EUNIT, "phase %s does not fit in 64 bits", r->name);
        for (i = 0; i < views->n; i++) {
            const vs_component_view *v = &views->v[i];
            if (!vs_phases_holds(json_string_value(v->phase), r->name))
                continue;
            if (!v->known) {
                r->n_unknown++;
                continue;
            }
            if (vs_checked_add(&r->reserve_bytes, r->reserve_bytes,
                               vs_placement_per_gpu(pl, json_string_value(v->cls), v->value)))
                return vs_error_set(err, VS_EUNIT, "phase %s does not fit in 64 bits", r->name);
        }
        if (vs_checked_add(&r->bytes, r->weights_bytes, r->reserve_bytes))
            return vs_error_set(err, VS_EUNIT, "phase %s does not fit in 64 bits", r->name);
        if (r->bytes > out->row[out->worst].bytes)
            out->worst = k;
    }
    return 0;
}
