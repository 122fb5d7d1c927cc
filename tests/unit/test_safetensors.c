/* safetensors headers: files written here (mixed dtypes, metadata, sparse
 * multi-GiB files), every malformed input the format allows, and proof that
 * only the 8-byte length and the header are ever read. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/safetensors.h"
#include "util/buf.h"

#include "check_run.h"
#include "util/file.h"

typedef struct tspec {
    const char *name;
    const char *dtype;
    unsigned elem; /* bytes per element, as the test knows them */
    int ndim;
    unsigned long long shape[4];
} tspec;

/* A header laying the tensors out back to back; *data_len receives the data
 * area's size. metadata (may be NULL) is written as "__metadata__". */
static char *header_for(const tspec *t, size_t n, const char *metadata, uint64_t *data_len)
{
    vs_buf b = VS_BUF_INIT;
    uint64_t off = 0;
    size_t i;
    int d;
    vs_buf_putc(&b, '{');
    if (metadata)
        vs_buf_printf(&b, "\"__metadata__\": %s%s", metadata, n ? ", " : "");
    for (i = 0; i < n; i++) {
        uint64_t elems = 1, bytes;
        vs_buf_printf(&b, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": [", i ? ", " : "", t[i].name,
                      t[i].dtype);
        for (d = 0; d < t[i].ndim; d++) {
            vs_buf_printf(&b, "%s%llu", d ? ", " : "", t[i].shape[d]);
            elems *= t[i].shape[d];
        }
        bytes = elems * t[i].elem;
        vs_buf_printf(&b, "], \"data_offsets\": [%llu, %llu]}", (unsigned long long)off,
                      (unsigned long long)(off + bytes));
        off += bytes;
    }
    vs_buf_putc(&b, '}');
    *data_len = off;
    return vs_buf_take(&b);
}

/* A whole file in memory: 8-byte length, header, data_len bytes of 0xAB. */
static unsigned char *file_bytes(const char *header, uint64_t data_len, size_t *len)
{
    size_t h = strlen(header), i;
    unsigned char *f = malloc(8 + h + data_len);
    ck_assert_ptr_nonnull(f);
    for (i = 0; i < 8; i++)
        f[i] = (unsigned char)(((uint64_t)h >> (8 * i)) & 0xff);
    memcpy(f + 8, header, h);
    memset(f + 8 + h, 0xAB, data_len);
    *len = 8 + h + data_len;
    return f;
}

/* A reader over memory that records the furthest byte asked for. */
typedef struct memfile {
    const unsigned char *data;
    size_t len;
    uint64_t furthest;
    uint64_t requested;
    int fail;
} memfile;

static long long mem_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    memfile *m = ctx;
    size_t k;
    if (m->fail) {
        errno = EIO;
        return -1;
    }
    m->requested += n;
    if (offset + n > m->furthest)
        m->furthest = offset + n;
    if (offset >= m->len)
        return 0;
    k = m->len - (size_t)offset < n ? m->len - (size_t)offset : n;
    memcpy(buf, m->data + offset, k);
    return (long long)k;
}

static int read_mem(vs_st_file **out, const unsigned char *bytes, size_t len, memfile *m,
                    vs_error *err)
{
    uint64_t got = 0;
    int rc;
    memset(m, 0, sizeof *m);
    m->data = bytes;
    m->len = len;
    vs_error_clear(err);
    rc = vs_safetensors_read(out, "shard.safetensors", len, mem_read, m, &got, err);
    ck_assert_uint_eq(got, m->requested);
    return rc;
}

/* Parses a raw header text over a data area of data_len bytes; the error. */
static int bad_header(const char *header, uint64_t data_len, vs_error *err)
{
    vs_st_file *f = (vs_st_file *)0x1;
    int rc;
    vs_error_clear(err);
    rc = vs_safetensors_parse_header(&f, "bad.safetensors", header, strlen(header), data_len, err);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(rc, err->code);
    ck_assert_msg(strstr(err->message, "bad.safetensors") != NULL, "no file name in: %s",
                  err->message);
    return rc;
}

static const tspec mixed[] = {
    {"model.embed_tokens.weight", "BF16", 2, 2, {100, 16}},
    {"model.layers.0.self_attn.q_proj.weight", "BF16", 2, 2, {16, 16}},
    {"model.layers.0.input_layernorm.weight", "F32", 4, 1, {16}},
    {"model.layers.1.self_attn.q_proj.weight", "BF16", 2, 2, {16, 16}},
    {"model.layers.1.input_layernorm.weight", "F32", 4, 1, {16}},
    {"model.layers.1.self_attn.q_proj.weight_scale", "F8_E4M3", 1, 2, {16, 2}},
    {"model.norm.weight", "F32", 4, 1, {16}},
    {"lm_head.weight", "F16", 2, 2, {100, 16}},
    {"model.layers.1.mask", "BOOL", 1, 0, {0}},
};

