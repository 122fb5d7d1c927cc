/* store_index.c — the per-sheet revision index's files: read, brought to the
 * branch tip (new commits appended, or rebuilt from the history), written
 * through a rename; the revisions of one sheet read back by following its
 * chain. */
#include "store/store_index_internal.h"
#include "util/cmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

void vs_store_index_path(vs_store *st, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%svramsheet/%s", git_repository_path(st->repo), name);
}

/* --- index.heads, mapped --- */

typedef struct heads_map {
    void *base;
    size_t size;
    const ix_heads_hdr *hdr;
    const ix_head *v;
    int revs_fd; /* the log these heads were checked against */
} heads_map;

static void heads_unmap(heads_map *m)
{
    if (m->base)
        munmap(m->base, m->size);
    if (m->revs_fd >= 0)
        close(m->revs_fd);
    memset(m, 0, sizeof *m);
    m->revs_fd = -1;
}

/* Maps index.heads and checks that index.revs is the log it was written with
 * (same generation, at least as long): 1 mapped, 0 missing or not matching. */
static int heads_map_open(vs_store *st, heads_map *m)
{
    char p[4096], magic[8];
    struct stat sb;
    uint64_t gen;
    int fd, ok = 0;
    memset(m, 0, sizeof *m);
    m->revs_fd = -1;
    vs_store_index_path(st, "index.heads", p, sizeof p);
    if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    if (fstat(fd, &sb) == 0 && (size_t)sb.st_size >= sizeof(ix_heads_hdr)) {
        m->size = (size_t)sb.st_size;
        m->base = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
        if (m->base == MAP_FAILED)
            m->base = NULL;
    }
    close(fd);
    if (!m->base)
        return 0;
    m->hdr = m->base;
    m->v = (const ix_head *)((const char *)m->base + sizeof(ix_heads_hdr));
    if (memcmp(m->hdr->magic, IX_HEADS_MAGIC, 8) ||
        m->hdr->nsheets > (m->size - sizeof(ix_heads_hdr)) / sizeof(ix_head))
        goto done;
    vs_store_index_path(st, "index.revs", p, sizeof p);
    /* kept open: a rebuild may rename another log into place meanwhile */
    if ((m->revs_fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        goto done;
    ok = fstat(m->revs_fd, &sb) == 0 && (uint64_t)sb.st_size >= m->hdr->revs_len &&
         pread(m->revs_fd, magic, 8, 0) == 8 && !memcmp(magic, IX_REVS_MAGIC, 8) &&
         pread(m->revs_fd, &gen, 8, 8) == 8 && gen == m->hdr->gen;
done:
    if (!ok)
        heads_unmap(m);
    return ok;
}

static const ix_head *heads_find(const heads_map *m, const char *id)
{
    size_t lo = 0, hi = (size_t)m->hdr->nsheets;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(m->v[mid].id, id, VS_SHEET_ID_MAX);
        if (!c)
            return &m->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* --- writing --- */

static int cmp_head(const void *a, const void *b)
{
    return strncmp(((const ix_head *)a)->id, ((const ix_head *)b)->id, VS_SHEET_ID_MAX);
}

static int write_heads(vs_store *st, const ix_heads_hdr *hdr, ix_table *t, vs_error *err)
{
    char p[4096], tmp[4200];
    FILE *f;
    int ok;
    size_t i;
    /* a sync that added no sheet keeps the loaded order: a check, not a sort
     * (qsort, a merge sort, copies every head about log2(n) times) */
    for (i = 1; i < t->n && cmp_head(&t->heads[i - 1], &t->heads[i]) < 0; i++)
        ;
    if (i < t->n)
        qsort(t->heads, t->n, sizeof *t->heads, cmp_head);
    free(t->slots); /* the order changed: the table is not looked up again */
    t->slots = NULL;
    t->nslots = 0;
    vs_store_index_path(st, "index.heads", p, sizeof p);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", p, (long)getpid());
    if (!(f = fopen(tmp, "wb")))
        return vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", tmp, strerror(errno));
    ok = fwrite(hdr, sizeof *hdr, 1, f) == 1 &&
         (!t->n || fwrite(t->heads, sizeof *t->heads, t->n, f) == t->n);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, p) != 0) {
        unlink(tmp);
        return vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", p, strerror(errno));
    }
    return 0;
}

/* The commits from tip (not reachable from hide, when given), oldest first. */
static int walk_new(vs_store *st, const git_oid *tip, const git_oid *hide, git_oid **out, size_t *n,
                    vs_error *err)
{
    git_revwalk *walk = NULL;
    git_oid oid, *v = NULL;
    size_t cap = 0, i;
    int rc;
    *out = NULL;
    *n = 0;
    if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, tip) < 0 ||
        (hide && git_revwalk_hide(walk, hide) < 0)) {
        git_revwalk_free(walk);
        return vs_store_gfail(err, VS_ERECORDS, "cannot walk the history of %s", st->path);
    }
    /* the history's own order (vs_store_history's before the index) */
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    while ((rc = git_revwalk_next(&oid, walk)) == 0) {
        if (*n == cap) {
            git_oid *nv = realloc(v, (cap = cap ? cap * 2 : 1024) * sizeof *nv);
            if (!nv) {
                free(v);
                git_revwalk_free(walk);
                return vs_error_oom(err);
            }
            v = nv;
        }
        git_oid_cpy(&v[(*n)++], &oid);
    }
    git_revwalk_free(walk);
    if (rc != GIT_ITEROVER) {
        free(v);
        *n = 0;
        return vs_store_gfail(err, VS_ERECORDS, "cannot walk the history of %s", st->path);
    }
    for (i = 0; i < *n / 2; i++) {
        git_oid t = v[i];
        v[i] = v[*n - 1 - i];
        v[*n - 1 - i] = t;
    }
    *out = v;
    return 0;
}

