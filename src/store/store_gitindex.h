/* store_gitindex.h — the git index file (<gitdir>/index) read and patched
 * directly for the few entries of the sheets a commit touched.
 *
 * Why: libgit2 reads an index by parsing every entry into a hash map and
 * writes one from every entry again; with 10,000 sheets (20,000 entries, 1.7
 * MB) each read was ~13 ms and a commit read it three times and copied it
 * once. A commit changes two entries: here the file is scanned in place, the
 * changed entries spliced in, the cache of trees invalidated along their
 * paths, and the checksum computed again.
 *
 * Only the layouts of git's index-format.txt read here: versions 2 and 3,
 * extensions that are optional (their signature begins with 'A'..'Z'). A
 * version 4 index (prefix-compressed paths), a required extension (a split or
 * sparse index) or a conflict on a path to change answer 1: the caller then
 * uses libgit2's index, as before. */
#ifndef VS_STORE_STORE_GITINDEX_H
#define VS_STORE_STORE_GITINDEX_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

typedef struct vs_store_gitindex {
    unsigned char *data; /* the whole file */
    size_t len;
    uint32_t version, count;
    size_t entries_end; /* where the extensions begin */
} vs_store_gitindex;

/* One path's stage-0 entry to put in (has: its blob and mode, and the stat of
 * the file written to the work tree) or take out (has 0). */
typedef struct vs_store_gitindex_change {
    const char *path;
    int has;
    git_oid id;
    uint32_t mode;
    struct stat st;
} vs_store_gitindex_change;

/* Reads and checks the file: 0, 1 when it is a layout not read here or is
 * missing (use libgit2's index), -1 with errno. */
int vs_store_gitindex_load(vs_store_gitindex *gi, const char *path);
void vs_store_gitindex_free(vs_store_gitindex *gi);
/* The stage-0 entry of path: 1 with *id and *mode, 0 when there is none. */
int vs_store_gitindex_find(const vs_store_gitindex *gi, const char *path, git_oid *id,
                           uint32_t *mode);
/* The file with the changes made (ch sorted by path, no path twice): *out
 * malloc'd, its checksum computed. 0, 1 when a path to change is in conflict
 * (entries at stages 1-3), -1 when memory is short. */
int vs_store_gitindex_patch(const vs_store_gitindex *gi, const vs_store_gitindex_change *ch,
                            size_t n, unsigned char **out, size_t *outlen);

/* store_gitindex_sha1.c: SHA-1 of data. */
void vs_store_sha1(const void *data, size_t len, unsigned char out[20]);

#endif
