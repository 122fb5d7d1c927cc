"""The CUDA workload (tests/cuda/workload.cu) under `measure`, on a real GPU.

    run_workload.py VRAMSHEET_BINARY CUDA_WORKLOAD_BINARY

Runs the workload through `vramsheet run` (measure, then commit), reads the
record back with `vramsheet show --json` and checks it against the workload's
own design, with N = 256 MiB: it holds 4 N in phase load, 6 N in prefill and
8 N at its peak in generate (reported by the workload itself as the counter
workload.held), so NVML's device used memory must rise over the context
phase's by at least that much in each phase, and by not much more. A second
run asks for more than the device has: the run is kept with overflow_phase
"oom" and an oom entry.

Exit status 77 (ctest SKIP_RETURN_CODE) with a SKIPPED line when there is no
NVIDIA driver or GPU here, or when the workload was not built (no nvcc at
configure time); 0 when every check held; 1 otherwise.
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
MIB = 1 << 20
N = 256 * MIB
SLACK = 512 * MIB  # the allocator's rounding and the driver's own, at most


def skip(why):
    print("SKIPPED: %s" % why, flush=True)
    sys.exit(SKIP)


def gpu_count():
    """NVML's device count, or the reason there is none."""
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as e:
        return 0, "no NVIDIA driver here (libnvidia-ml.so.1: %s)" % e
    if nvml.nvmlInit_v2() != 0:
        return 0, "the NVIDIA driver does not start (nvmlInit_v2 failed)"
    count = ctypes.c_uint(0)
    rc = nvml.nvmlDeviceGetCount_v2(ctypes.byref(count))
    nvml.nvmlShutdown()
    if rc != 0 or count.value == 0:
        return 0, "no GPU here (nvmlDeviceGetCount_v2: rc %d, %d devices)" % (rc, count.value)
    return count.value, ""


def peak(ms, phase, counter):
    found = [m["peak_bytes"] for m in ms
             if m["phase"] == phase and m["counter"] == counter and m.get("gpu") in (0, None)]
    if not found:
        raise AssertionError("no %s measurement in phase %s: %r" % (
            counter, phase, [(m["phase"], m["counter"]) for m in ms]))
    return max(found)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    vramsheet, workload = sys.argv[1], sys.argv[2]
    n, why = gpu_count()
    if not n:
        skip(why)
    if not os.access(workload, os.X_OK):
        skip("the CUDA workload %s was not built (nvcc was not found at configure time)"
             % workload)
    failures = []

    def check(ok, what):
        print("%s: %s" % ("ok" if ok else "FAILED", what), flush=True)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="vs-cuda-") as d:
        env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(d, "rec"), CUDA_VISIBLE_DEVICES="0")
        env.pop("VRAMSHEET_NVML_LIBRARY", None)  # the real driver, not a fake
        cells = os.path.join(d, "cells")
        with open(cells, "w") as f:
            f.write('sheet "cuda workload"\n'
                    "measure -- %s --mib %d\n"
                    "# %%%%\n"
                    'commit "the CUDA workload, measured"\n'
                    "# %%%%\n"
                    "measure -- %s --mib %d --oom\n"
                    "# %%%%\n"
                    'commit "the CUDA workload, out of memory"\n' % (workload, N // MIB,
                                                                     workload, N // MIB))
        r = subprocess.run([vramsheet, "run", cells], env=env, capture_output=True, text=True,
                           timeout=300)
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        check(r.returncode == 0, "vramsheet run exits 0 (status %d)" % r.returncode)
        if r.returncode != 0:
            return 1
        show = subprocess.run([vramsheet, "show", "cuda-workload", "--json"], env=env,
                              capture_output=True, text=True, timeout=60)
        check(show.returncode == 0, "the record reads back (vramsheet show --json)")
        sheet = json.loads(show.stdout)
        runs, ms = sheet["runs"], sheet["measurements"]
        check(len(runs) == 2, "two runs recorded (%d)" % len(runs))
        first = [m for m in ms if m["run"] == runs[0]["id"]]
        check(runs[0]["exit_status"] == 0 and runs[0]["overflow_phase"] is None,
              "the first run exited 0 without overflow")
        gpu = runs[0]["gpus"][0]
        check(gpu["total_bytes"] > 8 * N, "the GPU's total is known: %d B (%s)"
              % (gpu["total_bytes"], gpu["total_basis"]))
        base = peak(first, "context", "nvml.device_used")
        for phase, units in (("load", 4), ("prefill", 6), ("generate", 8)):
            held = peak(first, phase, "workload.held")
            check(held == units * N, "workload.held in %s is %d N = %d B (got %d)"
                  % (phase, units, units * N, held))
            rise = peak(first, phase, "nvml.device_used") - base
            check(units * N <= rise <= units * N + SLACK,
                  "device used in %s rose over context by %d B, between %d N and %d N + %d MiB"
                  % (phase, rise, units, units, SLACK // MIB))
        check(runs[1]["exit_status"] == 1 and runs[1]["overflow_phase"] == "oom",
              "the --oom run exited 1 with overflow_phase oom (%r, %r)"
              % (runs[1]["exit_status"], runs[1]["overflow_phase"]))
        check(any(o["phase"] == "oom" for o in sheet["oom"]), "an oom entry for phase oom")
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
