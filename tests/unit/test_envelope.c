/* Weights only, the reserve and the per-GPU envelope (the worked examples' figures). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "render/envelope.h"
#include "sheet/classify.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"

#include "check_run.h"

/* The envelope payload as the renderer writes it, parsed back: a payload
 * that is not one JSON object fails here. */
static json_t *payload_of(const vs_envelope *e, const json_t *sheet)
{
    vs_buf b = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&b);
    vs_component_views views;
    json_t *p;
    ck_assert_int_eq(vs_component_views_read(&views, sheet), 0);
    vs_jw_open(&w, '{');
    vs_envelope_payload_write(&w, e, sheet, &views);
    vs_jw_close(&w, '}');
    vs_component_views_free(&views);
    ck_assert(!vs_buf_failed(&b));
    p = json_loadb(b.data, b.len, 0, NULL);
    ck_assert_msg(json_is_object(p), "not one JSON object: %s", vs_buf_str(&b));
    vs_buf_free(&b);
    return p;
}

/* The bits of a format name, which must parse. */
static unsigned bits_of_format(const char *format)
{
    unsigned bits = 0;
    ck_assert_int_eq(vs_envelope_format_bits(&bits, format, NULL), 0);
    return bits;
}

static json_t *seed_sheet(uint64_t params, const char *format)
{
    json_t *s = vs_sheet_new("seed 7b");
    json_t *card = vs_sheet_card(s);
    json_object_set_new(card, "params", json_integer((json_int_t)params));
    json_object_set_new(card, "format", json_string(format));
    json_object_set_new(card, "bits", json_integer(bits_of_format(format)));
    return s;
}

/* GiB x 100, rounded half up, from exact bytes: what the display shows. */
static uint64_t gib100(uint64_t b)
{
    return (b * 100 + (1ULL << 29)) >> 30;
}

START_TEST(format_bits)
{
    vs_error err;
    unsigned bits = 99;
    ck_assert_uint_eq(bits_of_format("fp32"), 32);
    ck_assert_uint_eq(bits_of_format("bf16"), 16);
    ck_assert_uint_eq(bits_of_format("fp16"), 16);
    ck_assert_uint_eq(bits_of_format("fp8"), 8);
    ck_assert_uint_eq(bits_of_format("int8"), 8);
    ck_assert_uint_eq(bits_of_format("int4"), 4);
    ck_assert_uint_eq(bits_of_format("nf4"), 4);
    ck_assert_uint_eq(bits_of_format("fp4"), 4);
    ck_assert_uint_eq(bits_of_format("bits=6"), 6);
    ck_assert_uint_eq(bits_of_format("bits=64"), 64);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "bits=65", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "bits=0", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "bits=07", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "bits=", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "bits=99999999999", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "BF16", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_envelope_format_bits(&bits, NULL, NULL), VS_EVALUE);
    ck_assert_uint_eq(bits, 99); /* untouched when not a format */
    ck_assert_int_eq(vs_envelope_format_bits(&bits, "q4_k_x", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "bits=N"));
    ck_assert_ptr_nonnull(vs_envelope_format_quant_note(4));
    ck_assert_ptr_nonnull(vs_envelope_format_quant_note(8));
    ck_assert_ptr_null(vs_envelope_format_quant_note(16));
}
END_TEST

START_TEST(weights_bytes_exact)
{
    uint64_t v = 0;
    vs_error err;
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, 7000000000ULL, 16, &err), 0);
    ck_assert_uint_eq(v, 14000000000ULL);
    ck_assert_uint_eq(gib100(v), 1304);
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, 13000000000ULL, 16, &err), 0);
    ck_assert_uint_eq(v, 26000000000ULL);
    ck_assert_uint_eq(gib100(v), 2421);
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, 3, 4, &err), 0); /* 12 bits -> 2 bytes */
    ck_assert_uint_eq(v, 2);
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, 9, 3, &err), 0); /* 27 bits -> 4 bytes */
    ck_assert_uint_eq(v, 4);
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, UINT64_MAX, 64, &err), VS_EUNIT);
    /* a record holds signed 64-bit integers: 2^63 - 1 bytes at most */
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, (uint64_t)INT64_MAX, 8, &err), 0);
    ck_assert_uint_eq(v, (uint64_t)INT64_MAX);
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, (uint64_t)INT64_MAX + 1, 8, &err), VS_EUNIT);
    ck_assert_int_eq(vs_envelope_weights_bytes(&v, UINT64_MAX, 8, &err), VS_EUNIT);
}
END_TEST

