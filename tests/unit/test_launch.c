/* launch: each engine's command from the sheet's figures, worked by hand; every
 * flag it writes is in that release's argument table (tests/data/launch/, read in
 * the engines' parsers with their commits); an offer the fit excludes gets none;
 * the record and sheet.md keep the command. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cell_run.h"
#include "check_run.h"
#include "engine/engine.h"
#include "engine/launch.h"
#include "render/markdown.h"
#include "results.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif

#ifndef VS_MODEL_CONFIGS
#define VS_MODEL_CONFIGS "tests/model/configs"
#endif

/* 1 when flag is a line of tests/data/launch/<engine>-<release>-args.txt, the
 * argument table of that release (a release without one fails here) */
static int in_table(const char *engine, const char *release, const char *flag)
{
    char path[1024], line[256];
    FILE *f;
    int found = 0;
    snprintf(path, sizeof path, "%s/tests/data/launch/%s-%s-args.txt", VS_SOURCE_DIR, engine,
             release);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "release %s of %s has no argument table: %s", release, engine, path);
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        found = line[0] != '#' && !strcmp(line, flag);
    }
    fclose(f);
    return found;
}

/* every word of argv from `from` on that starts with '-' is a flag of the table */
static void flags_in_table(const json_t *l, const char *engine, const char *release, size_t from)
{
    const json_t *argv = json_object_get(l, "argv"), *w;
    size_t i, n = 0;
    json_array_foreach(argv, i, w)
    {
        const char *s = json_string_value(w);
        if (i < from || s[0] != '-')
            continue;
        ck_assert_msg(in_table(engine, release, s), "%s %s: flag %s is not in its argument table",
                      engine, release, s);
        n++;
    }
    ck_assert_int_gt(n, 3);
}

static const json_t *launch_of(size_t i)
{
    json_t *p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "launch");
    return json_array_get(json_object_get(p, "launches"), i);
}

START_TEST(vllm_command)
{
    const json_t *l;
    run_ok("sheet \"launch vllm\"\n"
           "model Qwen/Qwen3-8B params=8.19B revision=abc123\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 64\n"
           "estimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\n"
           "engine vllm gpu_memory_utilization=0.85 max_num_seqs=64 kv_cache_dtype=fp8 "
           "enforce_eager=yes\n"
           "launch");
    l = launch_of(0);
    ck_assert_str_eq(gets((json_t *)l, "offer"), "H100 SXM");
    /* by hand: the card's model and revision, one GPU, the card's length as
     * max_model_len, 0.85 written as typed, the keys given */
    ck_assert_str_eq(gets((json_t *)l, "command"),
                     "vllm serve Qwen/Qwen3-8B --revision abc123 --tensor-parallel-size 1 "
                     "--max-model-len 8192 --gpu-memory-utilization 0.85 --max-num-seqs 64 "
                     "--kv-cache-dtype fp8 --enforce-eager");
    flags_in_table(l, "vllm", "0.11.0", 3);
    /* two ways of tensor parallelism; the pool given directly replaces the fraction */
    run_ok("gpu \"H100 SXM\" cards=2\nplacement tensor gpus=2\nconcurrency 16\n"
           "engine vllm kv_cache_memory=20GiB\nlaunch");
    l = launch_of(0);
    ck_assert_str_eq(gets((json_t *)l, "command"),
                     "vllm serve Qwen/Qwen3-8B --revision abc123 --tensor-parallel-size 2 "
                     "--max-model-len 8192 --kv-cache-memory-bytes 21474836480 --max-num-seqs 256");
    flags_in_table(l, "vllm", "0.11.0", 3);
}
END_TEST

START_TEST(llamacpp_command)
{
    const json_t *l;
    run_ok("sheet \"launch llama\"\n"
           "model m7b params=7.24B\nformat int4\ntask inference\nlength 2048\nconcurrency 4\n"
           "estimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"RTX 4090\"\n"
           "engine llamacpp flash_attn=on cache_type_k=q8_0 cache_type_v=q8_0 fit_target=512MiB\n"
           "launch");
    l = launch_of(0);
    /* -c is every slot's context: 2048 x 4 = 8192; -ngl 32 layers + the output = 33;
     * 512 MiB as --fit-target's MiB */
    ck_assert_str_eq(gets((json_t *)l, "command"),
                     "llama-server -m m7b -c 8192 -np 4 -fa on -ctk q8_0 -ctv q8_0 -ngl 33 "
                     "--fit-target 512");
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "no GGUF file"));
    flags_in_table(l, "llamacpp", "0c1e570", 1);
}
END_TEST

