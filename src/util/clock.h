/* clock.h — milliseconds from the two clocks, and ISO 8601 times.
 *
 * Monotonic time measures durations (timeouts, sampling periods, retries);
 * wall time stamps what is recorded. Kept in one place so that every record and
 * every log writes a time the same way. No state.
 */
#ifndef VS_UTIL_CLOCK_H
#define VS_UTIL_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Milliseconds of CLOCK_MONOTONIC (durations only). */
int64_t vs_clock_mono_ms(void);

/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t vs_clock_wall_ms(void);

/* "2026-11-29T22:16:29Z" for wall_ms; "" when wall_ms <= 0. out holds >= 21
 * bytes. Returns out. */
char *vs_clock_iso_utc(char *out, size_t n, int64_t wall_ms);

/* "2026-11-29T23:16:29+01:00": seconds since the epoch, shown at a UTC offset
 * of offset_min minutes (as git records a commit's time). Returns out. */
char *vs_clock_iso_offset(char *out, size_t n, int64_t seconds, int offset_min);

#endif
