/* store_helper — drives src/store/ from separate processes for the multi-process
 * tests in tests/store/ (concurrent writers, kill -9, racing pushers).
 *
 *   store_helper commit REPO ID N        N chained commits to sheet ID (N=0: until
 *                                        killed); prints each commit id
 *   store_helper race REPO ID BLOB       one commit expecting BLOB; exit 0 written,
 *                                        3 refused as a conflict, 1 other error
 *   store_helper blob REPO ID            prints the tip's sheet.json blob id
 *   store_helper pushloop REPO REMOTE ID N   N times: commit to ID, push; prints the
 *                                        ids of the commits a push reported as pushed
 *   store_helper pushonce REPO REMOTE ID GO   pull, commit to ID, touch REPO.ready, wait
 *                                        for the file GO, push; prints the commit
 *   store_helper pull REPO REMOTE        pulls
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

static int commit_one(vs_store *st, const char *id, long i, const char *expected,
                      vs_store_commit_info *info, vs_error *err)
{
    char json[256], md[256], msg[128];
    vs_store_write w;
    snprintf(json, sizeof json, "{\n  \"id\": \"%s\",\n  \"n\": %ld,\n  \"pid\": %ld\n}\n", id, i,
             (long)getpid());
    snprintf(md, sizeof md, "# %s\n\nrevision %ld\n", id, i);
    snprintf(msg, sizeof msg, "%s: revision %ld", id, i);
    memset(&w, 0, sizeof w);
    w.sheet_id = id;
    w.json = json;
    w.json_len = strlen(json);
    w.md = md;
    w.md_len = strlen(md);
    w.message = msg;
    w.expected_blob = expected;
    return vs_store_commit(st, &w, info, err);
}

static int tip_blob(vs_store *st, const char *id, char *out, vs_error *err)
{
    vs_store_blob b;
    int rc = vs_store_read(st, id, NULL, NULL, &b, err);
    out[0] = '\0';
    if (rc == VS_ENOTFOUND)
        return 0;
    if (rc < 0)
        return rc;
    snprintf(out, VS_STORE_HEX, "%s", b.blob);
    vs_store_blob_clear(&b);
    return 0;
}

int main(int argc, char **argv)
{
    vs_store *st = NULL;
    vs_error err;
    vs_store_commit_info info;
    char blob[VS_STORE_HEX] = "";
    int rc = 1;
    long i, n;
    vs_error_clear(&err);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4) {
        fprintf(stderr, "usage: see the comment at the top of store_helper.c\n");
        return 2;
    }
    if (vs_store_open(&st, argv[2], &err) < 0)
        goto fail;
    if (!strcmp(argv[1], "commit")) {
        n = argc > 4 ? atol(argv[4]) : 1;
        if (tip_blob(st, argv[3], blob, &err) < 0)
            goto fail;
        for (i = 1; n == 0 || i <= n; i++) {
            if (commit_one(st, argv[3], i, *blob ? blob : NULL, &info, &err) < 0)
                goto fail;
            if (*info.warning)
                fprintf(stderr, "warning: %s\n", info.warning);
            if (*info.repaired)
                fprintf(stderr, "repaired: %s\n", info.repaired);
            snprintf(blob, sizeof blob, "%s", info.blob);
            printf("%s\n", info.commit);
        }
        rc = 0;
    } else if (!strcmp(argv[1], "race") && argc > 4) {
        rc = commit_one(st, argv[3], 0, *argv[4] ? argv[4] : NULL, &info, &err);
        if (rc == VS_ECONFLICT) {
            vs_store_free(st);
            return 3;
        }
        if (rc < 0)
            goto fail;
        printf("%s\n", info.commit);
        rc = 0;
    } else if (!strcmp(argv[1], "blob")) {
        if (tip_blob(st, argv[3], blob, &err) < 0)
            goto fail;
        printf("%s\n", blob);
        rc = 0;
    } else if (!strcmp(argv[1], "pushloop") && argc > 5) {
        vs_store_sync sync;
        n = atol(argv[5]);
        if (tip_blob(st, argv[4], blob, &err) < 0)
            goto fail;
        for (i = 1; i <= n; i++) {
            if (commit_one(st, argv[4], i, *blob ? blob : NULL, &info, &err) < 0)
                goto fail;
            snprintf(blob, sizeof blob, "%s", info.blob);
            if (vs_store_push(st, argv[3], &sync, &err) < 0)
                goto fail;
            printf("%s\n", info.commit);
        }
        rc = 0;
    } else if (!strcmp(argv[1], "pushonce") && argc > 5) {
        /* commit, say ready, wait for the go file, push: racing pushers start together */
        vs_store_sync sync;
        char ready[1100];
        FILE *f;
        int waited;
        /* both start from the remote's tip, so both pushes are fast-forwards */
        if (vs_store_pull(st, argv[3], &sync, &err) < 0 || tip_blob(st, argv[4], blob, &err) < 0 ||
            commit_one(st, argv[4], (long)getpid(), *blob ? blob : NULL, &info, &err) < 0)
            goto fail;
        snprintf(ready, sizeof ready, "%s.ready", argv[2]);
        if ((f = fopen(ready, "w")))
            fclose(f);
        for (waited = 0; access(argv[5], F_OK) != 0 && waited < 5000; waited++)
            usleep(1000);
        if (vs_store_push(st, argv[3], &sync, &err) < 0)
            goto fail;
        printf("%s\n", info.commit);
        rc = 0;
    } else if (!strcmp(argv[1], "pull")) {
        vs_store_sync sync;
        if (vs_store_pull(st, argv[3], &sync, &err) < 0)
            goto fail;
        rc = 0;
    } else {
        fprintf(stderr, "store_helper: unknown command %s\n", argv[1]);
        rc = 2;
    }
    vs_store_free(st);
    return rc;
fail:
    fprintf(stderr, "store_helper %s: %s (%s)\n", argv[1], err.message, vs_error_ename(err.code));
    vs_store_free(st);
    return 1;
}
