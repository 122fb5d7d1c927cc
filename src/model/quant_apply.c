/* The card after a quantised config.json or a scheme named by `format`
 * (model/quant.h): card.format, card.bits and weights_files from the tally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quant.h"
#include "sheet/sheet_access.h"
#include "sheet/units.h"

static int load_arch(const char *path, json_t **root, vs_arch **a, vs_error *err)
{
    json_error_t je;
    int rc;
    *a = NULL;
    if (!(*root = json_load_file(path, 0, &je)))
        return vs_error_set(err, VS_EIO, "%s cannot be read now (%s); `model` it again", path,
                            je.text);
    if (!(*a = calloc(1, sizeof **a))) {
        json_decref(*root);
        return vs_error_oom(err);
    }
    if ((rc = vs_arch_from_json(*a, *root, err))) {
        json_decref(*root);
        free(*a);
        *a = NULL;
    }
    return rc;
}

static int set_card(json_t *sheet, const vs_quant *q, json_t *wf, vs_error *err)
{
    json_t *card = vs_sheet_get(sheet, VS_SK_CARD);
    char name[48];
    vs_quant_format_name(q, name, sizeof name);
    if (json_object_set_new(card, "format", json_string(name)) ||
        json_object_set_new(card, "bits", json_integer(q->bits)) ||
        json_object_set_new(sheet, "weights_files", wf))
        return vs_error_oom(err);
    return 0;
}

int vs_quant_apply_config(json_t *sheet, const char *path, const char **note, vs_error *err)
{
    static char line[320];
    json_t *root, *wf = NULL;
    vs_arch *a;
    vs_quant q;
    int rc;
    char desc[96], name[48];
    if (note)
        *note = NULL;
    if ((rc = load_arch(path, &root, &a, err)))
        return rc;
    rc = vs_quant_from_config(&q, root, err);
    json_decref(root);
    if (rc == 0)
        rc = vs_quant_tally(&q, a, vs_quant_engine_of(sheet), &wf, err);
    free(a);
    if (rc == 1) {
        /* a config without one: a tally from an earlier quantised config no longer holds */
        const char *sc =
            json_string_value(json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "scheme"));
        if (sc && strstr(sc, "from quantization_config") &&
            json_object_set_new(sheet, "weights_files", json_null()))
            return vs_error_oom(err);
        return 0;
    }
    if (rc)
        return rc;
    if ((rc = set_card(sheet, &q, wf, err)))
        return rc;
    vs_units_describe(desc, sizeof desc,
                      (uint64_t)json_integer_value(json_object_get(wf, "bytes")));
    snprintf(line, sizeof line,
             "format %s, from quantization_config (%s): weights %s, tensor by tensor as the loader "
             "keeps them (`weights` lists the tensors kept in %s)",
             vs_quant_format_name(&q, name, sizeof name), q.method_name, desc, q.dense_dtype);
    if (note)
        *note = line;
    return 0;
}

int vs_quant_apply_format(json_t *sheet, const vs_quant *q, vs_error *err)
{
    const char *cfg =
        json_string_value(json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), "config"));
    json_t *root, *wf = NULL;
    vs_arch *a;
    int rc;
    if (!cfg)
        return 1;
    if ((rc = load_arch(cfg, &root, &a, err)))
        return rc;
    json_decref(root);
    rc = vs_quant_tally(q, a, vs_quant_engine_of(sheet), &wf, err);
    free(a);
    if (rc)
        return rc;
    return set_card(sheet, q, wf, err);
}

int vs_quant_format_bytes(const json_t *sheet, const vs_quant *q, uint64_t *bytes, vs_error *err)
{
    const char *cfg =
        json_string_value(json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), "config"));
    json_t *root, *wf = NULL;
    vs_arch *a;
    char name[64];
    int rc;
    if (!cfg)
        return vs_error_set(err, VS_EVALUE,
                            "`%s` is summed over the tensor list, so the card needs the "
                            "architecture (`model NAME config=PATH`)",
                            vs_quant_format_name(q, name, sizeof name));
    if ((rc = load_arch(cfg, &root, &a, err)))
        return rc;
    json_decref(root);
    rc = vs_quant_tally(q, a, vs_quant_engine_of(sheet), &wf, err);
    free(a);
    if (rc)
        return rc;
    *bytes = (uint64_t)json_integer_value(json_object_get(wf, "bytes"));
    json_decref(wf);
    return 0;
}

