/* estimate training lora: the adapter's trainable parameters from the card's
 * architecture (published checkpoints' config.json in tests/model/configs), and
 * task qlora's 4-bit base. Every expected figure is worked by hand in the
 * comment beside it, from the shapes of the config. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lang/interp.h"
#include "lang/verb.h"
#include "render/bundle.h"
#include "sheet/estimate.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"

#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif

static json_t *named(json_t *p, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(p, "components"), i, c)
    {
        if (!strcmp(gets(c, "name"), name))
            return c;
    }
    ck_abort_msg("no component %s", name);
    return NULL;
}

static int has(json_t *p, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(p, "components"), i, c)
    {
        if (!strcmp(gets(c, "name"), name))
            return 1;
    }
    return 0;
}

static void model(const char *config, const char *task)
{
    char cell[600];
    snprintf(cell, sizeof cell, "model m config=%s/%s\nformat bf16\ntask %s", VS_MODEL_CONFIGS,
             config, task);
    run_ok(cell);
}

/* Llama-3.1-8B: hidden 4,096, 32 heads of 128, 8 KV heads, intermediate 14,336,
 * 32 layers. Rank 16 per layer: q 16 x (4,096 + 4,096) = 131,072; k and v
 * 16 x (4,096 + 1,024) = 81,920 each; o 131,072; gate and up 16 x (4,096 +
 * 14,336) = 294,912 each; down 294,912: 1,310,720 per layer, x 32 =
 * 41,943,040. */
START_TEST(llama_rank16_all_projections)
{
    json_t *p;
    model("llama-3.1-8b.json", "lora");
    run_ok("estimate training lora rank=16 targets=q,k,v,o,gate,up,down");
    p = lastp();
    ck_assert_int_eq(geti(json_object_get(p, "inputs"), "trainable"), 41943040LL);
    ck_assert_int_eq(geti(json_object_get(p, "inputs"), "rank"), 16);
    /* adamw, mixed precision: 2 B gradients, 8 B moments, 4 B master copy, and the
     * adapter's own 16-bit weights 2 B, per trainable parameter */
    ck_assert_int_eq(geti(named(p, "gradients"), "bytes"), 41943040LL * 2);
    ck_assert_int_eq(geti(named(p, "optimizer_state"), "bytes"), 41943040LL * 8);
    ck_assert_int_eq(geti(named(p, "master_copy"), "bytes"), 41943040LL * 4);
    ck_assert_int_eq(geti(named(p, "adapter_weights"), "bytes"), 41943040LL * 2);
    ck_assert(strstr(text(last()), "q 4,194,304 + k 2,621,440 + v 2,621,440 + o 4,194,304 + "
                                   "gate 9,437,184 + up 9,437,184 + down 9,437,184 = 41,943,040 "
                                   "trainable") != NULL);
    ck_assert(strstr(text(last()), "peft/tuners/lora/layer.py") != NULL);
    /* all-linear is the same seven modules on a dense model; q_proj names too */
    run_ok("estimate training lora rank=16 targets=all-linear");
    ck_assert_int_eq(geti(json_object_get(lastp(), "inputs"), "trainable"), 41943040LL);
    run_ok("estimate training rank=16 targets=q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,"
           "down_proj");
    ck_assert_int_eq(geti(json_object_get(lastp(), "inputs"), "trainable"), 41943040LL);
    /* rank 8 on q and v only: (8 x 8,192 + 8 x 5,120) x 32 = 3,407,872 */
    run_ok("estimate training lora rank=8 targets=q,v alpha=16");
    ck_assert_int_eq(geti(json_object_get(lastp(), "inputs"), "trainable"), 3407872LL);
}
END_TEST

/* The estimate follows the card: a rank-16 adapter on another model is
 * recomputed from that model's shapes. Qwen2.5-7B (hidden 3,584, 28 heads of 128,
 * 4 KV heads, intermediate 18,944, 28 layers): q 16 x 7,168 = 114,688, k and v
 * 16 x 4,096 = 65,536 each, o 114,688, gate, up and down 16 x 22,528 = 360,448
 * each: 1,441,792 per layer, x 28 = 40,370,176. */
START_TEST(lora_follows_the_model)
{
    char cell[600];
    model("llama-3.1-8b.json", "lora");
    run_ok("estimate training lora rank=16");
    snprintf(cell, sizeof cell, "model m2 config=%s/qwen2.5-7b.json", VS_MODEL_CONFIGS);
    run_ok(cell);
    run_ok("envelope");
    ck_assert_int_eq(geti(named(lastp(), "gradients"), "bytes"), 40370176LL * 2);
}
END_TEST

/* Qwen3-30B-A3B: hidden 2,048, 32 heads of 128 (q 4,096 wide), 4 KV heads (512),
 * 128 experts of intermediate 768, 48 layers. Rank 8, all-linear, per layer:
 * q 8 x (2,048 + 4,096) = 49,152; k and v 8 x (2,048 + 512) = 20,480 each; o
 * 49,152; each expert's gate, up and down 8 x (2,048 + 768) = 22,528, x 3 x 128
 * = 8,650,752; the router 8 x (2,048 + 128) = 17,408: 8,807,424 per layer, x 48
 * = 422,756,352. Attention only (q,k,v,o): 139,264 x 48 = 6,684,672. */
START_TEST(moe_experts_at_their_own_size)
{
    model("qwen3-30b-a3b.json", "lora");
    run_ok("estimate training lora rank=8 targets=all-linear");
    ck_assert_int_eq(geti(json_object_get(lastp(), "inputs"), "trainable"), 422756352LL);
    run_ok("estimate training lora rank=8 targets=q,k,v,o");
    ck_assert_int_eq(geti(json_object_get(lastp(), "inputs"), "trainable"), 6684672LL);
}
END_TEST

/* QLoRA: the layers' linear weights, Llama-3.1-8B: 2 x 4,096^2 + 2 x 4,096 x
 * 1,024 + 3 x 4,096 x 14,336 = 218,103,808 per layer, x 32 = 6,979,321,856. nf4
 * with double quantisation: an 8-bit absmax per 64 (109,051,904 B) and an fp32
 * constant per 64 x 256 (425,984 x 4 = 1,703,936 B): 110,755,840 B. The largest
 * layer, 4,096 x 14,336, dequantised to bf16: 117,440,512 B. */
