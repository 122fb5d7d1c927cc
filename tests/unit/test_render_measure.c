/* How the measurement verbs are shown (src/render/measure.c): the table of
 * measurements, a measured run's result, a measurement typed by hand, an
 * import, the sheet's list and a component made measured. The expected
 * texts are worked out by hand: column widths from the longest cell, two
 * spaces between columns, the peak right-aligned, the last column unpadded. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "render/measure.h"

#include "check_run.h"

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* 2 GiB of torch's reserved memory on GPU 0 at length 8192: the widths are
 * 5, 6, 25, 9, 36 ("2,147,483,648 B = 2.15 GB = 2.00 GiB"), 11, 5, 14, so
 * the rule is 5+6+25+9+36+11+5+14 + 7 x 2 = 125 dashes. */
START_TEST(record_is_one_row)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *m =
        json_pack("{s:n, s:s, s:i, s:s, s:s, s:s, s:I, s:{s:i}, s:n, s:b}", "run", "phase", "load",
                  "gpu", 0, "gpu_name", "H200", "counter", "torch.max_memory_reserved", "scope",
                  "allocator", "peak_bytes", (json_int_t)2147483648LL, "dims", "length", 8192,
                  "stage", "validates_card", 0);
    const char *want =
        "recorded a measurement typed by hand\n"
        "phase  GPU     counter                    scope      "
        "                                peak  dims         stage  validates card\n"
        "---------------------------------------------------------------------------------------"
        "--------------------------------------\n"
        "load   0 H200  torch.max_memory_reserved  allocator  "
        "2,147,483,648 B = 2.15 GB = 2.00 GiB  length=8192  -      no\n"
        "It does not validate the card: length 8192 is below the card's 32768.\n";
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(
        vs_render_measure_record(&text, &html, m, 0, "length 8192 is below the card's 32768"), 0);
    ck_assert_str_eq(vs_buf_str(&text), want);
    ck_assert(starts_with(vs_buf_str(&html), "<p>recorded a measurement typed by hand</p>"
                                             "<table class='vramsheet'>\n<thead><tr>"
                                             "<th style='text-align:left'>phase</th>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), "<th style='text-align:right'>peak</th>"));

    /* typed again: said so, and nothing about the card when it validates */
    vs_buf_reset(&text);
    ck_assert_int_eq(vs_render_measure_record(&text, &html, m, 1, NULL), 0);
    ck_assert(starts_with(vs_buf_str(&text), "already recorded: the same measurement typed by "
                                             "hand (not added again)\nphase  GPU"));
    ck_assert(ends_with(vs_buf_str(&text), "length=8192  -      no\n"));
    json_decref(m);
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* Two imported counts: their value and unit stand in the peak column
 * ("158,656 tokens", "4.84 x"); by hand, no run; no GPU, "-". Widths 2, 9, 5,
 * 3, 20, 8, 14, 25, 5, 14, 7 ("current"): 112 + 10 x 2 = 132 dashes. */
START_TEST(measurements_are_numbered)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *ms = json_pack("[{s:s, s:s, s:i, s:s, s:s, s:n, s:i, s:s, s:{}, s:n, s:s},"
                           " {s:n, s:s, s:n, s:s, s:s, s:n, s:f, s:s, s:{s:i, s:i}, s:s, s:s}]",
                           "run", "m1", "phase", "serve", "gpu", 0, "counter", "vllm.kv_tokens",
                           "scope", "reported", "peak_bytes", "value", 158656, "unit", "tokens",
                           "dims", "stage", "state", "current", "run", "phase", "serve", "gpu",
                           "counter", "vllm.max_concurrency", "scope", "reported", "peak_bytes",
                           "value", 4.84, "unit", "x", "dims", "length", 4096, "concurrency", 8,
                           "stage", "usual", "state", "stale");
    const int valid[] = {1, 0};
    const char *want =
        "#   run        phase  GPU  counter               scope               peak  "
        "dims                       stage  validates card  state\n"
        "---------------------------------------------------------------------------------------"
        "---------------------------------------------\n"
        "#1  m1         serve  0    vllm.kv_tokens        reported  158,656 tokens  "
        "-                          -      yes             current\n"
        "#2  (by hand)  serve  -    vllm.max_concurrency  reported          4.84 x  "
        "length=4096 concurrency=8  usual  no              stale\n";
    ck_assert_ptr_nonnull(ms);
    ck_assert_int_eq(vs_render_measurements(&text, &html, ms, valid), 0);
    ck_assert_str_eq(vs_buf_str(&text), want);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), "<td style='text-align:left'>(by hand)</td>"));
    json_decref(ms);

    vs_buf_reset(&text);
    ms = json_array();
    ck_assert_int_eq(vs_render_measurements(&text, &html, ms, valid), 0);
    ck_assert_str_eq(vs_buf_str(&text),
                     "no measurements yet (measure ... -- COMMAND, or record ...)\n");
    json_decref(ms);
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* Allocated and reserved in one import: the note that they are never added. */
START_TEST(import_heads_and_notes)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *rows =
        json_pack("[{s:s, s:s, s:s, s:I}, {s:s, s:s, s:s, s:I}]", "phase", "train", "counter",
                  "torch.max_memory_allocated", "scope", "tensors", "peak_bytes", (json_int_t)1000,
                  "phase", "train", "counter", "torch.max_memory_reserved", "scope", "allocator",
                  "peak_bytes", (json_int_t)2000);
    ck_assert_int_eq(vs_render_measure_import(&text, &html, rows, 0, 1, 12), 0);
    ck_assert(starts_with(vs_buf_str(&text),
                          "imported 2 measurement(s) from 1 file(s), 12 line(s) (merged per run, "
                          "GPU, phase and counter: the largest kept)\nphase  GPU  counter"));
    ck_assert(ends_with(vs_buf_str(&text), "\nAllocated (tensors) and reserved (allocator) are "
                                           "different scopes of the same memory: never add "
                                           "them.\n"));
    ck_assert(
        starts_with(vs_buf_str(&html), "<p>imported 2 measurement(s) from 1 file(s)</p><table"));
    vs_buf_reset(&text);
    ck_assert_int_eq(vs_render_measure_import(&text, &html, rows, 1, 3, 12), 0);
    ck_assert(starts_with(vs_buf_str(&text),
                          "the same 2 measurement(s) as already recorded from 3 file(s): this "
                          "import restates them; nothing new was recorded\nphase"));
    json_decref(rows);
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* A run that took no sample, exited 0 and validates: 1234 ms is "1.23 s";
 * the script's head is its first line and how many follow. */
