/*
 * bench.h - timing helpers shared by the benchmark programs: a monotonic
 * clock in milliseconds and the line format bench/run collects
 * ("RESULT name kernrt_ms plain_ms").  Header-only: each benchmark is one
 * C file plus its generated .kern.c.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>
#include <time.h>

/* Runs per measurement; the best one is reported (the least disturbed). */
#define BENCH_RUNS 5

static inline double bench_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void bench_result(const char *name, double kernrt_ms, double plain_ms)
{
    printf("RESULT %s %.3f %.3f\n", name, kernrt_ms, plain_ms);
}

#endif /* BENCH_H */
