#!/usr/bin/env python3
"""Writes the full tensor lists of the test pipelines' UNet, VAE and CLIP text encoders.

Each component folder of notebooks/pipelines/sdxl-base-1.0 and tests/data/pipelines/flux.1-dev
holds a tensors.txt (NAME DTYPE SHAPE lines, written as sparse safetensors headers by
notebooks/pipelines/write_sparse.py and test_published). Sequential CPU offload moves one
module's own tensors to the GPU at a time (accelerate's AlignDevicesHook, one per module with
direct tensors), so the lists keep every tensor under its module's name: no lump.

This builds each component on the meta device (no weights, no network) from the config.json
beside its tensors.txt, with the library class that loads it (diffusers' UNet2DConditionModel
and AutoencoderKL, transformers' CLIPTextModel and CLIPTextModelWithProjection), lists its
state_dict's parameters in module order, checks the sum against the parameter count published
for the checkpoint and refuses to write otherwise. FLUX.1-dev's transformer and T5 encoder are
written by tests/tools/flux_tensor_lists.py.

Written with diffusers 0.42.1, transformers 5.24.0, torch 2.15.0 (CPU):
  PYTHONPATH=<diffusers> python3 tests/tools/pipeline_tensor_lists.py
"""
import json
import math
import os
import sys

import torch

SDXL = "notebooks/pipelines/sdxl-base-1.0"
FLUX = "tests/data/pipelines/flux.1-dev"

# folder, component, file, dtype, published parameters, what
LISTS = (
    (SDXL, "unet", "diffusion_pytorch_model.fp16.safetensors", "F16", 2567463684,
     "UNet2DConditionModel of stable-diffusion-xl-base-1.0"),
    (SDXL, "vae", "diffusion_pytorch_model.fp16.safetensors", "F16", 83653863, "AutoencoderKL"),
    (SDXL, "text_encoder", "model.fp16.safetensors", "F16", 123060480,
     "CLIPTextModel, CLIP ViT-L/14 text tower"),
    (SDXL, "text_encoder_2", "model.fp16.safetensors", "F16", 694659840,
     "CLIPTextModelWithProjection, OpenCLIP ViT-bigG/14 text tower"),
    (FLUX, "text_encoder", "model.safetensors", "BF16", 123060480,
     "CLIPTextModel (CLIP ViT-L/14's text model) of black-forest-labs/FLUX.1-dev"),
    (FLUX, "vae", "diffusion_pytorch_model.safetensors", "BF16", 83819683,
     "AutoencoderKL of black-forest-labs/FLUX.1-dev"),
)


# keys the compact config.json leaves out, as FLUX.1-dev's vae/config.json gives them
# (the library defaults are one block, not four)
FILL = {"AutoencoderKL": {"down_block_types": ["DownEncoderBlock2D"] * 4,
                          "up_block_types": ["UpDecoderBlock2D"] * 4}}


def build(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    for k, v in FILL.get(cfg.get("_class_name"), {}).items():
        cfg.setdefault(k, v)
    with torch.device("meta"):
        if cfg.get("_class_name") == "UNet2DConditionModel":
            from diffusers import UNet2DConditionModel
            return UNet2DConditionModel.from_config(cfg)
        if cfg.get("_class_name") == "AutoencoderKL":
            from diffusers import AutoencoderKL
            return AutoencoderKL.from_config(cfg)
        import transformers
        arch = cfg["architectures"][0]
        conf = transformers.CLIPTextConfig(**{k: v for k, v in cfg.items()
                                              if k not in ("architectures", "model_type")})
        return getattr(transformers, arch)(conf)


def main():
    import diffusers
    import transformers
    versions = "diffusers %s, transformers %s, torch %s" % (
        diffusers.__version__, transformers.__version__, torch.__version__)
    for root, comp, fname, dtype, published, what in LISTS:
        folder = os.path.join(root, comp)
        model = build(folder)
        tensors = [(n, tuple(p.shape)) for n, p in model.named_parameters()]
        n = sum(math.prod(s) for _, s in tensors)
        if n != published:
            sys.exit("%s: %d parameters, published %d" % (folder, n, published))
        with open(os.path.join(folder, "tensors.txt"), "w") as f:
            f.write("# file %s\n" % fname)
            f.write("# published: {:,} parameters ({}); written by tests/tools/"
                    "pipeline_tensor_lists.py ({}, the parameters on the meta device)\n"
                    .format(published, what, versions))
            for name, shape in tensors:
                f.write("%s %s %s\n" % (name, dtype, "x".join(str(d) for d in shape)))
        print("%s: %d tensors, %d parameters" % (folder, len(tensors), n))


if __name__ == "__main__":
    main()