START_TEST(mixed_dtypes_and_patterns)
{
    uint64_t data_len;
    size_t len, nd, no;
    char *h = header_for(mixed, sizeof mixed / sizeof mixed[0],
                         "{\"format\": \"pt\", \"note\": \"anything\"}", &data_len);
    unsigned char *bytes = file_bytes(h, data_len, &len);
    vs_st_file *f = NULL;
    vs_st_summary *s = vs_st_summary_new();
    const vs_st_dtype_total *d;
    const vs_st_other *o;
    vs_error err;
    memfile m;
    int failed;
    ck_assert_int_eq(read_mem(&f, bytes, len, &m, &err), 0);
    ck_assert_uint_eq(f->count, 9); /* __metadata__ is not a tensor */
    ck_assert_uint_eq(f->header_len, strlen(h));
    ck_assert_uint_eq(f->data_bytes, data_len);
    ck_assert_uint_eq(f->params, 1600 + 256 + 16 + 256 + 16 + 32 + 16 + 1600 + 1);
    /* only the length and the header were asked for */
    ck_assert_uint_eq(m.furthest, 8 + strlen(h));
    ck_assert_uint_eq(m.requested, 8 + strlen(h));

    ck_assert_int_eq(vs_st_summary_add(s, f, &err), 0);
    ck_assert_uint_eq(vs_st_summary_bytes(s), data_len);
    ck_assert_uint_eq(vs_st_summary_tensors(s), 9);
    d = vs_st_summary_dtypes(s, &nd);
    ck_assert_uint_eq(nd, 5);
    ck_assert_str_eq(vs_st_dtype_name(d[0].dtype), "BF16"); /* the bulk: most bytes */
    ck_assert_uint_eq(d[0].bytes, (1600 + 256 + 256) * 2);
    ck_assert_uint_eq(d[0].params, 1600 + 256 + 256);
    ck_assert_uint_eq(d[0].tensors, 3);
    ck_assert_str_eq(vs_st_dtype_name(d[1].dtype), "F16");
    ck_assert_uint_eq(d[1].bytes, 3200);
    ck_assert_str_eq(vs_st_dtype_name(d[2].dtype), "F32");
    ck_assert_uint_eq(d[2].bytes, 48 * 4);
    ck_assert_uint_eq(d[2].tensors, 3);
    ck_assert_str_eq(vs_st_dtype_name(d[3].dtype), "F8_E4M3");
    ck_assert_str_eq(vs_st_dtype_name(d[4].dtype), "BOOL");
    ck_assert_uint_eq(d[4].bytes, 1);

    o = vs_st_summary_others(s, &no, &failed);
    ck_assert_int_eq(failed, 0);
    ck_assert_uint_eq(no, 5);
    ck_assert_str_eq(o[0].pattern, "lm_head.weight");
    ck_assert_str_eq(vs_st_dtype_name(o[0].dtype), "F16");
    ck_assert_uint_eq(o[0].bytes, 3200);
    ck_assert_uint_eq(o[0].tensors, 1);
    ck_assert_str_eq(o[1].pattern, "model.layers.*.input_layernorm.weight");
    ck_assert_str_eq(vs_st_dtype_name(o[1].dtype), "F32");
    ck_assert_uint_eq(o[1].bytes, 128);
    ck_assert_uint_eq(o[1].tensors, 2);
    ck_assert_str_eq(o[2].pattern, "model.norm.weight");
    ck_assert_str_eq(o[3].pattern, "model.layers.*.self_attn.q_proj.weight_scale");
    ck_assert_str_eq(o[4].pattern, "model.layers.*.mask");
    vs_st_summary_free(s);
    vs_st_file_free(f);
    free(bytes);
    free(h);
}
END_TEST