START_TEST(run_plain)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *rows = json_array();
    vs_measure_run_view v;
    memset(&v, 0, sizeof v);
    v.run = "m3";
    v.host = "";
    v.command = "\npython3 train.py\necho ok\n";
    v.elapsed_ms = 1234;
    v.overflow_phase = "";
    v.samples = 42;
    v.interval_ms = 10;
    v.max_gap_ms = 17;
    ck_assert_int_eq(vs_render_measure_run(&text, &html, &v, rows), 0);
    ck_assert_str_eq(vs_buf_str(&text),
                     "measured run m3 on this host, 1.23 s: `python3 train.py (+1 more line)`\n"
                     "The command exited with status 0.\n"
                     "No sample was taken.\n"
                     "Process memory: not reported by this driver (only the device's used memory "
                     "is measured).\n"
                     "Executed dims meet the card.\n"
                     "Driver unknown, NVML unknown; 42 samples every 10 ms, longest gap 17 ms.\n");
    ck_assert_str_eq(vs_buf_str(&html), "<p><b>measured run m3</b> on this host, 1.23 s, exit "
                                        "status 0: <code>python3 train.py (+1 more line)</code>"
                                        "</p>");
    json_decref(rows);
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* A failed run out of memory that restates m1: every paragraph in order. */
START_TEST(run_restated_failed_out_of_memory)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *rows = json_array();
    vs_measure_run_view v;
    memset(&v, 0, sizeof v);
    v.run = "m1";
    v.restates = 1;
    v.host = "gpu-07";
    v.command = "sh run.sh";
    v.elapsed_ms = 500;
    v.exit_status = 1;
    v.overflow_phase = "generate";
    v.oom_pattern = "CUDA out of memory";
    v.triage = "T.";
    v.process_available = 1;
    v.foreign_pids = 2;
    v.not_valid_why = "the run did not complete (it failed or overflowed)";
    v.leftovers = 1;
    v.bad_lines = 1;
    v.first_bad_line = "phase !: bad name";
    v.driver = "550.54";
    v.nvml_version = "12.550";
    v.samples = 7;
    v.interval_ms = 10;
    v.max_gap_ms = 11;
    ck_assert_int_eq(vs_render_measure_run(&text, &html, &v, rows), 0);
    ck_assert_str_eq(
        vs_buf_str(&text),
        "measured again on gpu-07, 0.50 s: `sh run.sh`\n"
        "The same result as run m1 (the same command, exit status, peaks per phase, GPU and "
        "counter, and executed dims): this run restates m1, which stays as recorded; nothing "
        "new was recorded.\n"
        "The command FAILED with exit status 1; it was measured all the same.\n"
        "OUT OF MEMORY in phase generate (\"CUDA out of memory\" in its output).\n"
        "T.\n"
        "Change one thing at a time (capacity, cache, microbatch or precision) and measure "
        "again; after each change re-check the quality criterion and the coverage: a shorter "
        "length, fewer sequences or another quantization may no longer answer the card.\n"
        "No sample was taken.\n"
        "Process memory: the driver listed 2 process(es) but none of the command's (another PID "
        "namespace?); not recorded.\n"
        "This run does not validate the card: the run did not complete (it failed or "
        "overflowed).\n"
        "1 process(es) left in the command's group were ended.\n"
        "1 phase line(s) ignored; the first: phase !: bad name\n"
        "Driver 550.54, NVML 12.550; 7 samples every 10 ms, longest gap 11 ms.\n");
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&html), "<p><b>Out of memory in phase generate</b>. "
                                                    "T. Change one thing at a time"));
    ck_assert(ends_with(vs_buf_str(&html), "<p>This run does not validate the card: the run did "
                                           "not complete (it failed or overflowed).</p>"));
    /* recorded, not restated: the failure says the run is recorded */
    vs_buf_reset(&text);
    v.restates = 0;
    v.overflow_phase = "";
    ck_assert_int_eq(vs_render_measure_run(&text, &html, &v, rows), 0);
    ck_assert(starts_with(vs_buf_str(&text),
                          "measured run m1 on gpu-07, 0.50 s: `sh run.sh`\nThe command FAILED "
                          "with exit status 1; it was measured all the same and the run is "
                          "recorded.\nNo sample was taken.\n"));
    json_decref(rows);
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* 1.5e9 bytes: 1.50 GB, and 1.5e9 / 2^30 = 1.397 GiB, "1.40 GiB". */
START_TEST(measured_component)
{
    vs_buf text = VS_BUF_INIT;
    vs_render_measured_component(&text, "non_torch", 1500000000ULL, "measured: run m2", 1,
                                 "reported");
    ck_assert_str_eq(vs_buf_str(&text),
                     "component non_torch = 1,500,000,000 B = 1.50 GB = 1.40 GiB, status "
                     "measured\nsource: measured: run m2\n"
                     "Not taken at the card's dims: an engine log's start-up figure names no "
                     "executed length, concurrency or microbatch. It fills the runtime item "
                     "non_torch as the engine reported it; the envelope flags it until a run at "
                     "the card's dims confirms it.\n");
    vs_buf_reset(&text);
    vs_render_measured_component(&text, "other", 1500000000ULL, "s", 0, "device");
    ck_assert_str_eq(vs_buf_str(&text),
                     "component other = 1,500,000,000 B = 1.50 GB = 1.40 GiB, status measured\n"
                     "source: s\n"
                     "Note: this peak covers the whole device or process, weights included; the "
                     "envelope adds the weights again. A counter of that component alone is a "
                     "better source.\n");
    vs_buf_free(&text);
}
END_TEST

/* the run that did not complete: alone, or after the dims' reason, "; "
 * between them */
START_TEST(incomplete_run_reason)
{
    vs_buf why = VS_BUF_INIT;
    vs_render_measure_incomplete(&why);
    ck_assert_str_eq(vs_buf_str(&why), "the run did not complete (it failed or overflowed)");
    vs_buf_reset(&why);
    vs_buf_puts(&why, "length 8192 is below the card's 32768");
    vs_render_measure_incomplete(&why);
    ck_assert_str_eq(vs_buf_str(&why), "length 8192 is below the card's 32768; the run did not "
                                       "complete (it failed or overflowed)");
    vs_buf_free(&why);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_measure");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, record_is_one_row);
    tcase_add_test(tc, measurements_are_numbered);
    tcase_add_test(tc, import_heads_and_notes);
    tcase_add_test(tc, run_plain);
    tcase_add_test(tc, run_restated_failed_out_of_memory);
    tcase_add_test(tc, measured_component);
    tcase_add_test(tc, incomplete_run_reason);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
