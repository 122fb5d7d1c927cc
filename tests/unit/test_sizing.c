/* The sizing verbs through the interpreter: payloads, printed figures, errors.
 * The worked examples are checked here as the person would type them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/interp.h"
#include "lang/verb.h"
#include "render/bundle.h"

#include "check_run.h"
#include "results.h"

/* ------------------------------------------------------------------ harness */

#include "cell_run.h"
#include "test_tmp.h"

static json_t *component(json_t *env_payload, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(env_payload, "components"), i,
                       c) if (!strcmp(gets(c, "name"), name)) return c;
    return NULL;
}

/* The bytes of the i-th component of payload p. */
static long long nth_bytes(json_t *p, size_t i)
{
    return geti(json_array_get(json_object_get(p, "components"), i), "bytes");
}

/* The cell must be refused as a bad value, with msg in its message when given. */
static void refused(const char *cell, const char *msg)
{
    ck_assert_msg(run(cell) == VS_EVALUE, "accepted: %s", cell);
    if (msg)
        ck_assert_msg(strstr(err.message, msg) != NULL, "%s: %s", cell, err.message);
}

static int has_string(json_t *arr, const char *s)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i,
                       x) if (json_is_string(x) && !strcmp(json_string_value(x), s)) return 1;
    return 0;
}

#define TEXT_HAS(b, needle)                                                                        \
    ck_assert_msg(strstr(text(b), needle) != NULL, "text lacks '%s':\n%s", needle, text(b))

/* ----------------------------------------------------- the worked examples, by the verbs */

START_TEST(seed_weights_13_04_and_envelope_19_04)
{
    json_t *p, *b;
    run_ok("model example/7b params=7e9\nformat bf16\nweights");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "weights");
    ck_assert_int_eq(geti(p, "params"), 7000000000LL);
    ck_assert_int_eq(geti(p, "bits"), 16);
    ck_assert_int_eq(geti(p, "bytes"), 14000000000LL);
    TEXT_HAS(last(), "14,000,000,000 B = 14.00 GB = 13.04 GiB");
    TEXT_HAS(last(), "a lower bound, not a GPU recommendation");
    ck_assert_ptr_nonnull(json_object_get(last(), "text/html"));

    run_ok("reserve 6GiB\nenvelope");
    b = last();
    p = payload(b);
    ck_assert_str_eq(gets(p, "kind"), "envelope");
    ck_assert_int_eq(geti(p, "weights_bytes"), 14000000000LL);
    ck_assert_int_eq(geti(p, "reserve_bytes"), 6442450944LL);
    ck_assert_int_eq(geti(p, "envelope_bytes"), 20442450944LL);
    ck_assert(json_is_true(json_object_get(p, "conservative")));
    ck_assert_int_eq(json_array_size(json_object_get(p, "unknown")), 0);
    ck_assert_int_eq(json_array_size(json_object_get(p, "components")), 1);
    ck_assert_str_eq(gets(component(p, "reserve"), "status"), "estimated");
    ck_assert_ptr_nonnull(gets(component(p, "reserve"), "source"));
    TEXT_HAS(b, "20,442,450,944 B = 20.44 GB = 19.04 GiB");
    TEXT_HAS(b, "conservative envelope");
    TEXT_HAS(b, "not an observed peak");
    ck_assert(strstr(json_string_value(json_object_get(b, "image/svg+xml")), "<svg") != NULL);
}
END_TEST

/* One cell that walks the components, replaces one and walks them again,
 * adds one and walks them twice: each envelope sees the components as they
 * are then (the views the verbs share in a cell are read again once a
 * component was set). 1, 2 and 2 + 3 GiB by hand, over 14,000,000,000 B of
 * weights. */
START_TEST(envelope_follows_a_change_in_the_same_cell)
{
    static const long long reserve[] = {1073741824LL, 2147483648LL, 5368709120LL, 5368709120LL};
    json_t *b, *env[4];
    size_t i, n = 0;
    run_ok("model example/7b params=7e9\nformat bf16\nreserve a 1GiB\nenvelope\n"
           "reserve a 2GiB\nenvelope\nreserve b 3GiB\nweights\nenvelope\ncandidates\nenvelope");
    json_array_foreach(st.bundles, i, b)
    {
        if (!strcmp(gets(payload(b), "kind"), "envelope") && n < 4)
            env[n++] = payload(b);
    }
    ck_assert_uint_eq(n, 4);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(geti(env[i], "reserve_bytes"), reserve[i]);
        ck_assert_int_eq(geti(env[i], "envelope_bytes"), 14000000000LL + reserve[i]);
        ck_assert_uint_eq(json_array_size(json_object_get(env[i], "components")), i < 2 ? 1 : 2);
    }
    ck_assert_int_eq(geti(component(env[1], "a"), "bytes"), 2147483648LL);
}
END_TEST

static void check_formats_rows(json_t *b)
{
    static const char *const w[] = {"26.08 GiB", "13.04 GiB", "6.52 GiB", "3.26 GiB"};
    static const char *const e[] = {"32.08 GiB", "19.04 GiB", "12.52 GiB", "9.26 GiB"};
    static const long long wb[] = {28000000000LL, 14000000000LL, 7000000000LL, 3500000000LL};
    json_t *p = payload(b), *rows = json_object_get(p, "rows");
    const char *t = text(b), *line;
    size_t i;
    ck_assert_str_eq(gets(p, "kind"), "formats");
    ck_assert_int_eq(json_array_size(rows), 4);
    for (i = 0; i < 4; i++) {
        json_t *r = json_array_get(rows, i);
        char needle[128];
        ck_assert_int_eq(geti(r, "weights_bytes"), wb[i]);
        ck_assert_int_eq(geti(r, "envelope_bytes"), wb[i] + 6442450944LL);
        /* the row's line shows both figures */
        line = strstr(t, w[i]);
        ck_assert_msg(line != NULL, "%s missing:\n%s", w[i], t);
        snprintf(needle, sizeof needle, "%s", e[i]);
        ck_assert_msg(strstr(line, needle) != NULL && strchr(line, '\n') > strstr(line, needle),
                      "row %zu lacks %s on the line of %s:\n%s", i, e[i], w[i], t);
    }
    /* the 4-bit row is flagged, the 32 and 16-bit rows are not */
    ck_assert(json_is_true(json_object_get(json_array_get(rows, 3), "quantized")));
    ck_assert(strstr(gets(json_array_get(rows, 3), "note"), "not a guaranteed peak") != NULL);
    ck_assert(json_is_false(json_object_get(json_array_get(rows, 0), "quantized")));
    ck_assert(json_is_false(json_object_get(json_array_get(rows, 1), "quantized")));
    line = strstr(t, "3.26 GiB");
    ck_assert(strstr(line, "not a guaranteed peak") < strchr(line, '\n'));
    TEXT_HAS(b, "scales, metadata and layers kept in another format are not included");
}

