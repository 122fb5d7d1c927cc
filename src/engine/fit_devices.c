/* fit of each GPU on its own: an uneven split (placement split=) and an offer
 * of mixed cards (gpu ... devices=), engine/fit.h.
 *
 * The row's own figures are those of one GPU of an even split on the offer's
 * capacity, which for mixed cards is the smallest card's. That is what vLLM,
 * SGLang and TensorRT-LLM do (every layer split evenly over the tensor ranks),
 * but not llama.cpp: its -ts gives each GPU a share of the layers, and without
 * -ts it splits by each device's free memory (src/llama-model.cpp load_tensors,
 * "default split, by free memory", ggml-org/llama.cpp 145b628). Each GPU then
 * holds its share of the weights and of the KV cache (a layer's cache is where
 * the layer is) plus its own other components, against its own budget. */
#include <stdio.h>
#include <string.h>

#include "engine/fit.h"
#include "engine/launch.h"
#include "sheet/sheet_access.h"

/* a mixed card's total, as the offer's capacity counts the smallest: the
 * device-reported one when every card has one, else the nominal */
static uint64_t card_total(const json_t *devices, size_t i)
{
    const json_t *d, *v;
    size_t k;
    int all_reported = 1;
    json_array_foreach(devices, k, d) all_reported =
        all_reported && json_is_integer(json_object_get(d, "reported_bytes"));
    d = json_array_get(devices, i);
    v = json_object_get(d, all_reported ? "reported_bytes" : "memory_bytes");
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static void gib(char *out, size_t n, uint64_t b)
{
    snprintf(out, n, "%llu.%02llu GiB", (unsigned long long)(b >> 30),
             (unsigned long long)(((b & ((1ull << 30) - 1)) * 100) >> 30));
}

/* "GPU 1 (RTX 4090)" */
static void label(char *out, size_t n, size_t i, const vs_fit_device *d)
{
    if (d->name[0])
        snprintf(out, n, "GPU %zu (%s)", i, d->name);
    else
        snprintf(out, n, "GPU %zu", i);
}

int vs_fit_devices(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer, vs_error *err)
{
    const json_t *split = vs_sheet_placement_get(c->sheet, VS_PK_SPLIT);
    const json_t *mixed = json_object_get(offer, "devices");
    const vs_launch_rule *rule = vs_launch_find(c->engine->name);
    uint64_t tp = c->env.tp ? c->env.tp : 1, sum = 0, on_gpu, whole, others;
    unsigned gpus = c->placement.gpus ? c->placement.gpus : 1;
    size_t i, n, bad = 0, first_bad = 0, binds = 0;
    int64_t pool = 0;
    int by_split = json_array_size(split) == tp, uneven;
    char l[96], a[48], b[48];
    row->ndevices = 0;
    row->devices_uneven = 0;
    row->devices_rule[0] = '\0';
    if (json_array_size(mixed) != tp)
        mixed = NULL; /* the placement does not use every card */
    if (tp < 2 || tp > VS_FIT_DEVICES_MAX || (!by_split && !mixed))
        return 0;
    uneven = rule && rule->splits;
    if (by_split && !uneven) {
        size_t len = strlen(row->note);
        snprintf(row->note + len, sizeof row->note - len,
                 "; %s splits each layer evenly over the GPUs: split= (llama.cpp's -ts) is not "
                 "what it does, the fit is of the even split",
                 c->engine->name);
        if (!mixed)
            return 0;
        by_split = 0;
    }
    /* the per-GPU figures need the weights, the KV cache the card needs and a total */
    if (!row->capacity_known || !c->env.weights_known || !row->need_known || row->cards < gpus)
        return 0;
    /* the row's figures are one GPU's of an even split: back to the whole; the
     * weights the engine keeps in host memory are no GPU's */
    on_gpu = c->env.weights_bytes > row->host_bytes ? c->env.weights_bytes - row->host_bytes : 0;
    whole = (on_gpu + row->need_bytes) * tp;
    others = row->non_kv_bytes > on_gpu ? row->non_kv_bytes - on_gpu : 0;
    n = (size_t)tp;
    for (i = 0; i < n; i++)
        sum += by_split ? (uint64_t)json_integer_value(json_array_get(split, i))
               : mixed  ? card_total(mixed, i)
                        : 1;
    for (i = 0; i < n; i++) {
        vs_fit_device *d = &row->devices[i];
        uint64_t w = by_split ? (uint64_t)json_integer_value(json_array_get(split, i))
                     : mixed  ? card_total(mixed, i)
                              : 1;
        int rc;
        memset(d, 0, sizeof *d);
        d->capacity_bytes = row->capacity_bytes;
        d->budget_bytes = row->budget_bytes;
        if (mixed) {
            const char *nm = json_string_value(json_object_get(json_array_get(mixed, i), "name"));
            snprintf(d->name, sizeof d->name, "%s", nm ? nm : "");
            d->capacity_bytes = card_total(mixed, i);
            if (json_is_integer(json_object_get(offer, "free_bytes"))) {
                /* free= was read on the smallest card: the others have what they have more */
                d->budget_bytes += d->capacity_bytes > row->capacity_bytes
                                       ? d->capacity_bytes - row->capacity_bytes
                                       : 0;
            } else if ((rc = vs_fit_budget_at(&d->budget_bytes, c, offer, nm, d->capacity_bytes,
                                              err)) < 0) {
                return rc;
            }
        }
        if (uneven) {
            uint64_t kv = (uint64_t)((unsigned __int128)row->need_bytes * tp * w / (sum ? sum : 1));
            d->share_bytes = (uint64_t)((unsigned __int128)whole * w / (sum ? sum : 1)) + others;
            d->kv_pool_bytes = (int64_t)d->budget_bytes - (int64_t)(d->share_bytes - kv);
            /* the KV cache of the whole split this GPU's room allows, a layer's cache
             * being where the layer is: its room over its share of the layers; per
             * GPU of the split, as the row's figures are */
            if (w) {
                __int128 all = (__int128)d->kv_pool_bytes * (__int128)sum / (__int128)w;
                int64_t per = (int64_t)(all / (__int128)tp);
                if (i == 0 || per < pool) {
                    pool = per;
                    binds = i;
                }
            }
        } else {
            d->share_bytes = on_gpu + row->need_bytes + others;
            d->kv_pool_bytes = (int64_t)d->budget_bytes - (int64_t)(on_gpu + others);
        }
        d->holds = d->share_bytes <= d->budget_bytes;
        if (!d->holds && bad++ == 0)
            first_bad = i;
    }
    row->ndevices = n;
    row->devices_uneven = uneven;
    snprintf(row->devices_rule, sizeof row->devices_rule, "%s",
             !uneven    ? "each card holds an even share (the engine splits every layer evenly)"
             : by_split ? "each GPU holds its split= share of the weights and the KV cache, "
                          "plus its own other components (llama.cpp's -ts)"
                        : "each card holds a share of the weights and the KV cache by its total, "
                          "plus its own other components (llama.cpp without -ts splits by free "
                          "memory)");
    if (uneven) {
        /* the row's KV pool, tokens and concurrency: the split's, per GPU, where the
         * GPU with the least room for its share of the cache bounds the rest */
        size_t len = strlen(row->devices_rule);
        int rc;
        label(l, sizeof l, binds, &row->devices[binds]);
        snprintf(row->devices_rule + len, sizeof row->devices_rule - len,
                 "; the row's KV pool, tokens, concurrency and length are the split's, per "
                 "GPU, bound by %s; its capacity, budget and non-KV are the smallest card's",
                 l);
        if ((rc = vs_fit_pool_at(row, c, offer, pool, err)) < 0)
            return rc;
    }
    if (bad) {
        /* a nominal figure cannot exclude alone (it may be meant in binary units) */
        vs_verdict fail = row->capacity_basis && !strcmp(row->capacity_basis, "nominal")
                              ? VS_VERDICT_TO_CONFIRM
                              : VS_VERDICT_EXCLUDE;
        const vs_fit_device *d = &row->devices[first_bad];
        label(l, sizeof l, first_bad, d);
        gib(a, sizeof a, d->share_bytes);
        gib(b, sizeof b, d->budget_bytes);
        if (uneven || row->verdict != VS_VERDICT_EXCLUDE) {
            snprintf(row->note, sizeof row->note,
                     "%s of the split holds %s of weights, KV cache and components, more than "
                     "its budget (%s)%s",
                     l, a, b, bad > 1 ? ", and other GPUs too" : "");
        } else {
            /* the row's own reason, on the card that decides */
            char why[sizeof row->note];
            snprintf(why, sizeof why, "%s", row->note);
            snprintf(row->note, sizeof row->note, "on %.60s, the smallest card: %.540s", l, why);
        }
        if (row->verdict < fail)
            row->verdict = row->start_verdict = row->concurrency_verdict = row->length_verdict =
                fail;
        return 0;
    }
    if (uneven) {
        /* every GPU holds its share: that is what decides under this engine,
         * even where one GPU of an even split on the smallest card would not */
        vs_verdict ok = row->upper_bound ? VS_VERDICT_TO_CONFIRM : VS_VERDICT_ADMISSIBLE;
        if (row->verdict == VS_VERDICT_EXCLUDE)
            snprintf(row->note, sizeof row->note,
                     "each GPU holds its share (an even split on the smallest card would not)%s",
                     row->upper_bound ? "; the figures are upper bounds until the unknown "
                                        "items are known"
                                      : "");
        row->verdict = row->start_verdict = row->concurrency_verdict = row->length_verdict = ok;
    }
    return 0;
}
