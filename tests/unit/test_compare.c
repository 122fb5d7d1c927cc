/* compare (src/sheet/compare.c, src/render/compare.c): a sheet for
 * Llama-3.1-8B in bf16 under vLLM against the start-up figures of
 * https://github.com/vllm-project/vllm/pull/10511 (H100, vLLM 0.6.5), as
 * `measure import` keeps them; every expected number worked by hand below. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "render/compare.h"
#include "sheet/compare.h"
#include "sheet/sheet.h"

#include "check_run.h"

/* weights: 8,030,261,248 parameters x 2 bytes = 16,060,522,496;
 * kv_cache 50 GiB = 53,687,091,200; activation_peak 1.5 GiB = 1,610,612,736;
 * non_torch unknown. Measured (round(x * 2^30), resolution 0.005 GiB =
 * 5,368,709): model weights 14.96 GiB = 16,063,177,687; available KV cache
 * 53.29 GiB = 57,219,701,801; activation peak 1.26 GiB = 1,352,914,698;
 * non-torch 1.79 GiB = 1,921,997,865; usable 71.29 GiB = 76,547,054,633. */
static const char *SHEET =
    "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"cmp\", "
    "\"card\": {\"params\": 8030261248, \"format\": \"bf16\"}, "
    "\"components\": ["
    " {\"name\": \"kv\", \"bytes\": 53687091200, \"status\": \"estimated\", \"class\": "
    "\"kv_cache\"},"
    " {\"name\": \"activation_peak\", \"bytes\": 1610612736, \"status\": \"estimated\", \"class\": "
    "\"activations\"},"
    " {\"name\": \"non_torch\", \"bytes\": null, \"status\": \"unknown\", \"class\": \"other\"}],"
    "\"measurements\": ["
    " {\"phase\": \"startup\", \"counter\": \"vllm.model_weights\", \"peak_bytes\": 16063177687, "
    "\"resolution_bytes\": 5368709},"
    " {\"phase\": \"startup\", \"counter\": \"vllm.kv_cache_memory\", \"peak_bytes\": 57219701801, "
    "\"resolution_bytes\": 5368709},"
    " {\"phase\": \"startup\", \"counter\": \"vllm.activation_peak\", \"peak_bytes\": 1352914698, "
    "\"resolution_bytes\": 5368709},"
    " {\"phase\": \"startup\", \"counter\": \"vllm.non_torch_memory\", \"peak_bytes\": 1921997865, "
    "\"resolution_bytes\": 5368709},"
    " {\"phase\": \"startup\", \"counter\": \"vllm.usable_memory\", \"peak_bytes\": 76547054633, "
    "\"resolution_bytes\": 5368709},"
    " {\"phase\": \"startup\", \"counter\": \"vllm.kv_cache_tokens\", \"peak_bytes\": null, "
    "\"value\": 158656, \"unit\": \"tokens\"}]}";

