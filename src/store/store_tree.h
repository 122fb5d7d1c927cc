/* store_tree.h — git tree objects read and written raw: entries walked in
 * the object's own bytes ("<mode> <name>\0<20-byte id>", in git's order), and
 * the trees of a commit of one sheet written by splicing its folder's entry
 * into the parent's trees.
 *
 * Why: with 10,000 sheets the sheets/ tree holds 10,000 entries (340 KB);
 * libgit2's git_tree_create_updated parses it into a builder, sorts it and
 * serialises it again for a change of one entry. The bytes spliced here are
 * the bytes it writes (git's canonical form: the same ids). */
#ifndef VS_STORE_STORE_TREE_H
#define VS_STORE_STORE_TREE_H

#include <git2.h>
#include <stddef.h>

/* One entry of a raw tree object. */
typedef struct vs_store_tree_entry {
    const char *name;
    size_t len;
    int is_tree;
    const unsigned char *id;
} vs_store_tree_entry;

/* The next entry at *p (advanced), 0 at the end or on a malformed tree. */
int vs_store_tree_next(const unsigned char **p, const unsigned char *end, vs_store_tree_entry *e);
/* git's order of tree entries: names compared as bytes, a tree's as if it
 * ended with '/'. */
int vs_store_tree_cmp(const vs_store_tree_entry *a, const vs_store_tree_entry *b);

/* The trees of root (NULL: none, a first commit) with sheets/<id>/sheet.json
 * set to json and, when md is not NULL, sheets/<id>/sheet.md to md (blobs,
 * mode 100644; the folder's other entries kept): *out_root, and the folder's
 * new tree *out_folder. libgit2 errors negative. */
int vs_store_tree_put_sheet(git_repository *repo, const git_oid *root, const char *id,
                            const git_oid *json, const git_oid *md, git_oid *out_root,
                            git_oid *out_folder);

#endif