START_TEST(seed_formats_32_16_8_4)
{
    run_ok("model example/7b params=7e9\nformat bf16\nreserve 6GiB\n"
           "formats bits=32 bits=16 bits=8 bits=4");
    check_formats_rows(last());
    run_ok("formats fp32 bf16 int8 int4");
    check_formats_rows(last());
    ck_assert_str_eq(gets(json_array_get(json_object_get(lastp(), "rows"), 3), "format"), "int4");
}
END_TEST

START_TEST(thirteen_b_is_a_lower_bound)
{
    run_ok("model example/13b params=13e9\nformat fp16\nweights");
    ck_assert_int_eq(geti(lastp(), "bytes"), 26000000000LL);
    TEXT_HAS(last(), "26,000,000,000 B = 26.00 GB = 24.21 GiB");
    TEXT_HAS(last(), "a lower bound, not a GPU recommendation");
}
END_TEST

START_TEST(every_verb_emits_a_full_bundle)
{
    const char *cell =
        "model m params=7B\ntask inference\nformat bf16\nlength 4096\nconcurrency 8\n"
        "microbatch 1 accumulation=4\nquality \"exact match\"\ncard\nreserve 1GiB\n"
        "reserve ws status=unknown\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
        "placement single\nweights\nenvelope\nformats\nstage short length=128 "
        "concurrency=1\ninvalidate \"a longer context\"\noom phase=load\n"
        "decide \"keep it\"";
    size_t i;
    json_t *b;
    run_ok(cell);
    ck_assert_int_eq(json_array_size(st.bundles), 19);
    json_array_foreach(st.bundles, i, b)
    {
        ck_assert_msg(text(b) && text(b)[0], "bundle %zu has no text", i);
        ck_assert_msg(json_is_string(json_object_get(b, "text/html")), "bundle %zu has no html", i);
        ck_assert_msg(gets(payload(b), "kind") != NULL, "bundle %zu has no kind", i);
    }
}
END_TEST

/* ------------------------------------------------------------- estimators */

START_TEST(estimate_kv_from_the_card)
{
    json_t *p;
    ck_assert_int_eq(run("estimate kv layers=32 kv_heads=8 head_dim=128"), VS_EVALUE);
    ck_assert(strstr(err.message, "length") != NULL);
    run_ok("length 4096\nconcurrency 8\nestimate kv layers=32 kv_heads=8 head_dim=128");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "component");
    ck_assert_str_eq(gets(p, "name"), "kv_cache");
    ck_assert_str_eq(gets(p, "class"), "kv_cache");
    ck_assert_str_eq(gets(p, "status"), "estimated");
    ck_assert_int_eq(geti(p, "bytes"), 4294967296LL);
    ck_assert(strstr(gets(p, "source"), "2 x 32 layers x 8 kv_heads x 128 head_dim x 2 B (fp16) x "
                                        "4,096 tokens x 8 sequences") != NULL);
    TEXT_HAS(last(), "4,294,967,296 B");
    /* MQA, fp8 cache, another name */
    run_ok("estimate kv layers=32 kv_heads=1 head_dim=64 dtype=fp8 name=kv_mqa");
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 32 * 1 * 64 * 1 * 4096 * 8);
    ck_assert_int_eq(run("estimate kv layers=32 kv_heads=8 head_dim=128 dtype=fp12"), VS_EVALUE);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_gt(err.column, 1);
    ck_assert_int_eq(run("estimate kv layers=32 head_dim=128"), VS_EVALUE);
    ck_assert(strstr(err.message, "kv_heads") != NULL);
    ck_assert_int_eq(run("estimate kv layers=32 kv_heads=8 head_dim=128 hidden=3"), VS_EVALUE);
    ck_assert_int_eq(run("estimate kv layers=0 kv_heads=8 head_dim=128"), VS_EVALUE);
    ck_assert_int_eq(run("estimate memory"), VS_EVALUE);
}
END_TEST

/* attention= decides whether the score matrix is kept: Llama-3.1-8B's shapes at
 * 4,096 tokens x 2, by hand. eager, checkpointing none: 32 x 4,096 x 2 x 4,096 x
 * (34 + 5 x 32 x 4,096 / 4,096) = 208,305,913,856 B; sdpa or flash keep 34 x s x b x h
 * per layer: 36,507,222,016 B. The loss's logits over a 128,256 vocabulary, 8,192 x
 * 128,256 = 1,050,673,152 elements: unchunked, the float32 logits, their gradient
 * and the 16-bit gradient, 10 B each = 10,506,731,520 B; in 8 chunks the 16-bit
 * logits of all, 2,101,346,304 B, and one chunk's 16-bit gradient, 2,101,346,304 /
 * 8 = 262,668,288 B: 2,364,014,592 B; in 3 chunks 2,101,346,304 + 700,448,768 =
 * 2,801,795,072 B. Cut Cross-Entropy (loss=cce) writes no logits: a float32
 * log-sum-exp and an int64 label index a token and the 16-bit gradient into the
 * 4,096-wide last hidden state, 8,192 x (4 + 8 + 2 x 4,096) = 8,192 x 8,204 =
 * 67,207,168 B, and, with no task on the card (the output layer trained), the
 * output layer's gradient dc, 128,256 x 4,096 x 2 = 1,050,673,152 B: 1,117,880,320
 * B; head=frozen drops dc (cut-cross-entropy 25.1.1: only if c.requires_grad),
 * cce=24.12 keeps it (24.11.4 to 24.12.3: dc = torch.zeros_like(c) whatever the
 * output layer). */
START_TEST(activations_attention_and_logits)
{
    const char *shape = "length 4096\nmicrobatch 2\nestimate activations layers=32 hidden=4096 "
                        "heads=32 vocab=128256";
    char line[512];
    json_t *p;
    snprintf(line, sizeof line, "%s attention=eager", shape);
    run_ok(line);
    p = lastp();
    ck_assert_int_eq(nth_bytes(p, 0), 208305913856LL);
    ck_assert_int_eq(nth_bytes(p, 1), 10506731520LL);
    snprintf(line, sizeof line, "%s attention=sdpa", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 0), 36507222016LL);
    snprintf(line, sizeof line, "%s attention=flash loss=chunked", shape);
    run_ok(line);
    p = lastp();
    ck_assert_int_eq(nth_bytes(p, 0), 36507222016LL);
    ck_assert_int_eq(nth_bytes(p, 1), 2364014592LL);
    snprintf(line, sizeof line, "%s attention=sdpa loss=chunked chunks=3", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 2801795072LL);
    snprintf(line, sizeof line, "%s attention=flash loss=cce", shape);
    run_ok(line);
    p = lastp();
    ck_assert_int_eq(8192LL * (4 + 8 + 2 * 4096), 67207168LL);
    ck_assert_int_eq(8192LL * (4 + 8 + 2 * 4096) + 128256LL * 4096 * 2, 1117880320LL);
    ck_assert_int_eq(nth_bytes(p, 1), 1117880320LL);
    TEXT_HAS(last(), "Cut Cross-Entropy writes no logits");
    TEXT_HAS(last(), "no task on the card");
    snprintf(line, sizeof line, "%s attention=flash loss=cce head=frozen", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 67207168LL);
    TEXT_HAS(last(), "no dc");
    snprintf(line, sizeof line, "%s attention=flash loss=cce head=frozen cce=24.12", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 1117880320LL);
    TEXT_HAS(last(), "24.11.4 to 24.12.3");
    snprintf(line, sizeof line, "%s attention=flash loss=cce cce=24.11", shape);
    refused(line, "cce must be 24.12 or 25.1");
    snprintf(line, sizeof line, "%s attention=flash loss=chunked cce=24.12", shape);
    refused(line, "cce= goes with loss=cce");
    snprintf(line, sizeof line, "%s attention=flash loss=cce chunks=2", shape);
    refused(line, NULL);
    snprintf(line, sizeof line, "%s attention=flash loss=tiled", shape);
    refused(line, "loss must be full, chunked, cce, liger or unsloth");
    /* the card's engine's attention key is the default */
    run_ok("engine transformers attention=flash\nestimate activations layers=32 hidden=4096 "
           "heads=32");
    ck_assert_int_eq(geti(lastp(), "bytes"), 36507222016LL);
    TEXT_HAS(last(), "attention=flash (the card's engine line)");
    TEXT_HAS(last(), "logits and the loss are not counted");
    ck_assert_int_eq(run("estimate activations layers=32 hidden=4096 heads=32 attention=tiled"),
                     VS_EVALUE);
    ck_assert_int_eq(run("estimate activations layers=32 hidden=4096 heads=32 vocab=8 chunks=2"),
                     VS_EVALUE);
    ck_assert_int_eq(
        run("estimate activations layers=32 hidden=4096 heads=32 vocab=8 loss=chunked chunks=0"),
        VS_EVALUE);
}
END_TEST

