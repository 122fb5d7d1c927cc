/* error.h — the one error shape of vramsheet.
 *
 * Every function that can fail returns 0 or a negative VS_E* code and fills a
 * caller-owned vs_error with a message (and, for parse errors, a line and a
 * column, and where the input is bytes, the byte position). The code picks the name the notebook
 * shows (ename); the message says what was expected. Libraries' errors (libgit2, NVML, zmq) are
 * copied into a vs_error at the module boundary, at once, because theirs are transient. This module
 * does no I/O and holds no state.
 */
#ifndef VS_UTIL_ERROR_H
#define VS_UTIL_ERROR_H

#include <stddef.h>

enum {
    VS_OK = 0,
    VS_ENOMEM = -1,      /* MemoryError */
    VS_EVALUE = -2,      /* ValueError: a well-formed line that makes no sense */
    VS_ESYNTAX = -3,     /* SyntaxError: the line cannot be read */
    VS_EUNIT = -4,       /* UnitError: a missing, wrong or overflowing unit */
    VS_ERECORDS = -5,    /* RecordsError: the git records */
    VS_EMEASURE = -6,    /* MeasureError: measurement could not run */
    VS_EIO = -7,         /* IOError: a file could not be read or written */
    VS_ENOTFOUND = -8,   /* NameError: an unknown sheet, GPU, verb, ... */
    VS_ECONFLICT = -9,   /* RecordsError: a concurrent change was refused */
    VS_EINTERRUPT = -10, /* KeyboardInterrupt */
    VS_EFORMAT = -11,    /* FormatError: a model file (config, safetensors) is malformed */
    VS_EPROTOCOL = -12,  /* ProtocolError: a wire message is malformed */
    VS_EABORTED = -13,   /* Aborted: not run because an earlier cell failed */
};

#define VS_ERROR_MESSAGE_MAX 1024
#define VS_ERROR_NO_POSITION (-1LL) /* vs_error.position when there is none */

typedef struct vs_error {
    int code;   /* 0 when no error was set */
    int line;   /* 1-based; 0 when the error has no position */
    int column; /* 1-based, in Unicode code points; 0 when none */
    /* 0-based byte offset of the fault in the input the parser was given (a
     * cell, a file, a JSON text), the same number a message may quote;
     * VS_ERROR_NO_POSITION when the error has none. Every setter writes it:
     * read it only when code is set. Never shown by vs_error_evalue. */
    long long position;
    char message[VS_ERROR_MESSAGE_MAX];
} vs_error;

/* Resets err to "no error". err may be NULL. */
void vs_error_clear(vs_error *err);

/* Sets code and a printf-style message without a position; returns code so that
 * callers can write `return vs_error_set(err, VS_EVALUE, "...")`. err may be NULL. */
int vs_error_set(vs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* vs_error_set(err, VS_ENOMEM, "out of memory"): the one out-of-memory error. */
int vs_error_oom(vs_error *err);

/* Same, with a 1-based line and column. */
int vs_error_set_at(vs_error *err, int code, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Same, with a byte position and no line (position: as in vs_error). */
int vs_error_set_pos(vs_error *err, int code, long long position, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Same, with a line, a column and a byte position. */
int vs_error_set_at_pos(vs_error *err, int code, int line, int column, long long position,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Gives an error already set a byte position (a reader that knows where it was
 * when a helper failed); nothing when err is NULL or no error is set. */
void vs_error_position(vs_error *err, long long position);

/* Prefixes the current message with more context ("sheet x: " + message). */
void vs_error_prefix(vs_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The Python-style exception name Jupyter shows for a code ("UnitError", ...). */
const char *vs_error_ename(int code);

/* Writes "line L, column C: message" (or the bare message when no position) into
 * out, truncating safely; returns out. */
char *vs_error_evalue(const vs_error *err, char *out, size_t outlen);

#endif
