/* What torchao's compiled AdamW8bit step allocates beside its state, for one
 * parameter, by the PyTorch release whose Inductor compiles it. One row a
 * release read in its output code. */
#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimators/arith.h"

/* torchao's _AdamBase.step runs single_param_adam for each parameter under
 * torch.compile(fullgraph=True, dynamic=False) (torchao/prototype/low_bit_optim/
 * adam.py, torchao 0.6.1 and 0.7.0 on PyPI; 0d7edae later). Inductor fuses the
 * whole step (dequantise both moments, lerp, the new absmax of each block,
 * the binary search of the map, the parameter's update) into one reduction
 * kernel, a block of the state a row; what it allocates beside the state
 * depends on the release. Read in Inductor's output code for the step of a
 * bf16 parameter of 128,256 x 3,072 (tests/data/inductor, written by
 * tests/tools/ao8_step_output_code.py):
 * - 2.5 (torch 2.5.1, triton 3.1.0): a looped reduction (triton_red_...):
 *   Reduction.num_splits returns ReductionHint.DEFAULT when there are at least
 *   num_sm x 64 rows (torch/_inductor/ir.py), and a DEFAULT reduction of more
 *   than 64 values is not persistent (should_use_persistent_reduction), so the
 *   wrapper allocates one float32 buffer of the parameter's shape,
 *   empty_strided((128256, 3072), float32), stored by the kernel for the
 *   update term; and _reduction_configs gives a DEFAULT reduction six launch
 *   configs, which the first call autotunes: CachingAutotuner.bench clones
 *   every argument the kernel writes in place (clone_args; the parameter, both
 *   code tensors and both scale vectors, each passed twice, as input and as
 *   output) for every config it times, beside triton.testing.do_bench's L2
 *   flush buffer, torch.empty(int(256e6 // 4), dtype=torch.int)
 *   (torch/_inductor/runtime/triton_heuristics.py, benchmarking.py);
 * - 2.6 (torch 2.6.0, triton 3.2.0): the same looped, autotuned kernel with
 *   no float32 buffer; triton's flush buffer is 256 MiB
 *   (get_empty_cache_for_benchmark, backends/nvidia/driver.py);
 * - 2.15 (torch 2.15.0, triton 3.9.0): one persistent reduction (ReductionHint.INNER); an INNER
 * reduction of 256 or more gets a single config (_persistent_reduction_configs at 00131b6), so
 * nothing is autotuned; the only buffers are the two new absmax, copied into the state's scales
 * after the kernel. */
typedef struct ao8_release {
    const char *torch;
    unsigned update_f32;  /* the float32 buffer of the parameter's shape, each step */
    unsigned new_absmax;  /* the two new absmax vectors, each step */
    uint64_t flush_bytes; /* the benchmark's L2 flush buffer; 0: not autotuned */
    const char *every_why, *first_why;
} ao8_release;

static const ao8_release releases[] = {
    {"2.5", 1, 0, 256000000,
     "the float32 buffer of the parameter's shape that PyTorch 2.5's Inductor allocates for the "
     "update term of torchao's compiled AdamW8bit step (a looped reduction)",
     "the first step's autotuning of that kernel (six launch configs): a clone of every tensor "
     "it writes in place, the parameter, both codes and both scales, each passed twice "
     "(CachingAutotuner.clone_args), and triton 3.1's 256e6 B L2 flush buffer (do_bench)"},
    {"2.6", 0, 0, 268435456, NULL,
     "the first step's autotuning of torchao's compiled AdamW8bit step (PyTorch 2.6's Inductor: "
     "a looped reduction, six launch configs): a clone of every tensor it writes in place, the "
     "parameter, both codes and both scales, each passed twice (CachingAutotuner.clone_args), "
     "and triton 3.2's 256 MiB L2 flush buffer (get_empty_cache_for_benchmark)"},
    {"2.15", 0, 1, 0,
     "the new absmax of both moments, which torchao's compiled AdamW8bit step writes beside its "
     "state (PyTorch 2.15's Inductor: one persistent reduction, the float32 values in "
     "registers, a single launch config; bitsandbytes' AdamW8bit: none)",
     NULL},
};

int vs_estimate_adamw8bit_step(vs_adamw8bit_step_est *out, const char *torch, uint64_t n,
                               unsigned param_bytes, unsigned block, vs_error *err)
{
    const ao8_release *r = NULL;
    uint64_t blocks, scale, clones, codes = n, x;
    size_t i;
    int rc;
    if (!torch)
        torch = "2.15";
    for (i = 0; i < sizeof releases / sizeof releases[0]; i++)
        if (!strcmp(releases[i].torch, torch))
            r = &releases[i];
    if (!r)
        return vs_error_set(err, VS_EVALUE,
                            "torch=%s: the releases whose Inductor output code was read for "
                            "torchao's AdamW8bit step are 2.5, 2.6 and 2.15",
                            torch);
    if (!block || !n || n % block)
        return vs_error_set(err, VS_EVALUE, "the parameter is not a whole number of blocks");
    memset(out, 0, sizeof *out);
    out->torch = r->torch;
    out->every_why = r->every_why;
    out->first_why = r->first_why;
    blocks = n / block;
    scale = blocks * 4; /* one float32 scale a block; n fits, so does this */
    if (r->update_f32) {
        out->update_f32 = n;
        if ((rc = vs_arith_mul(&out->update_f32, 4, "the step's float32 buffer", err)))
            return rc;
    }
    if (r->new_absmax)
        out->new_absmax = 2 * scale;
    out->every_step = out->update_f32 + out->new_absmax;
    if (r->flush_bytes) {
        /* each in-place tensor twice (input and output): the parameter, the
         * codes (a byte a value) and the scales of both moments */
        clones = n;
        if ((rc = vs_arith_mul(&clones, param_bytes, "the parameter's clone", err)) ||
            (rc = vs_arith_mul(&codes, 2, "the step's clones", err)) ||
            (rc = vs_arith_add(&clones, codes, "the step's clones", err)) ||
            (rc = vs_arith_add(&clones, 2 * scale, "the step's clones", err)) ||
            (rc = vs_arith_mul(&clones, 2, "the step's clones", err)))
            return rc;
        out->clones = clones;
        out->flush = r->flush_bytes;
        x = clones;
        if ((rc = vs_arith_add(&x, r->flush_bytes, "the step's autotuning", err)))
            return rc;
        out->first_step = x;
    }
    return 0;
}