/* 1 when a merge among the new commits joins sides that both changed a sheet
 * (its revisions are then not one line of descent: the walk orders them). */
static int merges_diverge(vs_store *st, const git_oid *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        git_commit *c = NULL;
        char names[64];
        int nd = 0;
        if (git_commit_lookup(&c, st->repo, &v[i]) < 0)
            return 1;
        if (git_commit_parentcount(c) > 1)
            nd = vs_store_diverged_sheets(st->repo, git_commit_parent_id(c, 0),
                                          git_commit_parent_id(c, 1), names, sizeof names, NULL,
                                          NULL);
        if (git_commit_parentcount(c) > 2)
            nd = 1;
        git_commit_free(c);
        if (nd != 0)
            return 1;
    }
    return 0;
}

/* Loads the heads of a current index into t. */
static int table_load(const heads_map *m, ix_table *t)
{
    size_t i;
    for (i = 0; i < m->hdr->nsheets; i++) {
        ix_head *h = vs_store_index_table_get(t, m->v[i].id, 1);
        if (!h)
            return -1;
        *h = m->v[i];
    }
    return 0;
}

/* 1 when v (oldest first) is one line of commits from old: each has one
 * parent, the commit before it. */
static int one_line(vs_store *st, const git_oid *old, const git_oid *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        git_commit *c = NULL;
        int ok;
        if (git_commit_lookup(&c, st->repo, &v[i]) < 0)
            return 0;
        ok = git_commit_parentcount(c) == 1 &&
             git_oid_equal(git_commit_parent_id(c, 0), i ? &v[i - 1] : old);
        git_commit_free(c);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Appends the commits since the index's tip (*rebuild set when they cannot be
 * appended in the walk's order). */
static int extend(vs_store *st, const heads_map *m, const git_oid *tip, int *rebuild, vs_error *err)
{
    char p[4096];
    ix_heads_hdr hdr = *m->hdr;
    ix_table t = {0};
    git_oid old, *v = NULL;
    uint64_t pos = m->hdr->revs_len;
    FILE *f = NULL;
    size_t n;
    int rc, line;
    *rebuild = 0;
    git_oid_fromraw(&old, m->hdr->tip);
    if ((rc = walk_new(st, tip, &old, &v, &n, err)) < 0)
        return rc;
    if (merges_diverge(st, v, n)) {
        *rebuild = 1;
        goto done;
    }
    if (table_load(m, &t) < 0) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_store_index_path(st, "index.revs", p, sizeof p);
    /* what a writer killed before its heads were renamed left is cut */
    if (truncate(p, (off_t)pos) != 0 || !(f = fopen(p, "r+b")) || fseeko(f, (off_t)pos, 0) != 0) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", p, strerror(errno));
        goto done;
    }
    /* along one line of commits from old the records just written leave
     * each sheet as the tip holds it: the two tips' sheets/ trees (libgit2
     * rebuilds each from its deltas) are compared only after a merge */
    line = one_line(st, &old, v, n);
    if ((rc = vs_store_index_append(st->repo, f, &pos, &t, &hdr.nrevs, v, n, NULL, 0, line, err)) <
            0 ||
        (!line && (rc = vs_store_index_tip_apply(st->repo, &old, tip, &t, err)) < 0))
        goto done;
    if (fflush(f) != 0) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", p, strerror(errno));
        goto done;
    }
    memcpy(hdr.tip, tip->id, 20);
    hdr.revs_len = pos;
    hdr.nsheets = t.n;
    rc = write_heads(st, &hdr, &t, err);