START_TEST(envelope_beyond_a_record_is_a_unit_error)
{
    /* 8e18 B of weights + 2e18 B of reserve: fits 64 unsigned bits, not a record */
    json_t *s = seed_sheet(2000000000000000000ULL, "fp32");
    vs_envelope e;
    vs_error err;
    ck_assert_int_eq(vs_sheet_set_component(s, "a", 1, 2000000000000000000ULL, "estimated", NULL,
                                            NULL, NULL, &err),
                     0);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), VS_EUNIT);
    ck_assert(strstr(err.message, "2^63") != NULL);
    json_decref(s);
}
END_TEST

START_TEST(seed_envelope_19_04)
{
    json_t *s = seed_sheet(7000000000ULL, "bf16"), *p;
    vs_envelope e;
    vs_error err;
    ck_assert_int_eq(vs_sheet_set_component(s, "reserve", 1, 6ULL << 30, "estimated", "declared",
                                            NULL, NULL, &err),
                     0);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert(e.weights_known);
    ck_assert_str_eq(e.weights_basis, "params x bits / 8");
    ck_assert_uint_eq(e.weights_bytes, 14000000000ULL);
    ck_assert_uint_eq(e.reserve_bytes, 6442450944ULL);
    ck_assert_uint_eq(e.envelope_bytes, 20442450944ULL);
    ck_assert_uint_eq(gib100(e.envelope_bytes), 1904);
    ck_assert(e.conservative);
    ck_assert_uint_eq(e.n_unknown, 0);
    p = payload_of(&e, s);
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "envelope");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "weights_bytes")), 14000000000LL);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "reserve_bytes")), 6442450944LL);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "envelope_bytes")), 20442450944LL);
    ck_assert(json_is_true(json_object_get(p, "conservative")));
    ck_assert_uint_eq(json_array_size(json_object_get(p, "components")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(p, "components"), 0), "status")),
                     "estimated");
    ck_assert_uint_eq(json_array_size(json_object_get(p, "unknown")), 0);
    json_decref(p);
    json_decref(s);
}
END_TEST

START_TEST(formats_row_figures)
{
    /* 32/16/8/4 bits with the same 6 GiB reserve: 26.08/13.04/6.52/3.26 and
     * 32.08/19.04/12.52/9.26 GiB. */
    const char *fmt[] = {"fp32", "bf16", "int8", "int4"};
    const uint64_t w[] = {2608, 1304, 652, 326}, env[] = {3208, 1904, 1252, 926};
    size_t i;
    for (i = 0; i < 4; i++) {
        json_t *s = seed_sheet(7000000000ULL, fmt[i]);
        vs_envelope e;
        vs_error err;
        vs_sheet_set_component(s, "reserve", 1, 6ULL << 30, "estimated", NULL, NULL, NULL, &err);
        ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
        ck_assert_uint_eq(gib100(e.weights_bytes), w[i]);
        ck_assert_uint_eq(gib100(e.envelope_bytes), env[i]);
        json_decref(s);
    }
}
END_TEST

START_TEST(unknown_components_are_missing_not_zero)
{
    json_t *s = seed_sheet(7000000000ULL, "bf16"), *p;
    vs_envelope e;
    vs_error err;
    vs_sheet_set_component(s, "kv_cache", 1, 1000, "estimated", "f", NULL, "kv_cache", &err);
    vs_sheet_set_component(s, "workspace", 0, 0, "unknown", "attention workspace", NULL, NULL,
                           &err);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.n_unknown, 1);
    ck_assert_uint_eq(e.reserve_bytes, 1000);
    {
        /* from the views a verb read once: the same envelope */
        vs_component_views views;
        vs_envelope from_views;
        ck_assert_int_eq(vs_component_views_read(&views, s), 0);
        ck_assert_int_eq(vs_envelope_compute(&from_views, s, &views, &err), 0);
        ck_assert_uint_eq(from_views.reserve_bytes, e.reserve_bytes);
        ck_assert_uint_eq(from_views.envelope_bytes, e.envelope_bytes);
        ck_assert_uint_eq(from_views.n_unknown, e.n_unknown);
        ck_assert_int_eq(from_views.conservative, e.conservative);
        vs_component_views_free(&views);
    }
    p = payload_of(&e, s);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "unknown"), 0)),
                     "workspace");
    ck_assert(json_is_null(
        json_object_get(json_array_get(json_object_get(p, "components"), 1), "bytes")));
    ck_assert(json_is_false(json_object_get(p, "complete")));
    json_decref(p);
    json_decref(s);
}
END_TEST

