/* GPU verbs: gpu (an offer), gpus (the catalogue), require, evidence, candidates.
 *
 * They fill the sheet's "offers", "requirements" and "evidence" (layout in
 * sheet/sheet.h); the verdicts and the ranking come from sheet/classify, the
 * words and tables from render/gpu and render/candidates, the GPU facts from
 * catalog/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "engine/fit.h"
#include "lang/verb.h"
#include "lang/verbs_gpu_here.h"
#include "lang/verbs_gpu_mixed.h"
#include "render/bundle.h"
#include "render/candidates.h"
#include "render/envelope.h"
#include "render/gpu.h"
#include "sheet/classify.h"
#include "sheet/derived.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json.h"

static const char *const gpu_keys[] = {
    "catalog", "memory",  "reported",  "reported_source", "price",
    "period",  "cards",   "available", "interconnect",    "free",
    "host",    "devices", NULL};
static const char *const evidence_keys[] = {"source", "version", "scope", NULL};

/* strcmp for a sheet's strings, which a hand-edited record may have left out. */
static int same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* Text of a pair's value, or NULL when the key is absent. */
static const char *pair_text(const vs_line *line, const char *key)
{
    const vs_arg *a = vs_line_pair(line, key);
    return a ? a->value : NULL;
}

/* ------------------------------------------------------------------- gpu */

/* "47.14USD", "47.14 usd" -> "47.14" and "USD". */
static int parse_price(const vs_arg *a, char *amount, size_t alen, char *cur, size_t clen,
                       vs_error *err)
{
    const char *p = a->value, *start = p;
    size_t n = 0, c = 0;
    while ((*p >= '0' && *p <= '9') || *p == '.')
        p++;
    n = (size_t)(p - start);
    if (n == 0 || n >= alen)
        goto bad;
    memcpy(amount, start, n);
    amount[n] = '\0';
    if (!vs_classify_decimal_valid(amount))
        goto bad;
    while (*p == ' ')
        p++;
    for (; *p; p++) {
        char ch = *p;
        if (ch >= 'a' && ch <= 'z')
            ch = (char)(ch - 'a' + 'A');
        if (ch < 'A' || ch > 'Z' || c + 1 >= clen)
            goto bad;
        cur[c++] = ch;
    }
    cur[c] = '\0';
    if (c < 2)
        goto bad;
    return 0;
bad:
    return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                           "price=: '%s' is not an exact decimal amount followed by its currency; "
                           "expected e.g. price=47.14USD (the total cost of the package)",
                           a->value);
}

/* "3d", "72h", "2w", "1mo": a whole number and a unit of time. A package of
 * no time ("0d") has no price per anything: refused. */
static int check_period(const vs_arg *a, vs_error *err)
{
    const char *p = a->value;
    int nonzero = 0;
    if (*p < '0' || *p > '9')
        goto bad;
    while (*p >= '0' && *p <= '9')
        nonzero |= *p++ != '0';
    if (!nonzero)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                               "period=: '%s' is no time at all; expected a duration of at "
                               "least one unit (period=3d)",
                               a->value);
    if (!strcmp(p, "h") || !strcmp(p, "d") || !strcmp(p, "w") || !strcmp(p, "mo") ||
        !strcmp(p, "y"))
        return 0;
bad:
    return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                           "period=: '%s' is not a duration; expected a whole number and h, d, "
                           "w, mo or y (period=3d)",
                           a->value);
}

/* `gpu h100 sxm`: several words where one name was expected. The fix is in
 * the message, with the catalogue's spelling when the words name an entry. */
static int unquoted_name(const vs_line *line, vs_error *err)
{
    vs_buf words = VS_BUF_INIT;
    vs_gpu_spec spec;
    vs_error ignored = {0};
    const vs_arg *first = vs_line_positional(line, 0);
    size_t i, n = vs_line_npositional(line);
    int rc;
    for (i = 0; i < n; i++)
        vs_buf_printf(&words, "%s%s", i ? " " : "", vs_line_positional(line, i)->value);
    if (vs_buf_failed(&words))
        return vs_error_oom(err);
    rc = vs_error_set_at(
        err, VS_EVALUE, first->line, first->column, "quote a name with spaces: gpu \"%s\"",
        vs_catalog_find(&spec, vs_buf_str(&words), &ignored) == 0 ? spec.name : vs_buf_str(&words));
    vs_buf_free(&words);
    return rc;
}