done:
    if (f)
        fclose(f);
    free(v);
    vs_store_index_table_free(&t);
    return rc;
}

/* The index at old extended by k->commit, a commit of ours whose only parent
 * is old and which changed sheet k->id alone: its record and head written as
 * vs_store_index_append and tip_apply would, without reading a tree. 0, 1
 * when k does not apply (the caller compares trees), or an error. */
static int extend_known(vs_store *st, const heads_map *m, const git_oid *old,
                        const vs_store_index_known *k, vs_error *err)
{
    char p[4096];
    ix_heads_hdr hdr = *m->hdr;
    ix_table t = {0};
    const ix_head *h = heads_find(m, k->id);
    size_t at = h ? (size_t)(h - m->v) : 0, n = (size_t)m->hdr->nsheets;
    uint64_t pos = m->hdr->revs_len;
    git_commit *c = NULL;
    FILE *f = NULL;
    int rc = 1;
    if (git_commit_lookup(&c, st->repo, &k->commit) < 0 || git_commit_parentcount(c) != 1 ||
        !git_oid_equal(git_commit_parent_id(c, 0), old) || strlen(k->id) >= VS_SHEET_ID_MAX)
        goto done;
    if (!h) /* a new sheet: its place in the sorted heads */
        while (at < n && strncmp(m->v[at].id, k->id, VS_SHEET_ID_MAX) < 0)
            at++;
    if (!(t.heads = malloc((n + 1) * sizeof *t.heads))) {
        rc = vs_error_oom(err);
        goto done;
    }
    memcpy(t.heads, m->v, at * sizeof *t.heads);
    memcpy(t.heads + at + !h, m->v + at, (n - at) * sizeof *t.heads);
    t.n = t.cap = n + !h;
    if (!h) {
        memset(&t.heads[at], 0, sizeof t.heads[at]);
        snprintf(t.heads[at].id, sizeof t.heads[at].id, "%s", k->id);
    }
    if (!h || !h->present || memcmp(h->folder, k->folder.id, 20)) {
        const char *msg = git_commit_message(c);
        size_t mlen = msg ? strlen(msg) : 0;
        ix_rec r;
        while (mlen && (msg[mlen - 1] == '\n' || msg[mlen - 1] == ' '))
            mlen--;
        memset(&r, 0, sizeof r);
        r.idlen = (uint16_t)strlen(k->id);
        r.msglen = (uint32_t)mlen;
        r.reclen = (uint32_t)(IX_REC_FIXED + r.idlen + r.msglen);
        memcpy(r.commit, k->commit.id, 20);
        r.time = (int64_t)git_commit_time(c);
        r.offset = git_commit_time_offset(c);
        r.prev = t.heads[at].head;
        memcpy(r.folder, k->folder.id, 20);
        memcpy(r.blob, k->blob.id, 20);
        vs_store_index_path(st, "index.revs", p, sizeof p);
        /* what a writer killed before its heads were renamed left is cut */
        if (truncate(p, (off_t)pos) != 0 || !(f = fopen(p, "r+b")) ||
            fseeko(f, (off_t)pos, 0) != 0 || fwrite(&r, IX_REC_FIXED, 1, f) != 1 ||
            fwrite(k->id, 1, r.idlen, f) != r.idlen ||
            fwrite(msg ? msg : "", 1, r.msglen, f) != r.msglen || fflush(f) != 0) {
            rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", p, strerror(errno));
            goto done;
        }
        t.heads[at].head = pos;
        t.heads[at].count++;
        pos += r.reclen;
        hdr.nrevs++;
    }
    t.heads[at].present = 1;
    memcpy(t.heads[at].folder, k->folder.id, 20);
    memcpy(hdr.tip, k->commit.id, 20);
    hdr.revs_len = pos;
    hdr.nsheets = t.n;
    rc = write_heads(st, &hdr, &t, err);
done:
    if (f)
        fclose(f);
    git_commit_free(c);
    vs_store_index_table_free(&t);
    return rc;
}