START_TEST(qlora_base_and_dequant_buffer)
{
    json_t *p;
    model("llama-3.1-8b.json", "qlora");
    run_ok("estimate training lora rank=16 targets=all-linear");
    p = lastp();
    ck_assert_int_eq(geti(named(p, "quant_metadata"), "bytes"), 110755840LL);
    ck_assert_int_eq(geti(named(p, "dequant_buffer"), "bytes"), 117440512LL);
    ck_assert_int_eq(geti(named(p, "adapter_weights"), "bytes"), 41943040LL * 2);
    /* `format nf4` over the tensor list weighs the base as bitsandbytes keeps it:
     * the linear weights two a byte (3,489,660,928), their double-quantised absmax
     * per matrix (109,051,904 + 4 x 425,984 + a 4-byte offset for each of the 224
     * matrices = 110,756,736; the 16- and 256-entry fp32 code tables, 224 x 1,088
     * = 243,712), embed_tokens and lm_head in bf16 (2 x 128,256 x 4,096 x 2 =
     * 2,101,346,304) and the 65 norms (532,480): 5,702,540,160 B, where 4 bits
     * for every parameter would weigh the embeddings at a quarter. The absmax
     * are then in the weights, so quant_metadata adds nothing. */
    run_ok("format nf4\nweights");
    ck_assert_int_eq(geti(lastp(), "bytes"), 5702540160LL);
    /* one vocabulary: `formats nf4` and `fit formats=nf4` give the same bytes */
    run_ok("gpu \"H100 SXM\"\nlength 4096\nformats nf4");
    ck_assert_int_eq(geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes"),
                     5702540160LL);
    run_ok("fit formats=\"nf4 bf16\"");
    ck_assert_int_eq(
        geti(
            json_array_get(
                json_object_get(json_array_get(json_object_get(lastp(), "rows"), 0), "formats"), 0),
            "weights_bytes"),
        5702540160LL);
    run_ok("estimate training lora rank=16 targets=all-linear");
    p = lastp();
    ck_assert_int_eq(geti(named(p, "quant_metadata"), "bytes"), 0);
    ck_assert_int_eq(geti(named(p, "dequant_buffer"), "bytes"), 117440512LL);
    /* plain lora keeps no 4-bit base */
    model("llama-3.1-8b.json", "lora");
    run_ok("estimate training lora rank=16");
    p = lastp();
    ck_assert_int_eq(json_array_size(json_object_get(p, "components")), 4);
}
END_TEST

/* The phases of a training step, Llama-3.2-3B full finetune in bf16 at 4,096 x 2
 * tokens (T = 8,192). Params by hand: the tied embedding 128,256 x 3,072 =
 * 394,002,432; a layer q 9,437,184 + k, v 3,145,728 each + o 9,437,184 + gate,
 * up, down 25,165,824 each + two norms 6,144 = 100,669,440, x 28 = 2,818,744,320;
 * the final norm 3,072: 3,212,749,824. Weights and gradients 2 B each,
 * 6,425,499,648 B; AdamW's two bf16 moments 12,850,999,296 B.
 * Activations, sdpa, full checkpointing: the layers' inputs 28 x 2 x 8,192 x
 * 3,072 = 1,409,286,144 B, saved in the forward and held through the loss and
 * the backward, and one layer recomputed in the backward, 8,192 x (12 x 3,072 +
 * 4 x 1,024 + 8 x 8,192) = 872,415,232 B. The chunked loss: 8,192 x 128,256 =
 * 1,050,673,152 logits x 2 B + a chunk's 2 B / 8 = 2,364,014,592 B, freed by the
 * loss's backward before the backward recomputes a layer:
 *   phase loss: 6,425,499,648 + 12,850,999,296 + 1,409,286,144 +
 *     2,364,014,592 = 23,049,799,680 B
 *   phase backward: 6,425,499,648 + 12,850,999,296 + 1,409,286,144 +
 *     872,415,232 = 21,558,200,320 B
 *   phase step: 6,425,499,648 + 12,850,999,296 + 6,425,499,648 = 25,701,998,592 B
 * the envelope is the step; the plain sum 30,347,714,560 B stays beside. */
START_TEST(training_step_phases)
{
    json_t *p, *ph;
    const char *card = "format bf16\nlength 4096\nmicrobatch 2";
    char cell[300];
    model("llama-3.2-3b.json", "finetune");
    snprintf(cell, sizeof cell,
             "%s\nestimate training optimizer=adamw precision=bf16\nestimate activations "
             "checkpointing=full attention=sdpa loss=chunked\nenvelope",
             card);
    run_ok(cell);
    p = lastp();
    ck_assert_str_eq(gets(p, "peak_basis"), "worst phase");
    ck_assert_str_eq(gets(p, "worst_phase"), "step");
    ck_assert_int_eq(geti(p, "envelope_bytes"), 25701998592LL);
    ck_assert_int_eq(geti(p, "sum_bytes"), 30347714560LL);
    ph = json_object_get(p, "phases");
    ck_assert_int_eq(json_array_size(ph), 3);
    /* in the order the components named them: the gradients first */
    ck_assert_str_eq(gets(json_array_get(ph, 0), "name"), "step");
    ck_assert_str_eq(gets(json_array_get(ph, 1), "name"), "loss");
    ck_assert_int_eq(geti(json_array_get(ph, 1), "bytes"), 23049799680LL);
    ck_assert_str_eq(gets(json_array_get(ph, 2), "name"), "backward");
    ck_assert_int_eq(geti(json_array_get(ph, 2), "bytes"), 21558200320LL);
    ck_assert_int_eq(geti(named(p, "activations"), "bytes"), 1409286144LL);
    ck_assert_str_eq(gets(named(p, "activations"), "phase"), "loss,backward");
    ck_assert_int_eq(geti(named(p, "activations_recomputed"), "bytes"), 872415232LL);
    ck_assert_str_eq(gets(named(p, "activations_recomputed"), "phase"), "backward");
    ck_assert_int_eq(geti(named(p, "logits"), "bytes"), 2364014592LL);
    ck_assert_str_eq(gets(named(p, "logits"), "phase"), "loss");
    /* accumulated over micro-batches, the gradients stay through the next
     * forward: no phase (the estimate follows the card's accumulation), in the
     * loss beside the logits: 6,425,499,648 + 12,850,999,296 + 6,425,499,648 +
     * 1,409,286,144 + 2,364,014,592 = 29,475,299,328 B; the sum stays beside */
    run_ok("microbatch 2 accumulation=4\nenvelope");
    ck_assert_str_eq(gets(lastp(), "worst_phase"), "loss");
    ck_assert_int_eq(geti(lastp(), "envelope_bytes"), 29475299328LL);
    ck_assert_int_eq(geti(lastp(), "sum_bytes"), 30347714560LL);
    /* in_backward: one gradient at a time, the tied embedding's 128,256 x 3,072
     * x 2 B = 788,004,864 B, beside the activations and the logits: the loss
     * phase 23,049,799,680 + 788,004,864 = 23,837,804,544 B (the backward's
     * 21,558,200,320 + 788,004,864 = 22,346,205,184 B) */
    run_ok("microbatch 2\nestimate training optimizer=adamw precision=bf16 in_backward=yes\n"
           "envelope");
    ck_assert_int_eq(geti(named(lastp(), "gradients"), "bytes"), 788004864LL);
    ck_assert_str_eq(gets(lastp(), "worst_phase"), "loss");
    ck_assert_int_eq(geti(lastp(), "envelope_bytes"), 23837804544LL);
    /* offload: the inputs in host memory, the recomputed layer on the GPU */
    run_ok("estimate activations checkpointing=offload attention=sdpa loss=chunked");
    ck_assert_int_eq(geti(named(lastp(), "activations"), "bytes"), 0);
    ck_assert_int_eq(geti(named(lastp(), "activations_recomputed"), "bytes"), 872415232LL);
    /* without the loss (a card with no vocabulary), nothing alternates with the
     * recomputed layer: one component in phase backward, and the split one the
     * line before left is gone from the sheet */
    run_ok("model n params=3212749824\nestimate activations layers=28 hidden=3072 heads=24 "
           "checkpointing=offload attention=sdpa\nenvelope");
    ck_assert_int_eq(geti(named(lastp(), "activations"), "bytes"), 2LL * 17 * 8192 * 3072);
    ck_assert_str_eq(gets(named(lastp(), "activations"), "phase"), "backward");
    ck_assert(!has(lastp(), "activations_recomputed"));
    ck_assert_int_eq(run("estimate training in_backward=maybe"), VS_EVALUE);
    model("llama-3.2-3b.json", "lora");
    ck_assert_int_eq(run("estimate training lora rank=8 in_backward=yes"), VS_EVALUE);
}
END_TEST