/* loss=liger, Liger-Kernel's fused linear cross-entropy (linkedin/Liger-Kernel
 * ops/fused_linear_cross_entropy.py at 00eba63), by hand for Llama-3.1-8B's
 * output layer, hidden 4,096, vocabulary 128,256, at 4,096 tokens x 2 = 8,192:
 * inc_factor = ceil(128,256 / 4,096) = ceil(31.3125) = 32; chunk_size = the next
 * power of 2 of ceil(8,192 / 32) = 256, i.e. 256, in 8,192 / 256 = 32 chunks.
 *   one chunk's bf16 logits 256 x 128,256 x 2 =    65,667,072 B
 *   grad_input 8,192 x 4,096 x 2 =                 67,108,864 B
 *   loss_1d (4 B) and target_mask (1 B), 8,192 x 5 =   40,960 B
 *   frozen output layer (LoRA): 65,667,072 + 67,108,864 + 40,960 = 132,816,896 B
 *   trained (full finetune): + grad_weight 128,256 x 4,096 x 2 = 1,050,673,152 B,
 *   1,183,490,048 B.
 * At 3,000 tokens x 1: ceil(3,000 / 32) = 94, the next power of 2 128, in
 * ceil(3,000 / 128) = 24 chunks: 128 x 128,256 x 2 = 32,833,536 + 3,000 x 4,096 x 2
 * = 24,576,000 + 3,000 x 5 = 15,000: 57,424,536 B frozen. A vocabulary of 8 under
 * a 4,096-wide state: inc_factor 1, 3,000 -> 4,096, held to 3,000 rows (one chunk):
 * 3,000 x 8 x 2 = 48,000 + 24,576,000 + 15,000 = 24,639,000 B frozen. */
START_TEST(activations_liger_loss)
{
    const char *shape = "estimate activations layers=32 hidden=4096 heads=32 attention=flash";
    char line[512];
    json_t *p;
    snprintf(line, sizeof line,
             "model example/8b params=8e9\nformat bf16\nlength 4096\nmicrobatch 2\ntask lora\n%s "
             "vocab=128256 "
             "loss=liger",
             shape);
    run_ok(line);
    p = lastp();
    ck_assert_int_eq(nth_bytes(p, 1), 132816896LL);
    TEXT_HAS(last(), "Liger fused linear cross-entropy in 32 chunks of 256 tokens");
    TEXT_HAS(last(), "the output layer frozen, no grad_weight");
    /* the card's task changes: the estimate follows it, the head now trained */
    run_ok("task finetune\nenvelope");
    ck_assert_int_eq(geti(component(lastp(), "logits"), "bytes"), 1183490048LL);
    snprintf(line, sizeof line, "%s vocab=128256 loss=liger head=frozen", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 132816896LL);
    snprintf(line, sizeof line, "%s vocab=128256 loss=liger head=trained", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 1183490048LL);
    TEXT_HAS(last(), "grad_weight 128,256 vocab x 4,096 hidden x 2 B = 1,050,673,152 B");
    snprintf(line, sizeof line, "length 3000\nmicrobatch 1\n%s vocab=128256 loss=liger head=frozen",
             shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 57424536LL);
    TEXT_HAS(last(), "in 24 chunks of 128 tokens");
    snprintf(line, sizeof line, "%s vocab=8 loss=liger head=frozen", shape);
    run_ok(line);
    ck_assert_int_eq(nth_bytes(lastp(), 1), 24639000LL);
    /* refusals, as for the other losses */
    snprintf(line, sizeof line, "%s vocab=128256 loss=liger chunks=8", shape);
    refused(line, "chunks= goes with loss=chunked");
    snprintf(line, sizeof line, "%s vocab=128256 loss=chunked head=trained", shape);
    refused(line, "head= goes with loss=liger or loss=cce");
    snprintf(line, sizeof line, "%s vocab=128256 head=frozen", shape);
    refused(line, NULL);
    snprintf(line, sizeof line, "%s vocab=128256 loss=liger head=lora", shape);
    refused(line, "head must be trained or frozen");
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_gt(err.column, 1);
}
END_TEST