START_TEST(classes_against_vllm)
{
    json_t *sheet = NULL, *payload = NULL;
    vs_error err;
    vs_compare c;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    ck_assert_int_eq(vs_sheet_load(&sheet, SHEET, strlen(SHEET), &err), 0);
    ck_assert_int_eq(vs_compare_sheet(&c, sheet, 0, 0, &err), 0);
    /* weights: 16,060,522,496 - 16,063,177,687 = -2,655,191, within the
     * 5,368,709 of rounding: the estimate covers it */
    ck_assert_int_eq(c.rows[VS_CMP_WEIGHTS].delta_bytes, -2655191);
    ck_assert_str_eq(c.rows[VS_CMP_WEIGHTS].status, "covers");
    /* KV: 53,687,091,200 - 57,219,701,801 = -3,532,610,601: under */
    ck_assert_int_eq(c.rows[VS_CMP_KV].delta_bytes, -3532610601LL);
    ck_assert_str_eq(c.rows[VS_CMP_KV].status, "under-estimate");
    /* activations: 1,610,612,736 - 1,352,914,698 = 257,698,038 */
    ck_assert_int_eq(c.rows[VS_CMP_ACTIVATIONS].delta_bytes, 257698038);
    ck_assert_str_eq(c.rows[VS_CMP_ACTIVATIONS].status, "covers");
    /* non_torch: measured, the component unknown */
    ck_assert_str_eq(c.rows[VS_CMP_NON_TORCH].status, "not estimated");
    ck_assert_uint_eq(c.rows[VS_CMP_NON_TORCH].unknown, 1);
    ck_assert_int_eq(c.rows[VS_CMP_NON_TORCH].measured_bytes, 1921997865);
    ck_assert_str_eq(c.rows[VS_CMP_CUDA_GRAPHS].status, "not measured");
    /* total: 16,060,522,496 + 53,687,091,200 + 1,610,612,736 = 71,358,226,432
     * against 76,547,054,633: -5,188,828,201, under */
    ck_assert_int_eq(c.rows[VS_CMP_TOTAL].estimated_bytes, 71358226432LL);
    ck_assert_int_eq(c.rows[VS_CMP_TOTAL].delta_bytes, -5188828201LL);
    ck_assert_str_eq(c.rows[VS_CMP_TOTAL].status, "under-estimate");
    ck_assert_uint_eq(c.under, 2);
    /* unaccounted: 76,547,054,633 - (16,063,177,687 + 57,219,701,801 +
     * 1,352,914,698 + 1,921,997,865 = 76,557,792,051) = -10,737,418, within
     * the five figures' rounding (5 x 5,368,709 = 26,843,545) */
    ck_assert_int_eq(c.rows[VS_CMP_UNACCOUNTED].measured_bytes, -10737418);
    ck_assert_uint_eq(c.rows[VS_CMP_UNACCOUNTED].resolution_bytes, 26843545);
    ck_assert_str_eq(c.rows[VS_CMP_UNACCOUNTED].status, "accounted");
    /* the compare payload */
    ck_assert_int_eq(vs_compare_render(&c, &text, &html, &payload), 0);
    ck_assert_str_eq(json_string_value(json_object_get(payload, "kind")), "compare");
    {
        json_t *kv = json_array_get(json_object_get(payload, "rows"), VS_CMP_KV);
        ck_assert_str_eq(json_string_value(json_object_get(kv, "class")), "kv_cache");
        ck_assert_int_eq(json_integer_value(json_object_get(kv, "estimated_bytes")), 53687091200LL);
        ck_assert_int_eq(json_integer_value(json_object_get(kv, "measured_bytes")), 57219701801LL);
        ck_assert_int_eq(json_integer_value(json_object_get(kv, "delta_bytes")), -3532610601LL);
        ck_assert_str_eq(json_string_value(json_object_get(kv, "status")), "under-estimate");
        ck_assert(json_is_null(
            json_object_get(json_array_get(json_object_get(payload, "rows"), VS_CMP_UNACCOUNTED),
                            "estimated_bytes")));
    }
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "under-estimate (!)"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), "<table"));
    /* the page's short form, within a notebook's width: 57,219,701,801 / 2^30 =
     * 53.289...; -3,532,610,601 / 2^30 = -3.290...; -10,737,418 / 2^20 = -10.239...
     * MiB; the exact bytes stay in the text */
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), ">53.29 GiB<"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), ">-3.29 GiB<"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), ">-10.24 MiB<"));
    ck_assert_ptr_null(strstr(vs_buf_str(&html), "57,219,701,801 B"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "57,219,701,801 B"));
    json_decref(payload);
    vs_buf_free(&text);
    vs_buf_free(&html);
    json_decref(sheet);
}
END_TEST

/* Tensor placement on 2 GPUs halves the weights and the KV cache, not the
 * activations; measurements on GPU 1 are left when GPU 0 is compared; a
 * llama.cpp buffer and its breakdown row of one class are one quantity (the
 * larger), never added. */
