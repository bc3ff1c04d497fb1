/*
 * http-order load client in C, in two designs (--library):
 *
 * - tuned (the default): libcurl's multi interface on a few pthreads.
 * - usual (the user's report, "libcurl + pthread"): one pthread per connection, each sending
 *   its orders one at a time with blocking curl_easy_perform on its own easy handle, kept
 *   alive between orders; CURLOPT_TIMEOUT_MS bounds each. An open loop's thread sleeps until
 *   the order it took is due (clock_nanosleep, absolute).
 * Both take their orders from the same counters (take_order), ready and book them the same way
 * (prepare_order, finish_order) and print the same report, its tuning.library saying which
 * design ran; only how an order is sent and waited for differs (launch_due and collect in the
 * tuned loops, usual_run in the usual threads).
 *
 * Tuned: a few event-loop threads (one per CPU the process may run on, at most one per
 * connection) each drive their share of the C keep-alive connections: a multi handle with that many
 * reusable easy handles, one order in flight on each, run through curl's socket interface on
 * epoll, so that an answer costs a wake-up of the loop rather than of a thread per connection.
 * All loops take order indices from one atomic counter. Closed loop: a free handle takes the
 * next order at once. Open loop: order i (warm-up first) is due at origin + i / rate; a loop
 * holds the next index until it is due (a timerfd wakes epoll on time) and sends late orders
 * as soon as a handle is free, never skipping one; the latency is measured from the due time
 * as well as from the actual send. Nothing is in flight past window + timeout: an order
 * unanswered then is a timeout, and so is one not sent by then. A closed loop with --settle
 * goes on warming up after its W warm-up orders until the answers settle (struct settle), then
 * switches to measuring without a pause: an order taken before the switch is warm-up, one taken
 * after it measured. --orders 0 measures for --duration.
 * The contract (arguments, JSON, exit status) is ../../README.md.
 */
/* The name the report gives: "c", or "c-hft" for the seed's HFT build (Makefile). */
#ifndef CLIENT_NAME
#define CLIENT_NAME "c"
#endif
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <hdr_histogram.h>
#include <hdr_histogram_log.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "c_client"
#include "../program.h"
#include "../latency.h"

#define HIST_LOWEST_NS 1
#define HIST_HIGHEST_NS (60 * NS_PER_S)
#define HIST_SIGNIFICANT_DIGITS 3
#define RESPONSE_CAP 4096             /* an answer is ~200 bytes; more is kept out */
#define LOOP_STACK (256 * 1024)       /* small, as mlockall(MCL_FUTURE) locks every stack (either
                                         design's threads) */
#define TIMESTAMP_LEN 24              /* 2024-01-01T10:00:00.000Z */
#define TIMESTAMP_SECONDS_LEN 19      /* 2024-01-01T10:00:00 */
#define MAX_CONNECTIONS 10000
#define ANSWERS_RESERVE (1 << 20)     /* answers reserved up front, all loops: 16 MiB */
#define SETTLE_WINDOW_NS (200 * NS_PER_MS)
#define MAX_WAIT_MS 100               /* a loop looks at its clock at least this often */
#define NO_ORDER (-1LL)
#define NOT_SET (-1LL)                /* a time not set (monotonic times are positive) */

struct options {
    const char *url;
    long long orders;
    long long connections;
    long long warmup;
    double rate;                      /* 0 = closed loop */
    double duration_s;
    double timeout_s;
    double settle_s;                  /* 0 = off; closed loop only */
    const char *pin_spec;
    int *pin_cpus;                    /* the expanded --pin-cpus list */
    int pin_count;
    bool mlock;
    bool usual;                       /* --library usual: a blocking thread per connection */
};

/* A series of orders run by all loops. Closed loop: the warm-up, then the measurement, each
 * a phase. Open loop: one phase, the warm-up's orders and then the measured ones. */
struct phase {
    long long count;                  /* closed loop: at most this many */
    long long first_measured;         /* orders from this index on are measured */
    atomic_llong next;                /* the next order index to take */
    int64_t origin_ns;                /* open loop: order i is due at origin_ns + i / rate */
    int64_t start_ns;                 /* the measuring phase's start (open loop: the window's) */
    int64_t stop_taking_ns;           /* no order is sent from then on */
    int64_t hard_stop_ns;             /* no order is still in flight then */
};

/* Closed loop, --settle: the warm-up after the W warm-up orders. The ok answers fall into
 * windows of 200 ms by answer time, window k being [origin + k * 200 ms, origin + (k + 1) *
 * 200 ms); the warm-up has settled at the end of the first window whose answer count and p50
 * are, with the two windows before it, within 10 % (largest <= 1.1 x smallest), and measuring
 * starts then, or at the deadline without that. Any thread closes the windows that have ended
 * (a loop with an answer or an order to take, the main thread at each window's end), under
 * the lock; orders are taken under it as well, so each is wholly before or after the switch. */
struct settle {
    pthread_mutex_t lock;
    int64_t origin_ns;
    int64_t deadline_ns;              /* measuring starts then at the latest */
    int64_t window;                   /* the window being filled */
    int64_t *latencies;               /* its ok answers' latencies, ns */
    size_t count, capacity;
    bool lost;                        /* out of memory: that window cannot settle */
    long long counts[3];              /* the last three windows closed, oldest first (0 while */
    long long p50s[3];                /* fewer are closed, or without an ok answer) */
    bool settled;                     /* measuring started as the answers settled */
    atomic_bool measuring;            /* set once run->measure is scheduled */
};

struct run {
    const struct options *opts;
    CURLU *order_url;                 /* parsed once: each transfer copies it, not parses it */
    struct curl_slist *headers;       /* every request's, shared by all easy handles */
    long timeout_ms;
    pthread_barrier_t barrier;        /* the loops and the main thread */
    struct phase warmup;
    struct phase measure;
    bool settling;                    /* closed loop with --settle */
    long long measured;               /* the measured phase's count */
    struct settle settle;
};

/* The ok measured orders, for "intervals" (latency.h). */
struct answers {
    struct sample *items;
    size_t count, capacity;
    bool lost;                        /* out of memory: the intervals cannot be told */
};

