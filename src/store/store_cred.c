/* store_cred.c — the credential a remote over http(s) asks for.
 *
 * libgit2 asks its credential callback when the server answers 401, and asks
 * again each time the credential given is refused (src/libgit2/transports/
 * http.c, 1.5, up to its replay limit). The credential comes from the
 * environment (VRAMSHEET_RECORDS_TOKEN, with VRAMSHEET_RECORDS_USER), else
 * from the person's git credential helper through `git credential fill` (the
 * protocol of git-credential(1): protocol, host, path on stdin; username and
 * password back), run in the records repository so that its credential.*
 * settings apply, with terminal prompts off so that a kernel never waits on a
 * terminal nobody sees. A credential is given once per connection: asked
 * again, the server refused it, and that is said instead of replaying it.
 *
 * The secret is held only in libgit2's credential object and in buffers wiped
 * after use; it is never put in a message. A URL with user:password@ in it is
 * refused (shown redacted), so no password reaches a config, a merge
 * message or an error. */
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/redact.h"

extern char **environ;

#define CRED_TOKEN_VAR "VRAMSHEET_RECORDS_TOKEN"
#define CRED_USER_VAR "VRAMSHEET_RECORDS_USER"

static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n--)
        *v++ = 0;
}

void vs_store_cred_init(vs_store_cred *c, const char *url, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->url = url;
    c->dir = dir;
}

int vs_store_cred_url_check(const char *url, vs_error *err)
{
    vs_buf shown = VS_BUF_INIT;
    const char *s = strstr(url, "://");
    int rc = 0;
    /* only a URL's own user:password@ (before the first '/' after the scheme) */
    if (!s || vs_redact_command(&shown, NULL, url) == 0 || !strchr(s + 3, '@') ||
        (strchr(s + 3, '/') && strchr(s + 3, '/') < strchr(s + 3, '@'))) {
        vs_buf_free(&shown);
        return 0;
    }
    rc = vs_error_set(err, VS_ERECORDS,
                      "remote %s has a password in its URL, which would be kept in configs and "
                      "shown in messages, so it is not used: give the URL without it (a user "
                      "name alone is fine) and the credential through the " CRED_TOKEN_VAR
                      " environment variable (with " CRED_USER_VAR
                      ") or your git credential helper (`help records`)",
                      vs_buf_failed(&shown) ? "(not shown)" : vs_buf_str(&shown));
    vs_buf_free(&shown);
    return rc;
}

/* The request of git-credential(1) for url: protocol, host[:port], path
 * (without its leading '/'), and the user name when the URL has one. */
static int fill_request(const char *url, const char *user, char *out, size_t len)
{
    const char *s = strstr(url, "://"), *h, *slash, *at;
    if (!s)
        return -1;
    h = s + 3;
    slash = strchr(h, '/');
    at = strchr(h, '@');
    if (at && (!slash || at < slash))
        h = at + 1;
    if (!slash)
        slash = h + strlen(h);
    snprintf(out, len, "protocol=%.*s\nhost=%.*s\npath=%s\n%s%s%s\n", (int)(s - url), url,
             (int)(slash - h), h, *slash ? slash + 1 : "", user ? "username=" : "",
             user ? user : "", user ? "\n" : "");
    return 0;
}

/* Variables that would point git at another repository than the records. */
static int foreign_var(const char *kv)
{
    static const char *const vars[] = {"GIT_DIR=", "GIT_WORK_TREE=", "GIT_TERMINAL_PROMPT=",
                                       "GIT_CONFIG_PARAMETERS=", "GIT_INDEX_FILE="};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof *vars; i++)
        if (!strncmp(kv, vars[i], strlen(vars[i])))
            return 1;
    return 0;
}

/* The last line git printed on stderr, control characters as '?'. */
static void last_line(const char *s, size_t n, char *out, size_t len)
{
    size_t end = n, start, k = 0;
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' '))
        end--;
    start = end;
    while (start > 0 && s[start - 1] != '\n')
        start--;
    for (; start < end && k + 1 < len; start++)
        out[k++] = (unsigned char)s[start] < 0x20 ? '?' : s[start];
    out[k] = '\0';
}

/* Runs `git -C DIR credential fill` with the request; user and pass filled
 * from its answer. 0, or -1 with c->why set. */
