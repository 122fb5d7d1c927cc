#include "render/lines.h"

#include <stdio.h>

#include "render/result.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

vs_bundle *vs_render_lines(const char *headline, const char *const *lines, size_t nlines,
                           json_t *payload_take)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    size_t i;
    vs_render_put_headline(&text, &html, headline);
    if (nlines) {
        vs_buf_puts(&html, "<ul>\n");
        for (i = 0; i < nlines; i++) {
            vs_buf_append(&text, "  - ", 4);
            vs_buf_puts(&text, lines[i] ? lines[i] : "");
            vs_buf_putc(&text, '\n');
            vs_buf_puts(&html, "<li>");
            vs_buf_put_html(&html, lines[i] ? lines[i] : "");
            vs_buf_puts(&html, "</li>\n");
        }
        vs_buf_puts(&html, "</ul>\n");
    }
    return vs_render_finish(&text, &html, NULL, payload_take);
}

vs_bundle *vs_render_stages(const json_t *stages, const char *const *dims, size_t ndims)
{
    char lbuf[16][200];
    const char *lines[16];
    size_t i, k, n = 0;
    json_t *x;
    json_array_foreach(stages, i, x)
    {
        vs_buf l = VS_BUF_INIT;
        if (n == 16)
            break;
        vs_buf_puts(&l, json_string_value(json_object_get(x, "name")));
        vs_buf_putc(&l, ':');
        for (k = 0; k < ndims; k++)
            if (json_is_integer(json_object_get(x, dims[k])))
                vs_buf_printf(&l, " %s=%" JSON_INTEGER_FORMAT, dims[k],
                              json_integer_value(json_object_get(x, dims[k])));
        if (json_is_string(json_object_get(x, "note")))
            vs_buf_printf(&l, " (%s)", json_string_value(json_object_get(x, "note")));
        snprintf(lbuf[n], sizeof lbuf[n], "%s", vs_buf_str(&l));
        vs_buf_free(&l);
        lines[n] = lbuf[n];
        n++;
    }
    return vs_render_lines(
        "procedure: short input and small batch, then the usual input, "
        "then the required limit; only the limit validates the card",
        lines, n, json_pack("{s:s, s:o}", "kind", "stages", "stages", json_deep_copy(stages)));
}

vs_bundle *vs_render_invalidate(const json_t *conditions)
{
    const char *lines[64];
    size_t i, n = 0;
    json_t *x;
    vs_json_array_foreach(conditions, i, x)
    {
        if (n < 64)
            lines[n++] = json_string_value(x);
    }
    return vs_render_lines(
        "the conclusion no longer holds if:", lines, n,
        json_pack("{s:s, s:o}", "kind", "invalidate", "conditions", json_deep_copy(conditions)));
}

vs_bundle *vs_render_oom(const char *phase, const char *const *examine, size_t nexamine,
                         const json_t *suspects)
{
    const char *lines[16];
    char lbuf[VS_RENDER_OOM_SUSPECTS][300], head[300];
    size_t i, n = 0, ns = 0;
    json_t *names = json_array(), *ex = json_array(), *c;
    if (!names || !ex) {
        json_decref(names);
        json_decref(ex);
        return NULL;
    }
    for (i = 0; i < nexamine && n < 4; i++) {
        lines[n++] = examine[i];
        json_array_append_new(ex, json_string(examine[i]));
    }
    vs_json_array_foreach(suspects, i, c)
    {
        const char *nm = json_string_value(json_object_get(c, "name"));
        const char *st = json_string_value(json_object_get(c, "status"));
        json_array_append_new(names, json_string(nm));
        if (ns < VS_RENDER_OOM_SUSPECTS) {
            snprintf(lbuf[ns], sizeof lbuf[ns], "on the sheet: %s (%s)", nm, st ? st : "?");
            lines[n++] = lbuf[ns++];
        }
    }
    lines[n++] = "change one thing at a time, then re-check the quality criterion and the "
                 "coverage (length, data kept)";
    snprintf(head, sizeof head, "overflow at %s: what to examine", phase);
    return vs_render_lines(head, lines, n,
                           json_pack("{s:s, s:s, s:o, s:o, s:s}", "kind", "oom", "phase", phase,
                                     "examine", ex, "suspects", names, "rule",
                                     "change one thing at a time, then re-check quality and "
                                     "coverage"));
}

vs_bundle *vs_render_decision(const char *decision, const json_t *unknown, size_t measurements,
                              int invalidating)
{
    vs_buf u = VS_BUF_INIT;
    const char *lines[4];
    size_t i, n = 0;
    json_t *x;
    vs_bundle *b;
    lines[n++] = decision;
    vs_json_array_foreach(unknown, i, x)
    {
        vs_buf_printf(&u, "%s%s", u.len ? ", " : "", json_string_value(x));
    }
    if (u.len) {
        vs_buf_puts(&u, ": still unknown; the decision rests on the known part of the envelope");
        lines[n++] = vs_buf_str(&u);
    }
    if (!measurements)
        lines[n++] = "no measurement on this sheet yet: the envelope is a hypothesis to verify "
                     "by stages (short, usual, limit)";
    if (!invalidating)
        lines[n++] = "no invalidating condition yet: `invalidate \"...\"` says what would make "
                     "this decision wrong";
    b = vs_render_lines("decision recorded:", lines, n,
                        json_pack("{s:s, s:s, s:O, s:I}", "kind", "decision", "decision", decision,
                                  "unknown", unknown, "measurements", (json_int_t)measurements));
    vs_buf_free(&u);
    return b;
}

/* The KV heads of each group of kv the line went through (covered of them),
 * for the payload: the groups that keep a cache, a latent one not split. */