/* An order taken to be sent now (take_order), either design. */
struct order {
    bool measured;
    bool settling;                    /* a warm-up order of the settling kind */
    int64_t due_ns;                   /* a closed loop's orders are due when they are sent */
    int64_t sent_ns;
    long timeout_ms;                  /* --timeout, cut short by the phase's hard stop */
};

/* One easy handle: one order in flight, its connection kept alive (tuned: in the loop's multi;
 * usual: in the handle's own connection cache). */
struct transfer {
    CURL *curl;
    char request[512];
    size_t request_len;
    char response[RESPONSE_CAP];
    size_t response_len;
    struct order order;               /* the order in flight */
};

/* A socket in a loop's epoll. Curl stops watching a connection's socket after each transfer
 * and asks for it again with the next transfer on it; a connection's socket stays in epoll in
 * between, as taking it out and putting it back cost two epoll_ctl calls per order, 10 % of the
 * client's CPU. Connection sockets are opened and closed through the loop (open_socket,
 * close_socket), so that a socket number given out again starts out of epoll. */
struct watch {
    uint32_t events;                  /* what epoll watches it for; 0: not in epoll */
    bool curl;                        /* whether curl watches it */
    bool connection;                  /* opened by open_socket */
};

/* One thread and its tally. Tuned: its multi handle and its share of the connections, driven
 * through curl's socket interface on epoll: curl is told which socket is ready, so it touches
 * only that transfer. Usual: one connection, one easy handle (transfers[0]), no multi, epoll or
 * timer. */
struct loop {
    pthread_t thread;
    struct run *run;
    CURLM *multi;
    int epoll_fd;
    struct watch *watches;            /* by socket: what epoll and curl watch it for */
    int watches_size;
    int timer_fd;                     /* wakes epoll when the held order falls due */
    int64_t timer_armed_ns;           /* NOT_SET when disarmed or fired */
    int64_t curl_due_ns;              /* when curl wants its timeout action; NOT_SET: never */
    struct transfer *transfers;
    struct transfer **idle;           /* the transfers without an order, a stack */
    long long transfer_count, idle_count;
    time_t stamp_second;              /* the second `stamp` spells, to format it once a second */
    char stamp[TIMESTAMP_SECONDS_LEN];
    struct hdr_histogram *latency;    /* closed: response - send; open: response - due time */
    struct hdr_histogram *uncorrected;/* open loop: response - actual send (NULL in a closed
                                         loop, as a usual run has a tally per connection) */
    struct answers answers;           /* the ok measured orders, for "intervals" */
    long long ok, errors, timeouts;
    long long unsent;                 /* open loop: timeouts never sent (all handles stuck) */
    long long warmup_sent;            /* warm-up orders sent, settling ones included */
    int pin_cpu;                      /* -1: not pinned */
    int pin_errno;                    /* 0: pinned (or not asked) */
};

enum outcome { ORDER_OK, ORDER_ERROR, ORDER_TIMEOUT };

/* What take_order found: an order to send now, one not due yet, or nothing left. */
enum take { TAKE_SEND, TAKE_LATER, TAKE_NONE };

static void sleep_until_ns(int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / NS_PER_S, .tv_nsec = deadline_ns % NS_PER_S};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void usage_error(const char *fmt, const char *value)
{
    fprintf(stderr, "c_client: ");
    fprintf(stderr, fmt, value);
    fprintf(stderr,
            "\nusage: c_client --url http://HOST:PORT --orders N --connections C --warmup W"
            " --rate R --duration S --timeout T --pin-cpus LIST --mlock true|false"
            " [--settle S] [--library tuned|usual]\n");
    exit(2);
}

static double parse_number(const char *name, const char *text, double minimum, bool inclusive)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(value) ||
        (inclusive ? value < minimum : value <= minimum)) {
        fprintf(stderr, "c_client: --%s must be a number %s %g, got '%s'\n", name,
                inclusive ? ">=" : ">", minimum, text);
        exit(2);
    }
    return value;
}

/* "2-3,5" -> {2, 3, 5}; "" -> none. */
static void parse_cpu_list(const char *spec, struct options *opts)
{
    opts->pin_count = 0;
    opts->pin_cpus = NULL;
    if (*spec == '\0')
        return;
    int capacity = 0;
    const char *p = spec;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9')
            goto bad;
        long first = strtol(p, &end, 10), last = first;
        p = end;
        if (*p == '-') {
            p++;
            if (*p < '0' || *p > '9')
                goto bad;
            last = strtol(p, &end, 10);
            p = end;
        }
        if (first > 99999 || last > 99999 || last < first)
            goto bad;
        for (long cpu = first; cpu <= last; cpu++) {
            if (opts->pin_count == capacity) {
                capacity = capacity ? 2 * capacity : 16;
                opts->pin_cpus = realloc(opts->pin_cpus, (size_t)capacity * sizeof(int));
                if (!opts->pin_cpus) {
                    perror("c_client: realloc");
                    exit(2);
                }
            }
            opts->pin_cpus[opts->pin_count++] = (int)cpu;
        }
        if (*p == '\0')
            return;
        if (*p++ != ',')
            goto bad;
    }
bad:
    usage_error("--pin-cpus must look like 2-3 or 0,2, got '%s'", spec);
}