START_TEST(estimate_kv_shapes_from_config)
{
    char dir[200], path[256], line[700];
    FILE *f;
    json_t *p;
    ck_assert_ptr_nonnull(mkdtemp(vs_test_tmp(dir, sizeof dir, "vs-test-sizing-XXXXXX")));
    snprintf(path, sizeof path, "%s/config.json", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
          "\"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_attention_heads\": 32, "
          "\"num_hidden_layers\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 128256, "
          "\"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}\n",
          f);
    fclose(f);
    snprintf(line, sizeof line,
             "model meta-llama/Meta-Llama-3-8B config=%s\nlength 8192\nconcurrency 1\n"
             "estimate kv",
             path);
    run_ok(line);
    p = lastp();
    ck_assert_int_eq(geti(p, "bytes"), 1073741824LL); /* 2*32*8*128*2*8192 */
    ck_assert_int_eq(geti(json_object_get(p, "inputs"), "head_dim"), 128);
    TEXT_HAS(last(), "config.json");
    /* and activations take their shapes from it too: a llama layer is counted
     * from its own widths. Full checkpointing keeps each layer's input, 2 x 8,192
     * x 4,096 x 32 layers = 2,147,483,648 B, and rematerialises one layer in the
     * backward: 8,192 tokens x (12 x 4,096 + 4 x 1,024 (8 KV heads x 128) + 8 x
     * 14,336) = 1,375,731,712 B, with eager attention's scores and softmax 4 x 32
     * heads x 8,192^2 = 8,589,934,592 B: 12,113,149,952 B */
    run_ok("microbatch 1\nestimate activations checkpointing=full");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "components");
    ck_assert_int_eq(nth_bytes(p, 0), 2147483648LL);
    /* the recomputed layer apart: the loss's logits are freed before it is made */
    ck_assert_str_eq(gets(json_array_get(json_object_get(p, "components"), 1), "name"),
                     "activations_recomputed");
    ck_assert_int_eq(nth_bytes(p, 1), 1375731712LL + 8589934592LL);
    /* and the config's vocabulary adds the loss's logits: 8,192 tokens x 128,256 x
     * 10 B (float32 logits, their gradient, the 16-bit gradient) */
    ck_assert_str_eq(gets(json_array_get(json_object_get(p, "components"), 2), "name"), "logits");
    ck_assert_int_eq(nth_bytes(p, 2), 8192LL * 128256 * 10);
    ck_assert_int_eq(geti(p, "total_bytes"),
                     2147483648LL + 1375731712LL + 8589934592LL + 8192LL * 128256 * 10);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A card without a vocabulary (a declared model, its shapes on the line) counts no
 * logits, yet the loss's keys are still checked: each misuse is refused as on a
 * card with one, at its own column, the sheet unchanged. (outputs= under
 * framework=unsloth cannot be reached without one: Unsloth's estimate needs a
 * Llama config, and that rule needs vocab_size.) */
START_TEST(logits_keys_checked_without_a_vocabulary)
{
    static const char *const misuse[][2] = {
        {"loss=tiled", "loss must be full, chunked, cce, liger or unsloth"},
        {"loss=unsloth", "loss=unsloth goes with framework=unsloth"},
        {"loss=unsloth outputs=bf16", "loss=unsloth goes with framework=unsloth"},
        {"outputs=bf16", "outputs= goes with loss=unsloth"},
        {"loss=cce outputs=fp32", "outputs= goes with loss=unsloth"},
        {"loss=cce chunks=2", "chunks= goes with loss=chunked"},
        {"chunks=2", "chunks= goes with loss=chunked"},
        {"loss=chunked chunks=0", "chunks must be at least 1"},
        {"head=frozen", "head= goes with loss=liger or loss=cce"},
        {"loss=liger head=x", "head must be trained or frozen"},
        {"loss=chunked cce=25.1", "cce= goes with loss=cce"},
        {"loss=cce cce=99", "cce must be 24.12 or 25.1"},
    };
    const char *act = "estimate activations layers=32 hidden=4096 heads=32 attention=flash";
    char line[400];
    size_t i;
    snprintf(line, sizeof line,
             "model m params=8e9\nformat bf16\ntask lora\nlength 2048\nmicrobatch 1\n%s loss=cce",
             act);
    run_ok(line);
    /* accepted, the logits left out and said so */
    ck_assert_ptr_null(component(lastp(), "logits"));
    TEXT_HAS(last(), "the logits and the loss are not counted");
    for (i = 0; i < sizeof misuse / sizeof misuse[0]; i++) {
        snprintf(line, sizeof line, "%s %s", act, misuse[i][0]);
        refused(line, misuse[i][1]);
        ck_assert_int_eq(err.line, 1);
        ck_assert_int_gt(err.column, (int)strlen(act));
    }
    /* the refusals left the sheet as it was: the estimate from the first cell */
    run_ok("envelope");
    ck_assert_ptr_nonnull(component(lastp(), "activations"));
    ck_assert_ptr_null(component(lastp(), "logits"));
}
END_TEST

START_TEST(task_training_lists_unknowns_then_estimates)
{
    static const char *const listed[] = {"gradients", "optimizer_state", "master_copy",
                                         "activations", "buffers"};
    json_t *p, *u;
    size_t i;
    run_ok("model m params=7e9\nformat bf16\ntask finetune\nenvelope");
    p = lastp();
    u = json_object_get(p, "unknown");
    for (i = 0; i < 5; i++)
        ck_assert_msg(has_string(u, listed[i]), "%s not listed as unknown", listed[i]);
    /* nothing multiplied: the known part is still the weights alone */
    ck_assert_int_eq(geti(p, "envelope_bytes"), 14000000000LL);
    ck_assert(json_is_false(json_object_get(p, "complete")));
    TEXT_HAS(last(), "known part");

    run_ok("estimate training optimizer=adamw\nenvelope");
    p = lastp();
    ck_assert_int_eq(geti(component(p, "gradients"), "bytes"), 14000000000LL);
    ck_assert_int_eq(geti(component(p, "master_copy"), "bytes"), 28000000000LL);
    ck_assert_int_eq(geti(component(p, "optimizer_state"), "bytes"), 56000000000LL);
    ck_assert_str_eq(gets(component(p, "optimizer_state"), "class"), "optimizer");
    ck_assert_str_eq(gets(component(p, "master_copy"), "class"), "optimizer");
    ck_assert_str_eq(gets(component(p, "gradients"), "class"), "gradients");
    /* 16 bytes per parameter with the weights */
    ck_assert_int_eq(geti(p, "envelope_bytes"), 16LL * 7000000000LL);
    ck_assert_int_eq(json_array_size(json_object_get(p, "unknown")), 2);

    /* back to inference: the untouched placeholders go, the estimates stay */
    run_ok("task inference\nenvelope");
    p = lastp();
    ck_assert_int_eq(json_array_size(json_object_get(p, "unknown")), 0);
    ck_assert_ptr_nonnull(component(p, "gradients"));
}
END_TEST

START_TEST(training_precisions_and_optimizers)
{
    json_t *p;
    run_ok("model m params=1000\nformat bf16\nestimate training optimizer=sgd");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "components");
    ck_assert_int_eq(geti(p, "total_bytes"), 1000LL * (2 + 4 + 4));
    run_ok("estimate training optimizer=adamw8bit precision=mixed");
    /* + an fp32 scale per 256 values of each 8-bit moment: ceil(1000 / 256) = 4 blocks */
    ck_assert_int_eq(geti(lastp(), "total_bytes"), 1000LL * (2 + 4 + 2) + 2 * 4 * 4);
    run_ok("estimate training optimizer=adamw precision=fp32");
    ck_assert_int_eq(geti(lastp(), "total_bytes"), 1000LL * (4 + 0 + 8));
    ck_assert_int_eq(run("estimate training optimizer=lion"), VS_EVALUE);
    ck_assert_int_gt(err.column, 1);
    ck_assert_int_eq(run("estimate training precision=fp8"), VS_EVALUE);
}
END_TEST

