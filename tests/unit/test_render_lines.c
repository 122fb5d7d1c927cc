/* The words of the verbs' one-line and list results, from the facts they give
 * (src/render/component.c reserve, src/render/lines.c: the procedure verbs
 * and placement, src/render/runtime.c).
 * Expected strings are worked by hand: 6 x 2^30 = 6,442,450,944 B = 6.44 GB =
 * 6.00 GiB; 2^31 = 2,147,483,648 B = 2.15 GB = 2.00 GiB. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/component.h"
#include "render/core.h"
#include "render/lines.h"
#include "render/runtime.h"

#include "check_run.h"

/* The text/plain of b (freed here); "" for NULL. */
static char *plain_of(vs_bundle *b)
{
    char *s;
    ck_assert_ptr_nonnull(b);
    s = vs_bundle_plain(b);
    vs_bundle_free(b);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* The payload of b (freed here), a new reference. */
static json_t *payload_of(vs_bundle *b)
{
    json_t *all, *p;
    ck_assert_ptr_nonnull(b);
    all = vs_bundle_to_json(b);
    vs_bundle_free(b);
    ck_assert_ptr_nonnull(all);
    p = json_incref(json_object_get(all, VS_MIME_JSON));
    json_decref(all);
    ck_assert_ptr_nonnull(p);
    return p;
}

static vs_bundle *reserve_of(const vs_reserve_said *said)
{
    vs_component_view v;
    json_t *c = json_pack("{s:s, s:o, s:s, s:s, s:o, s:s}", "name", said->name, "bytes",
                          said->known ? json_integer((json_int_t)said->bytes) : json_null(),
                          "status", said->status, "source", said->source, "phase",
                          said->phase ? json_string(said->phase) : json_null(), "class", said->cls);
    vs_bundle *b;
    ck_assert_ptr_nonnull(c);
    vs_component_view_read(&v, c);
    b = vs_render_reserve(&v, said);
    json_decref(c);
    return b;
}

START_TEST(reserve_lump_named_unknown)
{
    vs_reserve_said lump = {"reserve", 1, 1, 6442450944ULL, "estimated", "other", NULL, "declared"};
    vs_reserve_said named = {"kv_cache", 0,          1,         2147483648ULL,
                             "measured", "kv_cache", "prefill", "nvidia-smi"};
    vs_reserve_said unknown = {"graphs", 0, 0, 0, "unknown", "other", NULL, "declared"};
    char *s = plain_of(reserve_of(&lump));
    json_t *p;
    ck_assert_str_eq(s, "reserve: 6,442,450,944 B = 6.44 GB = 6.00 GiB, one declared lump "
                        "(estimated); class other, source: declared\n");
    free(s);
    s = plain_of(reserve_of(&named));
    ck_assert_str_eq(s, "reserve kv_cache: 2,147,483,648 B = 2.15 GB = 2.00 GiB (measured); "
                        "class kv_cache, phase prefill, source: nvidia-smi\n");
    free(s);
    s = plain_of(reserve_of(&unknown));
    ck_assert_str_eq(s, "reserve graphs: unknown, still to estimate or measure; class other, "
                        "source: declared\n");
    free(s);
    /* the payload's formula is the headline, without the notes */
    p = payload_of(reserve_of(&lump));
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "component");
    ck_assert_str_eq(json_string_value(json_object_get(p, "estimator")), "reserve");
    ck_assert_str_eq(json_string_value(json_object_get(p, "formula")),
                     "reserve: 6,442,450,944 B = 6.44 GB = 6.00 GiB, one declared lump "
                     "(estimated)");
    json_decref(p);
}
END_TEST

START_TEST(reserve_measured_without_phase)
{
    vs_reserve_said said = {"acts", 0, 1, 2147483648ULL, "measured", "activations", NULL, "log"};
    char *s = plain_of(reserve_of(&said));
    ck_assert_str_eq(s, "reserve acts: 2,147,483,648 B = 2.15 GB = 2.00 GiB (measured); class "
                        "activations, source: log; a measurement keeps its context: say its "
                        "phase=, and the counter in source=\n");
    free(s);
}
END_TEST

/* A reserve line written straight into its bundle, with quotes, a backslash
 * and markup in the words the person gave: the whole bundle is jansson's
 * compact dump of the object written out here by hand (the text, the HTML
 * escape of the same line in a paragraph, the component's fields, then what
 * produced it, the formula being the headline). */