START_TEST(placement_gpu_and_alternatives)
{
    const char *text = "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"tp\", "
                       "\"card\": {\"params\": 1000, \"format\": \"fp16\"}, "
                       "\"placement\": {\"kind\": \"tensor\", \"gpus\": 2, \"stage\": null},"
                       "\"components\": [{\"name\": \"kv\", \"bytes\": 4000, \"status\": "
                       "\"estimated\", \"class\": \"kv_cache\"},"
                       " {\"name\": \"act\", \"bytes\": 300, \"status\": \"estimated\", \"class\": "
                       "\"activations\"}],"
                       "\"measurements\": ["
                       " {\"phase\": \"load\", \"gpu\": 0, \"counter\": \"llamacpp.model_buffer\", "
                       "\"peak_bytes\": 990},"
                       " {\"phase\": \"exit\", \"gpu\": 0, \"counter\": \"llamacpp.model\", "
                       "\"peak_bytes\": 1048576, \"resolution_bytes\": 524288},"
                       " {\"phase\": \"load\", \"gpu\": 1, \"counter\": \"llamacpp.kv_buffer\", "
                       "\"peak_bytes\": 99999},"
                       " {\"phase\": \"load\", \"gpu\": 0, \"counter\": \"llamacpp.kv_buffer\", "
                       "\"peak_bytes\": 2000},"
                       " {\"phase\": \"exit\", \"gpu\": 0, \"counter\": \"llamacpp.self\", "
                       "\"peak_bytes\": 1051000}]}";
    json_t *sheet = NULL;
    vs_error err;
    vs_compare c;
    ck_assert_int_eq(vs_sheet_load(&sheet, text, strlen(text), &err), 0);
    ck_assert_int_eq(vs_compare_sheet(&c, sheet, 1, 0, &err), 0);
    /* weights 1000 x 2 = 2000 bytes over 2 GPUs: 1000 per GPU */
    ck_assert_int_eq(c.rows[VS_CMP_WEIGHTS].estimated_bytes, 1000);
    /* measured: the larger of 990 and 1,048,576 (not their sum) */
    ck_assert_int_eq(c.rows[VS_CMP_WEIGHTS].measured_bytes, 1048576);
    ck_assert_str_eq(c.rows[VS_CMP_WEIGHTS].measured_from, "llamacpp.model");
    /* 1000 - 1,048,576 = -1,047,576, beyond the 524,288 of rounding */
    ck_assert_str_eq(c.rows[VS_CMP_WEIGHTS].status, "under-estimate");
    /* KV 4000 / 2 = 2000 per GPU against GPU 0's 2000 (GPU 1's 99999 left) */
    ck_assert_int_eq(c.rows[VS_CMP_KV].estimated_bytes, 2000);
    ck_assert_int_eq(c.rows[VS_CMP_KV].measured_bytes, 2000);
    ck_assert_int_eq(c.rows[VS_CMP_KV].delta_bytes, 0);
    /* activations are not divided: 300 */
    ck_assert_int_eq(c.rows[VS_CMP_ACTIVATIONS].estimated_bytes, 300);
    /* unaccounted: 1,051,000 - (1,048,576 + 2000) = 424 */
    ck_assert_int_eq(c.rows[VS_CMP_UNACCOUNTED].measured_bytes, 424);
    ck_assert_int_eq(vs_compare_counter_class("vllm.cuda_graph_memory"), VS_CMP_CUDA_GRAPHS);
    ck_assert_int_eq(vs_compare_counter_class("nvml.device_used"), VS_CMP_TOTAL);
    /* PyTorch's reserved segments against the allocator row, its live tensors against
     * the tensors row */
    ck_assert_int_eq(vs_compare_counter_class("torch.max_memory_reserved"), VS_CMP_ALLOCATOR);
    ck_assert_int_eq(vs_compare_counter_class("torch.reserved_bytes.all.peak"), VS_CMP_ALLOCATOR);
    ck_assert_int_eq(vs_compare_counter_class("torchtune.peak_memory_reserved"), VS_CMP_ALLOCATOR);
    ck_assert_int_eq(vs_compare_counter_class("torchtune.peak_memory_active"), VS_CMP_TENSORS);
    ck_assert_int_eq(vs_compare_counter_class("torchtune.peak_memory_alloc"), VS_CMP_TENSORS);
    ck_assert_int_eq(vs_compare_counter_class("torch.cuda.max_memory_allocated"), VS_CMP_TENSORS);
    ck_assert_int_eq(vs_compare_counter_class("torch.active_bytes.all.peak"), VS_CMP_TENSORS);
    ck_assert_int_eq(vs_compare_counter_class("torch.allocated_bytes.all.peak"), VS_CMP_TENSORS);
    json_decref(sheet);
}
END_TEST

