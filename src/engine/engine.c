/* The table of engines, their keys, and the arithmetic they share. */
#include "engine/engine.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"

#define VS_ENGINE(name) extern const vs_engine vs_engine_##name;
#include "engine/engines.def"
#undef VS_ENGINE

const vs_engine *const vs_engines[] = {
#define VS_ENGINE(name) &vs_engine_##name,
#include "engine/engines.def"
#undef VS_ENGINE
    NULL};

static const char *const rt_names[VS_RT_COUNT] = {"non_torch",   "activation_peak",
                                                  "cuda_graphs", "encoder_profile",
                                                  "draft_model", "lora_adapters"};

unsigned vs_engine_items(const vs_engine_env *env)
{
    const vs_engine_val *spec = vs_engine_get(env, "num_speculative_tokens"),
                        *lora = vs_engine_get(env, "max_loras");
    unsigned bits = env->engine ? env->engine->runtime : 0;
    if (spec && spec->set && spec->u)
        bits |= VS_RT_BIT(VS_RT_DRAFT_MODEL);
    if (lora && lora->set && lora->u)
        bits |= VS_RT_BIT(VS_RT_LORA);
    return bits;
}

const char *vs_runtime_item_source(vs_runtime_item i)
{
    switch (i) {
    case VS_RT_DRAFT_MODEL:
        return "speculative decoding's draft: its weights (EAGLE: its extra decoder layers, "
               "vllm/v1/spec_decode/eagle.py; a draft model, draft_model.py) loaded beside the "
               "target's, and its own KV layers in the same pool; unknown until measured or "
               "declared";
    case VS_RT_LORA:
        return "LoRA serving: max_loras adapter slots of max_lora_rank, an A and a B matrix per "
               "target layer allocated at load (vllm/lora/layers.py create_lora_weights, "
               "vllm/lora/models.py LoRAModelManager), and the profiling pass's dummy adapters; "
               "unknown until measured or declared";
    default:
        return NULL;
    }
}

const char *vs_runtime_item_name(vs_runtime_item i)
{
    return (unsigned)i < VS_RT_COUNT ? rt_names[i] : "?";
}

int vs_runtime_item_find(vs_runtime_item *item, const char *name)
{
    int i;
    for (i = 0; name && i < VS_RT_COUNT; i++)
        if (!strcmp(rt_names[i], name)) {
            *item = (vs_runtime_item)i;
            return 1;
        }
    return 0;
}

const vs_engine *vs_engine_find(const char *name)
{
    size_t i, j;
    if (!name)
        return NULL;
    for (i = 0; vs_engines[i]; i++)
        if (!strcmp(vs_engines[i]->name, name))
            return vs_engines[i];
    /* the engines' own spellings */
    for (i = 0; vs_engines[i]; i++)
        for (j = 0; vs_engines[i]->aliases && vs_engines[i]->aliases[j]; j++)
            if (!strcmp(vs_engines[i]->aliases[j], name))
                return vs_engines[i];
    return NULL;
}

const vs_engine *vs_engine_default(void)
{
    return &vs_engine_none;
}

int vs_engine_key_index(const vs_engine *engine, const char *name, size_t *index)
{
    size_t i;
    for (i = 0; engine && name && engine->keys[i].name; i++)
        if (!strcmp(engine->keys[i].name, name)) {
            *index = i;
            return 1;
        }
    return 0;
}

/* A decimal in (0, 1] with at most six decimals, as parts per million. */
static int parse_fraction(uint64_t *ppm, const char *s)
{
    uint64_t whole = 0, frac = 0, scale = 100000;
    const char *p = s;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > 1)
            return -1;
        p++, digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (scale == 0)
                return -1; /* more than six decimals */
            frac += (uint64_t)(*p - '0') * scale;
            scale /= 10;
            p++, digits++;
        }
    }
    if (*p || !digits)
        return -1;
    *ppm = whole * 1000000 + frac;
    return *ppm == 0 || *ppm > 1000000 ? -1 : 0;
}

