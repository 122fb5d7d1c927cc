/* store_index_internal.h — what store_index.c (the files, reading, sync) and
 * store_index_build.c (commits → revisions) and store_index_shallow.c share; the contract is
 * store_index.h. */
#ifndef VS_STORE_STORE_INDEX_INTERNAL_H
#define VS_STORE_STORE_INDEX_INTERNAL_H

#include <stdio.h>

#include "store/store_index.h"
#include "store/store_internal.h"
#include "store/store_pack.h"
#include "store/store_tree.h"

/* index.revs: a 32-byte header, then records, each a fixed part and its id and
 * message. Offsets are from the start of the file; 0 is "none". */
#define IX_REVS_MAGIC "VSIXRV01"
#define IX_HEADS_MAGIC "VSIXHD02"
#define IX_REVS_HEADER 32

typedef struct ix_rec {
    int64_t time;    /* committer time */
    uint64_t prev;   /* the sheet's revision before this one */
    uint32_t reclen; /* the whole record, fixed part, id and message */
    uint32_t flags;  /* VS_STORE_INDEX_* */
    int32_t offset;  /* committer's UTC offset, minutes */
    uint32_t msglen;
    uint16_t idlen;
    uint16_t pad;
    unsigned char commit[20];
    unsigned char blob[20]; /* all zero: no sheet.json */
    unsigned char folder[20];
} ix_rec;
#define IX_REC_FIXED 96
_Static_assert(sizeof(ix_rec) == IX_REC_FIXED, "a record's fixed part is 96 bytes");

typedef struct ix_heads_hdr {
    char magic[8];
    uint64_t gen;
    unsigned char tip[20];
    uint32_t has_tip;
    uint64_t revs_len;
    uint64_t nsheets;
    uint64_t nrevs;
    uint32_t shallow; /* 0, or a digest of the shallow clone's boundary */
    uint32_t pad;
    char refname[VS_STORE_BRANCH_MAX + 16];
} ix_heads_hdr;

typedef struct ix_head {
    char id[VS_SHEET_ID_MAX];
    uint64_t head;            /* the latest revision's offset */
    uint32_t count;           /* revisions */
    uint32_t present;         /* 1 when the sheet is in the tip's tree */
    unsigned char folder[20]; /* sheets/<id> in the tip's tree, when present */
    uint32_t pad;
} ix_head;

/* The sheets while an index is built or extended: a table by id. */
typedef struct ix_table {
    ix_head *heads;
    size_t n, cap;
    uint32_t *slots; /* 1 + index into heads; 0 empty */
    size_t nslots;
} ix_table;

ix_head *vs_store_index_table_get(ix_table *t, const char *id, int create);
void vs_store_index_table_free(ix_table *t);

/* A sheet a commit changed: its name (in the commit's tree, or a parent's when
 * the commit removed it) and its folder in the commit (absent: removed). */
typedef struct ix_touched {
    char id[VS_SHEET_ID_MAX];
    git_oid folder;
    int present;
} ix_touched;

typedef struct ix_touched_list {
    ix_touched *v;
    size_t n, cap;
} ix_touched_list;

/* A sheet's folder: a tree under sheets/ named as a sheet id. */
int vs_store_index_is_sheet(const vs_store_tree_entry *e);
/* e into l, present with folder (NULL: removed). -1 when memory is short. */
int vs_store_index_touched_add(ix_touched_list *l, const vs_store_tree_entry *e,
                               const unsigned char *folder);

/* The sheets/ tree processed last while the index is built, held as bytes
 * with its entries' offsets, and where it is in a pack: the next commit's
 * tree is usually a delta against it (store_index_delta.c). */
typedef struct ix_edit {
    uint32_t bs, be;          /* the base's bytes [bs, be) replaced */
    uint32_t ins_at, ins_len; /* by these bytes of the held's ins */
} ix_edit;

typedef struct ix_held {
    vs_store_pack *packs; /* NULL: none could be read */
    int valid;
    git_oid id;
    int in_pack;
    unsigned pack;
    uint64_t off;
    const unsigned char *data; /* buf's, or borrowed's */
    size_t len;
    git_odb_object *borrowed; /* the tree as libgit2 read it, until it is edited */
    unsigned char *buf, *alt;
    size_t buf_cap, alt_cap;
    uint32_t *offs, *offs_alt; /* each entry's start */
    size_t n, offs_cap, offs_alt_cap;
    /* scratch of one advance */
    unsigned char *delta, *ins, *win;
    size_t delta_cap, ins_cap, win_cap;
    ix_edit *edits;
    size_t edits_cap;
    uint32_t *woffs;
    size_t woffs_cap;
    uint64_t advanced, missed; /* how many trees took each way */
} ix_held;

/* Opens the repository's packs (none readable: the held path is off). */
int vs_store_index_held_init(ix_held *h, git_repository *repo);
void vs_store_index_held_free(ix_held *h);
/* The tree id (read by libgit2: o, kept) is now the one held; offs its n
 * entries' offsets (NULL: found here). -1 when memory is short. */
int vs_store_index_held_set(ix_held *h, const git_oid *id, git_odb_object *o, const uint32_t *offs,
                            size_t n);
/* When the tree id is stored in a pack as a delta against the held tree:
 * the sheets whose folder differs between the two appended to l, in git's
 * order, and id held; 1. 0 when it is not such a delta, or the delta is not
 * one this reads (the held tree and l unchanged: libgit2 reads it). -1 when
 * memory is short. */
int vs_store_index_held_advance(ix_held *h, const git_oid *id, ix_touched_list *l);

/* Appends the revisions of commits (oldest first: parents before children) to
 * f, which is at offset *pos, updating t and *nrevs. shallow (sorted, n_shallow)
 * are the boundary commits of a shallow clone. line 1: the commits are one
 * line of descent from the tip t was built for, so each sheet's tip state
 * (present, folder) follows its records (else vs_store_index_tip_apply sets
 * it). libgit2 or file errors as VS_ERECORDS. */
int vs_store_index_append(git_repository *repo, FILE *f, uint64_t *pos, ix_table *t,
                          uint64_t *nrevs, const git_oid *commits, size_t ncommits,
                          const git_oid *shallow, size_t n_shallow, int line, vs_error *err);

/* Sets each sheet's folder at new_commit (present, folder) from the sheets
 * whose folder differs between old_commit (NULL: none) and new_commit: what
 * the tip holds, whichever side of a merge it came from. */
int vs_store_index_tip_apply(git_repository *repo, const git_oid *old_commit,
                             const git_oid *new_commit, ix_table *t, vs_error *err);

/* The commits reachable from tip, parents before children, without crossing
 * the shallow boundary (a commit there counts as a root): *out malloc'd. */
int vs_store_index_walk_shallow(git_repository *repo, const git_oid *tip, const git_oid *shallow,
                                size_t n_shallow, git_oid **out, size_t *n, vs_error *err);

#endif
