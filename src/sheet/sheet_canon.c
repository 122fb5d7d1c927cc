/* sheet_canon.c — the canonical text of a sheet (vs_sheet_dump) and back (vs_sheet_load).
 *
 * Records in git store this text, so it must be byte-stable and diff well: the
 * layout of sheet.h is written down once below as a table of fields, and both
 * directions walk that table. Dumping writes the layout's keys in the layout's
 * order (missing ones with their defaults, so that load adds nothing a second
 * dump would show), then any further keys sorted, and never a "_" runtime key.
 * Objects are expanded one key per line; an array puts each element on its own
 * line, written inline, so a changed component is a one-line diff.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/envelope.h"
#include "sheet/kvlayout.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/cmp.h"
#include "util/json.h"

enum { F_STR = 1, F_UINT, F_INT, F_BOOL, F_OBJ, F_ARR, F_MAP_UINT, F_NUM };

typedef struct field {
    const char *key;
    int type;
    int nullable;
    const struct field *sub;     /* F_OBJ: fields ending with {NULL}; F_ARR: the element */
    const char *const *choices;  /* F_STR: the allowed values, NULL-terminated */
    const char *def;             /* canonical JSON text when missing (NULL: see default_text) */
    int (*valid)(const char *s); /* F_STR: extra check */
} field;

/* tasks, statuses, classes and verdicts are sheet/vocab.h's tables */
static const char *const kinds[] = {"single", "ddp", "zero", "fsdp", "tensor", NULL};
static const char *const offloads[] = {"model", "sequential", NULL};
static const char *const states[] = {"current", "to re-measure", NULL};

static int valid_format(const char *s)
{
    unsigned bits;
    return vs_envelope_format_bits(&bits, s, NULL) == 0;
}
static int valid_schema(const char *s)
{
    return !strcmp(s, VS_SHEET_SCHEMA) || !strcmp(s, VS_SHEET_SCHEMA_V1);
}

#define STR(k)                                                                                     \
    {                                                                                              \
        k, F_STR, 0, NULL, NULL, NULL, NULL                                                        \
    }
#define STRN(k)                                                                                    \
    {                                                                                              \
        k, F_STR, 1, NULL, NULL, NULL, NULL                                                        \
    }
#define UINT(k)                                                                                    \
    {                                                                                              \
        k, F_UINT, 0, NULL, NULL, NULL, NULL                                                       \
    }
#define UINTN(k)                                                                                   \
    {                                                                                              \
        k, F_UINT, 1, NULL, NULL, NULL, NULL                                                       \
    }
#define END                                                                                        \
    {                                                                                              \
        NULL, 0, 0, NULL, NULL, NULL, NULL                                                         \
    }

static const field lineage_f[] = {STR("sheet"), STR("commit"), STRN("title"), END};

static const char *const kv_kinds[] = {"full",  "sliding", "chunked", "latent",
                                       "state", "cross",   "none",    NULL};
static const field kv_group_f[] = {{"kind", F_STR, 0, NULL, kv_kinds, NULL, NULL},
                                   UINT("layers"),
                                   UINTN("kv_heads"),
                                   UINTN("head_dim"),
                                   UINTN("head_dim_v"),
                                   UINTN("window"),
                                   UINTN("latent"),
                                   UINTN("state_bytes"),
                                   END};
static const field kv_group_e = {NULL, F_OBJ, 0, kv_group_f, NULL, NULL, NULL};

static const field arch_f[] = {STRN("family"),
                               STRN("rule"),
                               STRN("config"),
                               UINTN("layers"),
                               UINTN("hidden"),
                               UINTN("heads"),
                               UINTN("kv_heads"),
                               UINTN("head_dim"),
                               UINTN("intermediate"),
                               UINTN("vocab"),
                               UINTN("experts"),
                               UINTN("experts_per_token"),
                               UINTN("params_total"),
                               UINTN("params_active"),
                               {"tied_embeddings", F_BOOL, 1, NULL, NULL, NULL, NULL},
                               {"kv_layout", F_ARR, 1, &kv_group_e, NULL, NULL, NULL},
                               END};

