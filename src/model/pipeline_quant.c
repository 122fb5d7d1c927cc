/* pipeline_quant.c — pipeline components quantised as bitsandbytes keeps them
 * (see pipeline_quant.h). */
#include "model/pipeline_quant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pipeline_files.h"
#include "model/pipeline_modules.h"
#include "model/wfile.h"
#include "sheet/sheet.h"

/* bitsandbytes replaces nn.Linear only (integrations/bitsandbytes.py,
 * replace_with_bnb_linear); these are the nn.Embedding modules of the
 * classes diffusers pipelines load, 2-D weights that stay as stored. */
static const char *const embeddings[] = {"shared",
                                         "embed_tokens",
                                         "relative_attention_bias",
                                         "token_embedding",
                                         "wte",
                                         "wpe",
                                         "word_embeddings",
                                         "position_embeddings",
                                         "position_embedding",
                                         "token_type_embeddings",
                                         NULL};

/* Modules a transformers class keeps in float32 under bitsandbytes: the
 * quantizers set use_keep_in_fp32_modules (quantizer_bnb_4bit.py,
 * quantizer_bnb_8bit.py), so from_pretrained loads the class's
 * _keep_in_fp32_modules in float32 even under torch_dtype=bfloat16 and the
 * quantizer leaves them out of modules_to_convert. T5PreTrainedModel keeps
 * "wo" (models/t5/modeling_t5.py): FLUX.1-dev's T5 encoder holds 24 x 4096 x
 * 10240 values there. */
static const struct {
    const char *cls, *module;
} keep_fp32[] = {{"T5EncoderModel", "wo"}};

/* The module holding a tensor, the last dotted part before its own name:
 * "encoder.block.0.layer.1.DenseReluDense.wo.weight" -> "wo". */
static int module_is(const char *name, const char *module)
{
    const char *end = strrchr(name, '.'), *p;
    size_t n = strlen(module);
    if (!end)
        return 0;
    for (p = end; p > name && p[-1] != '.'; p--)
        ;
    return (size_t)(end - p) == n && !strncmp(p, module, n);
}

static int is_linear_weight(const vs_wf_tensor *t)
{
    size_t len = strlen(t->name), i;
    if (t->ndims != 2 || len < 7 || strcmp(t->name + len - 7, ".weight"))
        return 0;
    for (i = 0; embeddings[i]; i++)
        if (module_is(t->name, embeddings[i]))
            return 0;
    return 1;
}

static int kept_fp32(const char *cls, const char *name)
{
    size_t i;
    for (i = 0; i < sizeof keep_fp32 / sizeof keep_fp32[0]; i++)
        if (cls && !strcmp(cls, keep_fp32[i].cls) && module_is(name, keep_fp32[i].module))
            return 1;
    return 0;
}

/* diffusers' layerwise casting (ModelMixin.enable_layerwise_casting,
 * hooks/layerwise_casting.py): the parameters of every nn.Linear and
 * convolution (SUPPORTED_PYTORCH_LAYERS) stored in the storage dtype, fp8
 * here, unless the module's path matches DEFAULT_SKIP_MODULES_PATTERN by
 * re.search ("pos_embed", "patch_embed", "norm", "^proj_in$", "^proj_out$"),
 * which skips the module and everything under it; FluxTransformer2DModel's
 * own _skip_layerwise_casting_patterns ("pos_embed", "norm") add none. Each
 * layer is cast up to the compute dtype for its forward and back after it,
 * one layer at a time. */
static int layerwise_skipped(const char *name)
{
    static const char *const sub[] = {"pos_embed", "patch_embed", "norm"};
    static const char *const whole[] = {"proj_in", "proj_out"};
    const char *end = strrchr(name, '.');
    size_t i, n = end ? (size_t)(end - name) : strlen(name);
    for (i = 0; i < 3; i++) {
        const char *hit = strstr(name, sub[i]);
        if (hit && hit < name + n)
            return 1;
    }
    for (i = 0; i < 2; i++)
        if (strlen(whole[i]) == n && !strncmp(name, whole[i], n))
            return 1;
    return 0;
}

/* A layer layerwise casting stores in fp8: a 2-D weight that is no embedding
 * (nn.Linear), a 3-D to 5-D one (a convolution), or the bias of either. */
static int layerwise_cast(const vs_wf_list *l, const vs_wf_tensor *x)
{
    size_t len = strlen(x->name), i;
    if (layerwise_skipped(x->name))
        return 0;
    if (len > 7 && !strcmp(x->name + len - 7, ".weight"))
        return is_linear_weight(x) || (x->ndims >= 3 && x->ndims <= 5);
    if (len <= 5 || strcmp(x->name + len - 5, ".bias"))
        return 0;
    for (i = 0; i < l->count; i++) {
        const vs_wf_tensor *w = &l->tensors[i];
        if (strlen(w->name) == len + 2 && !strncmp(w->name, x->name, len - 5) &&
            !strcmp(w->name + len - 5, ".weight"))
            return is_linear_weight(w) || (w->ndims >= 3 && w->ndims <= 5);
    }
    return 0;
}

