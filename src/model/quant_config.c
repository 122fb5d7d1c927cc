/* The scheme table, and a quantization_config (or a `format` word) read
 * into a vs_quant (model/quant.h). The keys are the ones the loaders read:
 * transformers' utils/quantization_config.py (GPTQConfig, AwqConfig,
 * BitsAndBytesConfig, FineGrainedFP8Config, Mxfp4Config,
 * CompressedTensorsConfig, ModelOpt's hf_quant_config as vLLM's
 * ModelOptNvFp4Config.from_config reads it). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/quant_internal.h"

static const vs_quant_scheme *const schemes[VS_QUANT_COUNT] = {
    &vs_quant_scheme_gptq, &vs_quant_scheme_awq,   &vs_quant_scheme_bnb,
    &vs_quant_scheme_fp8,  &vs_quant_scheme_mxfp4, &vs_quant_scheme_nvfp4};

const vs_quant_scheme *vs_quant_scheme_of(vs_quant_method m)
{
    return (int)m >= 0 && m < VS_QUANT_COUNT ? schemes[m] : NULL;
}

#define KNOWN_METHODS                                                                              \
    "gptq, awq, bitsandbytes, fp8, compressed-tensors, mxfp4, modelopt (nvfp4, fp8)"

static uint64_t uint_of(const json_t *o, const char *k, uint64_t dflt)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : dflt;
}

static int bool_of(const json_t *o, const char *k, int dflt)
{
    json_t *v = json_object_get(o, k);
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

static void add_keep(vs_quant *q, const char *pat)
{
    int re = 0;
    if (!pat || !*pat || q->nkeep == VS_QUANT_KEEP_MAX)
        return;
    if (!strncmp(pat, "re:", 3)) {
        pat += 3;
        re = 1;
    }
    snprintf(q->keep[q->nkeep], sizeof q->keep[q->nkeep], "%s", pat);
    q->keep_regex[q->nkeep++] = re;
}

static void add_keeps(vs_quant *q, const json_t *arr)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) add_keep(q, json_string_value(x));
}

static void dense_dtype(vs_quant *q, const char *dt)
{
    if (dt && (!strcmp(dt, "float16") || !strcmp(dt, "fp16") || !strcmp(dt, "half"))) {
        snprintf(q->dense_dtype, sizeof q->dense_dtype, "fp16");
        q->dense_bytes = 2;
    } else if (dt && (!strcmp(dt, "float32") || !strcmp(dt, "fp32"))) {
        snprintf(q->dense_dtype, sizeof q->dense_dtype, "fp32");
        q->dense_bytes = 4;
    } else {
        snprintf(q->dense_dtype, sizeof q->dense_dtype, "bf16");
        q->dense_bytes = 2;
    }
}

static int bad(vs_error *err, const char *method, const char *what)
{
    return vs_error_set(err, VS_EVALUE, "quantization_config (%s): %s", method, what);
}

/* compressed-tensors: the first config group's weights (the groups of one
 * checkpoint share a scheme in practice; a second group's targets would need
 * a per-module match the tensor list does not carry). */