static const field engine_keys_f[] = {END}; /* the keys as written: strings, any names */
static const field engine_f[] = {
    STR("name"), {"keys", F_OBJ, 0, engine_keys_f, NULL, "{}", NULL}, END};

static const field card_f[] = {STRN("model"),
                               STRN("revision"),
                               UINTN("params"),
                               STRN("params_source"),
                               {"task", F_STR, 1, NULL, vs_vocab_task_names, NULL, NULL},
                               {"format", F_STR, 1, NULL, NULL, NULL, valid_format},
                               UINTN("bits"),
                               UINTN("length"),
                               UINTN("concurrency"),
                               UINTN("microbatch"),
                               UINTN("accumulation"),
                               /* schema 2: image and video generation (diffusers pipelines) */
                               UINTN("width"),
                               UINTN("height"),
                               UINTN("frames"),
                               UINTN("batch"),
                               STRN("quality"),
                               {"arch", F_OBJ, 1, arch_f, NULL, NULL, NULL},
                               {"engine", F_OBJ, 1, engine_f, NULL, NULL, NULL},
                               END};

static const field by_dtype_f[] = {STR("dtype"), UINT("bytes"), UINTN("params"), END};
static const field other_dtype_f[] = {STRN("pattern"), STR("dtype"), UINT("bytes"),
                                      UINTN("tensors"), END};
static const field file_f[] = {STR("name"), UINTN("size"), STRN("sha256"), END};
static const field by_dtype_e = {NULL, F_OBJ, 0, by_dtype_f, NULL, NULL, NULL};
static const field other_dtype_e = {NULL, F_OBJ, 0, other_dtype_f, NULL, NULL, NULL};
static const field file_e = {NULL, F_OBJ, 0, file_f, NULL, NULL, NULL};
/* schema 2: a diffusers pipeline's components (model/pipeline_files.h) */
static const field wcomponent_f[] = {
    STR("name"),           STRN("class"),
    STRN("library"),       UINT("bytes"),
    UINTN("params"),       {"by_dtype", F_ARR, 0, &by_dtype_e, NULL, NULL, NULL},
    STRN("largest_group"), UINTN("largest_group_bytes"),
    STRN("variant"),       END};
static const field wcomponent_e = {NULL, F_OBJ, 0, wcomponent_f, NULL, NULL, NULL};
static const field weights_files_f[] = {STRN("path"),
                                        UINT("bytes"),
                                        UINTN("params"),
                                        {"by_dtype", F_ARR, 0, &by_dtype_e, NULL, NULL, NULL},
                                        {"other_dtype", F_ARR, 0, &other_dtype_e, NULL, NULL, NULL},
                                        {"files", F_ARR, 0, &file_e, NULL, NULL, NULL},
                                        {"components", F_ARR, 1, &wcomponent_e, NULL, NULL, NULL},
                                        END};

static const field component_f[] = {
    STR("name"),
    UINTN("bytes"),
    {"status", F_STR, 0, NULL, vs_vocab_status_names, NULL, NULL},
    STRN("source"),
    STRN("phase"),
    {"class", F_STR, 0, NULL, vs_vocab_class_names, "\"other\"", NULL},
    END};
static const field component_e = {NULL, F_OBJ, 0, component_f, NULL, NULL, NULL};

static const field placement_f[] = {{"kind", F_STR, 0, NULL, kinds, "\"single\"", NULL},
                                    {"gpus", F_UINT, 0, NULL, NULL, "1", NULL},
                                    UINTN("stage"),
                                    /* schema 2: diffusers' CPU offload */
                                    {"offload", F_STR, 1, NULL, offloads, NULL, NULL},
                                    END};

static const field stage_f[] = {
    STR("name"), UINTN("length"), UINTN("concurrency"), UINTN("microbatch"), STRN("note"),
    /* schema 2: image and video generation */
    UINTN("width"), UINTN("height"), UINTN("frames"), UINTN("batch"), END};
static const field stage_e = {NULL, F_OBJ, 0, stage_f, NULL, NULL, NULL};