START_TEST(lora_trainable_limits_state)
{
    json_t *p;
    run_ok("model m params=7e9\nformat bf16\ntask lora");
    ck_assert_int_eq(run("estimate training optimizer=adamw"), VS_EVALUE);
    ck_assert(strstr(err.message, "trainable=") != NULL);
    run_ok("estimate training optimizer=adamw trainable=4194304\nenvelope");
    p = lastp();
    ck_assert_int_eq(geti(component(p, "gradients"), "bytes"), 8388608LL);
    ck_assert_int_eq(geti(component(p, "optimizer_state"), "bytes"), 33554432LL);
    ck_assert_int_eq(geti(component(p, "master_copy"), "bytes"), 16777216LL);
    ck_assert_int_eq(geti(component(p, "adapter_weights"), "bytes"), 8388608LL);
    /* frozen weights keep the sheet's format */
    ck_assert_int_eq(geti(p, "weights_bytes"), 14000000000LL);
}
END_TEST

START_TEST(activations_modes_by_verb)
{
    ck_assert_int_eq(run("length 2048\nestimate activations layers=32 hidden=4096 heads=32"),
                     VS_EVALUE);
    ck_assert(strstr(err.message, "microbatch") != NULL);
    run_ok("length 2048\nmicrobatch 1\nestimate activations layers=32 hidden=4096 heads=32");
    ck_assert_int_eq(geti(lastp(), "bytes"), 956301312LL * 32);
    ck_assert(strstr(gets(lastp(), "source"), "Korthikanti") != NULL);
    TEXT_HAS(last(), "(34 + 5 x 32 heads x 2,048 / 4,096)");
    run_ok("estimate activations layers=32 hidden=4096 heads=32 checkpointing=selective");
    ck_assert_int_eq(geti(lastp(), "bytes"), 34LL * 2048 * 4096 * 32);
    /* full: each layer's input, 2 x 2,048 x 4,096 x 32 = 536,870,912 B, and one
     * layer rematerialised in the backward, 956,301,312 B (its eager scores
     * included), which needs the heads */
    ck_assert_int_eq(run("estimate activations layers=32 hidden=4096 checkpointing=full"),
                     VS_EVALUE);
    run_ok("estimate activations layers=32 hidden=4096 heads=32 checkpointing=full");
    ck_assert_int_eq(geti(lastp(), "bytes"), 536870912LL + 956301312LL);
    /* offload: the inputs in host memory, the one layer only */
    run_ok("estimate activations layers=32 hidden=4096 heads=32 checkpointing=offload");
    ck_assert_int_eq(geti(lastp(), "bytes"), 956301312LL);
    run_ok("estimate activations layers=32 hidden=4096 checkpointing=full attention=sdpa");
    ck_assert_int_eq(geti(lastp(), "bytes"), 536870912LL + 34LL * 2048 * 4096);
    ck_assert_int_eq(run("estimate activations layers=32 hidden=4096 heads=32 checkpointing=some"),
                     VS_EVALUE);
}
END_TEST

START_TEST(quant_metadata_estimate)
{
    run_ok("model m params=7e9\nformat nf4\nestimate quant");
    ck_assert_int_eq(geti(lastp(), "bytes"), 109375000LL + 427247LL * 4);
    ck_assert_str_eq(gets(lastp(), "class"), "parameters");
    TEXT_HAS(last(), "QLoRA");
    run_ok("estimate quant double=no");
    ck_assert_int_eq(geti(lastp(), "bytes"), 437500000LL);
    run_ok("format int4\nestimate quant");
    ck_assert_int_eq(geti(lastp(), "bytes"), 136718750LL);
    TEXT_HAS(last(), "GPTQ");
    ck_assert_int_eq(run("format bf16\nestimate quant"), VS_EVALUE);
    ck_assert(strstr(err.message, "scheme=") != NULL);
    /* group=0 is a mistake, never "the default" in disguise */
    ck_assert_int_eq(run("format int4\nestimate quant scheme=gptq group=0"), VS_EVALUE);
    ck_assert(strstr(err.message, "group=") != NULL);
    ck_assert_int_eq(err.column, (int)strlen("estimate quant scheme=gptq group=") + 1);
    run_ok("format int4\nestimate quant scheme=gptq group=32");
    TEXT_HAS(last(), "32");
}
END_TEST

START_TEST(estimates_never_overwrite_a_measurement)
{
    json_t *p;
    run_ok("length 4096\nconcurrency 8\nreserve kv_cache 3GiB status=measured phase=generate "
           "source=\"torch.max_memory_reserved\"\nestimate kv layers=32 kv_heads=8 head_dim=128");
    p = lastp();
    ck_assert_str_eq(gets(p, "status"), "measured");
    ck_assert_int_eq(geti(p, "bytes"), 3221225472LL);
    ck_assert_int_eq(geti(p, "estimate_bytes"), 4294967296LL);
    TEXT_HAS(last(), "never overwrites a measurement");
    /* reserve with an estimate is refused outright */
    ck_assert_int_eq(run("reserve kv_cache 2GiB"), VS_EVALUE);
    ck_assert(strstr(err.message, "measured") != NULL);
    /* a new measurement replaces the old one */
    run_ok("reserve kv_cache 2GiB status=measured phase=generate");
    ck_assert_int_eq(geti(lastp(), "bytes"), 2147483648LL);
}
END_TEST

/* ------------------------------------------------------------------ reserve */

START_TEST(reserve_forms_and_errors)
{
    json_t *p;
    run_ok("reserve workspace status=unknown source=\"attention workspace\"");
    p = lastp();
    ck_assert(json_is_null(json_object_get(p, "bytes")));
    ck_assert_str_eq(gets(p, "status"), "unknown");
    run_ok("reserve cuda_context 1343MiB source=\"V100, CUDA 11.2\" phase=load");
    ck_assert_int_eq(geti(lastp(), "bytes"), 1343LL << 20);
    ck_assert_str_eq(gets(lastp(), "phase"), "load");
    run_ok("reserve grads 1GB class=gradients");
    ck_assert_str_eq(gets(lastp(), "class"), "gradients");
    run_ok("reserve remove grads");
    ck_assert_str_eq(gets(lastp(), "kind"), "removed");

    ck_assert_int_eq(run("reserve 6"), VS_EUNIT);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 9);
    /* a number apart from its unit: the message says how to write it */
    ck_assert_int_eq(run("format bf16\nreserve x 6 GiB"), VS_EUNIT);
    ck_assert_int_eq(err.line, 2);
    ck_assert(strstr(err.message, "write 6GiB (no space") != NULL);
    ck_assert_int_eq(run("format bf16\nreserve x 6GiB y"), VS_EVALUE); /* extra word */
    ck_assert_int_eq(run("reserve x"), VS_EVALUE);
    ck_assert(strstr(err.message, "status=unknown") != NULL);
    ck_assert_int_eq(run("reserve x 1GiB status=unknown"), VS_EVALUE);
    ck_assert_int_eq(run("reserve x 1GiB status=guessed"), VS_EVALUE);
    ck_assert_int_eq(run("reserve x status=measured"), VS_EVALUE);
    ck_assert_int_eq(run("reserve x 1GiB class=weights"), VS_EVALUE);
    ck_assert_int_eq(run("reserve x 1GiB colour=red"), VS_EVALUE);
    ck_assert_int_eq(run("reserve remove nothing"), VS_ENOTFOUND);
    ck_assert_int_eq(run("reserve x 99999999TiB"), VS_EUNIT);
}
END_TEST

