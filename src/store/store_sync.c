/* store_sync.c — push and pull: fetch, the per-sheet check that a sheet is
 * never merged, fast-forward or a merge commit of different sheets, and the
 * push read back after the fact. */
#include "store/store_index.h"
#include "store/store_internal.h"

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

/* --- push and pull --- */

typedef struct remote_spec {
    char url[1024];
    char track[VS_STORE_BRANCH_MAX + 64]; /* where fetched tips are kept locally */
    char local_path[1024];                /* non-empty for a repository on this machine */
} remote_spec;

static int resolve_remote(vs_store *st, const char *name, const char *branch, remote_spec *rs,
                          vs_error *err)
{
    git_config *cfg = NULL;
    git_buf val = {0};
    char key[300];
    int rc = 0, named = 0;
    struct stat sb;
    const char *p;
    memset(rs, 0, sizeof *rs);
    if (!name || !*name)
        name = "origin";
    if (git_remote_name_is_valid(&named, name) < 0)
        named = 0;
    if (named && strlen(name) < 200) {
        snprintf(key, sizeof key, "remote.%s.url", name);
        if (git_repository_config_snapshot(&cfg, st->repo) == 0 &&
            git_config_get_string_buf(&val, cfg, key) == 0) {
            snprintf(rs->url, sizeof rs->url, "%s", val.ptr);
            snprintf(rs->track, sizeof rs->track, "refs/remotes/%s/%s", name, branch);
        } else {
            named = 0;
        }
    }
    if (!named) {
        if (!strcmp(name, "origin")) {
            rc = vs_error_set(err, VS_ERECORDS,
                              "records %s have no remote named origin: name one, as in `records "
                              "push /path/to/records.git` (a bare repository, a file:// or another "
                              "git URL), or add it with `git -C %s remote add origin URL`",
                              st->path, st->path);
            goto done;
        }
        snprintf(rs->url, sizeof rs->url, "%s", name);
        snprintf(rs->track, sizeof rs->track, "refs/remotes/vramsheet/%s", branch);
    }
    if ((rc = vs_store_cred_url_check(rs->url, err)) < 0)
        goto done;
    p = rs->url;
    if (!strncmp(p, "file://", 7))
        p += 7;
    else if (strstr(p, "://"))
        p = NULL;
    if (p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(rs->local_path, sizeof rs->local_path, "%s", p);
    else if (p && !strncmp(rs->url, "file://", 7)) {
        rc = vs_error_set(err, VS_ERECORDS, "remote %s does not exist", rs->url);
        goto done;
    }
done:
    git_buf_dispose(&val);
    git_config_free(cfg);
    return rc;
}

static int new_remote(vs_store *st, const remote_spec *rs, git_remote **out, vs_error *err)
{
    git_remote_create_options o;
    git_remote_create_options_init(&o, GIT_REMOTE_CREATE_OPTIONS_VERSION);
    o.repository = st->repo;
    o.name = NULL;
    /* create_anonymous leaks in 1.5.1 (pcre2 match data for insteadOf); this does not. */
    o.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
    if (git_remote_create_with_opts(out, rs->url, &o) < 0)
        return vs_store_gfail(err, VS_ERECORDS, "remote %s", rs->url);
    return 0;
}

/* Reads the remote's branch as it is now: 1 with *oid, 0 when it has none. */
/* Listing a local remote reads every reference under refs/: another pusher's
 * temporary reference can vanish between the directory listing and its read,
 * which libgit2 reports as a reference not found. That is a race, not a fault:
 * worth a few more tries. */
static int ref_vanished(void)
{
    const git_error *e = git_error_last();
    return e && e->klass == GIT_ERROR_REFERENCE && e->message && strstr(e->message, "not found");
}

#define REF_RACE_TRIES 5

static int remote_tip(vs_store *st, const remote_spec *rs, const char *refname, git_oid *oid,
                      vs_error *err)
{
    git_remote *r = NULL;
    git_remote_callbacks cb;
    vs_store_cred cred;
    const git_remote_head **heads;
    size_t n, i;
    int rc = 0, tries = 0, lc;
    if ((rc = new_remote(st, rs, &r, err)) < 0)
        return rc;
    git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
    vs_store_cred_init(&cred, rs->url, st->path);
    cb.credentials = vs_store_cred_cb;
    cb.payload = &cred;
    for (;;) {
        lc = git_remote_connect(r, GIT_DIRECTION_FETCH, &cb, NULL, NULL);
        if (lc == 0)
            lc = git_remote_ls(&heads, &n, r);
        if (lc == 0 || ++tries >= REF_RACE_TRIES || !ref_vanished())
            break;
        git_remote_disconnect(r);
    }
    if (lc < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read remote %s", rs->url);
        goto done;
    }
    for (i = 0; i < n; i++) {
        if (!strcmp(heads[i]->name, refname)) {
            git_oid_cpy(oid, &heads[i]->oid);
            rc = 1;
            break;
        }
    }
done:
    if (r)
        git_remote_disconnect(r);
    git_remote_free(r);
    return rc;
}

/* Fetches the remote's branch into rs->track: 1 with *oid, 0 when it has none. */
static int fetch_branch(vs_store *st, const remote_spec *rs, const char *refname, git_oid *oid,
                        vs_error *err)
{
    git_remote *r = NULL;
    git_fetch_options fo;
    vs_store_cred cred;
    char spec[600];
    char *specs[1];
    git_strarray arr;
    int rc;
    if ((rc = remote_tip(st, rs, refname, oid, err)) <= 0)
        return rc;
    if ((rc = new_remote(st, rs, &r, err)) < 0)
        return rc;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    vs_store_cred_init(&cred, rs->url, st->path);
    fo.callbacks.credentials = vs_store_cred_cb;
    fo.callbacks.payload = &cred;
    snprintf(spec, sizeof spec, "+%s:%s", refname, rs->track);
    specs[0] = spec;
    arr.strings = specs;
    arr.count = 1;
    {
        int fc, tries = 0;
        while ((fc = git_remote_fetch(r, &arr, &fo, "records pull")) < 0 &&
               ++tries < REF_RACE_TRIES && ref_vanished())
            ;
        if (fc < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot fetch from %s", rs->url);
            goto done;
        }
    }
    if (git_reference_name_to_id(oid, st->repo, rs->track) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "fetched from %s but cannot read %s", rs->url,
                            rs->track);
        goto done;
    }
    rc = 1;
done:
    git_remote_free(r);
    return rc;
}