static void parse_options(int argc, char **argv, struct options *opts)
{
    enum { URL, ORDERS, CONNECTIONS, WARMUP, RATE, DURATION, TIMEOUT, PIN_CPUS, MLOCK, SETTLE,
           LIBRARY };
    static const struct option long_options[] = {
        {"url", required_argument, NULL, URL},
        {"orders", required_argument, NULL, ORDERS},
        {"connections", required_argument, NULL, CONNECTIONS},
        {"warmup", required_argument, NULL, WARMUP},
        {"rate", required_argument, NULL, RATE},
        {"duration", required_argument, NULL, DURATION},
        {"timeout", required_argument, NULL, TIMEOUT},
        {"pin-cpus", required_argument, NULL, PIN_CPUS},
        {"mlock", required_argument, NULL, MLOCK},
        {"settle", required_argument, NULL, SETTLE},
        {"library", required_argument, NULL, LIBRARY},
        {NULL, 0, NULL, 0},
    };
    *opts = (struct options){
        .url = NULL, .orders = 1000, .connections = 50, .warmup = 100, .rate = 0,
        .duration_s = 60, .timeout_s = 5, .settle_s = 0, .pin_spec = "", .mlock = false,
        .usual = false,
    };
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (option) {
        case URL: opts->url = optarg; break;
        case ORDERS: opts->orders = parse_integer("orders", optarg, 0, LLONG_MAX); break;
        case CONNECTIONS:
            opts->connections = parse_integer("connections", optarg, 1, MAX_CONNECTIONS);
            break;
        case WARMUP: opts->warmup = parse_integer("warmup", optarg, 0, LLONG_MAX); break;
        case RATE: opts->rate = parse_number("rate", optarg, 0, true); break;
        case DURATION: opts->duration_s = parse_number("duration", optarg, 0, false); break;
        case TIMEOUT: opts->timeout_s = parse_number("timeout", optarg, 0, false); break;
        case SETTLE: opts->settle_s = parse_number("settle", optarg, 0, true); break;
        case PIN_CPUS: opts->pin_spec = optarg; break;
        case MLOCK:
            if (strcmp(optarg, "true") == 0)
                opts->mlock = true;
            else if (strcmp(optarg, "false") == 0)
                opts->mlock = false;
            else
                usage_error("--mlock must be true or false, got '%s'", optarg);
            break;
        case LIBRARY:
            if (strcmp(optarg, "tuned") == 0)
                opts->usual = false;
            else if (strcmp(optarg, "usual") == 0)
                opts->usual = true;
            else
                usage_error("--library must be tuned or usual, got '%s'", optarg);
            break;
        default: usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument '%s'", argv[optind]);
    if (!opts->url || strncmp(opts->url, "http://", 7) != 0)
        usage_error("--url must be given as http://HOST:PORT, got '%s'",
                    opts->url ? opts->url : "");
    if (opts->rate > 0 && opts->rate * opts->duration_s > 1e12)
        usage_error("--rate x --duration is more than 1e12 orders%s", "");
    parse_cpu_list(opts->pin_spec, opts);
}


/* Notes an ok measured order for "intervals". Each loop keeps its own list, so no lock is
 * taken between orders; main merges them once the loops are done. Out of memory, the list
 * stops growing and is marked lost: main then fails the run rather than print intervals whose
 * counts do not add up to "ok". */
static void keep_answer(struct answers *a, int64_t since_start_ns, int64_t latency_ns)
{
    if (a->lost)
        return;
    if (a->count == a->capacity) {
        size_t capacity = a->capacity ? 2 * a->capacity : 64;
        struct sample *items = realloc(a->items, capacity * sizeof *items);
        if (!items) {
            a->lost = true;
            return;
        }
        a->items = items;
        a->capacity = capacity;
    }
    a->items[a->count++] = sample_at(since_start_ns, latency_ns);
}

/* Books one measured order's outcome; a closed loop's orders are due when they are sent. */
static void book(struct loop *l, const struct phase *ph, enum outcome outcome, int64_t due_ns,
                 int64_t sent_ns, int64_t done_ns)
{
    switch (outcome) {
    case ORDER_OK: {
        l->ok++;
        int64_t latency_ns = record_ns(l->latency, done_ns - due_ns);
        if (l->run->opts->rate > 0)
            record_ns(l->uncorrected, done_ns - sent_ns);
        keep_answer(&l->answers, done_ns - ph->start_ns, latency_ns);
        break;
    }
    case ORDER_ERROR: l->errors++; break;
    case ORDER_TIMEOUT: l->timeouts++; break;
    }
}

/* Fills a phase of `count` orders starting at `origin`, those from `first_measured` on measured.
 * A closed loop stops taking orders after `span_s`, and none is in flight `--timeout` later. In
 * an open loop order i is due at origin + i / rate, the measurement starts with the first
 * measured one's due time, and nothing is in flight past `span_s` + `--timeout` after that: an
 * order not sent by then is a timeout, never sent. */
static void schedule_at(struct phase *ph, const struct options *opts, long long count,
                        long long first_measured, double span_s, int64_t origin)
{
    int64_t start = origin;
    if (opts->rate > 0)
        start += llround((double)first_measured * NS_PER_S / opts->rate);
    int64_t span = (int64_t)(span_s * NS_PER_S), timeout = (int64_t)(opts->timeout_s * NS_PER_S);
    ph->count = count;
    ph->first_measured = first_measured;
    atomic_store(&ph->next, 0);
    ph->origin_ns = origin;
    ph->start_ns = start;
    ph->hard_stop_ns = start + span + timeout;
    /* (Open loop: not in the hard stop's last millisecond, as curl's timeouts are whole ms.) */
    ph->stop_taking_ns = opts->rate > 0 ? ph->hard_stop_ns - NS_PER_MS : start + span;
}

static void schedule(struct phase *ph, const struct options *opts, long long count,
                     long long first_measured, double span_s)
{
    schedule_at(ph, opts, count, first_measured, span_s, now_ns());
}

/* The k-th smallest (from 0) of n values, which it reorders (Hoare's selection). */
static int64_t select_nth(int64_t *v, long long n, long long k)
{
    long long lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = v[lo + (hi - lo) / 2];
        long long i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int64_t swap = v[i];
                v[i++] = v[j];
                v[j--] = swap;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

static bool within_10_percent(const long long *values)
{
    long long low = values[0], high = values[0];
    for (int i = 1; i < 3; i++) {
        low = values[i] < low ? values[i] : low;
        high = values[i] > high ? values[i] : high;
    }
    return (double)high <= 1.1 * (double)low;
}

/* Closes the window being filled (under the lock); true when it settled the warm-up. */
static bool close_window(struct settle *s)
{
    long long n = s->lost ? 0 : (long long)s->count;
    long long p50 = n ? select_nth(s->latencies, n, (n + 1) / 2 - 1) : 0;
    memmove(s->counts, s->counts + 1, 2 * sizeof *s->counts);
    memmove(s->p50s, s->p50s + 1, 2 * sizeof *s->p50s);
    s->counts[2] = n;
    s->p50s[2] = p50;
    s->window++;
    s->count = 0;
    s->lost = false;
    for (int i = 0; i < 3; i++)
        if (s->counts[i] == 0)
            return false;
    return within_10_percent(s->counts) && within_10_percent(s->p50s);
}

/* Under the lock: closes the windows that ended by `until` (never past the deadline) and starts
 * measuring at `now` once one settled, or at the deadline. Returns whether measuring started. */
static bool settle_update(struct run *run, int64_t until, int64_t now)
{
    struct settle *s = &run->settle;
    if (atomic_load_explicit(&s->measuring, memory_order_relaxed))
        return true;
    bool settled = false;
    if (until > s->deadline_ns)
        until = s->deadline_ns;
    if (until >= s->origin_ns) {
        int64_t current = (until - s->origin_ns) / SETTLE_WINDOW_NS;
        while (!settled && s->window < current)
            settled = close_window(s);
    }
    if (!settled && now < s->deadline_ns)
        return false;
    s->settled = settled;
    long long count = run->measured;
    const struct options *opts = run->opts;
    schedule_at(&run->measure, opts, count, 0, opts->duration_s, now);
    atomic_store_explicit(&s->measuring, true, memory_order_release);
    return true;
}

/* Takes a warm-up order (true), unless measuring has started (false). */
static bool settle_take(struct run *run)
{
    pthread_mutex_lock(&run->settle.lock);
    int64_t now = now_ns();
    bool measuring = settle_update(run, now, now);
    pthread_mutex_unlock(&run->settle.lock);
    return !measuring;
}

/* Notes an ok warm-up answer in its window. One answered in a window already closed (another
 * thread was a hair faster) is left out: the windows are a gauge, not a measurement. */
static void settle_answer(struct run *run, int64_t done_ns, int64_t latency_ns)
{
    struct settle *s = &run->settle;
    pthread_mutex_lock(&s->lock);
    if (!settle_update(run, done_ns, now_ns()) && done_ns < s->deadline_ns &&
        (done_ns - s->origin_ns) / SETTLE_WINDOW_NS == s->window && !s->lost) {
        if (s->count == s->capacity) {
            size_t capacity = s->capacity ? 2 * s->capacity : 1024;
            int64_t *latencies = realloc(s->latencies, capacity * sizeof *latencies);
            if (latencies) {
                s->latencies = latencies;
                s->capacity = capacity;
            } else {
                s->lost = true;
            }
        }
        if (!s->lost)
            s->latencies[s->count++] = latency_ns;
    }
    pthread_mutex_unlock(&s->lock);
}

/* ---- The event loops ----------------------------------------------------------------------- */

static size_t keep_response(char *data, size_t size, size_t count, void *userdata)
{
    struct transfer *t = userdata;
    size_t n = size * count, room = RESPONSE_CAP - t->response_len;
    memcpy(t->response + t->response_len, data, n < room ? n : room);
    t->response_len += n < room ? n : room;
    return n;
}

/* Writes the wall clock as 2024-01-01T10:00:00.000Z; the date and time of day only change once
 * a second, so gmtime and strftime run then, not for every order. */
static void write_timestamp(struct loop *l, char *out)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != l->stamp_second) {
        struct tm tm;
        char text[64];
        gmtime_r(&ts.tv_sec, &tm);
        strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
        memcpy(l->stamp, text, TIMESTAMP_SECONDS_LEN);
        l->stamp_second = ts.tv_sec;
    }
    int ms = (int)(ts.tv_nsec / NS_PER_MS);
    memcpy(out, l->stamp, TIMESTAMP_SECONDS_LEN);
    out[19] = '.';
    out[20] = (char)('0' + ms / 100);
    out[21] = (char)('0' + ms / 10 % 10);
    out[22] = (char)('0' + ms % 10);
    out[23] = 'Z';
}

