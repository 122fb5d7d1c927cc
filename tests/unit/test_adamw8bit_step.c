/* torchao's compiled AdamW8bit step against the output code Inductor wrote for
 * it (tests/data/inductor/ao8_step_torch-*.txt, by
 * tests/tools/ao8_step_output_code.py from the PyPI wheels of each release):
 * the test reads the kernel's launch kind, its parameters, the tensors it
 * writes in place and their shapes and dtypes, and the buffers the wrapper
 * allocates, and sums their bytes itself; the estimator must give the same.
 * The parameter is Llama-3.2-3B's tied embedding, 128,256 x 3,072 in bf16. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/estimate.h"

#include "check_run.h"

#ifndef VS_INDUCTOR_DATA
#error "VS_INDUCTOR_DATA (the tests/data/inductor folder) must be defined"
#endif

#define N_EMBED (128256ull * 3072)

typedef struct step_code {
    int looped;         /* @triton_heuristics.reduction, not persistent_reduction */
    int default_hint;   /* reduction_hint=ReductionHint.DEFAULT */
    uint64_t inplace;   /* bytes of the tensors the kernel writes in place, each as passed */
    uint64_t wrapper;   /* bytes of the buffers call() allocates */
    unsigned n_inplace; /* how many such arguments */
} step_code;