/* Brings theirs into the branch: nothing, fast-forward, or a merge commit. */
static int integrate(vs_store *st, const char *refname, const git_oid *theirs, const char *from,
                     vs_store_sync *out, vs_error *err)
{
    git_signature *sig = NULL;
    int rc = 0, attempt = 0;
    int64_t deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    git_oid tip, result;
    int have = 0;
    for (;;) {
        int crc;
        attempt++;
        if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0) {
            rc = have;
            goto done;
        }
        if (have &&
            (git_oid_equal(&tip, theirs) || git_graph_descendant_of(st->repo, &tip, theirs) == 1)) {
            out->up_to_date = 1;
            goto done;
        }
        if (!have || git_graph_descendant_of(st->repo, theirs, &tip) == 1) {
            git_oid_cpy(&result, theirs);
            out->fast_forward = 1;
            out->merged = 0;
        } else {
            git_commit *ours = NULL, *other = NULL;
            git_index *idx = NULL;
            git_merge_options mo;
            git_oid tree_oid;
            git_tree *tree = NULL;
            const git_commit *parents[2];
            char msg[1200];
            char both[600];
            int nd;
            git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
            if ((nd = vs_store_diverged_sheets(st->repo, &tip, theirs, both, sizeof both, NULL,
                                               NULL)) < 0) {
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot compare the sheets here and in %s",
                                    from);
                goto done;
            }
            if (nd > 0) {
                char th[VS_STORE_HEX];
                vs_store_theirs_note tn;
                vs_store_note_read(st, &tn);
                if (!tn.has || !git_oid_equal(&tn.theirs, theirs)) {
                    memset(&tn, 0, sizeof tn);
                    tn.has = 1;
                    git_oid_cpy(&tn.theirs, theirs);
                    vs_store_note_write(st, &tn);
                }
                vs_store_hex(th, theirs);
                rc = vs_error_set(err, VS_ECONFLICT,
                                  "the same sheet changed here and in %s since they last agreed "
                                  "(%s); a sheet is never merged, so nothing was merged or "
                                  "pushed and both sides keep their commits. Look at theirs with "
                                  "`show SHEET@%.12s` (in a session where that sheet is not "
                                  "open), then keep one version of each: `commit \"...\" "
                                  "replace` records the version open in the session over "
                                  "theirs (theirs stays in history); once each such sheet is "
                                  "recorded so, that commit joins both histories and `records "
                                  "push` goes through",
                                  from, both, th);
                goto done;
            }
            if (git_commit_lookup(&ours, st->repo, &tip) < 0 ||
                git_commit_lookup(&other, st->repo, theirs) < 0 ||
                git_merge_commits(&idx, st->repo, ours, other, &mo) < 0) {
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot merge %s", from);
            } else if (git_index_has_conflicts(idx)) {
                const git_index_entry *anc, *o, *t;
                git_index_conflict_iterator *it = NULL;
                char paths[600] = "";
                if (git_index_conflict_iterator_new(&it, idx) == 0) {
                    while (git_index_conflict_next(&anc, &o, &t, it) == 0) {
                        const char *pth = o ? o->path : t ? t->path : anc->path;
                        if (strlen(paths) + strlen(pth) + 3 < sizeof paths) {
                            if (*paths)
                                strcat(paths, ", ");
                            strcat(paths, pth);
                        }
                    }
                    git_index_conflict_iterator_free(it);
                }
                /* Sheets were checked above: what conflicts is other content. */
                rc = vs_error_set(err, VS_ECONFLICT,
                                  "files outside the sheets changed both here and in %s (%s); "
                                  "nothing was merged. They are not records: merge them with git "
                                  "(`git -C %s pull %s`), then sync again",
                                  from, paths, st->path, from);
            } else if (!sig && vs_store_make_signature(st->repo, &sig) < 0) {
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot make a signature");
            } else if (git_index_write_tree_to(&tree_oid, idx, st->repo) < 0 ||
                       git_tree_lookup(&tree, st->repo, &tree_oid) < 0) {
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot write the merged tree");
            } else {
                snprintf(msg, sizeof msg, "records: merge %s\n", from);
                parents[0] = ours;
                parents[1] = other;
                if (git_commit_create(&result, st->repo, NULL, sig, sig, NULL, msg, tree, 2,
                                      parents) < 0)
                    rc = vs_store_gfail(err, VS_ERECORDS, "cannot write the merge commit");
                out->merged = 1;
                out->fast_forward = 0;
            }
            git_tree_free(tree);
            git_index_free(idx);
            git_commit_free(ours);
            git_commit_free(other);
            if (rc < 0)
                goto done;
        }
        crc = vs_store_ref_move(st->repo, refname, &result, have ? &tip : NULL,
                                out->merged ? "records: merge" : "records: fast-forward",
                                out->repaired, sizeof out->repaired, err);
        if (crc == 0)
            break;
        if (crc < 0) {
            rc = crc;
            goto done;
        }
        if (vs_clock_mono_ms() > deadline) {
            vs_store_lock_report(st, refname, err);
            rc = VS_ERECORDS;
            goto done;
        }
        vs_store_backoff(attempt);
    }
    {
        vs_error werr;
        vs_store_index_snap before, after;
        vs_store_index_moved *moved = NULL;
        size_t nmoved = 0;
        int wrc = 1, listed = 0, snapped = have && vs_store_index_snap_take(st, &tip, &before);
        vs_error_clear(&werr);
        /* the revision index takes the new commits (a fast-forward: theirs since
         * our tip, each compared with its parents' sheets/) */
        vs_store_index_sync(st, &werr);
        vs_error_clear(&werr);
        /* its heads before and after say which sheets moved: the work tree
         * and the git index follow those only */
        if (snapped && vs_store_index_snap_take(st, &result, &after)) {
            if ((listed =
                     vs_store_index_moved_sheets(&before, &after, &moved, &nmoved, &werr) == 0))
                wrc = vs_store_checkout_sheets(st, &tip, &result, moved, nmoved, &werr);
            vs_store_index_snap_free(&after);
        }
        if (snapped)
            vs_store_index_snap_free(&before);
        free(st->moved);
        st->moved = moved;
        st->n_moved = nmoved;
        if ((st->has_moved = listed)) {
            git_oid_cpy(&st->moved_from, &tip);
            git_oid_cpy(&st->moved_to, &result);
        }
        if (wrc > 0) {
            vs_error_clear(&werr);
            wrc = vs_store_checkout_moved(st, have ? &tip : NULL, &result, &werr);
        }
        if (wrc < 0)
            snprintf(out->warning, sizeof out->warning, "the work tree was not updated: %.460s",
                     werr.message);
    }
