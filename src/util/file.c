/* Regular files opened for reading: the one check that a path names a file on
 * disk, not a FIFO, a device or a folder, before a parser reads it. */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int vs_file_open_regular(const char *path, uint64_t max_size, uint64_t *size, vs_error *err)
{
    struct stat st;
    int fd, fl, rc;
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise, so
     * the check below would never be reached. It is cleared once the file is
     * known to be regular (where it changes nothing anyway). */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return vs_error_set(err, VS_EIO, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        rc = vs_error_set(err, VS_EIO, "cannot stat %s: %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = vs_error_set(err, VS_EIO, "%s is %s, not a regular file: expected a file on disk",
                          path, S_ISLNK(st.st_mode) ? "a link" : file_kind(st.st_mode));
        goto fail;
    }
    if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        rc = vs_error_set(err, VS_EIO, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    if (max_size && (uint64_t)st.st_size > max_size) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: %lld bytes is too large for this kind of file (at most %llu)", path,
                          (long long)st.st_size, (unsigned long long)max_size);
        goto fail;
    }
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
fail:
    close(fd);
    return rc;
}

long long vs_file_pread(void *ctx, void *buf, size_t n, uint64_t offset)
{
    int fd = *(int *)ctx;
    ssize_t r;
    do {
        r = pread(fd, buf, n, (off_t)offset);
    } while (r < 0 && errno == EINTR);
    return (long long)r;
}

int vs_file_read_all(const char *path, uint64_t max_size, vs_buf *out, vs_error *err)
{
    char chunk[65536];
    ssize_t n;
    int rc = 0, fd = vs_file_open_regular(path, max_size, NULL, err);
    if (fd < 0)
        return fd;
    for (;;) {
        n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        vs_buf_append(out, chunk, (size_t)n);
        if (vs_buf_failed(out))
            break;
    }
    if (n < 0)
        rc = vs_error_set(err, VS_EIO, "cannot read %s: %s", path, strerror(errno));
    else if (vs_buf_failed(out))
        rc = vs_error_oom(err);
    close(fd);
    return rc;
}
