#!/usr/bin/env python3
"""Writes the full tensor lists of FLUX.1-dev's transformer and T5 encoder.

tests/data/pipelines/flux.1-dev holds one tensors.txt per component (NAME DTYPE SHAPE
lines, written by test_published as sparse safetensors headers). Quantising a component
(`format bnb-nf4 components=transformer,text_encoder_2`) needs every tensor with its
shape, so these two lists are written in full from the modules that build them:
diffusers' FluxTransformer2DModel (models/transformers/transformer_flux.py: 19
FluxTransformerBlock, 38 FluxSingleTransformerBlock, hidden 3072, guidance embeds) and
transformers' T5EncoderModel (models/t5/modeling_t5.py, T5-XXL's encoder: 24 blocks,
d_model 4096, d_ff 10240, gated-GELU wi_0/wi_1, the relative bias in block 0), with the
component's config.json beside it. The script checks each sum against the parameter
count published for black-forest-labs/FLUX.1-dev (11,901,408,320 and 4,762,310,656) and
refuses to write otherwise.

Usage: python3 tests/tools/flux_tensor_lists.py tests/data/pipelines/flux.1-dev
"""
import math
import os
import sys

D = 3072


def lin(name, i, o, bias=True):
    r = [(name + ".weight", (o, i))]
    if bias:
        r.append((name + ".bias", (o,)))
    return r


def transformer():
    t = lin("x_embedder", 64, D)
    for e in ("timestep_embedder", "guidance_embedder"):
        t += lin("time_text_embed.%s.linear_1" % e, 256, D)
        t += lin("time_text_embed.%s.linear_2" % e, D, D)
    t += lin("time_text_embed.text_embedder.linear_1", 768, D)
    t += lin("time_text_embed.text_embedder.linear_2", D, D)
    t += lin("context_embedder", 4096, D)
    for b in range(19):
        p = "transformer_blocks.%d." % b
        t += lin(p + "norm1.linear", D, 6 * D) + lin(p + "norm1_context.linear", D, 6 * D)
        for n in ("to_q", "to_k", "to_v", "to_out.0", "add_q_proj", "add_k_proj", "add_v_proj",
                  "to_add_out"):
            t += lin(p + "attn." + n, D, D)
        for n in ("norm_q", "norm_k", "norm_added_q", "norm_added_k"):
            t.append((p + "attn." + n + ".weight", (128,)))
        for f in ("ff", "ff_context"):
            t += lin(p + f + ".net.0.proj", D, 4 * D) + lin(p + f + ".net.2", 4 * D, D)
    for b in range(38):
        p = "single_transformer_blocks.%d." % b
        t += lin(p + "norm.linear", D, 3 * D) + lin(p + "proj_mlp", D, 4 * D)
        for n in ("to_q", "to_k", "to_v"):
            t += lin(p + "attn." + n, D, D)
        for n in ("norm_q", "norm_k"):
            t.append((p + "attn." + n + ".weight", (128,)))
        t += lin(p + "proj_out", 5 * D, D)
    return t + lin("norm_out.linear", D, 2 * D) + lin("proj_out", D, 64)


def t5_encoder():
    t = [("shared.weight", (32128, 4096))]
    for b in range(24):
        p = "encoder.block.%d.layer." % b
        for n in "qkvo":
            t.append((p + "0.SelfAttention.%s.weight" % n, (4096, 4096)))
        if b == 0:
            t.append((p + "0.SelfAttention.relative_attention_bias.weight", (32, 64)))
        t.append((p + "0.layer_norm.weight", (4096,)))
        t.append((p + "1.DenseReluDense.wi_0.weight", (10240, 4096)))
        t.append((p + "1.DenseReluDense.wi_1.weight", (10240, 4096)))
        t.append((p + "1.DenseReluDense.wo.weight", (4096, 10240)))
        t.append((p + "1.layer_norm.weight", (4096,)))
    return t + [("encoder.final_layer_norm.weight", (4096,))]


LISTS = (
    ("transformer", "diffusion_pytorch_model.safetensors", transformer, 11901408320,
     "FluxTransformer2DModel of black-forest-labs/FLUX.1-dev"),
    ("text_encoder_2", "model.safetensors", t5_encoder, 4762310656,
     "T5EncoderModel (T5-XXL's encoder) of black-forest-labs/FLUX.1-dev"),
)


def main(root):
    for comp, fname, build, published, what in LISTS:
        tensors = build()
        n = sum(math.prod(s) for _, s in tensors)
        if n != published:
            sys.exit("%s: %d parameters, published %d" % (comp, n, published))
        with open(os.path.join(root, comp, "tensors.txt"), "w") as f:
            f.write("# file %s\n" % fname)
            f.write("# published: {:,} parameters ({}); written by tests/tools/"
                    "flux_tensor_lists.py\n".format(published, what))
            for name, shape in tensors:
                f.write("%s BF16 %s\n" % (name, "x".join(str(d) for d in shape)))
        print("%s: %d tensors, %d parameters" % (comp, len(tensors), n))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/pipelines/flux.1-dev")