static const field offer_f[] = {STR("name"),
                                UINTN("memory_bytes"),
                                UINTN("reported_bytes"),
                                STRN("reported_basis"),
                                STRN("price"),
                                STRN("currency"),
                                STRN("period"),
                                {"cards", F_UINT, 0, NULL, NULL, "1", NULL},
                                STRN("available"),
                                STRN("interconnect"),
                                STRN("catalog"),
                                END};
static const field offer_e = {NULL, F_OBJ, 0, offer_f, NULL, NULL, NULL};

static const field requirement_f[] = {STR("name"), END};
static const field requirement_e = {NULL, F_OBJ, 0, requirement_f, NULL, NULL, NULL};

static const field evidence_f[] = {STR("candidate"),
                                   STR("requirement"),
                                   {"verdict", F_STR, 0, NULL, vs_vocab_verdict_names, NULL, NULL},
                                   STRN("source"),
                                   STRN("version"),
                                   STRN("scope"),
                                   END};
static const field evidence_e = {NULL, F_OBJ, 0, evidence_f, NULL, NULL, NULL};

static const field run_gpu_f[] = {UINTN("index"), STRN("name"), UINTN("total_bytes"),
                                  STRN("total_basis"), END};
static const field run_gpu_e = {NULL, F_OBJ, 0, run_gpu_f, NULL, NULL, NULL};
static const field run_f[] = {STR("id"),
                              STRN("command"),
                              STRN("phase"),
                              {"exit_status", F_INT, 1, NULL, NULL, NULL, NULL},
                              STRN("overflow_phase"),
                              STRN("started"),
                              UINTN("elapsed_ms"),
                              STRN("host"),
                              STRN("driver"),
                              STRN("nvml"),
                              {"gpus", F_ARR, 0, &run_gpu_e, NULL, NULL, NULL},
                              END};
static const field run_e = {NULL, F_OBJ, 0, run_f, NULL, NULL, NULL};

static const field measurement_f[] = {STRN("run"),
                                      STR("phase"),
                                      UINTN("gpu"),
                                      STRN("gpu_name"),
                                      STR("counter"),
                                      STRN("scope"),
                                      UINTN("peak_bytes"), /* null: a count (value) */
                                      {"dims", F_MAP_UINT, 0, NULL, NULL, "{}", NULL},
                                      STRN("stage"),
                                      STRN("host"),
                                      UINTN("rank"),
                                      {"validates_card", F_BOOL, 0, NULL, NULL, "false", NULL},
                                      {"state", F_STR, 0, NULL, states, "\"current\"", NULL},
                                      STRN("time"),
                                      /* schema 2: what a log printed (measure import) */
                                      STRN("text"),
                                      UINTN("resolution_bytes"),
                                      {"value", F_NUM, 1, NULL, NULL, NULL, NULL},
                                      STRN("unit"),
                                      /* the engine's release as the log's own version line
                                         printed it (measure import); absent in older
                                         records, read as null */
                                      STRN("engine_version"),
                                      END};
static const field measurement_e = {NULL, F_OBJ, 0, measurement_f, NULL, NULL, NULL};

static const field string_e = {NULL, F_STR, 0, NULL, NULL, NULL, NULL};
static const field oom_f[] = {STR("phase"), STRN("note"), END};
static const field oom_e = {NULL, F_OBJ, 0, oom_f, NULL, NULL, NULL};

static const field sheet_f[] = {{"schema", F_STR, 0, NULL, NULL, NULL, valid_schema},
                                {"id", F_STR, 0, NULL, NULL, NULL, vs_sheet_id_valid},
                                STRN("title"),
                                {"lineage", F_OBJ, 1, lineage_f, NULL, NULL, NULL},
                                {"card", F_OBJ, 0, card_f, NULL, NULL, NULL},
                                {"weights_files", F_OBJ, 1, weights_files_f, NULL, NULL, NULL},
                                {"components", F_ARR, 0, &component_e, NULL, NULL, NULL},
                                {"placement", F_OBJ, 0, placement_f, NULL, NULL, NULL},
                                {"stages", F_ARR, 0, &stage_e, NULL, NULL, NULL},
                                {"offers", F_ARR, 0, &offer_e, NULL, NULL, NULL},
                                {"requirements", F_ARR, 0, &requirement_e, NULL, NULL, NULL},
                                {"evidence", F_ARR, 0, &evidence_e, NULL, NULL, NULL},
                                {"runs", F_ARR, 0, &run_e, NULL, NULL, NULL},
                                {"measurements", F_ARR, 0, &measurement_e, NULL, NULL, NULL},
                                {"invalidate", F_ARR, 0, &string_e, NULL, NULL, NULL},
                                {"oom", F_ARR, 0, &oom_e, NULL, NULL, NULL},
                                STRN("decision"),
                                END};