/* bitsandbytes' paged optimizers: the moments in CUDA managed memory, their
 * own component, in the envelope and apart from the allocator's part.
 * Llama-3.1-8B: 8,030,261,248 params (2 x 128,256 x 4,096 embeddings and head,
 * 32 x 218,112,000 a layer, 4,096 the final norm). */
START_TEST(paged_optimizer_state)
{
    json_t *p, *c;
    const long long params = 8030261248LL;
    model("llama-3.1-8b.json", "finetune");
    run_ok("format bf16\nlength 2048\nmicrobatch 2\n"
           "estimate training optimizer=paged_adamw8bit precision=bf16 in_backward=yes\n"
           "estimate activations checkpointing=full attention=sdpa loss=chunked\nenvelope");
    p = lastp();
    c = named(p, "optimizer_state_paged");
    /* two 1-byte moments a parameter */
    ck_assert_int_eq(geti(c, "bytes"), 2 * params);
    ck_assert_str_eq(gets(c, "memory"), "managed");
    ck_assert_str_eq(gets(c, "class"), "optimizer");
    /* what stays in the allocator: an fp32 absmax per 256 values of each moment,
     * 2 x ceil(8,030,261,248 / 256) x 4 = 2 x 31,368,208 x 4 B */
    ck_assert_int_eq(geti(named(p, "optimizer_state"), "bytes"), 250945664LL);
    ck_assert_ptr_null(json_object_get(named(p, "optimizer_state"), "memory"));
    /* the worst phase (loss) holds it: weights 16,060,522,496 + one gradient
     * 128,256 x 4,096 x 2 = 1,050,673,152 + scales 250,945,664 + moments
     * 16,060,522,496 + layer inputs 1,073,741,824 + chunked logits 4,096 x
     * 128,256 x (2 + 2 / 8) = 1,182,007,296 = 35,678,412,928 B */
    ck_assert_str_eq(gets(p, "worst_phase"), "loss");
    ck_assert_int_eq(geti(p, "envelope_bytes"), 35678412928LL);
    ck_assert_int_eq(geti(p, "managed_bytes"), 2 * params);
    ck_assert_int_eq(geti(p, "allocator_bytes"), 35678412928LL - 2 * params);
    ck_assert_ptr_nonnull(strstr(text(last()), "CUDA managed memory"));
    ck_assert_ptr_nonnull(strstr(text(last()), "optimizer, managed memory"));
    /* each counter beside the part it sees: memory_reserved the allocator's,
     * max_memory_allocated the tensors' (the same here: no allocator cache) */
    ck_assert_ptr_nonnull(
        strstr(text(last()), "memory_reserved reports at most the allocator's part"));
    ck_assert_ptr_nonnull(strstr(text(last()), "max_memory_allocated at most the tensors'"));
    /* compare against torchtune's printed peak (README, 8B full finetune on a
     * 4090: 18.9 GiB of peak active memory, a counter of live tensors): the
     * allocator row is compare's total, every component summed (36,366,278,784 B:
     * the loss phase + the recomputed layer 687,865,856 B), less the managed
     * 16,060,522,496 B = 20,305,756,288 B; the tensors row, with no allocator
     * cache, the same, against 18.9 x 2^30 = 20,293,720,474 B */
    run_ok("record phase=train gpu=0 counter=torchtune.peak_memory_active 18.9GiB length=2048 "
           "microbatch=2\ncompare");
    {
        json_t *rows = json_object_get(lastp(), "rows"), *r, *a = NULL, *m = NULL, *t = NULL,
               *al = NULL;
        size_t i;
        json_array_foreach(rows, i, r)
        {
            if (!strcmp(gets(r, "class"), "tensors"))
                a = r;
            if (!strcmp(gets(r, "class"), "allocator"))
                al = r;
            if (!strcmp(gets(r, "class"), "managed memory"))
                m = r;
            if (!strcmp(gets(r, "class"), "total"))
                t = r;
        }
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(m);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(geti(t, "estimated_bytes"), 36366278784LL);
        ck_assert_int_eq(geti(m, "estimated_bytes"), 2 * params);
        ck_assert_ptr_nonnull(al);
        ck_assert_int_eq(geti(al, "estimated_bytes"), 20305756288LL);
        ck_assert(json_is_null(json_object_get(al, "measured_bytes")));
        ck_assert_int_eq(geti(a, "estimated_bytes"), 20305756288LL);
        ck_assert_int_eq(geti(a, "measured_bytes"), 20293720474LL);
        ck_assert_str_eq(gets(a, "measured_from"), "torchtune.peak_memory_active");
        ck_assert_str_eq(gets(a, "status"), "covers");
    }
    /* the 32-bit paged AdamW: float32 moments, 8 B a parameter, all managed */
    run_ok("estimate training optimizer=paged_adamw precision=bf16 in_backward=yes\nenvelope");
    ck_assert_int_eq(geti(named(lastp(), "optimizer_state_paged"), "bytes"), 8 * params);
    ck_assert_int_eq(geti(named(lastp(), "optimizer_state"), "bytes"), 0);
    ck_assert_int_eq(geti(lastp(), "managed_bytes"), 8 * params);
    /* another optimizer: the managed component goes, and so does the split */
    run_ok("estimate training optimizer=adamw8bit precision=bf16 in_backward=yes\nenvelope");
    ck_assert(!has(lastp(), "optimizer_state_paged"));
    ck_assert_int_eq(geti(named(lastp(), "optimizer_state"), "bytes"), 2 * params + 250945664LL);
    ck_assert_int_eq(geti(lastp(), "managed_bytes"), 0);
    ck_assert_int_eq(geti(lastp(), "allocator_bytes"), geti(lastp(), "envelope_bytes"));
}
END_TEST