/* A key of an offer set to v (taken): -1 when v could not be made. */
static int offer_put(json_t *offer, const char *key, json_t *v)
{
    return v ? json_object_set_new_nocheck(offer, key, v) : -1;
}

/* A string, or null where there is none. */
static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static int verb_gpu(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "gpu NAME [memory=24GB] [reported=24564MiB [reported_source=\"...\"]] "
                         "[free=23860MiB] [price=47.14USD] [period=3d] [cards=N] [available=...] "
                         "[interconnect=...] [host=64GB] [devices=\"RTX 4090,RTX 3090\"]";
    json_t *sheet = vs_ctx_sheet(ctx), *offers, *offer = NULL, *notes = NULL;
    vs_bundle *bundle = NULL;
    const vs_arg *name = vs_line_positional(line, 0), *a;
    vs_gpu_spec spec;
    vs_gpu_mixed mixed = {0};
    int have_spec = 0, mem_given = 0, rep_given = 0, cards_given = 0, free_given = 0,
        host_given = 0, rc;
    uint64_t memory = 0, reported = 0, cards = 1, free_b = 0, host = 0;
    char amount[64] = "", currency[16] = "", basis[512] = "";
    const char *cat_name;
    vs_error cat_err = {0};
    vs_buf nb = VS_BUF_INIT;
    size_t i;
    json_t *o;

    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, gpu_keys, err)) < 0)
        return rc;
    if (!name)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `%s`: the GPU's name comes first", syntax);
    if (!name->quoted && !strcmp(name->value, "here"))
        return vs_verbs_gpu_here(ctx, line, err);
    if (vs_line_npositional(line) > 1 && !name->quoted)
        return unquoted_name(line, err);
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if ((rc = vs_line_get_bytes(line, "memory", 0, &memory, &mem_given, err)) < 0 ||
        (rc = vs_line_get_bytes(line, "reported", 0, &reported, &rep_given, err)) < 0 ||
        (rc = vs_line_get_uint(line, "cards", 0, &cards, &cards_given, err)) < 0 ||
        (rc = vs_line_get_bytes(line, "free", 0, &free_b, &free_given, err)) < 0 ||
        (rc = vs_line_get_bytes(line, "host", 0, &host, &host_given, err)) < 0)
        return rc;
    if (free_given && (free_b == 0 || free_b > (uint64_t)INT64_MAX)) {
        a = vs_line_pair(line, "free");
        return vs_error_set_at(err, VS_EUNIT, a->line, a->value_column,
                               "free=: expected a positive amount a record can hold (the free "
                               "memory the engine reads, e.g. llama.cpp's \"MiB free\")");
    }
    if ((mem_given && (memory == 0 || memory > (uint64_t)INT64_MAX)) ||
        (rep_given && (reported == 0 || reported > (uint64_t)INT64_MAX))) {
        a = vs_line_pair(line, mem_given && (memory == 0 || memory > (uint64_t)INT64_MAX)
                                   ? "memory"
                                   : "reported");
        return vs_error_set_at(err, VS_EUNIT, a->line, a->value_column,
                               "%s=: expected a positive amount a record can hold", a->key);
    }
    if (cards_given && (cards == 0 || cards > 100000)) {
        a = vs_line_pair(line, "cards");
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                               "cards=: expected a whole number of cards from 1 to 100000");
    }
    if ((a = vs_line_pair(line, "price")) &&
        (rc = parse_price(a, amount, sizeof amount, currency, sizeof currency, err)) < 0)
        return rc;
    if ((a = vs_line_pair(line, "period")) && (rc = check_period(a, err)) < 0)
        return rc;
    if ((a = vs_line_pair(line, "reported_source")) && !rep_given)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "reported_source= says where reported= comes from: give "
                               "reported=AMOUNT too (e.g. reported=81559MiB "
                               "reported_source=\"nvidia-smi memory.total\")");

    /* cards of several kinds: the offer is as large as its smallest card */
    if ((a = vs_line_pair(line, "devices"))) {
        if ((rc = vs_verbs_gpu_mixed(&mixed, a, err)) < 0)
            return rc;
        if (cards_given && cards != mixed.n) {
            json_decref(mixed.devices);
            return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                                   "devices= names %zu cards, cards= says %llu", mixed.n,
                                   (unsigned long long)cards);
        }
        cards = mixed.n;
        if (!mem_given && mixed.memory_known)
            memory = mixed.memory_bytes, mem_given = 1;
        if (!rep_given && mixed.reported_known) {
            reported = mixed.reported_bytes;
            rep_given = 1;
            snprintf(basis, sizeof basis,
                     "the smallest of the mixed cards, the %s: its catalogue nvidia-smi total",
                     mixed.smallest);
        }
    }
    /* The catalogue fills what it knows; what the person gives wins. */
    cat_name = pair_text(line, "catalog");
    if (cat_name) {
        if ((rc = vs_catalog_find(&spec, cat_name, err)) < 0) {
            json_decref(mixed.devices);
            a = vs_line_pair(line, "catalog");
            err->line = a->line;
            err->column = a->value_column;
            return rc;
        }
        have_spec = 1;
    } else if (vs_catalog_find(&spec, name->value, &cat_err) == 0) {
        have_spec = 1;
    } else if (!mem_given && !rep_given) {
        json_decref(mixed.devices);
        return vs_error_set_at(err, VS_ENOTFOUND, name->line, name->column, "%s", cat_err.message);
    } else if (!mixed.devices) {
        vs_render_gpu_note_uncatalogued(&nb, cat_err.message);
    }
    notes = json_array();
    if (!notes) {
        json_decref(mixed.devices);
        return vs_error_oom(err);
    }
    if (nb.len) {
        json_array_append_new(notes, json_string(vs_buf_str(&nb)));
        vs_buf_reset(&nb);
    }
    if (have_spec && !mem_given && spec.memory_known)
        memory = spec.memory_bytes, mem_given = 1;
    if (rep_given && basis[0]) {
        /* from the mixed cards, said above */
    } else if (rep_given) {
        const char *src = pair_text(line, "reported_source");
        snprintf(basis, sizeof basis, "declared with reported=%s%s",
                 src && src[0] ? "; source: " : " (no source given)", src && src[0] ? src : "");
    } else if (have_spec && spec.reported_known) {
        if (spec.memory_known && memory != spec.memory_bytes) {
            vs_render_gpu_note_nominal_differs(&nb, spec.name);
            json_array_append_new(notes, json_string(vs_buf_str(&nb)));
            vs_buf_reset(&nb);
        } else {
            reported = spec.reported_bytes;
            rep_given = 1;
            snprintf(basis, sizeof basis, "catalogue %s: nvidia-smi total %llu MiB, ECC %s; %s",
                     spec.name, (unsigned long long)spec.reported_mib,
                     spec.ecc ? spec.ecc : "state unknown",
                     spec.reported_source ? spec.reported_source : "no source");
        }
    }
    /* unified memory: the capacity is what the GPU may hold of the shared memory
     * (Metal's working set, an APU's GTT), and a Grace GPU reaches its CPU's
     * LPDDR5X as host memory; what the line gives wins */
    if (have_spec && spec.unified_kind && !rep_given && spec.unified_gpu_known) {
        reported = spec.unified_gpu_bytes;
        rep_given = 1;
        snprintf(basis, sizeof basis, "catalogue %s: unified memory (%s), %s; %s", spec.name,
                 spec.unified_kind,
                 vs_json_str_of(json_object_get(spec.entry, "unified"), "gpu_printed")
                     ? vs_json_str_of(json_object_get(spec.entry, "unified"), "gpu_printed")
                     : "no figure printed",
                 spec.unified_source ? spec.unified_source : "no source");
    }
    if (have_spec && spec.unified_host_known && !host_given)
        host = spec.unified_host_bytes, host_given = 1;
    if (have_spec) {
        /* the formats the catalogue says a GPU supports or not */
        const char *fmt = vs_sheet_card_str(sheet, VS_CK_FORMAT);
        vs_vocab_format f;
        if (fmt && vs_vocab_format_parse(&f, NULL, fmt, NULL) == 0 &&
            ((f == VS_FORMAT_BF16 && spec.bf16_known && !spec.bf16) ||
             (f == VS_FORMAT_FP8 && spec.fp8_known && !spec.fp8))) {
            vs_render_gpu_note_format_unsupported(&nb, vs_vocab_format_name(f), spec.name);
            json_array_append_new(notes, json_string(vs_buf_str(&nb)));
            vs_buf_reset(&nb);
        }
    }

    /* the keys set one by one, in json_pack's order, without its format's
     * parse (a tenth of a gpu line); a value that cannot be made (memory
     * short) leaves no offer, as the pack did */
    offer = json_object();
    if (offer &&
        (offer_put(offer, "name", json_string(name->value)) < 0 ||
         offer_put(offer, "memory_bytes",
                   mem_given ? json_integer((json_int_t)memory) : json_null()) < 0 ||
         offer_put(offer, "reported_bytes",
                   rep_given ? json_integer((json_int_t)reported) : json_null()) < 0 ||
         offer_put(offer, "reported_basis", basis[0] ? json_string(basis) : json_null()) < 0 ||
         offer_put(offer, "price", amount[0] ? json_string(amount) : json_null()) < 0 ||
         offer_put(offer, "currency", currency[0] ? json_string(currency) : json_null()) < 0 ||
         offer_put(offer, "period", text_or_null(pair_text(line, "period"))) < 0 ||
         offer_put(offer, "cards", json_integer((json_int_t)cards)) < 0 ||
         offer_put(offer, "available", text_or_null(pair_text(line, "available"))) < 0 ||
         offer_put(offer, "interconnect", text_or_null(pair_text(line, "interconnect"))) < 0 ||
         offer_put(offer, "catalog", have_spec ? json_string(spec.name) : json_null()) < 0)) {
        json_decref(offer);
        offer = NULL;
    }
    if (offer && free_given &&
        json_object_set_new(offer, "free_bytes", json_integer((json_int_t)free_b))) {
        json_decref(offer);
        offer = NULL;
    }
    if (offer && mixed.devices && json_object_set(offer, "devices", mixed.devices)) {
        json_decref(offer);
        offer = NULL;
    }
    json_decref(mixed.devices);
    mixed.devices = NULL;
    /* the machine's host memory: a second capacity, for an offload (engine/launch.h) */
    if (offer && host_given &&
        json_object_set_new(offer, "host_bytes", json_integer((json_int_t)host))) {
        json_decref(offer);
        offer = NULL;
    }
    if (!offer) {
        json_decref(notes);
        vs_buf_free(&nb);
        return vs_error_oom(err);
    }
    offers = vs_sheet_array(sheet, VS_SK_OFFERS);
    if (!offers) {
        offers = json_array();
        json_object_set_new(sheet, "offers", offers);
    }
    /* Naming an offer again replaces it, so a re-run cell stays idempotent. */
    json_array_foreach(offers, i, o)
    {
        if (same(vs_json_str_of(o, "name"), name->value)) {
            json_array_set(offers, i, offer);
            break;
        }
    }
    if (i == json_array_size(offers))
        json_array_append(offers, offer);
    vs_render_gpu_note_proves_nothing(&nb);
    json_array_append_new(notes, json_string(vs_buf_str(&nb)));
    vs_buf_reset(&nb);

    {
        vs_gpu_offer_facts f;
        memset(&f, 0, sizeof f);
        f.name = name->value;
        f.spec = have_spec ? &spec : NULL;
        f.memory_known = mem_given;
        f.memory_bytes = memory;
        f.reported_known = rep_given;
        f.reported_bytes = reported;
        f.reported_basis = basis[0] ? basis : NULL;
        f.price = amount[0] ? amount : NULL;
        f.currency = currency[0] ? currency : NULL;
        f.period = pair_text(line, "period");
        f.available = pair_text(line, "available");
        f.interconnect = pair_text(line, "interconnect");
        f.cards = cards;
        bundle = vs_render_gpu_offer(&f, offer, notes);
    }
    vs_buf_free(&nb);
    json_decref(notes);
    json_decref(offer);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

