/* llama.cpp's command: `llama-server -m FILE` with the flags that decide its memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/launch.h"
#include "engine/offload.h"
#include "sheet/sheet_access.h"

#define ARGS "common/arg.cpp (common_params_parser_init, ggml-org/llama.cpp "

/* b6324 and b6325: no stored tree of either tag; 145b628's table (newer, with
 * --fit) less the --fit options (ggml-org/llama.cpp#16653, after b6325).
 * 0c1e570: the tree llama-cpp-python 0.3.36 vendors, read whole. */
static const vs_launch_release releases[] = {
    {"b6324", ARGS "145b628 less --fit (#16653), standing for b6324; -fa a bare flag)"},
    {"b6325", ARGS "145b628 less --fit (#16653), standing for b6325)"},
    {"0c1e570", ARGS "0c1e570, the tree llama-cpp-python 0.3.36 vendors)"},
    {NULL, NULL}};

static int gguf_path(const json_t *sheet, const char **out)
{
    const char *p =
        json_string_value(json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "path"));
    size_t n = p ? strlen(p) : 0;
    *out = NULL;
    if (n > 5 && !strcmp(p + n - 5, ".gguf"))
        *out = p;
    return *out != NULL;
}

/* the weights on mmap: the engine key mmap (llama_model_default_params: yes) */
static int mmap_on(const vs_launch_in *in)
{
    const vs_engine_val *m = vs_engine_get(&in->ctx->env, "mmap");
    return !m || !m->set || m->u;
}

/* The span mapped in the order of the sheet's GGUF (weights_files.tensor_order,
 * one file with the card's layers): 1 and *out, else 0. */
static int mapped_from_file(uint64_t *out, const json_t *sheet, uint64_t layers,
                            const vs_offload_plan *p)
{
    const json_t *o = json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "tensor_order");
    const json_t *ls = json_object_get(o, "layers"), *l;
    uint64_t(*at)[4];
    vs_offload_order ord;
    size_t i, k;
    if (!json_is_array(ls) || json_array_size(ls) != layers || !layers)
        return 0;
    if (!(at = calloc(layers, sizeof *at)))
        return 0;
    memset(&ord, 0, sizeof ord);
    for (k = 0; k < 2; k++) {
        ord.input[k] = (uint64_t)json_integer_value(json_array_get(json_object_get(o, "input"), k));
        ord.output[k] =
            (uint64_t)json_integer_value(json_array_get(json_object_get(o, "output"), k));
    }
    json_array_foreach(ls, i, l) for (k = 0; k < 4; k++) at[i][k] =
        (uint64_t)json_integer_value(json_array_get(l, k));
    ord.layers = (const uint64_t(*)[4])at;
    ord.n = layers;
    *out = p->kind == VS_OFFLOAD_EXPERTS ? vs_offload_mapped_in(&ord, p->ngl, 0, p->cpu_moe)
                                         : vs_offload_mapped_in(&ord, p->ngl, 0, 0);
    free(at);
    return 1;
}

