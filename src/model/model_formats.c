/* `formats` rows for GGUF: a ggml type's exact bits per weight, or a
 * llama.cpp file type's bytes tensor by tensor (model/gguf_quant.h) over the
 * card's architecture. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/family.h"
#include "model/gguf.h"
#include "model/gguf_arch.h"
#include "model/gguf_quant.h"
#include "model/model.h"
#include "sheet/sheet_access.h"

static uint64_t arch_u(const json_t *arch, const char *k)
{
    json_t *v = json_object_get(arch, k);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* "4.5", "6.5625": bits per weight, exact for a block type (bytes*8/block
 * has at most 8 binary decimals; printed with as many digits as it needs). */
static void exact_bits(char *out, size_t n, uint64_t num, uint64_t den)
{
    unsigned long long whole = (unsigned long long)(num / den), rest = num % den;
    size_t k;
    int len = snprintf(out, n, "%llu", whole);
    if (!rest || len < 0 || (size_t)len + 2 >= n)
        return;
    out[len++] = '.';
    for (k = 0; rest && k < 8 && (size_t)len + 1 < n; k++) {
        rest *= 10;
        out[len++] = (char)('0' + rest / den);
        rest %= den;
    }
    out[len] = '\0';
}

/* The tensor list of the GGUF file(s) the sheet's weights were read from
 * (names and shapes as stored; the first shard names the others in
 * weights_files.files). 1 when the weights are not GGUF. */
static int gguf_file_list(const json_t *sheet, vs_gguf_quant_tensor **out, size_t *n, vs_error *err)
{
    const json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    const char *path = json_string_value(json_object_get(wf, "path"));
    const json_t *files = json_object_get(wf, "files");
    char *real = NULL, *slash;
    vs_gguf_quant_tensor *t = NULL;
    size_t cap = 0, k = 0, i;
    int rc = 0;
    *out = NULL;
    *n = 0;
    if (!path || !json_is_array(files) || !json_array_size(files))
        return 1;
    for (i = 0; i < json_array_size(files); i++) {
        const char *nm = json_string_value(json_object_get(json_array_get(files, i), "name"));
        size_t len = nm ? strlen(nm) : 0;
        if (len < 5 || strcmp(nm + len - 5, ".gguf"))
            return 1;
    }
    if ((rc = vs_model_weights_in(path, &real, err)))
        return rc;
    if ((slash = strrchr(real, '/')))
        slash[1] = '\0';
    else
        real[0] = '\0';
    for (i = 0; rc == 0 && i < json_array_size(files); i++) {
        const char *nm = json_string_value(json_object_get(json_array_get(files, i), "name"));
        size_t plen = strlen(real) + strlen(nm) + 1, j;
        char *shard = malloc(plen);
        vs_gguf_file *g = NULL;
        if (!shard) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            break;
        }
        snprintf(shard, plen, "%s%s", real, nm);
        rc = vs_gguf_read_file(&g, shard, NULL, NULL, err);
        free(shard);
        for (j = 0; rc == 0 && j < g->count; j++) {
            unsigned d;
            if (k == cap) {
                vs_gguf_quant_tensor *nt;
                cap = cap ? cap * 2 : 512;
                if (!(nt = realloc(t, cap * sizeof *t))) {
                    rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                    break;
                }
                t = nt;
            }
            memset(&t[k], 0, sizeof t[k]);
            if (!(t[k].name = strdup(g->tensors[j].name))) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                break;
            }
            t[k].ndims = g->tensors[j].ndims;
            for (d = 0; d < 4; d++)
                t[k].shape[d] = g->tensors[j].ne[d] ? g->tensors[j].ne[d] : 1;
            k++;
        }
        vs_gguf_file_free(g);
    }
    free(real);
    if (rc) {
        vs_gguf_quant_list_free(t, k);
        return rc;
    }
    *out = t;
    *n = k;
    return 0;
}