START_TEST(sglang_command)
{
    const json_t *l;
    run_ok("sheet \"launch sglang\"\n"
           "model Qwen/Qwen3-8B params=8.19B\nformat bf16\ntask inference\n"
           "length 32768\nconcurrency 8\n"
           "estimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\n"
           "engine sglang mem_fraction_static=0.8\n"
           "launch");
    l = launch_of(0);
    {
        const char *cmd = gets((json_t *)l, "command");
        const char *want = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                           "--tp-size 1 --mem-fraction-static 0.8 --context-length 32768";
        ck_assert_msg(!strncmp(cmd, want, strlen(want)), "%s", cmd);
    }
    /* from the third word: python's own -m is not SGLang's */
    flags_in_table(l, "sglang", "0.4", 3);
}
END_TEST

START_TEST(tensorrt_llm_command)
{
    const json_t *l;
    run_ok("sheet \"launch trtllm\"\n"
           "model Qwen/Qwen3-8B params=8.19B\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 16\n"
           "estimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\n"
           "engine tensorrt_llm free_gpu_memory_fraction=0.85 kv_cache_dtype=fp8\n"
           "launch");
    l = launch_of(0);
    /* by hand: the model after the program (serve is the default command), the
     * PyTorch backend, one GPU, the card's concurrency and length, 0.85 as typed */
    ck_assert_str_eq(gets((json_t *)l, "command"),
                     "trtllm-serve Qwen/Qwen3-8B --backend pytorch --tp_size 1 --max_batch_size 16 "
                     "--max_seq_len 8192 --kv_cache_free_gpu_memory_fraction 0.85");
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "release"), "4c05a74"));
    /* fp8 has no flag in serve.py: the note says the YAML */
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "kv_cache_config: {dtype: fp8}"));
    flags_in_table(l, "tensorrt_llm", "1.0.0", 2);
}
END_TEST

/* Each `name=` keyword of code's from_pretrained(...) call, checked against
 * the release's table and, when seen is given, added to it; returns how many. */
static void seen_add(char *seen, size_t len, const char *flag);
static size_t kwargs_checked(const char *code, const char *release, char *seen, size_t len)
{
    const char *p = strstr(code, "from_pretrained(");
    size_t n = 0;
    ck_assert_ptr_nonnull(p);
    for (; *p && *p != ')'; p++) {
        char name[64];
        size_t k = 0;
        const char *q;
        if (*p != ',' || p[1] != ' ')
            continue;
        for (q = p + 2; ((*q >= 'a' && *q <= 'z') || *q == '_') && k < sizeof name - 1; q++)
            name[k++] = *q;
        name[k] = '\0';
        if (k && *q == '=') {
            ck_assert_msg(in_table("transformers", release, name), "from_pretrained has no %s",
                          name);
            if (seen)
                seen_add(seen, len, name);
            n++;
        }
    }
    return n;
}

/* every `name=` keyword of the from_pretrained(...) call is in the release's table */
static void kwargs_in_table(const char *code)
{
    ck_assert_uint_ge(kwargs_checked(code, "5.24.0", NULL, 0), 3);
}

/* transformers: from_pretrained's keywords; max_memory by hand: an H100 SXM's
 * nvidia-smi total 85,520,809,984 B (the whole card is the budget), less the
 * KV cache (36 x 8 x 128 x 2 x 2 B = 147,456 B a token, x 8,192 x 4 =
 * 4,831,838,208 B); no other component is known, so 80,688,971,776 B =
 * 76,951 MiB (rounded down) may hold weights */
START_TEST(transformers_command)
{
    const json_t *l, *argv;
    const char *code;
    run_ok("sheet \"launch transformers\"\n"
           "model Qwen/Qwen3-8B params=8.19B revision=abc123\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 4\n"
           "estimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\nengine transformers attention=flash\nlaunch");
    l = launch_of(0);
    argv = json_object_get(l, "argv");
    ck_assert_int_eq(json_array_size(argv), 3);
    ck_assert_str_eq(json_string_value(json_array_get(argv, 1)), "-c");
    code = json_string_value(json_array_get(argv, 2));
    ck_assert_msg(strstr(code, "AutoModelForCausalLM.from_pretrained(\"Qwen/Qwen3-8B\", "
                               "revision=\"abc123\", dtype=torch.bfloat16, "
                               "device_map=\"auto\", max_memory={0: \"76951MiB\"}, "
                               "attn_implementation=\"flash_attention_2\")") != NULL,
                  "%s", code);
    kwargs_in_table(code);
    /* the shell line quotes the program's text whole */
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"), "python -c 'import torch;"));
}
END_TEST