/* The 8-bit AdamW step's own buffers: torchao's compiled step re-quantises each
 * moment of a parameter in one fused kernel and writes the new absmax of both
 * moments to fresh float32 buffers, one per block of 256 values. Llama-3.2-3B's
 * largest parameter is the tied embedding, 128,256 x 3,072 = 394,002,432
 * values: 1,539,072 blocks, 2 x 1,539,072 x 4 B = 12,312,576 B. In bf16 at
 * 4,096 x 2 with full checkpointing and the chunked loss:
 *   the state: 2 x 3,212,749,824 B + 2 x ceil(3,212,749,824 / 256) x 4 B
 *     = 6,425,499,648 + 100,398,432 = 6,525,898,080 B
 *   phase step: weights 6,425,499,648 + state 6,525,898,080 + gradients
 *     6,425,499,648 + 12,312,576 = 19,389,209,952 B, the envelope (the loss
 *     phase: 6,425,499,648 + 6,525,898,080 + 1,409,286,144 + 2,364,014,592 =
 *     16,724,698,464 B)
 *   in_backward=yes, the tied embedding stepped last, when the backward has
 *     freed the layers (phase step): 6,425,499,648 + 788,004,864 (its
 *     gradient) + 6,525,898,080 + 12,312,576 = 13,751,715,168 B; the layers'
 *     parameters stepped in the backward beside the layer recomputed, the
 *     largest 8,192 x 3,072 = 25,165,824 values, 2 x 98,304 x 4 = 786,432 B
 *     (optimizer_step_layers): phase backward 6,425,499,648 + 788,004,864 +
 *     6,525,898,080 + 1,409,286,144 + 872,415,232 (the recomputed layer) +
 *     786,432 = 16,021,890,400 B; the loss phase, 17,512,703,328 B, stays the
 *     envelope. */
START_TEST(optimizer_step_transient)
{
    json_t *p, *ph;
    size_t i;
    long long backward = -1, step = -1;
    model("llama-3.2-3b.json", "finetune");
    run_ok("format bf16\nlength 4096\nmicrobatch 2\n"
           "estimate training optimizer=adamw8bit precision=bf16\n"
           "estimate activations checkpointing=full attention=sdpa loss=chunked\nenvelope");
    p = lastp();
    ck_assert_int_eq(geti(named(p, "optimizer_step"), "bytes"), 2LL * 1539072 * 4);
    ck_assert_int_eq(2LL * 1539072 * 4, 12312576LL);
    ck_assert_int_eq(128256LL * 3072 / 256, 1539072LL);
    ck_assert_str_eq(gets(named(p, "optimizer_step"), "phase"), "step");
    ck_assert_str_eq(gets(named(p, "optimizer_step"), "class"), "optimizer");
    ck_assert_int_eq(geti(named(p, "optimizer_state"), "bytes"), 6525898080LL);
    ck_assert_str_eq(gets(p, "worst_phase"), "step");
    ck_assert_int_eq(geti(p, "envelope_bytes"), 19389209952LL);
    run_ok("estimate training optimizer=adamw8bit precision=bf16 in_backward=yes\nenvelope");
    p = lastp();
    ck_assert_str_eq(gets(named(p, "optimizer_step"), "phase"), "step");
    ck_assert_int_eq(geti(named(p, "optimizer_step_layers"), "bytes"),
                     2LL * (8192 * 3072 / 256) * 4);
    ck_assert_str_eq(gets(named(p, "optimizer_step_layers"), "phase"), "backward");
    ck_assert_str_eq(gets(p, "worst_phase"), "loss");
    ck_assert_int_eq(geti(p, "envelope_bytes"), 17512703328LL);
    ph = json_object_get(p, "phases");
    for (i = 0; i < json_array_size(ph); i++) {
        if (!strcmp(gets(json_array_get(ph, i), "name"), "backward"))
            backward = geti(json_array_get(ph, i), "bytes");
        if (!strcmp(gets(json_array_get(ph, i), "name"), "step"))
            step = geti(json_array_get(ph, i), "bytes");
    }
    ck_assert_int_eq(6425499648LL + 788004864 + 6525898080LL + 1409286144 + 872415232 + 786432,
                     16021890400LL);
    ck_assert_int_eq(backward, 16021890400LL);
    ck_assert_int_eq(6425499648LL + 788004864 + 6525898080LL + 12312576, 13751715168LL);
    ck_assert_int_eq(step, 13751715168LL);
    /* an untied output layer is stepped first in the backward, beside what the
     * forward saved: phase backward, and no layers' step apart */
    model("llama-3.1-8b.json", "finetune");
    run_ok("format bf16\nlength 4096\nmicrobatch 2\n"
           "estimate training optimizer=adamw8bit precision=bf16 in_backward=yes\nenvelope");
    p = lastp();
    ck_assert_str_eq(gets(named(p, "optimizer_step"), "phase"), "backward");
    ck_assert(!has(p, "optimizer_step_layers"));
    model("llama-3.2-3b.json", "finetune");
    run_ok("format bf16\nlength 4096\nmicrobatch 2\n"
           "estimate training optimizer=adamw8bit precision=bf16 in_backward=yes\n"
           "estimate activations checkpointing=full attention=sdpa loss=chunked\nenvelope");
    /* fused AdamW allocates nothing for its step: the component goes */
    run_ok("estimate training optimizer=adamw precision=bf16 in_backward=yes\nenvelope");
    ck_assert(!has(lastp(), "optimizer_step"));
    /* nor bitsandbytes' paged 8-bit AdamW, which updates in place */
    run_ok("estimate training optimizer=paged_adamw8bit precision=bf16\nenvelope");
    ck_assert(!has(lastp(), "optimizer_step"));
    /* an adapter's matrices are small: none for LoRA */
    run_ok("estimate training optimizer=adamw8bit precision=bf16\ntask lora\n"
           "estimate training lora rank=8 optimizer=adamw8bit\nenvelope");
    ck_assert(!has(lastp(), "optimizer_step"));
    /* without the architecture there is no largest parameter to step */
    run_ok("model n params=3212749824\ntask finetune\nestimate training optimizer=adamw8bit\n"
           "envelope");
    ck_assert(!has(lastp(), "optimizer_step"));
}
END_TEST

