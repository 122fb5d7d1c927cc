#include "kernel/testcell.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HEADER "%%kernel-test"

int vs_testcell_is(const char *code)
{
    size_t n = strlen(HEADER);
    return !strncmp(code, HEADER, n) && (code[n] == '\0' || code[n] == '\n' || code[n] == ' ');
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Splits "word rest" in place: returns rest ("" when none). */
static char *split(char *s)
{
    char *sp = strchr(s, ' ');
    if (!sp)
        return s + strlen(s);
    *sp = '\0';
    return sp + 1;
}

static vs_bundle *text_bundle(const char *text)
{
    return vs_bundle_new(text, NULL, NULL, NULL);
}

int vs_testcell_execute(const char *code, const vs_sink *sink, vs_bundle **out_result,
                        vs_error *err)
{
    char *copy = strdup(code), *line, *next;
    vs_bundle *result = NULL;
    int rc = 0, lineno = 1;

    *out_result = NULL;
    if (!copy)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    line = strchr(copy, '\n');
    line = line ? line + 1 : copy + strlen(copy);
    for (; *line; line = next) {
        char *verb = line, *rest;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        else
            next = line + strlen(line);
        lineno++;
        rest = split(verb);
        if (!strcmp(verb, "sleep")) {
            long ms = strtol(rest, NULL, 10), waited;
            for (waited = 0; waited < ms; waited += 5) {
                if (sink->interrupted && sink->interrupted(sink->ctx)) {
                    rc = vs_error_set_at(err, VS_EINTERRUPT, lineno, 1, "interrupted");
                    goto done;
                }
                sleep_ms(5);
            }
        } else if (!strcmp(verb, "stream") || !strcmp(verb, "bytes")) {
            char *name = rest, *text = split(rest);
            if (!strcmp(verb, "bytes")) {
                size_t i, o = 0;
                for (i = 0; text[i] && text[i + 1]; i += 2) {
                    int hi = hexval(text[i]), lo = hexval(text[i + 1]);
                    if (hi < 0 || lo < 0)
                        break;
                    text[o++] = (char)(hi * 16 + lo);
                }
                if (sink->stream)
                    sink->stream(sink->ctx, name, text, o);
            } else if (sink->stream) {
                sink->stream(sink->ctx, name, text, strlen(text));
            }
        } else if (!strcmp(verb, "display") || !strcmp(verb, "update")) {
            char *id = rest, *text = split(rest);
            vs_bundle *b = text_bundle(text);
            if (b && sink->display)
                sink->display(sink->ctx, b, strcmp(id, "-") ? id : NULL, verb[0] == 'u');
            vs_bundle_free(b);
        } else if (!strcmp(verb, "input") || !strcmp(verb, "password")) {
            char *value = NULL;
            if (!sink->input) {
                rc = vs_error_set_at(err, VS_EVALUE, lineno, 1, "no input");
                goto done;
            }
            rc = sink->input(sink->ctx, rest, verb[0] == 'p', &value);
            if (rc < 0) {
                vs_error_set_at(err, rc, lineno, 1, "input was not available");
                goto done;
            }
            vs_bundle_free(result);
            result = text_bundle(value);
            free(value);
        } else if (!strcmp(verb, "result")) {
            vs_bundle_free(result);
            result = text_bundle(rest);
        } else if (!strcmp(verb, "fail")) {
            rc = vs_error_set_at(err, VS_EVALUE, lineno, 1, "%s", rest);
            goto done;
        } else if (*verb) {
            rc = vs_error_set_at(err, VS_ESYNTAX, lineno, 1, "unknown test command '%s'", verb);
            goto done;
        }
    }
    *out_result = result;
    result = NULL;
done:
    vs_bundle_free(result);
    free(copy);
    return rc;
}

/* ---- the second ops table: test cells, else the wrapped interpreter ---- */

static int wrap_execute(void *self, const char *code, const vs_sink *sink, vs_bundle **out_result,
                        vs_error *err)
{
    const vs_testcell_wrap *w = self;
    if (vs_testcell_is(code))
        return vs_testcell_execute(code, sink, out_result, err);
    return w->ops->execute(w->self, code, sink, out_result, err);
}

static int wrap_complete(void *self, const char *code, size_t cursor, json_t **out_matches,
                         size_t *out_start, size_t *out_end)
{
    const vs_testcell_wrap *w = self;
    return w->ops->complete(w->self, code, cursor, out_matches, out_start, out_end);
}

static int wrap_inspect(void *self, const char *code, size_t cursor, int detail,
                        json_t **out_bundle)
{
    const vs_testcell_wrap *w = self;
    return w->ops->inspect(w->self, code, cursor, detail, out_bundle);
}

static const char *wrap_is_complete(void *self, const char *code, const char **out_indent)
{
    const vs_testcell_wrap *w = self;
    return w->ops->is_complete(w->self, code, out_indent);
}

static int wrap_is_exit(void *self, const char *code)
{
    const vs_testcell_wrap *w = self;
    return w->ops->is_exit(w->self, code);
}

static const char *wrap_banner(void *self)
{
    const vs_testcell_wrap *w = self;
    return w->ops->banner(w->self);
}

static json_t *wrap_language_info(void *self)
{
    const vs_testcell_wrap *w = self;
    return w->ops->language_info(w->self);
}

static void wrap_idle(void *self)
{
    const vs_testcell_wrap *w = self;
    w->ops->idle(w->self);
}

static void wrap_terminate(void *self)
{
    const vs_testcell_wrap *w = self;
    w->ops->terminate(w->self);
}

static void wrap_shutdown(void *self)
{
    const vs_testcell_wrap *w = self;
    w->ops->shutdown(w->self);
}

const vs_kernel_ops vs_testcell_ops = {
    wrap_execute, wrap_complete,      wrap_inspect, wrap_is_complete, wrap_is_exit,
    wrap_banner,  wrap_language_info, wrap_idle,    wrap_terminate,   wrap_shutdown};
