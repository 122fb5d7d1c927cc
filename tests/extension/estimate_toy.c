/* A throwaway estimator for tests/extension: a scratch buffer of per_token
 * bytes (1 MiB by default) for every token of every sequence, length x
 * concurrency x per_token, that follows the card's length and concurrency.
 * Dropped into a scratch copy of the tree as src/lang/estimate_toy.c with one
 * row in lang/estimators.def. */
#include <stdio.h>

#include "lang/derive.h"
#include "lang/verbs_common.h"
#include "render/component.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"

static const char *const keys[] = {"per_token", NULL};

static const vs_estimator_info info = {
    "toy", keys, "estimate toy [per_token=1048576]",
    "a throwaway test estimator: per_token bytes for every token of every sequence"};

static const vs_derived_read reads[] = {{"length", NULL}, {"concurrency", NULL}, {NULL, NULL}};

static int run(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    uint64_t len, conc, per = 1048576, bytes;
    int rc, given = 0;
    char src[200];
    const char *names[1] = {"toy_buffer"};
    if ((rc = vs_line_check_keys(line, keys, err)) < 0 ||
        (rc = vs_line_get_uint(line, "per_token", 0, &per, &given, err)) < 0)
        return rc;
    if (!vs_sheet_card_uint(sheet, VS_CK_LENGTH, &len) ||
        !vs_sheet_card_uint(sheet, VS_CK_CONCURRENCY, &conc))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate toy` needs the card's length and concurrency");
    if (__builtin_mul_overflow(len, conc, &bytes) || __builtin_mul_overflow(bytes, per, &bytes))
        return vs_error_set(err, VS_EUNIT, "the toy buffer does not fit in 64-bit bytes");
    snprintf(src, sizeof src, "toy: %llu tokens x %llu sequences x %llu B = %llu B",
             (unsigned long long)len, (unsigned long long)conc, (unsigned long long)per,
             (unsigned long long)bytes);
    if ((rc = vs_sheet_set_component(sheet, names[0], 1, bytes,
                                     vs_vocab_status_name(VS_STATUS_ESTIMATED), src, NULL,
                                     vs_vocab_class_name(VS_CLASS_ACTIVATIONS), err)) < 0)
        return rc;
    return vs_verb_emit(ctx, vs_render_components(sheet, "toy", names, 1, src, NULL, NULL, NULL),
                        err);
}

const vs_estimator vs_estimator_row_toy = {&info, run, reads};
