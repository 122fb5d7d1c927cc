/* store_commit.c — a commit: the compare-and-swap on the branch (built again
 * on the new tip when another writer moved it), a state the records already
 * hold recognised, and the choice among sheets changed on both sides of a
 * remote; the work tree follows through store_worktree.c. */
#include "store/store_index.h"
#include "store/store_internal.h"
#include "store/store_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* 1 with *at when sheets/<id>/sheet.json was blob at some commit of the branch
 * from tip, 0 when never; libgit2 errors negative. */
static int sheet_held_walk(git_repository *repo, const git_oid *tip, const char *id,
                           const git_oid *blob, git_oid *at)
{
    git_revwalk *walk = NULL;
    git_oid oid;
    int rc, found = 0;
    if ((rc = git_revwalk_new(&walk, repo)) < 0 || (rc = git_revwalk_push(walk, tip)) < 0)
        goto done;
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    /* The commit that wrote that state: the oldest of the newest run of
     * commits holding it (later commits of other sheets hold it too). */
    while ((rc = git_revwalk_next(&oid, walk)) == 0) {
        git_commit *c = NULL;
        git_oid cur;
        int has = 0;
        if ((rc = git_commit_lookup(&c, repo, &oid)) < 0)
            goto done;
        rc = vs_store_sheet_blob_at(repo, git_commit_tree_id(c), id, "sheet.json", &cur, &has);
        git_commit_free(c);
        if (rc < 0)
            goto done;
        if (has && git_oid_equal(&cur, blob)) {
            git_oid_cpy(at, &oid);
            found = 1;
        } else if (found) {
            break;
        }
    }
    rc = rc == GIT_ITEROVER ? 0 : rc;
done:
    git_revwalk_free(walk);
    return rc < 0 ? rc : found;
}

/* The same, read from the revision index (the sheet's own revisions only);
 * the walk where the index cannot be brought to the tip here. */
static int sheet_held(vs_store *st, const git_oid *tip, const char *id, const git_oid *blob,
                      git_oid *at)
{
    char hex[VS_STORE_HEX], commit[VS_STORE_HEX];
    vs_error e;
    int rc;
    vs_error_clear(&e);
    vs_store_hex(hex, blob);
    if (vs_store_index_sync(st, &e) == 0 && vs_store_index_tip_is(st, tip) &&
        (rc = vs_store_index_find_blob(st, id, hex, commit, &e)) >= 0) {
        if (rc == 1 && git_oid_fromstr(at, commit) < 0)
            return GIT_ERROR;
        return rc;
    }
    return sheet_held_walk(st->repo, tip, id, blob, at);
}

/* When a pull or push is refused because sheets changed on both sides, the
 * other side's tip is remembered in <gitdir>/vramsheet-theirs: its id on the
 * first line, then one line per diverged sheet the person has already chosen a
 * version of. `commit ... replace` of a diverged sheet is that choice; the
 * commit that makes the last choice joins theirs as a second parent, so that
 * both histories meet with the chosen versions and a push goes through. */
static void note_path(vs_store *st, char *p, size_t n)
{
    snprintf(p, n, "%svramsheet-theirs", git_repository_path(st->repo));
}

void vs_store_note_write(vs_store *st, const vs_store_theirs_note *tn)
{
    char p[4096], h[VS_STORE_HEX], *text = NULL;
    size_t i, len;
    FILE *f;
    vs_store_hex(h, &tn->theirs);
    note_path(st, p, sizeof p);
    if (!(f = open_memstream(&text, &len)))
        return;
    fprintf(f, "%s\n", h);
    for (i = 0; i < tn->n; i++)
        fprintf(f, "%s\n", tn->chosen[i]);
    if (fclose(f) == 0)
        vs_store_write_file_atomic(p, text, len);
    free(text);
}