START_TEST(summary_over_shards)
{
    static const tspec a[] = {{"h.0.attn.c_attn.weight", "F16", 2, 2, {8, 24}},
                              {"h.0.ln_1.weight", "F32", 4, 1, {8}}};
    static const tspec b[] = {{"h.1.attn.c_attn.weight", "F16", 2, 2, {8, 24}},
                              {"h.1.ln_1.weight", "F32", 4, 1, {8}},
                              {"h.10.ln_1.weight", "F32", 4, 1, {8}}};
    uint64_t la, lb;
    char *ha = header_for(a, 2, NULL, &la), *hb = header_for(b, 3, NULL, &lb);
    vs_st_file *fa = NULL, *fb = NULL;
    vs_st_summary *s = vs_st_summary_new();
    const vs_st_other *o;
    const vs_st_dtype_total *d;
    size_t n, nd;
    int failed;
    vs_error err;
    ck_assert_int_eq(vs_safetensors_parse_header(&fa, "a", ha, strlen(ha), la, &err), 0);
    ck_assert_int_eq(vs_safetensors_parse_header(&fb, "b", hb, strlen(hb), lb, &err), 0);
    ck_assert_int_eq(vs_st_summary_add(s, fa, &err), 0);
    o = vs_st_summary_others(s, &n, &failed);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(o[0].tensors, 1);
    ck_assert_int_eq(vs_st_summary_add(s, fb, &err), 0); /* recomputed after an add */
    o = vs_st_summary_others(s, &n, &failed);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(o[0].pattern, "h.*.ln_1.weight");
    ck_assert_uint_eq(o[0].tensors, 3);
    ck_assert_uint_eq(o[0].bytes, 96);
    d = vs_st_summary_dtypes(s, &nd);
    ck_assert_uint_eq(nd, 2);
    ck_assert_uint_eq(d[0].bytes, 2 * 8 * 24 * 2);
    ck_assert_uint_eq(vs_st_summary_params(s), 2 * 192 + 3 * 8);
    ck_assert_uint_eq(vs_st_summary_bytes(s), la + lb);
    vs_st_summary_free(s);
    vs_st_file_free(fa);
    vs_st_file_free(fb);
    free(ha);
    free(hb);
}
END_TEST

START_TEST(one_dtype_has_no_others)
{
    const char *h = "{\"a\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [0, 4]}}";
    vs_st_file *f = NULL;
    vs_st_summary *s = vs_st_summary_new();
    size_t n = 99, nd;
    int failed = 7;
    vs_error err;
    ck_assert_int_eq(vs_safetensors_parse_header(&f, "x", h, strlen(h), 4, &err), 0);
    ck_assert_int_eq(vs_st_summary_add(s, f, &err), 0);
    ck_assert_ptr_null(vs_st_summary_others(s, &n, &failed));
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(failed, 0);
    vs_st_summary_dtypes(s, &nd);
    ck_assert_uint_eq(nd, 1);
    vs_st_summary_free(s);
    vs_st_file_free(f);
}
END_TEST

START_TEST(dtype_table)
{
    static const struct {
        const char *n;
        unsigned size;
    } want[] = {{"F64", 8},     {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1}, {"F8_E5M2", 1},
                {"F8_E8M0", 1}, {"I64", 8}, {"I32", 4}, {"I16", 2},  {"I8", 1},      {"U64", 8},
                {"U32", 4},     {"U16", 2}, {"U8", 1},  {"BOOL", 1}};
    size_t i;
    vs_st_dtype d;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_int_eq(vs_st_dtype_parse(want[i].n, &d), 0);
        ck_assert_str_eq(vs_st_dtype_name(d), want[i].n);
        ck_assert_uint_eq(vs_st_dtype_size(d), want[i].size);
    }
    ck_assert_int_eq(vs_st_dtype_parse("bf16", &d), VS_EFORMAT);
    ck_assert_int_eq(vs_st_dtype_parse("F4", &d), VS_EFORMAT);
    ck_assert_ptr_null(vs_st_dtype_name(VS_ST_NDTYPES));
}
END_TEST

START_TEST(name_patterns)
{
    char out[128];
    vs_safetensors_name_pattern("model.layers.12.mlp.experts.3.w1.weight", out, sizeof out);
    ck_assert_str_eq(out, "model.layers.*.mlp.experts.*.w1.weight");
    vs_safetensors_name_pattern("transformer.h.0.ln_1.weight", out, sizeof out);
    ck_assert_str_eq(out, "transformer.h.*.ln_1.weight");
    vs_safetensors_name_pattern("0.weight", out, sizeof out);
    ck_assert_str_eq(out, "*.weight");
    vs_safetensors_name_pattern("layer.7", out, sizeof out);
    ck_assert_str_eq(out, "layer.*");
    vs_safetensors_name_pattern("w12x.3a.v2", out, sizeof out); /* digits inside a word stay */
    ck_assert_str_eq(out, "w12x.3a.v2");
    vs_safetensors_name_pattern("a..1", out, sizeof out);
    ck_assert_str_eq(out, "a..*");
    vs_safetensors_name_pattern("model.layers.12.x", out, 10);
    ck_assert_str_eq(out, "model.lay");
    vs_safetensors_name_pattern("", out, sizeof out);
    ck_assert_str_eq(out, "");
}
END_TEST

