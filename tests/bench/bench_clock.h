/* bench_clock.h — what every benchmark here times with: a monotonic clock in
 * milliseconds, the process's CPU clock and the comparison qsort needs for a median. Header-only,
 * for the bench_*.c programs (each one file). */
#ifndef VS_BENCH_CLOCK_H
#define VS_BENCH_CLOCK_H

#include <time.h>

__attribute__((unused)) static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The process's CPU time in milliseconds: on a shared machine, what the work
 * costs its own threads, whatever else is scheduled beside it (a VM's stolen
 * time still counts; a neighbour's turn on the core does not). */
__attribute__((unused)) static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((unused)) static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