START_TEST(reserve_bundle_with_markup_is_its_dump)
{
    vs_reserve_said said = {"a\"b",      0,       1,    2147483648ULL,
                            "estimated", "other", NULL, "x<y> & 'z' \\"};
    vs_bundle *b = reserve_of(&said);
    const char *head = "reserve a\"b: 2,147,483,648 B = 2.15 GB = 2.00 GiB (estimated)";
    json_t *want = json_pack(
        "{s:s, s:s, s:{s:s, s:I, s:s, s:s, s:n, s:s, s:s, s:s, s:s, s:{}}}", "text/plain",
        "reserve a\"b: 2,147,483,648 B = 2.15 GB = 2.00 GiB (estimated); class other, source: "
        "x<y> & 'z' \\\n",
        "text/html",
        "<p>reserve a&quot;b: 2,147,483,648 B = 2.15 GB = 2.00 GiB (estimated); class other, "
        "source: x&lt;y&gt; &amp; &#39;z&#39; \\</p>\n",
        VS_MIME_JSON, "name", "a\"b", "bytes", (json_int_t)2147483648LL, "status", "estimated",
        "source", "x<y> & 'z' \\", "phase", "class", "other", "kind", "component", "estimator",
        "reserve", "formula", head, "inputs");
    char *dumped = json_dumps(want, JSON_COMPACT);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(dumped);
    ck_assert_msg(!strcmp(b->json, dumped), "%s\nwanted\n%s", b->json, dumped);
    ck_assert_uint_eq(b->len, strlen(dumped));
    free(dumped);
    json_decref(want);
    vs_bundle_free(b);
}
END_TEST

/* The HTML of a one-line result is its text in a paragraph, escaped where
 * the text holds markup (in any note) and copied whole where it holds none;
 * written out by hand. */
START_TEST(reserve_html_is_the_line_escaped)
{
    vs_reserve_said plain = {"kv", 0, 1, 1000, "estimated", "other", NULL, "bench line 12"};
    vs_reserve_said markup = {"kv", 0, 1, 1000, "estimated", "other", NULL, "<b>\"a\" & 'b'</b>"};
    json_t *all;
    vs_bundle *b = reserve_of(&plain);
    all = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/html")),
                     "<p>reserve kv: 1,000 B = 1.00 KB = 0.98 KiB (estimated); class other, "
                     "source: bench line 12</p>\n");
    json_decref(all);
    vs_bundle_free(b);
    b = reserve_of(&markup);
    all = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/html")),
                     "<p>reserve kv: 1,000 B = 1.00 KB = 0.98 KiB (estimated); class other, "
                     "source: &lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;</p>\n");
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/plain")),
                     "reserve kv: 1,000 B = 1.00 KB = 0.98 KiB (estimated); class other, "
                     "source: <b>\"a\" & 'b'</b>\n");
    json_decref(all);
    vs_bundle_free(b);
}
END_TEST

START_TEST(reserve_removed)
{
    vs_bundle *b = vs_render_reserve_removed("kv_cache");
    json_t *all;
    ck_assert_ptr_nonnull(b);
    all = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/plain")),
                     "removed component kv_cache from the reserve\n");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(all, VS_MIME_JSON), "kind")),
                     "removed");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(all, VS_MIME_JSON), "name")),
                     "kv_cache");
    json_decref(all);
    vs_bundle_free(b);
}
END_TEST

START_TEST(stages)
{
    static const char *const dims[] = {"length", "concurrency", "microbatch", "width"};
    json_t *st = json_pack("[{s:s, s:I, s:I, s:n, s:s}, {s:s, s:n, s:n, s:n, s:I}]", "name",
                           "short", "length", (json_int_t)512, "concurrency", (json_int_t)1,
                           "microbatch", "note", "warm-up", "name", "limit", "length",
                           "concurrency", "microbatch", "width", (json_int_t)1024);
    vs_bundle *b = vs_render_stages(st, dims, 4);
    json_t *all;
    ck_assert_ptr_nonnull(b);
    all = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/plain")),
                     "procedure: short input and small batch, then the usual input, then the "
                     "required limit; only the limit validates the card\n"
                     "  - short: length=512 concurrency=1 (warm-up)\n"
                     "  - limit: width=1024\n");
    ck_assert(json_equal(json_object_get(json_object_get(all, VS_MIME_JSON), "stages"), st));
    json_decref(all);
    vs_bundle_free(b);
    json_decref(st);
}
END_TEST

