/* file.h — opening a file that must be a regular file on disk.
 *
 * Every reader of a user-named file (weights headers, config.json, logs, the
 * Hugging Face cache's refs) opens it here, so that a FIFO, a device or a
 * folder named by mistake is refused with its kind instead of blocking the
 * kernel or reading forever. The only module of util/ that touches the file
 * system.
 */
#ifndef VS_UTIL_FILE_H
#define VS_UTIL_FILE_H

#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Opens path for reading only when it is a regular file, and returns its
 * descriptor (>= 0, close it) with *size (may be NULL) its length; else a
 * negative VS_E* code: VS_EIO when it cannot be opened or is not a regular file
 * (a FIFO, a device, a folder: reading those blocks or never ends), VS_EFORMAT
 * when max_size is not 0 and the file is larger. The open itself does not block
 * on a FIFO with no writer. */
int vs_file_open_regular(const char *path, uint64_t max_size, uint64_t *size, vs_error *err);

/* Reads n bytes at offset into buf; returns the number of bytes read (fewer
 * only at the end of the file) or -1 with errno set. The header parsers
 * (safetensors, GGUF) read through one, so that tests and fuzzers give them
 * memory and the readers a file. */
typedef long long (*vs_file_read_fn)(void *ctx, void *buf, size_t n, uint64_t offset);

/* A vs_file_read_fn over a descriptor: ctx points to the int fd. pread,
 * retried on EINTR. */
long long vs_file_pread(void *ctx, void *buf, size_t n, uint64_t offset);

/* The whole of the regular file at path appended to out (max_size as for
 * vs_file_open_regular, 0 for no limit): 0, VS_EIO when it cannot be opened or
 * read ("cannot read PATH: REASON", or what vs_file_open_regular says), or
 * VS_ENOMEM; err says which. The readers of a notebook or script file use it. */
int vs_file_read_all(const char *path, uint64_t max_size, vs_buf *out, vs_error *err);

#endif