static int plan(vs_launch_offload *out, const vs_launch_in *in, uint64_t shortfall, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    const json_t *sheet = in->sheet;
    const json_t *tied = json_object_get(vs_sheet_card_get(sheet, VS_CK_ARCH), "tied_embeddings");
    vs_offload_in oi;
    vs_offload_plan p;
    uint64_t others, on_gpu;
    int rc;
    if (!e->weights_known)
        return vs_error_set(err, VS_EVALUE, "the weights' size is unknown: nothing to offload");
    if (in->ctx->placement.gpus > 1)
        return vs_error_set(err, VS_EVALUE,
                            "an offload is planned on one GPU (the placement spreads over %u)",
                            in->ctx->placement.gpus);
    memset(&oi, 0, sizeof oi);
    oi.weights_bytes = e->weights_bytes;
    /* the fit's GPU holds the weights but those llama.cpp keeps in host memory
     * already (the token embedding); the pool lacks shortfall bytes, which those
     * weights must give up */
    on_gpu = e->weights_bytes > in->row->host_bytes ? e->weights_bytes - in->row->host_bytes : 0;
    oi.room_bytes = on_gpu > shortfall ? on_gpu - shortfall : 0;
    oi.params_total = vs_launch_arch_count(sheet, "params_total");
    if (!oi.params_total && in->ctx->params_known)
        oi.params_total = in->ctx->params;
    oi.params_active = vs_launch_arch_count(sheet, "params_active");
    oi.layers = vs_launch_arch_count(sheet, "layers");
    oi.vocab = vs_launch_arch_count(sheet, "vocab");
    oi.hidden = vs_launch_arch_count(sheet, "hidden");
    oi.tied = json_is_true(tied);
    oi.experts = vs_launch_arch_count(sheet, "experts");
    oi.experts_used = vs_launch_arch_count(sheet, "experts_per_token");
    if ((rc = vs_offload_llamacpp(&p, &oi, err)) < 0)
        return rc;
    /* the rest of the fit's non-KV part: the runtime items, a tied output's copy, padding */
    others = in->row->non_kv_bytes > on_gpu ? in->row->non_kv_bytes - on_gpu : 0;
    out->ngl = p.ngl;
    out->cpu_moe = p.kind == VS_OFFLOAD_EXPERTS ? p.cpu_moe : 0;
    out->gpu_bytes = p.gpu_weights_bytes + in->row->need_bytes + others;
    out->host_bytes = p.host_bytes;
    /* with mmap (the default) the host buffer is the span of the file from the
     * first to the last tensor on the CPU; with --no-mmap a host buffer of the
     * tensors alone (src/llama-model.cpp load_tensors, 0c1e570) */
    out->mapped_bytes = mmap_on(in) ? p.mapped_bytes : 0;
    out->mapped_from_file = 0;
    if (out->mapped_bytes && mapped_from_file(&out->mapped_bytes, sheet, oi.layers, &p))
        out->mapped_from_file = 1;
    if (p.kind == VS_OFFLOAD_EXPERTS)
        snprintf(out->rule, sizeof out->rule,
                 "--n-cpu-moe %llu keeps the routed experts of the first %llu of %llu layers "
                 "(%llu bytes each) and the token embedding in host memory",
                 (unsigned long long)p.cpu_moe, (unsigned long long)p.cpu_moe,
                 (unsigned long long)oi.layers, (unsigned long long)p.expert_layer_bytes);
    else
        snprintf(out->rule, sizeof out->rule,
                 "-ngl %llu of %llu puts the last %llu layers (%llu bytes each)%s on the GPU; "
                 "the rest and the token embedding stay in host memory",
                 (unsigned long long)p.ngl, (unsigned long long)(oi.layers + 1),
                 (unsigned long long)(p.ngl < oi.layers ? p.ngl : oi.layers),
                 (unsigned long long)p.layer_bytes, p.ngl > oi.layers ? " and the output" : "");
    return 0;
}