/* A multi-GiB file whose tensor area is a hole: reading it costs the header. */
START_TEST(sparse_file_reads_only_the_header)
{
    static const tspec big[] = {
        {"model.embed_tokens.weight", "BF16", 2, 2, {32000, 4096}},
        {"model.layers.0.mlp.up_proj.weight", "BF16", 2, 2, {14336, 4096}},
        {"model.layers.0.mlp.down_proj.weight", "F32", 4, 2, {4096, 262144}}};
    const char *tmp = getenv("TMPDIR");
    char path[256];
    uint64_t data_len, fsize = 0, got = 0;
    char *h = header_for(big, 3, NULL, &data_len);
    size_t hl = strlen(h);
    unsigned char len8[8];
    vs_st_file *f = NULL;
    vs_error err;
    int fd, i;
    snprintf(path, sizeof path, "%s/vs_st_sparse_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    for (i = 0; i < 8; i++)
        len8[i] = (unsigned char)((hl >> (8 * i)) & 0xff);
    ck_assert_int_eq(write(fd, len8, 8), 8);
    ck_assert_int_eq(write(fd, h, hl), (ssize_t)hl);
    ck_assert_int_eq(ftruncate(fd, (off_t)(8 + hl + data_len)), 0);
    close(fd);
    ck_assert_uint_gt(data_len, (uint64_t)4 << 30);
    ck_assert_int_eq(vs_safetensors_read_file(&f, path, &fsize, &got, &err), 0);
    ck_assert_uint_eq(fsize, 8 + hl + data_len);
    ck_assert_uint_eq(got, 8 + hl);
    ck_assert_uint_eq(f->data_bytes, data_len);
    ck_assert_uint_eq(f->params, 32000ULL * 4096 + 14336ULL * 4096 + 4096ULL * 262144);
    vs_st_file_free(f);
    /* the same file cut short: its last tensor runs past the end */
    fd = open(path, O_WRONLY);
    ck_assert_int_eq(ftruncate(fd, (off_t)(8 + hl + data_len - 1)), 0);
    close(fd);
    ck_assert_int_eq(vs_safetensors_read_file(&f, path, NULL, NULL, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "model.layers.0.mlp.down_proj.weight"));
    ck_assert_ptr_nonnull(strstr(err.message, "past the end"));
    ck_assert_ptr_nonnull(strstr(err.message, path));
    unlink(path);
    ck_assert_int_eq(vs_safetensors_read_file(&f, path, NULL, NULL, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, path));
    ck_assert_int_eq(vs_safetensors_read_file(&f, "/tmp", NULL, NULL, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "folder"));
    /* a FIFO with no writer: refused at once, not a blocked open() */
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(vs_safetensors_read_file(&f, path, NULL, NULL, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "FIFO"));
    ck_assert_int_eq(vs_file_open_regular(path, 0, NULL, &err), VS_EIO);
    unlink(path);
    /* a size cap, and a regular file's descriptor reads normally (blocking) */
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ck_assert_int_eq(write(fd, "12345", 5), 5);
    close(fd);
    ck_assert_int_eq(vs_file_open_regular(path, 4, NULL, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "too large"));
    fd = vs_file_open_regular(path, 5, &fsize, &err);
    ck_assert_int_ge(fd, 0);
    ck_assert_uint_eq(fsize, 5);
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    unlink(path);
    free(h);
}
END_TEST

START_TEST(short_and_oversized_lengths)
{
    unsigned char small[5] = {1, 0, 0, 0, 0};
    unsigned char buf[64];
    vs_st_file *f = NULL;
    vs_error err;
    memfile m;
    size_t i;
    /* shorter than the 8-byte length */
    ck_assert_int_eq(read_mem(&f, small, sizeof small, &m, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "truncated"));
    ck_assert_ptr_nonnull(strstr(err.message, "shard.safetensors"));
    ck_assert_uint_eq(m.requested, 0);
    /* a header length larger than the file */
    memset(buf, ' ', sizeof buf);
    buf[0] = 200;
    for (i = 1; i < 8; i++)
        buf[i] = 0;
    ck_assert_int_eq(read_mem(&f, buf, sizeof buf, &m, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "larger than the file"));
    ck_assert_uint_eq(m.requested, 8); /* the length, nothing else */
    /* the 8 bytes of a file that is not safetensors at all: a huge length */
    memcpy(buf, "PK\x03\x04\x14\x00\x00\x00", 8);
    ck_assert_int_eq(read_mem(&f, buf, sizeof buf, &m, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "larger than the file"));
    /* an empty header */
    memset(buf, 0, 8);
    ck_assert_int_eq(read_mem(&f, buf, sizeof buf, &m, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "not JSON"));
    ck_assert_ptr_null(f);
}
END_TEST

/* A reader that claims an enormous file: the header limit holds before any
 * allocation of that size. */
static long long huge_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    uint64_t hl = VS_ST_HEADER_MAX + 1;
    size_t i;
    (void)ctx;
    ck_assert_uint_eq(offset, 0);
    ck_assert_uint_eq(n, 8);
    for (i = 0; i < 8; i++)
        ((unsigned char *)buf)[i] = (unsigned char)((hl >> (8 * i)) & 0xff);
    return 8;
}

