/* A diffusers pipeline's headers from the Hub: model_index.json names the
 * components; each weighted one's safetensors headers are read as
 * model/pipeline_files.c finds them on disk (model/hfhub.h says where). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/hfhub.h"
#include "model/hfhub_internal.h"
#include "model/pipeline.h"

/* The component's weights file among the siblings, in model/pipeline_files.c's
 * order: with the variant first (a sharded index, then one file), then the
 * plain files; diffusers' name before transformers'. 1 and out when found. */
static int component_file(const json_t *sib, const char *comp, const char *variant, char *out,
                          size_t n)
{
    static const char *const bases[] = {"diffusion_pytorch_model", "model"};
    int pass;
    size_t b;
    for (pass = variant ? 0 : 1; pass < 2; pass++)
        for (b = 0; b < 2; b++) {
            const char *base = bases[b];
            if (pass == 0) {
                snprintf(out, n, "%s/%s.safetensors.index.%s.json", comp, base, variant);
                if (vs_hfhub_has(sib, out))
                    return 1;
                snprintf(out, n, "%s/%s.%s.safetensors.index.json", comp, base, variant);
                if (vs_hfhub_has(sib, out))
                    return 1;
                snprintf(out, n, "%s/%s.%s.safetensors", comp, base, variant);
                if (vs_hfhub_has(sib, out))
                    return 1;
            } else {
                snprintf(out, n, "%s/%s.safetensors.index.json", comp, base);
                if (vs_hfhub_has(sib, out))
                    return 1;
                snprintf(out, n, "%s/%s.safetensors", comp, base);
                if (vs_hfhub_has(sib, out))
                    return 1;
            }
        }
    return 0;
}

static int ends_with(const char *s, const char *x)
{
    size_t n = strlen(s), m = strlen(x);
    return n >= m && !strcmp(s + n - m, x);
}

/* model_index.json's text, fetched whole into the cache. */
static int fetch_index(vs_hfhub *s, vs_pipeline *pl, vs_error *err)
{
    vs_http_resp r;
    int rc = vs_hfhub_get(s, "model_index.json", 0, 0, VS_HFHUB_SMALL_MAX, &r, err);
    if (!rc)
        rc = vs_hfhub_put_file(s, "model_index.json", r.body, r.len, r.etag, err);
    if (!rc)
        rc = vs_pipeline_parse(pl, (const char *)r.body, r.len, err);
    vs_http_resp_clear(&r);
    return rc;
}

int vs_hfhub_pipeline_headers(const char *repo_id, const char *commit, const char *variant,
                              char *out, size_t n, const vs_hub_progress *p, vs_hub_stats *st,
                              vs_error *err)
{
    char hdir[VS_HF_PATH_MAX + 200], key[160], wname[400];
    vs_pipeline *pl = malloc(sizeof *pl);
    vs_hfhub s;
    json_t *sib = NULL, *files = NULL, *m;
    char **names = NULL;
    size_t nn = 0, i;
    int rc;
    memset(&s, 0, sizeof s);
    snprintf(key, sizeof key, "model_index.json%s%s", variant ? ":" : "", variant ? variant : "");
    if (!pl)
        return vs_error_oom(err);
    if ((rc = vs_hfhub_header_dir(repo_id, commit, hdir, sizeof hdir, err)))
        goto done;
    if ((m = vs_hfhub_manifest_load(hdir)) && vs_hfhub_manifest_ready(m, hdir, key)) {
        json_decref(m); /* read before: no request */
        snprintf(out, n, "%s", hdir);
        goto done;
    }
    json_decref(m);
    if ((rc = vs_hfhub_open(&s, repo_id, p, st, err)) ||
        (rc = vs_hfhub_info(&s, commit, &sib, err)))
        goto done;
    if (!vs_hfhub_has(sib, "model_index.json")) {
        rc = vs_error_set(err, VS_ENOTFOUND, "%s at %s has no model_index.json on %s", repo_id,
                          commit, s.endpoint);
        goto done;
    }
    if ((rc = fetch_index(&s, pl, err)) ||
        (rc = vs_hfhub_link_complete(&s, sib, hdir, "model_index.json", err)))
        goto done;
    for (i = 0; i < pl->n && !rc; i++) {
        if (!pl->c[i].weights)
            continue;
        if (!component_file(sib, pl->c[i].name, variant, wname, sizeof wname)) {
            rc = vs_error_set(err, VS_ENOTFOUND,
                              "%s at %s: component %s (%s) has no safetensors weights on the "
                              "Hub (%s/diffusion_pytorch_model.safetensors, model.safetensors "
                              "or a sharded .index.json)",
                              repo_id, commit, pl->c[i].name, pl->c[i].cls, pl->c[i].name);
            break;
        }
        if (ends_with(wname, ".json")) {
            rc = vs_hfhub_plan_index(&s, wname, &names, &nn, err);
            if (!rc)
                rc = vs_hfhub_link_complete(&s, sib, hdir, wname, err);
        } else {
            rc = vs_hfhub_add_name(&names, &nn, "", 0, wname, err);
        }
    }
    for (i = 0; !rc && i < nn; i++)
        if (!vs_hfhub_safe_name(names[i]))
            rc = vs_error_set(err, VS_EFORMAT, "%s: '%s' is not a file name of the repository",
                              repo_id, names[i]);
    if (!rc && !(files = json_array()))
        rc = vs_error_oom(err);
    if (!rc)
        rc = vs_hfhub_read_headers(&s, names, nn, 0, hdir, files, err);
    if (!rc)
        rc = vs_hfhub_manifest_write(&s, hdir, key, 0, names, nn, files, err);
    if (!rc)
        snprintf(out, n, "%s", hdir);
done:
    for (i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    json_decref(files);
    json_decref(sib);
    vs_hfhub_close(&s);
    free(pl);
    return rc;
}