START_TEST(weights_only_is_not_conservative)
{
    json_t *s = seed_sheet(13000000000ULL, "fp16");
    vs_envelope e;
    vs_error err;
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert(!e.conservative);
    ck_assert_uint_eq(e.envelope_bytes, 26000000000ULL);
    json_decref(s);
}
END_TEST

START_TEST(files_beat_nominal_arithmetic)
{
    json_t *s = seed_sheet(7000000000ULL, "bf16");
    vs_envelope e;
    vs_error err;
    json_object_set_new(s, "weights_files",
                        json_pack("{s:s, s:I, s:I, s:[], s:[], s:[]}", "path", "m.safetensors",
                                  "bytes", (json_int_t)13476839424LL, "params",
                                  (json_int_t)6738415616LL, "by_dtype", "other_dtype", "files"));
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_str_eq(e.weights_basis, "safetensors files");
    ck_assert_uint_eq(e.weights_bytes, 13476839424ULL);
    json_decref(s);
}
END_TEST

START_TEST(unknown_weights)
{
    json_t *s = vs_sheet_new("x");
    vs_envelope e;
    vs_error err;
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert(!e.weights_known);
    json_decref(s);
}
END_TEST

START_TEST(per_gpu_after_placement)
{
    /* ZeRO-3 on 4 GPUs: weights, gradients and optimizer state / 4, activations whole. */
    json_t *s = seed_sheet(7000000000ULL, "bf16"), *p;
    vs_envelope e;
    vs_error err;
    vs_sheet_set_component(s, "gradients", 1, 14000000000ULL, "estimated", NULL, NULL, "gradients",
                           &err);
    vs_sheet_set_component(s, "optimizer_state", 1, 56000000000ULL, "estimated", NULL, NULL,
                           "optimizer", &err);
    vs_sheet_set_component(s, "activations", 1, 1000000001ULL, "estimated", NULL, NULL,
                           "activations", &err);
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:i}", "kind", "zero", "gpus", 4, "stage", 3));
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.gpus, 4);
    ck_assert_uint_eq(e.weights_bytes, 14000000000ULL);
    ck_assert_uint_eq(e.weights_gpu_bytes, 3500000000ULL);
    ck_assert_uint_eq(e.reserve_bytes, 3500000000ULL + 14000000000ULL + 1000000001ULL);
    ck_assert_uint_eq(e.envelope_bytes, 3500000000ULL + e.reserve_bytes);
    p = payload_of(&e, s);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(p, "components"), 0), "gpu_bytes")),
                     3500000000LL);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "placement"), "stage")),
                     3);
    json_decref(p);
    /* ddp replicates: per GPU = the whole */
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n}", "kind", "ddp", "gpus", 4, "stage"));
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.envelope_bytes, 14000000000ULL * 2 + 56000000000ULL + 1000000001ULL);
    json_decref(s);
}
END_TEST

/* FLUX.1-dev at 1024 x 1024, batch 1, bf16 (2 B per parameter of each component:
 * transformer 11,901,408,320, text_encoder_2 (T5-XXL's encoder) 4,762,310,656,
 * text_encoder (CLIP-L) 123,060,480, vae 83,819,683), under model CPU offload.
 * By hand, per phase:
 *   encode:  text_encoder_2 9,524,621,312 + cuda_context 1,073,741,824 = 10,598,363,136
 *   denoise: transformer 23,802,816,640 + latents 524,288 (1 x 16 x 128 x 128 x 2)
 *            + cuda_context = 24,877,082,752
 *   decode:  vae 167,639,366 + vae_decode 4,613,734,400 (1 x 1024 x 1024 x 2 x 2,200)
 *            + cuda_context = 5,855,115,590
 * the worst is denoise, 24,877,082,752 B (23.17 GiB); the plain sum of every
 * maximum, 23,802,816,640 + 524,288 + 4,613,734,400 + 1,073,741,824 =
 * 29,490,817,152 B (27.47 GiB), stays beside as the conservative figure. */