static char *slurp(const char *name)
{
    char path[512];
    FILE *f;
    long n;
    char *s;
    snprintf(path, sizeof path, "%s/%s", VS_INDUCTOR_DATA, name);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* The i-th comma-separated item of a list that ends at its closing bracket
 * (an item's own "()", as in arg8_1.item(), kept; spaces and quotes trimmed)
 * into out; 0 when there is none. */
static int item(const char *list, unsigned i, char *out, size_t len)
{
    const char *p = list, *b;
    int depth = 0;
    size_t n;
    for (; i; p++) {
        if (!*p)
            return 0;
        if (*p == '(')
            depth++;
        else if ((*p == ')' || *p == ']') && depth-- == 0)
            return 0;
        else if (*p == ',' && depth == 0)
            i--;
    }
    while (*p == ' ' || *p == '\'')
        p++;
    for (b = p, depth = 0; *p && !(depth == 0 && strchr(",)]:", *p)); p++)
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
    while (p > b && (p[-1] == ' ' || p[-1] == '\''))
        p--;
    n = (size_t)(p - b);
    if (!n || n >= len)
        return 0;
    memcpy(out, b, n);
    out[n] = 0;
    return 1;
}

/* The values of a shape "(a, b)" or "(a, )" from its opening parenthesis. */
static uint64_t numel(const char *shape)
{
    uint64_t v = 1;
    const char *p = shape + 1;
    while (*p && *p != ')') {
        char *end;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p)
            break;
        v *= x;
        p = end + strspn(end, ", ");
    }
    return v;
}

static unsigned dtype_bytes(const char *t)
{
    if (!strcmp(t, "*bf16") || !strcmp(t, "*fp16"))
        return 2;
    if (!strcmp(t, "*u8") || !strcmp(t, "*i8"))
        return 1;
    if (!strcmp(t, "*fp32") || !strcmp(t, "*i32"))
        return 4;
    ck_abort_msg("unknown pointer type %s", t);
    return 0;
}

static step_code read_step(const char *name)
{
    step_code c = {0};
    char *s = slurp(name), param[64], arg[64], key[120], sig[2048], *p, *mut, *def, *run;
    unsigned i;
    c.looped = strstr(s, "@triton_heuristics.reduction(") != NULL;
    c.default_hint = strstr(s, "reduction_hint=ReductionHint.DEFAULT") != NULL;
    mut = strstr(s, "mutated_arg_names=[");
    def = strstr(s, "\ndef triton_");
    run = strstr(s, ".run(");
    p = strstr(s, "signature={");
    ck_assert(p && mut && def && run);
    /* the signature's line alone, so that a name found is the signature's */
    ck_assert_uint_lt(strcspn(p, "\n"), sizeof sig);
    memcpy(sig, p, strcspn(p, "\n"));
    sig[strcspn(p, "\n")] = 0;
    def = strchr(def, '(') + 1;
    run += 5;
    /* a persistent reduction has one launch config: nothing is autotuned or cloned */
    for (i = 0; c.looped && item(def, i, param, sizeof param) && strcmp(param, "xnumel"); i++) {
        char *t, type[16];
        size_t k;
        ck_assert(item(run, i, arg, sizeof arg));
        snprintf(key, sizeof key, "'%s'", param);
        if (!strstr(mut, key) || strstr(mut, key) > strchr(mut, ']'))
            continue;
        /* the dtype: the signature is keyed by the name (2.6) or the index (2.5) */
        t = strstr(sig, key);
        if (!t) {
            snprintf(key, sizeof key, "{%u:", i);
            t = strstr(sig, key);
            if (!t) {
                snprintf(key, sizeof key, " %u:", i);
                t = strstr(sig, key);
            }
        }
        ck_assert_msg(t != NULL, "no type for %s", param);
        t = strchr(t, ':') + 1;
        t += strspn(t, " '");
        k = strcspn(t, "'");
        ck_assert_uint_lt(k, sizeof type);
        memcpy(type, t, k);
        type[k] = 0;
        /* the shape: the wrapper's assert_size_stride of that argument */
        snprintf(key, sizeof key, "assert_size_stride(%s, (", arg);
        p = strstr(s, key);
        ck_assert_msg(p != NULL, "no shape for %s", arg);
        c.inplace += numel(p + strlen(key) - 1) * dtype_bytes(type);
        c.n_inplace++;
    }
    for (p = s; (p = strstr(p, "empty_strided_cpu((")) != NULL; p++) {
        const char *dt = strstr(p, "torch.");
        uint64_t v = numel(p + strlen("empty_strided_cpu("));
        ck_assert_ptr_nonnull(dt);
        ck_assert_msg(!strncmp(dt, "torch.float32", 13), "a buffer of another dtype");
        c.wrapper += v * 4;
    }
    free(s);
    return c;
}

/* The two releases whose kernel is a looped reduction with the DEFAULT hint,
 * which _reduction_configs gives six configs to autotune: ten in-place
 * arguments (the parameter and each moment's codes and scales, each as input
 * and as output), cloned at the first step beside triton's L2 flush buffer.
 * They differ in the wrapper's float32 buffer of the parameter's shape (2.5
 * only) and the flush buffer's size. */
static const struct looped_release {
    const char *file, *torch, *versions;
    uint64_t wrapper; /* by hand: what call() allocates each step */
    uint64_t flush;   /* by hand: triton's do_bench buffer */
} looped[] = {
    /* torch 2.5.1, torchao 0.6.1, triton 3.1: torch.empty(int(256e6 // 4), dtype=torch.int) */
    {"ao8_step_torch-2.5.txt", "2.5", "torch 2.5.1, torchao 0.6.1, triton 3.1", N_EMBED * 4,
     256000000ull / 4 * 4},
    /* torch 2.6.0, torchao 0.7.0, triton 3.2: get_empty_cache_for_benchmark, 256 MiB */
    {"ao8_step_torch-2.6.txt", "2.6", "torch 2.6.0, torchao 0.7.0, triton 3.2", 0,
     256ull * 1024 * 1024},
};

START_TEST(looped_output_code)
{
    const struct looped_release *r = &looped[_i];
    step_code c = read_step(r->file);
    vs_adamw8bit_step_est s;
    vs_error err;
    ck_assert_msg(c.looped && c.default_hint, "%s: not a looped DEFAULT reduction", r->versions);
    ck_assert_uint_eq(c.n_inplace, 10);
    ck_assert_uint_eq(c.wrapper, r->wrapper);
    /* by hand: 2 x (n x 2 + 2 x n x 1 + 2 x n / 256 x 4) */
    ck_assert_uint_eq(c.inplace, 2 * (N_EMBED * 2 + 2 * N_EMBED + 2 * (N_EMBED / 256) * 4));
    ck_assert_uint_eq(c.inplace, 3176644608ull);
    ck_assert_uint_eq(N_EMBED * 4, 1576009728ull); /* 2.5's buffer */
    ck_assert_int_eq(vs_estimate_adamw8bit_step(&s, r->torch, N_EMBED, 2, 256, &err), 0);
    ck_assert_str_eq(s.torch, r->torch);
    ck_assert_uint_eq(s.update_f32, c.wrapper);
    ck_assert_uint_eq(s.every_step, c.wrapper);
    ck_assert_uint_eq(s.new_absmax, 0);
    ck_assert_uint_eq(s.clones, c.inplace);
    ck_assert_uint_eq(s.flush, r->flush);
    ck_assert_uint_eq(s.first_step, c.inplace + r->flush);
}
END_TEST

START_TEST(torch_2_15_and_refusals)
{
    /* torch 2.15.0: one persistent reduction with the INNER hint, a single
     * config, not autotuned; the wrapper's two float32 buffers of 1,539,072,
     * the new absmax */
    step_code c = read_step("ao8_step_torch-2.15.txt");
    vs_adamw8bit_step_est s;
    vs_error err;
    ck_assert(!c.looped && !c.default_hint);
    ck_assert_uint_eq(c.wrapper, 2 * (N_EMBED / 256) * 4);
    ck_assert_int_eq(vs_estimate_adamw8bit_step(&s, NULL, N_EMBED, 2, 256, &err), 0);
    ck_assert_uint_eq(s.every_step, c.wrapper);
    ck_assert_str_eq(s.torch, "2.15");
    ck_assert_uint_eq(s.every_step, 2 * (N_EMBED / 256) * 4);
    ck_assert_uint_eq(s.every_step, 12312576ull);
    ck_assert_uint_eq(s.first_step, 0);
    /* an fp32 parameter (precision=fp32) clones 4 B a value twice */
    ck_assert_int_eq(vs_estimate_adamw8bit_step(&s, "2.6", 4096, 4, 256, &err), 0);
    ck_assert_uint_eq(s.clones, 2 * (4096 * 4 + 2 * 4096 + 2 * 16 * 4));
    ck_assert_int_eq(vs_estimate_adamw8bit_step(&s, "2.7", N_EMBED, 2, 256, &err), VS_EVALUE);
    ck_assert(strstr(err.message, "2.5, 2.6 and 2.15") != NULL);
    ck_assert_int_eq(vs_estimate_adamw8bit_step(&s, "2.5", 1000, 2, 256, &err), VS_EVALUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("adamw8bit_step");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, looped_output_code, 0, (int)(sizeof looped / sizeof looped[0]));
    tcase_add_test(tc, torch_2_15_and_refusals);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
