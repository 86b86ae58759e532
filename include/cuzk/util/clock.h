/*
 * cuzk_now: the library's one clock for durations and deadlines, monotonic
 * seconds (CLOCK_MONOTONIC: never steps with the wall clock, so a timeout or
 * a phase time is never negative). Not a date: logs use the real time.
 */
#ifndef CUZK_CLOCK_H
#define CUZK_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary fixed point (boot), nanosecond resolution. */
double cuzk_now(void);

#ifdef __cplusplus
}
#endif

#endif