static json_t *flux_sheet(const char *offload)
{
    json_t *s = vs_sheet_new("FLUX.1-dev 1024x1024");
    vs_error err;
    json_t *comps = json_pack(
        "[{s:s, s:s, s:I, s:I}, {s:s, s:s, s:I, s:I}, {s:s, s:s, s:I, s:I}, {s:s, s:s, s:I, s:I}]",
        "name", "text_encoder", "class", "CLIPTextModel", "bytes", (json_int_t)246120960,
        "largest_group_bytes", (json_int_t)75890688, "name", "text_encoder_2", "class",
        "T5EncoderModel", "bytes", (json_int_t)9524621312LL, "largest_group_bytes",
        (json_int_t)263192576, "name", "transformer", "class", "FluxTransformer2DModel", "bytes",
        (json_int_t)23802816640LL, "largest_group_bytes", (json_int_t)113283072, "name", "vae",
        "class", "AutoencoderKL", "bytes", (json_int_t)167639366, "largest_group_bytes",
        (json_int_t)4719616);
    json_object_set_new(
        s, "weights_files",
        json_pack("{s:I, s:o}", "bytes",
                  (json_int_t)(246120960LL + 9524621312LL + 23802816640LL + 167639366LL),
                  "components", comps));
    vs_sheet_set_component(s, "latents", 1, 524288, "estimated", NULL, "denoise", "activations",
                           &err);
    vs_sheet_set_component(s, "attention_scores", 1, 0, "estimated", NULL, "denoise", "activations",
                           &err);
    vs_sheet_set_component(s, "vae_decode", 1, 4613734400ULL, "estimated", NULL, "decode",
                           "activations", &err);
    vs_sheet_set_component(s, "cuda_context", 1, 1073741824ULL, "estimated", NULL, NULL, "other",
                           &err);
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n, s:s?}", "kind", "single", "gpus", 1, "stage",
                                  "offload", offload));
    return s;
}

START_TEST(offload_peak_is_the_worst_phase)
{
    json_t *s = flux_sheet("model"), *p, *ph;
    vs_envelope e;
    vs_error err;
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.phases.n, 3);
    ck_assert_str_eq(e.phases.row[0].name, "encode");
    ck_assert_uint_eq(e.phases.row[0].bytes, 10598363136ULL);
    ck_assert_uint_eq(e.phases.row[1].bytes, 24877082752ULL);
    ck_assert_uint_eq(e.phases.row[2].bytes, 5855115590ULL);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "denoise");
    ck_assert_str_eq(e.phases.row[1].weights_of, "transformer");
    ck_assert_uint_eq(e.envelope_bytes, 24877082752ULL);
    ck_assert_uint_eq(e.sum_bytes, 29490817152ULL);
    ck_assert_uint_eq(gib100(e.sum_bytes), 2747);      /* the 27.47 GiB of before */
    ck_assert_uint_eq(gib100(e.envelope_bytes), 2317); /* 23.17 GiB */
    p = payload_of(&e, s);
    ck_assert_str_eq(json_string_value(json_object_get(p, "peak_basis")), "worst phase");
    ck_assert_str_eq(json_string_value(json_object_get(p, "worst_phase")), "denoise");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "sum_bytes")), 29490817152LL);
    ph = json_object_get(p, "phases");
    ck_assert_uint_eq(json_array_size(ph), 3);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ph, 2), "bytes")),
                     5855115590LL);
    json_decref(p);
    json_decref(s);
    /* sequential offload: the largest module of each phase's components, its own tensors
     * (accelerate's AlignDevicesHook moves one module's at a time), in bf16: CLIP-L's token
     * embedding 49,408 x 768; T5's shared embedding 32,128 x 4,096; the transformer's
     * norm1.linear, 3,072 -> 18,432 with its bias; the VAE's 512 -> 512 3 x 3 convolution
     * with its bias
     *   encode  263,192,576 + 1,073,741,824 = 1,336,934,400
     *   denoise 113,283,072 + 524,288 + 1,073,741,824 = 1,187,549,184
     *   decode  4,719,616 + 4,613,734,400 + 1,073,741,824 = 5,692,195,840: the VAE
     *   decode is the worst phase there */
    ck_assert_uint_eq(49408ull * 768 * 2, 75890688ULL);
    ck_assert_uint_eq(32128ull * 4096 * 2, 263192576ULL);
    ck_assert_uint_eq((3072ull * 18432 + 18432) * 2, 113283072ULL);
    ck_assert_uint_eq((512ull * 512 * 9 + 512) * 2, 4719616ULL);
    s = flux_sheet("sequential");
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.phases.row[0].bytes, 1336934400ULL);
    ck_assert_str_eq(e.phases.row[0].weights_of, "text_encoder_2");
    ck_assert_uint_eq(e.phases.row[1].bytes, 1187549184ULL);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "decode");
    ck_assert_uint_eq(e.envelope_bytes, 5692195840ULL);
    json_decref(s);
    /* no offload: every weight on the GPU in each phase the components name, and
     * the latents (denoise) freed before the VAE decodes (decode): the worst phase is
     * the weights, the CUDA context and the decode; the plain sum, the latents with
     * it, stays the conservative figure */
    s = flux_sheet(NULL);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.phases.n, 2);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "decode");
    ck_assert_ptr_null(e.phases.row[e.phases.worst].weights_of);
    ck_assert_uint_eq(e.envelope_bytes, 246120960ULL + 9524621312ULL + 23802816640ULL +
                                            167639366ULL + 4613734400ULL + 1073741824ULL);
    ck_assert_uint_eq(e.sum_bytes, e.envelope_bytes + 524288ULL);
    json_decref(s);
}
END_TEST