/* A decode in two parts: SDXL's VAE decoding one fp32 1024 x 1024 image, its tensors
 * 4,026,531,840 B (the upsampler's conv with cuDNN's workspace) and the allocator's cache
 * up to InvokeAI's 1,048,576 px x 4 B x 2,200 = 9,227,468,800 B: 5,200,936,960 B. Weights
 * 1,000,000,000 params x 2 B. The total and the allocator rows hold both; the tensors row
 * the allocator row less the cache, 2,000,000,000 + 4,026,531,840 = 6,026,531,840, against
 * max_memory_allocated 6,100,000,000 (under, by 73,468,160); the allocator row,
 * 11,227,468,800, against max_memory_reserved 11,000,000,000 (covers). */
static const char *DECODE_SHEET =
    "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"dec\", "
    "\"card\": {\"params\": 1000000000, \"format\": \"fp16\"}, "
    "\"components\": ["
    " {\"name\": \"vae_decode\", \"bytes\": 4026531840, \"status\": \"estimated\", "
    "\"phase\": \"decode\", \"class\": \"activations\"},"
    " {\"name\": \"vae_decode_cache\", \"bytes\": 5200936960, \"status\": \"estimated\", "
    "\"phase\": \"decode\", \"class\": \"activations\", \"memory\": \"cache\"}],"
    "\"measurements\": ["
    " {\"phase\": \"generate\", \"counter\": \"torch.cuda.max_memory_allocated\", "
    "\"peak_bytes\": 6100000000},"
    " {\"phase\": \"generate\", \"counter\": \"torch.cuda.max_memory_reserved\", "
    "\"peak_bytes\": 11000000000}]}";

START_TEST(allocator_cache_and_the_tensors_row)
{
    json_t *sheet = NULL, *payload = NULL, *r;
    vs_error err;
    vs_compare c;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    size_t i, found = 0;
    ck_assert_int_eq(4026531840LL + 5200936960LL, 1048576LL * 4 * 2200);
    ck_assert_int_eq(vs_sheet_load(&sheet, DECODE_SHEET, strlen(DECODE_SHEET), &err), 0);
    ck_assert_int_eq(vs_compare_sheet(&c, sheet, 0, 0, &err), 0);
    ck_assert_int_eq(c.rows[VS_CMP_ACTIVATIONS].estimated_bytes, 4026531840LL);
    ck_assert_int_eq(c.rows[VS_CMP_CACHE].estimated_bytes, 5200936960LL);
    ck_assert_int_eq(c.rows[VS_CMP_TOTAL].estimated_bytes, 11227468800LL);
    ck_assert_int_eq(c.rows[VS_CMP_ALLOCATOR].estimated_bytes, 11227468800LL);
    ck_assert_int_eq(c.rows[VS_CMP_ALLOCATOR].measured_bytes, 11000000000LL);
    ck_assert_str_eq(c.rows[VS_CMP_ALLOCATOR].measured_from, "torch.cuda.max_memory_reserved");
    ck_assert_str_eq(c.rows[VS_CMP_ALLOCATOR].status, "covers");
    ck_assert_int_eq(c.rows[VS_CMP_TENSORS].estimated_bytes, 6026531840LL);
    ck_assert_int_eq(c.rows[VS_CMP_TENSORS].measured_bytes, 6100000000LL);
    ck_assert_str_eq(c.rows[VS_CMP_TENSORS].measured_from, "torch.cuda.max_memory_allocated");
    ck_assert_int_eq(c.rows[VS_CMP_TENSORS].delta_bytes, -73468160LL);
    ck_assert_str_eq(c.rows[VS_CMP_TENSORS].status, "under-estimate");
    ck_assert_str_eq(c.rows[VS_CMP_CACHE].status, "not measured");
    ck_assert_int_eq(vs_compare_render(&c, &text, &html, &payload), 0);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "allocator cache"));
    json_array_foreach(json_object_get(payload, "rows"), i, r)
    {
        const char *cls = json_string_value(json_object_get(r, "class"));
        if (!strcmp(cls, "tensors") || !strcmp(cls, "allocator cache"))
            found++;
    }
    ck_assert_uint_eq(found, 2);
    json_decref(payload);
    vs_buf_free(&text);
    vs_buf_free(&html);
    json_decref(sheet);
}
END_TEST

