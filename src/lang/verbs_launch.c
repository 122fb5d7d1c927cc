/* `launch`: the command that starts the card's engine on each offer that fits
 * (engine/launch.h), recorded in the sheet's "launch" key. */
#include <stdlib.h>
#include <string.h>

#include "engine/fit.h"
#include "engine/launch.h"
#include "lang/verb.h"
#include "lang/verbs_common.h"
#include "render/launch.h"
#include "sheet/classify.h"
#include "sheet/sheet.h"
#include "util/buf.h"

static int verb_launch(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const keys[] = {NULL};
    json_t *sheet = vs_ctx_sheet(ctx), *offers = NULL, *launches = NULL, *refused = NULL, *o;
    const vs_launch_rule *rule;
    vs_fit_ctx c;
    size_t i;
    int rc, prepared = 0;
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, keys, err)) < 0)
        return rc;
    if ((rc = vs_fit_prepare(&c, sheet, err)) < 0)
        return rc;
    prepared = 1;
    rule = vs_launch_find(c.engine->name);
    if (!rule) {
        char names[160];
        vs_launch_engine_list(names, sizeof names);
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "the card's engine is %s, which has no command line: declare one of "
                             "%s with `engine NAME` first",
                             c.engine->name, names);
        goto done;
    }
    offers = json_array();
    launches = json_array();
    refused = json_array();
    if (!offers || !launches || !refused) {
        rc = vs_error_oom(err);
        goto done;
    }
    if (vs_line_npositional(line) == 0) {
        json_array_extend(offers, vs_sheet_array(sheet, VS_SK_OFFERS));
    } else {
        for (i = 0; i < vs_line_npositional(line); i++) {
            const vs_arg *a = vs_line_positional(line, i);
            json_t *found = vs_classify_offer_find(sheet, a->value);
            if (!found) {
                rc = vs_error_set_at(err, VS_ENOTFOUND, a->line, a->column,
                                     "no offer '%s' on the sheet (add it with `gpu \"%s\"`)",
                                     a->value, a->value);
                goto done;
            }
            json_array_append(offers, found);
        }
    }
    if (json_array_size(offers) == 0) {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "no offer to launch on: add one with `gpu NAME`");
        goto done;
    }
    json_array_foreach(offers, i, o)
    {
        vs_fit_row row;
        vs_launch_in in;
        json_t *l = NULL;
        vs_error why;
        if ((rc = vs_fit_offer(&row, &c, o, NULL, 0, err)) < 0)
            goto done;
        in.sheet = sheet;
        in.ctx = &c;
        in.row = &row;
        rc = vs_launch_build(&l, &in, &why);
        vs_fit_row_free(&row);
        if (rc == VS_EVALUE) {
            json_array_append_new(refused,
                                  json_pack("{s:s, s:s}", "offer", row.gpu, "reason", why.message));
            continue;
        }
        if (rc < 0) {
            *err = why;
            goto done;
        }
        json_array_append_new(launches, l);
    }
    if (json_array_size(launches) == 0) {
        vs_buf b = VS_BUF_INIT;
        json_t *r;
        json_array_foreach(refused, i, r) vs_buf_printf(
            &b, "%s%s", i ? "; " : "", json_string_value(json_object_get(r, "reason")));
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "launch refused: no offer holds the card: %s", vs_buf_str(&b));
        vs_buf_free(&b);
        goto done;
    }
    /* the record keeps what would be launched, so reproduce and git log show it */
    if (json_object_set(sheet, "launch", launches)) {
        rc = vs_error_oom(err);
        goto done;
    }
    rc = vs_verb_emit(ctx,
                      vs_render_launch(rule->engine, vs_launch_release_of(rule, &c.env)->source,
                                       launches, refused),
                      err);
done:
    json_decref(offers);
    json_decref(launches);
    json_decref(refused);
    if (prepared)
        vs_fit_ctx_free(&c);
    return rc;
}