static long long short_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    /* says the file is longer than it is: ends inside the header */
    static const unsigned char head[12] = {100, 0, 0, 0, 0, 0, 0, 0, '{', '"', 'a', '"'};
    size_t k;
    (void)ctx;
    if (offset >= sizeof head)
        return 0;
    k = sizeof head - (size_t)offset < n ? sizeof head - (size_t)offset : n;
    memcpy(buf, head + offset, k);
    return (long long)k;
}

START_TEST(reader_failures)
{
    vs_st_file *f = NULL;
    vs_error err;
    memfile m;
    uint64_t got = 0;
    unsigned char buf[16] = {0};
    ck_assert_int_eq(vs_safetensors_read(&f, "big", (uint64_t)1 << 40, huge_read, NULL, &got, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "limit"));
    ck_assert_uint_eq(got, 8);
    ck_assert_int_eq(vs_safetensors_read(&f, "cut", 200, short_read, NULL, &got, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "truncated"));
    ck_assert_uint_eq(got, 12);
    memset(&m, 0, sizeof m);
    m.data = buf;
    m.len = sizeof buf;
    m.fail = 1;
    ck_assert_int_eq(vs_safetensors_read(&f, "eio", sizeof buf, mem_read, &m, NULL, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "eio"));
    ck_assert_ptr_null(f);
}
END_TEST

START_TEST(malformed_headers)
{
    vs_error err;
    const char *one = "{\"w\": {\"dtype\": \"F16\", \"shape\": [2, 2], \"data_offsets\": [0, 8]}}";
    vs_st_file *f = NULL;
    /* the well-formed reference, so each case below breaks one thing */
    ck_assert_int_eq(vs_safetensors_parse_header(&f, "ok", one, strlen(one), 8, &err), 0);
    vs_st_file_free(f);

    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", ", 8, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "not JSON"));
    ck_assert_int_eq(bad_header("[1, 2, 3]", 8, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "not a JSON object"));
    ck_assert_int_eq(bad_header("{\"w\": 3}", 8, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "'w'"));
    /* unknown dtype */
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"Q4_K\", \"shape\": [2, 2], \"data_offsets\": [0, 8]}}", 8,
                   &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown dtype 'Q4_K'"));
    ck_assert_ptr_nonnull(strstr(err.message, "'w'"));
    ck_assert_int_eq(bad_header("{\"w\": {\"shape\": [2, 2], \"data_offsets\": [0, 8]}}", 8, &err),
                     VS_EFORMAT);
    /* size != product(shape) x dtype size */
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 8]}}", 8,
                   &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "16 bytes"));
    /* shape overflow, and shapes that are not counts */
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [4294967296, 4294967296, "
                                "4294967296], \"data_offsets\": [0, 8]}}",
                                8, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "overflows"));
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F64\", \"shape\": [2305843009213693952], "
                                "\"data_offsets\": [0, 8]}}",
                                8, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "overflows"));
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [-2, 2], \"data_offsets\": [0, 8]}}", 8,
                   &err),
        VS_EFORMAT);
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": \"2x2\", \"data_offsets\": [0, 8]}}", 8,
                   &err),
        VS_EFORMAT);
    /* data_offsets malformed, out of order, past the end */
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2, 2], \"data_offsets\": [0]}}", 8,
                   &err),
        VS_EFORMAT);
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2, 2], \"data_offsets\": [8, 0]}}", 8,
                   &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "out of order"));
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2, 2], \"data_offsets\": [0, 8]}}", 7,
                   &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "past the end"));
    /* overlapping tensors */
    ck_assert_int_eq(
        bad_header("{\"a\": {\"dtype\": \"F16\", \"shape\": [4], \"data_offsets\": [0, 8]}, "
                   "\"b\": {\"dtype\": \"F16\", \"shape\": [4], \"data_offsets\": [4, 12]}}",
                   12, &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "overlap"));
    ck_assert_ptr_nonnull(strstr(err.message, "'b'"));
    ck_assert_ptr_nonnull(strstr(err.message, "'a'"));
    /* a hole between tensors */
    ck_assert_int_eq(
        bad_header("{\"a\": {\"dtype\": \"F16\", \"shape\": [4], \"data_offsets\": [0, 8]}, "
                   "\"b\": {\"dtype\": \"F16\", \"shape\": [4], \"data_offsets\": [10, 18]}}",
                   18, &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "hole"));
    /* data the header does not account for */
    ck_assert_int_eq(bad_header(one, 9, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "unaccounted"));
    /* the same tensor twice */
    ck_assert_int_eq(
        bad_header("{\"a\": {\"dtype\": \"F16\", \"shape\": [4], \"data_offsets\": [0, 8]}, "
                   "\"a\": {\"dtype\": \"F16\", \"shape\": [4], \"data_offsets\": [8, 16]}}",
                   16, &err),
        VS_EFORMAT);
}
END_TEST

