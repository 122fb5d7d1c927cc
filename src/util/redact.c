/* Credentials out of a recorded command line (redact.h). The scan reads shell
 * words as /bin/sh would split them (quotes, backslashes), enough to find where
 * an assignment's value ends; it does not run or expand anything. */
#include "util/redact.h"

#include <ctype.h>
#include <string.h>

/* Parts of a name that mark a credential (compared without case). */
static const char *const secret_parts[] = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", NULL};

static int has_part(const char *name, size_t n)
{
    size_t i, j, k;
    for (k = 0; secret_parts[k]; k++) {
        size_t m = strlen(secret_parts[k]);
        for (i = 0; i + m <= n; i++) {
            for (j = 0; j < m && toupper((unsigned char)name[i + j]) == secret_parts[k][j]; j++)
                ;
            if (j == m)
                return 1;
        }
    }
    return 0;
}

/* Where the shell word starting at s ends: unquoted blank or operator. */
static const char *word_end(const char *s)
{
    while (*s && !strchr(" \t\n;&|()<>`", *s)) {
        if (*s == '\\' && s[1]) {
            s += 2;
        } else if (*s == '\'') {
            const char *q = strchr(s + 1, '\'');
            s = q ? q + 1 : s + strlen(s);
        } else if (*s == '"') {
            s++;
            while (*s && *s != '"')
                s += *s == '\\' && s[1] ? 2 : 1;
            if (*s)
                s++;
        } else {
            s++;
        }
    }
    return s;
}

static void add_name(vs_buf *names, const char *name, size_t n)
{
    if (!names)
        return;
    if (names->len)
        vs_buf_puts(names, ", ");
    vs_buf_append(names, name, n);
}

/* At p, the start of a word: NAME=VALUE with a credential's NAME? Sets *value
 * to VALUE's start. */
static int secret_assignment(const char *p, const char **value, size_t *name_len)
{
    const char *q = p;
    if (!(isalpha((unsigned char)*q) || *q == '_'))
        return 0;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    if (*q != '=' || !has_part(p, (size_t)(q - p)))
        return 0;
    *name_len = (size_t)(q - p);
    *value = q + 1;
    return 1;
}

/* At p, "://": the end of the password of user:password@ that follows, or
 * NULL. *pw the password's start. */
static const char *url_password(const char *p, const char **pw)
{
    const char *q = p + 3, *colon = NULL;
    for (; *q && !strchr(" \t\n'\"/?#@;&|()<>`", *q); q++)
        if (*q == ':' && !colon)
            colon = q;
    if (*q != '@' || !colon || colon + 1 == q)
        return NULL;
    *pw = colon + 1;
    return q;
}

/* Inside quotes (a script given to sh -c '...'), a value ends at a blank,
 * an operator or the closing quote. */
static const char *quoted_value_end(const char *s, char quote)
{
    while (*s && *s != quote && !strchr(" \t\n;&|()<>`", *s))
        s += *s == '\\' && s[1] && quote == '"' ? 2 : 1;
    return s;
}

int vs_redact_command(vs_buf *out, vs_buf *names, const char *command)
{
    static const char url_pw[] = "a URL's password";
    const char *p = command;
    int count = 0, word_start = 1;
    char quote = 0; /* the quote we are inside, or 0 */
    while (*p) {
        const char *value, *end, *pw;
        size_t n;
        if (word_start && secret_assignment(p, &value, &n)) {
            vs_buf_append(out, p, (size_t)(value - p));
            end = quote ? quoted_value_end(value, quote) : word_end(value);
            vs_buf_puts(out, VS_REDACTED);
            add_name(names, p, n);
            count++;
            p = end;
            word_start = 0;
            continue;
        }
        word_start = 0;
        if (p[0] == ':' && p[1] == '/' && p[2] == '/' && (end = url_password(p, &pw))) {
            vs_buf_append(out, p, (size_t)(pw - p));
            vs_buf_puts(out, VS_REDACTED);
            add_name(names, url_pw, sizeof url_pw - 1);
            count++;
            p = end;
            continue;
        }
        if (*p == '\\' && p[1] && quote != '\'') {
            vs_buf_append(out, p, 2);
            p += 2;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            if (!quote)
                quote = *p;
            else if (quote == *p)
                quote = 0;
        }
        word_start = strchr(" \t\n;&|()`'\"", *p) != NULL;
        vs_buf_putc(out, *p++);
    }
    return count;
}
