/* `vramsheet probe` (src/measure/probe_cli.c): its JSON lines, rank and host,
 * exit status, usage, no driver; and `measure import` of what it wrote; a
 * credential in the command kept out of the file. */
#include "../measure/measure_testlib.h"

#include <jansson.h>

#include "cli.h"
#include "lang/interp.h"
#include "render/bundle.h"

#include "check_run.h"
#include "results.h"

#define GPU0 "gpu 0 name=\"NVIDIA H200\" total=150754820096 used=1000000\n"

static int probe(const char *out, const char *extra, const char *cmd)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"probe";
    argv[argc++] = (char *)"--out";
    argv[argc++] = (char *)out;
    if (extra) {
        argv[argc++] = (char *)extra;
    }
    argv[argc++] = (char *)"--phase";
    argv[argc++] = (char *)"load";
    argv[argc++] = (char *)"--";
    argv[argc++] = (char *)"sh";
    argv[argc++] = (char *)"-c";
    argv[argc++] = (char *)cmd;
    argv[argc] = NULL;
    return vs_cli_probe(argc, argv);
}

/* Parses FILE's lines into an array. */
static json_t *lines_of(const char *path)
{
    char *text = mt_read(path), *line, *save = NULL;
    json_t *arr = json_array();
    ck_assert_ptr_nonnull(text);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_error_t je;
        json_t *j = json_loads(line, 0, &je);
        ck_assert_msg(j != NULL, "not JSON: %s", line);
        json_array_append_new(arr, j);
    }
    free(text);
    return arr;
}

static json_t *find(json_t *lines, const char *type, const char *phase, const char *counter)
{
    size_t i;
    json_t *j;
    json_array_foreach(lines, i, j)
    {
        if (strcmp(json_string_value(json_object_get(j, "type")), type))
            continue;
        if (phase && strcmp(json_string_value(json_object_get(j, "phase")), phase))
            continue;
        if (counter && strcmp(json_string_value(json_object_get(j, "counter")), counter))
            continue;
        return j;
    }
    return NULL;
}

START_TEST(test_probe_lines)
{
    char tmpl[512], path[1024], host[256];
    json_t *lines, *j;
    mt_fake(VS_FAKE_NVML, GPU0);
    setenv("RANK", "3", 1);
    setenv("LOCAL_RANK", "1", 1);
    gethostname(host, sizeof host);
    mt_path(tmpl, sizeof tmpl, "probe-{host}-{rank}.jsonl");
    ck_assert_int_eq(
        probe(tmpl, "--samples",
              "printf 'gpu 0 used 7000000000\\nproc %s gpu 0 mem 6000000000\\n' $$ > "
              "$FAKE_NVML_STATE; "
              "sleep 0.2; echo 'phase generate' >&3; echo 'dims length=512' >&3; "
              "echo 'counter torch.max_memory_reserved 6500000000 gpu=0' >&3; "
              /* the marker is read asynchronously: give the runner time to
               * switch before the next phase's memory shows */
              "sleep 0.3; "
              "printf 'gpu 0 used 8000000000\\n' > $FAKE_NVML_STATE; sleep 0.2; exit 5"),
        5);
    snprintf(path, sizeof path, "%s/probe-%s-3.jsonl", mt_dir, host);
    lines = lines_of(path);
    j = find(lines, "run", NULL, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "host")), host);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "rank")), 3);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "local_rank")), 1);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(j, "command")), "sh -c 'printf"));
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "name")),
        "NVIDIA H200");
    j = find(lines, "peak", "load", "nvml.device_used");
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "peak_bytes")), 7000000000LL);
    j = find(lines, "peak", "load", "nvml.process_used");
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "peak_bytes")), 6000000000LL);
    j = find(lines, "peak", "generate", "nvml.device_used");
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "peak_bytes")), 8000000000LL);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "dims"), "length")),
                     512);
    j = find(lines, "peak", "generate", "torch.max_memory_reserved");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "scope")), "allocator");
    j = find(lines, "end", NULL, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "exit_status")), 5);
    ck_assert_ptr_nonnull(find(lines, "sample", "load", NULL));
    json_decref(lines);
    unsetenv("RANK");
    unsetenv("LOCAL_RANK");
}
END_TEST