START_TEST(a_failing_cell_leaves_the_sheet_as_it_was)
{
    run_ok("model m params=7e9\nformat bf16\nreserve 6GiB");
    ck_assert_int_ne(run("reserve 2GiB\nformat int4\nreserve kv 3"), 0);
    run_ok("envelope");
    ck_assert_int_eq(geti(lastp(), "reserve_bytes"), 6442450944LL);
    ck_assert_int_eq(geti(lastp(), "bits"), 16);
}
END_TEST

/* ---------------------------------------------------------------- placement */

START_TEST(placement_per_gpu)
{
    json_t *p;
    run_ok("model m params=7e9\nformat bf16\nestimate training optimizer=adamw\n"
           "reserve activations 10GB\nplacement zero stage=3 gpus=4\nenvelope");
    p = lastp();
    ck_assert_int_eq(geti(p, "gpus"), 4);
    ck_assert_int_eq(geti(p, "weights_gpu_bytes"), 3500000000LL);
    ck_assert_int_eq(geti(component(p, "gradients"), "gpu_bytes"), 3500000000LL);
    ck_assert_int_eq(geti(component(p, "optimizer_state"), "gpu_bytes"), 14000000000LL);
    ck_assert_int_eq(geti(component(p, "master_copy"), "gpu_bytes"), 7000000000LL);
    ck_assert_int_eq(geti(component(p, "activations"), "gpu_bytes"), 10000000000LL);
    ck_assert_int_eq(geti(p, "envelope_bytes"),
                     3500000000LL * 2 + 14000000000LL + 7000000000LL + 10000000000LL);
    TEXT_HAS(last(), "ZeRO stage 3 on 4 GPUs");

    run_ok("placement zero stage=1 gpus=4\nenvelope");
    p = lastp();
    ck_assert_int_eq(geti(component(p, "gradients"), "gpu_bytes"), 14000000000LL);
    ck_assert_int_eq(geti(component(p, "master_copy"), "gpu_bytes"), 7000000000LL);
    run_ok("placement zero stage=2 gpus=4\nenvelope");
    ck_assert_int_eq(geti(component(lastp(), "gradients"), "gpu_bytes"), 3500000000LL);
    ck_assert_int_eq(geti(lastp(), "weights_gpu_bytes"), 14000000000LL);
    run_ok("placement fsdp gpus=8\nenvelope");
    ck_assert_int_eq(geti(lastp(), "weights_gpu_bytes"), 1750000000LL);
    run_ok("placement ddp gpus=8\nenvelope");
    ck_assert_int_eq(geti(lastp(), "envelope_bytes"),
                     14000000000LL * 2 + 56000000000LL + 28000000000LL + 10000000000LL);
    run_ok("placement tensor gpus=2\nreserve kv_cache 4GiB\nenvelope");
    ck_assert_int_eq(geti(lastp(), "weights_gpu_bytes"), 7000000000LL);
    ck_assert_int_eq(geti(component(lastp(), "kv_cache"), "gpu_bytes"), 2147483648LL);
    ck_assert_int_eq(geti(component(lastp(), "optimizer_state"), "gpu_bytes"), 56000000000LL);
    run_ok("placement single");
    ck_assert_str_eq(gets(lastp(), "kind"), "placement");

    ck_assert_int_eq(run("placement ddp"), VS_EVALUE);
    ck_assert(strstr(err.message, "gpus=") != NULL);
    ck_assert_int_eq(run("placement zero gpus=4"), VS_EVALUE);
    ck_assert(strstr(err.message, "stage=") != NULL);
    ck_assert_int_eq(run("placement single gpus=2"), VS_EVALUE);
    ck_assert_int_eq(run("placement ddp gpus=2 stage=2"), VS_EVALUE);
    ck_assert_int_eq(run("placement pipeline gpus=2"), VS_EVALUE);
}
END_TEST

/* ---------------------------------------------------- weights from the files */

START_TEST(weights_from_files_then_format_change)
{
    char dir[200], path[256], line[400];
    const char *hdr = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}";
    unsigned char len[8] = {0};
    size_t n = strlen(hdr), i;
    FILE *f;
    json_t *p;
    ck_assert_ptr_nonnull(mkdtemp(vs_test_tmp(dir, sizeof dir, "vs-test-sizing-XXXXXX")));
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (i = 0; i < 8; i++)
        len[i] = (unsigned char)((n >> (8 * i)) & 0xff);
    fwrite(len, 1, 8, f);
    fwrite(hdr, 1, n, f);
    fwrite("\1\2\3\4\5\6\7\10", 1, 8, f);
    fclose(f);
    snprintf(line, sizeof line, "model tiny\nformat bf16\nweights from=%s", path);
    run_ok(line);
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "weights");
    ck_assert_int_eq(geti(p, "bytes"), 8);
    ck_assert_str_eq(gets(p, "basis"), "safetensors files");
    run_ok("envelope");
    ck_assert_int_eq(geti(lastp(), "weights_bytes"), 8);
    ck_assert_str_eq(gets(lastp(), "weights_basis"), "safetensors files");
    /* another format: the files no longer describe the weights */
    run_ok("format int8\nweights");
    ck_assert_int_eq(geti(lastp(), "bytes"), 4); /* 4 params x 8 bits / 8 */
    ck_assert_str_eq(gets(lastp(), "basis"), "params x bits / 8");
    ck_assert_int_eq(run("weights sha256=yes"), VS_EVALUE);
    snprintf(line, sizeof line, "weights from=%s/missing.safetensors", dir);
    ck_assert_int_ne(run(line), 0);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(weights_need_params_and_format)
{
    ck_assert_int_eq(run("weights"), VS_EVALUE);
    ck_assert(strstr(err.message, "parameter count") != NULL);
    ck_assert_int_eq(run("model m params=7B\nweights"), VS_EVALUE);
    ck_assert(strstr(err.message, "format") != NULL);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(run("model m params=7B\nenvelope"), VS_EVALUE);
    ck_assert_int_eq(run("formats"), VS_EVALUE);
}
END_TEST

START_TEST(format_names_bits_and_notes)
{
    json_t *p;
    run_ok("format int4");
    p = lastp();
    ck_assert_int_eq(geti(json_object_get(p, "card"), "bits"), 4);
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(p, "notes"), 0)),
                     "not a guaranteed peak") != NULL);
    run_ok("format bits=6");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "format"), "bits=6");
    run_ok("format fp8\nmodel m params=1000\nenvelope");
    ck_assert(strstr(text(last()), "not a guaranteed peak") != NULL);
    ck_assert_int_eq(run("format fp12"), VS_EVALUE);
    ck_assert_int_eq(err.column, 8);
    ck_assert_int_eq(run("format bits=0"), VS_EVALUE);
    ck_assert_int_eq(run("format bits=65"), VS_EVALUE);
    ck_assert_int_eq(run("format bf16 bits=16"), VS_EVALUE);
    ck_assert_int_eq(run("format"), VS_EVALUE);
}
END_TEST

