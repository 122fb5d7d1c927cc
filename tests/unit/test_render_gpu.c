/* The notes of a GPU offer (src/render/gpu.c): a name outside the catalogue,
 * a memory= that is not the entry's nominal figure, a format the entry says
 * the GPU lacks, and what an offer never proves. Each note is appended to
 * what the buffer holds; the expected texts are written out by hand. */
#include <check.h>
#include <string.h>

#include "render/gpu.h"

#include "check_run.h"

START_TEST(uncatalogued)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_gpu_note_uncatalogued(&b, "no GPU named 'rtx9090' in the catalogue");
    ck_assert_str_eq(vs_buf_str(&b), "not in the catalogue (no GPU named 'rtx9090' in the "
                                     "catalogue); its memory is as declared");
    vs_buf_free(&b);
}
END_TEST

START_TEST(nominal_differs)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_gpu_note_nominal_differs(&b, "H100 SXM");
    ck_assert_str_eq(vs_buf_str(&b), "memory= differs from the catalogue's H100 SXM nominal "
                                     "figure, so its device-reported total is not used");
    vs_buf_free(&b);
}
END_TEST

/* the format named twice, the entry once, in that order */
START_TEST(format_unsupported)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_gpu_note_format_unsupported(&b, "fp8", "A100 80GB");
    ck_assert_str_eq(vs_buf_str(&b), "the card's format is fp8 and the catalogue gives A100 80GB "
                                     "no fp8 support: compatibility needs evidence");
    vs_buf_free(&b);
}
END_TEST

/* appended: what the buffer held stays in front */
START_TEST(proves_nothing_appends)
{
    vs_buf b = VS_BUF_INIT;
    vs_buf_puts(&b, "x: ");
    vs_render_gpu_note_proves_nothing(&b);
    ck_assert_str_eq(vs_buf_str(&b), "x: a catalogue figure or a declared stock proves neither "
                                     "a software installation, nor free memory, nor an "
                                     "availability period");
    vs_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_gpu");
    TCase *tc = tcase_create("notes");
    tcase_add_test(tc, uncatalogued);
    tcase_add_test(tc, nominal_differs);
    tcase_add_test(tc, format_unsupported);
    tcase_add_test(tc, proves_nothing_appends);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
