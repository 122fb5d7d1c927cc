/* testcell.h — scripted cells for the transport's own tests.
 *
 * Some protocol behaviour needs a cell that runs long, asks for input, streams
 * bytes or updates a display, whatever the language offers at the time. When the
 * kernel runs with VRAMSHEET_KERNEL_TEST=1, the kernel serves vs_testcell_ops, a
 * second ops table (ops.h) around the interpreter's: a cell whose first line is
 * "%%kernel-test" is run by this module instead of the interpreter, one command
 * per line:
 *   sleep MS              poll the interrupt flag every 5 ms for MS milliseconds
 *   stream stdout|stderr TEXT
 *   bytes stdout|stderr HEX   raw bytes (e.g. invalid UTF-8) on a stream
 *   display ID|- TEXT     display_data (with a display_id unless -)
 *   update ID TEXT        update_display_data
 *   input PROMPT          ask for a line; password PROMPT the same, hidden
 *   result TEXT           the cell's result (text/plain)
 *   fail TEXT             fail with a ValueError at this line
 * The last input read becomes the result when no result line is given. Without
 * the environment variable the kernel never calls this module; every other
 * operation goes to the wrapped table as it is. No I/O of its own:
 * everything goes through the sink.
 */
#ifndef VS_KERNEL_TESTCELL_H
#define VS_KERNEL_TESTCELL_H

#include "kernel/ops.h"

/* Non-zero when code is a test cell (its first line is "%%kernel-test"). */
int vs_testcell_is(const char *code);

/* Runs a test cell as vs_interp_execute would. */
int vs_testcell_execute(const char *code, const vs_sink *sink, vs_bundle **out_result,
                        vs_error *err);

/* The wrapped interpreter: vs_testcell_ops's self. */
typedef struct vs_testcell_wrap {
    const vs_kernel_ops *ops;
    void *self;
} vs_testcell_wrap;

/* Test cells, else the wrapped table (self: a vs_testcell_wrap). */
extern const vs_kernel_ops vs_testcell_ops;

#endif