/* transformers offloads with device_map="auto": a 70B model in bf16 (140 GB)
 * on an H100 SXM (85,520,809,984 B) whose KV cache needs 80 x 8 x 128 x 2 x 2 B
 * x 8,192 = 2,684,354,560 B: 82,836,455,424 B (78,999 MiB) of weights on the
 * GPU, the other 57,163,544,576 B (54,516 MiB rounded up) on the CPU; a 64 GB
 * host is refused as exclude */
START_TEST(transformers_offload)
{
    const json_t *l, *d;
    run_ok("sheet \"transformers offload\"\nmodel org/m70b params=70B\nformat bf16\n"
           "task inference\nlength 8192\nconcurrency 1\n"
           "estimate kv layers=80 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\" host=256GB\ngpu \"RTX 4090\" host=64GB\nengine transformers\nlaunch");
    l = launch_of(0);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"),
                                 "max_memory={0: \"78999MiB\", \"cpu\": \"54516MiB\"}"));
    d = json_object_get(l, "devices");
    ck_assert_int_eq(geti(json_array_get(d, 1), "bytes"), 57163544576LL);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "throughput drops"));
    d = json_array_get(json_object_get(lastp(), "refused"), 0);
    ck_assert_str_eq(gets((json_t *)d, "offer"), "RTX 4090");
    ck_assert_ptr_nonnull(strstr(gets((json_t *)d, "reason"), "exclude: RTX 4090's host memory"));
}
END_TEST

START_TEST(refused_when_the_fit_excludes)
{
    int rc;
    run_ok("sheet \"launch refused\"\n"
           "model big params=70B\nformat bf16\ntask inference\nlength 4096\nconcurrency 1\n"
           "estimate kv layers=80 kv_heads=8 head_dim=128\n"
           "gpu \"small\" memory=16GB\n"
           "engine vllm");
    rc = run("launch");
    ck_assert_int_eq(rc, VS_EVALUE);
    ck_assert_msg(strstr(err.message, "launch refused") && strstr(err.message, "small"), "%s",
                  err.message);
    /* with an offer that holds it, the small one is listed without a command */
    run_ok("gpu \"H200\" cards=2\nplacement tensor gpus=2\nlaunch");
    ck_assert_int_eq(json_array_size(json_object_get(lastp(), "launches")), 1);
    ck_assert_int_eq(json_array_size(json_object_get(lastp(), "refused")), 1);
    ck_assert_ptr_nonnull(strstr(text(last()), "small: no command"));
    /* an engine without a command line */
    run_ok("engine none");
    ck_assert_int_eq(run("launch"), VS_EVALUE);
}
END_TEST

START_TEST(kept_in_the_record)
{
    json_t *sheet;
    char *md;
    const json_t *l;
    run_ok("sheet \"launch record\"\n"
           "model Qwen/Qwen3-8B params=8.19B\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 4\nestimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\nengine vllm\nlaunch\nsheet \"launch record\"");
    sheet = lastp();
    l = json_array_get(json_object_get(sheet, "launch"), 0);
    ck_assert_ptr_nonnull(l);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"), "vllm serve Qwen/Qwen3-8B"));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "release"), "99d7eb5"));
    md = vs_markdown_sheet(sheet);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "## Launch"));
    ck_assert_ptr_nonnull(strstr(md, "`vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1"));
    free(md);
}
END_TEST

/* placement tensor gpus=2 split=3,1: llama.cpp's -ts, and each GPU's share of the
 * weights and the KV cache, by hand: 8B parameters at 4 bits = 4,000,000,000 bytes;
 * KV 2 x 32 layers x 8 heads x 128 x 2 bytes x 8,192 tokens = 1 GiB; three quarters
 * and one quarter of their sum (the runtime items are unknown: no bytes of theirs). */
START_TEST(uneven_split)
{
    const json_t *l, *d;
    long long whole = 4000000000LL + 1073741824LL;
    run_ok("sheet \"launch split\"\n"
           "model m8b params=8B\nformat int4\ntask inference\nlength 8192\nconcurrency 1\n"
           "estimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"RTX 4090\" cards=2\nplacement tensor gpus=2 split=3,1\nengine llamacpp\n"
           "launch");
    l = launch_of(0);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"), " -ts 3,1"));
    flags_in_table(l, "llamacpp", "0c1e570", 1);
    d = json_object_get(l, "devices");
    ck_assert_int_eq(json_array_size(d), 2);
    ck_assert_int_eq(geti(json_array_get(d, 0), "bytes"), whole * 3 / 4);
    ck_assert_int_eq(geti(json_array_get(d, 1), "bytes"), whole / 4);
    /* a share per GPU, whole numbers */
    ck_assert_int_eq(run("placement tensor gpus=2 split=3"), VS_EVALUE);
    ck_assert_int_eq(run("placement tensor gpus=2 split=3,x"), VS_EVALUE);
    ck_assert_int_eq(run("placement ddp gpus=2 split=1,1"), VS_EVALUE);
    /* vLLM splits each layer evenly */
    run_ok("engine vllm");
    ck_assert_int_eq(run("launch"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "-ts"));
}
END_TEST