/* ---- writing ---- */

/* Strings are escaped as everywhere else (util/json): a string that is not
 * UTF-8, which the sheet's setters refuse, fails the whole text. */
static void put_string(vs_buf *b, const char *s, size_t n)
{
    if (vs_json_dump_string(s, n, b) < 0)
        b->failed = 1;
}

/* The shortest digits that read back to the same double (%.{1..17}g), written
 * positionally when the exponent is modest (10000.0, not 1e+04), and marked as
 * a real so that it does not come back as an integer. */
static void put_real(vs_buf *b, double d)
{
    char tmp[64], e[64];
    const char *x;
    int p, exp10;
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    if (p > 17)
        p = 17;
    snprintf(e, sizeof e, "%.*e", p - 1, d);
    x = strchr(e, 'e');
    exp10 = x ? atoi(x + 1) : 0;
    if (x && exp10 >= -5 && exp10 < 17) {
        int decimals = p - 1 - exp10;
        char f[64];
        snprintf(f, sizeof f, "%.*f", decimals > 0 ? decimals : 0, d);
        if (strtod(f, NULL) == d)
            memcpy(tmp, f, strlen(f) + 1);
    }
    if (!strpbrk(tmp, ".eEn"))
        strcat(tmp, ".0");
    vs_buf_puts(b, tmp);
}

static void indent(vs_buf *b, int depth)
{
    int i;
    for (i = 0; i < depth; i++)
        vs_buf_puts(b, "  ");
}

static int is_runtime_key(const char *k)
{
    return k[0] == '_';
}

static const field *find_field(const field *fs, const char *key)
{
    for (; fs && fs->key; fs++)
        if (!strcmp(fs->key, key))
            return fs;
    return NULL;
}

/* The keys of obj not described by fs and not runtime keys, sorted, into a
 * malloc'd array (*n entries, borrowed strings; NULL when none). VS_ENOMEM
 * when memory is short. */
static int extra_keys(const json_t *obj, const field *fs, const char ***out, size_t *n)
{
    const char **keys;
    const char *k;
    json_t *v;
    size_t cap = json_object_size(obj), i = 0;
    *out = NULL;
    *n = 0;
    if (cap == 0)
        return 0;
    if (!(keys = malloc(cap * sizeof *keys)))
        return VS_ENOMEM;
    json_object_foreach((json_t *)obj, k, v)
    {
        (void)v;
        if (!is_runtime_key(k) && !find_field(fs, k))
            keys[i++] = k;
    }
    qsort(keys, i, sizeof *keys, vs_cmp_str);
    *out = keys;
    *n = i;
    return 0;
}

static void put_value(vs_buf *b, const json_t *v, const field *f, int inline_, int depth);

static void put_default(vs_buf *b, const field *f, int inline_, int depth)
{
    if (f->def)
        vs_buf_puts(b, f->def);
    else if (f->nullable)
        vs_buf_puts(b, "null");
    else if (f->type == F_ARR)
        vs_buf_puts(b, "[]");
    else if (f->type == F_MAP_UINT)
        vs_buf_puts(b, "{}");
    else if (f->type == F_OBJ) {
        json_t *empty = json_object();
        if (empty)
            put_value(b, empty, f, inline_, depth);
        else
            b->failed = 1;
        json_decref(empty);
    } else
        vs_buf_puts(b, "null");
}