START_TEST(invalidate)
{
    json_t *c = json_pack("[s, s]", "a context longer than 4096 tokens", "<fp8> kernels");
    vs_bundle *b = vs_render_invalidate(c);
    json_t *all, *p;
    ck_assert_ptr_nonnull(b);
    all = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/plain")),
                     "the conclusion no longer holds if:\n"
                     "  - a context longer than 4096 tokens\n"
                     "  - <fp8> kernels\n");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(all, "text/html")),
                                 "<li>&lt;fp8&gt; kernels</li>"));
    p = json_object_get(all, VS_MIME_JSON);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "invalidate");
    ck_assert(json_equal(json_object_get(p, "conditions"), c));
    json_decref(all);
    vs_bundle_free(b);
    json_decref(c);
}
END_TEST

START_TEST(oom)
{
    static const char *const examine[] = {"the KV cache", "the batch"};
    json_t *suspects =
        json_pack("[{s:s, s:s}, {s:s}]", "name", "kv_cache", "status", "estimated", "name", "acts");
    json_t *p;
    char *s = plain_of(vs_render_oom("prefill", examine, 2, suspects));
    ck_assert_str_eq(s, "overflow at prefill: what to examine\n"
                        "  - the KV cache\n"
                        "  - the batch\n"
                        "  - on the sheet: kv_cache (estimated)\n"
                        "  - on the sheet: acts (?)\n"
                        "  - change one thing at a time, then re-check the quality criterion "
                        "and the coverage (length, data kept)\n");
    free(s);
    p = payload_of(vs_render_oom("prefill", examine, 2, suspects));
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "oom");
    ck_assert_str_eq(json_string_value(json_object_get(p, "phase")), "prefill");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "examine"), 1)),
                     "the batch");
    ck_assert_int_eq(json_array_size(json_object_get(p, "suspects")), 2);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "suspects"), 1)), "acts");
    json_decref(p);
    json_decref(suspects);
}
END_TEST

/* Ten suspects: the text lists the first VS_RENDER_OOM_SUSPECTS (8), the
 * payload names all ten. */
START_TEST(oom_many_suspects)
{
    static const char *const examine[] = {"the microbatch"};
    json_t *suspects = json_array(), *p;
    char name[16], *s, *at;
    int i, listed = 0;
    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "acts%d", i);
        json_array_append_new(suspects,
                              json_pack("{s:s, s:s}", "name", name, "status", "measured"));
    }
    s = plain_of(vs_render_oom("forward", examine, 1, suspects));
    for (at = s; (at = strstr(at, "on the sheet: ")); at++)
        listed++;
    ck_assert_int_eq(listed, 8);
    ck_assert_ptr_nonnull(strstr(s, "on the sheet: acts7 (measured)"));
    ck_assert_ptr_null(strstr(s, "acts8"));
    free(s);
    p = payload_of(vs_render_oom("forward", examine, 1, suspects));
    ck_assert_int_eq(json_array_size(json_object_get(p, "suspects")), 10);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "suspects"), 9)), "acts9");
    json_decref(p);
    json_decref(suspects);
}
END_TEST

START_TEST(decision)
{
    json_t *unknown = json_pack("[s, s]", "graphs", "acts"), *none = json_array(), *p;
    char *s = plain_of(vs_render_decision("keep the H100", unknown, 0, 0));
    ck_assert_str_eq(s, "decision recorded:\n"
                        "  - keep the H100\n"
                        "  - graphs, acts: still unknown; the decision rests on the known part "
                        "of the envelope\n"
                        "  - no measurement on this sheet yet: the envelope is a hypothesis to "
                        "verify by stages (short, usual, limit)\n"
                        "  - no invalidating condition yet: `invalidate \"...\"` says what "
                        "would make this decision wrong\n");
    free(s);
    s = plain_of(vs_render_decision("keep the H100", none, 1, 1));
    ck_assert_str_eq(s, "decision recorded:\n  - keep the H100\n");
    free(s);
    p = payload_of(vs_render_decision("keep the H100", unknown, 3, 1));
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "decision");
    ck_assert_str_eq(json_string_value(json_object_get(p, "decision")), "keep the H100");
    ck_assert(json_equal(json_object_get(p, "unknown"), unknown));
    ck_assert_int_eq(json_integer_value(json_object_get(p, "measurements")), 3);
    json_decref(p);
    json_decref(unknown);
    json_decref(none);
}
END_TEST