/* The socket's watch, NULL when out of memory. */
static struct watch *watch_of(struct loop *l, curl_socket_t socket)
{
    if (socket >= l->watches_size) {
        int size = l->watches_size ? l->watches_size : 64;
        while (size <= socket)
            size *= 2;
        struct watch *watches = realloc(l->watches, (size_t)size * sizeof *watches);
        if (!watches)
            return NULL;
        memset(watches + l->watches_size, 0, (size_t)(size - l->watches_size) * sizeof *watches);
        l->watches = watches;
        l->watches_size = size;
    }
    return &l->watches[socket];
}

static int on_socket(CURL *easy, curl_socket_t socket, int what, void *userdata, void *known)
{
    (void)easy;
    (void)known;
    struct loop *l = userdata;
    struct watch *w = watch_of(l, socket);
    if (!w)
        return -1;
    w->curl = what != CURL_POLL_REMOVE;
    if (!w->curl) {
        /* A connection's socket stays in epoll (struct watch); another (a name resolver's)
         * is closed without close_socket, so it leaves epoll now. */
        if (!w->connection && w->events != 0) {
            epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, socket, NULL);
            w->events = 0;
        }
        return 0;
    }
    uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    if (events == w->events)
        return 0;
    struct epoll_event event = {.events = events, .data.fd = socket};
    epoll_ctl(l->epoll_fd, w->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket, &event);
    w->events = events;
    return 0;
}

static curl_socket_t open_socket(void *userdata, curlsocktype purpose,
                                 struct curl_sockaddr *address)
{
    (void)purpose;
    struct loop *l = userdata;
    curl_socket_t socket_fd = socket(address->family, address->socktype, address->protocol);
    if (socket_fd == CURL_SOCKET_BAD)
        return CURL_SOCKET_BAD;
    struct watch *w = watch_of(l, socket_fd);
    if (!w) {
        close(socket_fd);
        return CURL_SOCKET_BAD;
    }
    *w = (struct watch){.connection = true};
    return socket_fd;
}

/* Closing a socket takes it out of epoll. */
static int close_socket(void *userdata, curl_socket_t socket)
{
    struct loop *l = userdata;
    l->watches[socket] = (struct watch){0};
    return close(socket);
}

