#include "model/model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/gguf.h"
#include "model/gguf_arch.h"
#include "model/gguf_io.h"
#include "model/hfconfig.h"
#include "model/safetensors.h"
#include "model/wfile.h"
#include "model/wfile_gguf.h"
#include "model/wfile_safetensors.h"
#include "sheet/sheet_access.h"
#include "util/file.h"

/* config.json and model.safetensors.index.json are small; a bigger file is
 * not one of them. */
#define SMALL_FILE_MAX ((uint64_t)64 * 1024 * 1024)

static int read_small(const char *path, char **out, size_t *len, vs_error *err)
{
    uint64_t size = 0;
    char *buf = NULL;
    size_t got = 0;
    int fd, rc = 0;
    *out = NULL;
    /* a FIFO, a device or a folder would block or never end: regular files only */
    if ((fd = vs_file_open_regular(path, SMALL_FILE_MAX, &size, err)) < 0)
        return fd;
    if (!(buf = malloc((size_t)size + 1))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory reading %s", path);
        goto done;
    }
    while (got < (size_t)size) {
        ssize_t r = read(fd, buf + got, (size_t)size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = vs_error_set(err, VS_EIO, "cannot read %s: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    buf = NULL;
done:
    free(buf);
    close(fd);
    return rc;
}

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

/* ---- config.json ---- */

int vs_model_apply_config(json_t *sheet, const char *path, vs_hfconfig *out_config, vs_error *err)
{
    vs_hfconfig c;
    char *text = NULL, source[96];
    size_t len = 0;
    json_t *card = vs_sheet_get(sheet, VS_SK_CARD), *arch = NULL, *kv = NULL;
    int rc;

    if (!json_is_object(card))
        return vs_error_set(err, VS_EVALUE, "the sheet has no card");
    if ((rc = read_small(path, &text, &len, err)))
        goto done;
    if ((rc = vs_hfconfig_parse(&c, text, len, err))) {
        vs_error_prefix(err, "%s: ", path);
        goto done;
    }
    if (c.params_total > (uint64_t)INT64_MAX) {
        rc = vs_error_set(err, VS_EFORMAT, "%s: the parameter count does not fit a record", path);
        goto done;
    }
    kv = vs_kv_layout_to_json(&c.kv);
    arch = vs_hfconfig_arch_json(&c, path, kv);
    snprintf(source, sizeof source, "config.json (%s)", c.rule);
    if (!arch || !kv) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    /* every value is built: from here the sheet changes, all at once */
    if (json_object_set_new(card, "arch", arch) ||
        json_object_set_new(card, "params", jint(c.params_total)) ||
        json_object_set_new(card, "params_source", json_string(source))) {
        arch = NULL;
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    arch = NULL;
    if (out_config)
        *out_config = c;
done:
    json_decref(kv);
    json_decref(arch);
    free(text);
    return rc;
}

/* ---- safetensors ---- */

static int sha256_file(const char *path, char hex[65], vs_error *err)
{
    crypto_hash_sha256_state st;
    unsigned char digest[crypto_hash_sha256_BYTES];
    unsigned char *buf = NULL;
    int fd, rc = 0;
    if (sodium_init() < 0)
        return vs_error_set(err, VS_EIO, "libsodium failed to initialise");
    if ((fd = vs_file_open_regular(path, 0, NULL, err)) < 0)
        return fd;
    if (!(buf = malloc(1 << 20))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory hashing %s", path);
        goto done;
    }
    crypto_hash_sha256_init(&st);
    for (;;) {
        ssize_t r = read(fd, buf, 1 << 20);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = vs_error_set(err, VS_EIO, "cannot read %s: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        crypto_hash_sha256_update(&st, buf, (unsigned long long)r);
    }
    crypto_hash_sha256_final(&st, digest);
    sodium_bin2hex(hex, 65, digest, sizeof digest);
done:
    free(buf);
    close(fd);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* One checkpoint being read: its shards and their totals. */
typedef struct ckpt {
    vs_wf_summary *sum;
    vs_st_file **files; /* safetensors shards (for the index check) */
    char **names;       /* as the index names them (sorted), or the file's base name */
    size_t n;
    json_t *list;       /* files[] of the layout */
    vs_gguf_file *gguf; /* the first GGUF shard's header (metadata) */
    const char *format;
    vs_gguf_io io; /* llama.cpp's input and output layers */
} ckpt;

static void ckpt_clear(ckpt *k)
{
    size_t i;
    for (i = 0; i < k->n; i++) {
        if (k->files)
            vs_st_file_free(k->files[i]);
        free(k->names[i]);
    }
    free(k->files);
    free(k->names);
    vs_wf_summary_free(k->sum);
    vs_gguf_file_free(k->gguf);
    json_decref(k->list);
}

static int add_file_entry(ckpt *k, const char *name, const char *path, uint64_t size, int sha256,
                          vs_error *err)
{
    char hex[65];
    json_t *entry;
    int rc;
    if (sha256 && (rc = sha256_file(path, hex, err)))
        return rc;
    entry = json_pack("{s:s, s:o, s:o}", "name", name, "size", jint(size), "sha256",
                      sha256 ? json_string(hex) : json_null());
    if (!entry || json_array_append_new(k->list, entry))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    return 0;
}

static int read_shard(ckpt *k, size_t i, const char *path, int sha256, vs_error *err)
{
    uint64_t size = 0;
    vs_wf_list *l = NULL;
    int rc = vs_safetensors_read_file(&k->files[i], path, &size, NULL, err);
    if (rc)
        return rc;
    if ((rc = vs_wfile_safetensors_list(&l, k->files[i], err)))
        return rc;
    rc = vs_wf_summary_add(k->sum, l, err);
    vs_wf_list_free(l);
    if (rc)
        return rc;
    return add_file_entry(k, k->names[i], path, size, sha256, err);
}

static int read_index(ckpt *k, const char *path, int sha256, vs_error *err)
{
    char *text = NULL, *dir = NULL, *shard_path = NULL, *slash;
    vs_st_index *ix = NULL;
    size_t len = 0, i;
    int rc;

    if ((rc = read_small(path, &text, &len, err)) ||
        (rc = vs_st_index_parse(&ix, path, text, len, err)))
        goto done;
    k->names = calloc(ix->nshards, sizeof *k->names);
    k->files = calloc(ix->nshards, sizeof *k->files);
    if (!k->names || !k->files) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < ix->nshards; i++) {
        if (!(k->names[i] = strdup(ix->shards[i]))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        k->n = i + 1;
    }
    if (!(dir = strdup(path))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    else
        strcpy(dir, ".");
    for (i = 0; i < k->n; i++) {
        struct stat st;
        free(shard_path);
        if (!(shard_path = join(dir, k->names[i]))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        if (stat(shard_path, &st) != 0 && errno == ENOENT) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: shard %s is missing (no file %s); the checkpoint is "
                              "incomplete",
                              path, k->names[i], shard_path);
            goto done;
        }
        if ((rc = read_shard(k, i, shard_path, sha256, err)))
            goto done;
    }
    rc = vs_st_index_check(ix, (const vs_st_file *const *)k->files, path, err);
done:
    free(shard_path);
    free(dir);
    vs_st_index_free(ix);
    free(text);
    return rc;
}

static int read_single(ckpt *k, const char *path, int sha256, vs_error *err)
{
    const char *base = strrchr(path, '/');
    k->names = calloc(1, sizeof *k->names);
    k->files = calloc(1, sizeof *k->files);
    if (!k->names || !k->files || !(k->names[0] = strdup(base ? base + 1 : path)))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    k->n = 1;
    return read_shard(k, 0, path, sha256, err);
}

/* One GGUF file, or the whole split set a shard of which is at path
 * (NAME-00001-of-00003.gguf brings NAME-00002-of-00003.gguf, ...). */
static int read_gguf(ckpt *k, const char *path, int sha256, vs_error *err)
{
    unsigned no = 0, count = 1, i;
    size_t plen = 0;
    int split = vs_gguf_split_name(path, &no, &count, &plen), rc = 0;
    int64_t tensors = 0;
    char *shard = NULL;
    k->format = "gguf";
    if (!split)
        count = 1;
    if (!(k->names = calloc(count, sizeof *k->names)))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    for (i = 0; i < count; i++) {
        vs_gguf_file *f = NULL;
        vs_wf_list *l = NULL;
        uint64_t size = 0;
        const char *base;
        free(shard);
        shard = NULL;
        if (split) {
            size_t n = plen + 32;
            if (!(shard = malloc(n)))
                return vs_error_set(err, VS_ENOMEM, "out of memory");
            snprintf(shard, n, "%.*s-%05u-of-%05u.gguf", (int)plen, path, i + 1, count);
        } else if (!(shard = strdup(path))) {
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        }
        base = strrchr(shard, '/');
        if (!(k->names[i] = strdup(base ? base + 1 : shard))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            break;
        }
        k->n = i + 1;
        if (split && access(shard, F_OK) != 0) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: shard %u of %u is missing (no file %s); the split set is "
                              "incomplete",
                              path, i + 1, count, shard);
            break;
        }
        if ((rc = vs_gguf_read_file(&f, shard, &size, NULL, err)))
            break;
        if (split && (f->split_count != count || f->split_no != i)) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: its split.no/split.count (%u of %u) do not match the name "
                              "(shard %u of %u)",
                              shard, f->split_no + 1, f->split_count, i + 1, count);
            vs_gguf_file_free(f);
            break;
        }
        if (!split && f->split_count > 1) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: shard %u of a %u-file split set, but its name is not "
                              "NAME-%05u-of-%05u.gguf, so the others cannot be found",
                              shard, f->split_no + 1, f->split_count, f->split_no + 1,
                              f->split_count);
            vs_gguf_file_free(f);
            break;
        }
        tensors += (int64_t)f->count;
        vs_gguf_io_add(&k->io, f);
        if ((rc = vs_wfile_gguf_list(&l, f, err)) == 0)
            rc = vs_wf_summary_add(k->sum, l, err);
        vs_wf_list_free(l);
        if (!k->gguf)
            k->gguf = f;
        else
            vs_gguf_file_free(f);
        if (rc || (rc = add_file_entry(k, k->names[i], shard, size, sha256, err)))
            break;
    }
    if (!rc && split && k->gguf->split_tensors >= 0 && k->gguf->split_tensors != tensors)
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: split.tensors.count says %lld tensors, the %u shards hold %lld",
                          path, (long long)k->gguf->split_tensors, count, (long long)tensors);
    free(shard);
    return rc;
}