/* torch= names the release whose Inductor compiles torchao's step (the output
 * code itself: test_adamw8bit_step). Llama-3.2-3B's tied embedding, n =
 * 128,256 x 3,072 = 394,002,432 values in bf16, 1,539,072 blocks of 256:
 *   2.5: each step a float32 buffer of its shape, 4n = 1,576,009,728 B; the
 *     first step clones the parameter, both codes and both scales, each twice,
 *     2 x (2n + 2 x n + 2 x 1,539,072 x 4) = 3,176,644,608 B, beside triton
 *     3.1's 256,000,000 B flush buffer: 3,432,644,608 B;
 *   2.6: no buffer each step; the same clones and triton 3.2's 268,435,456 B:
 *     3,445,080,064 B. Both in phase step under in_backward=yes: the tied
 *     embedding is stepped last, after the backward's layers. */
START_TEST(optimizer_step_by_torch_release)
{
    json_t *p;
    long long adapter;
    model("llama-3.2-3b.json", "finetune");
    run_ok("format bf16\nlength 4096\nmicrobatch 2\n"
           "estimate training optimizer=adamw8bit precision=bf16 in_backward=yes torch=2.5\n"
           "estimate activations checkpointing=offload attention=sdpa loss=chunked\nenvelope");
    p = lastp();
    ck_assert_int_eq(128256LL * 3072, 394002432LL);
    ck_assert_int_eq(geti(named(p, "optimizer_step"), "bytes"), 394002432LL * 4);
    ck_assert_int_eq(geti(named(p, "optimizer_autotune"), "bytes"),
                     2 * (394002432LL * 2 + 2 * 394002432LL + 2 * 1539072LL * 4) + 256000000LL);
    ck_assert_int_eq(geti(named(p, "optimizer_autotune"), "bytes"), 3432644608LL);
    ck_assert_str_eq(gets(named(p, "optimizer_step"), "phase"), "step");
    ck_assert_str_eq(gets(named(p, "optimizer_autotune"), "phase"), "step");
    ck_assert_str_eq(gets(named(p, "optimizer_autotune"), "class"), "optimizer");
    ck_assert(strstr(gets(named(p, "optimizer_autotune"), "source"), "first step") != NULL);
    run_ok("estimate training optimizer=adamw8bit precision=bf16 in_backward=yes torch=2.6\n"
           "envelope");
    p = lastp();
    ck_assert(!has(p, "optimizer_step"));
    ck_assert_int_eq(geti(named(p, "optimizer_autotune"), "bytes"), 3176644608LL + 268435456LL);
    /* without torch=, 2.15: the two new absmax and no autotuning */
    run_ok("estimate training optimizer=adamw8bit precision=bf16 in_backward=yes\nenvelope");
    p = lastp();
    ck_assert_int_eq(geti(named(p, "optimizer_step"), "bytes"), 12312576LL);
    ck_assert(!has(p, "optimizer_autotune"));
    /* a release not read, and an optimizer Inductor does not compile */
    ck_assert_int_eq(run("estimate training optimizer=adamw8bit torch=2.7"), VS_EVALUE);
    ck_assert(strstr(err.message, "2.5, 2.6 and 2.15") != NULL);
    ck_assert_int_eq(run("estimate training optimizer=adamw torch=2.5"), VS_EVALUE);
    ck_assert(strstr(err.message, "optimizer=adamw8bit") != NULL);
    /* the refused lines left the sheet as it was */
    run_ok("envelope");
    p = lastp();
    ck_assert_int_eq(geti(named(p, "optimizer_step"), "bytes"), 12312576LL);
    /* an adapter's step is not estimated, so torch= would change nothing: refused,
     * and the sheet keeps what the line before gave */
    model("llama-3.2-3b.json", "lora");
    run_ok("format bf16\nestimate training lora rank=8 optimizer=adamw8bit\nenvelope");
    adapter = geti(named(lastp(), "adapter_weights"), "bytes");
    ck_assert_int_gt(adapter, 0);
    ck_assert_int_eq(run("estimate training lora rank=16 optimizer=adamw8bit torch=2.5"),
                     VS_EVALUE);
    ck_assert(strstr(err.message, "task finetune") != NULL);
    run_ok("envelope");
    p = lastp();
    ck_assert(!has(p, "optimizer_step"));
    ck_assert(!has(p, "optimizer_autotune"));
    ck_assert_int_eq(geti(named(p, "adapter_weights"), "bytes"), adapter);
}
END_TEST

START_TEST(lora_refusals)
{
    char cell[600];
    model("llama-3.1-8b.json", "lora");
    ck_assert_int_eq(run("estimate training lora"), VS_EVALUE);
    ck_assert(strstr(err.message, "rank=") != NULL);
    ck_assert_int_eq(run("estimate training lora rank=0"), VS_EVALUE);
    ck_assert_int_eq(run("estimate training lora rank=8 targets=q,x"), VS_EVALUE);
    ck_assert(strstr(err.message, "'x'") != NULL);
    ck_assert_int_eq(run("estimate training lora rank=8 trainable=100"), VS_EVALUE);
    ck_assert_int_eq(run("estimate training lora rank=8 extra"), VS_EVALUE);
    /* a fused-projection family is refused rather than guessed */
    snprintf(cell, sizeof cell, "model g config=%s/gpt2.json\nestimate training lora rank=8",
             VS_MODEL_CONFIGS);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert(strstr(err.message, "gpt2") != NULL);
    /* no architecture: the shapes are asked for */
    run_ok("model plain params=7e9\ntask lora");
    ck_assert_int_eq(run("estimate training lora rank=8"), VS_EVALUE);
    ck_assert(strstr(err.message, "config=") != NULL);
}
END_TEST