/* A pipeline whose transformer and T5 bitsandbytes quantises loads them to the GPU together
 * before model offload moves them off: the phase load. On flux_sheet's components with the
 * transformer at 6,000,000,000 B (bnb-nf4, its largest weight's bf16 copy 113,246,208 B) and T5
 * at 6,000,000,000 B (bnb-int8, 83,886,080 B), by hand:
 *   load:    6,000,000,000 + 6,000,000,000 + 113,246,208 (the larger copy; one weight at a time)
 *            + cuda_context 1,073,741,824 = 13,186,988,032
 *   encode:  text_encoder 246,120,960 + T5 (8-bit: on the GPU throughout) 6,000,000,000
 *            + cuda_context = 7,319,862,784
 *   denoise: transformer 6,000,000,000 + T5 6,000,000,000 + latents 524,288 + cuda_context
 *            = 13,074,266,112
 *   decode:  vae 167,639,366 + T5 6,000,000,000 + vae_decode 4,613,734,400 + cuda_context
 *            = 11,855,115,590
 * the worst is load. Without any bitsandbytes component there is no load phase. */
START_TEST(bitsandbytes_components_load_on_the_gpu)
{
    json_t *s = flux_sheet("model"), *c;
    json_t *comps = json_object_get(json_object_get(s, "weights_files"), "components");
    vs_envelope e;
    vs_error err;
    size_t i;
    json_array_foreach(comps, i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        int t5 = !strcmp(n, "text_encoder_2");
        if (strcmp(n, "transformer") && !t5)
            continue;
        json_object_set_new(c, "bytes", json_integer(6000000000LL));
        json_object_set_new(c, "by_dtype",
                            json_pack("[{s:s}]", "dtype", t5 ? "bnb-int8" : "bnb-nf4"));
        json_object_set_new(c, "load_transient_bytes",
                            json_integer(t5 ? 2 * 10240 * 4096 : 2 * 18432 * 3072));
    }
    ck_assert_int_eq(2 * 18432 * 3072, 113246208);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.phases.n, 4);
    ck_assert_str_eq(e.phases.row[0].name, "load");
    ck_assert_uint_eq(e.phases.row[0].weights_bytes, 12113246208ULL);
    ck_assert_uint_eq(e.phases.row[0].bytes, 13186988032ULL);
    ck_assert_ptr_nonnull(strstr(e.phases.row[0].weights_of, "bitsandbytes"));
    ck_assert_uint_eq(e.phases.row[1].bytes, 7319862784ULL);
    ck_assert_uint_eq(e.phases.row[2].bytes, 13074266112ULL);
    ck_assert_uint_eq(e.phases.row[3].bytes, 11855115590ULL);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "load");
    ck_assert_uint_eq(e.envelope_bytes, 13186988032ULL);
    json_decref(s);
    /* the bf16 pipeline loads to host memory: the three phases of before */
    s = flux_sheet("model");
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.phases.n, 3);
    ck_assert_str_eq(e.phases.row[0].name, "encode");
    json_decref(s);
}
END_TEST