static void put_object(vs_buf *b, const json_t *obj, const field *fs, int inline_, int depth)
{
    size_t nextra = 0, i;
    const char **extra = NULL;
    int first = 1;
    const field *f;
    if (extra_keys(obj, fs, &extra, &nextra)) {
        b->failed = 1;
        return;
    }
    if ((!fs || !fs->key) && nextra == 0) {
        vs_buf_puts(b, "{}");
        free(extra);
        return;
    }
    vs_buf_putc(b, '{');
    for (f = fs; f && f->key; f++) {
        json_t *v = json_object_get(obj, f->key);
        if (inline_)
            vs_buf_puts(b, first ? "" : ", ");
        else {
            vs_buf_puts(b, first ? "\n" : ",\n");
            indent(b, depth + 1);
        }
        first = 0;
        put_string(b, f->key, strlen(f->key));
        vs_buf_puts(b, ": ");
        if (v)
            put_value(b, v, f, inline_, depth + 1);
        else
            put_default(b, f, inline_, depth + 1);
    }
    for (i = 0; i < nextra; i++) {
        if (inline_)
            vs_buf_puts(b, first ? "" : ", ");
        else {
            vs_buf_puts(b, first ? "\n" : ",\n");
            indent(b, depth + 1);
        }
        first = 0;
        put_string(b, extra[i], strlen(extra[i]));
        vs_buf_puts(b, ": ");
        put_value(b, json_object_get(obj, extra[i]), NULL, inline_, depth + 1);
    }
    if (!inline_) {
        vs_buf_putc(b, '\n');
        indent(b, depth);
    }
    vs_buf_putc(b, '}');
    free(extra);
}

static void put_array(vs_buf *b, const json_t *arr, const field *elem, int inline_, int depth)
{
    size_t i, n = json_array_size(arr);
    if (n == 0) {
        vs_buf_puts(b, "[]");
        return;
    }
    vs_buf_putc(b, '[');
    for (i = 0; i < n; i++) {
        if (inline_)
            vs_buf_puts(b, i ? ", " : "");
        else {
            vs_buf_puts(b, i ? ",\n" : "\n");
            indent(b, depth + 1);
        }
        /* Elements are written inline: one component (offer, measurement, ...)
         * per line. */
        put_value(b, json_array_get(arr, i), elem, 1, depth + 1);
    }
    if (!inline_) {
        vs_buf_putc(b, '\n');
        indent(b, depth);
    }
    vs_buf_putc(b, ']');
}

static void put_value(vs_buf *b, const json_t *v, const field *f, int inline_, int depth)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        put_object(b, v, f && f->type == F_OBJ ? f->sub : NULL, inline_, depth);
        break;
    case JSON_ARRAY:
        put_array(b, v, f && f->type == F_ARR ? f->sub : NULL, inline_, depth);
        break;
    case JSON_STRING:
        put_string(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        vs_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        put_real(b, json_real_value(v));
        break;
    case JSON_TRUE:
        vs_buf_puts(b, "true");
        break;
    case JSON_FALSE:
        vs_buf_puts(b, "false");
        break;
    default:
        vs_buf_puts(b, "null");
        break;
    }
}

char *vs_sheet_dump(const json_t *sheet)
{
    vs_buf b = VS_BUF_INIT;
    if (!json_is_object(sheet))
        return NULL;
    put_object(&b, sheet, sheet_f, 0, 0);
    vs_buf_putc(&b, '\n');
    return vs_buf_take(&b);
}

/* ---- reading ---- */

typedef struct path {
    char text[256];
    size_t len;
} path;

static size_t path_push_key(path *p, const char *key)
{
    size_t old = p->len;
    int n = snprintf(p->text + p->len, sizeof p->text - p->len, "%s%s", p->len ? "." : "", key);
    if (n > 0)
        p->len = p->len + (size_t)n < sizeof p->text ? p->len + (size_t)n : sizeof p->text - 1;
    return old;
}

static size_t path_push_index(path *p, size_t i)
{
    size_t old = p->len;
    int n = snprintf(p->text + p->len, sizeof p->text - p->len, "[%zu]", i);
    if (n > 0)
        p->len = p->len + (size_t)n < sizeof p->text ? p->len + (size_t)n : sizeof p->text - 1;
    return old;
}

static void path_pop(path *p, size_t old)
{
    p->len = old;
    p->text[old] = '\0';
}