/* 0 for a whole clone, else a digest of <gitdir>/shallow with its low bit
 * set: a clone deepened or unshallowed since the index was built is rebuilt
 * even where its tip did not move. */
static uint32_t shallow_stamp(vs_store *st)
{
    char p[4096], buf[4096];
    uint32_t h = 2166136261u;
    size_t n, i;
    FILE *f;
    snprintf(p, sizeof p, "%sshallow", git_repository_path(st->repo));
    if (!(f = fopen(p, "rb")))
        return 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (i = 0; i < n; i++)
            h = (h ^ (unsigned char)buf[i]) * 16777619u;
    fclose(f);
    return h | 1u;
}

/* What writers killed mid-write left (their temporary files), removed under
 * the lock: no writer is at work. */
static void remove_leftovers(vs_store *st)
{
    char p[4096];
    DIR *d;
    struct dirent *e;
    vs_store_index_path(st, "", p, sizeof p);
    if (!(d = opendir(p)))
        return;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "index.revs.tmp-", 15) ||
            !strncmp(e->d_name, "index.heads.tmp-", 16)) {
            char f[4400];
            snprintf(f, sizeof f, "%s%s", p, e->d_name);
            unlink(f);
        }
    closedir(d);
}

/* Writes the index of the whole history to tip. */
static int rebuild(vs_store *st, const char *refname, const git_oid *tip, vs_error *err)
{
    char p[4096], tmp[4200], head[IX_REVS_HEADER];
    ix_heads_hdr hdr;
    ix_table t = {0};
    git_oid *v = NULL, *shallow = NULL;
    size_t n = 0, ns = 0;
    uint64_t pos = IX_REVS_HEADER;
    FILE *f = NULL;
    int rc;
    memset(&hdr, 0, sizeof hdr);
    memcpy(hdr.magic, IX_HEADS_MAGIC, 8);
    snprintf(hdr.refname, sizeof hdr.refname, "%s", refname);
    if (getrandom(&hdr.gen, sizeof hdr.gen, 0) != (ssize_t)sizeof hdr.gen)
        hdr.gen = (uint64_t)getpid() ^ (uint64_t)time(NULL) << 20;
    if (vs_store_shallow_read(st, &shallow, &ns) < 0)
        return vs_error_oom(err);
    hdr.shallow = shallow_stamp(st);
    if (tip) {
        hdr.has_tip = 1;
        memcpy(hdr.tip, tip->id, 20);
        rc = ns ? vs_store_index_walk_shallow(st->repo, tip, shallow, ns, &v, &n, err)
                : walk_new(st, tip, NULL, &v, &n, err);
        if (rc < 0)
            goto done;
    }
    vs_store_index_path(st, "index.revs", p, sizeof p);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", p, (long)getpid());
    memset(head, 0, sizeof head);
    memcpy(head, IX_REVS_MAGIC, 8);
    memcpy(head + 8, &hdr.gen, 8);
    if (!(f = fopen(tmp, "wb")) || fwrite(head, sizeof head, 1, f) != 1) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    if ((rc = vs_store_index_append(st->repo, f, &pos, &t, &hdr.nrevs, v, n, shallow, ns, 0, err)) <
            0 ||
        (tip && (rc = vs_store_index_tip_apply(st->repo, NULL, tip, &t, err)) < 0))
        goto done;
    if (fclose(f) != 0) {
        f = NULL;
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    f = NULL;
    if (rename(tmp, p) != 0) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", p, strerror(errno));
        goto done;
    }
    hdr.revs_len = pos;
    hdr.nsheets = t.n;
    rc = write_heads(st, &hdr, &t, err);
done:
    if (f) {
        fclose(f);
        unlink(tmp);
    }
    free(v);
    free(shallow);
    vs_store_index_table_free(&t);
    return rc;
}