/* framework=unsloth, Llama-3.1-8B (hidden 4,096, intermediate 14,336, 32 heads,
 * kv 8 x 128 = 1,024) at 4,096 x 2 tokens (T = 8,192), by hand from what
 * Unsloth's kernels save a token: two Fast_RMS_Layernorm X and float32 r,
 * 2 x (8,192 + 4); LoRA_QKV's X 8,192; flash attention q 8,192, k and v 2,048
 * each, its output 8,192, log-sum-exp 32 x 4; LoRA_MLP's X 8,192, e and g
 * 28,672 each: 110,728 B; LoRA_MLP's backward beside them, the output, dY, DW
 * and DW's LoRA term before it is added in place, 8,192 + 8,192 + 28,672 +
 * 28,672 = 73,728 B: 184,456 B a token.
 *   full: the 32 inputs kept, 32 x 8,192 x 8,192 = 2,147,483,648 B, the top one
 *     the recomputed layer's X, so the layer is 8,192 x (184,456 - 8,192) =
 *     1,443,954,688 B
 *   offload: the embedding's output kept (a leaf the graph holds), 8,192 x
 *     8,192 = 67,108,864 B, the layer 8,192 x 184,456 = 1,511,063,552 B
 *   attention=xformers, offload: K and V saved at every head's width, 2 x 2 x
 *     (4,096 - 1,024) = 12,288 B a token more, 8,192 x 196,744 =
 *     1,611,726,848 B
 * The rotary tables, a cos and a sin of head_dim 128 a position: at 4,096
 * tokens as built, 4 x 8,192 = 32,768 positions (below the config's 131,072) in
 * float32, 2 x 32,768 x 128 x 4 = 33,554,432 B a table; at 40,000 tokens rebuilt
 * at 5 x 8,192 = 40,960 positions in bf16, 2 x 40,960 x 128 x 2 = 20,971,520 B.
 *   rope=shared (the default): one table, 33,554,432 / 20,971,520 B
 *   rope=layers: one in each of the 32 layers and the model's own as built,
 *     33 x 33,554,432 = 1,107,296,256 B / 32 x 20,971,520 + 33,554,432 =
 *     704,643,072 B
 * (the microbatch does not enter: the tables are by position). */
START_TEST(unsloth_activations)
{
    json_t *p;
    const char *act = "estimate activations attention=flash loss=cce framework=unsloth";
    char cell[300];
    model("llama-3.1-8b.json", "qlora");
    snprintf(cell, sizeof cell, "length 4096\nmicrobatch 2\n%s checkpointing=full", act);
    run_ok(cell);
    p = lastp();
    ck_assert_int_eq(geti(named(p, "activations"), "bytes"), 2147483648LL);
    ck_assert_int_eq(geti(named(p, "activations_recomputed"), "bytes"), 1443954688LL);
    ck_assert_int_eq(geti(json_object_get(p, "inputs"), "per_layer_bytes"), 8192LL * 110728);
    ck_assert_ptr_nonnull(strstr(gets(named(p, "activations_recomputed"), "source"), "LoRA_MLP"));
    ck_assert_int_eq(geti(named(p, "rope_cache"), "bytes"), 2LL * 32768 * 128 * 4);
    ck_assert_int_eq(2LL * 32768 * 128 * 4, 33554432LL);
    ck_assert_ptr_nonnull(strstr(gets(named(p, "rope_cache"), "source"), "float32"));
    snprintf(cell, sizeof cell, "%s checkpointing=full rope=layers", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "rope_cache"), "bytes"), 33LL * 33554432);
    ck_assert_int_eq(33LL * 33554432, 1107296256LL);
    snprintf(cell, sizeof cell, "length 40000\nmicrobatch 1\n%s checkpointing=offload", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "rope_cache"), "bytes"), 2LL * 40960 * 128 * 2);
    ck_assert_int_eq(2LL * 40960 * 128 * 2, 20971520LL);
    ck_assert_ptr_nonnull(strstr(gets(named(lastp(), "rope_cache"), "source"), "8,192"));
    snprintf(cell, sizeof cell, "%s checkpointing=offload rope=layers", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "rope_cache"), "bytes"), 32LL * 20971520 + 33554432);
    ck_assert_int_eq(32LL * 20971520 + 33554432, 704643072LL);
    /* rope= is Unsloth's, and names one of two layouts */
    ck_assert_int_eq(run("estimate activations attention=flash checkpointing=offload rope=layers"),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "framework=unsloth"));
    snprintf(cell, sizeof cell, "%s checkpointing=offload rope=each", act);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "shared or layers"));
    /* autograd's layer (framework=pytorch) has no such tables: the component goes */
    run_ok("estimate activations attention=flash loss=cce checkpointing=offload");
    ck_assert(!has(lastp(), "rope_cache"));
    run_ok("length 4096\nmicrobatch 2");
    snprintf(cell, sizeof cell, "%s checkpointing=offload", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "activations"), "bytes"), 8192LL * 8192);
    ck_assert_int_eq(8192LL * 8192, 67108864LL);
    ck_assert_int_eq(geti(named(lastp(), "activations_recomputed"), "bytes"), 1511063552LL);
    ck_assert_int_eq(8192LL * (110728 + 2 * 4096 + 2 * 4096 + 2 * 14336 + 2 * 14336), 1511063552LL);
    ck_assert_ptr_nonnull(strstr(gets(named(lastp(), "activations"), "source"), "embedding"));
    snprintf(cell, sizeof cell,
             "estimate activations attention=xformers loss=cce framework=unsloth "
             "checkpointing=offload");
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "activations_recomputed"), "bytes"),
                     8192LL * (184456 + 2 * 2 * (4096 - 1024)));
    ck_assert_int_eq(8192LL * (184456 + 2 * 2 * (4096 - 1024)), 1611726848LL);
    ck_assert_int_eq(run("estimate activations attention=xformers checkpointing=offload"),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "framework=unsloth"));
    snprintf(cell, sizeof cell, "%s checkpointing=offload", act);
    run_ok(cell);
    /* what Unsloth does not run is refused, the sheet unchanged */
    snprintf(cell, sizeof cell, "%s checkpointing=none", act);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "checkpointing=full or offload"));
    run_ok("envelope");
    ck_assert_int_eq(geti(named(lastp(), "activations_recomputed"), "bytes"), 1511063552LL);
    ck_assert_int_eq(run("estimate activations attention=eager framework=unsloth "
                         "checkpointing=offload"),
                     VS_EVALUE);
    ck_assert_int_eq(run("estimate activations framework=jax checkpointing=offload"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "framework must be pytorch or unsloth"));
    ck_assert_int_eq(run("estimate activations layers=32 hidden=4096 framework=unsloth "
                         "checkpointing=offload attention=flash"),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "Llama-shaped decoder"));
}
END_TEST