/* an RTX 5090 and an RTX 4090 in one offer: the offer is the smaller card
 * (24,564 MiB); llama.cpp without -ts splits by each device's memory, so by
 * hand: 32B at 4 bits = 16,000,000,000 B of weights and 64 x 8 x 128 x 2 x 2 B
 * x 8,192 = 2,147,483,648 B of KV cache, 18,147,483,648 B in all, shared
 * 32,607 : 24,564 (their nvidia-smi totals in MiB) */
START_TEST(mixed_cards)
{
    const json_t *l, *d, *o;
    run_ok("sheet \"mixed\"\nmodel m32b params=32B\nformat int4\ntask inference\n"
           "length 8192\nconcurrency 1\nestimate kv layers=64 kv_heads=8 head_dim=128\n"
           "gpu \"home rig\" devices=\"RTX 5090, RTX 4090\"\nplacement tensor gpus=2\n"
           "engine llamacpp\nlaunch");
    l = launch_of(0);
    d = json_object_get(l, "devices");
    ck_assert_int_eq(json_array_size(d), 2);
    ck_assert_str_eq(gets(json_array_get(d, 0), "name"), "RTX 5090");
    ck_assert_int_eq(geti(json_array_get(d, 0), "bytes"), 10350264982LL);
    ck_assert_str_eq(gets(json_array_get(d, 1), "name"), "RTX 4090");
    ck_assert_int_eq(geti(json_array_get(d, 1), "bytes"), 7797218665LL);
    ck_assert_ptr_null(strstr(gets((json_t *)l, "command"), "-ts"));
    run_ok("sheet \"mixed\"");
    o = json_array_get(json_object_get(lastp(), "offers"), 0);
    ck_assert_int_eq(geti((json_t *)o, "cards"), 2);
    ck_assert_int_eq(geti((json_t *)o, "reported_bytes"), 24564LL << 20);
    ck_assert_int_eq(geti((json_t *)o, "memory_bytes"), 24000000000LL);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)o, "reported_basis"), "the RTX 4090"));
    /* a 70B model split 1,3: the 4090's three quarters of 37.7 GB exceed its budget */
    run_ok("model m70b params=70B\nestimate kv layers=80 kv_heads=8 head_dim=128\n"
           "placement tensor gpus=2 split=1,3");
    ck_assert_int_eq(run("launch"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "GPU 1 (RTX 4090)"));
    /* bad input: a name the catalogue lacks, one card, a count that disagrees */
    ck_assert_int_eq(run("gpu \"rig\" devices=\"RTX 4090, RTX 9999\""), VS_ENOTFOUND);
    ck_assert_int_eq(run("gpu \"rig\" devices=\"RTX 4090\""), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"rig\" devices=\"RTX 4090,RTX 3090\" cards=3"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "cards= says 3"));
}
END_TEST

START_TEST(shell_quoting)
{
    json_t *argv = json_pack("[s, s, s]", "llama-server", "-m", "/models/my model's.gguf");
    vs_buf b = VS_BUF_INIT;
    vs_launch_shell_join(&b, argv);
    ck_assert_str_eq(vs_buf_str(&b), "llama-server -m '/models/my model'\\''s.gguf'");
    vs_buf_free(&b);
    json_decref(argv);
}
END_TEST

/* fit's launch column: the command of each offer that holds the card, the same
 * words `launch` writes (by hand: the card's model, one GPU, the length, the keys
 * as typed), and why not for an offer that does not: 36 layers x 8 heads x 128 x
 * 2 (K and V) x 2 bytes = 147,456 B a token; 8 requests of 8,192 tokens need
 * 9 GiB, more than an RTX 4090's pool beside 16.38 GB of weights. fit records
 * nothing: the sheet's launch key is `launch`'s. */