int vs_engine_key_parse(vs_engine_val *out, const vs_engine_key *key, const char *text,
                        vs_error *err)
{
    size_t i;
    memset(out, 0, sizeof *out);
    if (!text)
        text = "";
    switch (key->kind) {
    case VS_EKEY_FRACTION:
        if (parse_fraction(&out->u, text) < 0)
            return vs_error_set(err, VS_EVALUE,
                                "%s=%s: expected a fraction of the memory above 0 and at most 1, "
                                "with up to six decimals (e.g. %s=0.9)",
                                key->name, text, key->name);
        break;
    case VS_EKEY_COUNT: {
        int rc = vs_units_parse_count(&out->u, text, err);
        if (rc < 0) {
            vs_error_prefix(err, "%s=: ", key->name);
            return rc;
        }
        if (out->u == 0)
            return vs_error_set(err, VS_EVALUE, "%s=: expected a count of at least 1", key->name);
        break;
    }
    case VS_EKEY_BYTES: {
        int rc = vs_units_parse_bytes(&out->u, text, err);
        if (rc < 0) {
            vs_error_prefix(err, "%s=: ", key->name);
            return rc;
        }
        break;
    }
    case VS_EKEY_BOOL:
        if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "1") ||
            !strcmp(text, "on"))
            out->u = 1;
        else if (!strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "0") ||
                 !strcmp(text, "off"))
            out->u = 0;
        else
            return vs_error_set(err, VS_EVALUE, "%s=%s: expected yes or no", key->name, text);
        break;
    case VS_EKEY_WORD:
        for (i = 0; key->words && key->words[i]; i++)
            if (!strcmp(key->words[i], text)) {
                out->word = key->words[i];
                break;
            }
        if (!out->word) {
            vs_buf b = VS_BUF_INIT;
            for (i = 0; key->words && key->words[i]; i++)
                vs_buf_printf(&b, "%s%s", i ? ", " : "", key->words[i]);
            vs_error_set(err, VS_EVALUE, "%s=%s: expected one of %s", key->name, text,
                         vs_buf_str(&b));
            vs_buf_free(&b);
            return VS_EVALUE;
        }
        break;
    }
    out->set = 1;
    return 0;
}

int vs_engine_resolve(vs_engine_env *env, const vs_engine *engine, const json_t *keys,
                      vs_error *err)
{
    const char *k;
    json_t *v;
    int i, rc;
    env->engine = engine;
    memset(env->val, 0, sizeof env->val);
    json_object_foreach((json_t *)keys, k, v)
    {
        size_t idx;
        if (!vs_engine_key_index(engine, k, &idx)) {
            vs_buf b = VS_BUF_INIT;
            for (i = 0; engine->keys[i].name; i++)
                vs_buf_printf(&b, "%s%s=", i ? " " : "", engine->keys[i].name);
            vs_error_set(err, VS_EVALUE, "engine %s has no key %s=; its keys: %s", engine->name, k,
                         engine->keys[0].name ? vs_buf_str(&b) : "(none)");
            vs_buf_free(&b);
            return VS_EVALUE;
        }
        if (!json_is_string(v))
            return vs_error_set(err, VS_EFORMAT, "engine key %s: expected the text as written", k);
        if ((rc = vs_engine_key_parse(&env->val[idx], &engine->keys[idx], json_string_value(v),
                                      err)) < 0)
            return rc;
        env->val[idx].given = 1;
    }
    for (i = 0; i < VS_ENGINE_KEYS_MAX && engine->keys[i].name; i++) {
        if (env->val[i].set || !engine->keys[i].def)
            continue;
        if ((rc = vs_engine_key_parse(&env->val[i], &engine->keys[i], engine->keys[i].def, err)) <
            0)
            return rc; /* a table error: the tests parse every default */
    }
    return 0;
}

const vs_engine_val *vs_engine_get(const vs_engine_env *e, const char *name)
{
    size_t i;
    return vs_engine_key_index(e->engine, name, &i) ? &e->val[i] : NULL;
}

uint64_t vs_engine_fraction_floor(uint64_t bytes, uint64_t ppm)
{
    const uint64_t M = 1000000;
    /* (q M + r) ppm / M = q ppm + r ppm / M; r ppm < 10^12 */
    return bytes / M * ppm + bytes % M * ppm / M;
}

uint64_t vs_engine_fraction_ceil(uint64_t bytes, uint64_t ppm)
{
    const uint64_t M = 1000000;
    uint64_t r = bytes % M * ppm;
    return bytes / M * ppm + r / M + (r % M ? 1 : 0);
}

unsigned vs_engine_model_bits(const vs_engine_env *e)
{
    return e->weight_bits_known && e->weight_bits == 32 ? 32 : 16;
}

