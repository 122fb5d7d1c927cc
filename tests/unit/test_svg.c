/* The budget chart: stacked components, unknown ones hatched, capacity lines. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg.h"

#include "check_run.h"

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    const char *p = s;
    while ((p = strstr(p, needle)) != NULL) {
        n++;
        p += strlen(needle);
    }
    return n;
}

START_TEST(seed_chart)
{
    vs_svg_segment segs[] = {{"weights", 1, 14000000000ULL, "params x bits / 8"},
                             {"reserve", 1, 6442450944ULL, "estimated"},
                             {"workspace", 0, 0, "unknown"}};
    vs_svg_line lines[] = {{"RTX 4090", 24000000000ULL, "nominal 24 GB"},
                           {"RTX 6000 Ada", 48000000000ULL, "nominal 48 GB"}};
    char *svg = vs_svg_budget("Seed <7B> & co", segs, 3, lines, 2);
    ck_assert_ptr_nonnull(svg);
    ck_assert(strncmp(svg, "<svg xmlns='http://www.w3.org/2000/svg'", 39) == 0);
    ck_assert(strstr(svg, "</svg>\n") != NULL);
    /* escaped title, never raw markup */
    ck_assert(strstr(svg, "Seed &lt;7B&gt; &amp; co") != NULL);
    ck_assert(strstr(svg, "<7B>") == NULL);
    /* the axis is in GiB and says so */
    ck_assert(strstr(svg, "GiB (2^30 bytes)") != NULL);
    /* weights first: the first stacked rect is the weights */
    ck_assert(strstr(svg, "<title>weights: 13.04 GiB</title>") != NULL);
    ck_assert(strstr(svg, "<title>weights: 13.04 GiB</title>") <
              strstr(svg, "<title>reserve: 6.00 GiB</title>"));
    /* the unknown one is hatched, dashed and labelled unknown */
    ck_assert_uint_eq(count(svg, "class='unknown'"), 1);
    ck_assert(strstr(svg, "url(#vs-hatch)") != NULL);
    ck_assert(strstr(svg, "stroke-dasharray") != NULL);
    ck_assert(strstr(svg, "workspace: unknown") != NULL);
    ck_assert(strstr(svg, "known part 19.04 GiB + 1 unknown") != NULL);
    /* one capacity line per offer, labelled with its basis */
    ck_assert_uint_eq(count(svg, "class='capacity'"), 2);
    ck_assert(strstr(svg, "RTX 4090: 22.35 GiB (nominal 24 GB)") != NULL);
    ck_assert(strstr(svg, "RTX 6000 Ada: 44.70 GiB (nominal 48 GB)") != NULL);
    free(svg);
}
END_TEST

START_TEST(lines_sit_at_their_capacity)
{
    /* With the axis at 0..N GiB, a line's y is proportional to its GiB: the
     * 48 GB line lies above (smaller y than) the 24 GB one. */
    vs_svg_segment segs[] = {{"weights", 1, 1ULL << 30, NULL}};
    vs_svg_line lines[] = {{"a", 24000000000ULL, "nominal"}, {"b", 48000000000ULL, "nominal"}};
    char *svg = vs_svg_budget(NULL, segs, 1, lines, 2);
    const char *la = strstr(svg, "class='capacity'"), *lb;
    double ya, yb;
    ck_assert_ptr_nonnull(la);
    lb = strstr(la + 1, "class='capacity'");
    ck_assert_ptr_nonnull(lb);
    /* the y1 attribute of each line precedes its class */
    {
        const char *p = la;
        while (p > svg && strncmp(p, "<line", 5))
            p--;
        ya = atof(strstr(p, "y1='") + 4);
        p = lb;
        while (p > svg && strncmp(p, "<line", 5))
            p--;
        yb = atof(strstr(p, "y1='") + 4);
    }
    ck_assert(yb < ya);
    ck_assert(strstr(svg, "envelope 1.00 GiB") != NULL);
    free(svg);
}
END_TEST

START_TEST(empty_and_huge)
{
    char *svg = vs_svg_budget(NULL, NULL, 0, NULL, 0);
    vs_svg_segment big[] = {{"weights", 1, 1ULL << 62, NULL}};
    ck_assert_ptr_nonnull(svg);
    ck_assert(strstr(svg, "</svg>") != NULL);
    free(svg);
    svg = vs_svg_budget("x", big, 1, NULL, 0);
    ck_assert_ptr_nonnull(svg);
    ck_assert(strstr(svg, "4294967296.00 GiB") != NULL);
    free(svg);
}
END_TEST

/* A long reserve: the weights, the ten largest components in the sheet's
 * order, one slice for the rest summed, one hatched slice for the unknown. */
START_TEST(long_reserves_are_grouped)
{
    vs_svg_segment segs[41];
    char names[41][16], *svg;
    size_t i;
    segs[0] = (vs_svg_segment){"weights", 1, 13ULL << 30, "params x bits / 8"};
    for (i = 1; i <= 30; i++) {
        snprintf(names[i], sizeof names[i], "part_%zu", i);
        /* sizes 1..30 MiB, but part_20 and part_22 weigh 21 MiB as part_21 does:
         * three ties at the threshold for two places */
        segs[i] = (vs_svg_segment){names[i], 1, (uint64_t)(i == 20 || i == 22 ? 21 : i) << 20,
                                   "estimated"};
    }
    for (i = 31; i <= 40; i++) {
        snprintf(names[i], sizeof names[i], "unk_%zu", i);
        segs[i] = (vs_svg_segment){names[i], 0, 0, "unknown"};
    }
    svg = vs_svg_budget(NULL, segs, 41, NULL, 0);
    ck_assert_ptr_nonnull(svg);
    ck_assert(strstr(svg, "<title>weights: 13.00 GiB</title>") != NULL);
    /* the ten largest: part_23 .. part_30, then the two earliest of the ties */
    for (i = 20; i <= 30; i++) {
        char t[64];
        snprintf(t, sizeof t, "<title>part_%zu: ", i);
        ck_assert_msg(i == 22 ? !strstr(svg, t) : strstr(svg, t) != NULL, "%s", t);
    }
    ck_assert(strstr(svg, "<title>part_19: ") == NULL);
    /* the other 20 summed: 1+..+19 MiB + 21 MiB (part_22) = 211 MiB = 0.21 GiB */
    ck_assert(strstr(svg, "<title>20 smaller components: 0.21 GiB</title>") != NULL);
    ck_assert_uint_eq(count(svg, "class='unknown'"), 1);
    ck_assert(strstr(svg, "10 unknown components: unknown") != NULL);
    /* the total still counts every component */
    ck_assert(strstr(svg, "known part 13.45 GiB + 10 unknown") != NULL);
    /* one legend row per slice drawn, not per component */
    ck_assert_uint_eq(count(svg, "<rect x="), 13);
    free(svg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("svg");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, seed_chart);
    tcase_add_test(tc, lines_sit_at_their_capacity);
    tcase_add_test(tc, empty_and_huge);
    tcase_add_test(tc, long_reserves_are_grouped);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