START_TEST(fit_column)
{
    json_t *p, *rows, *b;
    const char *want = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 --max-model-len 8192 "
                       "--gpu-memory-utilization 0.9 --max-num-seqs 8";
    const char *html;
    run_ok("sheet \"fit launch\"\n"
           "model Qwen/Qwen3-8B params=8.19B\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 8\nestimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\ngpu \"RTX 4090\"\n"
           "engine vllm gpu_memory_utilization=0.9 max_num_seqs=8\nfit");
    b = last();
    p = payload(b);
    rows = json_object_get(p, "rows");
    ck_assert_str_eq(gets(json_array_get(rows, 0), "verdict"), "to-confirm");
    ck_assert_str_eq(gets(json_object_get(json_array_get(rows, 0), "launch"), "command"), want);
    flags_in_table(json_object_get(json_array_get(rows, 0), "launch"), "vllm", "0.11.0", 3);
    ck_assert_str_eq(gets(json_array_get(rows, 1), "verdict"), "exclude");
    ck_assert(json_is_null(json_object_get(json_array_get(rows, 1), "launch")));
    ck_assert_ptr_nonnull(strstr(gets(json_array_get(rows, 1), "launch_refused"), "host=64GB"));
    /* the table's column, each command on its offer's lines, the HTML folded */
    ck_assert_ptr_nonnull(strstr(text(b), "verdict     launch"));
    ck_assert_ptr_nonnull(strstr(text(b), "to-confirm  yes"));
    ck_assert_ptr_nonnull(strstr(text(b), "exclude     no"));
    ck_assert_ptr_nonnull(strstr(text(b), "  launch: vllm serve Qwen/Qwen3-8B --tensor"));
    html = json_string_value(json_object_get(b, "text/html"));
    ck_assert_ptr_nonnull(
        strstr(html, "<details><summary>launch: 1 command of 2 offers</summary>"));
    ck_assert_ptr_nonnull(strstr(html, want));
    run_ok("launch");
    ck_assert_str_eq(gets((json_t *)launch_of(0), "command"), want);
    ck_assert_int_eq(json_array_size(json_object_get(lastp(), "launches")), 1);
    /* under an engine without a command line fit has no launch column */
    run_ok("engine none\nfit");
    ck_assert_ptr_null(strstr(text(last()), "launch"));
    ck_assert_ptr_null(
        json_object_get(json_array_get(json_object_get(lastp(), "rows"), 0), "launch"));
}
END_TEST

START_TEST(fit_records_no_launch)
{
    run_ok("sheet \"fit no record\"\n"
           "model Qwen/Qwen3-8B params=8.19B\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 1\nestimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H100 SXM\"\nengine vllm\nfit\nsheet \"fit no record\"");
    ck_assert_ptr_null(json_object_get(lastp(), "launch"));
}
END_TEST

/* ---- every release of every engine: each flag its launch can write ----
 *
 * For each engine with a command and each release its release key accepts
 * (vllm version=, llamacpp build=, ...), the sheets below make launch write
 * every flag the rule has; each flag must be in that release's argument table,
 * and together they must be the release's flags listed here by hand: a release
 * the engine gains without a table, or without a line here, fails. */

typedef struct every_cells {
    const char *engine;
    size_t from;          /* argv's first word that is the engine's (python -m is not) */
    const char *cells[3]; /* sheets; %s is where the release key goes on the engine line */
} every_cells;