START_TEST(runtime)
{
    vs_buf said = VS_BUF_INIT, why = VS_BUF_INIT;
    vs_bundle *b;
    json_t *all;
    vs_render_runtime_estimated(&said, "activation_peak", 2147483648ULL, "rule A");
    vs_render_runtime_missing(&why, "non_torch", NULL);
    vs_render_runtime_missing(&why, "x", "no rule");
    ck_assert_str_eq(vs_buf_str(&said),
                     "activation_peak estimated: 2,147,483,648 B = 2.15 GB = 2.00 GiB (rule A). ");
    ck_assert_str_eq(vs_buf_str(&why),
                     "non_torch: no offer names a catalogue GPU, whose generation the rule "
                     "needs. x: no rule. ");
    b = vs_render_runtime("a. b. ");
    ck_assert_ptr_nonnull(b);
    all = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/plain")),
                     "estimate runtime: a. b. \n");
    ck_assert_ptr_null(json_object_get(all, "text/html"));
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(all, VS_MIME_JSON), "source")), "a. b. ");
    json_decref(all);
    vs_bundle_free(b);
    vs_buf_free(&said);
    vs_buf_free(&why);
}
END_TEST

START_TEST(placement)
{
    vs_placement p = {VS_PLACE_TENSOR, 4, 0, VS_OFFLOAD_NONE};
    vs_envelope env;
    vs_kv_layout l;
    char out[400], small[30];
    memset(&env, 0, sizeof env);
    memset(&l, 0, sizeof l);
    vs_render_placement_head(out, sizeof out, &p);
    ck_assert_str_eq(out, "placement: tensor parallel on 4 GPUs (weights and KV cache split); the "
                          "envelope and the capacity check are per GPU");
    vs_render_placement_ways(out, sizeof out, "gradients", 4);
    ck_assert_str_eq(out, "gradients: split 4 ways (1/4 per GPU)");
    vs_render_placement_ways(out, sizeof out, "weights", 1);
    ck_assert_str_eq(out, "weights: whole on every GPU");
    vs_render_placement_offload(out, sizeof out, VS_OFFLOAD_MODEL, NULL);
    ck_assert_str_eq(out,
                     "offload=model: the weights are not known yet (`model NAME pipeline=DIR`)");
    env.weights_gpu_bytes = 2147483648ULL;
    env.host_bytes = 6442450944ULL;
    env.offload_basis = "one block";
    vs_render_placement_offload(out, sizeof out, VS_OFFLOAD_SEQUENTIAL, &env);
    ck_assert_str_eq(out, "offload=sequential: weights on the GPU 2,147,483,648 B = 2.15 GB = "
                          "2.00 GiB (one block); host memory for the weights 6,442,450,944 B = "
                          "6.44 GB = 6.00 GiB");
    /* full 8 heads on 4 GPUs: 2 each; no cache left out; latent not split;
     * 2 heads on 4 GPUs: one each, replicated */
    l.n = 4;
    l.g[0].kind = VS_KV_FULL;
    l.g[0].layers = 32;
    l.g[0].kv_heads = 8;
    l.g[1].kind = VS_KV_NONE;
    l.g[2].kind = VS_KV_LATENT;
    l.g[2].layers = 10;
    l.g[3].kind = VS_KV_SLIDING;
    l.g[3].layers = 4;
    l.g[3].kv_heads = 2;
    ck_assert_uint_eq(vs_render_placement_kv_heads(out, sizeof out, &l, 4), 4);
    ck_assert_str_eq(out, "KV heads per GPU: full layers 2 of 8; 10 latent layers not split (each "
                          "GPU holds the whole latent); sliding layers 1 of 2 (fewer KV heads "
                          "than GPUs: replicated)");
    /* a line that fills its buffer stops there, and says how far it went */
    ck_assert_uint_eq(vs_render_placement_kv_heads(small, sizeof small, &l, 4), 1);
    ck_assert_str_eq(small, "KV heads per GPU: full layers");
}
END_TEST

/* The whole `placement` result: ZeRO stage 2 on 4 GPUs divides the gradients
 * and the optimizer state 4 ways (sheet/placement's rule: stage 2 shards both)
 * and keeps the weights whole; sequential offload with 2 GiB on the GPU and 6
 * GiB on the host; a tensor placement's KV heads, 8 full heads on 2 GPUs: 4
 * each. */