/* A phase holds its unknown components: an unknown in decode leaves denoise's
 * known part alone, and is counted in decode only. */
START_TEST(unknown_in_one_phase)
{
    json_t *s = flux_sheet("model");
    vs_envelope e;
    vs_error err;
    vs_sheet_set_component(s, "decode_extra", 0, 0, "unknown", NULL, "decode", "other", &err);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.phases.row[1].n_unknown, 0);
    ck_assert_uint_eq(e.phases.row[2].n_unknown, 1);
    ck_assert_uint_eq(e.envelope_bytes, 24877082752ULL);
    ck_assert_uint_eq(e.n_unknown, 1);
    json_decref(s);
}
END_TEST

/* The capacity verdict reads the worst phase: a 24 GB card (an RTX 4090's
 * device-reported 25,757,220,864 B) holds FLUX.1-dev's denoising, 24,877,082,752
 * B, although the plain sum, 29,490,817,152 B, would not; a 16 GB card
 * (16,000,000,000 B reported) is excluded, since the denoising alone exceeds it. */
/* flux_sheet's decode in two parts, as estimate decode's default splits it: the decoder's
 * tensors (the bf16 walk with cuDNN's workspace at 1024 x 1024: 2,550,136,832 B) and the
 * allocator's reserved-but-free memory up to InvokeAI's 4,613,734,400 B, 2,063,597,568 B,
 * "memory": "cache". */
static json_t *flux_split(const char *offload, uint64_t tensors)
{
    json_t *s = flux_sheet(offload), *c;
    vs_error err;
    size_t i;
    ck_assert_int_eq(vs_sheet_set_component(s, "vae_decode", 1, tensors, "estimated", NULL,
                                            "decode", "activations", &err),
                     0);
    ck_assert_int_eq(vs_sheet_set_component(s, "vae_decode_cache", 1, 4613734400ULL - tensors,
                                            "estimated", NULL, "decode", "activations", &err),
                     0);
    json_array_foreach(vs_sheet_array(s, VS_SK_COMPONENTS), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode_cache"))
            ck_assert_int_eq(vs_sheet_component_with(s, i, "memory", json_string("cache")), 0);
    }
    return s;
}

/* The allocator's cache is in the envelope and the allocator's part (the GPU holds what is
 * reserved) and out of the tensors' part, which is the largest phase's tensors. By hand, on
 * flux_sheet's figures (W = the four weights, 33,741,198,278 B):
 *   no offload: decode W + 2,550,136,832 + cache 2,063,597,568 + cuda_context 1,073,741,824, the
 *     same envelope as the decode in one part; tensors W + 2,550,136,832 + 1,073,741,824, above
 *     denoise's W + 524,288 + 1,073,741,824
 *   model offload: the denoise phase, 24,877,082,752, is the worst and holds no cache
 *   sequential: decode 4,719,616 + 4,613,734,400 + 1,073,741,824 = 5,692,195,840 (worst), its
 *     tensors 4,719,616 + 2,550,136,832 + 1,073,741,824 = 3,628,598,272; with the tensors at
 *     200,000,000 B, 1,278,461,440 in the decode, below encode's 1,336,934,400: the tensors'
 *     peak is then another phase than the worst */