static int credential_fill(vs_store_cred *c, const char *request, char *user, size_t ulen,
                           char *pass, size_t plen)
{
    int to[2] = {-1, -1}, from[2] = {-1, -1}, errfd = -1, rc = -1, status = 0;
    char errname[] = "/tmp/vramsheet-credential-XXXXXX", said[300] = "";
    char *argv[6], **envp = NULL, buf[4096];
    size_t n = 0, i, k = 0, got = 0;
    ssize_t r;
    pid_t pid = 0;
    posix_spawn_file_actions_t fa;
    while (environ && environ[n])
        n++;
    if (!(envp = calloc(n + 2, sizeof *envp))) {
        snprintf(c->why, sizeof c->why, "out of memory");
        return -1;
    }
    for (i = 0; i < n; i++)
        if (!foreign_var(environ[i]))
            envp[k++] = environ[i];
    envp[k++] = "GIT_TERMINAL_PROMPT=0";
    if ((errfd = mkstemp(errname)) < 0 || pipe(to) != 0 || pipe(from) != 0) {
        snprintf(c->why, sizeof c->why, "git credential fill could not be started: %s",
                 strerror(errno));
        goto done;
    }
    unlink(errname);
    fcntl(errfd, F_SETFD, FD_CLOEXEC);
    for (i = 0; i < 2; i++) {
        fcntl(to[i], F_SETFD, FD_CLOEXEC);
        fcntl(from[i], F_SETFD, FD_CLOEXEC);
    }
    argv[0] = "git";
    argv[1] = "-C";
    argv[2] = (char *)c->dir;
    argv[3] = "credential";
    argv[4] = "fill";
    argv[5] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    errno = posix_spawnp(&pid, "git", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (errno != 0) {
        pid = 0;
        snprintf(c->why, sizeof c->why,
                 "git could not be started to ask its credential helper (%s)", strerror(errno));
        goto done;
    }
    close(to[0]);
    close(from[1]);
    to[0] = from[1] = -1;
    /* the request is a few hundred bytes: it fits the pipe, no deadlock */
    if (write(to[1], request, strlen(request)) != (ssize_t)strlen(request)) {
        snprintf(c->why, sizeof c->why, "cannot write to git credential fill: %s", strerror(errno));
        goto done;
    }
    close(to[1]);
    to[1] = -1;
    while (got + 1 < sizeof buf &&
           ((r = read(from[0], buf + got, sizeof buf - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0)
            got += (size_t)r;
    buf[got] = '\0';
    close(from[0]);
    from[0] = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    pid = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char eb[2048];
        ssize_t en = pread(errfd, eb, sizeof eb, 0);
        last_line(eb, en > 0 ? (size_t)en : 0, said, sizeof said);
        snprintf(c->why, sizeof c->why, "git credential fill found none%s%s%s",
                 *said ? " (it said: " : "", said, *said ? ")" : "");
        goto done;
    }
    *user = *pass = '\0';
    {
        char *line = buf, *nl;
        for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
            nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            if (!strncmp(line, "username=", 9))
                snprintf(user, ulen, "%s", line + 9);
            else if (!strncmp(line, "password=", 9))
                snprintf(pass, plen, "%s", line + 9);
            if (!nl)
                break;
        }
    }
    if (!*pass) {
        snprintf(c->why, sizeof c->why, "git credential fill gave no password");
        goto done;
    }
    rc = 0;
done:
    wipe(buf, sizeof buf);
    for (i = 0; i < 2; i++) {
        if (to[i] >= 0)
            close(to[i]);
        if (from[i] >= 0)
            close(from[i]);
    }
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    if (errfd >= 0)
        close(errfd);
    free(envp);
    return rc;
}

int vs_store_cred_acquire(git_credential **out, const char *url, const char *user_from_url,
                          unsigned int allowed, vs_store_cred *c)
{
    char user[256] = "", pass[1024] = "", request[1400];
    const char *tok = getenv(CRED_TOKEN_VAR), *u = getenv(CRED_USER_VAR);
    int rc;
    (void)url; /* the request's URL; the remote's own, as git gives it, is c->url */
    if (!(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
        return GIT_PASSTHROUGH;
    if (c->given) {
        snprintf(c->why, sizeof c->why,
                 "the server refused the credential from %s (user %s) and it is not tried "
                 "again: check it (%s)",
                 c->from, c->user,
                 !strcmp(c->from, CRED_TOKEN_VAR) ? "a token set in " CRED_TOKEN_VAR
                                                    " is used before any git credential helper"
                                                  : "`git credential reject` forgets a stored one");
        git_error_set_str(GIT_ERROR_NET, c->why);
        return GIT_EAUTH;
    }
    if (tok && *tok) {
        snprintf(user, sizeof user, "%s",
                 u && *u                           ? u
                 : user_from_url && *user_from_url ? user_from_url
                                                   : "vramsheet");
        snprintf(c->from, sizeof c->from, "%s", CRED_TOKEN_VAR);
        rc = git_credential_userpass_plaintext_new(out, user, tok);
    } else {
        if (fill_request(c->url ? c->url : url,
                         u && *u                           ? u
                         : user_from_url && *user_from_url ? user_from_url
                                                           : NULL,
                         request, sizeof request) < 0 ||
            credential_fill(c, request, user, sizeof user, pass, sizeof pass) < 0) {
            char why[400];
            snprintf(why, sizeof why, "%.399s", *c->why ? c->why : "the URL cannot be read");
            snprintf(c->why, sizeof c->why,
                     "the server asks for a credential and none was found: set " CRED_TOKEN_VAR
                     " (and " CRED_USER_VAR "), or store one with your git credential helper; %s",
                     why);
            git_error_set_str(GIT_ERROR_NET, c->why);
            wipe(pass, sizeof pass);
            return GIT_EAUTH;
        }
        snprintf(c->from, sizeof c->from, "your git credential helper");
        rc = git_credential_userpass_plaintext_new(out, user, pass);
    }
    wipe(pass, sizeof pass);
    snprintf(c->user, sizeof c->user, "%s", user);
    c->given = 1;
    return rc;
}

int vs_store_cred_cb(git_credential **out, const char *url, const char *user_from_url,
                     unsigned int allowed, void *payload)
{
    return vs_store_cred_acquire(out, url, user_from_url, allowed, payload);
}