static const every_cells every[] = {
    {"vllm",
     3,
     {"sheet \"every vllm\"\nmodel Qwen/Qwen3-8B params=8.19B revision=abc123\nformat bf16\n"
      "task inference\nlength 8192\nconcurrency 64\n"
      "estimate kv layers=36 kv_heads=8 head_dim=128\ngpu \"H100 SXM\"\n"
      "engine vllm%s gpu_memory_utilization=0.85 max_num_seqs=64 kv_cache_dtype=fp8 "
      "enforce_eager=yes max_model_len=4096",
      "sheet \"every vllm pool\"\nmodel Qwen/Qwen3-8B params=8.19B\nformat bf16\n"
      "task inference\nlength 8192\nconcurrency 16\n"
      "estimate kv layers=36 kv_heads=8 head_dim=128\ngpu \"H100 SXM\"\n"
      "engine vllm%s kv_cache_memory=20GiB",
      /* the KV pool short on an L4: weights offloaded (test_offload's sheet) */
      "sheet \"every vllm offload\"\nmodel m config=" VS_MODEL_CONFIGS "/qwen3-8b.json\n"
      "format bf16\ntask inference\nlength 32768\nconcurrency 1\nestimate kv\n"
      "gpu \"L4\" host=64GB\n"
      "reserve non_torch 0.5GiB status=measured source=\"test\"\n"
      "reserve activation_peak 1GiB status=measured source=\"test\"\n"
      "reserve cuda_graphs 0.5GiB status=measured source=\"test\"\nengine vllm%s"}},
    {"llamacpp",
     1,
     {"sheet \"every llama\"\nmodel m7b params=7.24B\nformat int4\ntask inference\n"
      "length 2048\nconcurrency 4\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
      "gpu \"RTX 4090\" cards=2\nplacement tensor gpus=2 split=3,1\n"
      "engine llamacpp%s flash_attn=on cache_type_k=q8_0 cache_type_v=q8_0 fit_target=512MiB "
      "swa_full=yes kv_unified=yes no_kv_offload=yes mmap=no",
      /* a MoE in bf16 on one RTX 4090, all 48 layers and the output asked on the GPU
       * (b6324 would keep them on the CPU by default): the experts of the first
       * layers go to the host */
      "sheet \"every llama moe\"\nmodel m config=" VS_MODEL_CONFIGS "/qwen3-30b-a3b.json\n"
      "format bf16\ntask inference\nlength 8192\nconcurrency 1\nestimate kv\n"
      "gpu \"RTX 4090\" host=64GB\nengine llamacpp%s n_gpu_layers=49"}},
    {"sglang",
     3,
     {"sheet \"every sglang\"\nmodel Qwen/Qwen3-8B params=8.19B revision=abc123\nformat bf16\n"
      "task inference\nlength 32768\nconcurrency 8\n"
      "estimate kv layers=36 kv_heads=8 head_dim=128\ngpu \"H100 SXM\"\n"
      /* the runtime items measured, so no figure is an upper bound */
      "reserve non_torch 0.5GiB status=measured source=\"test\"\n"
      "reserve activation_peak 1GiB status=measured source=\"test\"\n"
      "reserve cuda_graphs 0.5GiB status=measured source=\"test\"\n"
      "engine sglang%s mem_fraction_static=0.8 kv_cache_dtype=fp8_e5m2"}},
    {"tensorrt_llm",
     2,
     {"sheet \"every trtllm\"\nmodel Qwen/Qwen3-8B params=8.19B\nformat bf16\n"
      "task inference\nlength 8192\nconcurrency 16\n"
      "estimate kv layers=36 kv_heads=8 head_dim=128\ngpu \"H100 SXM\"\n"
      "engine tensorrt_llm%s free_gpu_memory_fraction=0.85"}},
    /* transformers' flags are from_pretrained's keywords, in argv's last word */
    {"transformers",
     0,
     {"sheet \"every transformers\"\nmodel Qwen/Qwen3-8B params=8.19B revision=abc123\n"
      "format bf16\ntask inference\nlength 8192\nconcurrency 4\n"
      "estimate kv layers=36 kv_heads=8 head_dim=128\ngpu \"H100 SXM\"\n"
      "engine transformers%s attention=flash"}},
};

/* what each release's commands hold, by hand from its table's header: 0.10.2
 * has no --kv-cache-memory-bytes, llama.cpp before 0c1e570 no --fit-target and
 * --no-mmap where 0c1e570 has --load-mode */
/* the releases after 0.11.0 write 0.11.0's flags: its table stands for theirs */
#define VLLM_LATER_FLAGS                                                                           \
    " --revision --tensor-parallel-size --max-model-len --gpu-memory-utilization --max-num-seqs "  \
    "--kv-cache-dtype --enforce-eager --kv-cache-memory-bytes --cpu-offload-gb "