static int from_compressed(vs_quant *q, const json_t *qc, vs_error *err)
{
    const json_t *groups = json_object_get(qc, "config_groups"), *g, *w, *ia;
    const char *k, *type, *strategy, *fmt = json_string_value(json_object_get(qc, "format"));
    unsigned bits;
    g = NULL;
    json_object_foreach((json_t *)groups, k, w)
    {
        g = w;
        break;
    }
    w = json_object_get(g, "weights");
    if (!json_is_object(w))
        return bad(err, "compressed-tensors", "no config_groups with weights");
    type = json_string_value(json_object_get(w, "type"));
    strategy = json_string_value(json_object_get(w, "strategy"));
    bits = (unsigned)uint_of(w, "num_bits", 0);
    ia = json_object_get(g, "input_activations");
    add_keeps(q, json_object_get(qc, "ignore"));
    if (type && !strcmp(type, "float") && bits == 4) {
        q->method = VS_QUANT_NVFP4;
        q->bits = 4;
        return 0;
    }
    if (type && !strcmp(type, "float") && bits == 8) {
        q->method = VS_QUANT_FP8;
        q->bits = 8;
        q->static_input = json_is_object(ia) && !bool_of(ia, "dynamic", 0);
        if (strategy && !strcmp(strategy, "block")) {
            const json_t *bs = json_object_get(w, "block_structure");
            q->scale = VS_QUANT_SCALE_BLOCK;
            q->block[0] = json_is_integer(json_array_get(bs, 0))
                              ? (uint64_t)json_integer_value(json_array_get(bs, 0))
                              : 128;
            q->block[1] = json_is_integer(json_array_get(bs, 1))
                              ? (uint64_t)json_integer_value(json_array_get(bs, 1))
                              : 128;
            if (!q->block[0] || !q->block[1])
                return bad(err, "compressed-tensors", "block_structure must be two positive sizes");
        } else {
            q->scale = strategy && !strcmp(strategy, "channel") ? VS_QUANT_SCALE_CHANNEL
                                                                : VS_QUANT_SCALE_TENSOR;
        }
        return 0;
    }
    if (type && !strcmp(type, "int") && (bits == 4 || bits == 8 || bits == 2 || bits == 3)) {
        if (fmt && strstr(fmt, "pack-quantized")) {
            /* weight-only integers, packed: GPTQ's layout less its zeros */
            q->method = VS_QUANT_GPTQ;
            q->ct = 1;
            q->bits = bits;
            q->sym = bool_of(w, "symmetric", 1);
            q->group = strategy && !strcmp(strategy, "group") ? uint_of(w, "group_size", 128) : 0;
            q->desc_act = json_is_string(json_object_get(w, "actorder"));
            return 0;
        }
        if (bits == 8) {
            /* w8a8 int8: one byte a weight, a float32 scale per row (as FP8 channel) */
            q->method = VS_QUANT_FP8;
            q->bits = 8;
            q->scale = strategy && !strcmp(strategy, "tensor") ? VS_QUANT_SCALE_TENSOR
                                                               : VS_QUANT_SCALE_CHANNEL;
            q->static_input = json_is_object(ia) && !bool_of(ia, "dynamic", 0);
            snprintf(q->method_name, sizeof q->method_name, "compressed-tensors int8");
            return 0;
        }
    }
    return bad(err, "compressed-tensors",
               "the weights' scheme (type, num_bits, format) is none the loaders map here: float "
               "8 or 4 bits, int 2 to 8 bits pack-quantized, int 8");
}

