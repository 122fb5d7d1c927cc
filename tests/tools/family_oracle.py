#!/usr/bin/env python3
"""The oracle of the 2026 families' parameter counts: each config.json named
below (tests/model/configs/) built by Hugging Face transformers on the meta
device (no memory, no weights), its parameters summed per part and in total
(tied weights once, as model.parameters() yields them, which is what the
checkpoint stores). Writes tests/data/family_oracle.json with the versions.

Produces test data only; CI never runs it. Run with a venv holding
transformers and torch:
    python tests/tools/family_oracle.py [--dump DIR]
--dump writes each model's tensor names and shapes (layer 0 .. 3 and the
singletons) for reading beside the C tensor lists.

torch's CUDA wheel imports on a machine without CUDA when its CUDA libraries
are stubbed (empty shared objects with the right sonames and symbol versions
on LD_LIBRARY_PATH); nothing here touches a GPU."""
import json
import os
import re
import sys

import torch
import transformers
from transformers import AutoConfig

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "model", "configs")
OUT = os.path.join(HERE, "..", "data", "family_oracle.json")

# fixture -> (the class that loads the checkpoint, its source on huggingface.co)
MODELS = {
    "qwen3-next-80b-a3b-instruct.json": ("Qwen3NextForCausalLM", "Qwen/Qwen3-Next-80B-A3B-Instruct"),
    "llama-4-scout-17b-16e-instruct.json": ("Llama4ForConditionalGeneration",
                                            "meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    "nvidia-nemotron-nano-9b-v2.json": ("NemotronHForCausalLM", "nvidia/NVIDIA-Nemotron-Nano-9B-v2"),
    "jamba-v0.1.json": ("JambaForCausalLM", "ai21labs/Jamba-v0.1"),
    "qwen2.5-vl-7b-instruct.json": ("Qwen2_5_VLForConditionalGeneration", "Qwen/Qwen2.5-VL-7B-Instruct"),
    "qwen3-vl-8b-instruct.json": ("Qwen3VLForConditionalGeneration", "Qwen/Qwen3-VL-8B-Instruct"),
    "qwen3-vl-30b-a3b-instruct.json": ("Qwen3VLMoeForConditionalGeneration",
                                       "Qwen/Qwen3-VL-30B-A3B-Instruct"),
    "mistral-small-3.1-24b-instruct-2503.json": ("Mistral3ForConditionalGeneration",
                                                 "mistralai/Mistral-Small-3.1-24B-Instruct-2503"),
    "granite-4.0-h-small.json": ("GraniteMoeHybridForCausalLM", "ibm-granite/granite-4.0-h-small"),
    "falcon-h1-tiny-90m-base.json": ("FalconH1ForCausalLM", "tiiuae/Falcon-H1-Tiny-90M-Base"),
    "qwen3.5-9b.json": ("Qwen3_5ForConditionalGeneration", "Qwen/Qwen3.5-9B"),
    "qwen3.5-35b-a3b.json": ("Qwen3_5MoeForConditionalGeneration", "Qwen/Qwen3.5-35B-A3B"),
    # model_type phi4mm is the checkpoint's own code (trust_remote_code, not in
    # transformers); transformers builds it as Phi4MultimodalForCausalLM from the
    # config its conversion script writes (phi4mm_config below), and the LoRA
    # adapters the checkpoint stores beside the base weights are added (lora_params)
    "nvidia-nemotron-3-nano-30b-a3b.json": ("NemotronHForCausalLM", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"),
    "phi-4-multimodal-instruct.json": ("Phi4MultimodalForCausalLM", "microsoft/Phi-4-multimodal-instruct"),
}

VISION = re.compile(r"(^|\.)(vision_tower|vision_model|visual|img_processor)\.")
AUDIO = re.compile(r"\.audio_embed\.encoder\.")
PROJECTOR = re.compile(r"(multi_modal_projector|visual\.merger|visual\.deepstack_merger_list|vision_adapter"
                       r"|image_embed\.(img_projection|global_img|sub_img)|audio_embed\.(up|down)_proj)")


def part(name):
    if PROJECTOR.search(name):
        return "projector"
    if VISION.search(name):
        return "vision_tower"
    if AUDIO.search(name):
        return "audio_tower"
    return "text"


def phi4mm_config(c):
    """transformers' convert_phi4_multimodal_weights_to_hf.py convert_config
    (huggingface/transformers, src/transformers/models/phi4_multimodal), step by
    step: the phi4mm config.json into Phi4MultimodalConfig's keys."""
    from transformers import Phi4MultimodalAudioConfig, Phi4MultimodalConfig, Phi4MultimodalVisionConfig
    c = dict(c)
    for k in ("_name_or_path", "architectures", "auto_map", "vision_lora", "speech_lora",
              "transformers_version", "_attn_implementation", "model_type", "img_processor",
              "torch_dtype"):
        c.pop(k, None)
    embd = c.pop("embd_layer")
    audio_embd = {k: v for k, v in embd["audio_embd_layer"].items() if k in ("downsample_rate",)}
    vision_embd = {k: v for k, v in embd["image_embd_layer"].items() if k in ("crop_size",)}
    audio = dict(c.pop("audio_processor")["config"])
    for k in ("activation_checkpointing", "cnn_layer_norm", "input_layer", "encoder_embedding_config",
              "batch_norm", "bias_in_glu", "causal", "ext_pw_kernel_size"):
        audio.pop(k, None)
    audio["hidden_size"] = audio.pop("attention_dim")
    audio["num_attention_heads"] = audio.pop("attention_heads")
    audio["intermediate_size"] = audio.pop("linear_units")
    audio["nemo_conv_channels"] = audio.pop("nemo_conv_settings")["conv_channels"]
    audio["bias_max_distance"] = audio.pop("relative_attention_bias_args")["t5_bias_max_distance"]
    audio["depthwise_separable_out_channel"] = audio.pop("depthwise_seperable_out_channel")
    audio.update(audio_embd)
    # keys this release's strict config class no longer takes (none is a shape)
    for k in ("full_attn_mod", "interpolate_factor", "attention_bias", "mlp_bias", "lm_head_bias"):
        c.pop(k, None)
    # the window (262,144) is past the context (131,072): transformers' class has none
    c.pop("sliding_window", None)
    return Phi4MultimodalConfig(**c, vision_config=Phi4MultimodalVisionConfig(**vision_embd),
                                audio_config=Phi4MultimodalAudioConfig(**audio))


def lora_params(model, c):
    """The LoRA adapters the phi4mm checkpoint keeps beside each base weight
    (peft's lora_A [r, in] and lora_B [out, r]): vision_lora and speech_lora
    name the same four projections of every decoder layer."""
    n = 0
    for name, mod in model.named_modules():
        if re.search(r"\.layers\.\d+\.(self_attn\.(qkv|o)_proj|mlp\.(gate_up|down)_proj)$", name) \
                and "embed_tokens_extend" not in name:
            for key in ("vision_lora", "speech_lora"):
                r = c[key]["r"]
                n += r * mod.in_features + mod.out_features * r
    return n


# Keys this transformers release validates more strictly than the published
# configs were written (none changes a shape): the value it now expects.
FIXUPS = {
    "attn_temperature_tuning": lambda v: bool(v),
}


def fix(o):
    if isinstance(o, dict):
        return {k: (FIXUPS[k](v) if k in FIXUPS else fix(v)) for k, v in o.items()}
    return o


def fixed(path):
    import tempfile
    d = tempfile.mkdtemp(prefix="family_oracle_")
    with open(path) as f, open(os.path.join(d, "config.json"), "w") as g:
        json.dump(fix(json.load(f)), g)
    return d


def main():
    dump = sys.argv[sys.argv.index("--dump") + 1] if "--dump" in sys.argv else None
    out = {"transformers": transformers.__version__, "torch": torch.__version__,
           "how": "sum of model.parameters() of the class below, built from the config on the meta device",
           "models": {}}
    for name, (cls_name, repo) in MODELS.items():
        path = os.path.join(CONFIGS, name)
        if not os.path.exists(path):
            continue
        raw = json.load(open(path))
        cfg = phi4mm_config(raw) if raw.get("model_type") == "phi4mm" else AutoConfig.from_pretrained(fixed(path))
        cls = getattr(transformers, cls_name)
        with torch.device("meta"):
            model = cls._from_config(cfg)
        parts = {}
        total = 0
        lines = []
        for pname, p in model.named_parameters():
            n = p.numel()
            total += n
            k = part(pname)
            parts[k] = parts.get(k, 0) + n
            m = re.search(r"\.layers\.(\d+)\.|\.blocks\.(\d+)\.", pname)
            if not m or int(m.group(1) or m.group(2)) < 4:
                lines.append(f"{pname} {list(p.shape)}")
        if raw.get("model_type") == "phi4mm":
            parts["lora_adapters"] = lora_params(model, raw)
            total += parts["lora_adapters"]
        out["models"][name] = {"class": cls_name, "source": repo, "params": total, "parts": parts}
        print(f"{name}: {total:,} {parts}", flush=True)
        if dump:
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, name + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
        del model
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