static const struct {
    const char *engine, *release, *flags;
} every_flags[] = {
    {"vllm", "0.10.2",
     " --revision --tensor-parallel-size --max-model-len --gpu-memory-utilization --max-num-seqs "
     "--kv-cache-dtype --enforce-eager --cpu-offload-gb "},
    {"vllm", "0.11.0",
     " --revision --tensor-parallel-size --max-model-len --gpu-memory-utilization --max-num-seqs "
     "--kv-cache-dtype --enforce-eager --kv-cache-memory-bytes --cpu-offload-gb "},
    {"vllm", "0.12.0", VLLM_LATER_FLAGS},
    {"vllm", "0.13.0", VLLM_LATER_FLAGS},
    {"vllm", "0.14.0", VLLM_LATER_FLAGS},
    {"vllm", "0.15.0", VLLM_LATER_FLAGS},
    {"vllm", "0.16.0", VLLM_LATER_FLAGS},
    {"vllm", "0.17.0", VLLM_LATER_FLAGS},
    {"vllm", "0.18.0", VLLM_LATER_FLAGS},
    {"vllm", "0.19.0", VLLM_LATER_FLAGS},
    {"llamacpp", "b6324",
     " -m -c -np -fa -ctk -ctv -ngl -ts --no-mmap -nkvo --swa-full -kvu --n-cpu-moe "},
    {"llamacpp", "b6325",
     " -m -c -np -fa -ctk -ctv -ngl -ts --no-mmap -nkvo --swa-full -kvu --n-cpu-moe "},
    {"llamacpp", "0c1e570",
     " -m -c -np -fa -ctk -ctv -ngl -ts --load-mode -nkvo --swa-full -kvu --fit-target "
     "--n-cpu-moe "},
    {"sglang", "0.4",
     " --model-path --revision --tp-size --mem-fraction-static --context-length --max-total-tokens "
     "--kv-cache-dtype "},
    {"sglang", "0.5",
     " --model-path --revision --tp-size --mem-fraction-static --context-length --max-total-tokens "
     "--kv-cache-dtype "},
    {"tensorrt_llm", "0.21.0",
     " --backend --tp_size --max_batch_size --max_seq_len --kv_cache_free_gpu_memory_fraction "},
    {"tensorrt_llm", "1.0.0",
     " --backend --tp_size --max_batch_size --max_seq_len --kv_cache_free_gpu_memory_fraction "},
    {"transformers", "5.24.0", " revision dtype device_map max_memory attn_implementation "},
};

/* appends " flag " to seen unless it is there */
static void seen_add(char *seen, size_t len, const char *flag)
{
    char w[80];
    snprintf(w, sizeof w, " %s ", flag);
    if (!strstr(seen, w))
        snprintf(seen + strlen(seen), len - strlen(seen), "%s ", flag);
}

/* the flags of one launch object into seen, each checked against the table */
static void every_launch(const json_t *l, const every_cells *c, const char *release, char *seen,
                         size_t len)
{
    const json_t *argv = json_object_get(l, "argv"), *w;
    size_t i;
    if (!strcmp(c->engine, "transformers")) {
        kwargs_checked(json_string_value(json_array_get(argv, json_array_size(argv) - 1)), release,
                       seen, len);
        return;
    }
    json_array_foreach(argv, i, w)
    {
        const char *s = json_string_value(w);
        if (i < c->from || s[0] != '-')
            continue;
        ck_assert_msg(in_table(c->engine, release, s), "%s %s: flag %s is not in its table",
                      c->engine, release, s);
        seen_add(seen, len, s);
    }
}

