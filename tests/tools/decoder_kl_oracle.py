#!/usr/bin/env python3
"""The oracle of the AutoencoderKL decode's live tensors: diffusers' own
AutoencoderKL.decode run on the meta device (shapes only, no memory) under
torch.no_grad, every tensor an aten op returns counted from its creation to the
death of the last Python tensor that shares its storage, the running sum's
maximum and the op and module where it is reached. That is what PyTorch's
caching allocator counts as allocated for the same forward on a GPU, less what
a kernel allocates for itself (cuDNN's convolution workspace) and less the
weights. Writes tests/data/decoder_kl_oracle.tsv with the versions.

The meta device has no fused attention kernel, so F.scaled_dot_product_attention
is replaced by what the CUDA memory-efficient kernel returns: its output and a
float32 logsumexp of batch x heads x tokens, dropped on return
(aten/src/ATen/native/transformers/attention.cpp, _scaled_dot_product_efficient_attention).

Produces test data only; CI never runs it. Run with a venv holding torch and
diffusers 0.25.0 (the release current when huggingface/diffusion-fast was
published, January 2024; its Dockerfile installs diffusers from git at
4836cfad), installed with --no-deps beside pillow:
    PYTHONPATH=DIR python tests/tools/decoder_kl_oracle.py
diffusers 0.25.0 imports huggingface_hub.cached_download, gone from recent
huggingface_hub releases; the script aliases it to hf_hub_download (never
called: nothing is downloaded)."""
import os
import sys
import weakref

import huggingface_hub

if not hasattr(huggingface_hub, "cached_download"):
    huggingface_hub.cached_download = huggingface_hub.hf_hub_download

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

import diffusers  # noqa: E402
from diffusers.models.autoencoders.autoencoder_kl import AutoencoderKL  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "decoder_kl_oracle.tsv")


class Live(TorchDispatchMode):
    """live bytes by storage; the peak and where it is reached"""

    def __init__(self):
        super().__init__()
        self.bytes = {}
        self.refs = {}
        self.now = 0
        self.peak = 0
        self.at = ""
        self.module = []

    def _release(self, key):
        self.refs[key] -= 1
        if not self.refs[key]:
            self.now -= self.bytes.pop(key)
            del self.refs[key]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            key = t.untyped_storage()._cdata
            if key not in self.bytes:
                self.bytes[key] = t.untyped_storage().nbytes()
                self.refs[key] = 0
                self.now += self.bytes[key]
            self.refs[key] += 1
            weakref.finalize(t, self._release, key)
        if self.now > self.peak:
            self.peak = self.now
            self.at = "%s %s" % (self.module[-1] if self.module else "-", func.__name__)
        return out


def efficient_sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    out = q.new_empty(q.shape)
    lse = q.new_empty(q.shape[:-1], dtype=torch.float32)
    del lse
    return out


SDXL = dict(
    in_channels=3,
    out_channels=3,
    down_block_types=["DownEncoderBlock2D"] * 4,
    up_block_types=["UpDecoderBlock2D"] * 4,
    block_out_channels=[128, 256, 512, 512],
    layers_per_block=2,
    latent_channels=4,
    norm_num_groups=32,
    sample_size=1024,
)
SMALL = dict(SDXL, down_block_types=["DownEncoderBlock2D"] * 2,
             up_block_types=["UpDecoderBlock2D"] * 2, block_out_channels=[64, 128],
             layers_per_block=1)

# name, config, dtype, batch, width, height, attention
RUNS = [
    ("sdxl", SDXL, torch.float32, 1, 1024, 1024, "sdpa"),
    ("sdxl", SDXL, torch.bfloat16, 1, 1024, 1024, "sdpa"),
    ("sdxl", SDXL, torch.float16, 1, 1024, 1024, "sdpa"),
    ("sdxl", SDXL, torch.float16, 4, 1024, 1024, "sdpa"),
    ("sdxl", SDXL, torch.float32, 1, 512, 768, "sdpa"),
    ("sdxl", SDXL, torch.float16, 1, 1024, 1024, "eager"),
    ("sdxl", SDXL, torch.float32, 1, 1024, 1024, "eager"),
    ("small", SMALL, torch.float32, 1, 64, 64, "sdpa"),
]
BITS = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}


def run(config, dtype, batch, width, height, attention):
    with torch.device("meta"):
        vae = AutoencoderKL(**config).to(dtype)
    if attention == "eager":
        vae.set_default_attn_processor()
    mode = Live()
    hooks = []
    # leaves without weights are left unnamed: diffusers 0.25 hands every
    # ResnetBlock2D the same nn.SiLU (activations.py ACTIVATION_FUNCTIONS)
    for name, m in vae.decoder.named_modules():
        if name and any(True for _ in m.parameters()):
            hooks.append(m.register_forward_pre_hook(
                lambda mod, inp, name=name: mode.module.append(name) and None))
            hooks.append(m.register_forward_hook(
                lambda mod, inp, out: mode.module.pop() and None))
    side = 2 ** (len(config["block_out_channels"]) - 1)
    saved = F.scaled_dot_product_attention
    if attention == "sdpa":
        F.scaled_dot_product_attention = efficient_sdpa
    try:
        with torch.no_grad(), mode:
            z = torch.empty(batch, config["latent_channels"], height // side, width // side,
                            device="meta", dtype=dtype)
            image = vae.decode(z, return_dict=False)[0]
            del z, image
    finally:
        F.scaled_dot_product_attention = saved
    for h in hooks:
        h.remove()
    return mode.peak, mode.at


def main():
    rows = []
    for name, config, dtype, batch, width, height, attention in RUNS:
        peak, at = run(config, dtype, batch, width, height, attention)
        rows.append("%s\t%s\t%d\t%d\t%d\t%s\t%d\t%s" % (
            name, BITS[dtype], batch, width, height, attention, peak, at))
        print(rows[-1], file=sys.stderr)
    with open(OUT, "w") as f:
        f.write("# AutoencoderKL.decode's live tensors, the peak, on the meta device: "
                "tests/tools/decoder_kl_oracle.py, diffusers %s, torch %s (SDPA as the CUDA "
                "memory-efficient kernel's outputs; no cuDNN workspace, no weights).\n"
                % (diffusers.__version__, torch.__version__))
        f.write("# config\tdtype\tbatch\twidth\theight\tattention\tpeak_bytes\tat (module op)\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