int vs_engine_kv_bits(const char *word, unsigned auto_bits, unsigned *bits)
{
    vs_vocab_format f;
    unsigned b;
    if (!word || !strcmp(word, "auto"))
        b = auto_bits;
    else if (!vs_vocab_format_parse(&f, &b, word, NULL) && f != VS_FORMAT_BITS &&
             f != VS_FORMAT_SCHEME && b >= 8) {
        /* a weight format's name of 8 bits or more (the 4-bit ones name no cache dtype) */
    } else if (!strcmp(word, "f32") || !strcmp(word, "float32")) /* the engines' own spellings */
        b = 32;
    else if (!strcmp(word, "f16") || !strcmp(word, "float16") || !strcmp(word, "bfloat16"))
        b = 16;
    else if (!strncmp(word, "fp8", 3))
        b = 8;
    else
        /* ggml's q8_0 keeps 34 bytes per 32 values (ggml-common.h block sizes): a
         * fraction of a bit more than 8, which the llama.cpp profile handles */
        return 0;
    *bits = b;
    return 1;
}

int vs_engine_layout_bytes(uint64_t *out, const vs_engine_env *e, uint64_t length,
                           uint64_t concurrency, unsigned bits, vs_error *err)
{
    vs_kv_dims d;
    memset(&d, 0, sizeof d);
    d.length = length;
    d.concurrency = concurrency;
    d.bits = bits;
    d.tp = e->tp ? e->tp : 1;
    return vs_kv_layout_bytes(out, NULL, NULL, &e->layout, &d, err);
}

uint64_t vs_engine_max_length(uint64_t cap, int (*fits)(const void *data, uint64_t length),
                              const void *data)
{
    uint64_t lo = 0, hi = cap; /* fits(lo) holds (0 tokens always fit) */
    if (cap == 0 || !fits(data, 1))
        return 0;
    lo = 1;
    if (fits(data, hi))
        return hi;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (fits(data, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

typedef struct tokfit {
    const vs_engine_env *e;
    unsigned bits;
    uint64_t block, pool, fixed;
    int vary_len;
    uint64_t (*extra)(const vs_engine_env *e, uint64_t length);
} tokfit;

/* KV bytes of conc sequences of len tokens, rounded to blocks of full-layer tokens. */
static int tok_bytes(uint64_t *out, const tokfit *t, uint64_t len, uint64_t conc)
{
    vs_error err;
    uint64_t l = t->block > 1 ? (len + t->block - 1) / t->block * t->block : len, b, x = 0;
    if (vs_engine_layout_bytes(&b, t->e, l, conc, t->bits, &err) < 0)
        return -1;
    if (t->extra && (vs_units_mul(&x, t->extra(t->e, len), conc) < 0 || vs_units_add(&b, b, x) < 0))
        return -1;
    *out = b;
    return 0;
}

static int tok_fits(const void *data, uint64_t x)
{
    const tokfit *t = data;
    uint64_t b;
    if (tok_bytes(&b, t, t->vary_len ? x : t->fixed, t->vary_len ? t->fixed : x) < 0)
        return 0;
    return b <= t->pool;
}

int vs_engine_token_kv(const vs_engine_env *e, uint64_t pool, unsigned bits, uint64_t block,
                       uint64_t (*extra_per_seq)(const vs_engine_env *e, uint64_t length),
                       vs_engine_kv *out, vs_error *err)
{
    tokfit t;
    uint64_t per_token = 0, one = 0;
    int rc;
    memset(&t, 0, sizeof t);
    t.e = e;
    t.bits = bits;
    t.block = block ? block : 1;
    t.pool = pool;
    t.extra = extra_per_seq;
    if ((rc = vs_engine_layout_bytes(&per_token, e, 1, 1, bits, err)) < 0)
        return rc;
    if (per_token && per_token * t.block / t.block == per_token)
        out->kv_tokens = pool / (per_token * t.block) * t.block;
    if (t.block > 1 && per_token && per_token * t.block / t.block == per_token) {
        out->page_bytes = per_token * t.block;
        out->blocks = pool / out->page_bytes;
    }
    if (e->length_known && e->length) {
        if (tok_bytes(&one, &t, e->length, 1) < 0)
            return vs_error_set(err, VS_EUNIT, "the KV cache of one sequence overflows");
        if (e->concurrency_known && tok_bytes(&out->need_bytes, &t, e->length, e->concurrency) == 0)
            out->need_known = 1;
        if (t.block > 1 && out->blocks)
            out->max_concurrency =
                (double)out->blocks / (double)((e->length + t.block - 1) / t.block);
        else
            out->max_concurrency = one ? (double)pool / (double)one : 0;
    }
    t.fixed = e->concurrency_known && e->concurrency ? e->concurrency : 1;
    t.vary_len = 1;
    out->max_length = vs_engine_max_length((uint64_t)1 << 26, tok_fits, &t);
    return 0;
}