/* 1 when the mapped index was built for this branch at this tip (and this
 * shallow boundary). */
static int is_current(vs_store *st, const heads_map *m, const char *refname, const git_oid *tip,
                      int have)
{
    if (strncmp(m->hdr->refname, refname, sizeof m->hdr->refname) ||
        m->hdr->shallow != shallow_stamp(st))
        return 0;
    if (!have)
        return !m->hdr->has_tip;
    return m->hdr->has_tip && !memcmp(m->hdr->tip, tip->id, 20);
}

int vs_store_index_tip_is(vs_store *st, const git_oid *tip)
{
    heads_map m;
    int same;
    if (!st->repo || !heads_map_open(st, &m))
        return 0;
    same = m.hdr->has_tip && !memcmp(m.hdr->tip, tip->id, 20);
    heads_unmap(&m);
    return same;
}

static int sync_to_tip(vs_store *st, const vs_store_index_known *known, vs_error *err);

int vs_store_index_sync(vs_store *st, vs_error *err)
{
    return sync_to_tip(st, NULL, err);
}

int vs_store_index_sync_known(vs_store *st, const vs_store_index_known *known, vs_error *err)
{
    return sync_to_tip(st, known, err);
}

static int sync_to_tip(vs_store *st, const vs_store_index_known *known, vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16], p[4096];
    heads_map m;
    git_oid tip, old;
    int rc, have, fd, need_rebuild = 1;
    if (!st->repo)
        return 0;
    if ((rc = vs_store_head_branch(st, refname, sizeof refname, err)) < 0)
        return rc;
    if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0)
        return have;
    if (heads_map_open(st, &m)) {
        int cur = is_current(st, &m, refname, &tip, have);
        heads_unmap(&m);
        if (cur)
            return 0;
    }
    vs_store_index_path(st, "", p, sizeof p);
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return errno == EACCES || errno == EROFS || errno == EPERM
                   ? VS_STORE_INDEX_READONLY
                   : vs_error_set(err, VS_ERECORDS, "cannot create %s: %s", p, strerror(errno));
    vs_store_index_path(st, "index.lock", p, sizeof p);
    if ((fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return errno == EACCES || errno == EROFS || errno == EPERM
                   ? VS_STORE_INDEX_READONLY
                   : vs_error_set(err, VS_ERECORDS, "cannot open %s: %s", p, strerror(errno));
    if (flock(fd, LOCK_EX) != 0) {
        close(fd);
        return vs_error_set(err, VS_ERECORDS, "cannot lock %s: %s", p, strerror(errno));
    }
    /* the branch may have moved, or another writer brought the index, meanwhile */
    if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0) {
        rc = have;
        goto done;
    }
    rc = 0;
    if (heads_map_open(st, &m)) {
        if (is_current(st, &m, refname, &tip, have)) {
            need_rebuild = 0;
        } else if (have && m.hdr->has_tip && !m.hdr->shallow &&
                   !strncmp(m.hdr->refname, refname, sizeof m.hdr->refname)) {
            git_oid_fromraw(&old, m.hdr->tip);
            if (known && git_oid_equal(&known->commit, &tip)) {
                int krc = extend_known(st, &m, &old, known, err);
                if (krc < 0)
                    vs_error_clear(err); /* the trees are compared below */
                need_rebuild = krc != 0;
            }
            if (need_rebuild && git_graph_descendant_of(st->repo, &tip, &old) == 1 &&
                extend(st, &m, &tip, &need_rebuild, err) < 0) {
                vs_error_clear(err); /* what could not be appended is rebuilt */
                need_rebuild = 1;
            }
        }
        heads_unmap(&m);
    }
    if (need_rebuild) {
        remove_leftovers(st);
        rc = rebuild(st, refname, have ? &tip : NULL, err);
    }
done:
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

/* --- reading --- */

void vs_store_index_revs_free(vs_store_index_rev *revs, size_t n)
{
    size_t i;
    for (i = 0; revs && i < n; i++)
        free(revs[i].message);
    free(revs);
}

static int corrupt(vs_store *st, vs_error *err)
{
    char p[4096];
    /* the next sync rebuilds it */
    vs_store_index_path(st, "index.heads", p, sizeof p);
    unlink(p);
    return vs_error_set(err, VS_ERECORDS,
                        "the revision index of %s is damaged; it was removed and is rebuilt "
                        "from the history by the next command",
                        st->path);
}

int vs_store_index_revisions(vs_store *st, const char *id, size_t skip, size_t limit,
                             vs_store_index_rev **out, size_t *n, size_t *total, vs_error *err)
{
    heads_map m;
    const ix_head *h;
    vs_store_index_rev *v = NULL;
    uint64_t off, revs_len;
    size_t cap = 0, seen = 0;
    int fd = -1, rc = 0;
    *out = NULL;
    *n = 0;
    if (total)
        *total = 0;
    if (!st->repo)
        return 0;
    if (!heads_map_open(st, &m))
        return vs_error_set(err, VS_ERECORDS, "the revision index of %s is not there", st->path);
    revs_len = m.hdr->revs_len;
    if (!(h = heads_find(&m, id)))
        goto done;
    if (total)
        *total = h->count;
    off = h->head;
    fd = m.revs_fd;
    while (off && (!limit || *n < limit)) {
        ix_rec r;
        char rid[VS_SHEET_ID_MAX];
        vs_store_index_rev *x;
        if (off < IX_REVS_HEADER || off + IX_REC_FIXED > revs_len ||
            pread(fd, &r, IX_REC_FIXED, (off_t)off) != IX_REC_FIXED || r.idlen >= VS_SHEET_ID_MAX ||
            r.reclen != IX_REC_FIXED + r.idlen + r.msglen || off + r.reclen > revs_len ||
            r.prev >= off || pread(fd, rid, r.idlen, (off_t)(off + IX_REC_FIXED)) != r.idlen ||
            (rid[r.idlen] = '\0', strcmp(rid, id))) {
            rc = corrupt(st, err);
            goto done;
        }
        if (seen++ >= skip) {
            static const unsigned char zero[20];
            git_oid o;
            if (*n == cap) {
                vs_store_index_rev *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *nv);
                if (!nv) {
                    rc = vs_error_oom(err);
                    goto done;
                }
                v = nv;
            }
            x = &v[(*n)++];
            memset(x, 0, sizeof *x);
            git_oid_fromraw(&o, r.commit);
            vs_store_hex(x->commit, &o);
            if (memcmp(r.blob, zero, 20)) {
                git_oid_fromraw(&o, r.blob);
                vs_store_hex(x->blob, &o);
            }
            if (!(r.flags & VS_STORE_INDEX_DELETED)) {
                git_oid_fromraw(&o, r.folder);
                vs_store_hex(x->folder, &o);
            }
            x->time = r.time;
            x->offset = r.offset;
            x->flags = r.flags;
            if (!(x->message = malloc((size_t)r.msglen + 1))) {
                rc = vs_error_oom(err);
                goto done;
            }
            if (pread(fd, x->message, r.msglen, (off_t)(off + IX_REC_FIXED + r.idlen)) !=
                (ssize_t)r.msglen) {
                rc = corrupt(st, err);
                goto done;
            }
            x->message[r.msglen] = '\0';
            if (*n > 1)
                snprintf(v[*n - 2].parent, sizeof v[*n - 2].parent, "%s", x->commit);
        }
        off = r.prev;
    }
    /* the last one's parent, when there is one */
    if (*n && off) {
        ix_rec r;
        git_oid o;
        if (pread(fd, &r, IX_REC_FIXED, (off_t)off) == IX_REC_FIXED) {
            git_oid_fromraw(&o, r.commit);
            vs_store_hex(v[*n - 1].parent, &o);
        }
    }
done:
    heads_unmap(&m);
    if (rc < 0) {
        vs_store_index_revs_free(v, *n);
        v = NULL;
        *n = 0;
    }
    *out = v;
    return rc;
}