/* ------------------------------------------------------------------ gpus */

static int verb_gpus(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *filter = vs_line_positional(line, 0);
    char key[128] = "";
    vs_bundle *bundle;
    size_t i, n = vs_catalog_count(), nshown = 0;
    vs_gpu_spec *shown;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 1, "gpus [FILTER]", err)) < 0)
        return rc;
    if (filter)
        vs_catalog_key(key, sizeof key, filter->value);
    shown = calloc(n + 1, sizeof *shown);
    if (!shown)
        return vs_error_oom(err);
    for (i = 0; i < n; i++) {
        vs_gpu_spec s;
        char k[128];
        vs_catalog_at(&s, i);
        vs_catalog_key(k, sizeof k, s.name);
        if (key[0] && !strstr(k, key))
            continue;
        shown[nshown++] = s;
    }
    bundle = vs_render_gpu_catalogue(shown, nshown);
    free(shown);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

/* --------------------------------------------------------------- require */

static int requirements_bundle(vs_ctx *ctx, const json_t *sheet, const char *added, int was_new,
                               vs_error *err)
{
    json_t *names = vs_classify_requirement_names(sheet);
    vs_bundle *bundle;
    if (!names)
        return vs_error_oom(err);
    bundle = vs_render_requirements(added, was_new, names);
    json_decref(names);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

static int verb_require(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *reqs;
    vs_buf name = VS_BUF_INIT;
    size_t i, np = vs_line_npositional(line);
    const char *known;
    int rc;
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (np == 0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `require \"TEXT\"`: the mandatory requirement, for "
                               "example require \"CUDA 12.4 driver\"");
    for (i = 0; i < np; i++)
        vs_buf_printf(&name, "%s%s", i ? " " : "", vs_line_positional(line, i)->value);
    if (vs_buf_failed(&name))
        return vs_error_oom(err);
    known = vs_classify_requirement_find(sheet, vs_buf_str(&name));
    if (known) {
        json_t *r;
        int declared = 0;
        vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_REQUIREMENTS), i, r)
        {
            if (vs_json_str_of(r, "name") == known) /* the sheet's own string: a declared one */
                declared = 1;
        }
        if (!declared) {
            const vs_arg *a = vs_line_positional(line, 0);
            rc = vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                 "'%s' is the built-in requirement '%s'; it is always mandatory",
                                 vs_buf_str(&name), known);
            vs_buf_free(&name);
            return rc;
        }
        rc = requirements_bundle(ctx, sheet, known, 0, err);
        vs_buf_free(&name);
        return rc;
    }
    reqs = vs_sheet_array(sheet, VS_SK_REQUIREMENTS);
    if (!reqs) {
        reqs = json_array();
        json_object_set_new(sheet, "requirements", reqs);
    }
    if (json_array_append_new(reqs, json_pack("{s:s}", "name", vs_buf_str(&name)))) {
        vs_buf_free(&name);
        return vs_error_oom(err);
    }
    rc = requirements_bundle(ctx, sheet, vs_buf_str(&name), 1, err);
    vs_buf_free(&name);
    return rc;
}

