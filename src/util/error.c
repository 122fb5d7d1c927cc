#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void vs_error_clear(vs_error *err)
{
    if (!err)
        return;
    err->code = 0;
    err->line = 0;
    err->column = 0;
    err->position = VS_ERROR_NO_POSITION;
    err->message[0] = '\0';
}

static int vset(vs_error *err, int code, int line, int column, long long position, const char *fmt,
                va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    err->line = line;
    err->column = column;
    err->position = position;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return code;
}

int vs_error_set(vs_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, 0, 0, VS_ERROR_NO_POSITION, fmt, ap);
    va_end(ap);
    return code;
}

int vs_error_set_at(vs_error *err, int code, int line, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, line, column, VS_ERROR_NO_POSITION, fmt, ap);
    va_end(ap);
    return code;
}

int vs_error_set_pos(vs_error *err, int code, long long position, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, 0, 0, position, fmt, ap);
    va_end(ap);
    return code;
}

int vs_error_set_at_pos(vs_error *err, int code, int line, int column, long long position,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, code, line, column, position, fmt, ap);
    va_end(ap);
    return code;
}

void vs_error_position(vs_error *err, long long position)
{
    if (err && err->code)
        err->position = position;
}

void vs_error_prefix(vs_error *err, const char *fmt, ...)
{
    char prefix[256];
    char old[VS_ERROR_MESSAGE_MAX];
    va_list ap;
    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t plen;
    memcpy(old, err->message, sizeof old);
    plen = strlen(prefix);
    if (plen >= sizeof err->message)
        plen = sizeof err->message - 1;
    memcpy(err->message, prefix, plen);
    /* truncation of the tail is acceptable: the prefix matters more */
    strncpy(err->message + plen, old, sizeof err->message - plen - 1);
    err->message[sizeof err->message - 1] = '\0';
}

const char *vs_error_ename(int code)
{
    switch (code) {
    case VS_OK:
        return "NoError";
    case VS_ENOMEM:
        return "MemoryError";
    case VS_EVALUE:
        return "ValueError";
    case VS_ESYNTAX:
        return "SyntaxError";
    case VS_EUNIT:
        return "UnitError";
    case VS_ERECORDS:
        return "RecordsError";
    case VS_ECONFLICT:
        return "RecordsError";
    case VS_EMEASURE:
        return "MeasureError";
    case VS_EIO:
        return "IOError";
    case VS_ENOTFOUND:
        return "NameError";
    case VS_EINTERRUPT:
        return "KeyboardInterrupt";
    case VS_EFORMAT:
        return "FormatError";
    case VS_EPROTOCOL:
        return "ProtocolError";
    case VS_EABORTED:
        return "Aborted";
    default:
        return "Error";
    }
}

char *vs_error_evalue(const vs_error *err, char *out, size_t outlen)
{
    if (!out || outlen == 0)
        return out;
    if (err->line > 0)
        snprintf(out, outlen, "line %d, column %d: %s", err->line, err->column, err->message);
    else
        snprintf(out, outlen, "%s", err->message);
    return out;
}

int vs_error_oom(vs_error *err)
{
    return vs_error_set(err, VS_ENOMEM, "out of memory");
}