START_TEST(placement_result)
{
    vs_placement zero = {VS_PLACE_ZERO, 4, 2, VS_OFFLOAD_NONE};
    vs_placement off = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_SEQUENTIAL};
    vs_placement tp = {VS_PLACE_TENSOR, 2, 0, VS_OFFLOAD_NONE};
    vs_envelope env;
    vs_kv_layout l;
    json_t *p, *o, *h;
    char *s;
    memset(&env, 0, sizeof env);
    memset(&l, 0, sizeof l);
    s = plain_of(vs_render_placement(&zero, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(s, "  - weights: whole on every GPU\n"));
    ck_assert_ptr_nonnull(strstr(s, "  - gradients: split 4 ways (1/4 per GPU)\n"));
    ck_assert_ptr_nonnull(strstr(s, "  - optimizer: split 4 ways (1/4 per GPU)\n"));
    ck_assert_ptr_null(strstr(s, "offload="));
    free(s);
    p = payload_of(vs_render_placement(&zero, NULL, NULL));
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "placement");
    ck_assert_str_eq(json_string_value(json_object_get(p, "placement")), "zero");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "gpus")), 4);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "stage")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "ways"), "gradients")),
                     4);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "ways"), "weights")), 1);
    ck_assert_int_eq(json_object_size(json_object_get(p, "ways")), 7);
    ck_assert_int_eq(json_array_size(json_object_get(p, "kv_heads_per_gpu")), 0);
    ck_assert(json_is_null(json_object_get(p, "offload")));
    json_decref(p);

    /* offload with the weights not known: the line says how to give them, no figures */
    s = plain_of(vs_render_placement(&off, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(s, "  - offload=sequential: the weights are not known yet"));
    free(s);
    env.weights_gpu_bytes = 2147483648ULL;
    env.host_bytes = 6442450944ULL;
    env.offload_basis = "one block";
    p = payload_of(vs_render_placement(&off, &env, NULL));
    ck_assert(json_is_null(json_object_get(p, "stage")));
    o = json_object_get(p, "offload");
    ck_assert_str_eq(json_string_value(json_object_get(o, "offload")), "sequential");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "weights_gpu_bytes")), 2147483648LL);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "host_bytes")), 6442450944LL);
    ck_assert_str_eq(json_string_value(json_object_get(o, "basis")), "one block");
    json_decref(p);

    /* a group with no cache is left out of the payload's heads */
    l.n = 2;
    l.g[0].kind = VS_KV_FULL;
    l.g[0].layers = 32;
    l.g[0].kv_heads = 8;
    l.g[1].kind = VS_KV_NONE;
    s = plain_of(vs_render_placement(&tp, NULL, &l));
    ck_assert_ptr_nonnull(strstr(s, "  - KV heads per GPU: full layers 4 of 8\n"));
    free(s);
    p = payload_of(vs_render_placement(&tp, NULL, &l));
    h = json_object_get(p, "kv_heads_per_gpu");
    ck_assert_int_eq(json_array_size(h), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 0), "kind")), "full");
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(h, 0), "kv_heads")), 8);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(h, 0), "per_gpu")), 4);
    json_decref(p);
}
END_TEST

/* A failed cell's last words, text and HTML from the same line, the names escaped
 * in HTML; the payload lists the lines. */
START_TEST(undone)
{
    json_t *lines = json_pack("[s, s]", "length", "estimate kv <x>");
    vs_bundle *b = vs_render_undone("length, estimate kv <x>", lines);
    json_t *j = vs_bundle_to_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(j, "text/plain")),
                     "undone: length, estimate kv <x>; the sheets are as before the cell\n");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "text/html")),
                                 "undone: length, estimate kv &lt;x&gt;; the sheets are as before "
                                 "the cell"));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(j, "application/vnd.vramsheet.v1+json"), "kind")),
                     "undone");
    ck_assert_int_eq(json_array_size(json_object_get(
                         json_object_get(j, "application/vnd.vramsheet.v1+json"), "lines")),
                     2);
    json_decref(j);
    vs_bundle_free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_lines");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reserve_lump_named_unknown);
    tcase_add_test(tc, reserve_measured_without_phase);
    tcase_add_test(tc, reserve_bundle_with_markup_is_its_dump);
    tcase_add_test(tc, reserve_html_is_the_line_escaped);
    tcase_add_test(tc, reserve_removed);
    tcase_add_test(tc, stages);
    tcase_add_test(tc, invalidate);
    tcase_add_test(tc, oom);
    tcase_add_test(tc, oom_many_suspects);
    tcase_add_test(tc, decision);
    tcase_add_test(tc, runtime);
    tcase_add_test(tc, placement);
    tcase_add_test(tc, placement_result);
    tcase_add_test(tc, undone);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