START_TEST(allocator_cache_outside_the_tensors)
{
    const uint64_t w = 246120960ULL + 9524621312ULL + 23802816640ULL + 167639366ULL;
    json_t *s = flux_split(NULL, 2550136832ULL), *p;
    vs_envelope e;
    vs_error err;
    ck_assert_uint_eq(w, 33741198278ULL);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "decode");
    ck_assert_uint_eq(e.envelope_bytes, w + 4613734400ULL + 1073741824ULL);
    ck_assert_uint_eq(e.allocator_bytes, e.envelope_bytes);
    ck_assert_uint_eq(e.cache_bytes, 2063597568ULL);
    ck_assert_uint_eq(e.tensors_bytes, w + 2550136832ULL + 1073741824ULL);
    p = payload_of(&e, s);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "cache_bytes")), 2063597568LL);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "tensors_bytes")),
                     (json_int_t)(w + 2550136832ULL + 1073741824ULL));
    json_decref(p);
    /* the table names it, and the text says what each counter sees */
    {
        vs_component_views views;
        vs_bundle *b;
        char *t;
        ck_assert_int_eq(vs_component_views_read(&views, s), 0);
        b = vs_render_envelope(s, &e, &views);
        ck_assert_ptr_nonnull(b);
        t = vs_bundle_plain(b);
        ck_assert_ptr_nonnull(t);
        ck_assert_ptr_nonnull(strstr(t, "activations, allocator cache"));
        ck_assert_ptr_nonnull(strstr(t, "reports at most the live tensors' peak"));
        free(t);
        vs_bundle_free(b);
        vs_component_views_free(&views);
    }
    json_decref(s);
    s = flux_split("model", 2550136832ULL);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "denoise");
    ck_assert_uint_eq(e.envelope_bytes, 24877082752ULL);
    ck_assert_uint_eq(e.cache_bytes, 0);
    ck_assert_uint_eq(e.tensors_bytes, 24877082752ULL);
    json_decref(s);
    s = flux_split("sequential", 2550136832ULL);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_uint_eq(e.envelope_bytes, 5692195840ULL);
    ck_assert_uint_eq(e.cache_bytes, 2063597568ULL);
    ck_assert_uint_eq(e.tensors_bytes, 3628598272ULL);
    json_decref(s);
    s = flux_split("sequential", 200000000ULL);
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_str_eq(e.phases.row[e.phases.worst].name, "decode");
    ck_assert_uint_eq(e.envelope_bytes, 5692195840ULL);
    ck_assert_uint_eq(e.cache_bytes, 4413734400ULL);
    ck_assert_uint_eq(e.tensors_bytes, 1336934400ULL);
    json_decref(s);
}
END_TEST

START_TEST(exclude_only_when_one_phase_exceeds)
{
    json_t *s = flux_sheet("model");
    vs_envelope e;
    vs_error err;
    vs_classification *c = NULL;
    size_t i, k, found = 0;
    const char *names[2] = {"24 GB card", "16 GB card"};
    const long long reported[2] = {25757220864LL, 16000000000LL};
    for (i = 0; i < 2; i++)
        json_array_append_new(vs_sheet_array(s, VS_SK_OFFERS),
                              json_pack("{s:s, s:I, s:I, s:s, s:i}", "name", names[i],
                                        "memory_bytes", (json_int_t)24000000000LL, "reported_bytes",
                                        (json_int_t)reported[i], "reported_basis", "test", "cards",
                                        1));
    ck_assert_int_eq(vs_envelope_compute(&e, s, NULL, &err), 0);
    ck_assert_int_eq(vs_classify(&c, s, &e, NULL, &err), 0);
    ck_assert_uint_eq(c->nrows, 2);
    for (k = 0; k < c->nrows; k++) {
        const vs_classify_row *r = &c->rows[k];
        for (i = 0; i < r->nreqs; i++) {
            if (strcmp(r->reqs[i].name, "capacity"))
                continue;
            found++;
            if (k == 0)
                ck_assert_int_ne(r->reqs[i].verdict, VS_VERDICT_EXCLUDE);
            else
                ck_assert_int_eq(r->reqs[i].verdict, VS_VERDICT_EXCLUDE);
        }
    }
    ck_assert_uint_eq(found, 2);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("envelope");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, format_bits);
    tcase_add_test(tc, weights_bytes_exact);
    tcase_add_test(tc, envelope_beyond_a_record_is_a_unit_error);
    tcase_add_test(tc, seed_envelope_19_04);
    tcase_add_test(tc, formats_row_figures);
    tcase_add_test(tc, unknown_components_are_missing_not_zero);
    tcase_add_test(tc, weights_only_is_not_conservative);
    tcase_add_test(tc, files_beat_nominal_arithmetic);
    tcase_add_test(tc, unknown_weights);
    tcase_add_test(tc, per_gpu_after_placement);
    tcase_add_test(tc, offload_peak_is_the_worst_phase);
    tcase_add_test(tc, bitsandbytes_components_load_on_the_gpu);
    tcase_add_test(tc, unknown_in_one_phase);
    tcase_add_test(tc, exclude_only_when_one_phase_exceeds);
    tcase_add_test(tc, allocator_cache_outside_the_tensors);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
