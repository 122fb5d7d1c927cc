/* net/http: an origin that could not be reached is not asked again for a while
 * (the same failure given at once), until it is forgotten or answers.
 *
 * The origin is 127.0.0.1 on a port nothing listens on: the connection is
 * refused. Then a listener opens on that port: a request that still fails with
 * the refusal's words was not made, which is what the memo is for. Needs
 * libcurl (Debian's libcurl4, installed by .ci/deps). */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/http.h"

#include "check_run.h"

/* A port on the loopback that was free a moment ago, and nothing listens on. */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t n = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    ck_assert_int_ge(fd, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &n), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int listen_on(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    ck_assert_int_ge(fd, 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_msg(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "port %d taken meanwhile", port);
    ck_assert_int_eq(listen(fd, 4), 0);
    return fd;
}

/* answers every connection with a 200 and "ok" until the listener closes */
static void *serve(void *arg)
{
    int lfd = *(int *)arg, c;
    static const char answer[] =
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    while ((c = accept(lfd, NULL, NULL)) >= 0) {
        char req[2048];
        ssize_t got = read(c, req, sizeof req);
        (void)got;
        if (write(c, answer, sizeof answer - 1) < 0)
            perror("write");
        close(c);
    }
    return NULL;
}

START_TEST(test_unreachable_origin_is_not_asked_again)
{
    char why[256], url[128], first[VS_ERROR_MESSAGE_MAX], expect[VS_ERROR_MESSAGE_MAX];
    const char *words;
    vs_http *h = NULL;
    vs_http_opts o;
    vs_http_resp r;
    vs_error err;
    pthread_t t;
    int port = free_port(), lfd;
    ck_assert_msg(vs_http_available(why, sizeof why), "libcurl cannot be loaded: %s", why);
    memset(&o, 0, sizeof o);
    o.connect_timeout_s = 5;
    o.stall_timeout_s = 5;
    vs_error_clear(&err);
    ck_assert_int_eq(vs_http_open(&h, &o, &err), 0);

    /* refused: curl's words, one request */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/a", port);
    ck_assert_int_eq(vs_http_get(h, url, 0, 0, 1024, &r, &err), VS_EIO);
    snprintf(first, sizeof first, "%s", err.message);
    snprintf(expect, sizeof expect, "cannot read %s: ", url);
    ck_assert_msg(!strncmp(first, expect, strlen(expect)), "%s", first);
    words = first + strlen(expect);
    ck_assert_msg(*words, "no words from curl: %s", first);
    ck_assert_uint_eq(vs_http_requests(h), 1);

    /* the origin now listens, but is not asked: the same words, for the URL asked */
    lfd = listen_on(port);
    ck_assert_int_eq(pthread_create(&t, NULL, serve, &lfd), 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/b", port);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_http_get(h, url, 0, 0, 1024, &r, &err), VS_EIO);
    snprintf(expect, sizeof expect, "cannot read %s: %s", url, words);
    ck_assert_str_eq(err.message, expect);
    ck_assert_uint_eq(vs_http_requests(h), 2); /* counted as asked */

    /* forgotten: asked again, and answered */
    vs_http_forget_unreachable();
    vs_error_clear(&err);
    ck_assert_msg(vs_http_get(h, url, 0, 0, 1024, &r, &err) == 0, "%s", err.message);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, 2);
    ck_assert_mem_eq(r.body, "ok", 2);
    vs_http_resp_clear(&r);

    /* an origin that answered is asked every time */
    vs_error_clear(&err);
    ck_assert_msg(vs_http_get(h, url, 0, 0, 1024, &r, &err) == 0, "%s", err.message);
    ck_assert_int_eq(r.status, 200);
    vs_http_resp_clear(&r);

    shutdown(lfd, SHUT_RDWR);
    close(lfd);
    pthread_join(t, NULL);
    vs_http_free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_unreachable_origin_is_not_asked_again);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
