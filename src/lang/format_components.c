/* format_components.c — `format WORD components=...` (see format_components.h). */
#include "lang/format_components.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lang/verbs_common.h"
#include "model/pipeline_quant.h"
#include "model/quant.h"
#include "render/card.h"
#include "util/buf.h"

int vs_format_components_apply(vs_ctx *ctx, const vs_line *line, const vs_arg *list, vs_error *err)
{
    const char *syntax = "format WORD components=A,B (WORD: bnb-nf4, bnb-fp4, bnb-int8, nf4, "
                         "int8, fp8-layerwise)";
    const vs_arg *a = vs_line_positional(line, 0), *k;
    const char *notes[3] = {NULL};
    char word[32], name[64], changed[1024];
    vs_buf head = VS_BUF_INIT;
    json_t *sheet;
    vs_quant q;
    int rc, layerwise;
    size_t i;

    if ((k = vs_line_pair(line, "bits")) || (k = vs_line_pair(line, "group")) ||
        (k = vs_line_pair(line, "block")))
        return vs_error_set_at(err, VS_EVALUE, k->line, k->column,
                               "components= takes no %s=: expected %s", k->key, syntax);
    if (!a || strlen(a->value) >= sizeof word)
        return vs_error_set_at(err, VS_EVALUE, a ? a->line : line->line,
                               a ? a->column : line->column, "expected %s", syntax);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    for (i = 0; a->value[i]; i++)
        word[i] = (char)tolower((unsigned char)a->value[i]);
    word[i] = '\0';
    layerwise = !strcmp(word, "fp8-layerwise");
    if (!layerwise && vs_quant_from_format(&q, word, 0, 0, 0, NULL, NULL) != 0 &&
        vs_quant_from_plain(&q, word) != 0)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "unknown format '%s' for components=: expected %s", a->value,
                               syntax);
    if (!layerwise && q.scheme != &vs_quant_scheme_bnb)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "components= quantises with bitsandbytes as diffusers' "
                               "PipelineQuantizationConfig does, or casts with "
                               "enable_layerwise_casting: expected %s, not %s",
                               syntax, a->value);
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    if (layerwise)
        snprintf(name, sizeof name, "fp8-layerwise");
    else
        vs_quant_format_name(&q, name, sizeof name);
    if ((rc = vs_pipeline_quantize(sheet, layerwise ? NULL : &q, name, list->value, changed,
                                   sizeof changed, err)) < 0)
        return vs_arg_error(list, err, rc);
    if (layerwise)
        vs_buf_printf(&head,
                      "format fp8-layerwise for %s: every nn.Linear and convolution stored in "
                      "float8_e4m3fn, cast to the compute dtype one layer at a time; the rest of "
                      "the pipeline as stored",
                      list->value);
    else
        vs_buf_printf(&head,
                      "format %s for %s: each nn.Linear weight as bitsandbytes stores it, the "
                      "rest of the pipeline as stored",
                      name, list->value);
    notes[0] = changed;
    notes[1] =
        layerwise
            ? "as diffusers' enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn) keeps "
              "them (hooks/layerwise_casting.py): weights and biases of nn.Linear and "
              "convolutions at 1 byte, but the modules DEFAULT_SKIP_MODULES_PATTERN names "
              "(pos_embed, patch_embed, norm, proj_in, proj_out) and what is under them; the "
              "layer being run holds a compute-dtype copy of its own weights besides, not "
              "counted"
            : "as diffusers' PipelineQuantizationConfig loads them: bitsandbytes replaces "
              "nn.Linear only (embeddings, norms, convolutions stay as stored); a transformers "
              "class keeps its _keep_in_fp32_modules in float32 under bitsandbytes (T5's wo: "
              "the quantizers set use_keep_in_fp32_modules); bnb-nf4 is BitsAndBytesConfig's "
              "default (an fp32 absmax per 64 values), nf4 adds the double quantisation";
    rc = vs_buf_failed(&head)
             ? vs_error_oom(err)
             : vs_verb_emit(
                   ctx, vs_render_card_line(sheet, "format", vs_buf_str(&head), notes, NULL), err);
    vs_buf_free(&head);
    return rc;
}
