/*
 * The latency the suites' C load programs report: recorded in an HdrHistogram (HdrHistogram_c,
 * ../hdr_c.mk), encoded for latency_hdr, and over time as the "intervals" list: one window per
 * second of the measuring phase, by answer time, with the exact nearest-rank percentiles of
 * its ok answers.
 *
 * Shared by the zmq suite's C instrument and the http-order C client: each suite has a
 * symlink to this file (zmq/latency.h, http-order/clients/latency.h), within its [build]
 * sources, so a suite's folder still holds all it builds from.
 *
 * Include it after program.h (its clock and PROGRAM). Header only, as program.h.
 */
#ifndef LATLAB_LATENCY_H
#define LATLAB_LATENCY_H

#ifndef LATLAB_PROGRAM_H
#error "include program.h before latency.h"
#endif

#include <hdr_histogram.h>
#include <hdr_histogram_log.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Records latency_ns, clamped to h's range (a longer one is kept at the top, not lost), and
 * returns the value recorded, which "intervals" reports as well. */
static inline int64_t record_ns(struct hdr_histogram *h, int64_t latency_ns)
{
    if (latency_ns < h->lowest_trackable_value)
        latency_ns = h->lowest_trackable_value;
    if (latency_ns > h->highest_trackable_value)
        latency_ns = h->highest_trackable_value;
    hdr_record_value(h, latency_ns);
    return latency_ns;
}

/* h in the V2 log encoding ("HISTF..." in base64), for latency_hdr; free() it. Exits 1 when it
 * cannot be encoded: a report without its histogram is a failed run. */
static inline char *encode_histogram(struct hdr_histogram *h)
{
    char *text = NULL;
    if (hdr_log_encode(h, &text) != 0) {
        fprintf(stderr, PROGRAM ": hdr_log_encode failed\n");
        exit(1);
    }
    return text;
}

/* One ok measured answer, for "intervals": the window it was answered in and its latency as
 * recorded (record_ns). */
struct sample {
    int64_t second;                   /* whole seconds after the measuring phase began */
    int64_t latency_ns;
};

/* The sample of an answer `since_start_ns` after the measuring phase began: one answered
 * before (only a clock's jitter could make it so) counts in window 0. */
static inline struct sample sample_at(int64_t since_start_ns, int64_t latency_ns)
{
    return (struct sample){
        .second = (since_start_ns > 0 ? since_start_ns : 0) / NS_PER_S,
        .latency_ns = latency_ns,
    };
}

/* By window, then by latency: each window's values come out sorted for its percentiles. */
static inline int compare_samples(const void *a, const void *b)
{
    const struct sample *x = a, *y = b;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    return (x->latency_ns > y->latency_ns) - (x->latency_ns < y->latency_ns);
}

static inline void sort_samples(struct sample *samples, size_t count)
{
    if (count > 0)
        qsort(samples, count, sizeof *samples, compare_samples);
}

/* The value at nearest rank ceil(permille / 1000 * n) of n sorted ones, in integers so that
 * e.g. 90% of 10 is rank 9 exactly (0.9 * 10 in doubles rounds up to rank 10). */
static inline int64_t nearest_rank(const struct sample *sorted, size_t n, unsigned permille)
{
    size_t rank = (n * permille + 999) / 1000;
    return sorted[rank > 0 ? rank - 1 : 0].latency_ns;
}

/* Prints the "intervals" list: one window per second from 0 to the last answer's, empty ones
 * as {"t_s": k, "count": 0}. `sorted` is in sort_samples' order. */
static inline void print_intervals(const struct sample *sorted, size_t count)
{
    printf("\"intervals\": [");
    size_t at = 0;
    int64_t last = count ? sorted[count - 1].second : -1;
    for (int64_t second = 0; second <= last; second++) {
        size_t end = at;
        while (end < count && sorted[end].second == second)
            end++;
        const struct sample *window = sorted + at;
        size_t n = end - at;
        printf("%s{\"t_s\": %lld, \"count\": %zu", second ? ", " : "", (long long)second, n);
        if (n > 0)
            printf(", \"p50\": %lld, \"p90\": %lld, \"p99\": %lld, \"p999\": %lld, "
                   "\"max\": %lld",
                   (long long)nearest_rank(window, n, 500),
                   (long long)nearest_rank(window, n, 900),
                   (long long)nearest_rank(window, n, 990),
                   (long long)nearest_rank(window, n, 999),
                   (long long)window[n - 1].latency_ns);
        printf("}");
        at = end;
    }
    printf("]");
}

#endif