typedef struct tally {
    uint64_t qbytes, qparams, fbytes, fparams, bytes, params;
    json_t *stored;           /* by_dtype of the tensors left as stored */
    vs_pipeline_modules mods; /* each module's own bytes, as stored or quantised */
    uint64_t transient;       /* the 16-bit copy of the largest weight bitsandbytes quantises */
} tally;

static int add_stored(json_t *by, const char *dtype, uint64_t bytes, uint64_t params)
{
    size_t i;
    json_t *d;
    json_array_foreach(by, i, d)
    {
        if (strcmp(json_string_value(json_object_get(d, "dtype")), dtype))
            continue;
        json_object_set_new(
            d, "bytes",
            json_integer(json_integer_value(json_object_get(d, "bytes")) + (json_int_t)bytes));
        json_object_set_new(
            d, "params",
            json_integer(json_integer_value(json_object_get(d, "params")) + (json_int_t)params));
        return 0;
    }
    return json_array_append_new(by, json_pack("{s:s, s:I, s:I}", "dtype", dtype, "bytes",
                                               (json_int_t)bytes, "params", (json_int_t)params))
               ? VS_ENOMEM
               : 0;
}

/* One file's tensors into t, each module's own bytes as this scheme keeps
 * them (what sequential CPU offload moves at once). */
static int tally_file(tally *t, const char *path, const char *cls, const vs_quant *q, vs_error *err)
{
    const vs_quant_scheme *s = q ? q->scheme : NULL;
    const vs_wf_format *fmt = vs_wfile_sniff_file(path, err);
    vs_wf_list *l = NULL;
    size_t i;
    int rc;
    if (!fmt)
        return err->code ? err->code : VS_EFORMAT;
    if ((rc = fmt->read(&l, path, NULL, NULL, err)))
        return rc;
    for (i = 0; i < l->count; i++) {
        const vs_wf_tensor *x = &l->tensors[i];
        uint64_t b = x->bytes;
        if (!q) {
            int cast = layerwise_cast(l, x);
            if (cast) {
                b = x->elements; /* float8_e4m3fn: 1 byte a value */
                t->qbytes += b;
                t->qparams += x->elements;
            } else if ((rc = add_stored(t->stored, x->dtype, x->bytes, x->elements))) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
        } else if (is_linear_weight(x) && kept_fp32(cls, x->name)) {
            b = x->elements * 4;
            t->fbytes += b;
            t->fparams += x->elements;
        } else if (is_linear_weight(x)) {
            vs_quant_matrix m = {x->shape[0], x->shape[1], 1, 0, 0, 0};
            vs_quant_bytes qb = {0, 0, 0, 0, 0};
            if ((rc = s->matrix(q, &m, VS_QUANT_ENGINE_CHECKPOINT, &qb, err)))
                goto done;
            b = qb.values + qb.scales + qb.zeros + qb.index + qb.pad;
            t->qbytes += b;
            t->qparams += x->elements;
            /* bitsandbytes quantises a weight on the GPU from a 16-bit copy of it there
             * (Params4bit._quantize: self.data.contiguous().to(device), the loading
             * dtype; Int8Params._quantize: .to(device, dtype=torch.float16);
             * bitsandbytes/nn/modules.py at 005a63c), freed once its quantised form is
             * made */
            if (2 * x->elements > t->transient)
                t->transient = 2 * x->elements;
        } else if ((rc = add_stored(t->stored, x->dtype, x->bytes, x->elements))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        t->bytes += b;
        t->params += x->elements;
        if (vs_pipeline_modules_add(&t->mods, x->name, b)) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
    }
    rc = 0;
done:
    vs_wf_list_free(l);
    return rc;
}

static const char *grouped(char *out, size_t cap, uint64_t v)
{
    char raw[32];
    size_t n, i, o = 0;
    snprintf(raw, sizeof raw, "%llu", (unsigned long long)v);
    n = strlen(raw);
    for (i = 0; i < n && o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    out[o] = '\0';
    return out;
}

/* Sums one component c (an element of the copy's components) again. */
static int quantize_one(json_t *c, const char *dir, const json_t *files, const vs_quant *q,
                        const char *word, vs_error *err)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *cls = json_string_value(json_object_get(c, "class"));
    tally t;
    const char *gname;
    uint64_t gbytes;
    size_t i, nlen = strlen(name), nfiles = 0;
    json_t *f, *by;
    int rc = 0;
    memset(&t, 0, sizeof t);
    if (!(t.stored = json_array()))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    json_array_foreach((json_t *)files, i, f)
    {
        const char *fn = json_string_value(json_object_get(f, "name"));
        char path[4096];
        if (!fn || strncmp(fn, name, nlen) || fn[nlen] != '/')
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, fn) >= sizeof path) {
            rc = vs_error_set(err, VS_EIO, "%s/%s: path too long", dir, fn);
            goto done;
        }
        if ((rc = tally_file(&t, path, cls, q, err)))
            goto done;
        nfiles++;
    }
    if (!nfiles) {
        rc = vs_error_set(err, VS_EIO, "component %s: no weights file listed", name);
        goto done;
    }
    gbytes = vs_pipeline_modules_largest(&t.mods, &gname);
    if (!(by = json_array()) || json_object_set_new(c, "by_dtype", by) ||
        json_array_append_new(by,
                              json_pack("{s:s, s:I, s:I}", "dtype", word, "bytes",
                                        (json_int_t)t.qbytes, "params", (json_int_t)t.qparams)) ||
        (t.fparams && json_array_append_new(by, json_pack("{s:s, s:I, s:I}", "dtype", "F32",
                                                          "bytes", (json_int_t)t.fbytes, "params",
                                                          (json_int_t)t.fparams))) ||
        json_array_extend(by, t.stored) ||
        json_object_set_new(c, "bytes", json_integer((json_int_t)t.bytes)) ||
        json_object_set_new(c, "params", json_integer((json_int_t)t.params)) ||
        json_object_set_new(c, "largest_group", json_string(gname)) ||
        json_object_set_new(c, "largest_group_bytes", json_integer((json_int_t)gbytes)) ||
        (q &&
         json_object_set_new(c, "load_transient_bytes", json_integer((json_int_t)t.transient))))
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
done:
    vs_pipeline_modules_free(&t.mods);
    json_decref(t.stored);
    return rc;
}