/* Unsloth's loss before Cut Cross-Entropy (loss=unsloth, read in unsloth 2024.8,
 * 2024.9.post1 and 2024.10.0: CausalLM_fast_forward's 16-bit logits, which
 * Fast_CrossEntropyLoss saves and writes its gradient over), by hand for
 * Llama-3.2-3B (hidden 3,072, vocabulary 128,256, 28 layers, head_dim 128) at
 * 2,048 x 2 tokens, T = 4,096:
 *   the logits, 4,096 x 128,256 x 2 = 1,050,673,152 B;
 *   ceil(128,256 / 65,536) = 2 blocks: the float32 losses, the blocks'
 *     log-sum-exps and their reduction, 4,096 x 4 x (2 + 2) = 65,536 B;
 *   the gradient into the hidden state, 4,096 x 3,072 x 2 = 25,165,824 B,
 *     the larger: 1,075,838,976 B;
 *   outputs=fp32 (accelerate's convert_outputs_to_fp32 under the Trainer's
 *     fp16=True): the float32 copy of the returned logits and the saved
 *     log-sum-exp, 4,096 x 128,256 x 4 + 4,096 x 4 = 2,101,362,688 B, the
 *     largest: 1,050,673,152 + 2,101,362,688 = 3,152,035,840 B.
 * A 32,000 vocabulary is one block: 4,096 x 32,000 x 2 + 25,165,824 =
 * 287,309,824 B. Ten tokens of a 1-wide state over 200,000 entries: 4 blocks,
 * 10 x 4 x 6 = 240 B above the 2,000,000 x 2 B logits, the hidden's 20 B less.
 * The rotary tables under rope_cast=16bit (post_patch casts them to the model's
 * dtype): 2 x 32,768 x 128 x 2 = 16,777,216 B a table, 29 under rope=layers,
 * 486,539,264 B; at 40,000 tokens 28 rebuilt at 40,960 positions in 16 bits,
 * 28 x 20,971,520 + 16,777,216 (the model's as built) = 603,979,776 B. */
START_TEST(unsloth_loss_before_cce)
{
    const char *act = "estimate activations attention=xformers checkpointing=offload "
                      "framework=unsloth";
    char cell[400];
    vs_unsloth_loss_est e;
    json_t *p;
    model("llama-3.2-3b.json", "qlora");
    snprintf(cell, sizeof cell, "length 2048\nmicrobatch 2\n%s loss=unsloth", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "logits"), "bytes"), 1050673152LL + 25165824LL);
    ck_assert_int_eq(4096LL * 128256 * 2, 1050673152LL);
    ck_assert_int_eq(4096LL * 3072 * 2, 25165824LL);
    ck_assert_ptr_nonnull(
        strstr(gets(named(lastp(), "logits"), "source"), "Fast_CrossEntropyLoss"));
    snprintf(cell, sizeof cell, "%s loss=unsloth outputs=native", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "logits"), "bytes"), 1075838976LL);
    snprintf(cell, sizeof cell, "%s loss=unsloth outputs=fp32", act);
    run_ok(cell);
    p = lastp();
    ck_assert_int_eq(geti(named(p, "logits"), "bytes"), 3152035840LL);
    ck_assert_int_eq(1050673152LL + 4096LL * 128256 * 4 + 4096 * 4, 3152035840LL);
    ck_assert_str_eq(gets(named(p, "logits"), "phase"), "loss");
    ck_assert_ptr_nonnull(strstr(gets(named(p, "logits"), "source"), "convert_outputs_to_fp32"));
    snprintf(cell, sizeof cell, "%s loss=unsloth vocab=32000", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "logits"), "bytes"), 4096LL * 32000 * 2 + 25165824LL);
    ck_assert_int_eq(4096LL * 32000 * 2 + 25165824LL, 287309824LL);
    ck_assert_int_eq(vs_estimate_loss_unsloth(&e, 10, 1, 200000, 0, &err), 0);
    ck_assert_uint_eq(e.chunks, 4);
    ck_assert_uint_eq(e.forward, 240);
    ck_assert_uint_eq(e.grad_hidden, 20);
    ck_assert_uint_eq(e.total, 4000240);
    /* the rotary tables in 16 bits */
    snprintf(cell, sizeof cell, "%s loss=unsloth rope=layers rope_cast=16bit", act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "rope_cache"), "bytes"), 29LL * 2 * 32768 * 128 * 2);
    ck_assert_int_eq(29LL * 16777216, 486539264LL);
    ck_assert_ptr_nonnull(strstr(gets(named(lastp(), "rope_cache"), "source"), "post_patch"));
    snprintf(cell, sizeof cell,
             "length 40000\nmicrobatch 1\n%s loss=unsloth rope=layers "
             "rope_cast=16bit",
             act);
    run_ok(cell);
    ck_assert_int_eq(geti(named(lastp(), "rope_cache"), "bytes"), 28LL * 20971520 + 16777216);
    ck_assert_int_eq(28LL * 20971520 + 16777216, 603979776LL);
    /* each goes with what it describes, the sheet unchanged */
    ck_assert_int_eq(run("estimate activations attention=flash checkpointing=offload "
                         "loss=unsloth"),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "loss=unsloth goes with framework=unsloth"));
    snprintf(cell, sizeof cell, "%s loss=cce outputs=fp32", act);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "outputs= goes with loss=unsloth"));
    snprintf(cell, sizeof cell, "%s loss=unsloth outputs=bf16", act);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "outputs must be fp32 or native"));
    snprintf(cell, sizeof cell, "%s loss=unsloth rope_cast=8bit", act);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "rope_cast must be 16bit"));
    ck_assert_int_eq(run("estimate activations attention=flash checkpointing=offload "
                         "rope_cast=16bit"),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "rope_cast= goes with framework=unsloth"));
    run_ok("envelope");
    ck_assert_int_eq(geti(named(lastp(), "rope_cache"), "bytes"), 28LL * 20971520 + 16777216);
}
END_TEST