done:
    git_signature_free(sig);
    return rc;
}

static int sync_begin(vs_store *st, const char *remote, vs_store_sync *out, char *refname,
                      size_t reflen, remote_spec *rs, vs_error *err)
{
    int rc;
    git_oid tip;
    memset(out, 0, sizeof *out);
    if ((rc = vs_store_need_repo(st, err)) < 0)
        return rc;
    if ((rc = vs_store_head_branch(st, refname, reflen, err)) < 0)
        return rc;
    snprintf(out->branch, sizeof out->branch, "%s", refname + 11);
    if ((rc = resolve_remote(st, remote, out->branch, rs, err)) < 0)
        return rc;
    snprintf(out->remote, sizeof out->remote, "%s", rs->url);
    if ((rc = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0)
        return rc;
    if (rc)
        vs_store_hex(out->local_before, &tip);
    return 0;
}

int vs_store_pull(vs_store *st, const char *remote, vs_store_sync *out, vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    remote_spec rs;
    git_oid theirs, tip;
    int rc;
    if ((rc = vs_store_ensure_repo(st, NULL, err)) < 0)
        return rc;
    if ((rc = sync_begin(st, remote, out, refname, sizeof refname, &rs, err)) < 0)
        return rc;
    out->attempts = 1;
    if ((rc = fetch_branch(st, &rs, refname, &theirs, err)) < 0)
        return rc;
    if (rc == 0) {
        out->up_to_date = 1;
    } else {
        vs_store_hex(out->remote_after, &theirs);
        if ((rc = integrate(st, refname, &theirs, rs.url, out, err)) < 0)
            return rc;
    }
    if (vs_store_branch_tip(st->repo, refname, &tip, err) == 1)
        vs_store_hex(out->local_after, &tip);
    return 0;
}

/* What a push attempt came to. */
enum { PUSH_SENT = 0, PUSH_MERGE = 1, PUSH_REFUSED = 2 };

/* refname:refname through git's smart protocol, reporting into rep: through
 * `git receive-pack` on a pipe when receive_pack (a path with hooks), else the
 * transport the URL names. PUSH_REFUSED when the server refused the reference
 * (its words in rep), PUSH_MERGE when the remote has commits this side lacks. */
static int push_smart(vs_store *st, const remote_spec *rs, const char *refname, int receive_pack,
                      const char *hooks, vs_store_push_report *rep, vs_error *err)
{
    git_remote *remote = NULL;
    git_push_options po;
    char spec[600], words[1400];
    char *specs[1];
    git_strarray arr;
    int rc = 0;
    snprintf(spec, sizeof spec, "%s:%s", refname, refname);
    specs[0] = spec;
    arr.strings = specs;
    arr.count = 1;
    if ((rc = new_remote(st, rs, &remote, err)) < 0)
        return rc;
    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    vs_store_push_report_init(rep, &po.callbacks);
    vs_store_cred_init(&rep->cred, rs->url, st->path);
    if (receive_pack)
        po.callbacks.transport = vs_store_receive_pack_transport;
    rc = git_remote_push(remote, &arr, &po);
    if (rc == GIT_ENONFASTFORWARD) {
        rc = PUSH_MERGE;
    } else if (rc == 0) {
        rc = *rep->status ? PUSH_REFUSED : PUSH_SENT;
    } else if (*rep->fail) {
        rc = vs_error_set(err, VS_ERECORDS,
                          "remote %s has hooks (%s) that a push must run, but %s; nothing was "
                          "pushed: install git, or push through the server that runs them",
                          rs->url, hooks, rep->fail);
    } else {
        vs_store_push_report_words(rep, words, sizeof words);
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot push to %s (%s)", rs->url, words);
    }
    git_remote_free(remote);
    return rc;
}

/* A repository on this machine. One with hooks is pushed to through `git
 * receive-pack`, as git pushes, so that they run (store_receive.c). One without
 * has its branch moved with a compare-and-swap of our own, because libgit2's
 * local transport writes the remote ref without checking its old value (two
 * racing pushers could both be told "ok"); the objects travel by an ordinary
 * push to a reference of our own. */
static int push_local(vs_store *st, const remote_spec *rs, const char *refname, const git_oid *tip,
                      vs_store_push_report *rep, vs_store_sync *out, vs_error *err)
{
    git_repository *r = NULL;
    git_remote *remote = NULL;
    git_push_options po;
    git_oid rtip;
    char tmpref[200], spec[500], hooks[200];
    char *specs[1];
    git_strarray arr;
    int rc = PUSH_SENT, have, crc;
    struct timeval tv;
    if (git_repository_open_ext(&r, rs->local_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "remote %s is not a repository you can use", rs->url);
        r = NULL;
        goto done;
    }
    if (!git_repository_is_bare(r)) {
        git_reference *h = NULL;
        int checked_out = git_reference_lookup(&h, r, "HEAD") == 0 &&
                          git_reference_type(h) == GIT_REFERENCE_SYMBOLIC &&
                          !strcmp(git_reference_symbolic_target(h), refname);
        git_reference_free(h);
        if (checked_out) {
            rc = vs_error_set(err, VS_ERECORDS,
                              "remote %s has a work tree with %s checked out; pushing there would "
                              "leave its files stale. Push to a bare repository (`git clone --bare "
                              "%s records.git`)",
                              rs->url, refname + 11, rs->url);
            goto done;
        }
    }
    if ((have = vs_store_branch_tip(r, refname, &rtip, err)) < 0) {
        rc = have;
        goto done;
    }
    if (have && !git_oid_equal(&rtip, tip) && git_graph_descendant_of(st->repo, tip, &rtip) != 1) {
        rc = PUSH_MERGE;
        goto done;
    }
    if (have && git_oid_equal(&rtip, tip))
        goto done;
    if (vs_store_receive_hooks(r, hooks, sizeof hooks) > 0) {
        rc = push_smart(st, rs, refname, 1, hooks, rep, err);
        goto done;
    }
    gettimeofday(&tv, NULL);
    snprintf(tmpref, sizeof tmpref, "refs/vramsheet/incoming/%ld-%ld-%d", (long)getpid(),
             (long)tv.tv_sec, (int)tv.tv_usec);
    snprintf(spec, sizeof spec, "+%s:%s", refname, tmpref);
    specs[0] = spec;
    arr.strings = specs;
    arr.count = 1;
    if ((rc = new_remote(st, rs, &remote, err)) < 0)
        goto done;
    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    if (git_remote_push(remote, &arr, &po) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot send the commits to %s", rs->url);
        goto done;
    }
    crc = vs_store_ref_move(r, refname, tip, have ? &rtip : NULL, "vramsheet: push", out->repaired,
                            sizeof out->repaired, err);
    rc = crc < 0 ? crc : crc == 1 ? PUSH_MERGE /* somebody pushed meanwhile */ : PUSH_SENT;
    {
        git_reference *t = NULL;
        if (git_reference_lookup(&t, r, tmpref) == 0)
            git_reference_delete(t);
        git_reference_free(t);
    }
done:
    git_remote_free(remote);
    git_repository_free(r);
    return rc;
}

int vs_store_push(vs_store *st, const char *remote, vs_store_sync *out, vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    remote_spec rs;
    git_oid tip, rtip;
    char words[1400]; /* the server's words at the last refusal */
    int rc, attempt;
    int64_t deadline;
    if (!st->repo)
        return vs_error_set(err, VS_ERECORDS, "nothing to push: records %s do not exist yet",
                            st->path);
    if ((rc = sync_begin(st, remote, out, refname, sizeof refname, &rs, err)) < 0)
        return rc;
    if (!*out->local_before)
        return vs_error_set(err, VS_ERECORDS, "nothing to push: records %s have no commit yet",
                            st->path);
    deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    *words = '\0';
    for (attempt = 1;; attempt++) {
        int need_merge = 0, have;
        vs_store_push_report rep;
        out->attempts = attempt;
        if (vs_store_branch_tip(st->repo, refname, &tip, err) != 1)
            return err && err->code ? err->code : VS_ERECORDS;
        if ((have = remote_tip(st, &rs, refname, &rtip, err)) < 0)
            return have;
        if (have && git_oid_equal(&rtip, &tip)) {
            out->up_to_date = attempt == 1;
            vs_store_hex(out->remote_after, &rtip);
            break;
        }
        rc = rs.local_path[0] ? push_local(st, &rs, refname, &tip, &rep, out, err)
                              : push_smart(st, &rs, refname, 0, "", &rep, err);
        if (rc < 0)
            return rc;
        if (rc == PUSH_REFUSED) {
            git_oid now;
            int had = have;
            /* A reference moved or held by another pusher meanwhile is a race
             * (merge theirs, push again); one still where it was, refused in
             * other words than git's for a race, is the server's policy: stop
             * at once, with its words. */
            vs_store_push_report_words(&rep, words, sizeof words);
            if ((have = remote_tip(st, &rs, refname, &now, err)) < 0)
                return have;
            if (have == had && (!have || git_oid_equal(&now, &rtip)) &&
                !vs_store_push_report_race(&rep)) {
                return vs_error_set(err, VS_ERECORDS,
                                    "%s refused the push of %s: %s. Nothing was pushed and your "
                                    "commits are safe here; this is the server's rule, not a "
                                    "race: `records push` again will be refused the same way "
                                    "until it is met",
                                    rs.url, out->branch, words);
            }
        }
        need_merge = rc != PUSH_SENT;
        if (!need_merge) {
            /* After the fact: the remote branch, read back, must contain our tip. */
            if ((have = remote_tip(st, &rs, refname, &rtip, err)) < 0)
                return have;
            if (have && git_oid_equal(&rtip, &tip)) {
                vs_store_hex(out->remote_after, &rtip);
                break;
            }
            if (have && (have = fetch_branch(st, &rs, refname, &rtip, err)) < 0)
                return have;
            if (have && git_graph_descendant_of(st->repo, &rtip, &tip) == 1) {
                vs_store_hex(out->remote_after, &rtip);
                break;
            }
            /* Lost to a racing pusher: merge what is there and push again. */
        }
        if ((have = fetch_branch(st, &rs, refname, &rtip, err)) < 0)
            return have;
        if (have && (rc = integrate(st, refname, &rtip, rs.url, out, err)) < 0)
            return rc;
        if (attempt >= STORE_PUSH_ATTEMPTS && vs_clock_mono_ms() > deadline)
            return vs_error_set(err, VS_ERECORDS,
                                "the push to %s did not hold after %d attempts (other pushers kept "
                                "moving %s%s%s); your commits are safe here: run `records push` "
                                "again",
                                rs.url, attempt, out->branch,
                                *words ? "; the server last said: " : "", words);
        vs_store_backoff(attempt * 4);
    }
    if (vs_store_branch_tip(st->repo, refname, &tip, err) == 1)
        vs_store_hex(out->local_after, &tip);
    return 0;
}