void vs_store_note_read(vs_store *st, vs_store_theirs_note *tn)
{
    char p[4096], line[128];
    FILE *f;
    memset(tn, 0, sizeof *tn);
    note_path(st, p, sizeof p);
    if (!(f = fopen(p, "r")))
        return;
    if (fgets(line, sizeof line, f) && strlen(line) > 40 && (line[40] = '\0', 1) &&
        git_oid_fromstr(&tn->theirs, line) == 0) {
        tn->has = 1;
        while (tn->n < STORE_DIVERGED_MAX && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (vs_sheet_id_valid(line))
                snprintf(tn->chosen[tn->n++], VS_SHEET_ID_MAX, "%.*s", VS_SHEET_ID_MAX - 1, line);
        }
    }
    fclose(f);
}

static void note_remove(vs_store *st)
{
    char p[4096];
    note_path(st, p, sizeof p);
    unlink(p);
}

static int note_has(const vs_store_theirs_note *tn, const char *id)
{
    size_t i;
    for (i = 0; i < tn->n; i++)
        if (!strcmp(tn->chosen[i], id))
            return 1;
    return 0;
}

/* The tree joining ours_tree (the tip with this commit's files) and theirs:
 * each sheet changed on one side comes from that side, and each chosen sheet
 * from ours, whole. */
static int joined_tree(git_repository *repo, const git_oid *ours_tree, const git_oid *tip,
                       const git_oid *theirs, const vs_store_theirs_note *tn, git_oid *out)
{
    git_oid base;
    git_commit *bc = NULL, *tc = NULL;
    git_tree *bt = NULL, *ot = NULL, *tt = NULL, *folder = NULL;
    git_index *idx = NULL;
    git_merge_options mo;
    size_t i, k;
    int rc, stage;
    git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
    mo.file_favor = GIT_MERGE_FILE_FAVOR_OURS;
    if ((rc = git_merge_base(&base, repo, tip, theirs)) < 0 ||
        (rc = git_commit_lookup(&bc, repo, &base)) < 0 || (rc = git_commit_tree(&bt, bc)) < 0 ||
        (rc = git_commit_lookup(&tc, repo, theirs)) < 0 || (rc = git_commit_tree(&tt, tc)) < 0 ||
        (rc = git_tree_lookup(&ot, repo, ours_tree)) < 0 ||
        (rc = git_merge_trees(&idx, repo, bt, ot, tt, &mo)) < 0)
        goto done;
    for (i = 0; i < tn->n; i++) {
        char dir[VS_SHEET_ID_MAX + 16];
        git_tree_entry *e = NULL;
        snprintf(dir, sizeof dir, "sheets/%s", tn->chosen[i]);
        for (stage = 0; stage <= 3; stage++)
            git_index_remove_directory(idx, dir, stage);
        if (git_tree_entry_bypath(&e, ot, dir) != 0)
            continue; /* chosen as removed */
        rc = git_tree_lookup(&folder, repo, git_tree_entry_id(e));
        git_tree_entry_free(e);
        if (rc < 0)
            goto done;
        for (k = 0; k < git_tree_entrycount(folder); k++) {
            const git_tree_entry *fe = git_tree_entry_byindex(folder, k);
            git_index_entry ie;
            char path[VS_SHEET_ID_MAX + 300];
            if (git_tree_entry_type(fe) != GIT_OBJECT_BLOB)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, git_tree_entry_name(fe));
            memset(&ie, 0, sizeof ie);
            ie.mode = git_tree_entry_filemode(fe);
            git_oid_cpy(&ie.id, git_tree_entry_id(fe));
            ie.path = path;
            if ((rc = git_index_add(idx, &ie)) < 0)
                goto done;
        }
        git_tree_free(folder);
        folder = NULL;
    }
    if (git_index_has_conflicts(idx)) {
        git_error_set_str(GIT_ERROR_MERGE, "files outside the chosen sheets conflict");
        rc = GIT_EMERGECONFLICT;
        goto done;
    }
    rc = git_index_write_tree_to(out, idx, repo);
done:
    git_index_free(idx);
    git_tree_free(folder);
    git_tree_free(bt);
    git_tree_free(ot);
    git_tree_free(tt);
    git_commit_free(bc);
    git_commit_free(tc);
    return rc;
}

/* For a replace commit of sheet id while a divergence is remembered: *join
 * when this choice is the last one needed (the commit joins theirs); *chosen
 * when id is one of the diverged sheets. Drops a note that no longer applies. */
