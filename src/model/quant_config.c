/* The scheme table, and a quantization_config (or a `format` word) read
 * into a vs_quant (model/quant.h). The keys are the ones the loaders read:
 * transformers' utils/quantization_config.py (GPTQConfig, AwqConfig,
 * BitsAndBytesConfig, FineGrainedFP8Config, Mxfp4Config,
 * CompressedTensorsConfig, ModelOpt's hf_quant_config as vLLM's
 * ModelOptNvFp4Config.from_config reads it). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/quant.h"

/* The quant_method values the rows read, then the formats whose configs name
 * a row's scheme inside them (read here): "gptq, awq, ..., modelopt (nvfp4, fp8)". */
static const char *known_methods(char *out, size_t cap)
{
    size_t i, len = 0;
    const char *const *m;
    out[0] = '\0';
    for (i = 0; i < vs_quant_scheme_count(); i++)
        for (m = vs_quant_scheme_at(i)->methods; m && *m && len < cap; m++)
            len += (size_t)snprintf(out + len, cap - len, "%s, ", *m);
    if (len < cap)
        snprintf(out + len, cap - len, "compressed-tensors, modelopt (nvfp4, fp8)");
    return out;
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
        return vs_quant_cfg_bad(err, "compressed-tensors", "no config_groups with weights");
    type = json_string_value(json_object_get(w, "type"));
    strategy = json_string_value(json_object_get(w, "strategy"));
    bits = (unsigned)vs_quant_cfg_uint(w, "num_bits", 0);
    ia = json_object_get(g, "input_activations");
    vs_quant_keep_modules(q, json_object_get(qc, "ignore"));
    if (type && !strcmp(type, "float") && bits == 4) {
        q->scheme = &vs_quant_scheme_nvfp4;
        q->bits = 4;
        return 0;
    }
    if (type && !strcmp(type, "float") && bits == 8) {
        q->scheme = &vs_quant_scheme_fp8;
        q->bits = 8;
        q->static_input = json_is_object(ia) && !vs_quant_cfg_bool(ia, "dynamic", 0);
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
                return vs_quant_cfg_bad(err, "compressed-tensors",
                                        "block_structure must be two positive sizes");
        } else {
            q->scale = strategy && !strcmp(strategy, "channel") ? VS_QUANT_SCALE_CHANNEL
                                                                : VS_QUANT_SCALE_TENSOR;
        }
        return 0;
    }
    if (type && !strcmp(type, "int") && (bits == 4 || bits == 8 || bits == 2 || bits == 3)) {
        if (fmt && strstr(fmt, "pack-quantized")) {
            /* weight-only integers, packed: GPTQ's layout less its zeros */
            q->scheme = &vs_quant_scheme_gptq;
            q->ct = 1;
            q->bits = bits;
            q->sym = vs_quant_cfg_bool(w, "symmetric", 1);
            q->group = strategy && !strcmp(strategy, "group")
                           ? vs_quant_cfg_uint(w, "group_size", 128)
                           : 0;
            q->desc_act = json_is_string(json_object_get(w, "actorder"));
            return 0;
        }
        if (bits == 8) {
            /* w8a8 int8: one byte a weight, a float32 scale per row (as FP8 channel) */
            q->scheme = &vs_quant_scheme_fp8;
            q->bits = 8;
            q->scale = strategy && !strcmp(strategy, "tensor") ? VS_QUANT_SCALE_TENSOR
                                                               : VS_QUANT_SCALE_CHANNEL;
            q->static_input = json_is_object(ia) && !vs_quant_cfg_bool(ia, "dynamic", 0);
            snprintf(q->method_name, sizeof q->method_name, "compressed-tensors int8");
            return 0;
        }
    }
    return vs_quant_cfg_bad(
        err, "compressed-tensors",
        "the weights' scheme (type, num_bits, format) is none the loaders map here: float "
        "8 or 4 bits, int 2 to 8 bits pack-quantized, int 8");
}

int vs_quant_from_config(vs_quant *q, const json_t *cfg, vs_error *err)
{
    const json_t *qc = json_object_get(cfg, "quantization_config");
    const vs_quant_scheme *sc;
    const char *m, *dt;
    char known[256];
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
        return vs_error_set(err, VS_EVALUE,
                            "quantization_config has no quant_method; the known methods are %s",
                            known_methods(known, sizeof known));
    snprintf(q->method_name, sizeof q->method_name, "%s", m);
    vs_quant_keep_modules(q, json_object_get(qc, "modules_to_not_convert"));
    vs_quant_keep_modules(q, json_object_get(qc, "llm_int8_skip_modules"));
    vs_quant_keep_modules(q, json_object_get(qc, "exclude_modules"));
    if ((sc = vs_quant_scheme_of_method(m)) && sc->from_config)
        return sc->from_config(q, m, qc, err);
    if (!strcasecmp(m, "compressed-tensors"))
        return from_compressed(q, qc, err);
    if (!strcasecmp(m, "modelopt") || !strcasecmp(m, "modelopt_fp4") || !strcasecmp(m, "nvfp4")) {
        const char *algo = json_string_value(json_object_get(qc, "quant_algo"));
        if (algo && !strcasecmp(algo, "FP8")) {
            q->scheme = &vs_quant_scheme_fp8;
            q->bits = 8;
            q->static_input = 1; /* ModelOpt FP8 stores input_scale */
            return 0;
        }
        if (algo && strcasecmp(algo, "NVFP4"))
            return vs_quant_cfg_bad(err, m, "quant_algo must be NVFP4 or FP8");
        q->scheme = &vs_quant_scheme_nvfp4;
        q->bits = 4;
        return 0;
    }
    return vs_error_set(err, VS_EVALUE,
                        "quantization_config: unknown quant_method '%s'; the known methods are %s"
                        "; `model NAME params=N` with `format` sizes it by bits instead",
                        m, known_methods(known, sizeof known));
}

int vs_quant_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                         uint64_t block, const char *dense, vs_error *err)
{
    const vs_quant_scheme *sc = vs_quant_scheme_of_word(word);
    const vs_vocab_scheme *w;
    char taking[128];
    memset(q, 0, sizeof *q);
    dense_dtype(q, dense);
    if (!sc)
        return 1;
    for (w = sc->words; strcmp(w->word, word); w++)
        ;
    if ((bits || group) && !strstr(w->keys, "bits="))
        return vs_error_set(err, VS_EVALUE,
                            "%s has fixed bits and blocks: bits= and group= go with %s", word,
                            vs_quant_scheme_words(taking, sizeof taking, "bits=", " and "));
    return sc->from_format(q, word, bits, group, block, err);
}

const char *vs_quant_format_name(const vs_quant *q, char *out, size_t cap)
{
    if (!q->scheme)
        snprintf(out, cap, "?");
    else
        q->scheme->format_name(q, out, cap);
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
        q->scheme = &vs_quant_scheme_fp8;
        q->bits = 8;
        q->scale = VS_QUANT_SCALE_TENSOR;
        return 0;
    }
    return 1;
}

const char *vs_quant_plain_keeper(const vs_quant *q)
{
    if (q->scheme == &vs_quant_scheme_fp8)
        return "vLLM's online Fp8LinearMethod (fp8 e4m3, a float32 scale per tensor)";
    if (q->bits == 8)
        return "bitsandbytes' LLM.int8 (int8, a float32 scale per row)";
    return "bitsandbytes (nf4 two a byte, double-quantised absmax)";
}