START_TEST(every_release_every_flag)
{
    size_t ri;
    for (ri = 0; vs_launch_rules[ri]; ri++) {
        const vs_launch_rule *r = vs_launch_rules[ri];
        const vs_engine *en = vs_engine_find(r->engine);
        const every_cells *c = NULL;
        size_t i, n = 0, k;
        ck_assert_ptr_nonnull(en);
        for (i = 0; i < sizeof every / sizeof every[0]; i++)
            if (!strcmp(every[i].engine, r->engine))
                c = &every[i];
        ck_assert_msg(c != NULL, "engine %s has a launch rule but no sheets here", r->engine);
        for (n = 0; r->releases[n].name; n++)
            ;
        /* the releases the rule knows are the words of the engine's release key */
        if (r->release_key) {
            const char *const *words;
            ck_assert(vs_engine_key_index(en, r->release_key, &k));
            words = en->keys[k].words;
            ck_assert_ptr_nonnull(words);
            for (i = 0; words[i]; i++)
                ck_assert_msg(i < n && !strcmp(words[i], r->releases[i].name),
                              "%s %s=%s has no launch release", r->engine, r->release_key,
                              words[i]);
            ck_assert_uint_eq(i, n);
        } else
            ck_assert_uint_eq(n, 1);
        for (i = 0; i < n; i++) {
            const char *rel = r->releases[i].name, *want = NULL;
            char seen[1024] = " ", clause[64] = "", cell[2048];
            size_t j, w;
            if (r->release_key)
                snprintf(clause, sizeof clause, " %s=%s", r->release_key, rel);
            for (j = 0; j < 3 && c->cells[j]; j++) {
                const json_t *ls, *l;
                snprintf(cell, sizeof cell, c->cells[j], clause);
                run_ok(cell);
                if (run("launch") == VS_EVALUE) {
                    /* refused only for a flag the release lacks, which its list omits */
                    ck_assert_msg(strstr(err.message, "has no flag in") != NULL, "%s %s: %s",
                                  r->engine, rel, err.message);
                    continue;
                }
                ls = json_object_get(lastp(), "launches");
                ck_assert_uint_gt(json_array_size(ls), 0);
                json_array_foreach(ls, w, l)
                {
                    ck_assert_str_eq(gets((json_t *)l, "release"), r->releases[i].source);
                    every_launch(l, c, rel, seen, sizeof seen);
                }
            }
            for (j = 0; j < sizeof every_flags / sizeof every_flags[0]; j++)
                if (!strcmp(every_flags[j].engine, r->engine) &&
                    !strcmp(every_flags[j].release, rel))
                    want = every_flags[j].flags;
            ck_assert_msg(want != NULL, "%s %s: no flags listed here", r->engine, rel);
            /* the same set: every listed flag written, and nothing else */
            {
                char a[1024], b[1024], *t, *save = NULL;
                snprintf(a, sizeof a, "%s", want);
                for (t = strtok_r(a, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
                    char x[80];
                    snprintf(x, sizeof x, " %s ", t);
                    ck_assert_msg(strstr(seen, x) != NULL, "%s %s: %s not written (wrote%s)",
                                  r->engine, rel, t, seen);
                }
                snprintf(b, sizeof b, "%s", seen);
                for (t = strtok_r(b, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
                    char x[80];
                    snprintf(x, sizeof x, " %s ", t);
                    ck_assert_msg(strstr(want, x) != NULL, "%s %s: %s written but not listed",
                                  r->engine, rel, t);
                }
            }
        }
    }
}
END_TEST

/* `help launch` names every release's table source: the commits of the headers
 * of tests/data/launch/ */
START_TEST(help_names_the_tables)
{
    static const char *const commits[] = {"99d7eb5",
                                          "vllm-project/vllm#21489",
                                          "0c1e570",
                                          "145b628",
                                          "ggml-org/llama.cpp#16653",
                                          "001067f",
                                          "4c05a74",
                                          "v5.24.0",
                                          NULL};
    size_t i;
    run_ok("help launch");
    for (i = 0; commits[i]; i++)
        ck_assert_msg(strstr(text(last()), commits[i]) != NULL, "help launch lacks %s", commits[i]);
}
END_TEST

/* vLLM 0.10.2 has no --kv-cache-memory-bytes: a sheet that gives the pool gets
 * no command under it (one without the flag would size the pool otherwise);
 * under 0.11.0 the same sheet gets its flag */
START_TEST(vllm_0_10_2_pool)
{
    run_ok("sheet \"pool 0.10.2\"\nmodel Qwen/Qwen3-8B params=8.19B\nformat bf16\n"
           "task inference\nlength 8192\nconcurrency 16\n"
           "estimate kv layers=36 kv_heads=8 head_dim=128\ngpu \"H100 SXM\"\n"
           "engine vllm version=0.10.2 kv_cache_memory=20GiB");
    ck_assert_int_eq(run("launch"), VS_EVALUE);
    ck_assert_msg(strstr(err.message, "kv_cache_memory has no flag in vLLM 0.10.2") &&
                      strstr(err.message, "version=0.11.0"),
                  "%s", err.message);
    /* without the pool key it launches, with 0.10.2's table named */
    run_ok("engine vllm version=0.10.2 gpu_memory_utilization=0.8\nlaunch");
    ck_assert_ptr_nonnull(
        strstr(gets((json_t *)launch_of(0), "command"), " --gpu-memory-utilization 0.8"));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)launch_of(0), "release"), "standing for 0.10.2"));
    run_ok("engine vllm version=0.11.0 kv_cache_memory=20GiB\nlaunch");
    ck_assert_ptr_nonnull(
        strstr(gets((json_t *)launch_of(0), "command"), " --kv-cache-memory-bytes 21474836480"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("launch");
    TCase *t = tcase_create("launch");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, vllm_command);
    tcase_add_test(t, llamacpp_command);
    tcase_add_test(t, sglang_command);
    tcase_add_test(t, tensorrt_llm_command);
    tcase_add_test(t, transformers_command);
    tcase_add_test(t, transformers_offload);
    tcase_add_test(t, refused_when_the_fit_excludes);
    tcase_add_test(t, kept_in_the_record);
    tcase_add_test(t, uneven_split);
    tcase_add_test(t, mixed_cards);
    tcase_add_test(t, shell_quoting);
    tcase_add_test(t, fit_column);
    tcase_add_test(t, fit_records_no_launch);
    tcase_add_test(t, every_release_every_flag);
    tcase_add_test(t, vllm_0_10_2_pool);
    tcase_add_test(t, help_names_the_tables);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