static int divergence_choice(vs_store *st, const git_oid *tip, const char *id,
                             vs_store_theirs_note *tn, int *join, int *chosen)
{
    char names[600], ids[STORE_DIVERGED_MAX][VS_SHEET_ID_MAX];
    size_t nids = 0, i;
    int nd;
    git_commit *tc = NULL;
    int missing;
    *join = *chosen = 0;
    vs_store_note_read(st, tn);
    if (!tn->has)
        return 0;
    missing = git_commit_lookup(&tc, st->repo, &tn->theirs) < 0;
    git_commit_free(tc);
    if (missing || git_oid_equal(tip, &tn->theirs) ||
        git_graph_descendant_of(st->repo, tip, &tn->theirs) == 1) {
        note_remove(st);
        tn->has = 0;
        return 0;
    }
    if ((nd = vs_store_diverged_sheets(st->repo, tip, &tn->theirs, names, sizeof names, ids,
                                       &nids)) < 0)
        return nd;
    for (i = 0; i < nids; i++)
        if (!strcmp(ids[i], id))
            *chosen = 1;
    if (!*chosen)
        return 0;
    if (!note_has(tn, id) && tn->n < STORE_DIVERGED_MAX)
        snprintf(tn->chosen[tn->n++], VS_SHEET_ID_MAX, "%s", id);
    *join = 1;
    for (i = 0; i < nids; i++)
        if (!note_has(tn, ids[i]))
            *join = 0;
    return 0;
}

/* --- commit --- */