static int build(json_t *argv, const vs_launch_in *in, vs_buf *note, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    const vs_engine_val *ctx = vs_engine_get(e, "ctx"), *par = vs_engine_get(e, "parallel"),
                        *fa = vs_engine_get(e, "flash_attn"),
                        *ctk = vs_engine_get(e, "cache_type_k"),
                        *ctv = vs_engine_get(e, "cache_type_v"),
                        *swa = vs_engine_get(e, "swa_full"), *uni = vs_engine_get(e, "kv_unified"),
                        *fit = vs_engine_get(e, "fit_target"),
                        *ngl = vs_engine_get(e, "n_gpu_layers"),
                        *nkvo = vs_engine_get(e, "no_kv_offload"), *bld = vs_engine_get(e, "build");
    /* b6324 and b6325 have no --fit; b6324's -fa is a flag, on when present
     * (ggml-org/llama.cpp#15434 gave it a value at b6325) */
    int old_fa = bld && bld->word && !strcmp(bld->word, "b6324"),
        no_fit = old_fa || (bld && bld->word && !strcmp(bld->word, "b6325"));
    const char *file = NULL, *model = vs_launch_card_str(in->sheet, "model");
    uint64_t layers = vs_launch_arch_count(in->sheet, "layers"), np = 1;
    size_t g;
    int rc = 0;
    if ((rc = vs_launch_word(argv, "llama-server", err)) < 0)
        return rc;
    if (!gguf_path(in->sheet, &file)) {
        file = model ? model : "MODEL.gguf";
        vs_buf_printf(note, "no GGUF file on the sheet (`weights from=FILE.gguf`): -m names %s",
                      file);
    }
    if ((rc = vs_launch_flag(argv, "-m", err, "%s", file)) < 0)
        return rc;
    /* ctx and parallel come from the card's length and concurrency unless given */
    if (par && par->set)
        np = par->u ? par->u : 1;
    else if (e->concurrency_known && e->concurrency)
        np = e->concurrency;
    if (ctx && ctx->set)
        rc = vs_launch_flag(argv, "-c", err, "%llu", (unsigned long long)(ctx->u * np));
    else if (e->length_known)
        rc = vs_launch_flag(argv, "-c", err, "%llu", (unsigned long long)(e->length * np));
    if (rc < 0)
        return rc;
    if ((rc = vs_launch_flag(argv, "-np", err, "%llu", (unsigned long long)np)) < 0)
        return rc;
    if (old_fa) {
        if (fa && fa->word && !strcmp(fa->word, "on") &&
            (rc = vs_launch_flag(argv, "-fa", err, NULL)) < 0)
            return rc;
    } else if (fa && fa->word && (rc = vs_launch_flag(argv, "-fa", err, "%s", fa->word)) < 0)
        return rc;
    if (ctk && ctk->word && (rc = vs_launch_flag(argv, "-ctk", err, "%s", ctk->word)) < 0)
        return rc;
    if (ctv && ctv->word && (rc = vs_launch_flag(argv, "-ctv", err, "%s", ctv->word)) < 0)
        return rc;
    /* the KV layout's groups count every layer when the card has no architecture */
    for (g = 0; !layers && e->layout_known && g < e->layout.n; g++)
        layers += e->layout.g[g].layers;
    if (in->off) {
        rc = vs_launch_flag(argv, "-ngl", err, "%llu", (unsigned long long)in->off->ngl);
        if (rc == 0 && in->off->cpu_moe)
            rc = vs_launch_flag(argv, "--n-cpu-moe", err, "%llu",
                                (unsigned long long)in->off->cpu_moe);
    } else if (ngl && ngl->set) { /* given, or the build's default (b6324: 0) */
        rc = vs_launch_flag(argv, "-ngl", err, "%llu", (unsigned long long)ngl->u);
    } else if (layers) {
        rc = vs_launch_flag(argv, "-ngl", err, "%llu", (unsigned long long)(layers + 1));
    } else {
        /* more than any model's layers: llama.cpp takes min(n_gpu_layers, n_layer + 1) */
        rc = vs_launch_flag(argv, "-ngl", err, "999");
        vs_buf_printf(note, "%sthe card has no layer count: -ngl 999 offloads every layer",
                      note->len ? "; " : "");
    }
    if (rc < 0)
        return rc;
    {
        /* placement tensor gpus=N split=3,1: llama.cpp's proportions of the layers */
        const json_t *split = vs_sheet_placement_get(in->sheet, VS_PK_SPLIT), *x;
        size_t i;
        vs_buf ts = VS_BUF_INIT;
        json_array_foreach(split, i, x)
            vs_buf_printf(&ts, "%s%lld", i ? "," : "", (long long)json_integer_value(x));
        rc = ts.len ? vs_launch_flag(argv, "-ts", err, "%s", vs_buf_str(&ts)) : 0;
        vs_buf_free(&ts);
        if (rc < 0)
            return rc;
    }
    /* 0c1e570 has no --no-mmap: its -lm/--load-mode none loads without mmap
     * (common/arg.cpp: "none: no special loading mode", beside mmap and mlock) */
    if (!mmap_on(in)) {
        rc = vs_launch_release_of(&vs_launch_llamacpp, e) == &releases[2]
                 ? vs_launch_flag(argv, "--load-mode", err, "none")
                 : vs_launch_flag(argv, "--no-mmap", err, NULL);
        if (rc < 0)
            return rc;
    }
    if (nkvo && nkvo->set && nkvo->u && (rc = vs_launch_flag(argv, "-nkvo", err, NULL)) < 0)
        return rc;
    if (swa && swa->set && swa->u && (rc = vs_launch_flag(argv, "--swa-full", err, NULL)) < 0)
        return rc;
    if (uni && uni->set && uni->u && (rc = vs_launch_flag(argv, "-kvu", err, NULL)) < 0)
        return rc;
    if (fit && fit->given && !no_fit &&
        (rc = vs_launch_flag(argv, "--fit-target", err, "%llu",
                             (unsigned long long)(fit->u / (1024u * 1024u)))) < 0)
        return rc;
    return 0;
}

const vs_launch_rule vs_launch_llamacpp = {
    "llamacpp", "llama-server -m FILE", "build", releases, 1, "llamacpp", build, plan};