START_TEST(test_probe_usage_and_errors)
{
    char out[512];
    char *help[] = {(char *)"probe", (char *)"--help", NULL};
    char *noout[] = {(char *)"probe", (char *)"--", (char *)"true", NULL};
    char *bad[] = {(char *)"probe", (char *)"--out", (char *)"x",    (char *)"--interval",
                   (char *)"0",     (char *)"--",    (char *)"true", NULL};
    ck_assert_int_eq(vs_cli_probe(2, help), 0);
    ck_assert_int_eq(vs_cli_probe(3, noout), 2);
    ck_assert_int_eq(vs_cli_probe(7, bad), 2);
    mt_tmpdir();
    mt_path(out, sizeof out, "p.jsonl");
    setenv("VRAMSHEET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    ck_assert_int_eq(probe(out, NULL, "true"), 1);
    {
        char *text = mt_read(out);
        ck_assert(text == NULL || text[0] == '\0'); /* nothing recorded */
        free(text);
    }
}
END_TEST

static void on_display(void *ctx, const vs_bundle *b, const char *id, int update)
{
    (void)ctx;
    (void)b;
    (void)id;
    (void)update;
}

START_TEST(test_probe_then_import)
{
    char out[512], code[1024];
    vs_interp *ip;
    vs_sink sink;
    json_t *result = NULL, *rows;
    vs_error err;
    mt_fake(VS_FAKE_NVML, GPU0);
    unsetenv("RANK");
    setenv("SLURM_PROCID", "7", 1);
    mt_path(out, sizeof out, "p.jsonl");
    ck_assert_int_eq(probe(out, NULL,
                           "echo 'phase backward' >&3; "
                           "printf 'gpu 0 used 9000000000\\n' > $FAKE_NVML_STATE; sleep 0.2; "
                           "echo 'torch.OutOfMemoryError: CUDA out of memory' >&2; exit 1"),
                     1);
    ip = vs_interp_new(NULL);
    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    snprintf(code, sizeof code, "sheet \"cluster\"\nmeasure import \"%s\"\nsheet \"cluster\"", out);
    ck_assert_int_eq(vs_test_execute(ip, code, &sink, &result, &err), 0);
    rows = json_object_get(json_object_get(result, VS_MIME_JSON), "measurements");
    ck_assert_uint_ge(json_array_size(rows), 2);
    {
        size_t i;
        json_t *m;
        int found = 0;
        json_array_foreach(rows, i, m)
        {
            if (!strcmp(json_string_value(json_object_get(m, "phase")), "backward") &&
                !strcmp(json_string_value(json_object_get(m, "counter")), "nvml.device_used")) {
                ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")),
                                 9000000000LL);
                ck_assert_int_eq(json_integer_value(json_object_get(m, "rank")), 7);
                found = 1;
            }
        }
        ck_assert_int_eq(found, 1);
    }
    rows = json_object_get(json_object_get(result, VS_MIME_JSON), "runs");
    ck_assert_uint_eq(json_array_size(rows), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "overflow_phase")),
                     "backward");
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(rows, 0), "exit_status")),
                     1);
    json_decref(result);
    vs_interp_free(ip);
}
END_TEST

/* A credential in the command: the command gets it, the probe's file (which
 * `measure import` brings into the records) has <redacted> in its place. */
START_TEST(test_probe_redacts_credentials)
{
    char tmpl[512], seen[512], cmd[1200];
    char *text;
    json_t *lines, *j;
    mt_fake(VS_FAKE_NVML, GPU0);
    mt_path(tmpl, sizeof tmpl, "probe.jsonl");
    mt_path(seen, sizeof seen, "seen");
    snprintf(cmd, sizeof cmd, "HF_TOKEN=hf_Secret9 printenv HF_TOKEN > %s", seen);
    ck_assert_int_eq(probe(tmpl, NULL, cmd), 0);
    text = mt_read(seen);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "hf_Secret9\n");
    free(text);
    text = mt_read(tmpl);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_null(strstr(text, "Secret9"));
    free(text);
    lines = lines_of(tmpl);
    j = find(lines, "run", NULL, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_msg(strstr(json_string_value(json_object_get(j, "command")),
                         "sh -c 'HF_TOKEN=<redacted> printenv HF_TOKEN > "),
                  "%s", json_string_value(json_object_get(j, "command")));
    json_decref(lines);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_probe");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_probe_lines);
    tcase_add_test(tc, test_probe_usage_and_errors);
    tcase_add_test(tc, test_probe_then_import);
    tcase_add_test(tc, test_probe_redacts_credentials);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
