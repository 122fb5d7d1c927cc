/* pipeline.c — model_index.json, parsed (see pipeline.h). */
#include "model/pipeline.h"

#include <jansson.h>
#include <string.h>

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int has_prefix(const char *s, const char *pre)
{
    return !strncmp(s, pre, strlen(pre));
}

int vs_pipeline_weightless(const char *name, const char *cls)
{
    /* diffusers' pipelines name these so; transformers' and diffusers' classes too */
    static const char *const names[] = {"tokenizer",
                                        "scheduler",
                                        "feature_extractor",
                                        "image_processor",
                                        "processor",
                                        "safety_checker_processor",
                                        NULL};
    static const char *const classes[] = {
        "Tokenizer",      "TokenizerFast", "Scheduler", "FeatureExtractor",
        "ImageProcessor", "Processor",     NULL};
    size_t i;
    for (i = 0; names[i]; i++)
        if (has_prefix(name, names[i]))
            return 1;
    for (i = 0; cls && classes[i]; i++)
        if (has_suffix(cls, classes[i]))
            return 1;
    return 0;
}

static int plain_name(const char *s)
{
    size_t i, n = strlen(s);
    if (n == 0 || n >= VS_PIPE_NAME_MAX || s[0] == '.')
        return 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

static int is_denoiser(const char *name)
{
    return !strcmp(name, "unet") || !strcmp(name, "transformer") || !strcmp(name, "prior") ||
           !strcmp(name, "transformer_2") || !strcmp(name, "unet_2");
}

int vs_pipeline_parse(vs_pipeline *out, const char *text, size_t len, vs_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *v;
    const char *k;
    size_t weights = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (!root)
        return vs_error_set_pos(err, VS_EFORMAT, jerr.position,
                                "model_index.json: %s (line %d, column %d)", jerr.text, jerr.line,
                                jerr.column);
    if (!json_is_object(root)) {
        rc = vs_error_set(err, VS_EFORMAT, "model_index.json: expected an object");
        goto done;
    }
    json_object_foreach(root, k, v)
    {
        json_t *lib, *cls;
        vs_pipe_component *c;
        if (k[0] == '_') { /* _class_name, _diffusers_version, _name_or_path */
            if (!strcmp(k, "_class_name") && json_is_string(v) &&
                strlen(json_string_value(v)) < sizeof out->cls)
                strcpy(out->cls, json_string_value(v));
            continue;
        }
        if (!json_is_array(v))
            continue; /* a flag: force_zeros_for_empty_prompt, requires_safety_checker */
        lib = json_array_get(v, 0);
        cls = json_array_get(v, 1);
        if (json_array_size(v) == 2 && json_is_null(lib) && json_is_null(cls))
            continue; /* an optional component left out */
        if (json_array_size(v) != 2 || !json_is_string(lib) || !json_is_string(cls) ||
            strlen(json_string_value(lib)) >= VS_PIPE_NAME_MAX ||
            strlen(json_string_value(cls)) >= VS_PIPE_CLASS_MAX) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "model_index.json: component '%.64s' must be [library, class] "
                              "(two short strings)",
                              k);
            goto done;
        }
        if (!plain_name(k)) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "model_index.json: component '%.64s' is not a plain folder name", k);
            goto done;
        }
        if (out->n == VS_PIPE_MAX) {
            rc = vs_error_set(err, VS_EFORMAT, "model_index.json: more than %d components",
                              VS_PIPE_MAX);
            goto done;
        }
        c = &out->c[out->n++];
        strcpy(c->name, k);
        strcpy(c->library, json_string_value(lib));
        strcpy(c->cls, json_string_value(cls));
        c->weights = !vs_pipeline_weightless(c->name, c->cls);
        c->denoiser = c->weights && is_denoiser(c->name);
        weights += (size_t)c->weights;
    }
    if (!weights)
        rc = vs_error_set(err, VS_EFORMAT, "model_index.json: no component holds weights");
done:
    json_decref(root);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}