static bool transfer_init(struct transfer *t, struct loop *l)
{
    static const char order_template[] =
        "{\"buy_sell\":\"buy\",\"symbol\":2330,\"price\":100.0,\"quantity\":1000,"
        "\"market_type\":\"common\",\"price_type\":\"limit\",\"time_in_force\":\"rod\","
        "\"order_type\":\"stock\",\"user_def\":\"latlab-c\",\"client_timestamp\":\"";
    const size_t timestamp_at = sizeof order_template - 1;
    memcpy(t->request, order_template, timestamp_at);
    memset(t->request + timestamp_at, '0', TIMESTAMP_LEN);
    memcpy(t->request + timestamp_at + TIMESTAMP_LEN, "\"}", 2);
    t->request_len = timestamp_at + TIMESTAMP_LEN + 2;
    t->curl = curl_easy_init();
    if (!t->curl)
        return false;
    CURL *c = t->curl;
    curl_easy_setopt(c, CURLOPT_CURLU, l->run->order_url);
    curl_easy_setopt(c, CURLOPT_PROXY, "");                 /* ignore http_proxy */
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, l->run->headers);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, t->request);    /* not copied: rewritten in place */
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)t->request_len);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_response);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(c, CURLOPT_PRIVATE, t);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    if (l->run->opts->usual)
        return true;                  /* curl_easy_perform opens and polls its own socket */
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, l);
    curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, close_socket);
    curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, l);
    return true;
}

static int on_timer(CURLM *multi, long timeout_ms, void *userdata)
{
    (void)multi;
    struct loop *l = userdata;
    l->curl_due_ns = timeout_ms < 0 ? NOT_SET : now_ns() + timeout_ms * NS_PER_MS;
    return 0;
}

/* The thread's tally and its share of the connections (`connections` easy handles); tuned, its
 * multi, epoll and timer as well. */
static bool loop_init(struct loop *l, struct run *run, long long connections, size_t reserve)
{
    l->run = run;
    l->timer_armed_ns = NOT_SET;
    l->curl_due_ns = NOT_SET;
    l->stamp_second = -1;
    l->epoll_fd = l->timer_fd = -1;
    if (hdr_init(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_SIGNIFICANT_DIGITS, &l->latency) != 0 ||
        (run->opts->rate > 0 &&
         hdr_init(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_SIGNIFICANT_DIGITS, &l->uncorrected) != 0))
        return false;
    l->answers.capacity = reserve;
    l->answers.items = malloc(reserve * sizeof *l->answers.items);
    l->transfers = calloc((size_t)connections, sizeof *l->transfers);
    l->idle = calloc((size_t)connections, sizeof *l->idle);
    if (!l->answers.items || !l->transfers || !l->idle)
        return false;
    for (long long i = 0; i < connections; i++) {
        if (!transfer_init(&l->transfers[i], l))
            return false;
        l->idle[i] = &l->transfers[i];
    }
    l->transfer_count = l->idle_count = connections;
    if (run->opts->usual)
        return true;
    l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    l->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    l->multi = curl_multi_init();
    if (l->epoll_fd < 0 || l->timer_fd < 0 || !l->multi)
        return false;
    struct epoll_event due = {.events = EPOLLIN, .data.fd = l->timer_fd};
    if (epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->timer_fd, &due) != 0)
        return false;
    CURLM *m = l->multi;
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)connections);
    curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)connections);
    curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)connections);
    curl_multi_setopt(m, CURLMOPT_PIPELINING, (long)CURLPIPE_NOTHING);
    curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(m, CURLMOPT_SOCKETDATA, l);
    curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(m, CURLMOPT_TIMERDATA, l);
    return true;
}

static void loop_cleanup(struct loop *l)
{
    for (long long i = 0; i < l->transfer_count; i++)
        curl_easy_cleanup(l->transfers[i].curl);
    /* Before the epoll descriptor, as closing the connections still calls on_socket. */
    if (l->multi) {
        curl_multi_cleanup(l->multi);
        close(l->timer_fd);
        close(l->epoll_fd);
    }
    free(l->transfers);
    free(l->idle);
    free(l->watches);
    free(l->latency);
    free(l->uncorrected);
    free(l->answers.items);
}

static void act(struct loop *l, curl_socket_t socket, int events)
{
    int running;
    curl_multi_socket_action(l->multi, socket, events, &running);
}

static int64_t due_time(const struct phase *ph, const struct options *opts, long long i)
{
    return ph->origin_ns + llround((double)i * NS_PER_S / opts->rate);
}

/* Takes the next order to send now, in either design, from the phase's counter. `held` is an
 * order taken from the counter that is not due yet (TAKE_LATER: its due time is due_time(ph,
 * held)). With `settling`, warm-up orders come first, until measuring starts. TAKE_NONE: the
 * phase has no more for this thread. An open loop's order due when it can no longer be sent
 * is booked as a timeout, never sent. */
static enum take take_order(struct loop *l, struct phase *ph, bool settling, long long *held,
                            struct order *o)
{
    struct run *run = l->run;
    const bool open_loop = run->opts->rate > 0;
    for (;;) {
        if (settling && !atomic_load_explicit(&run->settle.measuring, memory_order_acquire)) {
            if (!settle_take(run))
                continue;                     /* measuring has just started: a measured order */
            /* Taken before the deadline, so --timeout alone bounds it. */
            int64_t now = now_ns();
            *o = (struct order){.measured = false, .settling = true, .due_ns = now,
                                .sent_ns = now, .timeout_ms = run->timeout_ms};
            l->warmup_sent++;
            return TAKE_SEND;
        }
        if (*held == NO_ORDER) {
            *held = atomic_fetch_add_explicit(&ph->next, 1, memory_order_relaxed);
            if (*held >= ph->count) {
                *held = NO_ORDER;
                return TAKE_NONE;
            }
        }
        int64_t now = now_ns();
        int64_t due_ns = open_loop ? due_time(ph, run->opts, *held) : now;
        if (due_ns > now)
            return TAKE_LATER;
        bool measured = *held >= ph->first_measured;
        *held = NO_ORDER;
        if (now >= ph->stop_taking_ns) {
            if (!open_loop)
                return TAKE_NONE;
            /* Every handle was busy until window + timeout: a timeout, never sent. */
            if (measured) {
                l->timeouts++;
                l->unsent++;
            }
            continue;
        }
        /* An order never outlives the phase's hard stop; cut short, it is a timeout. */
        long timeout_ms = run->timeout_ms;
        int64_t left_ms = (ph->hard_stop_ns - now) / NS_PER_MS;
        if (left_ms < timeout_ms)
            timeout_ms = left_ms > 1 ? (long)left_ms : 1;
        *o = (struct order){.measured = measured, .settling = false, .due_ns = due_ns,
                            .sent_ns = now, .timeout_ms = timeout_ms};
        if (!measured)
            l->warmup_sent++;
        return TAKE_SEND;
    }
}