int vs_model_gguf_format_row(const json_t *sheet, const char *name, uint64_t params, unsigned *bits,
                             char *bits_text, size_t nbt, char *basis, size_t nb, uint64_t *bytes,
                             vs_error *err)
{
    const json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    int ft = vs_gguf_ftype_parse(name);
    const vs_gguf_type *t = vs_gguf_type_by_name(name);
    basis[0] = '\0';
    if (ft >= 0 && !vs_gguf_quant_default_type(ft))
        ft = -1;
    if (ft >= 0 && json_is_object(arch) && arch_u(arch, "layers") && arch_u(arch, "hidden")) {
        vs_gguf_quant_tensor *list = NULL;
        const vs_gguf_type **types;
        vs_gguf_quant_model m;
        size_t n = 0;
        uint64_t total = 0, elements = 0, i;
        const char *fname = vs_gguf_ftype_name((uint32_t)ft);
        const char *cfg = json_string_value(json_object_get(arch, "config"));
        int rc, from_family = 0;
        json_t *tied = json_object_get(arch, "tied_embeddings");
        if (cfg) {
            /* the family's own tensor list, from the config.json the card was read from */
            vs_arch *a = calloc(1, sizeof *a);
            json_error_t je;
            json_t *root;
            if (!a)
                return vs_error_set(err, VS_ENOMEM, "out of memory");
            if (!(root = json_load_file(cfg, 0, &je))) {
                free(a);
                return vs_error_set(err, VS_EIO,
                                    "`formats %s` reads the tensor list from %s, which cannot "
                                    "be read now (%s); `model` it again",
                                    name, cfg, je.text);
            }
            rc = vs_arch_from_json(a, root, err);
            if (rc == 0)
                rc = vs_gguf_arch_from_config(a, root, &list, &n, err);
            json_decref(root);
            if (rc == 0)
                vs_gguf_arch_llq_model(&m, a);
            free(a);
            if (rc)
                return rc;
            from_family = 1;
        } else if ((rc = gguf_file_list(sheet, &list, &n, err)) <= 0) {
            /* an architecture from GGUF metadata: the file's own tensors */
            const char *fam = json_string_value(json_object_get(arch, "family"));
            if (rc)
                return rc;
            memset(&m, 0, sizeof m);
            m.n_layer = (unsigned)arch_u(arch, "layers");
            m.n_head = (unsigned)arch_u(arch, "heads");
            m.n_head_kv = (unsigned)arch_u(arch, "kv_heads");
            m.n_expert = (unsigned)arch_u(arch, "experts");
            m.falcon = fam && !strcmp(fam, "falcon");
            /* llama-model.cpp, LLM_ARCH_LLAMA: 80 layers with grouped KV heads */
            m.type_70b = fam && !strcmp(fam, "llama") && m.n_layer == 80 && m.n_head_kv &&
                         m.n_head_kv != m.n_head;
            from_family = 2;
        } else {
            /* an architecture from GGUF metadata: a dense Llama-style list */
            if (arch_u(arch, "experts") > 1)
                return vs_error_set(err, VS_EVALUE,
                                    "`formats %s`: the card's architecture has experts but no "
                                    "config.json, whose tensor list the per-tensor choice "
                                    "needs; `formats q4_k` gives a uniform figure",
                                    name);
            if ((rc = vs_gguf_quant_llama_list(
                     &list, &n, arch_u(arch, "layers"), arch_u(arch, "hidden"),
                     arch_u(arch, "heads"), arch_u(arch, "kv_heads"), arch_u(arch, "head_dim"),
                     arch_u(arch, "intermediate"), arch_u(arch, "vocab"), json_is_true(tied), err)))
                return rc;
            memset(&m, 0, sizeof m);
            m.n_layer = (unsigned)arch_u(arch, "layers");
            m.n_head = (unsigned)arch_u(arch, "heads");
            m.n_head_kv = (unsigned)arch_u(arch, "kv_heads");
            m.type_70b = m.n_layer == 80; /* llama.cpp's LLM_TYPE_70B for Llama */
        }
        if (!(types = calloc(n ? n : 1, sizeof *types))) {
            vs_gguf_quant_list_free(list, n);
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        }
        rc = vs_gguf_quant_predict(list, n, ft, &m, types, NULL, &total, err);
        for (i = 0; rc == 0 && i < n; i++) {
            uint64_t e = 1;
            unsigned d;
            for (d = 0; d < list[i].ndims; d++)
                e *= list[i].shape[d];
            elements += e;
        }
        free(types);
        vs_gguf_quant_list_free(list, n);
        if (rc)
            return rc;
        *bytes = total;
        *bits = elements ? (unsigned)(total * 8 / elements) : 0;
        if (elements) {
            unsigned long long hundredths =
                (unsigned long long)((total * 800 + elements / 2) / elements);
            snprintf(bits_text, nbt, "%llu.%02llu", hundredths / 100, hundredths % 100);
        }
        snprintf(basis, nb,
                 "llama.cpp %s, type per tensor (src/llama-quant.cpp at 007dbbf3) over %s",
                 fname ? fname : name,
                 from_family == 1   ? "the family's tensor list as convert_hf_to_gguf.py names it"
                 : from_family == 2 ? "the tensors of the GGUF file the weights were read from"
                                    : "the card's architecture");
        return 0;
    }
    if (t) {
        unsigned __int128 b = (unsigned __int128)params * t->bytes;
        b = (b + t->block - 1) / t->block;
        if (b > (unsigned __int128)INT64_MAX)
            return vs_error_set(err, VS_EUNIT, "the weights do not fit in 64 bits");
        *bytes = (uint64_t)b;
        *bits = t->bytes * 8u / t->block;
        exact_bits(bits_text, nbt, (uint64_t)t->bytes * 8u, t->block);
        return 0;
    }
    if (ft >= 0)
        return vs_error_set(err, VS_EVALUE,
                            "`formats %s` is a llama.cpp file type: its bytes follow the tensor "
                            "list, so the card needs the architecture (`model NAME "
                            "config=PATH`, or a model in the Hugging Face cache)",
                            name);
    return 1;
}
