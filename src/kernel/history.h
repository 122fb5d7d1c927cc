/* history.h — the cells a kernel session executed, for history_request.
 *
 * Kept in memory only (a kernel restart starts a new session), bounded in count
 * and bytes so that a long session cannot grow without limit: the oldest entries
 * go first. Answers the three access types of the protocol: tail, range and
 * search (glob with * and ?, optional n and unique). Entries are
 * [session, line, input], or [session, line, [input, output]] when output is
 * asked for (output is the text/plain of the cell's result, or null). Pure: no
 * I/O, no threads, no globals.
 */
#ifndef VS_KERNEL_HISTORY_H
#define VS_KERNEL_HISTORY_H

#include <jansson.h>
#include <stddef.h>

/* The number this module gives the current session; range accepts it or 0. */
#define VS_HISTORY_SESSION 1

typedef struct vs_history vs_history;

/* A new empty history keeping at most max_entries entries and max_bytes bytes of
 * text. Returns NULL when memory is short. */
vs_history *vs_history_new(size_t max_entries, size_t max_bytes);
void vs_history_free(vs_history *h);

/* Adds the cell run with execution count line. output may be NULL. Returns 0 or
 * VS_ENOMEM. An entry larger than max_bytes is kept truncated to its input. */
int vs_history_add(vs_history *h, int line, const char *input, const char *output);

size_t vs_history_count(const vs_history *h);

/* New arrays of entries, oldest first; NULL only when memory is short. */
json_t *vs_history_tail(const vs_history *h, size_t n, int output);
/* Lines start <= line < stop of session (0 or VS_HISTORY_SESSION; others are
 * empty). stop <= 0 means to the end. */
json_t *vs_history_range(const vs_history *h, int session, int start, int stop, int output);
/* Entries whose input matches the glob pattern as a whole; with unique, only the
 * latest of equal inputs; with n > 0, only the last n of those. */
json_t *vs_history_search(const vs_history *h, const char *pattern, size_t n, int unique,
                          int output);

/* Non-zero when text matches pattern as a whole: * any run, ? any one code point. */
int vs_history_glob(const char *pattern, const char *text);

#endif