/* -------------------------------------------------------------- evidence */

static void list_names(vs_buf *b, const json_t *arr, const char *key)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x)
    {
        const char *s = key ? vs_json_str_of(x, key) : json_string_value(x);
        vs_buf_printf(b, "%s\"%s\"", i ? ", " : "", s ? s : "?");
    }
}

static int classify_sheet(vs_classification **out, const json_t *sheet,
                          const vs_component_views *views, vs_error *err)
{
    vs_envelope env;
    int rc = vs_envelope_compute(&env, sheet, views, err);
    if (rc < 0)
        return rc;
    return vs_fit_classify(out, sheet, &env, views, err);
}

static int verb_evidence(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "evidence CANDIDATE REQUIREMENT admissible|to-confirm|exclude "
                         "source=... [version=...] [scope=...]";
    json_t *sheet = vs_ctx_sheet(ctx), *offer, *entry, *arr, *e;
    vs_bundle *bundle = NULL;
    const vs_arg *cand = vs_line_positional(line, 0), *req = vs_line_positional(line, 1);
    const vs_arg *verd = vs_line_positional(line, 2), *src = vs_line_pair(line, "source");
    const char *req_name, *offer_name, *version = pair_text(line, "version");
    const char *scope = pair_text(line, "scope");
    vs_verdict v;
    vs_buf b = VS_BUF_INIT;
    vs_classification *c = NULL;
    size_t i;
    int rc;
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, evidence_keys, err)) < 0)
        return rc;
    if (!cand || !req || !verd)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 3, syntax, err)) < 0)
        return rc;
    offer = vs_classify_offer_find(sheet, cand->value);
    if (!offer) {
        json_t *offers = vs_sheet_array(sheet, VS_SK_OFFERS);
        if (json_array_size(offers))
            list_names(&b, offers, "name");
        rc = vs_error_set_at(err, VS_ENOTFOUND, cand->line, cand->column,
                             "no candidate named '%s'; %s%s", cand->value,
                             json_array_size(offers)
                                 ? "the candidates are: "
                                 : "no GPU offer yet (add one with `gpu NAME ...`)",
                             vs_buf_str(&b));
        vs_buf_free(&b);
        return rc;
    }
    offer_name = vs_json_str_of(offer, "name");
    req_name = vs_classify_requirement_find(sheet, req->value);
    if (!req_name) {
        json_t *names = vs_classify_requirement_names(sheet);
        if (!names)
            return vs_error_oom(err);
        list_names(&b, names, NULL);
        json_decref(names);
        rc = vs_error_set_at(err, VS_ENOTFOUND, req->line, req->column,
                             "no requirement named '%s'; the requirements are: %s (declare a new "
                             "one with `require \"...\"` first)",
                             req->value, vs_buf_str(&b));
        vs_buf_free(&b);
        return rc;
    }
    if ((rc = vs_verdict_parse(&v, verd->value, err)) < 0) {
        err->line = verd->line;
        err->column = verd->column;
        return rc;
    }
    if (!src || !src->value[0])
        return vs_error_set_at(err, VS_EVALUE, src ? src->line : line->line,
                               src ? src->value_column : line->column,
                               "evidence needs source=...: every verdict is tied to a piece of "
                               "evidence (a document, a measurement, a provider's list)");
    entry = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "candidate", offer_name, "requirement",
                      req_name, "verdict", vs_verdict_name(v), "source", src->value, "version",
                      version ? json_string(version) : json_null(), "scope",
                      scope ? json_string(scope) : json_null());
    /* the card it was obtained under: once the card moves past it, it no
     * longer decides the verdict (sheet/derived.h) */
    if (!entry ||
        json_object_set_new(entry, "card", vs_derived_evidence_card(sheet, req_name)) < 0) {
        json_decref(entry);
        return vs_error_oom(err);
    }
    arr = vs_sheet_array(sheet, VS_SK_EVIDENCE);
    if (!arr) {
        arr = json_array();
        json_object_set_new(sheet, "evidence", arr);
    }
    /* The same piece of evidence given again (same source, version and scope)
     * replaces the earlier verdict: re-running a cell, or correcting it. */
    json_array_foreach(arr, i, e)
    {
        if (same(vs_json_str_of(e, "candidate"), offer_name) &&
            same(vs_json_str_of(e, "requirement"), req_name) &&
            same(vs_json_str_of(e, "source"), src->value) &&
            json_equal(json_object_get(e, "version"), json_object_get(entry, "version")) &&
            json_equal(json_object_get(e, "scope"), json_object_get(entry, "scope"))) {
            json_array_set(arr, i, entry);
            break;
        }
    }
    if (i == json_array_size(arr))
        json_array_append(arr, entry);

    if ((rc = classify_sheet(&c, sheet, NULL, err)) < 0) {
        json_decref(entry);
        return rc;
    }
    {
        const vs_classify_row *row = NULL;
        const vs_classify_req *r = NULL;
        size_t k;
        for (k = 0; k < c->nrows; k++)
            if (!strcmp(c->rows[k].gpu, offer_name))
                row = &c->rows[k];
        for (k = 0; row && k < row->nreqs; k++)
            if (!strcmp(row->reqs[k].name, req_name))
                r = &row->reqs[k];
        bundle = vs_render_evidence(entry, c, row, r, vs_verdict_name(v));
    }
    vs_classification_free(c);
    json_decref(entry);
    vs_buf_free(&b);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

