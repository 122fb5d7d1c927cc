/* util/redact: credentials out of a recorded command line. Each expected text
 * is written out by hand: the value of a *TOKEN* / *KEY* / *SECRET* /
 * *PASSWORD* / *PASSWD* assignment (any case) and a URL's password become
 * <redacted>, everything else is kept byte for byte. */
#include <check.h>
#include <string.h>

#include "util/redact.h"

#include "check_run.h"

static void expect(const char *command, const char *kept, int count, const char *names)
{
    vs_buf out = VS_BUF_INIT, n = VS_BUF_INIT;
    ck_assert_int_eq(vs_redact_command(&out, &n, command), count);
    ck_assert_msg(!strcmp(vs_buf_str(&out), kept), "%s\n -> %s\n expected %s", command,
                  vs_buf_str(&out), kept);
    ck_assert_str_eq(vs_buf_str(&n), names);
    vs_buf_free(&out);
    vs_buf_free(&n);
}

START_TEST(assignments)
{
    expect("HF_TOKEN=hf_abc python3 serve.py", "HF_TOKEN=<redacted> python3 serve.py", 1,
           "HF_TOKEN");
    expect("env OPENAI_API_KEY=\"sk a\" x=1 python3 s.py --port 8000",
           "env OPENAI_API_KEY=<redacted> x=1 python3 s.py --port 8000", 1, "OPENAI_API_KEY");
    expect("export aws_secret_access_key=abc\\ def; run",
           "export aws_secret_access_key=<redacted>; run", 1, "aws_secret_access_key");
    expect("DB_PASSWORD='p w' PGPASSWD=x psql", "DB_PASSWORD=<redacted> PGPASSWD=<redacted> psql",
           2, "DB_PASSWORD, PGPASSWD");
    /* inside a script given to sh -c: the value ends at the blank or the quote */
    expect("sh -c 'HF_TOKEN=abc python3 x.py'", "sh -c 'HF_TOKEN=<redacted> python3 x.py'", 1,
           "HF_TOKEN");
    expect("sh -c 'HF_TOKEN=abc'", "sh -c 'HF_TOKEN=<redacted>'", 1, "HF_TOKEN");
    expect("a=1;HF_TOKEN=x&&b", "a=1;HF_TOKEN=<redacted>&&b", 1, "HF_TOKEN");
    /* not an assignment: an argument that only holds the word, a long option */
    expect("echo HF_TOKEN is set", "echo HF_TOKEN is set", 0, "");
    expect("python3 x.py --x=HF_TOKEN=1", "python3 x.py --x=HF_TOKEN=1", 0, "");
    expect("LENGTH=4 true", "LENGTH=4 true", 0, "");
    expect("", "", 0, "");
}
END_TEST

START_TEST(urls)
{
    expect("git clone https://user:pw@github.com/x.git",
           "git clone https://user:<redacted>@github.com/x.git", 1, "a URL's password");
    expect("curl 'https://a:b@h/p' https://h/x?a=b@c https://u@h/",
           "curl 'https://a:<redacted>@h/p' "
           "https://h/x?a=b@c https://u@h/",
           1, "a URL's password");
    expect("echo https://example.com/a@b", "echo https://example.com/a@b", 0, "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("redact");
    TCase *tc = tcase_create("redact");
    tcase_add_test(tc, assignments);
    tcase_add_test(tc, urls);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