/* A measurement's scope over its counter's name: "tensors" puts a counter
 * the names do not know (a script's own, "my_run.peak") on the tensors row,
 * "allocator" on the allocator row; without a scope the name decides (none
 * here: the row stays unmeasured). */
static const char *SCOPE_SHEET =
    "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"scope\", "
    "\"card\": {\"params\": 1000000000, \"format\": \"fp16\"}, "
    "\"components\": [],"
    "\"measurements\": ["
    " {\"phase\": \"generate\", \"counter\": \"my_run.peak\", \"scope\": \"tensors\", "
    "\"peak_bytes\": 2100000000},"
    " {\"phase\": \"generate\", \"counter\": \"my_run.pool\", \"scope\": \"allocator\", "
    "\"peak_bytes\": 2500000000},"
    " {\"phase\": \"generate\", \"counter\": \"my_run.other\", \"peak_bytes\": 9}]}";

START_TEST(scope_before_the_counter_name)
{
    json_t *sheet = NULL;
    vs_error err;
    vs_compare c;
    ck_assert_int_eq(vs_compare_counter_class("my_run.peak"), VS_CMP_NONE);
    ck_assert_int_eq(vs_sheet_load(&sheet, SCOPE_SHEET, strlen(SCOPE_SHEET), &err), 0);
    ck_assert_int_eq(vs_compare_sheet(&c, sheet, 0, 0, &err), 0);
    ck_assert(c.rows[VS_CMP_TENSORS].has_measured);
    ck_assert_int_eq(c.rows[VS_CMP_TENSORS].measured_bytes, 2100000000LL);
    ck_assert_str_eq(c.rows[VS_CMP_TENSORS].measured_from, "my_run.peak");
    ck_assert(c.rows[VS_CMP_ALLOCATOR].has_measured);
    ck_assert_int_eq(c.rows[VS_CMP_ALLOCATOR].measured_bytes, 2500000000LL);
    ck_assert_str_eq(c.rows[VS_CMP_ALLOCATOR].measured_from, "my_run.pool");
    /* weights 1,000,000,000 x 2 B: the tensors row's estimate, under by 100,000,000 */
    ck_assert_int_eq(c.rows[VS_CMP_TENSORS].delta_bytes, -100000000LL);
    ck_assert(!c.rows[VS_CMP_TOTAL].has_measured);
    json_decref(sheet);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, classes_against_vllm);
    tcase_add_test(tc, placement_gpu_and_alternatives);
    tcase_add_test(tc, allocator_cache_and_the_tensors_row);
    tcase_add_test(tc, scope_before_the_counter_name);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