/* ------------------------------------------------------------ candidates */

static int verb_candidates(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx);
    vs_bundle *bundle;
    vs_classification *c = NULL;
    const vs_component_views *views;
    vs_svg_memo *memo = vs_ctx_chart_memo(ctx);
    int rc;
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 0, "candidates", err)) < 0)
        return rc;
    if (!(views = vs_ctx_component_views(ctx, sheet)))
        return vs_error_oom(err);
    if ((rc = classify_sheet(&c, sheet, views, err)) < 0)
        return rc;
    /* The chart is the envelope's: every offer's capacity line against the
     * per-GPU envelope, drawn by render/envelope: through the cell's memo,
     * so that after `envelope` on the same sheet it is not drawn again. */
    bundle = vs_render_envelope_chart(sheet, &c->env, views, memo)
                 ? vs_candidates_bundle_chart(c, vs_svg_memo_json(memo))
                 : NULL;
    vs_classification_free(c);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

/* ---------------------------------------------------------------- table */

const vs_verb vs_verbs_gpu[] = {
    {"gpu", verb_gpu,
     "gpu NAME [catalog=ENTRY] [memory=24GB] [reported=24564MiB [reported_source=\"...\"]] "
     "[free=23860MiB] [price=47.14USD] [period=3d] [cards=N] [available=...] "
     "[interconnect=...] [host=64GB] [devices=\"RTX 4090,RTX 3090\"] | gpu here",
     "add or replace a GPU offer (a candidate)",
     "Adds the GPU offer NAME to the sheet, or replaces the offer of that name. `gpu here` adds "
     "this machine's GPUs as NVML reports them (libnvidia-ml.so.1, loaded at run time): one "
     "offer per group of identical GPUs, with that many cards, the driver's exact memory total "
     "as the device-reported capacity, and the host, GPU indices, driver and CUDA's own total "
     "in its source; run it again and the same offers are restated. The catalogue "
     "(`gpus` lists it) fills what it knows for NAME, or for catalog=ENTRY when the offer has "
     "its own name: the nominal memory as marketed (GB = 10^9 bytes) and the total the driver "
     "reports (nvidia-smi's MiB, so bytes, with the ECC state it assumes and the link to the "
     "public capture that printed it). A name with spaces is quoted (gpu \"H100 SXM\"). What "
     "you give wins: memory= is the nominal memory, reported= the device-reported total (the "
     "card's own nvidia-smi memory.total) and reported_source= where that figure comes from. "
     "The capacity check uses the reported total when known, else the nominal memory, and "
     "says which; on the nominal memory alone it excludes only when the need exceeds the "
     "nominal figure read in binary units (80 GB read as 80 GiB), and is to-confirm in "
     "between, naming the missing device-reported total. price= is the exact total cost of "
     "the package (all its cards for its period) with its currency (47.14USD); it ranks cost, "
     "never speed. period= is the package's duration (3d, 72h, 2w, 1mo). cards= is how many "
     "cards the package has: several cards count only with a placement on that many GPUs "
     "(`placement tensor gpus=2`); two cards are never one memory space. free= is the memory "
     "free on one card when the engine starts, as the engine reads it (llama.cpp's \"MiB free\" "
     "of `using device CUDA0 ... - 23860 MiB free`): llama.cpp's --fit budgets from it. "
     "available= documents "
     "the schedule (an ISO date or `now`), interconnect= the link between cards. host= is the "
     "machine's host memory (RAM), a second capacity: when the card does not fit the GPU, "
     "`launch` offloads weights to it (llama.cpp's -ngl or --n-cpu-moe, vLLM's "
     "--cpu-offload-gb) and refuses as exclude when the host holds less than the offloaded "
     "part. devices=\"RTX 4090,RTX 3090\" makes one offer of cards of several kinds (each a "
     "catalogue name, in order): it has that many cards and the smallest card's memory; fit "
     "(and so candidates) sizes each card against its own budget, under llama.cpp with its "
     "share (by -ts, else by each card's total as llama.cpp splits by free memory), under "
     "engines that split evenly with an even share, and names the card that does not hold; "
     "`launch` writes those shares. A GPU that shares memory with its CPU has a unified basis in "
     "the catalogue: an "
     "Apple M-series offer's capacity is Metal's working-set limit (recommendedMaxWorkingSetSize, "
     "as a public llama.cpp log printed it; `sudo sysctl iogpu.wired_limit_mb=N` raises it, then "
     "give reported=), an AMD APU's the GTT limit beside its BIOS carve-out (half the memory the "
     "OS sees by default), and a GH200 or GB200 keeps its HBM as capacity with the Grace CPU's "
     "LPDDR5X over NVLink-C2C as host memory (host= wins); fit names the basis. A catalogue "
     "figure proves neither a software installation, nor free memory, nor an availability "
     "period.",
     gpu_keys, NULL, VS_VERB_GPU_NAME, NULL},
    {"gpus", verb_gpus, "gpus [FILTER]", "list the GPU catalogue with its sources",
     "Lists the GPU catalogue (src/catalog/gpus.json): nominal memory as marketed, the total "
     "nvidia-smi reported in one public capture (MiB and bytes) with its ECC state and link, "
     "CUDA's total where a public log printed it, and bf16 and fp8 support; unknown facts stay "
     "unknown and the list says which totals are not sourced. FILTER keeps the names containing it "
     "(`gpus rtx`). The payload (kind \"catalog\") carries every entry with its sources.",
     NULL, NULL, 0, NULL},
    {"require", verb_require, "require \"TEXT\"", "add a mandatory requirement",
     "Adds a mandatory requirement to the sheet (for example require \"CUDA 12.4 driver\"). "
     "Built in, always: capacity (the per-GPU envelope within one card's memory) and what the "
     "card implies: length, concurrency (inference) or microbatch (training), available-memory "
     "(memory actually available on the device), compatibility (software) and quality; under "
     "an offload placement, host-memory (the weights kept in host memory within the offer's "
     "host=). Every "
     "requirement is to-confirm for each candidate until `evidence` says otherwise; a "
     "candidate is retained only when all are admissible.",
     NULL, NULL, 0, NULL},
    {"evidence", verb_evidence,
     "evidence CANDIDATE REQUIREMENT admissible|to-confirm|exclude source=... [version=...] "
     "[scope=...]",
     "tie a verdict to a piece of evidence",
     "Records that a piece of evidence (source=, required; version= and scope= say which and "
     "how far) gives CANDIDATE a verdict on REQUIREMENT: admissible (it confirms the "
     "requirement within its scope), to-confirm, or exclude (an established failure prevents "
     "the workload). CANDIDATE is a `gpu` offer and REQUIREMENT a built-in (capacity, length, "
     "concurrency or microbatch, available-memory, host-memory, compatibility, quality) or one "
     "declared "
     "with `require`. Any exclude excludes; an exclusion is never offset by other evidence or "
     "a preference, and a computed capacity exclusion is not lifted by evidence. The same "
     "source, version and scope given again replaces its earlier verdict. A piece of "
     "evidence holds for the card it was given under: quality, compatibility and declared "
     "requirements for the model, its revision and the format; length, concurrency and "
     "microbatch up to the value confirmed; capacity and available-memory for all of them. "
     "Once the card moves past it (format bf16 -> int4, a longer length), it decides nothing "
     "and the requirement is to-confirm again, naming the change.",
     evidence_keys, NULL, VS_VERB_GPU_NAME, NULL},
    {"candidates", verb_candidates, "candidates", "classify and rank the GPU offers",
     "Shows every offer against every mandatory requirement with its verdict and the evidence "
     "behind it. Capacity is checked per GPU after the placement: exclude when the known part "
     "of the envelope already exceeds the capacity (on a nominal basis: exceeds even the "
     "nominal figure read in binary units, else to-confirm until the device-reported total is "
     "given), or when the placement needs more GPUs than the offer has (said on its own line), "
     "admissible when every component is known and the envelope fits, to-confirm "
     "when it fits but something is unknown. A candidate is retained only when every "
     "requirement is admissible; retained candidates are ranked by total package cost (exact "
     "decimals, one currency), then useful margin (capacity minus the per-GPU envelope), then "
     "documented schedule. Prices rank cost, never speed. Payload kind \"candidates\": rows of "
     "{gpu, capacity_bytes, capacity_basis, verdict, requirements: [{name, verdict, "
     "evidence}], rank}.",
     NULL, NULL, 0, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL},
};
