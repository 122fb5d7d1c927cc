/* llama.cpp's compute buffer: the peak of three phases of one ubatch's graph. */
#include "engine/llamacpp_compute.h"

#include <stdio.h>
#include <string.h>

#include "engine/llamacpp.h"
#include "engine/llamacpp_arch.h"
#include "sheet/units.h"

/* the GGUF architectures whose MLP has no gate (one up projection, then an
 * activation): src/models/<arch>.cpp build an ffn with LLM_FFN_GELU and no gate */
static int ungated(const char *family)
{
    static const char *const names[] = {"starcoder2", "gpt2", "starcoder", "falcon", "bloom",
                                        "gptneox",    "phi2", "bert",      "t5"};
    const vs_llamacpp_arch *a = vs_llamacpp_arch_find(family);
    const char *n = a ? a->name : family;
    size_t i;
    for (i = 0; n && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(n, names[i]))
            return 1;
    return 0;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

int vs_llamacpp_compute_estimate(vs_runtime_estimate *out, char *rule, size_t rule_size,
                                 const vs_engine_env *e, const vs_llamacpp_shapes *s, vs_error *err)
{
    const vs_engine_val *fa = vs_engine_get(e, "flash_attn");
    uint64_t cells = 0, ub = 0, width, out_b, attn, mlp, mask, peak;
    int fa_off = fa && fa->word && !strcmp(fa->word, "off");
    char a[32], b[32], c[32];
    memset(out, 0, sizeof *out);
    if (!s->vocab || !s->hidden || !s->heads || !s->intermediate)
        return vs_error_set(err, VS_EVALUE,
                            "the compute buffer needs the model's vocabulary, hidden size, heads "
                            "and intermediate size: `model NAME config=PATH`");
    vs_llamacpp_compute_cells(e, &cells, &ub);
    width = s->intermediate * (s->experts_per_token ? s->experts_per_token : 1);
    mask = cells * ub * (fa_off ? 4 : 2);
    out_b = s->vocab * ub * 4 + 2 * ub * s->hidden * 4;
    attn = mask + (fa_off ? cells * ub * s->heads * 4 : 0) + 4 * ub * s->hidden * 4;
    mlp = mask + (ungated(e->family) ? 2 : 3) * ub * width * 4 + 4 * ub * s->hidden * 4;
    peak = max3(out_b, attn, mlp);
    out->bytes = (peak / 100 * 110 + (peak % 100) * 110 / 100 + (1u << 20) - 1) >> 20 << 20;
    out->error = 0.22;
    vs_units_round(a, sizeof a, out_b, VS_UNIT_MIB, 2);
    vs_units_round(b, sizeof b, attn, VS_UNIT_MIB, 2);
    vs_units_round(c, sizeof c, mlp, VS_UNIT_MIB, 2);
    snprintf(rule, rule_size,
             "llama.cpp's compute buffer: 1.10 x the largest of the output (%s MiB), attention "
             "(%s MiB) and MLP (%s MiB) phases of one ubatch of %llu tokens over %llu cells "
             "(ruled on 35 llama-fit-params runs at 0c1e570: 1.02 to 1.22 times theirs, 2.0 "
             "where the card's intermediate size is not the experts')",
             a, b, c, (unsigned long long)ub, (unsigned long long)cells);
    out->rule = rule;
    return 0;
}

static uint64_t arch_uint(const json_t *arch, const char *key)
{
    const json_t *v = json_object_get(arch, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

int vs_llamacpp_compute_runtime(vs_runtime_estimate *out, char *rule, size_t rule_size,
                                const vs_engine_env *e, const json_t *arch, vs_error *err)
{
    vs_llamacpp_shapes sh;
    sh.vocab = arch_uint(arch, "vocab");
    sh.hidden = arch_uint(arch, "hidden");
    sh.heads = arch_uint(arch, "heads");
    sh.intermediate = arch_uint(arch, "intermediate");
    sh.experts_per_token = arch_uint(arch, "experts_per_token");
    return vs_llamacpp_compute_estimate(out, rule, rule_size, e, &sh, err);
}
