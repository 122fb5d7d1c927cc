/* A throwaway model family for tests/extension: an embedding and one square
 * matrix per layer, no attention. Dropped into a scratch copy of the tree as
 * src/model/families/toyfam.c with one row in families.def. */
#include "model/families/fam.h"

static int toy_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_dim1(cfg, "n_layer", 1, 0, &a->layers, "toyfam rule", err)) < 0 ||
        (rc = vs_fam_dim1(cfg, "d_model", 1, 0, &a->hidden, "toyfam rule", err)) < 0 ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, "toyfam rule", err)) < 0)
        return rc;
    a->heads = a->kv_heads = 1;
    a->head_dim = a->hidden;
    return 0;
}

static int toy_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

static int toy_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, "");
    VS_T2(&e, "embed.weight", a->vocab, a->hidden);
    VS_L2(&e, "layers.{L}.w.weight", 0, a->layers, a->hidden, a->hidden);
    return e.rc;
}

static const char *const toy_types[] = {"toyfam", NULL};
static const char *const toy_archs[] = {"ToyForCausalLM", NULL};
static const char *const toy_keys[] = {"n_layer", "d_model", "vocab_size", NULL};
const vs_family vs_family_toyfam = {"toyfam",  toy_types, toy_archs,  toy_keys,
                                    toy_parse, toy_kv,    toy_tensors};
