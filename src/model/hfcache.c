#include "model/hfcache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "model/gguf.h"
#include "model/hfhub.h"
#include "model/model.h"
#include "model/safetensors.h"
#include "sheet/sheet_access.h"
#include "util/file.h"

#define SMALL_MAX (64 * 1024 * 1024)

int vs_hfcache_hub_dir(char *out, size_t n, vs_error *err)
{
    const char *v = getenv("HF_HUB_CACHE");
    int k;
    if (v && *v)
        k = snprintf(out, n, "%s", v);
    else if ((v = getenv("HF_HOME")) && *v)
        k = snprintf(out, n, "%s/hub", v);
    else if ((v = getenv("HOME")) && *v)
        k = snprintf(out, n, "%s/.cache/huggingface/hub", v);
    else
        return vs_error_set(err, VS_ENOTFOUND,
                            "no Hugging Face cache: none of HF_HUB_CACHE, HF_HOME, HOME is set");
    if (k < 0 || (size_t)k >= n)
        return vs_error_set(err, VS_EVALUE, "the Hugging Face cache path is too long");
    return 0;
}

int vs_hfcache_is_repo_id(const char *name)
{
    const char *slash = strchr(name, '/'), *p;
    if (!slash || slash == name || !slash[1] || strchr(slash + 1, '/'))
        return 0;
    for (p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.' || *p == '/'))
            return 0;
    return strstr(name, "..") == NULL;
}

static int is_hex40(const char *s, size_t n)
{
    size_t i;
    if (n != 40)
        return 0;
    for (i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return 0;
    return 1;
}

static int exists_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists_file(const char *p)
{
    struct stat st; /* follows the snapshot's symlink to its blob */
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* What a cache entry that is not a file is, in words: NULL when path is a
 * regular file or a link to one, "" when there is nothing there, else "a
 * folder", "a FIFO", "a symlink loop", "a link to a missing blob"... Reading a
 * FIFO would block the kernel until something writes to it. */
static const char *entry_kind(const char *p)
{
    struct stat st;
    if (lstat(p, &st) != 0)
        return "";
    if (stat(p, &st) != 0)
        return errno == ELOOP    ? "a symlink loop"
               : errno == ENOENT ? "a link to a missing blob"
                                 : "a link that cannot be followed";
    if (S_ISREG(st.st_mode))
        return NULL;
    if (S_ISDIR(st.st_mode))
        return "a folder";
    if (S_ISFIFO(st.st_mode))
        return "a FIFO";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    return S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a regular file";
}

/* The commit a ref file holds: 0, or an error naming what is there instead. */
static int read_ref(const char *refpath, const char *repo_id, const char *revision, char *commit,
                    vs_error *err)
{
    const char *kind = entry_kind(refpath);
    char buf[128];
    ssize_t len;
    int fd;
    if (kind && !*kind)
        return vs_error_set(err, VS_ENOTFOUND,
                            "%s is in the cache but has no ref '%s' (no file %s): `huggingface-cli "
                            "download %s config.json --revision %s` fetches that revision",
                            repo_id, revision, refpath, repo_id, revision);
    if (kind)
        return vs_error_set(err, VS_EIO,
                            "%s: the ref '%s' is %s, not a file holding a commit; remove it and "
                            "fetch the revision again (`huggingface-cli download %s config.json "
                            "--revision %s`)",
                            refpath, revision, kind, repo_id, revision);
    if ((fd = vs_file_open_regular(refpath, sizeof buf - 1, NULL, err)) < 0)
        return fd == VS_EFORMAT
                   ? vs_error_set(err, VS_EFORMAT, "%s: does not hold a 40-hex commit", refpath)
                   : fd;
    do {
        len = read(fd, buf, sizeof buf - 1);
    } while (len < 0 && errno == EINTR);
    close(fd);
    if (len < 0)
        return vs_error_set(err, VS_EIO, "cannot read %s: %s", refpath, strerror(errno));
    buf[len] = '\0';
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    if (!is_hex40(buf, (size_t)len))
        return vs_error_set(err, VS_EFORMAT, "%s: does not hold a 40-hex commit", refpath);
    memcpy(commit, buf, 41);
    return 0;
}

int vs_hfcache_find(vs_hf_snapshot *s, const char *repo_id, const char *revision, vs_error *err)
{
    const char *slash = strchr(repo_id, '/');
    char refpath[VS_HF_PATH_MAX + 300];
    int rc;
    /* every field is a text written whole below: empty ones are what a caller
     * finds after a failure (zeroing the 12 KiB of paths each time was a
     * quarter of a `model` line's cost, twice a line) */
    s->hub[0] = s->repo_dir[0] = s->path[0] = s->commit[0] = s->ref[0] = '\0';
    if (!vs_hfcache_is_repo_id(repo_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a Hugging Face repository id (ORG/NAME)",
                            repo_id);
    if ((rc = vs_hfcache_hub_dir(s->hub, sizeof s->hub, err)))
        return rc;
    if (!revision)
        revision = "main";
    if (strlen(revision) >= sizeof s->ref || strstr(revision, "..") || revision[0] == '/')
        return vs_error_set(err, VS_EVALUE, "revision '%s' is not a branch, tag or commit",
                            revision);
    snprintf(s->ref, sizeof s->ref, "%s", revision);
    if ((size_t)snprintf(s->repo_dir, sizeof s->repo_dir, "%s/models--%.*s--%s", s->hub,
                         (int)(slash - repo_id), repo_id, slash + 1) >= sizeof s->repo_dir)
        return vs_error_set(err, VS_EVALUE, "the cache path is too long");
    if (!exists_dir(s->repo_dir))
        return vs_error_set(err, VS_ENOTFOUND,
                            "%s is not in the local Hugging Face cache (no folder %s); nothing is "
                            "downloaded: `huggingface-cli download %s config.json "
                            "model.safetensors.index.json%s%s` fetches its config and index "
                            "(then the shards the index names; from a GGUF repository, the .gguf "
                            "file) into %s/snapshots/<commit>/, or give config=PATH",
                            repo_id, s->repo_dir, repo_id,
                            strcmp(revision, "main") ? " --revision " : "",
                            strcmp(revision, "main") ? revision : "", s->repo_dir);
    if (is_hex40(revision, strlen(revision))) {
        memcpy(s->commit, revision, 41);
    } else {
        snprintf(refpath, sizeof refpath, "%s/refs/%s", s->repo_dir, revision);
        if ((rc = read_ref(refpath, repo_id, revision, s->commit, err)))
            return rc;
    }
    if ((size_t)snprintf(s->path, sizeof s->path, "%s/snapshots/%s", s->repo_dir, s->commit) >=
        sizeof s->path)
        return vs_error_set(err, VS_EVALUE, "the cache path is too long");
    if (!exists_dir(s->path))
        return vs_error_set(err, VS_ENOTFOUND,
                            "%s: revision %s (commit %s) has no snapshot in the cache (no folder "
                            "%s): `huggingface-cli download %s config.json --revision %s` fetches "
                            "it there",
                            repo_id, revision, s->commit, s->path, repo_id, s->commit);
    return 0;
}

int vs_hfcache_file(const vs_hf_snapshot *s, const char *repo_id, const char *name, char *out,
                    size_t n, vs_error *err)
{
    const char *kind;
    if ((size_t)snprintf(out, n, "%s/%s", s->path, name) >= n)
        return vs_error_set(err, VS_EVALUE, "the cache path is too long");
    if (!(kind = entry_kind(out)))
        return 0;
    if (*kind && strcmp(kind, "a link to a missing blob"))
        return vs_error_set(err, VS_EIO,
                            "%s at %s: %s in the snapshot is %s, not a file; remove it and "
                            "fetch it again (`huggingface-cli download %s %s --revision %s`)",
                            repo_id, s->commit, out, kind, repo_id, name, s->commit);
    return vs_error_set(err, VS_ENOTFOUND,
                        "%s at %s: the snapshot has no %s (%s%s%s): `huggingface-cli download %s "
                        "%s --revision %s` puts it there",
                        repo_id, s->commit, name, out, *kind ? ", " : "", kind, repo_id, name,
                        s->commit);
}

/* A small file's text: 0, VS_EIO when it cannot be opened (missing, not a
 * plain file, too large), or VS_ENOMEM. */
static int read_text(const char *path, char **out, size_t *len)
{
    uint64_t size = 0;
    ssize_t r;
    size_t got = 0;
    int fd = vs_file_open_regular(path, SMALL_MAX, &size, NULL);
    if (fd < 0)
        return VS_EIO;
    if (!(*out = malloc((size_t)size + 1))) {
        close(fd);
        return VS_ENOMEM;
    }
    while (got < size && (r = read(fd, *out + got, (size_t)size - got)) > 0)
        got += (size_t)r;
    close(fd);
    (*out)[got] = '\0';
    *len = got;
    return 0;
}

/* 0 when every shard the index names is in the snapshot; VS_ENOTFOUND naming
 * the missing ones and the command that fetches them otherwise. */
static int missing_shards(const vs_hf_snapshot *s, const char *repo_id, const char *index_path,
                          vs_error *err)
{
    char *text = NULL, *missing = NULL;
    size_t len = 0, i, nmissing = 0, cap = 0, used = 0;
    vs_st_index *ix = NULL;
    int rc;
    if ((rc = read_text(index_path, &text, &len)))
        return rc == VS_ENOMEM ? vs_error_oom(err)
                               : vs_error_set(err, VS_EIO, "cannot read %s", index_path);
    rc = vs_st_index_parse(&ix, index_path, text, len, err);
    free(text);
    if (rc)
        return rc;
    for (i = 0; i < ix->nshards; i++) {
        char sp[VS_HF_PATH_MAX + 300];
        size_t k = strlen(ix->shards[i]) + 2;
        snprintf(sp, sizeof sp, "%s/%s", s->path, ix->shards[i]);
        if (exists_file(sp))
            continue;
        if (used + k + 1 > cap) {
            char *g;
            cap = (used + k + 1) * 2;
            if (!(g = realloc(missing, cap))) {
                free(missing);
                vs_st_index_free(ix);
                return vs_error_set(err, VS_ENOMEM, "out of memory");
            }
            missing = g;
        }
        used += (size_t)snprintf(missing + used, cap - used, " %s", ix->shards[i]);
        nmissing++;
    }
    rc = 0;
    if (nmissing)
        rc = vs_error_set(err, VS_ENOTFOUND,
                          "%s at %s: %zu of the %zu shards model.safetensors.index.json names "
                          "are not in the snapshot %s: `huggingface-cli download %s%s "
                          "--revision %s` puts them there",
                          repo_id, s->commit, nmissing, ix->nshards, s->path, repo_id,
                          nmissing <= 8 ? missing : " --include \"*.safetensors\"", s->commit);
    free(missing);
    vs_st_index_free(ix);
    return rc;
}

/* The weights file of the snapshot, its shards not yet checked. */
static int locate_weights(const vs_hf_snapshot *s, const char *repo_id, char *out, size_t n,
                          vs_error *err)
{
    char p[VS_HF_PATH_MAX + 300];
    DIR *d;
    struct dirent *e;
    char gguf[512] = "";
    int ngguf = 0;
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", s->path);
    if (exists_file(p)) {
        snprintf(out, n, "%s", p);
        return 0;
    }
    snprintf(p, sizeof p, "%s/model.safetensors", s->path);
    if (exists_file(p)) {
        snprintf(out, n, "%s", p);
        return 0;
    }
    if ((d = opendir(s->path))) {
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            unsigned no, count;
            size_t plen;
            if (l < 5 || strcmp(e->d_name + l - 5, ".gguf"))
                continue;
            if (vs_gguf_split_name(e->d_name, &no, &count, &plen) && no != 1)
                continue;
            ngguf++;
            if (!gguf[0] || strcmp(e->d_name, gguf) < 0)
                snprintf(gguf, sizeof gguf, "%s", e->d_name);
        }
        closedir(d);
    }
    if (ngguf == 1) {
        snprintf(out, n, "%s/%s", s->path, gguf);
        return 0;
    }
    if (ngguf > 1)
        return vs_error_set(err, VS_EVALUE,
                            "%s at %s: the snapshot holds %d GGUF files; name one with "
                            "`weights from=%s/FILE.gguf`",
                            repo_id, s->commit, ngguf, s->path);
    return vs_error_set(err, VS_ENOTFOUND,
                        "%s at %s: the snapshot %s holds no weights files: `huggingface-cli "
                        "download %s model.safetensors.index.json --revision %s` fetches the "
                        "index (then the shards it names; a one-file checkpoint is "
                        "model.safetensors, a GGUF repository's files end in .gguf) into it",
                        repo_id, s->commit, s->path, repo_id, s->commit);
}

static int is_index(const char *p)
{
    size_t n = strlen(p);
    return n >= 5 && !strcmp(p + n - 5, ".json");
}

int vs_hfcache_weights(const vs_hf_snapshot *s, const char *repo_id, char *out, size_t n,
                       vs_error *err)
{
    int rc = locate_weights(s, repo_id, out, n, err);
    if (rc == 0 && is_index(out))
        rc = missing_shards(s, repo_id, out, err);
    return rc;
}

static int has_gguf(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    if (!d)
        return 0;
    while (!found && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        found = l > 5 && !strcmp(e->d_name + l - 5, ".gguf");
    }
    closedir(d);
    return found;
}

/* huggingface_hub's mark of a file the Hub does not have at that commit:
 * <repo>/.no_exist/<commit>/config.json */
static int no_config(const vs_hf_snapshot *s)
{
    char p[VS_HF_PATH_MAX + 200];
    struct stat st;
    snprintf(p, sizeof p, "%s/.no_exist/%s/config.json", s->repo_dir, s->commit);
    return lstat(p, &st) == 0;
}

/* Not in the cache: the Hub's config.json, when the network is allowed. 0
 * when fetched, 1 for a repository without one (GGUF); else the cache's
 * message e gets why not (a negative code). */
static int from_hub(const char *repo_id, const char *revision, const vs_hub_progress *p,
                    vs_hub_stats *st, vs_error *e)
{
    char why[VS_ERROR_MESSAGE_MAX], commit[41];
    vs_error he;
    int rc;
    vs_error_clear(&he);
    if (!vs_hfhub_can_fetch(p, why, sizeof why))
        rc = vs_error_set(&he, VS_EIO, "%s", why);
    else if ((rc = vs_hfhub_fetch_config(repo_id, revision, commit, p, st, &he)) >= 0)
        return rc;
    if (rc == VS_ENOMEM)
        return vs_error_oom(e);
    snprintf(why, sizeof why, "%s", he.message);
    vs_error_prefix(e, "%s; ", why);
    return rc;
}

int vs_hfcache_model_config(const char *repo_id, const char *revision, char **config_path,
                            char **commit, char **note, const vs_hub_progress *p, vs_hub_stats *st,
                            vs_error *err)
{
    vs_hf_snapshot *s = malloc(sizeof *s);
    char *cfg = malloc(VS_HF_PATH_MAX + 300);
    vs_error e;
    int rc, found, hub = -1;
    *config_path = *commit = *note = NULL;
    if (!s || !cfg) {
        free(s);
        free(cfg);
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    vs_error_clear(&e);
    rc = vs_hfcache_find(s, repo_id, revision, &e);
    found = rc == 0;
    if (found)
        rc = vs_hfcache_file(s, repo_id, "config.json", cfg, VS_HF_PATH_MAX + 300, &e);
    if (found && rc == VS_ENOTFOUND && no_config(s))
        hub = 1; /* the Hub said before: a repository without config.json */
    else if (rc == VS_ENOTFOUND && !(found && has_gguf(s->path))) {
        if ((hub = from_hub(repo_id, revision, p, st, &e)) == VS_ENOMEM) {
            rc = hub;
        } else if (hub >= 0) { /* fetched: read as if it had been there */
            vs_error_clear(&e);
            rc = vs_hfcache_find(s, repo_id, revision, &e);
            found = rc == 0;
            if (found)
                rc = vs_hfcache_file(s, repo_id, "config.json", cfg, VS_HF_PATH_MAX + 300, &e);
        }
    }
    if (found && !(*commit = strdup(s->commit)))
        rc = vs_error_set(&e, VS_ENOMEM, "out of memory");
    if (rc == 0) {
        *config_path = cfg;
        cfg = NULL;
    } else if (rc == VS_ENOTFOUND && found && (hub == 1 || has_gguf(s->path))) {
        /* a GGUF repository has no config.json: its files carry the metadata */
        char msg[VS_ERROR_MESSAGE_MAX];
        if (hub == 1)
            snprintf(msg, sizeof msg,
                     "%s at %s: the repository has no config.json (a GGUF repository's files "
                     "carry the metadata); `weights` reads its weights files' headers from the "
                     "Hub, with range requests",
                     repo_id, s->commit);
        else
            snprintf(msg, sizeof msg,
                     "%s at %s: the snapshot has no config.json but holds GGUF files; `weights` "
                     "reads their headers (the tensors, the file type and the architecture's "
                     "metadata)",
                     repo_id, s->commit);
        rc = (*note = strdup(msg)) ? 0 : vs_error_set(err, VS_ENOMEM, "out of memory");
    } else if (rc == VS_ENOTFOUND) {
        rc = (*note = strdup(e.message)) ? 0 : vs_error_set(err, VS_ENOMEM, "out of memory");
    } else if (err) {
        *err = e;
    }
    if (rc) {
        free(*config_path);
        free(*commit);
        *config_path = *commit = NULL;
    }
    free(cfg);
    free(s);
    return rc;
}

/* The weights' headers the Hub gave (or gives now) into the sheet: 0; 1 when
 * the Hub cannot be asked (offline, no libcurl) and nothing was read before,
 * with why in e; a negative code otherwise. */
static int hub_weights(json_t *sheet, const char *model, const char *commit, const char *file,
                       char *path, json_t **payload, const vs_hub_progress *p, vs_hub_stats *st,
                       vs_error *e)
{
    vs_hub_stats mine;
    int rc;
    memset(&mine, 0, sizeof mine);
    rc = vs_hfhub_headers(model, commit, file, path, VS_HF_PATH_MAX + 300, p, &mine, e);
    if (rc == VS_EIO && !mine.requests && !vs_hfhub_can_fetch(p, e->message, sizeof e->message))
        return 1;
    if (rc == 0)
        rc = vs_model_apply_weights_files(sheet, path, 0, payload, e);
    if (rc == 0)
        rc = vs_hfhub_annotate(sheet, *payload, path, e);
    if (rc == 0 && mine.requests &&
        json_object_set_new(*payload, "hub",
                            json_pack("{s:I, s:I, s:I}", "bytes", (json_int_t)mine.bytes,
                                      "requests", (json_int_t)mine.requests, "files",
                                      (json_int_t)mine.files)))
        rc = vs_error_oom(e);
    if (st) {
        st->bytes += mine.bytes;
        st->requests += mine.requests;
        st->files += mine.files;
        st->ms += mine.ms;
    }
    return rc;
}

int vs_hfcache_card_weights(json_t *sheet, const char *file, json_t **payload,
                            const vs_hub_progress *p, vs_hub_stats *st, vs_error *err)
{
    const json_t *card = vs_sheet_get(sheet, VS_SK_CARD);
    const char *model = json_string_value(vs_sheet_card_field(card, VS_CK_MODEL));
    const char *rev = json_string_value(vs_sheet_card_field(card, VS_CK_REVISION));
    char *path = NULL;
    vs_hf_snapshot *s;
    vs_error e, he;
    int rc, found;
    *payload = NULL;
    /* a card naming a repository at a commit whose snapshot is in the cache */
    if (!model || !rev || !vs_hfcache_is_repo_id(model) || !is_hex40(rev, strlen(rev)))
        return 1;
    if (!(s = malloc(sizeof *s)) || !(path = malloc(VS_HF_PATH_MAX + 300))) {
        free(s);
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    vs_error_clear(&e);
    found = vs_hfcache_find(s, model, rev, &e) == 0;
    if (found && file) /* the file named, when the snapshot has it */
        rc = vs_hfcache_file(s, model, file, path, VS_HF_PATH_MAX + 300, &e);
    else
        rc = found ? locate_weights(s, model, path, VS_HF_PATH_MAX + 300, &e) : 1;
    if (rc == 0) {
        rc = vs_model_apply_weights_files(sheet, path, 0, payload, &e);
        /* a shard missing: say which to fetch (checked only then: the index is
         * read once on the way that works) */
        if (rc == VS_EFORMAT && is_index(path)) {
            vs_error he2;
            vs_error_clear(&he2);
            if (missing_shards(s, model, path, &he2) == VS_ENOTFOUND) {
                e = he2;
                rc = VS_ENOTFOUND;
            }
        }
    }
    if (rc == 1 || rc == VS_ENOTFOUND) {
        /* not all in the snapshot: the headers from the Hub */
        int hrc;
        vs_error_clear(&he);
        json_decref(*payload);
        *payload = NULL;
        hrc = hub_weights(sheet, model, rev, file, path, payload, p, st, &he);
        if (hrc == 0 || (hrc < 0 && rc == 1) || (hrc < 0 && hrc != VS_EIO)) {
            rc = hrc;
            e = he;
        } else if (rc == VS_ENOTFOUND) { /* the cache's words, and why the Hub did not help */
            char why[VS_ERROR_MESSAGE_MAX];
            snprintf(why, sizeof why, "%s", he.message);
            vs_error_prefix(&e, "%s; ", why);
        }
    }
    if (rc < 0 && err)
        *err = e;
    free(path);
    free(s);
    return rc;
}