static json_t *kv_heads_json(const vs_kv_layout *kv, size_t covered, unsigned gpus)
{
    json_t *heads = json_array();
    size_t k;
    for (k = 0; heads && k < covered; k++) {
        const vs_kv_group *g = &kv->g[k];
        if (g->kind == VS_KV_NONE || g->kind == VS_KV_STATE)
            continue;
        json_array_append_new(
            heads,
            json_pack(
                "{s:s, s:I, s:I}", "kind", vs_kv_kind_name(g->kind), "kv_heads",
                (json_int_t)g->kv_heads, "per_gpu",
                (json_int_t)(g->kind == VS_KV_LATENT ? 0 : vs_kv_group_heads_per_gpu(g, gpus))));
    }
    return heads;
}

vs_bundle *vs_render_placement(const vs_placement *p, const vs_envelope *env,
                               const vs_kv_layout *kv)
{
    /* the weights first, then the classes from the most divided to the least */
    static const vs_vocab_class shown[] = {VS_CLASS_PARAMETERS, VS_CLASS_GRADIENTS,
                                           VS_CLASS_OPTIMIZER,  VS_CLASS_ACTIVATIONS,
                                           VS_CLASS_KV_CACHE,   VS_CLASS_OTHER};
#define NCLASSES (1 + sizeof shown / sizeof shown[0])
    const char *classes[NCLASSES], *lines[NCLASSES + 2];
    char head[200], lines_buf[NCLASSES][120], offline[400], kvline[400];
    json_t *ways = json_object(), *heads = NULL, *offj = NULL;
    size_t i, n = 0;

    if (!ways)
        return NULL;
    classes[0] = VS_VOCAB_WEIGHTS;
    for (i = 0; i < sizeof shown / sizeof shown[0]; i++)
        classes[1 + i] = vs_vocab_class_name(shown[i]);
    for (i = 0; i < NCLASSES; i++) {
        unsigned w = vs_placement_ways(p, classes[i]);
        vs_render_placement_ways(lines_buf[i], sizeof lines_buf[i], classes[i], w);
        lines[n++] = lines_buf[i];
        json_object_set_new(ways, classes[i], json_integer(w));
    }
#undef NCLASSES
    vs_render_placement_head(head, sizeof head, p);
    if (p->offload != VS_OFFLOAD_NONE) {
        /* what one GPU holds of the weights, and the host memory beside it */
        vs_render_placement_offload(offline, sizeof offline, p->offload, env);
        if (env)
            offj = json_pack("{s:s, s:I, s:I, s:s}", "offload", vs_offload_name(p->offload),
                             "weights_gpu_bytes", (json_int_t)env->weights_gpu_bytes, "host_bytes",
                             (json_int_t)env->host_bytes, "basis", env->offload_basis);
        lines[n++] = offline;
    }
    if (kv) {
        heads = kv_heads_json(kv, vs_render_placement_kv_heads(kvline, sizeof kvline, kv, p->gpus),
                              p->gpus);
        lines[n++] = kvline;
    } else {
        heads = json_array();
    }
    return vs_render_lines(
        head, lines, n,
        json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o}", "kind", "placement", "placement",
                  vs_placement_kind_name(p->kind), "gpus", (json_int_t)p->gpus, "stage",
                  p->kind == VS_PLACE_ZERO ? json_integer(p->stage) : json_null(), "ways", ways,
                  "kv_heads_per_gpu", heads ? heads : json_null(), "offload",
                  offj ? offj : json_null()));
}

void vs_render_placement_head(char *out, size_t outlen, const vs_placement *p)
{
    char d[128];
    snprintf(out, outlen, "placement: %s; the envelope and the capacity check are per GPU",
             vs_placement_describe(p, d, sizeof d));
}

void vs_render_placement_ways(char *out, size_t outlen, const char *cls, unsigned w)
{
    if (w > 1)
        snprintf(out, outlen, "%s: split %u ways (1/%u per GPU)", cls, w, w);
    else
        snprintf(out, outlen, "%s: whole on every GPU", cls);
}

void vs_render_placement_offload(char *out, size_t outlen, vs_offload mode, const vs_envelope *env)
{
    char g1[160], g2[160];
    if (!env) {
        snprintf(out, outlen,
                 "offload=%s: the weights are not known yet (`model NAME pipeline=DIR`)",
                 vs_offload_name(mode));
        return;
    }
    vs_units_describe(g1, sizeof g1, env->weights_gpu_bytes);
    vs_units_describe(g2, sizeof g2, env->host_bytes);
    snprintf(out, outlen, "offload=%s: weights on the GPU %s (%s); host memory for the weights %s",
             vs_offload_name(mode), g1, env->offload_basis, g2);
}

size_t vs_render_placement_kv_heads(char *out, size_t outlen, const vs_kv_layout *l, unsigned gpus)
{
    size_t k, used = (size_t)snprintf(out, outlen, "KV heads per GPU:");
    for (k = 0; k < l->n && used < outlen; k++) {
        const vs_kv_group *g = &l->g[k];
        uint64_t h = vs_kv_group_heads_per_gpu(g, gpus);
        if (g->kind == VS_KV_LATENT)
            used += (size_t)snprintf(out + used, outlen - used,
                                     "%s %llu latent layers not split (each GPU holds the whole "
                                     "latent)",
                                     k ? ";" : "", (unsigned long long)g->layers);
        else if (g->kind != VS_KV_NONE && g->kind != VS_KV_STATE)
            used += (size_t)snprintf(
                out + used, outlen - used, "%s %s layers %llu of %llu%s", k ? ";" : "",
                vs_kv_kind_name(g->kind), (unsigned long long)h, (unsigned long long)g->kv_heads,
                g->kv_heads < gpus ? " (fewer KV heads than GPUs: replicated)" : "");
    }
    return k;
}