static const char launch_help[] =
    "For each offer (or the offers named) that holds the card under its engine and placement "
    "(`fit`'s verdict admissible or to-confirm), the exact command that starts the engine "
    "with the sheet's own figures: the model and revision, the tensor-parallel ways, the "
    "context, the memory fraction, the sequences, the KV cache type. An offer `fit` excludes "
    "gets no command, with fit's reason; when none holds the card the line is refused. The "
    "commands are kept in the record (sheet.json's launch, a section of sheet.md), so "
    "`reproduce` and `git log -p` show what was launched. Payload kind launch.\n"
    "Host memory: when the fit excludes an offer only for want of memory and the offer "
    "declares its host memory (`gpu \"RTX 4090\" host=64GB`), the weights the GPU cannot "
    "hold go to the host: llama.cpp keeps the routed experts of the first K layers on the "
    "CPU (--n-cpu-moe K, the smallest K) for a mixture of experts, else the first layers "
    "(-ngl N, the most layers on the GPU), the token embedding always on the CPU "
    "(src/llama-model.cpp load_tensors); vLLM offloads the shortfall rounded up to GiB per "
    "GPU (--cpu-offload-gb). The launch then lists the bytes per device (each GPU, the "
    "host: the offloaded tensors' bytes, what host memory must hold resident), and says that "
    "throughput drops. Under llama.cpp with the weights on mmap (its default) the host's "
    "entry also gives mapped_bytes: the span of the file from the first to the last tensor "
    "kept on the CPU (src/llama-model-loader.cpp get_mapping_range), which llama.cpp prints "
    "as its host model buffer; it lies in the page cache, and only the pages read become "
    "resident. The span follows the GGUF's own tensor order when `weights from=` names one "
    "file, else the order llama-quantize writes (the tensors outside the layers first, then "
    "each layer), and the note says which; engine key mmap=no writes --no-mmap (--load-mode "
    "none at 0c1e570, which has no --no-mmap) and the host "
    "buffer is then the tensors alone. A host smaller than the offloaded part is refused as "
    "exclude, on its "
    "own line.\n"
    "Uneven splits: `placement tensor gpus=2 split=3,1` writes llama.cpp's -ts 3,1 and each "
    "GPU's share of the weights and the KV cache, as fit sized it; a share beyond a GPU's "
    "budget makes fit exclude the offer (naming the GPU) and the launch is refused, and vLLM "
    "and SGLang, which split every layer evenly, refuse split=.\n"
    "Releases: the flags are those of the release the engine line names (vllm version=, "
    "llamacpp build=, sglang and tensorrt_llm version=; the newest modelled without it), each "
    "checked against that release's argument table, kept with its source commit:\n"
    "  vllm 0.11.0    vllm/engine/arg_utils.py at vllm-project/vllm 99d7eb5 (v0.11-era)\n"
    "  vllm 0.12.0 to 0.19.0  the 0.11.0 table standing for each (their own arg_utils.py "
    "not read: a flag a later release added or removed is not known)\n"
    "  vllm 0.10.2    the same less --kv-cache-memory-bytes (vllm-project/vllm#21489, not "
    "placed before 0.10.2 by any stored source): a sheet with kv_cache_memory= gets no command "
    "under 0.10.2, as one without the flag would size the pool from gpu_memory_utilization, "
    "not as the sheet does\n"
    "  llamacpp 0c1e570  common/arg.cpp of the tree llama-cpp-python 0.3.36 vendors, read "
    "whole\n"
    "  llamacpp b6325, b6324  common/arg.cpp at ggml-org/llama.cpp 145b628 less the --fit "
    "options (ggml-org/llama.cpp#16653, after b6325): no --fit-target; b6324's -fa is a bare "
    "flag (a value from b6325, #15434)\n"
    "  sglang 0.4     python/sglang/srt/server_args.py at sgl-project/sglang 001067f\n"
    "  tensorrt_llm 0.21.0, 1.0.0  tensorrt_llm/commands/serve.py at NVIDIA/TensorRT-LLM "
    "4c05a74, the one stored, standing for both\n"
    "  transformers   modeling_utils.py of transformers v5.24.0 (from_pretrained)\n"
    "The flags and where each comes from:\n"
    "vllm: vllm serve MODEL\n"
    "  MODEL                     card.model (vllm serve's positional model tag)\n"
    "  --revision R              card.revision, when set (ModelConfig.revision)\n"
    "  --tensor-parallel-size N  the placement's tensor ways (ParallelConfig)\n"
    "  --max-model-len L         engine key max_model_len, else the card's length\n"
    "  --gpu-memory-utilization U  engine key gpu_memory_utilization (CacheConfig)\n"
    "  --max-num-seqs C          engine key max_num_seqs (SchedulerConfig)\n"
    "  --kv-cache-memory-bytes B engine key kv_cache_memory, when given (CacheConfig; not in "
    "0.10.2's table)\n"
    "  --kv-cache-dtype D        engine key kv_cache_dtype, when not auto (CacheConfig)\n"
    "  --enforce-eager           engine key enforce_eager=yes (ModelConfig)\n"
    "  --cpu-offload-gb G        GiB of weights per GPU in host memory, when offloading "
    "(CacheConfig)\n"
    "  all read in vllm/engine/arg_utils.py (EngineArgs.add_cli_args), vllm-project/vllm 99d7eb5 "
    "(v0.11; the releases above)\n"
    "llamacpp: llama-server -m FILE\n"
    "  -m FILE        the GGUF of `weights from=`, else card.model (-m, --model)\n"
    "  -c CTX         ctx x parallel: llama-server's context is every slot's together "
    "(-c, --ctx-size)\n"
    "  -np N          engine key parallel, else the card's concurrency (-np, --parallel)\n"
    "  -fa W          engine key flash_attn (-fa, --flash-attn on|off|auto; b6324: -fa alone "
    "when on)\n"
    "  -ctk/-ctv T    engine keys cache_type_k, cache_type_v (--cache-type-k/-v)\n"
    "  -ngl N         engine key n_gpu_layers when given, else layers + 1: every "
    "repeating layer and the output on the GPU "
    "(src/llama-model.cpp load_tensors: act_gpu_layers = min(n_gpu_layers, n_layer + 1))\n"
    "  --n-cpu-moe K  the first K layers' routed experts in host memory, when offloading "
    "(--n-cpu-moe, -ncmoe)\n"
    "  -ts A,B        placement tensor's split= (-ts, --tensor-split)\n"
    "  --no-mmap      engine key mmap=no (--mmap, --no-mmap; 0c1e570: -lm, --load-mode none)\n"
    "  --swa-full, -kvu, -nkvo  engine keys swa_full=yes, kv_unified=yes, "
    "no_kv_offload=yes\n"
    "  --fit-target MiB  engine key fit_target, when given (-fitt, --fit-target; 0c1e570 only)\n"
    "  all read in common/arg.cpp (common_params_parser_init): 0c1e570's tree, 145b628 for "
    "b6324 and b6325\n"
    "sglang: python -m sglang.launch_server\n"
    "  --model-path MODEL          card.model (ServerArgs.model_path)\n"
    "  --revision R                card.revision, when set (ServerArgs.revision)\n"
    "  --tp-size N                 the placement's tensor ways (ServerArgs.tp_size)\n"
    "  --mem-fraction-static F     engine key mem_fraction_static when given (unset, SGLang "
    "chooses it as engine sglang does)\n"
    "  --context-length L          the card's length (ServerArgs.context_length)\n"
    "  --max-total-tokens T        the KV pool's tokens by the fit, when known (ServerArgs)\n"
    "  --kv-cache-dtype D          engine key kv_cache_dtype, when not auto (ServerArgs)\n"
    "  all read in python/sglang/srt/server_args.py (ServerArgs: a field's flag is its name with "
    "dashes, tp_size -> --tp-size), sgl-project/sglang 001067f\n"
    "tensorrt_llm: trtllm-serve MODEL (the serve command, run when the first word is no "
    "subcommand)\n"
    "  MODEL                                 card.model\n"
    "  --backend pytorch                     the backend whose KV rule fit models (the default)\n"
    "  --tp_size N                           the placement's tensor ways\n"
    "  --max_batch_size C                    the card's concurrency\n"
    "  --max_seq_len L                       the card's length\n"
    "  --kv_cache_free_gpu_memory_fraction F engine key free_gpu_memory_fraction "
    "(KvCacheConfig)\n"
    "  --max_num_tokens stays the release's default; kv_cache_dtype=fp8 has no flag (the note "
    "says the --extra_llm_api_options YAML to write)\n"
    "  all read in tensorrt_llm/commands/serve.py (serve's click options), NVIDIA/TensorRT-LLM "
    "4c05a74\n"
    "transformers: python -c \"...from_pretrained(MODEL, ...)\" (no server: the line a script "
    "starts with)\n"
    "  revision=R              card.revision, when set\n"
    "  dtype=D                 the card's format (bf16, fp16, fp32), else \"auto\" (the "
    "checkpoint's)\n"
    "  device_map=\"auto\"       whole modules on the GPUs up to max_memory, the rest on the "
    "CPU (accelerate)\n"
    "  max_memory={0: \"NMiB\"}  each GPU's budget less the KV cache and the other components; "
    "\"cpu\" the offloaded part, when offloading\n"
    "  attn_implementation=A   engine key attention (flash: flash_attention_2)\n"
    "  all read in src/transformers/modeling_utils.py (PreTrainedModel.from_pretrained), "
    "transformers v5.24.0";

const vs_verb vs_verbs_launch[] = {{"launch", verb_launch, "launch [OFFER ...]",
                                    "the engine's command line for each offer that holds the card",
                                    launch_help, NULL, NULL, 0, NULL},
                                   {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL}};