int vs_quant_from_config(vs_quant *q, const json_t *cfg, vs_error *err)
{
    const json_t *qc = json_object_get(cfg, "quantization_config");
    const char *m, *dt;
    memset(q, 0, sizeof *q);
    if (!json_is_object(qc))
        qc = json_object_get(json_object_get(cfg, "text_config"), "quantization_config");
    if (!json_is_object(qc))
        return 1;
    dt = json_string_value(json_object_get(cfg, "torch_dtype"));
    if (!dt)
        dt = json_string_value(json_object_get(cfg, "dtype"));
    dense_dtype(q, dt);
    q->from_config = 1;
    m = json_string_value(json_object_get(qc, "quant_method"));
    if (!m && json_is_object(json_object_get(qc, "quantization"))) {
        /* ModelOpt's hf_quant_config.json shape: {"quantization": {"quant_algo": ...}} */
        qc = json_object_get(qc, "quantization");
        m = "modelopt";
    }
    if (!m)
        return vs_error_set(
            err, VS_EVALUE,
            "quantization_config has no quant_method; the known methods are " KNOWN_METHODS);
    snprintf(q->method_name, sizeof q->method_name, "%s", m);
    add_keeps(q, json_object_get(qc, "modules_to_not_convert"));
    add_keeps(q, json_object_get(qc, "llm_int8_skip_modules"));
    add_keeps(q, json_object_get(qc, "exclude_modules"));
    if (!strcasecmp(m, "gptq") || !strcasecmp(m, "awq")) {
        int64_t gs;
        json_t *g = json_object_get(qc, "group_size");
        q->method = !strcasecmp(m, "gptq") ? VS_QUANT_GPTQ : VS_QUANT_AWQ;
        q->bits = (unsigned)uint_of(qc, "bits", uint_of(qc, "w_bit", 4));
        gs = json_is_integer(g) ? json_integer_value(g)
                                : (json_is_integer(json_object_get(qc, "q_group_size"))
                                       ? json_integer_value(json_object_get(qc, "q_group_size"))
                                       : 128);
        if (gs == 0 || gs < -1)
            return bad(err, m, "group_size must be positive or -1");
        q->group = gs == -1 ? 0 : (uint64_t)gs;
        q->sym = bool_of(qc, "sym", 1);
        q->desc_act = bool_of(qc, "desc_act", 0);
        q->lm_head = bool_of(qc, "lm_head", 0);
        if (q->bits < 2 || q->bits > 8)
            return bad(err, m, "bits must be 2 to 8");
        return 0;
    }
    if (!strcasecmp(m, "bitsandbytes")) {
        q->method = VS_QUANT_BNB;
        if (bool_of(qc, "load_in_4bit", 0)) {
            const char *t = json_string_value(json_object_get(qc, "bnb_4bit_quant_type"));
            q->bits = 4;
            q->fp4 = t && !strcmp(t, "fp4");
            q->double_quant = bool_of(qc, "bnb_4bit_use_double_quant", 0);
        } else if (bool_of(qc, "load_in_8bit", 0)) {
            q->bits = 8;
        } else {
            return bad(err, m, "neither load_in_4bit nor load_in_8bit is true");
        }
        return 0;
    }
    if (!strcasecmp(m, "fp8")) {
        const json_t *bs = json_object_get(qc, "weight_block_size");
        const char *as = json_string_value(json_object_get(qc, "activation_scheme"));
        q->method = VS_QUANT_FP8;
        q->bits = 8;
        q->static_input = as && !strcmp(as, "static");
        add_keeps(q, json_object_get(qc, "ignored_layers"));
        if (json_is_array(bs)) {
            if (json_array_size(bs) != 2 || !json_is_integer(json_array_get(bs, 0)) ||
                !json_is_integer(json_array_get(bs, 1)) ||
                json_integer_value(json_array_get(bs, 0)) < 1 ||
                json_integer_value(json_array_get(bs, 1)) < 1)
                return bad(err, m, "weight_block_size must be two positive sizes");
            q->scale = VS_QUANT_SCALE_BLOCK;
            q->block[0] = (uint64_t)json_integer_value(json_array_get(bs, 0));
            q->block[1] = (uint64_t)json_integer_value(json_array_get(bs, 1));
        }
        return 0;
    }
    if (!strcasecmp(m, "mxfp4")) {
        q->method = VS_QUANT_MXFP4;
        q->bits = 4;
        return 0;
    }
    if (!strcasecmp(m, "compressed-tensors"))
        return from_compressed(q, qc, err);
    if (!strcasecmp(m, "modelopt") || !strcasecmp(m, "modelopt_fp4") || !strcasecmp(m, "nvfp4")) {
        const char *algo = json_string_value(json_object_get(qc, "quant_algo"));
        if (algo && !strcasecmp(algo, "FP8")) {
            q->method = VS_QUANT_FP8;
            q->bits = 8;
            q->static_input = 1; /* ModelOpt FP8 stores input_scale */
            return 0;
        }
        if (algo && strcasecmp(algo, "NVFP4"))
            return bad(err, m, "quant_algo must be NVFP4 or FP8");
        q->method = VS_QUANT_NVFP4;
        q->bits = 4;
        return 0;
    }
    return vs_error_set(
        err, VS_EVALUE,
        "quantization_config: unknown quant_method '%s'; the known methods are " KNOWN_METHODS
        "; `model NAME params=N` with `format` sizes it by bits instead",
        m);
}

int vs_quant_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                         uint64_t block, const char *dense, vs_error *err)
{
    memset(q, 0, sizeof *q);
    dense_dtype(q, dense);
    if (!strcmp(word, "gptq") || !strcmp(word, "awq")) {
        q->method = word[0] == 'g' ? VS_QUANT_GPTQ : VS_QUANT_AWQ;
        q->bits = bits ? (unsigned)bits : 4;
        q->group = group ? group : 128;
        q->sym = 1;
        if (q->bits < 2 || q->bits > 8)
            return vs_error_set(err, VS_EVALUE, "%s: bits= must be 2 to 8", word);
        if (block)
            return vs_error_set(err, VS_EVALUE, "%s takes bits= and group=, not block=", word);
        return 0;
    }
    if ((bits || group) && (!strncmp(word, "bnb-", 4) || !strcmp(word, "fp8") ||
                            !strcmp(word, "mxfp4") || !strcmp(word, "nvfp4")))
        return vs_error_set(err, VS_EVALUE,
                            "%s has fixed bits and blocks: bits= and group= go with gptq and awq",
                            word);
    if (!strcmp(word, "bnb-nf4") || !strcmp(word, "bnb-fp4") || !strcmp(word, "bnb-int8")) {
        q->method = VS_QUANT_BNB;
        q->bits = word[4] == 'i' ? 8 : 4;
        q->fp4 = word[4] == 'f';
        return block ? vs_error_set(err, VS_EVALUE, "%s takes no block=", word) : 0;
    }
    if (!strcmp(word, "fp8") && block) {
        q->method = VS_QUANT_FP8;
        q->bits = 8;
        q->scale = VS_QUANT_SCALE_BLOCK;
        q->block[0] = q->block[1] = block;
        return 0;
    }
    if (!strcmp(word, "mxfp4") || !strcmp(word, "nvfp4")) {
        q->method = word[0] == 'm' ? VS_QUANT_MXFP4 : VS_QUANT_NVFP4;
        q->bits = 4;
        return block ? vs_error_set(err, VS_EVALUE, "%s takes no block=", word) : 0;
    }
    return 1;
}