START_TEST(out_of_order_listing_is_fine)
{
    /* tensors may be listed in any order; only their offsets must tile the data */
    const char *h = "{\"b\": {\"dtype\": \"I8\", \"shape\": [3], \"data_offsets\": [8, 11]}, "
                    "\"s\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [4, 8]}, "
                    "\"e\": {\"dtype\": \"U8\", \"shape\": [0, 5], \"data_offsets\": [4, 4]}, "
                    "\"a\": {\"dtype\": \"I32\", \"shape\": [1], \"data_offsets\": [0, 4]}}";
    vs_st_file *f = NULL;
    vs_error err;
    ck_assert_int_eq(vs_safetensors_parse_header(&f, "x", h, strlen(h), 11, &err), 0);
    ck_assert_uint_eq(f->count, 4);
    ck_assert_str_eq(f->tensors[0].name, "a");
    ck_assert_uint_eq(f->tensors[2].elements, 1); /* a scalar */
    ck_assert_uint_eq(f->params, 1 + 0 + 1 + 3);
    ck_assert_uint_eq(f->data_bytes, 11);
    vs_st_file_free(f);
}
END_TEST

START_TEST(header_details)
{
    /* escaped names decode; unknown keys inside an entry are ignored, as the
     * reference loader does; __metadata__ maps strings to strings */
    const char *h = "{\"__metadata__\": {\"format\": \"pt\", \"b\": \"\"}, \"caf\\u00e9.w\": "
                    "{\"extra\": [true], \"dtype\": \"U16\", \"shape\": [3], "
                    "\"data_offsets\": [0, 6]}}   ";
    vs_st_file *f = NULL;
    vs_error err;
    ck_assert_int_eq(vs_safetensors_parse_header(&f, "x", h, strlen(h), 6, &err), 0);
    ck_assert_uint_eq(f->count, 1);
    ck_assert_str_eq(f->tensors[0].name, "caf\xc3\xa9.w");
    ck_assert_uint_eq(f->params, 3);
    vs_st_file_free(f);
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", \"dtype\": \"F16\", \"shape\": [2], "
                                "\"data_offsets\": [0, 4]}}",
                                4, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "twice"));
    ck_assert_int_eq(bad_header("{\"__metadata__\": {}, \"__metadata__\": {}}", 0, &err),
                     VS_EFORMAT);
    /* __metadata__ other than string -> string: the reference loader refuses it */
    {
        static const char *const bad_meta[] = {
            "{\"__metadata__\": {\"a\": [1, {\"b\": null}]}}",
            "{\"__metadata__\": {\"format\": \"pt\", \"n\": 3}}",
            "{\"__metadata__\": {\"x\": null}}",
            "{\"__metadata__\": {\"x\": {}}}",
            "{\"__metadata__\": [\"pt\"]}",
            "{\"__metadata__\": \"pt\"}",
            "{\"__metadata__\": 1}",
        };
        size_t k;
        for (k = 0; k < sizeof bad_meta / sizeof bad_meta[0]; k++) {
            ck_assert_int_eq(bad_header(bad_meta[k], 0, &err), VS_EFORMAT);
            ck_assert_ptr_nonnull(strstr(err.message, "__metadata__"));
            ck_assert_ptr_nonnull(strstr(err.message, "string values"));
        }
        ck_assert_ptr_nonnull(strstr(err.message, "not an object"));
        ck_assert_int_eq(bad_header("{\"__metadata__\": {\"a\": 1}}", 0, &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, "'a'"));
        /* malformed JSON inside still says so */
        ck_assert_int_eq(bad_header("{\"__metadata__\": {\"a\": \"b\",}}", 0, &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, "not JSON"));
        /* an empty map and null are no metadata */
        ck_assert_int_eq(
            vs_safetensors_parse_header(&f, "x", "{\"__metadata__\": {}}", 20, 0, &err), 0);
        vs_st_file_free(f);
        ck_assert_int_eq(
            vs_safetensors_parse_header(&f, "x", "{\"__metadata__\": null}", 22, 0, &err), 0);
        vs_st_file_free(f);
    }
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": [0, 4]}} x", 4,
                   &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "not JSON"));
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2.0], \"data_offsets\": [0, 4]}}", 4,
                   &err),
        VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "non-negative integers"));
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": "
                                "[0, 18446744073709551616]}}",
                                4, &err),
                     VS_EFORMAT);
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": "
                                "[0, 4, 8]}}",
                                4, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "begin, end"));
    ck_assert_int_eq(
        bad_header("{\"w\": {\"dtype\": 16, \"shape\": [2], \"data_offsets\": [0, 4]}}", 4, &err),
        VS_EFORMAT);
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", \"data_offsets\": [0, 4]}}", 4, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "\"shape\" is missing"));
    ck_assert_int_eq(bad_header("{\"w\": {\"dtype\": \"F16\", \"shape\": [2]}}", 4, &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "\"data_offsets\" is missing"));
    ck_assert_int_eq(bad_header("{\"w\\u0000\": {}}", 0, &err), VS_EFORMAT);
    ck_assert_int_eq(bad_header("{\"\xff\": {}}", 0, &err), VS_EFORMAT);
}
END_TEST

