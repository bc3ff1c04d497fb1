/*
 * What the suites' C programs share besides their latency (latency.h): the monotonic clock,
 * and integer arguments checked and refused the same way (exit 2).
 *
 * Shared by the zmq suite's quote server and C instrument and the http-order C client: each
 * suite has a symlink to this file (zmq/program.h, http-order/clients/program.h), within its
 * [build] sources, so a suite's folder still holds all it builds from.
 *
 * Include it after the system headers (with _GNU_SOURCE defined first, as the programs do),
 * and define PROGRAM, the name its messages start with, before it. Header only: its functions
 * are static inline, so a program is not warned of those it does not use.
 */
#ifndef LATLAB_PROGRAM_H
#define LATLAB_PROGRAM_H

#ifndef PROGRAM
#error "define PROGRAM (the program's name, which its messages start with) before program.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NS_PER_S 1000000000LL
#define NS_PER_MS 1000000LL

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* The value of --name, `text`, as an integer in minimum..maximum (LLONG_MAX: no maximum);
 * anything else exits 2, saying what --name takes. */
static inline long long parse_integer(const char *name, const char *text, long long minimum,
                                      long long maximum)
{
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < minimum || value > maximum) {
        if (maximum == LLONG_MAX)
            fprintf(stderr, PROGRAM ": --%s must be an integer >= %lld, got '%s'\n", name,
                    minimum, text);
        else
            fprintf(stderr, PROGRAM ": --%s must be an integer in %lld..%lld, got '%s'\n",
                    name, minimum, maximum, text);
        exit(2);
    }
    return value;
}

#endif