static const char *type_word(const field *f)
{
    switch (f->type) {
    case F_STR:
        return "a string";
    case F_UINT:
        return "a non-negative integer";
    case F_INT:
        return "an integer";
    case F_BOOL:
        return "true or false";
    case F_OBJ:
        return "an object";
    case F_ARR:
        return "an array";
    case F_MAP_UINT:
        return "an object of non-negative integers";
    case F_NUM:
        return "a number >= 0";
    default:
        return "a value";
    }
}

static int check_value(json_t *v, const field *f, path *p, vs_error *err);

static int load_default(json_t **out, const field *f, path *p, vs_error *err)
{
    json_error_t jerr;
    if (f->def) {
        *out = json_loads(f->def, JSON_DECODE_ANY, &jerr);
    } else if (f->nullable) {
        *out = json_null();
    } else if (f->type == F_ARR) {
        *out = json_array();
    } else if (f->type == F_MAP_UINT) {
        *out = json_object();
    } else if (f->type == F_OBJ) {
        int rc;
        if (!(*out = json_object()))
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        if ((rc = check_value(*out, f, p, err))) {
            json_decref(*out);
            *out = NULL;
            return rc;
        }
        return 0;
    } else {
        return vs_error_set(err, VS_EFORMAT, "%s: missing (expected %s)", p->text, type_word(f));
    }
    if (!*out)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    return 0;
}