/* Readies a transfer for an order, in either design: its body's timestamp and its timeout. */
static void prepare_order(struct loop *l, struct transfer *t, const struct order *o)
{
    t->order = *o;
    t->response_len = 0;
    write_timestamp(l, t->request + (t->request_len - 2 - TIMESTAMP_LEN));
    curl_easy_setopt(t->curl, CURLOPT_TIMEOUT_MS, o->timeout_ms);
}

/* Sends orders on the idle transfers while there are orders to send now (curl starts each at
 * its next timeout action). `exhausted`: the phase has no more for this loop. */
static void launch_due(struct loop *l, struct phase *ph, bool settling, long long *held,
                       bool *exhausted)
{
    struct order o;
    while (!*exhausted && l->idle_count > 0) {
        enum take take = take_order(l, ph, settling, held, &o);
        if (take == TAKE_LATER)
            return;
        if (take == TAKE_NONE) {
            *exhausted = true;
            return;
        }
        struct transfer *t = l->idle[--l->idle_count];
        prepare_order(l, t, &o);
        curl_multi_add_handle(l->multi, t->curl);
    }
}

/* Sleeps until a socket is ready, curl's timer runs out or the held order falls due (the
 * timerfd: epoll_wait's own timeout counts whole milliseconds), and hands the ready sockets to
 * curl. */
static void wait_events(struct loop *l, const struct phase *ph, long long held)
{
    int timeout_ms = MAX_WAIT_MS;
    if (l->curl_due_ns != NOT_SET) {
        int64_t left_ns = l->curl_due_ns - now_ns();
        int64_t left_ms = left_ns <= 0 ? 0 : (left_ns + NS_PER_MS - 1) / NS_PER_MS;
        timeout_ms = left_ms < MAX_WAIT_MS ? (int)left_ms : MAX_WAIT_MS;
    }
    if (held != NO_ORDER) {
        int64_t due_ns = due_time(ph, l->run->opts, held);
        if (due_ns != l->timer_armed_ns) {
            struct itimerspec spec = {
                .it_value = {.tv_sec = due_ns / NS_PER_S, .tv_nsec = due_ns % NS_PER_S},
            };
            timerfd_settime(l->timer_fd, TFD_TIMER_ABSTIME, &spec, NULL);
            l->timer_armed_ns = due_ns;
        }
    }
    struct epoll_event events[64];
    int ready = epoll_wait(l->epoll_fd, events, 64, timeout_ms);
    for (int i = 0; i < ready; i++) {
        const struct epoll_event *e = &events[i];
        if (e->data.fd == l->timer_fd) {
            uint64_t expirations;
            while (read(l->timer_fd, &expirations, sizeof expirations) > 0) {
            }
            l->timer_armed_ns = NOT_SET;
            continue;
        }
        struct watch *w = &l->watches[e->data.fd];
        if (!w->curl) {
            /* An idle connection's socket woke epoll (the server closed it): out of epoll, until
             * curl asks for it again. */
            epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, e->data.fd, NULL);
            w->events = 0;
            continue;
        }
        int mask = (e->events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                   (e->events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                   (e->events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        act(l, e->data.fd, mask);
    }
}

static enum outcome outcome_of(const struct transfer *t, CURLcode result)
{
    if (result == CURLE_OPERATION_TIMEDOUT)
        return ORDER_TIMEOUT;
    long status = 0;
    if (result != CURLE_OK ||
        curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK ||
        status != 200 || !memmem(t->response, t->response_len, "SUCCESS", 7))
        return ORDER_ERROR;
    return ORDER_OK;
}

/* Books a finished transfer's order, in either design: a measured one in the tally, an ok
 * settling one in its settle window. */
static void finish_order(struct loop *l, const struct phase *ph, const struct transfer *t,
                         CURLcode result, int64_t done_ns)
{
    const struct order *o = &t->order;
    enum outcome outcome = outcome_of(t, result);
    if (o->measured)
        book(l, ph, outcome, o->due_ns, o->sent_ns, done_ns);
    else if (o->settling && outcome == ORDER_OK)
        settle_answer(l->run, done_ns, done_ns - o->sent_ns);
}

/* Books the answers in, and makes their transfers idle again. */
static void collect(struct loop *l, const struct phase *ph)
{
    int left;
    int64_t done_ns = now_ns();
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(l->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        CURLcode result = msg->data.result;
        struct transfer *t;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&t);
        curl_multi_remove_handle(l->multi, t->curl);
        l->idle[l->idle_count++] = t;
        finish_order(l, ph, t, result, done_ns);
    }
}

/* Runs until the phase has nothing left for this loop and its last answer is in. */
static void loop_run(struct loop *l, struct phase *ph, bool settling)
{
    long long held = NO_ORDER;
    bool exhausted = false;
    for (;;) {
        launch_due(l, ph, settling, &held, &exhausted);
        if (exhausted && l->idle_count == l->transfer_count)
            return;
        wait_events(l, ph, held);
        if (l->curl_due_ns != NOT_SET && now_ns() >= l->curl_due_ns) {
            l->curl_due_ns = NOT_SET;
            act(l, CURL_SOCKET_TIMEOUT, 0);
        }
        collect(l, ph);
    }
}

/* ---- The usual design: a thread per connection --------------------------------------------- */

/* Runs until the phase has nothing left for this thread: its one easy handle sends each order
 * it takes with a blocking curl_easy_perform; in an open loop it first sleeps until the order
 * is due. */
static void usual_run(struct loop *l, struct phase *ph, bool settling)
{
    struct transfer *t = &l->transfers[0];
    long long held = NO_ORDER;
    struct order o;
    for (;;) {
        enum take take = take_order(l, ph, settling, &held, &o);
        if (take == TAKE_NONE)
            return;
        if (take == TAKE_LATER) {
            sleep_until_ns(due_time(ph, l->run->opts, held));
            continue;
        }
        prepare_order(l, t, &o);
        CURLcode result = curl_easy_perform(t->curl);
        finish_order(l, ph, t, result, now_ns());
    }
}

/* A thread of either design: a tuned event loop or a usual connection's thread. */
static void *loop_main(void *arg)
{
    struct loop *l = arg;
    struct run *run = l->run;
    if (l->pin_cpu >= 0) {
        cpu_set_t cpus;
        CPU_ZERO(&cpus);
        if (l->pin_cpu >= CPU_SETSIZE) {
            l->pin_errno = EINVAL;
        } else {
            CPU_SET(l->pin_cpu, &cpus);
            l->pin_errno = pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
        }
    }
    void (*run_phase)(struct loop *, struct phase *, bool) =
        run->opts->usual ? usual_run : loop_run;
    pthread_barrier_wait(&run->barrier);      /* ready */
    pthread_barrier_wait(&run->barrier);      /* warm-up scheduled */
    run_phase(l, &run->warmup, false);
    pthread_barrier_wait(&run->barrier);      /* warm-up done */
    pthread_barrier_wait(&run->barrier);      /* measurement scheduled, or settling begun */
    run_phase(l, &run->measure, run->settling);
    return NULL;
}

/* All loops' answers in one list in sort_samples' order; NULL (with *count 0) when there
 * are none. Exits 1 when memory ran out, here or in a loop: intervals that miss orders would
 * break sum(count) = ok, and a run without its intervals is a failed run (like hdr_init). */
static struct sample *merge_answers(struct loop *loops, long long loops_count, size_t *count)
{
    size_t total = 0;
    for (long long i = 0; i < loops_count; i++) {
        if (loops[i].answers.lost) {
            fprintf(stderr, "c_client: out of memory keeping the answers for intervals\n");
            exit(1);
        }
        total += loops[i].answers.count;
    }
    *count = total;
    if (total == 0)
        return NULL;
    struct sample *all = malloc(total * sizeof *all);
    if (!all) {
        fprintf(stderr, "c_client: out of memory merging the answers for intervals\n");
        exit(1);
    }
    size_t used = 0;
    for (long long i = 0; i < loops_count; i++) {
        struct answers *a = &loops[i].answers;
        memcpy(all + used, a->items, a->count * sizeof *all);
        used += a->count;
    }
    sort_samples(all, total);
    return all;
}

static const char *describe_pinning(const struct options *opts, struct loop *loops,
                                    long long count, char *out, size_t out_size)
{
    if (opts->pin_count == 0)
        return "off";
    for (long long i = 0; i < count; i++) {
        if (loops[i].pin_errno != 0) {
            snprintf(out, out_size, "refused: %s", strerror(loops[i].pin_errno));
            return out;
        }
    }
    size_t used = (size_t)snprintf(out, out_size, "applied: ");
    for (int i = 0; i < opts->pin_count && used < out_size; i++)
        used += (size_t)snprintf(out + used, out_size - used, i ? ",%d" : "%d",
                                 opts->pin_cpus[i]);
    return out;
}

/* One loop per CPU this process may run on (taskset narrows it), at most one per connection:
 * more loops than CPUs would only take turns. */
static long long loop_count(long long connections)
{
    cpu_set_t cpus;
    long long n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus)
                                                                 : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n < connections ? n : connections;
}

