/* pipeline_files.c — the files of a diffusers pipeline (see pipeline_files.h). */
#include "model/pipeline_files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model.h"
#include "model/pipeline.h"
#include "model/pipeline_modules.h"
#include "model/wfile.h"
#include "sheet/sheet.h"

#define INDEX_MAX (1u << 20)

/* snprintf into a path buffer; 1 when it fit. */
static int pathf(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(out, n, fmt, ap);
    va_end(ap);
    return k >= 0 && (size_t)k < n;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int vs_pipeline_is_dir(const char *dir)
{
    char p[4096];
    if (!pathf(p, sizeof p, "%s/model_index.json", dir))
        return 0;
    return exists(p);
}

static int read_index_text(const char *path, char **out, size_t *len, vs_error *err)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n;
    if (!f)
        return vs_error_set(err, VS_EIO,
                            "%s: %s (a diffusers pipeline folder holds "
                            "model_index.json)",
                            path, strerror(errno));
    buf = malloc(INDEX_MAX + 1);
    if (!buf) {
        fclose(f);
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    n = fread(buf, 1, INDEX_MAX + 1, f);
    fclose(f);
    if (n > INDEX_MAX) {
        free(buf);
        return vs_error_set(err, VS_EFORMAT, "%s: larger than 1 MiB", path);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* The weights file of component folder cdir: the variant's first, then the
 * plain ones. *used_variant says which. Writes the path into out. */
static int find_weights(char *out, size_t n, const char *cdir, const char *variant,
                        int *used_variant)
{
    static const char *const bases[] = {"diffusion_pytorch_model", "model"};
    size_t b;
    int pass;
    for (pass = variant ? 0 : 1; pass < 2; pass++) {
        for (b = 0; b < 2; b++) {
            const char *base = bases[b];
            if (pass == 0) {
                if (pathf(out, n, "%s/%s.safetensors.index.%s.json", cdir, base, variant) &&
                    exists(out))
                    goto found;
                if (pathf(out, n, "%s/%s.%s.safetensors.index.json", cdir, base, variant) &&
                    exists(out))
                    goto found;
                if (pathf(out, n, "%s/%s.%s.safetensors", cdir, base, variant) && exists(out))
                    goto found;
            } else {
                if (pathf(out, n, "%s/%s.safetensors.index.json", cdir, base) && exists(out))
                    goto found;
                if (pathf(out, n, "%s/%s.safetensors", cdir, base) && exists(out))
                    goto found;
            }
        }
    }
    return 0;
found:
    *used_variant = pass == 0;
    return 1;
}

/* The largest module of one component: its own tensors, summed over the
 * component's files (model/pipeline_modules.h). */
static int largest_group(const char *cdir, const json_t *files, char *gname, size_t gn,
                         uint64_t *gbytes, vs_error *err)
{
    vs_pipeline_modules mods = {NULL, 0, 0};
    const char *best;
    size_t i, t;
    json_t *f;
    int rc = 0;
    *gbytes = 0;
    gname[0] = '\0';
    json_array_foreach((json_t *)files, i, f)
    {
        const char *fname = json_string_value(json_object_get(f, "name"));
        char path[4096];
        const vs_wf_format *fmt;
        vs_wf_list *l = NULL;
        if (!fname)
            continue;
        if (!pathf(path, sizeof path, "%s/%s", cdir, fname)) {
            rc = vs_error_set(err, VS_EIO, "%s/%s: path too long", cdir, fname);
            goto done;
        }
        if (!(fmt = vs_wfile_sniff_file(path, err))) {
            rc = err->code ? err->code : VS_EFORMAT;
            goto done;
        }
        if ((rc = fmt->read(&l, path, NULL, NULL, err)))
            goto done;
        for (t = 0; t < l->count; t++)
            if (vs_pipeline_modules_add(&mods, l->tensors[t].name, l->tensors[t].bytes)) {
                vs_wf_list_free(l);
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
        vs_wf_list_free(l);
    }
    *gbytes = vs_pipeline_modules_largest(&mods, &best);
    snprintf(gname, gn, "%s", best);
done:
    vs_pipeline_modules_free(&mods);
    return rc;
}

/* Adds by (a by_dtype array) into total, dtype by dtype: 0 or VS_ENOMEM. */
static int merge_dtypes(json_t *total, const json_t *by)
{
    size_t i, k;
    json_t *d, *t;
    json_array_foreach((json_t *)by, i, d)
    {
        const char *name = json_string_value(json_object_get(d, "dtype"));
        json_int_t b = json_integer_value(json_object_get(d, "bytes"));
        json_int_t p = json_integer_value(json_object_get(d, "params"));
        int found = 0;
        json_array_foreach(total, k, t)
        {
            if (strcmp(json_string_value(json_object_get(t, "dtype")), name))
                continue;
            json_object_set_new(t, "bytes",
                                json_integer(json_integer_value(json_object_get(t, "bytes")) + b));
            json_object_set_new(t, "params",
                                json_integer(json_integer_value(json_object_get(t, "params")) + p));
            found = 1;
            break;
        }
        if (!found && json_array_append_new(total, json_pack("{s:s, s:I, s:I}", "dtype", name,
                                                             "bytes", b, "params", p)))
            return VS_ENOMEM;
    }
    return 0;
}

int vs_pipeline_apply(json_t *sheet, const char *dir, const char *variant, json_t **out_payload,
                      vs_error *err)
{
    vs_pipeline p;
    char path[4096], *text = NULL;
    size_t len = 0, i;
    json_t *comps = json_array(), *by = json_array(), *files = json_array(), *card;
    json_t *wf = NULL, *payload = NULL, *scratch = NULL, *notes = json_array();
    uint64_t bytes = 0, params = 0;
    int rc;

    if (out_payload)
        *out_payload = NULL;
    card = vs_sheet_card(sheet);
    if (!comps || !by || !files || !notes || !json_is_object(card)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (!pathf(path, sizeof path, "%s/model_index.json", dir)) {
        rc = vs_error_set(err, VS_EIO, "pipeline folder path too long");
        goto done;
    }
    if ((rc = read_index_text(path, &text, &len, err)) ||
        (rc = vs_pipeline_parse(&p, text, len, err))) {
        if (rc == VS_EFORMAT && strncmp(err->message, path, strlen(path))) {
            char m[VS_ERROR_MESSAGE_MAX];
            snprintf(m, sizeof m, "%s", err->message);
            vs_error_set(err, rc, "%s/%s", dir, m);
        }
        goto done;
    }
    for (i = 0; i < p.n; i++) {
        const vs_pipe_component *c = &p.c[i];
        char cdir[4096], wpath[4096], gname[200];
        json_t *w = NULL, *x, *cf;
        uint64_t gbytes = 0, cb, cp;
        int used_variant = 0;
        size_t k;
        if (!c->weights)
            continue;
        if (!pathf(cdir, sizeof cdir, "%s/%s", dir, c->name)) {
            rc = vs_error_set(err, VS_EIO, "pipeline %s: path too long", dir);
            goto done;
        }
        if (!find_weights(wpath, sizeof wpath, cdir, variant, &used_variant)) {
            /* transformers' models save model.safetensors, diffusers' diffusion_pytorch_model */
            int tf = !strcmp(c->library, "transformers");
            const char *first = tf ? "model" : "diffusion_pytorch_model";
            const char *other = tf ? "diffusion_pytorch_model" : "model";
            rc = vs_error_set(err, VS_EIO,
                              "pipeline %s: component %s (%s) has no weights file: expected "
                              "%s/%s/%s%s%s.safetensors (or %s%s%s.safetensors, or a sharded "
                              ".index.json with its shards)",
                              dir, c->name, c->cls, dir, c->name, first, variant ? "." : "",
                              variant ? variant : "", other, variant ? "." : "",
                              variant ? variant : "");
            goto done;
        }
        json_decref(scratch);
        if (!(scratch = vs_sheet_new("pipeline component"))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        if ((rc = vs_model_apply_weights_files(scratch, wpath, 0, &w, err))) {
            char m[VS_ERROR_MESSAGE_MAX];
            snprintf(m, sizeof m, "%s", err->message);
            vs_error_set(err, rc, "pipeline component %s: %s", c->name, m);
            goto done;
        }
        cf = json_object_get(w, "files");
        if ((rc = largest_group(cdir, cf, gname, sizeof gname, &gbytes, err))) {
            json_decref(w);
            goto done;
        }
        cb = (uint64_t)json_integer_value(json_object_get(w, "bytes"));
        cp = (uint64_t)json_integer_value(json_object_get(w, "params"));
        if (__builtin_add_overflow(bytes, cb, &bytes) ||
            __builtin_add_overflow(params, cp, &params) || bytes > (uint64_t)INT64_MAX) {
            json_decref(w);
            rc = vs_error_set(err, VS_EFORMAT, "pipeline %s: the totals do not fit a record", dir);
            goto done;
        }
        if (merge_dtypes(by, json_object_get(w, "by_dtype")) < 0 ||
            json_array_append_new(
                comps,
                json_pack("{s:s, s:s, s:s, s:I, s:I, s:O, s:s, s:I, s:o}", "name", c->name, "class",
                          c->cls, "library", c->library, "bytes", (json_int_t)cb, "params",
                          (json_int_t)cp, "by_dtype", json_object_get(w, "by_dtype"),
                          "largest_group", gname, "largest_group_bytes", (json_int_t)gbytes,
                          "variant", used_variant ? json_string(variant) : json_null()))) {
            json_decref(w);
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        if (variant && !used_variant) {
            char n[300];
            snprintf(n, sizeof n,
                     "component %s has no %s variant: its plain files were read, as "
                     "diffusers falls back to them",
                     c->name, variant);
            json_array_append_new(notes, json_string(n));
        }
        json_array_foreach(cf, k, x)
        {
            char fn[512];
            pathf(fn, sizeof fn, "%s/%s", c->name, json_string_value(json_object_get(x, "name")));
            json_array_append_new(files, json_pack("{s:s, s:O, s:n}", "name", fn, "size",
                                                   json_object_get(x, "size"), "sha256"));
        }
        json_decref(w);
    }
    wf = json_pack("{s:s, s:I, s:I, s:O, s:[], s:O, s:O}", "path", dir, "bytes", (json_int_t)bytes,
                   "params", (json_int_t)params, "by_dtype", by, "other_dtype", "files", files,
                   "components", comps);
    if (out_payload)
        payload = json_pack("{s:s, s:s, s:I, s:I, s:n, s:O, s:[], s:O, s:s, s:s, s:s?, s:s, s:O, "
                            "s:O}",
                            "kind", "weights", "format", "safetensors", "params",
                            (json_int_t)params, "bytes", (json_int_t)bytes, "bits", "by_dtype", by,
                            "other_dtype", "files", files, "source", "diffusers pipeline", "path",
                            dir, "variant", variant, "pipeline", p.cls[0] ? p.cls : "(unnamed)",
                            "components", comps, "notes", notes);
    if (!wf || (out_payload && !payload)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (payload) {
        json_t *copy = json_deep_copy(payload);
        json_decref(payload);
        if (!(payload = copy)) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
    }
    {
        json_t *wfc = json_deep_copy(wf);
        vs_sheet_card_touch(sheet);
        if (!wfc || json_object_set_new(sheet, "weights_files", wfc) ||
            json_object_set_new(card, "params", json_integer((json_int_t)params)) ||
            json_object_set_new(card, "params_source",
                                json_string("safetensors (diffusers pipeline)"))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
    }
    if (out_payload) {
        *out_payload = payload;
        payload = NULL;
    }
    rc = 0;
done:
    free(text);
    json_decref(comps);
    json_decref(by);
    json_decref(files);
    json_decref(notes);
    json_decref(wf);
    json_decref(payload);
    json_decref(scratch);
    return rc;
}