static json_t *component_named(json_t *comps, const char *name, size_t len)
{
    size_t i;
    json_t *c;
    json_array_foreach(comps, i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && strlen(n) == len && !strncmp(n, name, len))
            return c;
    }
    return NULL;
}

static int already_quantised(const json_t *c)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(c, "by_dtype"), i, d)
    {
        const char *dt = json_string_value(json_object_get(d, "dtype"));
        if (dt && (!strncmp(dt, "bnb-", 4) || !strcmp(dt, "fp8-layerwise")))
            return 1;
    }
    return 0;
}

int vs_pipeline_quantize(json_t *sheet, const vs_quant *q, const char *word, const char *list,
                         char *note, size_t cap, vs_error *err)
{
    json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), *copy = NULL, *comps, *c, *by = NULL;
    const char *dir = json_string_value(json_object_get(wf, "path")), *p = list;
    uint64_t bytes = 0;
    size_t i, o = 0;
    int rc;
    note[0] = '\0';
    if (!json_is_array(json_object_get(wf, "components")) || !dir)
        return vs_error_set(err, VS_EVALUE,
                            "components= quantises components of a diffusers pipeline: read one "
                            "first (`model NAME pipeline=DIR`)");
    if (q && q->scheme != &vs_quant_scheme_bnb)
        return vs_error_set(err, VS_EVALUE,
                            "components= quantises with bitsandbytes, as diffusers' "
                            "PipelineQuantizationConfig does: bnb-nf4, bnb-fp4, bnb-int8, nf4 or "
                            "int8, not %s",
                            word);
    if (!(copy = json_deep_copy(wf)) || !(by = json_array())) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    comps = json_object_get(copy, "components");
    while (*p) {
        size_t len = strcspn(p, ",");
        char before[32], after[32];
        uint64_t was;
        if (!len || !(c = component_named(comps, p, len))) {
            rc = vs_error_set(err, VS_EVALUE,
                              "'%.*s' is no component of the pipeline with weights "
                              "(`weights` lists them)",
                              (int)len, p);
            goto done;
        }
        if (already_quantised(c)) {
            rc = vs_error_set(err, VS_EVALUE,
                              "component %.*s is quantised already; `model ... pipeline=` reads "
                              "the pipeline again",
                              (int)len, p);
            goto done;
        }
        was = (uint64_t)json_integer_value(json_object_get(c, "bytes"));
        if ((rc = quantize_one(c, dir, json_object_get(copy, "files"), q, word, err)))
            goto done;
        o += (size_t)snprintf(note + o, o < cap ? cap - o : 0, "%s%.*s %s -> %s B", o ? "; " : "",
                              (int)len, p, grouped(before, sizeof before, was),
                              grouped(after, sizeof after,
                                      (uint64_t)json_integer_value(json_object_get(c, "bytes"))));
        p += len;
        if (*p == ',')
            p++;
    }
    json_array_foreach(comps, i, c)
    {
        json_t *d;
        size_t k;
        bytes += (uint64_t)json_integer_value(json_object_get(c, "bytes"));
        json_array_foreach(json_object_get(c, "by_dtype"), k, d)
        {
            if (add_stored(by, json_string_value(json_object_get(d, "dtype")),
                           (uint64_t)json_integer_value(json_object_get(d, "bytes")),
                           (uint64_t)json_integer_value(json_object_get(d, "params")))) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
        }
    }
    if (json_object_set_new(copy, "bytes", json_integer((json_int_t)bytes)) ||
        json_object_set(copy, "by_dtype", by) || json_object_set(sheet, "weights_files", copy)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    vs_sheet_card_touch(sheet);
    rc = 0;
done:
    json_decref(copy);
    json_decref(by);
    return rc;
}
