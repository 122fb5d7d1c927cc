#include "util/clock.h"

#include <stdio.h>
#include <time.h>

int64_t vs_clock_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t vs_clock_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *vs_clock_iso_utc(char *out, size_t n, int64_t wall_ms)
{
    time_t t = (time_t)(wall_ms / 1000);
    struct tm tm;
    if (wall_ms <= 0 || !gmtime_r(&t, &tm))
        snprintf(out, n, "%s", "");
    else
        strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return out;
}

char *vs_clock_iso_offset(char *out, size_t n, int64_t seconds, int offset_min)
{
    time_t local = (time_t)(seconds + (int64_t)offset_min * 60);
    struct tm tm;
    int off = offset_min < 0 ? -offset_min : offset_min;
    if (!gmtime_r(&local, &tm)) {
        snprintf(out, n, "%s", "");
        return out;
    }
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, offset_min < 0 ? '-' : '+', off / 60,
             off % 60);
    return out;
}