START_TEST(card_dims_and_model_changes)
{
    json_t *card;
    run_ok("model a params=7B revision=abc\nlength 4096\nconcurrency 8\nmicrobatch 2 "
           "accumulation=16\nquality \"within 0.5 points\"");
    card = json_object_get(lastp(), "card");
    ck_assert_int_eq(geti(card, "length"), 4096);
    ck_assert_int_eq(geti(card, "concurrency"), 8);
    ck_assert_int_eq(geti(card, "microbatch"), 2);
    ck_assert_int_eq(geti(card, "accumulation"), 16);
    ck_assert_str_eq(gets(card, "quality"), "within 0.5 points");
    ck_assert_str_eq(gets(card, "revision"), "abc");
    ck_assert_str_eq(gets(card, "params_source"), "declared");
    /* another model forgets the previous one's count and revision */
    run_ok("model b");
    card = json_object_get(lastp(), "card");
    ck_assert(json_is_null(json_object_get(card, "params")));
    ck_assert(json_is_null(json_object_get(card, "revision")));
    ck_assert_int_eq(geti(card, "length"), 4096); /* the card's dims stay */
    ck_assert_int_eq(run("length 0"), VS_EVALUE);
    /* fits 64 unsigned bits, not a record: the message says the real limit */
    ck_assert_int_eq(run("length 18446744073709551615"), VS_EVALUE);
    ck_assert(strstr(err.message, "9,223,372,036,854,775,807") != NULL);
    ck_assert_int_eq(run("model m params=1e19"), VS_EVALUE);
    ck_assert(strstr(err.message, "9,223,372,036,854,775,807") != NULL);
    ck_assert_int_eq(run("length 4x"), VS_EVALUE);
    ck_assert_int_eq(run("length 4.5"), VS_EVALUE);
    ck_assert_int_eq(run("length 4096 8"), VS_EVALUE);
    ck_assert_int_eq(run("concurrency"), VS_EVALUE);
    ck_assert_int_eq(run("model"), VS_EVALUE);
    ck_assert_int_eq(run("model x params=0"), VS_EVALUE);
    ck_assert_int_eq(run("task chat"), VS_EVALUE);
    ck_assert_int_eq(run("quality"), VS_EVALUE);
}
END_TEST

/* One line per card verb (not seven near-identical tables), the whole card in
 * every payload, and `card` for the table. */
START_TEST(card_verbs_print_one_line_card_prints_the_table)
{
    static const char *const verbs[] = {"model",       "task",    "format",    "length",
                                        "concurrency", "quality", "microbatch"};
    const char *t, *h;
    json_t *b, *p, *card;
    size_t i;
    run_ok("sheet \"card lines\"\nmodel example/dense-7b revision=main params=7e9\n"
           "task inference\nformat int4\nlength 4096\nconcurrency 8\n"
           "quality \"exact match within 0.5 points\"\nmicrobatch 2 accumulation=8");
    ck_assert_int_eq(json_array_size(st.bundles), 8);
    /* `sheet TITLE` still says what it did */
    TEXT_HAS(json_array_get(st.bundles, 0), "sheet card-lines: created");
    for (i = 0; i < 7; i++) {
        b = json_array_get(st.bundles, i + 1);
        t = text(b);
        h = json_string_value(json_object_get(b, "text/html"));
        p = payload(b);
        ck_assert_msg(strncmp(t, verbs[i], strlen(verbs[i])) == 0, "%s: %s", verbs[i], t);
        ck_assert_msg(strchr(t, '\n') == t + strlen(t) - 1, "%s prints more than a line:\n%s",
                      verbs[i], t);
        ck_assert_msg(h && !strstr(h, "<table") && !strncmp(h, "<p>", 3), "%s html: %s", verbs[i],
                      h);
        ck_assert_str_eq(gets(p, "kind"), "card");
        ck_assert_str_eq(gets(p, "set"), verbs[i]);
        ck_assert(json_is_object(json_object_get(p, "placement")));
        /* machine readers lose nothing: the whole card, as set so far */
        card = json_object_get(p, "card");
        ck_assert_str_eq(gets(card, "model"), "example/dense-7b");
        ck_assert_int_eq(geti(card, "params"), 7000000000LL);
        if (i >= 3)
            ck_assert_int_eq(geti(card, "length"), 4096);
    }
    /* what each line says it set, and what that implies */
    TEXT_HAS(json_array_get(st.bundles, 1), "at revision main: 7,000,000,000 params (declared)");
    TEXT_HAS(json_array_get(st.bundles, 2), "adds no component by itself");
    TEXT_HAS(json_array_get(st.bundles, 3), "4 bits per weight");
    TEXT_HAS(json_array_get(st.bundles, 3), "not a guaranteed peak");
    p = json_object_get(payload(json_array_get(st.bundles, 3)), "notes");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(p, 0)), "not a guaranteed peak"));
    TEXT_HAS(json_array_get(st.bundles, 4), "length 4,096: the required tokens per sequence");
    TEXT_HAS(json_array_get(st.bundles, 6), "exact match within 0.5 points");
    TEXT_HAS(json_array_get(st.bundles, 7), "accumulation 8");
    ck_assert_int_eq(geti(json_object_get(lastp(), "card"), "accumulation"), 8);

    /* `card`: the whole table, every value labelled */
    run_ok("card");
    b = last();
    p = payload(b);
    ck_assert_str_eq(gets(p, "kind"), "card");
    ck_assert_int_eq(geti(json_object_get(p, "card"), "concurrency"), 8);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(b, "text/html")), "<table"));
    TEXT_HAS(b, "workload card of sheet card-lines");
    TEXT_HAS(b, "example/dense-7b");
    TEXT_HAS(b, "7,000,000,000 (declared)");
    TEXT_HAS(b, "int4 (4 bits)");
    TEXT_HAS(b, "length (tokens)  4,096");
    TEXT_HAS(b, "exact match within 0.5 points");
    TEXT_HAS(b, "single GPU");
    ck_assert_ptr_null(strstr(text(b), "not set yet"));
    ck_assert_int_eq(run("card extra"), VS_EVALUE);
    ck_assert_int_eq(run("card x=1"), VS_EVALUE);

    /* a card still missing pieces says which */
    run_ok("sheet \"half a card\"\nmodel m\ncard");
    TEXT_HAS(last(), "(not set)");
    TEXT_HAS(last(), "params, length, task, format, concurrency, quality: not set yet");
    ck_assert(json_is_null(json_object_get(json_object_get(lastp(), "card"), "params")));
}
END_TEST

