"""Inductor's output code for torchao's AdamW8bit step of one bf16 parameter.

Writes the wrapper's call() and the kernel's heuristics header (launch kind,
reduction hint, argument signature, the arguments written in place) for the
step of a 128,256 x 3,072 parameter (Llama-3.2-3B's tied embedding) to
tests/data/inductor/ao8_step_torch-<release>.txt. test_adamw8bit_step reads
them. Run once per release, in a venv holding that release's wheels from PyPI:

  torch 2.5.1, triton 3.1.0, torchao 0.6.1  ->  ao8_step_torch-2.5.txt
  torch 2.6.0, triton 3.2.0, torchao 0.7.0  ->  ao8_step_torch-2.6.txt
  torch 2.15.0, triton 3.9.0, torchao 0.7.0 ->  ao8_step_torch-2.15.txt

  python tests/tools/ao8_step_output_code.py OUT.txt

No GPU is needed: Inductor schedules and generates the Triton code for a CPU
tensor (2.5 has no Triton backend for the CPU, so the script registers
TritonScheduling and CUDA's device-op overrides for it; 2.6 has
cpu_backend="triton"), stops where Triton would build the kernel, and the
fusion and launch decisions are those it makes for CUDA: Reduction.num_splits
is given an A100's 108 SMs. The CUDA wheels import on a machine without CUDA
when stub libcudart/libcublas/... of the right sonames are on
LD_LIBRARY_PATH (cudaGetDeviceCount returning cudaErrorNoDevice); the script
exits with os._exit, as their destructors do not return.
"""
import io
import logging
import os
import re
import sys
import types

import torch
import torch._inductor.config as ic
import torch._inductor.ir as ir

ic.compile_threads = 1
if tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) < (2, 6):
    from torch._inductor.codegen.common import (device_op_overrides_dict,
                                                init_backend_registration,
                                                register_backend_for_device)
    from torch._inductor.codegen.cuda.device_op_overrides import CUDADeviceOpOverrides
    from torch._inductor.codegen.triton import TritonScheduling
    from torch._inductor.codegen.wrapper import WrapperCodeGen
    import torch._dynamo.device_interface as di

    init_backend_registration()
    register_backend_for_device("cpu", TritonScheduling, WrapperCodeGen)
    device_op_overrides_dict["cpu"] = CUDADeviceOpOverrides()
    fake = types.SimpleNamespace(
        get_compute_capability=lambda d=None: 80,
        get_device_properties=lambda d=None: types.SimpleNamespace(
            major=8, regs_per_multiprocessor=65536,
            max_threads_per_multi_processor=2048, multi_processor_count=108))
    orig = di.get_interface_for_device
    di.get_interface_for_device = lambda d: fake if getattr(d, "type", d) == "cpu" else orig(d)
else:
    ic.cpu_backend = "triton"


class _Worker:
    @staticmethod
    def get_device_properties(device=None):
        return types.SimpleNamespace(multi_processor_count=108)  # an A100's SMs


ir.get_interface_for_device = lambda d: types.SimpleNamespace(Worker=_Worker)
import torch.utils._triton as tu  # noqa: E402

tu.triton_hash_with_backend = lambda: "no-gpu"
tu.triton_backend = lambda: None

import torchao  # noqa: E402
from torchao.prototype.low_bit_optim import AdamW8bit  # noqa: E402

log = io.StringIO()
handler = logging.StreamHandler(log)
torch._logging.set_logs(output_code=True)
logging.getLogger("torch._inductor").addHandler(handler)

p = torch.nn.Parameter(torch.zeros(128256, 3072, dtype=torch.bfloat16))
p.grad = torch.zeros(128256, 3072, dtype=torch.bfloat16)
try:
    AdamW8bit([p], lr=2e-5).step()
except Exception:  # the kernel cannot be built without a GPU
    pass
code = log.getvalue()
keep = [f"# torch {torch.__version__}, torchao {torchao.__version__}, "
        f"triton {__import__('triton').__version__}; AdamW8bit([p]).step(), "
        "p bf16 128256 x 3072"]
for line in code.splitlines():
    if re.search(r"@triton_heuristics\.|size_hints=|reduction_hint=|'mutated_arg_names'|"
                 r"^def triton_|empty_strided_cpu\(\(|assert_size_stride\(|\.run\(|def call\(", line):
        if "mutated_arg_names" in line:
            line = "    mutated_arg_names=" + re.search(
                r"'mutated_arg_names': (\[[^]]*\])", line).group(1)
        if "'signature'" in line:
            line = "    signature=" + re.search(r"'signature': (\{[^}]*\})", line).group(1)
        keep.append(line.rstrip())
    elif "triton_meta=" in line and "'signature'" in line:
        keep.append("    signature=" + re.search(r"'signature': (\{[^}]*\})", line).group(1))
with open(sys.argv[1], "w") as f:
    f.write("\n".join(keep) + "\n")
print(sys.argv[1], len(keep), "lines", flush=True)
os._exit(0)
