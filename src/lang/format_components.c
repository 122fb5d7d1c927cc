/* format_components.c — `format WORD components=...` (see format_components.h). */
#include "lang/format_components.h"

#include <stdio.h>
#include <string.h>

#include "lang/verbs_common.h"
#include "model/pipeline_quant.h"
#include "model/quant.h"
#include "render/card.h"
#include "util/buf.h"

int vs_format_components_apply(vs_ctx *ctx, const vs_line *line, const char *word,
                               const vs_arg *list, vs_error *err)
{
    const vs_arg *a = vs_line_positional(line, 0);
    const char *notes[3] = {NULL};
    char name[64], changed[1024];
    vs_buf head = VS_BUF_INIT;
    json_t *sheet;
    vs_quant q;
    int rc;

    if (!word || (vs_quant_from_format(&q, word, 0, 0, 0, NULL, NULL) != 0 &&
                  vs_quant_from_plain(&q, word) != 0))
        return vs_error_set_at(err, VS_EVALUE, a ? a->line : line->line,
                               a ? a->column : line->column,
                               "components= goes with a bitsandbytes word (bnb-nf4, bnb-fp4, "
                               "bnb-int8, nf4, int8): `format bnb-nf4 components=transformer`");
    if (!(sheet = vs_verb_sheet_of(ctx, err)))
        return VS_ENOMEM;
    vs_quant_format_name(&q, name, sizeof name);
    if ((rc = vs_pipeline_quantize(sheet, &q, name, list->value, changed, sizeof changed, err)) < 0)
        return vs_arg_error(q.method == VS_QUANT_BNB ? list : a, err, rc);
    vs_buf_printf(&head,
                  "format %s for %s: each nn.Linear weight as bitsandbytes stores it, the "
                  "rest of the pipeline as stored",
                  name, list->value);
    notes[0] = changed;
    notes[1] = "as diffusers' PipelineQuantizationConfig loads them: bitsandbytes replaces "
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
