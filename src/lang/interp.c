/* Temporary stand-in until the language lands: echoes the cell. */
#include "lang/interp.h"

#include <stdlib.h>
#include <string.h>

struct vs_interp {
    int unused;
};

vs_interp *vs_interp_new(const vs_interp_options *opts)
{
    (void)opts;
    return calloc(1, sizeof(vs_interp));
}

void vs_interp_free(vs_interp *ip) { free(ip); }

int vs_interp_execute(vs_interp *ip, const char *code, const vs_sink *sink, json_t **out_result,
                      vs_error *err)
{
    (void)ip;
    (void)sink;
    *out_result = NULL;
    if (strstr(code, "error"))
        return vs_error_set_at(err, VS_ESYNTAX, 1, 1, "expected a verb");
    *out_result = json_pack("{s:s}", "text/plain", code);
    return 0;
}

int vs_interp_complete(vs_interp *ip, const char *code, size_t cursor, json_t **out_matches,
                       size_t *out_start, size_t *out_end)
{
    (void)ip;
    (void)code;
    *out_matches = json_array();
    *out_start = *out_end = cursor;
    return 0;
}

int vs_interp_inspect(vs_interp *ip, const char *code, size_t cursor, int detail,
                      json_t **out_bundle)
{
    (void)ip;
    (void)code;
    (void)cursor;
    (void)detail;
    *out_bundle = NULL;
    return 0;
}

const char *vs_interp_is_complete(vs_interp *ip, const char *code, const char **out_indent)
{
    (void)ip;
    (void)code;
    *out_indent = "";
    return "complete";
}

const char *vs_interp_banner(void) { return "vramsheet: GPU memory sizing sheets"; }
