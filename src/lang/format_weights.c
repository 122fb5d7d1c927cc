/* One format's weights on the card's model (lang/format_weights.h). */
#include "lang/format_weights.h"

#include <stdio.h>
#include <string.h>

#include "model/gguf.h"
#include "model/model.h"
#include "model/quant.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"

int vs_format_weights_takes(const char *word, const char *key)
{
    const vs_quant_scheme *sc = vs_quant_scheme_of_word(word);
    const vs_vocab_scheme *w;
    char k[16];
    if (!sc || !key || snprintf(k, sizeof k, "%s=", key) >= (int)sizeof k)
        return 0;
    /* the keys the word's row lists ("bits=N group=G", "block=N, channel or tensor") */
    for (w = sc->words; strcmp(w->word, word); w++)
        ;
    return strstr(w->keys, k) != NULL;
}

static int unknown(const char *word, vs_error *err)
{
    char words[400];
    return vs_error_set(err, VS_EVALUE,
                        "unknown format '%s'; expected a plain width (fp32 fp16 bf16 fp8 int8 "
                        "int4 nf4 fp4, bits=N), a scheme (%s), a GGUF type (q4_k q6_k q8_0 ...) "
                        "or a llama.cpp file type (q4_k_m q5_k_m ...): `help format` lists them",
                        word, vs_quant_scheme_words(words, sizeof words, NULL, " "));
}

int vs_format_weights_of(const json_t *sheet, const char *word, const vs_format_keys *keys,
                         vs_format_weights *out, vs_error *err)
{
    static const vs_format_keys none = {0, 0, 0};
    vs_vocab_format f;
    uint64_t params = 0;
    int have_params = vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params), rc;
    const vs_vocab_scheme *sc = vs_vocab_scheme_of(word);
    vs_quant q;
    memset(out, 0, sizeof *out);
    if (!keys)
        keys = &none;
    snprintf(out->name, sizeof out->name, "%s", word);
    /* a safetensors scheme: summed over the tensor list as the loader keeps it */
    if (sc && !strcmp(sc->family, "safetensors") &&
        (rc = vs_quant_from_format(&q, word, keys->bits, keys->group, keys->block, NULL, err)) !=
            1) {
        if (rc < 0)
            return rc;
        vs_quant_format_name(&q, out->name, sizeof out->name);
        out->bits = q.bits;
        snprintf(out->basis, sizeof out->basis, "tensor by tensor, as the loader keeps it");
        return vs_quant_format_bytes(sheet, &q, &out->bytes, err);
    }
    if (keys->bits || keys->group || keys->block) {
        char with_bits[200], with_block[200];
        return vs_error_set(
            err, VS_EVALUE, "`%s` takes no keys: bits= and group= go with %s, block= with %s", word,
            vs_quant_scheme_words(with_bits, sizeof with_bits, "bits=", " and "),
            vs_quant_scheme_words(with_block, sizeof with_block, "block=", " and "));
    }
    if (!have_params)
        return vs_error_set(err, VS_EVALUE,
                            "`%s` needs the card's parameter count (`model NAME params=COUNT` or "
                            "config=PATH)",
                            word);
    /* nf4, int8, fp8 over a tensor list: the loader's layout, as `format` sums it */
    if (vs_quant_from_plain(&q, word) == 0 &&
        json_is_string(json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), "config"))) {
        out->bits = q.bits;
        snprintf(out->basis, sizeof out->basis, "tensor by tensor, as %s keeps it",
                 vs_quant_plain_keeper(&q));
        return vs_quant_format_bytes(sheet, &q, &out->bytes, err);
    }
    /* a plain width, bits=N */
    if (vs_vocab_format_parse(&f, &out->bits, word, NULL) == 0 && f != VS_FORMAT_SCHEME)
        return vs_envelope_weights_bytes(&out->bytes, params, out->bits, err);
    /* a GGUF type or a llama.cpp file type */
    if (!vs_gguf_type_by_name(word) && vs_gguf_ftype_parse(word) < 0)
        return unknown(word, err);
    rc = vs_model_gguf_format_row(sheet, word, params, &out->bits, out->bits_text,
                                  sizeof out->bits_text, out->basis, sizeof out->basis, &out->bytes,
                                  err);
    return rc == 1 ? unknown(word, err) : rc;
}