/* An adapter's gradients in the backward: Unsloth's QLoRA of Llama-3.1-8B, rank
 * 32 on the seven projections, its adapter in float32 (precision=fp32), at
 * 4,096 x 2 tokens (T = 8,192) under offload. Trainable by hand: 32 x (q 4,096 +
 * 4,096, k 4,096 + 1,024, v 4,096 + 1,024, o 4,096 + 4,096, gate, up, down
 * 4,096 + 14,336 each) = 32 x 81,920 = 2,621,440 a layer, x 32 = 83,886,080;
 * the adapter and its gradients 4 B each, 335,544,320 B. The gradients fill as
 * each layer's backward ends, so the layer recomputed last runs beside them:
 * phases backward and step. With the rotary tables, the adapter, its 8-bit
 * moments and the dequantisation buffer in every phase, the backward less the
 * step is what the forward keeps and the recomputed layer, the embedding's
 * output 8,192 x 8,192 = 67,108,864 and 8,192 x 184,456 = 1,511,063,552 B:
 * 1,578,172,416 B; the loss phase has the gradients' place taken by Cut
 * Cross-Entropy's 8,192 x (a float32 log-sum-exp 4 + an int64 label index 8 +
 * the gradient into the hidden state 2 x 4,096) = 67,207,168 B, the recomputed
 * layer not yet made, and under cce=24.12 (cut-cross-entropy 24.11.4 to 24.12.3,
 * cce_backward.py: dc = torch.zeros_like(c) for a frozen lm_head too) the
 * output layer's gradient, 128,256 x 4,096 x 2 = 1,050,673,152 B, more; the
 * backward stays the worst. The step phase by hand, each term from the shapes (hidden
 * 4,096, kv 1,024, intermediate 14,336, 32 layers, vocabulary 128,256,
 * head_dim 128):
 *   weights: the 224 linear matrices' 6,979,321,856 values two a byte, their
 *     double-quantised absmax (an 8-bit one per 64, an fp32 one per 64 x 256,
 *     a 4-byte offset and 1,088 B of code tables a matrix), embed_tokens and
 *     lm_head in bf16 and the 65 norms (qlora_base_and_dequant_buffer)
 *                                                          5,702,540,160
 *   the adapter, 83,886,080 x 4 B                            335,544,320
 *   its gradients, 83,886,080 x 4 B                          335,544,320
 *   its 8-bit moments, 2 x 83,886,080 + 2 x 327,680 x 4      170,393,600
 *   the rotary table, 2 x 32,768 positions x 128 x 4 B        33,554,432
 *   the largest layer dequantised, 4,096 x 14,336 x 2 B      117,440,512
 *                                                          6,695,017,344 */
START_TEST(adapter_gradients_in_the_backward)
{
    json_t *p, *ph;
    long long by[3] = {-1, -1, -1};
    size_t i;
    const char *names[3] = {"step", "loss", "backward"};
    model("llama-3.1-8b.json", "qlora");
    run_ok("format nf4\nlength 4096\nmicrobatch 2\n"
           "estimate training lora rank=32 targets=all-linear optimizer=adamw8bit precision=fp32\n"
           "estimate activations checkpointing=offload attention=flash loss=cce "
           "framework=unsloth\nenvelope");
    p = lastp();
    ck_assert_int_eq(32LL * (8192 + 5120 + 5120 + 8192 + 3 * 18432), 2621440LL);
    ck_assert_int_eq(geti(named(p, "gradients"), "bytes"), 32LL * 2621440 * 4);
    ck_assert_int_eq(geti(named(p, "adapter_weights"), "bytes"), 335544320LL);
    ck_assert_str_eq(gets(named(p, "gradients"), "phase"), "backward,step");
    ph = json_object_get(p, "phases");
    for (i = 0; i < json_array_size(ph); i++) {
        size_t k;
        for (k = 0; k < 3; k++)
            if (!strcmp(gets(json_array_get(ph, i), "name"), names[k]))
                by[k] = geti(json_array_get(ph, i), "bytes");
    }
    {
        const long long linear = 32LL * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336);
        const long long weights = linear / 2 + linear / 64 + linear / 64 / 256 * 4 +
                                  224 * (4 + 1088) + 2 * 128256LL * 4096 * 2 + 65 * 4096 * 2;
        const long long trainable = 32 * 2621440LL;
        const long long state = 2 * trainable + 2 * (trainable / 256) * 4;
        const long long rope = 2 * 32768LL * 128 * 4, dequant = 4096LL * 14336 * 2;
        ck_assert_int_eq(linear, 6979321856LL);
        ck_assert_int_eq(weights, 5702540160LL);
        ck_assert_int_eq(trainable % 256, 0);
        ck_assert_int_eq(state, 170393600LL);
        ck_assert_int_eq(by[0], weights + 4 * trainable + 4 * trainable + state + rope + dequant);
        ck_assert_int_eq(by[0], 6695017344LL);
        ck_assert_int_eq(by[2], 6695017344LL + 1578172416LL);
    }
    ck_assert_int_eq(by[2] - by[0], 8192LL * 8192 + 8192LL * 184456);
    ck_assert_int_eq(8192LL * 8192 + 8192LL * 184456, 1578172416LL);
    ck_assert_int_eq(by[1], by[2] - 8192LL * 184456 - 335544320 + 8192LL * (4 + 8 + 2 * 4096));
    ck_assert_int_eq(8192LL * (4 + 8 + 2 * 4096), 67207168LL);
    ck_assert_str_eq(gets(p, "worst_phase"), "backward");
    ck_assert_int_eq(geti(p, "envelope_bytes"), by[2]);
    {
        const long long loss = by[1], backward = by[2];
        run_ok("estimate activations checkpointing=offload attention=flash loss=cce cce=24.12 "
               "framework=unsloth\nenvelope");
        ph = json_object_get(lastp(), "phases");
        for (i = 0; i < json_array_size(ph); i++) {
            if (!strcmp(gets(json_array_get(ph, i), "name"), "loss"))
                ck_assert_int_eq(geti(json_array_get(ph, i), "bytes"), loss + 128256LL * 4096 * 2);
            if (!strcmp(gets(json_array_get(ph, i), "name"), "backward"))
                ck_assert_int_eq(geti(json_array_get(ph, i), "bytes"), backward);
        }
        ck_assert_int_eq(128256LL * 4096 * 2, 1050673152LL);
        ck_assert_str_eq(gets(lastp(), "worst_phase"), "backward");
    }
    /* a full finetune's gradients stay the step's: they take the place of what the backward frees
     */
    model("llama-3.2-3b.json", "finetune");
    run_ok("estimate training optimizer=adamw precision=bf16");
    ck_assert_str_eq(gets(named(lastp(), "gradients"), "phase"), "step");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lora");
    TCase *tc = tcase_create("lora");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, llama_rank16_all_projections);
    tcase_add_test(tc, lora_follows_the_model);
    tcase_add_test(tc, moe_experts_at_their_own_size);
    tcase_add_test(tc, qlora_base_and_dequant_buffer);
    tcase_add_test(tc, lora_refusals);
    tcase_add_test(tc, training_step_phases);
    tcase_add_test(tc, paged_optimizer_state);
    tcase_add_test(tc, optimizer_step_transient);
    tcase_add_test(tc, optimizer_step_by_torch_release);
    tcase_add_test(tc, unsloth_activations);
    tcase_add_test(tc, unsloth_loss_before_cce);
    tcase_add_test(tc, adapter_gradients_in_the_backward);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
