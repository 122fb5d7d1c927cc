/* BERT: an encoder only, so no KV cache. Tensor names as transformers'
 * modeling_bert.py stores them: the encoder with its pooler, and for the
 * checkpoints published with their pre-training heads (architectures
 * BertForPreTraining or BertForMaskedLM, e.g. google-bert/bert-base-uncased)
 * the masked-LM transform and bias (its decoder tied to the word embeddings)
 * and the next-sentence head. */
#include <string.h>

#include "model/families/fam.h"

enum { BERT_HEADS = 1 };

static int bert_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const char *arch = json_string_value(json_array_get(json_object_get(cfg, "architectures"), 0));
    int rc;
    if ((rc = vs_fam_dim1(cfg, "num_hidden_layers", 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_attention_heads", 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "intermediate_size", 1, 0, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "max_position_embeddings", 0, 512, &a->positions, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "type_vocab_size", 0, 2, &a->type_vocab, a->rule, err)))
        return rc;
    if (a->hidden % a->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "hidden_size %llu is not a multiple of num_attention_heads %llu",
                            (unsigned long long)a->hidden, (unsigned long long)a->heads);
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->tied_embeddings = 1;
    if (arch && (!strcmp(arch, "BertForPreTraining") || !strcmp(arch, "BertForMaskedLM")))
        a->flags = BERT_HEADS;
    return 0;
}

static int bert_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    vs_kv_group g;
    (void)cfg;
    memset(&a->kv, 0, sizeof a->kv);
    memset(&g, 0, sizeof g);
    g.kind = VS_KV_NONE;
    g.layers = a->layers;
    return vs_kv_layout_add(&a->kv, &g, err);
}

static int bert_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, i = a->intermediate, L = a->layers;
    static const char *const lin[][2] = {{"encoder.layer.{L}.attention.self.query.weight",
                                          "encoder.layer.{L}.attention.self.query.bias"},
                                         {"encoder.layer.{L}.attention.self.key.weight",
                                          "encoder.layer.{L}.attention.self.key.bias"},
                                         {"encoder.layer.{L}.attention.self.value.weight",
                                          "encoder.layer.{L}.attention.self.value.bias"},
                                         {"encoder.layer.{L}.attention.output.dense.weight",
                                          "encoder.layer.{L}.attention.output.dense.bias"}};
    size_t k;
    vs_fam_emit_init(&e, cb, ud, "bert.");
    VS_T2(&e, "embeddings.word_embeddings.weight", a->vocab, h);
    VS_T2(&e, "embeddings.position_embeddings.weight", a->positions, h);
    VS_T2(&e, "embeddings.token_type_embeddings.weight", a->type_vocab, h);
    VS_T1(&e, "embeddings.LayerNorm.weight", h);
    VS_T1(&e, "embeddings.LayerNorm.bias", h);
    for (k = 0; k < 4; k++) {
        VS_L2(&e, lin[k][0], 0, L, h, h);
        VS_L1(&e, lin[k][1], 0, L, h);
    }
    VS_L1(&e, "encoder.layer.{L}.attention.output.LayerNorm.weight", 0, L, h);
    VS_L1(&e, "encoder.layer.{L}.attention.output.LayerNorm.bias", 0, L, h);
    VS_L2(&e, "encoder.layer.{L}.intermediate.dense.weight", 0, L, i, h);
    VS_L1(&e, "encoder.layer.{L}.intermediate.dense.bias", 0, L, i);
    VS_L2(&e, "encoder.layer.{L}.output.dense.weight", 0, L, h, i);
    VS_L1(&e, "encoder.layer.{L}.output.dense.bias", 0, L, h);
    VS_L1(&e, "encoder.layer.{L}.output.LayerNorm.weight", 0, L, h);
    VS_L1(&e, "encoder.layer.{L}.output.LayerNorm.bias", 0, L, h);
    VS_T2(&e, "pooler.dense.weight", h, h);
    VS_T1(&e, "pooler.dense.bias", h);
    if (a->flags & BERT_HEADS) {
        e.prefix = "";
        e.part = VS_PART_HEADS;
        VS_T1(&e, "cls.predictions.bias", a->vocab);
        VS_T2(&e, "cls.predictions.transform.dense.weight", h, h);
        VS_T1(&e, "cls.predictions.transform.dense.bias", h);
        VS_T1(&e, "cls.predictions.transform.LayerNorm.weight", h);
        VS_T1(&e, "cls.predictions.transform.LayerNorm.bias", h);
        VS_T2(&e, "cls.seq_relationship.weight", 2, h);
        VS_T1(&e, "cls.seq_relationship.bias", 2);
    }
    return e.rc;
}

static const char *const bert_types[] = {"bert", NULL};
static const char *const bert_archs[] = {"BertModel", "BertForMaskedLM", "BertForPreTraining",
                                         NULL};
static const char *const bert_keys[] = {
    "num_hidden_layers", "hidden_size",   "num_attention_heads",
    "intermediate_size", "vocab_size",    "max_position_embeddings",
    "type_vocab_size",   "architectures", NULL};
const vs_family vs_family_bert = {"bert",     bert_types, bert_archs,  bert_keys,
                                  bert_parse, bert_kv,    bert_tensors};
