/* error_tally.h — the median and the worst of relative errors by size (|e|),
 * for the tests and benchmarks that score an estimate against published
 * figures and state both. */
#ifndef VS_TESTS_ERROR_TALLY_H
#define VS_TESTS_ERROR_TALLY_H

#include <math.h>
#include <stdlib.h>

static int vs_tally_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of |e[0..n)|; 0 for none. e is left as it is. */
static double vs_tally_median(const double *e, size_t n) __attribute__((unused));
static double vs_tally_median(const double *e, size_t n)
{
    double *a, m;
    size_t i;
    if (!n || !(a = malloc(n * sizeof *a)))
        return 0;
    for (i = 0; i < n; i++)
        a[i] = fabs(e[i]);
    qsort(a, n, sizeof *a, vs_tally_cmp);
    m = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    free(a);
    return m;
}

/* The largest |e[i]|; 0 for none. */
static double vs_tally_worst(const double *e, size_t n) __attribute__((unused));
static double vs_tally_worst(const double *e, size_t n)
{
    double w = 0;
    size_t i;
    for (i = 0; i < n; i++)
        if (fabs(e[i]) > w)
            w = fabs(e[i]);
    return w;
}

#endif