/* A reserve line is one line too; `envelope` is where the components are a table. */
START_TEST(reserve_prints_one_line_with_class_and_source)
{
    json_t *b;
    run_ok("reserve kv_cache 16GiB source=\"2 x 32 x 32 x 128 x 2 B x 4096 x 8\"");
    b = last();
    ck_assert_str_eq(text(b), "reserve kv_cache: 17,179,869,184 B = 17.18 GB = 16.00 GiB "
                              "(estimated); class kv_cache, source: 2 x 32 x 32 x 128 x 2 B x "
                              "4096 x 8\n");
    ck_assert_ptr_null(strstr(json_string_value(json_object_get(b, "text/html")), "<table"));
    ck_assert_str_eq(gets(lastp(), "kind"), "component");
    ck_assert_str_eq(gets(lastp(), "class"), "kv_cache");
    ck_assert_int_eq(geti(lastp(), "bytes"), 17179869184LL);
    run_ok("reserve ws status=unknown phase=prefill");
    TEXT_HAS(last(), "reserve ws: unknown, still to estimate or measure; class other, phase "
                     "prefill, source: declared\n");
    run_ok("reserve peak 3GiB status=measured");
    TEXT_HAS(last(), "a measurement keeps its context");
    ck_assert_ptr_eq(strchr(text(last()), '\n'), text(last()) + strlen(text(last())) - 1);
}
END_TEST

/* ---------------------------------------------------------------- procedure */

START_TEST(stages_invalidate_oom_decide)
{
    json_t *p;
    run_ok("length 4096\nconcurrency 8\nstage short length=128 concurrency=1\nstage limit");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "stages");
    ck_assert_int_eq(json_array_size(json_object_get(p, "stages")), 2);
    ck_assert_int_eq(geti(json_array_get(json_object_get(p, "stages"), 1), "length"), 4096);
    ck_assert_int_eq(geti(json_array_get(json_object_get(p, "stages"), 1), "concurrency"), 8);
    ck_assert_int_eq(run("stage limit length=2048"), VS_EVALUE);
    ck_assert(strstr(err.message, "does not validate the card") != NULL);
    ck_assert_int_eq(run("stage usual"), VS_EVALUE);
    run_ok("stage short length=256 concurrency=2 note=\"smoke\"");
    ck_assert_int_eq(json_array_size(json_object_get(lastp(), "stages")), 2); /* replaced */
    /* the limit stage follows the card; the short one keeps its own dims */
    run_ok("length 8192\nstage short length=256 concurrency=2");
    p = lastp();
    ck_assert_int_eq(geti(json_array_get(json_object_get(p, "stages"), 1), "length"), 8192);
    ck_assert_int_eq(geti(json_array_get(json_object_get(p, "stages"), 0), "length"), 256);
    run_ok("length 4096\nstage short length=256 concurrency=2");
    ck_assert_int_eq(geti(json_array_get(json_object_get(lastp(), "stages"), 1), "length"), 4096);

    run_ok("invalidate \"a context longer than 4096 tokens\"\ninvalidate \"another eval\"\n"
           "invalidate \"another eval\"");
    ck_assert_int_eq(json_array_size(json_object_get(lastp(), "conditions")), 2);

    run_ok("reserve kv_cache 16GiB\noom phase=generate");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "oom");
    ck_assert(has_string(json_object_get(p, "suspects"), "kv_cache"));
    TEXT_HAS(last(), "context");
    TEXT_HAS(last(), "concurrency");
    TEXT_HAS(last(), "one thing at a time");
    run_ok("oom load");
    TEXT_HAS(last(), "format");
    ck_assert_int_eq(run("oom phase=lunch"), VS_EVALUE);
    ck_assert_int_eq(run("oom"), VS_EVALUE);

    run_ok("decide \"RTX 6000 Ada, pending the context check\"");
    ck_assert_str_eq(gets(lastp(), "decision"), "RTX 6000 Ada, pending the context check");
    st.answer = "RTX 4090 after all";
    run_ok("decide");
    ck_assert_str_eq(gets(lastp(), "decision"), "RTX 4090 after all");
    st.answer = NULL;
    ck_assert_int_ne(run("decide"), 0);
}
END_TEST

/* --------------------------------------------------------------------- help */

START_TEST(help_texts_cite_their_sources)
{
    const vs_verb *v;
    static const char *const mine[] = {
        "card",       "model",   "task",    "format",     "length",    "concurrency",
        "microbatch", "quality", "reserve", "estimate",   "placement", "weights",
        "envelope",   "formats", "stage",   "invalidate", "oom",       "decide"};
    size_t i;
    for (i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        v = vs_verb_find(mine[i]);
        ck_assert_msg(v != NULL, "verb %s missing", mine[i]);
        ck_assert(v->syntax && strncmp(v->syntax, mine[i], strlen(mine[i])) == 0);
        ck_assert(v->summary && v->summary[0]);
        ck_assert(v->help && strlen(v->help) > 80);
    }
    v = vs_verb_find("estimate");
    ck_assert(strstr(v->help, "Korthikanti") && strstr(v->help, "Rajbhandari") &&
              strstr(v->help, "Dettmers") && strstr(v->help, "Frantar"));
    ck_assert(strstr(v->help, "2 x layers x kv_heads x head_dim"));
    ck_assert(strstr(vs_verb_find("weights")->help, "params x bits / 8"));
    /* the decode's help names its runs, not the test's row ids */
    ck_assert(strstr(v->help, "VAE slicing with sequential CPU offload") &&
              !strstr(v->help, "gen-5"));
    run_ok("help estimate");
    TEXT_HAS(last(), "Korthikanti");
    /* the estimator table's row: the default rule first, both parts named */
    TEXT_HAS(last(), "[rule=split|diffusers|invokeai]");
    TEXT_HAS(last(), "the VAE decode in two parts");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sizing");
    TCase *tc = tcase_create("verbs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, seed_weights_13_04_and_envelope_19_04);
    tcase_add_test(tc, envelope_follows_a_change_in_the_same_cell);
    tcase_add_test(tc, seed_formats_32_16_8_4);
    tcase_add_test(tc, thirteen_b_is_a_lower_bound);
    tcase_add_test(tc, every_verb_emits_a_full_bundle);
    tcase_add_test(tc, estimate_kv_from_the_card);
    tcase_add_test(tc, estimate_kv_shapes_from_config);
    tcase_add_test(tc, activations_attention_and_logits);
    tcase_add_test(tc, activations_liger_loss);
    tcase_add_test(tc, logits_keys_checked_without_a_vocabulary);
    tcase_add_test(tc, task_training_lists_unknowns_then_estimates);
    tcase_add_test(tc, training_precisions_and_optimizers);
    tcase_add_test(tc, lora_trainable_limits_state);
    tcase_add_test(tc, activations_modes_by_verb);
    tcase_add_test(tc, quant_metadata_estimate);
    tcase_add_test(tc, estimates_never_overwrite_a_measurement);
    tcase_add_test(tc, reserve_forms_and_errors);
    tcase_add_test(tc, a_failing_cell_leaves_the_sheet_as_it_was);
    tcase_add_test(tc, placement_per_gpu);
    tcase_add_test(tc, weights_from_files_then_format_change);
    tcase_add_test(tc, weights_need_params_and_format);
    tcase_add_test(tc, format_names_bits_and_notes);
    tcase_add_test(tc, card_dims_and_model_changes);
    tcase_add_test(tc, card_verbs_print_one_line_card_prints_the_table);
    tcase_add_test(tc, reserve_prints_one_line_with_class_and_source);
    tcase_add_test(tc, stages_invalidate_oom_decide);
    tcase_add_test(tc, help_texts_cite_their_sources);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