START_TEST(index_parse)
{
    const char *t = "{\"metadata\": {\"total_size\": 12, \"x\": [1]}, \"weight_map\": {"
                    "\"b\": \"s2.safetensors\", \"a\": \"s1.safetensors\", "
                    "\"c\": \"s2.safetensors\"}, \"other\": null}";
    vs_st_index *ix = NULL;
    vs_error err;
    ck_assert_int_eq(vs_st_index_parse(&ix, "i.json", t, strlen(t), &err), 0);
    ck_assert_uint_eq(ix->count, 3);
    ck_assert_uint_eq(ix->nshards, 2);
    ck_assert_str_eq(ix->shards[0], "s1.safetensors");
    ck_assert_str_eq(ix->shards[1], "s2.safetensors");
    ck_assert_str_eq(ix->tensors[0], "b");
    ck_assert_uint_eq(ix->shard_of[0], 1);
    ck_assert_uint_eq(ix->shard_of[1], 0);
    ck_assert_uint_eq(ix->shard_of[2], 1);
    vs_st_index_free(ix);
    ix = NULL;
#define BAD_INDEX(text, needle)                                                                    \
    do {                                                                                           \
        vs_error_clear(&err);                                                                      \
        ck_assert_int_eq(vs_st_index_parse(&ix, "i.json", text, strlen(text), &err), VS_EFORMAT);  \
        ck_assert_ptr_null(ix);                                                                    \
        ck_assert_msg(strstr(err.message, needle) && strstr(err.message, "i.json"), "%s",          \
                      err.message);                                                                \
    } while (0)
    BAD_INDEX("{\"weight_map\": {\"a\": \"s\", \"a\": \"s\"}}", "listed twice");
    BAD_INDEX("{\"weight_map\": {\"a\": \"sub/s\"}}", "beside the index");
    BAD_INDEX("{\"weight_map\": {\"a\": \"..\"}}", "beside the index");
    BAD_INDEX("{\"weight_map\": {\"a\": \"\"}}", "beside the index");
    BAD_INDEX("{\"weight_map\": {\"a\": [\"s\"]}}", "'a'");
    BAD_INDEX("{\"weight_map\": {}}", "weight_map");
    BAD_INDEX("{\"weight_map\": []}", "weight_map");
    BAD_INDEX("{\"weight_map\": {\"a\": \"s\"}, \"weight_map\": {\"b\": \"s\"}}", "twice");
    BAD_INDEX("{\"weight_map\": {\"a\": \"s\"}", "not JSON");
    BAD_INDEX("[\"weight_map\"]", "not a JSON object");
    BAD_INDEX("", "not JSON");
#undef BAD_INDEX
}
END_TEST