int main(int argc, char **argv)
{
    struct options opts;
    parse_options(argc, argv, &opts);
    const bool open_loop = opts.rate > 0;

    char mlock_state[128] = "off";
    if (opts.mlock) {
        if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
            snprintf(mlock_state, sizeof mlock_state, "applied");
        else
            snprintf(mlock_state, sizeof mlock_state, "refused: %s", strerror(errno));
    }

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "c_client: curl_global_init failed\n");
        return 1;
    }
    struct run run = {.opts = &opts, .settling = !open_loop && opts.settle_s > 0};
    pthread_mutex_init(&run.settle.lock, NULL);
    atomic_init(&run.settle.measuring, false);
    size_t url_len = strlen(opts.url);
    while (url_len > 0 && opts.url[url_len - 1] == '/')
        url_len--;
    char *order_url = malloc(url_len + sizeof "/order");
    run.order_url = curl_url();
    if (!order_url || !run.order_url)
        return 1;
    memcpy(order_url, opts.url, url_len);
    memcpy(order_url + url_len, "/order", sizeof "/order");
    /* A URL curl cannot parse is left empty: every order is then an error, as it was when each
     * transfer parsed it. */
    curl_url_set(run.order_url, CURLUPART_URL, order_url, 0);
    free(order_url);
    run.timeout_ms = (long)ceil(opts.timeout_s * 1000);
    /* "Expect:" keeps curl from waiting for a 100-continue it would never need here. */
    run.headers = curl_slist_append(NULL, "Content-Type: application/json");
    run.headers = curl_slist_append(run.headers, "Accept: application/json");
    run.headers = curl_slist_append(run.headers, "Expect:");
    if (!run.headers) {
        fprintf(stderr, "c_client: out of memory\n");
        return 1;
    }

    long long measured = open_loop ? (long long)floor(opts.rate * opts.duration_s)
                         : opts.orders > 0 ? opts.orders : LLONG_MAX;
    /* Room for the measured orders up front, so that growing a list (a copy) rarely falls
     * between two answers. Each thread (tuned: a loop; usual: a connection's) gets room for up
     * to its share of the cap: the threads share one counter, so one of them may well take more
     * than an even share of a small run. Capped,
     * as a closed loop's --orders may be far more than --duration lets it send, and mlockall
     * would lock it all. A trial by time (--orders 0) has no count to go by: its lists grow
     * with the answers. */
    /* The threads: tuned, one event loop per CPU; usual, one per connection. */
    long long count = opts.usual ? opts.connections : loop_count(opts.connections);
    long long expected = open_loop ? measured : opts.orders;
    size_t reserve = (size_t)(expected < ANSWERS_RESERVE / count ? expected
                                                                 : ANSWERS_RESERVE / count);
    if (reserve < 64)
        reserve = 64;
    struct loop *loops = calloc((size_t)count, sizeof *loops);
    if (!loops || pthread_barrier_init(&run.barrier, NULL, (unsigned)count + 1) != 0) {
        fprintf(stderr, "c_client: out of memory\n");
        return 1;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, LOOP_STACK);
    for (long long k = 0; k < count; k++) {
        struct loop *l = &loops[k];
        long long share = opts.connections / count + (k < opts.connections % count);
        l->pin_cpu = opts.pin_count ? opts.pin_cpus[k % opts.pin_count] : -1;
        if (!loop_init(l, &run, share, reserve)) {
            fprintf(stderr, "c_client: cannot set up %s %lld\n",
                    opts.usual ? "connection thread" : "event loop", k);
            return 1;
        }
        int rc = pthread_create(&l->thread, &attr, loop_main, l);
        if (rc != 0) {
            fprintf(stderr, "c_client: pthread_create: %s\n", strerror(rc));
            return 1;
        }
    }
    pthread_attr_destroy(&attr);

    /* Closed loop: a warm-up phase of W orders, bounded by --duration, then (--settle) the
     * warm-up until the answers settle, then the N measured orders (--orders 0: as many as
     * --duration takes). Open loop: an empty warm-up phase; the measured phase's first W orders
     * are the warm-up, due at the same rate. */
    pthread_barrier_wait(&run.barrier);
    long long warmup_phase = open_loop ? 0 : opts.warmup;
    schedule(&run.warmup, &opts, warmup_phase, warmup_phase, opts.duration_s);
    pthread_barrier_wait(&run.barrier);
    pthread_barrier_wait(&run.barrier);

    long long unmeasured = open_loop ? opts.warmup : 0;
    if (run.settling) {
        /* The loops switch to measuring by themselves; this thread closes each window as it
         * ends, so that the switch comes on time even when answers are few. */
        run.measured = measured;
        struct settle *s = &run.settle;
        s->origin_ns = now_ns();
        double settle_ns = opts.settle_s * NS_PER_S;
        s->deadline_ns = s->origin_ns + (settle_ns < 1e18 ? (int64_t)settle_ns : (int64_t)1e18);
        pthread_barrier_wait(&run.barrier);
        for (;;) {
            pthread_mutex_lock(&s->lock);
            int64_t now = now_ns();
            bool measuring = settle_update(&run, now, now);
            int64_t wake = s->origin_ns + (s->window + 1) * SETTLE_WINDOW_NS;
            pthread_mutex_unlock(&s->lock);
            if (measuring)
                break;
            sleep_until_ns(wake < s->deadline_ns ? wake : s->deadline_ns);
        }
    } else {
        schedule(&run.measure, &opts, unmeasured + measured, unmeasured, opts.duration_s);
        pthread_barrier_wait(&run.barrier);
    }
    for (long long k = 0; k < count; k++)
        pthread_join(loops[k].thread, NULL);
    int64_t start_ns = run.measure.start_ns;
    double duration_s = (double)(now_ns() - start_ns) / NS_PER_S;
    /* An open loop's window lasts its full length even when its last order was answered
     * before the end. */
    if (open_loop && duration_s < opts.duration_s)
        duration_s = opts.duration_s;

    struct hdr_histogram *latency, *uncorrected;
    if (hdr_init(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_SIGNIFICANT_DIGITS, &latency) != 0 ||
        hdr_init(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_SIGNIFICANT_DIGITS, &uncorrected) != 0) {
        fprintf(stderr, "c_client: hdr_init failed\n");
        return 1;
    }
    long long ok = 0, errors = 0, timeouts = 0, unsent = 0, warmup_orders = 0;
    for (long long k = 0; k < count; k++) {
        struct loop *l = &loops[k];
        hdr_add(latency, l->latency);
        if (l->uncorrected)
            hdr_add(uncorrected, l->uncorrected);
        ok += l->ok;
        errors += l->errors;
        timeouts += l->timeouts;
        unsent += l->unsent;
        warmup_orders += l->warmup_sent;
    }
    /* From the first warm-up order (open loop: its due time) to the start of measuring. */
    int64_t warmup_from_ns = open_loop ? run.measure.origin_ns
                             : opts.warmup > 0 ? run.warmup.origin_ns : run.settle.origin_ns;
    double warmup_s = warmup_orders > 0 ? (double)(start_ns - warmup_from_ns) / NS_PER_S : 0;
    char settle_state[64] = "off";
    if (run.settling && run.settle.settled)
        snprintf(settle_state, sizeof settle_state, "settled");
    else if (run.settling)
        snprintf(settle_state, sizeof settle_state, "not settled in %g s", opts.settle_s);
    long long orders = ok + errors + timeouts;
    if (unsent > 0)
        fprintf(stderr, "c_client: %lld orders were never sent: every handle was busy until "
                "--duration + --timeout\n", unsent);
    size_t answers_count;
    struct sample *answers = merge_answers(loops, count, &answers_count);

    char pin_state[4096];
    char *latency_text = encode_histogram(latency);
    printf("{\"client\": \"" CLIENT_NAME "\", \"mode\": \"%s\", \"latency_hdr\": \"%s\", ",
           open_loop ? "open" : "closed", latency_text);
    if (open_loop) {
        char *uncorrected_text = encode_histogram(uncorrected);
        printf("\"latency_uncorrected_hdr\": \"%s\", ", uncorrected_text);
        free(uncorrected_text);
    }
    printf("\"orders\": %lld, \"ok\": %lld, \"errors\": %lld, \"timeouts\": %lld, "
           "\"success_rate\": %.6f, \"duration_s\": %.6f, \"throughput\": %.3f, "
           "\"target_rate\": %.9g, \"achieved_rate\": %.3f, "
           "\"warmup_orders\": %lld, \"warmup_s\": %.6f, "
           "\"tuning\": {\"pin_cpus\": \"%s\", \"mlock\": \"%s\", \"settle\": \"%s\", "
           "\"library\": \"%s\"}, ",
           orders, ok, errors, timeouts, orders ? (double)ok / orders : 0.0, duration_s,
           ok / duration_s, opts.rate, (orders - unsent) / duration_s, warmup_orders, warmup_s,
           describe_pinning(&opts, loops, count, pin_state, sizeof pin_state), mlock_state,
           settle_state, opts.usual ? "usual" : "tuned");
    print_intervals(answers, answers_count);
    printf("}\n");
    free(latency_text);
    free(answers);
    fflush(stdout);

    for (long long k = 0; k < count; k++)
        loop_cleanup(&loops[k]);
    curl_slist_free_all(run.headers);
    free(latency);
    free(uncorrected);
    free(loops);
    curl_url_cleanup(run.order_url);
    free(opts.pin_cpus);
    pthread_barrier_destroy(&run.barrier);
    pthread_mutex_destroy(&run.settle.lock);
    free(run.settle.latencies);
    curl_global_cleanup();
    return ok > 0 ? 0 : 1;
}