static int drop_runtime_keys(json_t *obj, vs_error *err)
{
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(obj, tmp, k, v)
    {
        (void)v;
        if (is_runtime_key(k) && json_object_del(obj, k))
            return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    return 0;
}

static int check_object(json_t *obj, const field *fs, path *p, vs_error *err)
{
    const field *f;
    int rc;
    if ((rc = drop_runtime_keys(obj, err)))
        return rc;
    for (f = fs; f && f->key; f++) {
        json_t *v = json_object_get(obj, f->key);
        size_t old = path_push_key(p, f->key);
        if (!v) {
            json_t *d = NULL;
            if ((rc = load_default(&d, f, p, err)))
                return rc;
            if (json_object_set_new(obj, f->key, d))
                return vs_error_set(err, VS_ENOMEM, "out of memory");
        } else if ((rc = check_value(v, f, p, err))) {
            return rc;
        }
        path_pop(p, old);
    }
    return 0;
}

static int check_value(json_t *v, const field *f, path *p, vs_error *err)
{
    const char *where = p->len ? p->text : "the record";
    size_t i;
    int rc;
    if (json_is_null(v)) {
        if (f->nullable)
            return 0;
        return vs_error_set(err, VS_EFORMAT, "%s: expected %s, not null", where, type_word(f));
    }
    switch (f->type) {
    case F_STR: {
        const char *s = json_string_value(v);
        const char *const *c;
        if (!s)
            break;
        if (f->choices) {
            for (c = f->choices; *c; c++)
                if (!strcmp(*c, s))
                    break;
            if (!*c)
                return vs_error_set(err, VS_EFORMAT, "%s: '%s' is not an allowed value", where, s);
        }
        if (f->valid && !f->valid(s))
            return vs_error_set(err, VS_EFORMAT, "%s: '%s' is not valid here", where, s);
        return 0;
    }
    case F_UINT:
        if (json_is_integer(v) && json_integer_value(v) >= 0)
            return 0;
        break;
    case F_INT:
        if (json_is_integer(v))
            return 0;
        break;
    case F_NUM:
        if (json_is_number(v) && json_number_value(v) >= 0)
            return 0;
        break;
    case F_BOOL:
        if (json_is_boolean(v))
            return 0;
        break;
    case F_OBJ:
        if (json_is_object(v))
            return check_object(v, f->sub, p, err);
        break;
    case F_MAP_UINT:
        if (json_is_object(v)) {
            const char *k;
            json_t *x;
            if ((rc = drop_runtime_keys(v, err)))
                return rc;
            json_object_foreach(v, k, x)
            {
                if (!json_is_integer(x) || json_integer_value(x) < 0)
                    return vs_error_set(err, VS_EFORMAT, "%s.%s: expected a non-negative integer",
                                        where, k);
            }
            return 0;
        }
        break;
    case F_ARR:
        if (json_is_array(v)) {
            json_t *x;
            json_array_foreach(v, i, x)
            {
                size_t old = path_push_index(p, i);
                if ((rc = check_value(x, f->sub, p, err)))
                    return rc;
                path_pop(p, old);
            }
            return 0;
        }
        break;
    default:
        return 0;
    }
    return vs_error_set(err, VS_EFORMAT, "%s: expected %s", where, type_word(f));
}

/* A schema-1 record's architecture knew one attention shape: every layer
 * full, layers x kv_heads x head_dim (head_dim = hidden / heads when absent). */
static int old_arch_layout(json_t *root, vs_error *err)
{
    json_t *arch = vs_sheet_card_get(root, VS_CK_ARCH), *j;
    json_int_t L, H, D, hid, heads;
    vs_kv_layout l;
    if (!json_is_object(arch) || !json_is_null(json_object_get(arch, "kv_layout")))
        return 0;
    L = json_integer_value(json_object_get(arch, "layers"));
    H = json_integer_value(json_object_get(arch, "kv_heads"));
    D = json_integer_value(json_object_get(arch, "head_dim"));
    hid = json_integer_value(json_object_get(arch, "hidden"));
    heads = json_integer_value(json_object_get(arch, "heads"));
    if (H <= 0)
        H = heads;
    if (D <= 0 && heads > 0 && hid > 0 && hid % heads == 0)
        D = hid / heads;
    if (L <= 0 || H <= 0 || D <= 0)
        return 0;
    vs_kv_layout_uniform(&l, (uint64_t)L, (uint64_t)H, (uint64_t)D);
    if (!(j = vs_kv_layout_to_json(&l)) || json_object_set_new(arch, "kv_layout", j))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    return 0;
}

int vs_sheet_check_entry(json_t *entry, const char *array_key, vs_error *err)
{
    const field *f = find_field(sheet_f, array_key);
    path p;
    if (!f || f->type != F_ARR)
        return vs_error_set(err, VS_EVALUE, "the sheet has no array \"%s\"", array_key);
    p.len = 0;
    p.text[0] = '\0';
    path_push_key(&p, array_key);
    return check_value(entry, f->sub, &p, err);
}

int vs_sheet_load(json_t **out, const char *text, size_t len, vs_error *err)
{
    json_error_t jerr;
    json_t *root;
    path p;
    int rc, old_schema = 0;
    *out = NULL;
    p.len = 0;
    p.text[0] = '\0';
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return vs_error_set_at_pos(err, VS_EFORMAT, jerr.line > 0 ? jerr.line : 1,
                                   jerr.column > 0 ? jerr.column : 1, jerr.position,
                                   "sheet record: %s", jerr.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return vs_error_set_at(err, VS_EFORMAT, 1, 1, "sheet record: expected an object");
    }
    if (json_is_string(vs_sheet_get(root, VS_SK_SCHEMA)) &&
        !strcmp(vs_sheet_get_str(root, VS_SK_SCHEMA), VS_SHEET_SCHEMA_V1)) {
        /* the previous schema: read as this one, its new keys at their defaults */
        if (json_object_set_new(root, "schema", json_string(VS_SHEET_SCHEMA))) {
            json_decref(root);
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        }
        old_schema = 1;
    }
    if (!json_is_string(vs_sheet_get(root, VS_SK_SCHEMA)) ||
        !valid_schema(vs_sheet_get_str(root, VS_SK_SCHEMA))) {
        json_decref(root);
        return vs_error_set(err, VS_EFORMAT,
                            "sheet record: expected \"schema\": \"%s\" or \"%s\" (another "
                            "schema, or not a vramsheet sheet)",
                            VS_SHEET_SCHEMA, VS_SHEET_SCHEMA_V1);
    }
    if ((rc = check_object(root, sheet_f, &p, err))) {
        json_decref(root);
        vs_error_prefix(err, "sheet record: ");
        return rc;
    }
    if (old_schema && (rc = old_arch_layout(root, err))) {
        json_decref(root);
        return rc;
    }
    *out = root;
    return 0;
}