int vs_store_commit(vs_store *st, const vs_store_write *w, vs_store_commit_info *info,
                    vs_error *err)
{
    vs_store_commit_info tmp_info;
    char refname[VS_STORE_BRANCH_MAX + 16], logmsg[300];
    char *msg = NULL;
    git_signature *sig = NULL;
    git_oid blob_json, blob_md, expected, tip, tree_oid, commit_oid, folder_oid;
    size_t mlen;
    int rc = 0, attempt = 0, created = 0, journaled = 0, keep_journal = 0, joined = 0;
    int64_t deadline;
    vs_store_theirs_note note;
    git_oid before;
    int had_before = 0;

    if (!w || !w->sheet_id || !vs_sheet_id_valid(w->sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id (a slug: a-z, 0-9, '-')",
                            w && w->sheet_id ? w->sheet_id : "");
    if (!w->json || !w->message)
        return vs_error_set(err, VS_EVALUE, "nothing to commit");
    /* Parsed before info is cleared: the caller may pass info->blob as expected_blob. */
    if (w->expected_blob && git_oid_fromstr(&expected, w->expected_blob) < 0)
        return vs_error_set(err, VS_EVALUE, "'%s' is not a blob id", w->expected_blob);
    if (!info)
        info = &tmp_info;
    memset(info, 0, sizeof *info);
    if ((rc = vs_store_ensure_repo(st, &created, err)) < 0)
        return rc;
    info->created = created;
    if ((rc = vs_store_check_writable(st, err)) < 0)
        return rc;
    if ((rc = vs_store_head_branch(st, refname, sizeof refname, err)) < 0)
        return rc;
    snprintf(info->branch, sizeof info->branch, "%.255s", refname + 11);
    if (!git_repository_is_bare(st->repo)) {
        char edited[600];
        if ((rc = vs_store_hand_edits(st, w->sheet_id, edited, sizeof edited, err)) < 0)
            return rc;
        if (*edited)
            return vs_error_set(err, VS_ERECORDS,
                                "the records work tree %s has changes of its own to %s (edited, "
                                "deleted or staged by hand, see `git -C %s status`); a commit "
                                "would write over them, so nothing was written. Keep them with "
                                "`git -C %s commit`, or drop them with `git -C %s checkout HEAD -- "
                                "sheets/%s/`, then commit again",
                                st->path, edited, st->path, st->path, st->path, w->sheet_id);
        if ((rc = vs_store_journal_begin(st, w->sheet_id, err)) < 0)
            return rc;
        journaled = 1;
    }

    mlen = strlen(w->message);
    if (!(msg = malloc(mlen + 2))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(msg, w->message, mlen + 1);
    if (mlen == 0 || msg[mlen - 1] != '\n') {
        msg[mlen] = '\n';
        msg[mlen + 1] = '\0';
    }
    snprintf(logmsg, sizeof logmsg, "commit: %.*s",
             (int)strcspn(msg, "\n") > 200 ? 200 : (int)strcspn(msg, "\n"), msg);

    if (vs_store_make_signature(st->repo, &sig) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot make a commit signature");
        goto done;
    }
    if (git_blob_create_from_buffer(&blob_json, st->repo, w->json, w->json_len) < 0 ||
        (w->md && git_blob_create_from_buffer(&blob_md, st->repo, w->md, w->md_len) < 0)) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot write to records %s", st->path);
        goto done;
    }

    deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    for (;;) {
        git_commit *parent = NULL, *their_commit = NULL;
        git_tree *tree = NULL;
        const git_commit *parents[2];
        git_oid cur;
        int have, crc, has_cur = 0, join = 0, chosen = 0;

        attempt++;
        if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0) {
            rc = have;
            goto done;
        }
        if (have && git_commit_lookup(&parent, st->repo, &tip) < 0) {
            git_commit_free(parent);
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read the tip of %s", refname);
            goto done;
        }
        if (have && vs_store_tip_blob(st, &tip, w->sheet_id, "sheet.json", &cur, &has_cur) < 0) {
            git_commit_free(parent);
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read the tip of %s", refname);
            goto done;
        }
        if (have && w->replace &&
            (crc = divergence_choice(st, &tip, w->sheet_id, &note, &join, &chosen)) < 0) {
            git_commit_free(parent);
            rc = vs_store_gfail(err, VS_ERECORDS,
                                "cannot compare the sheets here and in the remote");
            goto done;
        }
        /* The records already hold exactly this sheet (a notebook run again from
         * the top): nothing can be lost, and an empty commit would only be noise.
         * Unless it is the version chosen over theirs: that choice is recorded. */
        if (has_cur && git_oid_equal(&cur, &blob_json) && !chosen) {
            git_oid wrote;
            /* the commit that wrote this state, not the tip: the same whatever
             * other sheets were committed since (a notebook run again names the
             * commit its first run wrote) */
            if (sheet_held(st, &tip, w->sheet_id, &blob_json, &wrote) > 0)
                vs_store_hex(info->commit, &wrote);
            else
                vs_store_hex(info->commit, &tip);
            vs_store_hex(info->blob, &cur);
            info->unchanged = 1;
            info->attempts = attempt;
            git_commit_free(parent);
            goto done;
        }
        if (!w->replace) {
            int stale = w->expected_blob ? (!has_cur || !git_oid_equal(&cur, &expected)) : has_cur;
            git_oid held_at;
            int held = 0;
            /* A state of this sheet the records already hold at an older
             * revision (a notebook run again from the top, in a kernel that did
             * not load it): restating it writes nothing, and the caller goes on
             * from that revision (a later change then meets the newer ones as a
             * concurrent change, as it should). */
            if (stale && (held = sheet_held(st, &tip, w->sheet_id, &blob_json, &held_at)) < 0) {
                git_commit_free(parent);
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot read the history of %s", refname);
                goto done;
            }
            if (held) {
                vs_store_hex(info->commit, &held_at);
                vs_store_hex(info->blob, &blob_json);
                info->unchanged = 1;
                info->held_earlier = 1;
                info->attempts = attempt;
                git_commit_free(parent);
                goto done;
            }
            if (stale) {
                vs_store_hex(info->commit, &tip);
                if (has_cur)
                    vs_store_hex(info->blob, &cur);
                if (w->expected_blob && has_cur)
                    rc = vs_error_set(err, VS_ECONFLICT,
                                      "sheet '%s' changed in the records (%s, now at %.12s) since "
                                      "this version was loaded; nothing was written. Compare the "
                                      "two, then record yours on top with `commit \"...\" "
                                      "replace` (theirs stays in history) or start from theirs",
                                      w->sheet_id, st->path, info->commit);
                else if (w->expected_blob)
                    rc = vs_error_set(err, VS_ECONFLICT,
                                      "sheet '%s' is no longer in the records %s (tip %.12s), "
                                      "though this version was loaded from there; nothing was "
                                      "written. Record it again with `commit \"...\" replace`",
                                      w->sheet_id, st->path, info->commit);
                else
                    rc = vs_error_set(err, VS_ECONFLICT,
                                      "sheet '%s' already has a record in %s (at %.12s) that this "
                                      "session did not load; nothing was written. Load it with "
                                      "`show %s` (in a session where it is not open), use another "
                                      "title, or record this version on top with `commit \"...\" "
                                      "replace` (the other stays in history)",
                                      w->sheet_id, st->path, info->commit, w->sheet_id);
                git_commit_free(parent);
                goto done;
            }
        }
        had_before = have;
        if (have)
            git_oid_cpy(&before, &tip);
        crc =
            vs_store_tree_put_sheet(st->repo, have ? git_commit_tree_id(parent) : NULL, w->sheet_id,
                                    &blob_json, w->md ? &blob_md : NULL, &tree_oid, &folder_oid);
        if (crc == 0 && join)
            crc = joined_tree(st->repo, &tree_oid, &tip, &note.theirs, &note, &tree_oid);
        if (crc == 0 && join)
            crc = git_commit_lookup(&their_commit, st->repo, &note.theirs);
        if (crc == 0)
            crc = git_tree_lookup(&tree, st->repo, &tree_oid);
        if (crc == 0) {
            parents[0] = parent;
            parents[1] = their_commit;
            crc = git_commit_create(&commit_oid, st->repo, NULL, sig, sig, NULL, msg, tree,
                                    have ? (join ? 2 : 1) : 0, parents);
        }
        if (crc < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot write the commit to %s", st->path);
        } else {
            crc = vs_store_ref_move(st->repo, refname, &commit_oid, have ? &tip : NULL, logmsg,
                                    info->repaired, sizeof info->repaired, err);
            if (crc < 0)
                rc = crc;
        }
        git_tree_free(tree);
        git_commit_free(parent);
        git_commit_free(their_commit);
        if (rc < 0)
            goto done;
        if (crc == 0) {
            joined = join;
            if (join)
                vs_store_hex(info->joined, &note.theirs);
            if (join)
                note_remove(st);
            else if (chosen)
                vs_store_note_write(st, &note);
            break;
        }
        /* Somebody moved the branch (or holds its lock): rebuild from the new tip. */
        if (vs_clock_mono_ms() > deadline) {
            vs_store_lock_report(st, refname, err);
            rc = VS_ERECORDS;
            goto done;
        }
        vs_store_backoff(attempt);
    }
    vs_store_hex(info->commit, &commit_oid);
    vs_store_hex(info->blob, &blob_json);
    info->attempts = attempt;
    {
        /* the index follows now, while the commit is at hand (else the next
         * reader brings it) */
        vs_error ierr;
        vs_store_index_known k;
        vs_error_clear(&ierr);
        git_oid_cpy(&k.commit, &commit_oid);
        k.id = w->sheet_id;
        git_oid_cpy(&k.folder, &folder_oid);
        git_oid_cpy(&k.blob, &blob_json);
        if (joined)
            vs_store_index_sync(st, &ierr);
        else
            vs_store_index_sync_known(st, &k, &ierr);
    }
    if (!git_repository_is_bare(st->repo)) {
        vs_error werr;
        const char *ids[1];
        ids[0] = w->sheet_id;
        vs_error_clear(&werr);
        /* joined: theirs' other sheets arrive too */
        if ((joined &&
             vs_store_checkout_moved(st, had_before ? &before : NULL, &commit_oid, &werr) < 0) ||
            vs_store_sync_sheets(st, refname, ids, 1, &werr) < 0) {
            snprintf(info->warning, sizeof info->warning,
                     "committed, but the work tree of %.80s was not updated: %.360s", st->path,
                     werr.message);
            keep_journal = 1; /* the next open tries again */
        }
    }
done:
    if (journaled && !keep_journal)
        vs_store_journal_end(st, w->sheet_id);
    git_signature_free(sig);
    free(msg);
    return rc;
}