/* The card's format text as `format` wrote it ("gptq bits=4 group=128",
 * "fp8 block=128") into a scheme; 1 when it names none (a llama.cpp file
 * type, a plain width). */
static int quant_of_format(vs_quant *q, const char *fmt, const char *dense, vs_error *err)
{
    char word[32];
    const char *p;
    uint64_t bits = 0, group = 0, block = 0;
    size_t n = strcspn(fmt, " ");
    if (n >= sizeof word)
        return 1;
    memcpy(word, fmt, n);
    word[n] = '\0';
    if ((p = strstr(fmt, " bits=")))
        bits = strtoull(p + 6, NULL, 10);
    if ((p = strstr(fmt, " group=")))
        group = strtoull(p + 7, NULL, 10);
    if ((p = strstr(fmt, " block=")))
        block = strtoull(p + 7, NULL, 10);
    /* nf4, int8, fp8: the plain words' schemes, as `format` summed them */
    if (!strcmp(fmt, word) && vs_quant_from_plain(q, word) == 0)
        return 0;
    if (!strcmp(word, "fp8") && !block)
        return 1; /* fp8 channel / tensor come from a config only */
    return vs_quant_from_format(q, word, bits, group, block, dense, err);
}

int vs_quant_follow_engine(json_t *sheet, uint64_t *before, uint64_t *after, vs_error *err)
{
    json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), *root, *nwf = NULL;
    const char *scheme = json_string_value(json_object_get(wf, "scheme"));
    const char *cfg =
        json_string_value(json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), "config"));
    const char *fmt = vs_sheet_card_str(sheet, VS_CK_FORMAT);
    vs_arch *a;
    vs_quant q;
    int rc;
    if (!scheme || !cfg || !fmt)
        return 0;
    if ((rc = load_arch(cfg, &root, &a, err)))
        return rc;
    if (strstr(scheme, "from quantization_config"))
        rc = vs_quant_from_config(&q, root, err);
    else
        rc = quant_of_format(&q, fmt, NULL, err); /* as `format` named it */
    json_decref(root);
    if (rc == 0)
        rc = vs_quant_tally(&q, a, vs_quant_engine_of(sheet), &nwf, err);
    free(a);
    if (rc)
        return rc < 0 ? rc : 0;
    *before = (uint64_t)json_integer_value(json_object_get(wf, "bytes"));
    *after = (uint64_t)json_integer_value(json_object_get(nwf, "bytes"));
    if (*before == *after &&
        json_equal(json_object_get(wf, "scheme"), json_object_get(nwf, "scheme"))) {
        json_decref(nwf);
        return 0;
    }
    if (json_object_set_new(sheet, "weights_files", nwf))
        return vs_error_oom(err);
    return *before != *after;
}

const char *vs_quant_kept_line(const json_t *sheet, char *out, size_t cap)
{
    const json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    const json_t *other = json_object_get(wf, "other_dtype"), *r;
    size_t i, o, shown = 0;
    uint64_t rest = 0, total = 0;
    char g[32];
    if (!json_is_string(json_object_get(wf, "scheme")) || !json_is_array(other) || !cap)
        return NULL;
    o = (size_t)snprintf(out, cap, "kept unquantised:");
    json_array_foreach(other, i, r)
    {
        uint64_t b = (uint64_t)json_integer_value(json_object_get(r, "bytes"));
        total += b;
        /* the first rows by name (embeddings, lm_head, norms); the rest summed */
        if (shown < 4 && o < cap) {
            vs_units_grouped(g, sizeof g, b);
            o += (size_t)snprintf(out + o, cap - o, "%s %s (%s) %s B", shown ? "," : "",
                                  json_string_value(json_object_get(r, "pattern")),
                                  json_string_value(json_object_get(r, "dtype")), g);
            shown++;
        } else {
            rest += b;
        }
    }
    if (!shown)
        return NULL;
    if (rest && o < cap) {
        vs_units_grouped(g, sizeof g, rest);
        o += (size_t)snprintf(out + o, cap - o, ", %zu more rows %s B",
                              json_array_size(other) - shown, g);
    }
    if (o < cap) {
        vs_units_grouped(g, sizeof g, total);
        snprintf(out + o, cap - o, "; %s B in all (`weights` lists them)", g);
    }
    return out;
}