START_TEST(index_many_shards_and_check)
{
    /* 300 shards named in reverse order, two tensors each: the shard list
     * comes back sorted and each tensor keeps its own shard */
    vs_buf b = VS_BUF_INIT;
    vs_st_index *ix = NULL;
    vs_st_file *files[2] = {NULL, NULL};
    const vs_st_file *const *fp = (const vs_st_file *const *)files;
    vs_error err;
    char want[64];
    int k;
    size_t i;
    const char *h0 = "{\"t0\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 1]}}";
    const char *h1 = "{\"t1\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 1]}, "
                     "\"t2\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [1, 2]}}";
    vs_buf_puts(&b, "{\"weight_map\": {");
    for (k = 299; k >= 0; k--)
        vs_buf_printf(&b, "%s\"a.%d\": \"s%03d\", \"b.%d\": \"s%03d\"", k == 299 ? "" : ", ", k, k,
                      k, k);
    vs_buf_puts(&b, "}}");
    ck_assert_int_eq(vs_st_index_parse(&ix, "i", b.data, b.len, &err), 0);
    ck_assert_uint_eq(ix->nshards, 300);
    ck_assert_uint_eq(ix->count, 600);
    for (i = 0; i < ix->count; i++) {
        int n = 0;
        sscanf(ix->tensors[i] + 2, "%d", &n);
        snprintf(want, sizeof want, "s%03d", n);
        ck_assert_str_eq(ix->shards[ix->shard_of[i]], want);
        ck_assert_uint_eq(ix->shard_of[i], (size_t)n);
    }
    vs_st_index_free(ix);
    vs_buf_free(&b);

    /* the check against the shards' headers */
    ck_assert_int_eq(vs_safetensors_parse_header(&files[0], "s0", h0, strlen(h0), 1, &err), 0);
    ck_assert_int_eq(vs_safetensors_parse_header(&files[1], "s1", h1, strlen(h1), 2, &err), 0);
    {
        const char *ok = "{\"weight_map\": {\"t0\": \"s0\", \"t1\": \"s1\", \"t2\": \"s1\"}}";
        const char *wrong = "{\"weight_map\": {\"t0\": \"s0\", \"t1\": \"s0\", \"t2\": \"s1\"}}";
        const char *unknown = "{\"weight_map\": {\"t0\": \"s0\", \"t9\": \"s1\"}}";
        ck_assert_int_eq(vs_st_index_parse(&ix, "i", ok, strlen(ok), &err), 0);
        ck_assert_int_eq(vs_st_index_check(ix, fp, "i.json", &err), 0);
        vs_st_index_free(ix);
        ck_assert_int_eq(vs_st_index_parse(&ix, "i", wrong, strlen(wrong), &err), 0);
        ck_assert_int_eq(vs_st_index_check(ix, fp, "i.json", &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, "'t1' in s0"));
        vs_st_index_free(ix);
        ck_assert_int_eq(vs_st_index_parse(&ix, "i", unknown, strlen(unknown), &err), 0);
        ck_assert_int_eq(vs_st_index_check(ix, fp, "i.json", &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, "'t9'"));
        vs_st_index_free(ix);
    }
    vs_st_file_free(files[1]);
    ck_assert_int_eq(vs_safetensors_parse_header(&files[1], "s1", h0, strlen(h0), 1, &err), 0);
    {
        const char *two = "{\"weight_map\": {\"t0\": \"s0\", \"x\": \"s1\"}}";
        ck_assert_int_eq(vs_st_index_parse(&ix, "i", two, strlen(two), &err), 0);
        ck_assert_int_eq(vs_st_index_check(ix, fp, "i.json", &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, "two shards (s0, s1)"));
        vs_st_index_free(ix);
    }
    vs_st_file_free(files[0]);
    vs_st_file_free(files[1]);
}
END_TEST

/* A header that is not JSON says where, in the message and in the error: the
 * byte of the header text where the reader stopped. */
START_TEST(not_json_position)
{
    static const struct {
        const char *json;
        long long at;
    } cases[] = {
        {"{\"a\":}", 5},     /* a value expected at the '}' */
        {"{\"a\":[1,]}", 8}, /* a value expected at the ']' */
        {"{\"a\" 1}", 5},    /* ':' expected at the '1' */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_st_file *f = NULL;
        vs_error err;
        char want[32];
        ck_assert_int_eq(vs_safetensors_parse_header(&f, "p.safetensors", cases[i].json,
                                                     strlen(cases[i].json), 0, &err),
                         VS_EFORMAT);
        ck_assert_msg(err.position == cases[i].at, "%s: position %lld: %s", cases[i].json,
                      err.position, err.message);
        snprintf(want, sizeof want, "(byte %lld of it", cases[i].at);
        ck_assert_msg(strstr(err.message, want), "%s", err.message);
        ck_assert_ptr_null(f);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("safetensors");
    TCase *tc = tcase_create("headers");
    TCase *bad = tcase_create("bad input");
    tcase_add_test(tc, mixed_dtypes_and_patterns);
    tcase_add_test(tc, summary_over_shards);
    tcase_add_test(tc, one_dtype_has_no_others);
    tcase_add_test(tc, dtype_table);
    tcase_add_test(tc, name_patterns);
    tcase_add_test(tc, sparse_file_reads_only_the_header);
    tcase_add_test(tc, out_of_order_listing_is_fine);
    tcase_add_test(tc, header_details);
    tcase_add_test(tc, index_parse);
    tcase_add_test(tc, index_many_shards_and_check);
    tcase_add_test(bad, short_and_oversized_lengths);
    tcase_add_test(bad, reader_failures);
    tcase_add_test(bad, malformed_headers);
    tcase_add_test(bad, not_json_position);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