const char *vs_quant_format_name(const vs_quant *q, char *out, size_t cap)
{
    switch (q->method) {
    case VS_QUANT_GPTQ:
    case VS_QUANT_AWQ:
        if (q->group)
            snprintf(out, cap, "%s bits=%u group=%llu", q->method == VS_QUANT_GPTQ ? "gptq" : "awq",
                     q->bits, (unsigned long long)q->group);
        else
            snprintf(out, cap, "%s bits=%u", q->method == VS_QUANT_GPTQ ? "gptq" : "awq", q->bits);
        break;
    case VS_QUANT_BNB:
        snprintf(out, cap, "%s", q->bits == 8 ? "bnb-int8" : q->fp4 ? "bnb-fp4" : "bnb-nf4");
        break;
    case VS_QUANT_FP8:
        if (q->scale == VS_QUANT_SCALE_BLOCK && q->block[0] == q->block[1])
            snprintf(out, cap, "fp8 block=%llu", (unsigned long long)q->block[0]);
        else if (q->scale == VS_QUANT_SCALE_BLOCK)
            snprintf(out, cap, "fp8 block=%llux%llu", (unsigned long long)q->block[0],
                     (unsigned long long)q->block[1]);
        else
            snprintf(out, cap, "fp8 %s", q->scale == VS_QUANT_SCALE_CHANNEL ? "channel" : "tensor");
        break;
    case VS_QUANT_MXFP4:
        snprintf(out, cap, "mxfp4");
        break;
    case VS_QUANT_NVFP4:
        snprintf(out, cap, "nvfp4");
        break;
    default:
        snprintf(out, cap, "?");
    }
    return out;
}

int vs_quant_from_plain(vs_quant *q, const char *word)
{
    if (!word)
        return 1;
    /* bitsandbytes nf4 with double quantisation, as QLoRA sets it */
    if (!strcmp(word, "nf4") && !vs_quant_from_format(q, "bnb-nf4", 0, 0, 0, NULL, NULL)) {
        q->double_quant = 1;
        return 0;
    }
    /* LLM.int8: Int8Params._quantize keeps CB (int8 [out, in]) and SCB, the
     * float32 absmax of each row (int8_vectorwise_quant), bitsandbytes
     * nn/modules.py at 20e1677d */
    if (!strcmp(word, "int8"))
        return vs_quant_from_format(q, "bnb-int8", 0, 0, 0, NULL, NULL) ? 1 : 0;
    /* vLLM's online fp8 (a 16-bit checkpoint, quantization=fp8):
     * Fp8LinearMethod.process_weights_after_loading quantises each weight with
     * ops.scaled_fp8_quant(layer.weight, scale=None), one float32 scale per
     * tensor and no input scale (vllm/model_executor/layers/quantization/fp8.py
     * at 0071b24b) */
    if (!strcmp(word, "fp8")) {
        memset(q, 0, sizeof *q);
        dense_dtype(q, NULL);
        q->method = VS_QUANT_FP8;
        q->bits = 8;
        q->scale = VS_QUANT_SCALE_TENSOR;
        return 0;
    }
    return 1;
}

const char *vs_quant_plain_keeper(const vs_quant *q)
{
    if (q->method == VS_QUANT_FP8)
        return "vLLM's online Fp8LinearMethod (fp8 e4m3, a float32 scale per tensor)";
    if (q->bits == 8)
        return "bitsandbytes' LLM.int8 (int8, a float32 scale per row)";
    return "bitsandbytes (nf4 two a byte, double-quantised absmax)";
}