int vs_store_index_tip_folder(vs_store *st, const git_oid *tip, const char *id, git_oid *folder)
{
    heads_map m;
    const ix_head *h;
    int rc = -1;
    if (!st->repo || !heads_map_open(st, &m))
        return -1;
    if (m.hdr->has_tip && !memcmp(m.hdr->tip, tip->id, 20)) {
        h = heads_find(&m, id);
        rc = h && h->present;
        if (rc)
            git_oid_fromraw(folder, h->folder);
    }
    heads_unmap(&m);
    return rc;
}

int vs_store_index_find_blob(vs_store *st, const char *id, const char *blob,
                             char commit[VS_STORE_HEX], vs_error *err)
{
    heads_map m;
    const ix_head *h;
    git_oid want, o;
    uint64_t off;
    int fd = -1, rc = 0;
    *commit = '\0';
    if (git_oid_fromstr(&want, blob) < 0)
        return vs_error_set(err, VS_EVALUE, "'%s' is not a blob id", blob);
    if (!st->repo)
        return 0;
    if (!heads_map_open(st, &m))
        return vs_error_set(err, VS_ERECORDS, "the revision index of %s is not there", st->path);
    if (!(h = heads_find(&m, id)))
        goto done;
    fd = m.revs_fd;
    for (off = h->head; off;) {
        ix_rec r;
        if (off < IX_REVS_HEADER || off + IX_REC_FIXED > m.hdr->revs_len ||
            pread(fd, &r, IX_REC_FIXED, (off_t)off) != IX_REC_FIXED || r.prev >= off) {
            rc = corrupt(st, err);
            goto done;
        }
        if (!memcmp(r.blob, want.id, 20)) {
            git_oid_fromraw(&o, r.commit);
            vs_store_hex(commit, &o);
            rc = 1;
        } else if (rc == 1) {
            break;
        }
        off = r.prev;
    }
done:
    heads_unmap(&m);
    return rc;
}

int vs_store_index_ids(vs_store *st, const char *prefix, char ***ids, size_t *n, vs_error *err)
{
    heads_map m;
    size_t i, plen = prefix ? strlen(prefix) : 0, cap = 0;
    char **v = NULL;
    *ids = NULL;
    *n = 0;
    if (!st->repo || !heads_map_open(st, &m))
        return 0;
    for (i = 0; i < m.hdr->nsheets; i++) {
        const ix_head *h = &m.v[i];
        if (!h->present || (plen && strncmp(h->id, prefix, plen)))
            continue;
        if (*n == cap) {
            char **nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *nv);
            if (!nv)
                goto oom;
            v = nv;
        }
        if (!(v[*n] = strndup(h->id, VS_SHEET_ID_MAX - 1)))
            goto oom;
        (*n)++;
    }
    heads_unmap(&m);
    *ids = v;
    return 0;
oom:
    heads_unmap(&m);
    for (i = 0; i < *n; i++)
        free(v[i]);
    free(v);
    *n = 0;
    return vs_error_oom(err);
}