static int is_gguf_name(const char *name)
{
    return ends_with(name, ".gguf");
}

/* A folder stands for the checkpoint inside it: an index, one
 * model.safetensors, or one GGUF file (or the first of a split set). */
int vs_model_weights_in(const char *path, char **out, vs_error *err)
{
    static const char *const names[] = {"model.safetensors.index.json", "model.safetensors"};
    struct stat st;
    size_t i;
    DIR *d;
    struct dirent *e;
    char *gguf = NULL;
    int ngguf = 0;
    *out = NULL;
    if (stat(path, &st) != 0)
        return vs_error_set(err, VS_EIO, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        *out = strdup(path);
        return *out ? 0 : vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    for (i = 0; i < 2; i++) {
        char *p = join(path, names[i]);
        if (!p)
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        if (stat(p, &st) == 0) {
            *out = p;
            return 0;
        }
        free(p);
    }
    if ((d = opendir(path))) {
        while ((e = readdir(d))) {
            unsigned no, count;
            size_t plen;
            if (!is_gguf_name(e->d_name))
                continue;
            if (vs_gguf_split_name(e->d_name, &no, &count, &plen) && no != 1)
                continue; /* the first shard stands for the set */
            ngguf++;
            if (!gguf || strcmp(e->d_name, gguf) < 0) {
                free(gguf);
                gguf = strdup(e->d_name);
            }
        }
        closedir(d);
    }
    if (ngguf == 1 && gguf) {
        *out = join(path, gguf);
        free(gguf);
        return *out ? 0 : vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    free(gguf);
    if (ngguf > 1)
        return vs_error_set(err, VS_EIO,
                            "%s holds %d GGUF files (one per quantisation?); name the file", path,
                            ngguf);
    return vs_error_set(err, VS_EIO,
                        "%s is a folder without model.safetensors.index.json, "
                        "model.safetensors or a .gguf file; name the file",
                        path);
}

static json_t *juint_or_null(uint64_t v)
{
    return v ? jint(v) : json_null();
}

static json_t *jarray_u64(const uint64_t *a, size_t n)
{
    json_t *arr;
    size_t i;
    if (!a)
        return json_null();
    arr = json_array();
    for (i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, jint(a[i]))) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

/* The GGUF metadata the payload names: the file type and the architecture.
 * 0 or VS_ENOMEM. */
static int gguf_payload(json_t *payload, const vs_gguf_file *g)
{
    const vs_gguf_arch *a = &g->arch;
    const char *ft = g->file_type >= 0 ? vs_gguf_ftype_name((uint32_t)g->file_type) : NULL;
    json_t *arch = json_pack(
        "{s:s?, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o}",
        "architecture", a->name[0] ? a->name : NULL, "block_count", juint_or_null(a->block_count),
        "context_length", juint_or_null(a->context_length), "embedding_length",
        juint_or_null(a->embedding_length), "feed_forward_length",
        juint_or_null(a->feed_forward_length), "head_count", juint_or_null(a->head_count),
        "head_count_kv", juint_or_null(a->head_count_kv), "head_count_kv_per_layer",
        jarray_u64(a->head_count_kv_layers, a->n_head_count_kv_layers), "key_length",
        juint_or_null(a->key_length), "value_length", juint_or_null(a->value_length),
        "key_length_mla", juint_or_null(a->key_length_mla), "value_length_mla",
        juint_or_null(a->value_length_mla), "kv_lora_rank", juint_or_null(a->kv_lora_rank),
        "q_lora_rank", juint_or_null(a->q_lora_rank), "rope_dimension_count",
        juint_or_null(a->rope_dimension_count), "sliding_window", juint_or_null(a->sliding_window),
        "sliding_window_pattern", juint_or_null(a->sliding_window_pattern),
        "sliding_window_per_layer",
        jarray_u64(a->sliding_window_layers, a->n_sliding_window_layers), "expert_count",
        juint_or_null(a->expert_count), "expert_used_count", juint_or_null(a->expert_used_count),
        "vocab_size", juint_or_null(a->vocab_size));
    if (!arch)
        return VS_ENOMEM;
    if (json_object_set_new(payload, "gguf_arch", arch) ||
        json_object_set_new(payload, "file_type", ft ? json_string(ft) : json_null()) ||
        json_object_set_new(payload, "file_type_id",
                            g->file_type >= 0 ? jint((uint64_t)g->file_type) : json_null()) ||
        json_object_set_new(payload, "gguf_version", jint(g->version)) ||
        json_object_set_new(payload, "alignment", jint(g->alignment)))
        return VS_ENOMEM;
    return 0;
}

/* card.arch from a GGUF header's metadata, for a card no config.json
 * described: the shapes, the KV layout (model/gguf_arch.h), the context
 * length. NULL with err set when the metadata contradicts itself; *note
 * (malloc'd) says why kv_layout is null when it says too little. */
static json_t *gguf_card_arch(const vs_gguf_file *g, uint64_t params, const char *path, char **note,
                              vs_error *err)
{
    const vs_gguf_arch *a = &g->arch;
    vs_kv_layout l;
    json_t *kv, *arch;
    uint64_t vocab = a->vocab_size, hd = a->key_length;
    int has_output = 0;
    size_t i;
    vs_error le;
    int rc = vs_gguf_arch_kv_layout(&l, a, &le);
    if (rc == VS_EVALUE) {
        /* the metadata says too little for a layout: the shapes it gives, and
         * why there is no layout */
        if (!(*note = strdup(le.message))) {
            vs_error_set(err, VS_ENOMEM, "out of memory");
            return NULL;
        }
    } else if (rc) {
        vs_error_set(err, rc, "%s: %s", path, le.message);
        return NULL;
    }
    for (i = 0; i < g->count; i++) {
        if (!strcmp(g->tensors[i].name, "output.weight"))
            has_output = 1;
        if (!vocab && !strcmp(g->tensors[i].name, "token_embd.weight") && g->tensors[i].ndims == 2)
            vocab = g->tensors[i].ne[1];
    }
    if (!hd && a->head_count && a->embedding_length % a->head_count == 0)
        hd = a->embedding_length / a->head_count;
    if (a->kv_lora_rank && a->key_length_mla)
        hd = a->key_length_mla;
    if (!(kv = *note ? json_null() : vs_kv_layout_to_json(&l))) {
        vs_error_set(err, VS_ENOMEM, "out of memory");
        return NULL;
    }
    arch = json_pack(
        "{s:s, s:s, s:n, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:n, s:b, "
        "s:o, s:o}",
        "family", a->name[0] ? a->name : "unknown", "rule", "GGUF metadata", "config", "layers",
        juint_or_null(a->block_count), "hidden", juint_or_null(a->embedding_length), "heads",
        juint_or_null(a->head_count), "kv_heads",
        juint_or_null(a->head_count_kv ? a->head_count_kv : a->head_count), "head_dim",
        juint_or_null(hd), "intermediate", juint_or_null(a->feed_forward_length), "vocab",
        juint_or_null(vocab), "experts", juint_or_null(a->expert_count > 1 ? a->expert_count : 0),
        "experts_per_token", juint_or_null(a->expert_count > 1 ? a->expert_used_count : 0),
        "params_total", (json_int_t)params, "params_active", "tied_embeddings", !has_output,
        "kv_layout", kv, "context_length", juint_or_null(a->context_length));
    if (!arch)
        vs_error_set(err, VS_ENOMEM, "out of memory");
    return arch;
}

/* config.json beside a safetensors checkpoint: its quantization_config (GPTQ,
 * AWQ, FP8, MXFP4, NVFP4, bitsandbytes ...), or NULL. */
static json_t *quant_config_beside(const char *real)
{
    char *dir = strdup(real), *slash, *cfg;
    json_t *root, *q = NULL;
    if (!dir)
        return NULL;
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    cfg = join(dir, "config.json");
    free(dir);
    if (!cfg)
        return NULL;
    root = json_load_file(cfg, 0, NULL);
    free(cfg);
    if (json_is_object(root)) {
        json_t *v = json_object_get(root, "quantization_config");
        if (!json_is_object(v))
            v = json_object_get(json_object_get(root, "text_config"), "quantization_config");
        if (json_is_object(v))
            q = json_deep_copy(v);
    }
    json_decref(root);
    return q;
}

int vs_model_apply_weights_files(json_t *sheet, const char *path, int sha256, json_t **out_payload,
                                 vs_error *err)
{
    ckpt k;
    char *real = NULL;
    json_t *card = vs_sheet_get(sheet, VS_SK_CARD), *wf = NULL, *by = NULL, *other = NULL;
    json_t *payload = NULL, *bits;
    const vs_wf_dtype_total *d;
    const vs_wf_other *o;
    const vs_wf_format *fmt;
    size_t nd = 0, no = 0, i;
    int failed = 0, rc;

    memset(&k, 0, sizeof k);
    k.format = "safetensors";
    if (out_payload)
        *out_payload = NULL;
    if (!json_is_object(card))
        return vs_error_set(err, VS_EVALUE, "the sheet has no card");
    if (!(k.sum = vs_wf_summary_new()) || !(k.list = json_array())) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = vs_model_weights_in(path, &real, err)))
        goto done;
    if (ends_with(real, ".json")) {
        rc = read_index(&k, real, sha256, err);
    } else if (!(fmt = vs_wfile_sniff_file(real, err))) {
        rc = err && err->code ? err->code : VS_EFORMAT;
    } else if (!strcmp(fmt->name, "gguf")) {
        rc = read_gguf(&k, real, sha256, err);
    } else {
        rc = read_single(&k, real, sha256, err);
    }
    if (rc)
        goto done;
    if (vs_wf_summary_tensors(k.sum) == 0) {
        rc = vs_error_set(err, VS_EFORMAT, "%s: holds no tensors", real);
        goto done;
    }
    if (vs_wf_summary_bytes(k.sum) > (uint64_t)INT64_MAX ||
        vs_wf_summary_params(k.sum) > (uint64_t)INT64_MAX) {
        rc = vs_error_set(err, VS_EFORMAT, "%s: the totals do not fit a record", real);
        goto done;
    }
    d = vs_wf_summary_dtypes(k.sum, &nd);
    o = vs_wf_summary_others(k.sum, &no, &failed);
    by = json_array();
    other = json_array();
    if (failed || !by || !other) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < nd; i++)
        if (json_array_append_new(by, json_pack("{s:s, s:o, s:o}", "dtype", d[i].dtype, "bytes",
                                                jint(d[i].bytes), "params", jint(d[i].params))))
            failed = 1;
    for (i = 0; i < no; i++)
        if (json_array_append_new(other, json_pack("{s:s, s:s, s:o, s:o}", "pattern", o[i].pattern,
                                                   "dtype", o[i].dtype, "bytes", jint(o[i].bytes),
                                                   "tensors", jint(o[i].tensors))))
            failed = 1;
    wf = json_pack("{s:s, s:o, s:o, s:O, s:O, s:O}", "path", path, "bytes",
                   jint(vs_wf_summary_bytes(k.sum)), "params", jint(vs_wf_summary_params(k.sum)),
                   "by_dtype", by, "other_dtype", other, "files", k.list);
    if (wf && k.gguf && vs_gguf_io_json(wf, &k.io))
        failed = 1;
    bits = json_null();
    if (nd == 1) {
        vs_st_dtype sd;
        const vs_gguf_type *gt;
        json_decref(bits);
        if (k.gguf) {
            gt = vs_gguf_type_by_name(d[0].dtype);
            bits = gt && (gt->bytes * 8u) % gt->block == 0 ? jint(gt->bytes * 8u / gt->block)
                                                           : json_null();
        } else {
            bits = vs_st_dtype_parse(d[0].dtype, &sd) == 0 ? jint(8u * vs_st_dtype_size(sd))
                                                           : json_null();
        }
    }
    if (out_payload && wf)
        payload = json_pack("{s:s, s:o, s:o, s:o, s:O, s:O, s:O, s:s, s:s, s:o, s:s}", "kind",
                            "weights", "params", jint(vs_wf_summary_params(k.sum)), "bits", bits,
                            "bytes", jint(vs_wf_summary_bytes(k.sum)), "by_dtype", by,
                            "other_dtype", other, "files", k.list, "source", k.format, "path", path,
                            "tensors", jint(vs_wf_summary_tensors(k.sum)), "format", k.format);
    else
        json_decref(bits);
    if (failed || !wf || (out_payload && !payload)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (payload) {
        /* the config rule's count beside the stored element count: they differ
         * when the files keep buffers (GPT-2's attention masks) or pack
         * quantised weights */
        json_t *pc = json_object_get(vs_sheet_card_field(card, VS_CK_ARCH), "params_total");
        json_t *q = k.gguf ? NULL : quant_config_beside(real);
        if (json_object_set_new(payload, "params_config",
                                json_is_integer(pc) ? json_copy(pc) : json_null()) ||
            (k.gguf && gguf_payload(payload, k.gguf)) ||
            (!k.gguf && json_object_set_new(payload, "quantization_config", q ? q : json_null()))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        if (!k.gguf && q) {
            json_t *m = json_object_get(q, "quant_method");
            if (json_object_set_new(payload, "quant_method",
                                    json_is_string(m) ? json_copy(m) : json_null())) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
        }
    }
    /* the payload shares nothing mutable with the sheet */
    if (payload) {
        json_t *copy = json_deep_copy(payload);
        json_decref(payload);
        payload = copy;
        if (!payload) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
    }
    /* a GGUF file describes the architecture too: it fills the card when no
     * config.json did */
    if (k.gguf && k.gguf->arch.block_count &&
        !json_is_string(json_object_get(vs_sheet_card_field(card, VS_CK_ARCH), "config"))) {
        char *note = NULL;
        json_t *ga = gguf_card_arch(k.gguf, vs_wf_summary_params(k.sum), real, &note, err);
        if (!ga) {
            free(note);
            rc = err && err->code ? err->code : VS_EFORMAT;
            goto done;
        }
        if ((payload && (json_object_set_new(payload, "arch_from", json_string("gguf")) ||
                         json_object_set_new(payload, "kv_layout_note",
                                             note ? json_string(note) : json_null()))) ||
            json_object_set_new(card, "arch", ga)) {
            free(note);
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        free(note);
    }
    if (json_object_set(sheet, "weights_files", wf) ||
        json_object_set_new(card, "params", jint(vs_wf_summary_params(k.sum))) ||
        json_object_set_new(card, "params_source", json_string(k.format))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (out_payload) {
        *out_payload = payload;
        payload = NULL;
    }
done:
    json_decref(payload);
    json_decref(wf);
    json_decref(by);
    json_decref(other);
    free(real);
    ckpt_clear(&k);
    return rc;
}
