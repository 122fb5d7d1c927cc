#include "render/lines.h"

#include <stdio.h>

#include "render/result.h"
#include "sheet/units.h"
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
            vs_buf_printf(&text, "  - %s\n", lines[i] ? lines[i] : "");
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

vs_bundle *vs_render_oom(const char *phase, const char *const *examine, size_t nexamine,
                         const char *const *names, const char *const *statuses, size_t nsuspects,
                         json_t *payload_take)
{
    const char *lines[16];
    char lbuf[VS_RENDER_OOM_SUSPECTS][300], head[300];
    size_t i, n = 0;
    for (i = 0; i < nexamine && n < 4; i++)
        lines[n++] = examine[i];
    for (i = 0; i < nsuspects && i < VS_RENDER_OOM_SUSPECTS; i++) {
        snprintf(lbuf[i], sizeof lbuf[i], "on the sheet: %s (%s)", names[i],
                 statuses[i] ? statuses[i] : "?");
        lines[n++] = lbuf[i];
    }
    lines[n++] = "change one thing at a time, then re-check the quality criterion and the "
                 "coverage (length, data kept)";
    snprintf(head, sizeof head, "overflow at %s: what to examine", phase);
    return vs_render_lines(head, lines, n, payload_take);
}

vs_bundle *vs_render_decision(const char *decision, const json_t *unknown, int measured,
                              int invalidating, json_t *payload_take)
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
    if (!measured)
        lines[n++] = "no measurement on this sheet yet: the envelope is a hypothesis to verify "
                     "by stages (short, usual, limit)";
    if (!invalidating)
        lines[n++] = "no invalidating condition yet: `invalidate \"...\"` says what would make "
                     "this decision wrong";
    b = vs_render_lines("decision recorded:", lines, n, payload_take);
    vs_buf_free(&u);
    return b;
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
