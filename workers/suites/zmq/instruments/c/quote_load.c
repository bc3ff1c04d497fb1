/*
 * The zmq suite's C instrument (libzmq, the floor): load on the quote server over REQ-REP,
 * DEALER-ROUTER or PUB-SUB with a socket profile, for a window of seconds, one JSON document
 * on stdout. It follows the same contract as the Python instrument (../../README.md): same
 * arguments, same JSON, same counting.
 *
 *   quote-load-c --pattern req-rep|dealer-router|pub-sub --profile baseline|baseline-128k|tuned --symbol S
 *                --router HOST:PORT --pub HOST:PORT --window SECONDS --warmup N
 *                --in-flight K --subscribers N [--join-delay-ms MS] [--read-delay-us US]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <hdr_histogram.h>
#include <hdr_histogram_log.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define PROGRAM "quote-load-c"
#include "../../program.h"
#include "../../latency.h"

#define HIST_LOWEST_NS 1
#define HIST_HIGHEST_NS (3600 * NS_PER_S)
#define HIST_SIGNIFICANT_DIGITS 3
#define MAX_SYMBOL_LEN 32
#define MESSAGE_CAP 256        /* a quote answer or a tick's numbers; a tick's padding is cut */
#define BATCH 256              /* ticks taken from one subscriber before looking at the others */
#define OPTION_COUNT 6

enum pattern { REQ_REP, DEALER_ROUTER, PUB_SUB };
static const char *const PATTERN_NAMES[] = {"req-rep", "dealer-router", "pub-sub"};

/* The socket profiles (README.md): -1 = not set, libzmq's default kept. */
struct profile {
    const char *name;
    int values[OPTION_COUNT];
};
static const char *const OPTION_NAMES[OPTION_COUNT] = {
    "sndbuf", "rcvbuf", "rcvtimeo", "tcp_keepalive", "tcp_keepalive_idle", "linger"};
static const int OPTION_IDS[OPTION_COUNT] = {
    ZMQ_SNDBUF, ZMQ_RCVBUF, ZMQ_RCVTIMEO, ZMQ_TCP_KEEPALIVE, ZMQ_TCP_KEEPALIVE_IDLE,
    ZMQ_LINGER};
#define NOT_SET INT32_MIN
static const struct profile PROFILES[] = {
    {"baseline", {NOT_SET, NOT_SET, 5000, NOT_SET, NOT_SET, NOT_SET}},
    {"baseline-128k", {128000, 128000, 5000, NOT_SET, NOT_SET, NOT_SET}},
    {"tuned", {256000, 256000, 2000, 1, 300, 0}},
};
#define RCVTIMEO_AT 2

struct options {
    enum pattern pattern;
    const struct profile *profile;
    const char *symbol;
    char router[300];          /* tcp://HOST:PORT */
    char pub[300];
    double window_s;
    long long warmup;
    long long in_flight;
    long long subscribers;
    long long join_delay_ms;
    long long read_delay_us;
};

/* What the measured messages came to: sent = samples + errors + timeouts + gaps + join_gaps +
 * backlog. */
struct tally {
    long long sent, samples, errors, timeouts, gaps, join_gaps, backlog;
    struct hdr_histogram *latency;
    struct sample *answers;           /* for "intervals" (latency.h) */
    size_t answers_cap;
    int64_t start_ns, elapsed_ns;
};

static void *context;
static char tuning[OPTION_COUNT][64];
static bool tuning_read;

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static void fail(const char *what)
{
    fprintf(stderr, "quote-load-c: %s\n", what);
    exit(1);
}

static void usage(const char *problem)
{
    fprintf(stderr, "quote-load-c: %s\n"
            "usage: quote-load-c --pattern req-rep|dealer-router|pub-sub --profile "
            "baseline|baseline-128k|tuned --symbol S --router HOST:PORT --pub HOST:PORT --window SECONDS "
            "[--warmup N] [--in-flight K] [--subscribers N] [--join-delay-ms MS] "
            "[--read-delay-us US]\n", problem);
    exit(2);
}

static void parse_endpoint(const char *name, const char *text, char *out, size_t out_size)
{
    const char *colon = strrchr(text, ':');
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == text || colon[1] == '\0' || *end || port <= 0 || port > 65535 ||
        strlen(text) > 250) {
        fprintf(stderr, "quote-load-c: --%s: '%s' is not HOST:PORT\n", name, text);
        exit(2);
    }
    snprintf(out, out_size, "tcp://%s", text);
}

static bool valid_symbol(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > MAX_SYMBOL_LEN)
        return false;
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == len;
}

static struct options parse(int argc, char **argv)
{
    struct options o = {.pattern = -1, .window_s = -1, .in_flight = 1, .subscribers = 1};
    bool have_router = false, have_pub = false;
    static const struct option long_options[] = {
        {"pattern", required_argument, NULL, 'p'},
        {"profile", required_argument, NULL, 'P'},
        {"symbol", required_argument, NULL, 's'},
        {"router", required_argument, NULL, 'r'},
        {"pub", required_argument, NULL, 'b'},
        {"window", required_argument, NULL, 'w'},
        {"warmup", required_argument, NULL, 'W'},
        {"in-flight", required_argument, NULL, 'k'},
        {"subscribers", required_argument, NULL, 'n'},
        {"join-delay-ms", required_argument, NULL, 'j'},
        {"read-delay-us", required_argument, NULL, 'd'},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (c) {
        case 'p':
            for (int i = 0; i < 3; i++)
                if (strcmp(optarg, PATTERN_NAMES[i]) == 0)
                    o.pattern = (enum pattern)i;
            if ((int)o.pattern < 0)
                usage("--pattern is req-rep, dealer-router or pub-sub");
            break;
        case 'P':
            for (size_t i = 0; i < sizeof PROFILES / sizeof *PROFILES; i++)
                if (strcmp(optarg, PROFILES[i].name) == 0)
                    o.profile = &PROFILES[i];
            if (!o.profile)
                usage("--profile is baseline, baseline-128k or tuned");
            break;
        case 's':
            if (!valid_symbol(optarg))
                usage("--symbol is 1..32 of A-Z a-z 0-9 . _ -");
            o.symbol = optarg;
            break;
        case 'r': parse_endpoint("router", optarg, o.router, sizeof o.router); have_router = true;
            break;
        case 'b': parse_endpoint("pub", optarg, o.pub, sizeof o.pub); have_pub = true; break;
        case 'w':
            errno = 0;
            o.window_s = strtod(optarg, &end);
            if (errno || *end || end == optarg || !(o.window_s >= 0.001 && o.window_s <= 86400))
                usage("--window must be a number of seconds in 0.001..86400");
            break;
        case 'W': o.warmup = parse_integer("warmup", optarg, 0, 10000000); break;
        case 'k': o.in_flight = parse_integer("in-flight", optarg, 1, 10000); break;
        case 'n': o.subscribers = parse_integer("subscribers", optarg, 1, 10000); break;
        case 'j': o.join_delay_ms = parse_integer("join-delay-ms", optarg, 0, 3600000); break;
        case 'd': o.read_delay_us = parse_integer("read-delay-us", optarg, 0, 10000000); break;
        default: usage("unknown argument");
        }
    }
    if (optind != argc)
        usage("unexpected positional argument");
    if ((int)o.pattern < 0 || !o.profile || !o.symbol || !have_router || !have_pub ||
        o.window_s < 0)
        usage("--pattern, --profile, --symbol, --router, --pub and --window are required");
    return o;
}

static int64_t timeout_ns(const struct options *o)
{
    return (int64_t)o->profile->values[RCVTIMEO_AT] * NS_PER_MS;
}

/* Sets the profile's options and reads every option back into `tuning` (the first measured
 * socket's): "applied: v", "default: v" (not set by the profile) or "refused: <why>". */
static void configure(void *socket, const struct profile *profile, bool measured)
{
    for (int i = 0; i < OPTION_COUNT; i++) {
        char text[64];
        int wanted = profile->values[i], got = 0;
        size_t size = sizeof got;
        if (wanted != NOT_SET &&
            zmq_setsockopt(socket, OPTION_IDS[i], &wanted, sizeof wanted) != 0) {
            snprintf(text, sizeof text, "refused: %s", zmq_strerror(errno));
        } else if (zmq_getsockopt(socket, OPTION_IDS[i], &got, &size) != 0) {
            snprintf(text, sizeof text, "refused: cannot read back: %s", zmq_strerror(errno));
        } else if (wanted == NOT_SET) {
            snprintf(text, sizeof text, "default: %d", got);
        } else if (got == wanted) {
            snprintf(text, sizeof text, "applied: %d", got);
        } else {
            snprintf(text, sizeof text, "refused: set %d, read back %d", wanted, got);
        }
        if (measured && !tuning_read)
            memcpy(tuning[i], text, sizeof text);
    }
    if (measured)
        tuning_read = true;
}

static void *open_socket(int type, const char *endpoint, const struct options *o,
                         bool measured)
{
    void *socket = zmq_socket(context, type);
    if (!socket)
        fail("zmq_socket failed");
    configure(socket, o->profile, measured);
    if (zmq_connect(socket, endpoint) != 0)
        fail("zmq_connect failed");
    return socket;
}

static void tally_init(struct tally *t)
{
    memset(t, 0, sizeof *t);
    if (hdr_init(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_SIGNIFICANT_DIGITS, &t->latency) != 0)
        fail("hdr_init failed");
}

static void record(struct tally *t, int64_t now, int64_t latency_ns)
{
    latency_ns = record_ns(t->latency, latency_ns);
    if ((size_t)t->samples == t->answers_cap) {
        size_t cap = t->answers_cap ? 2 * t->answers_cap : 4096;
        struct sample *grown = realloc(t->answers, cap * sizeof *grown);
        if (!grown)
            fail("out of memory keeping the samples for intervals");
        t->answers = grown;
        t->answers_cap = cap;
    }
    t->answers[t->samples++] = sample_at(now - t->start_ns, latency_ns);
}

/* Quote requests "Q <id> <symbol>"; an answer is "<id> <symbol> <seq> <bid> <ask> <stamp>"
 * or "<id> ERR <why>". */
static int request_text(char *out, size_t size, long long id, const char *symbol)
{
    return snprintf(out, size, "Q %lld %s", id, symbol);
}

/* Reads an answer: its request id (-1 if unreadable) and, unless it is an error, its seq. */
static long long read_answer(const char *body, size_t len, const char *symbol, long long *seq)
{
    char text[MESSAGE_CAP], name[MAX_SYMBOL_LEN + 2];
    size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
    memcpy(text, body, n);
    text[n] = '\0';
    long long id, tick;
    double bid, ask;
    long long stamp;
    int fields = sscanf(text, "%lld %33s %lld %lf %lf %lld", &id, name, &tick, &bid, &ask, &stamp);
    if (fields < 1)
        return -1;
    *seq = fields == 6 && strcmp(name, symbol) == 0 ? tick : -1;
    return id;
}

static long long next_id;

/* REQ-REP: one request at a time; an answer not there after RCVTIMEO is a timeout, and the
 * socket (stuck awaiting that answer) is closed and reopened. */
static void *round_trip(void *sock, const struct options *o, struct tally *t, bool measured)
{
    char body[MESSAGE_CAP], answer[MESSAGE_CAP];
    long long id = ++next_id;
    int len = request_text(body, sizeof body, id, o->symbol);
    int64_t sent = now_ns();
    if (zmq_send(sock, body, (size_t)len, 0) < 0)
        fail("zmq_send failed");
    int got = zmq_recv(sock, answer, sizeof answer, 0);
    int64_t done = now_ns();
    if (got < 0) {
        if (errno != EAGAIN)
            fail("zmq_recv failed");
        zmq_close(sock);
        sock = open_socket(ZMQ_REQ, o->router, o, true);
        if (measured) {
            t->sent++;
            t->timeouts++;
        }
        return sock;
    }
    if (!measured)
        return sock;
    t->sent++;
    long long seq;
    size_t n = (size_t)got < sizeof answer ? (size_t)got : sizeof answer;
    if (read_answer(answer, n, o->symbol, &seq) == id && seq >= 0)
        record(t, done, done - sent);
    else
        t->errors++;
    return sock;
}

static void run_req_rep(const struct options *o, struct tally *t)
{
    void *sock = open_socket(ZMQ_REQ, o->router, o, true);
    int64_t window = (int64_t)(o->window_s * NS_PER_S);
    int64_t warmup_end = now_ns() + window;
    for (long long i = 0; i < o->warmup && now_ns() < warmup_end; i++)
        sock = round_trip(sock, o, t, false);
    t->start_ns = now_ns();
    int64_t end = t->start_ns + window;
    while (now_ns() < end)
        sock = round_trip(sock, o, t, true);
    t->elapsed_ns = now_ns() - t->start_ns;
}

/* DEALER-ROUTER: K requests in flight on one DEALER; each answer (or timeout after RCVTIMEO)
 * frees a slot for the next request while the window is open. */
struct slot {
    long long id;              /* 0: free */
    int64_t sent_ns;
};

struct dealer {
    void *sock;
    const struct options *o;
    struct slot *slots;
    long long busy, issued, limit;   /* limit < 0: no limit but the window */
    int64_t end_ns;
};

static bool open_for_more(const struct dealer *d)
{
    return now_ns() < d->end_ns && (d->limit < 0 || d->issued < d->limit);
}

static void dealer_send(struct dealer *d, struct slot *s)
{
    char body[MESSAGE_CAP];
    s->id = ++next_id;
    int len = request_text(body, sizeof body, s->id, d->o->symbol);
    s->sent_ns = now_ns();
    if (zmq_send(d->sock, "", 0, ZMQ_SNDMORE) < 0 || zmq_send(d->sock, body, (size_t)len, 0) < 0)
        fail("zmq_send failed");
    d->busy++;
    d->issued++;
}

static void dealer_phase(struct dealer *d, struct tally *t, bool measured)
{
    const struct options *o = d->o;
    const int64_t timeout = timeout_ns(o);
    for (long long i = 0; i < o->in_flight && open_for_more(d); i++)
        dealer_send(d, &d->slots[i]);
    zmq_pollitem_t item = {d->sock, 0, ZMQ_POLLIN, 0};
    while (d->busy > 0) {
        int64_t oldest = INT64_MAX;
        for (long long i = 0; i < o->in_flight; i++)
            if (d->slots[i].id && d->slots[i].sent_ns < oldest)
                oldest = d->slots[i].sent_ns;
        int64_t wait = oldest + timeout - now_ns();
        long wait_ms = wait > 0 ? (long)((wait + NS_PER_MS - 1) / NS_PER_MS) : 0;
        if (zmq_poll(&item, 1, wait_ms) < 0 && errno != EINTR)
            fail("zmq_poll failed");
        for (;;) {
            char answer[MESSAGE_CAP];
            int more = 0;
            size_t more_size = sizeof more;
            int got = zmq_recv(d->sock, answer, sizeof answer, ZMQ_DONTWAIT);
            if (got < 0)
                break;
            zmq_getsockopt(d->sock, ZMQ_RCVMORE, &more, &more_size);
            if (more)
                continue;  /* the empty delimiter; the answer is the last frame */
            int64_t done = now_ns();
            long long seq;
            size_t n = (size_t)got < sizeof answer ? (size_t)got : sizeof answer;
            long long id = read_answer(answer, n, o->symbol, &seq);
            struct slot *s = NULL;
            for (long long i = 0; i < o->in_flight && !s; i++)
                if (d->slots[i].id == id && id > 0)
                    s = &d->slots[i];
            if (!s)
                continue;  /* the answer to a request that already timed out */
            if (measured) {
                t->sent++;
                if (seq < 0)
                    t->errors++;
                else
                    record(t, done, done - s->sent_ns);
            }
            s->id = 0;
            d->busy--;
            if (open_for_more(d))
                dealer_send(d, s);
        }
        int64_t expired_before = now_ns() - timeout;
        for (long long i = 0; i < o->in_flight; i++) {
            struct slot *s = &d->slots[i];
            if (!s->id || s->sent_ns > expired_before)
                continue;
            s->id = 0;
            d->busy--;
            if (measured) {
                t->sent++;
                t->timeouts++;
            }
            if (open_for_more(d))
                dealer_send(d, s);
        }
    }
}

static void run_dealer_router(const struct options *o, struct tally *t)
{
    struct dealer d = {.sock = open_socket(ZMQ_DEALER, o->router, o, true), .o = o};
    d.slots = calloc((size_t)o->in_flight, sizeof *d.slots);
    if (!d.slots)
        fail("out of memory");
    int64_t window = (int64_t)(o->window_s * NS_PER_S);
    struct tally warmup;
    tally_init(&warmup);
    d.limit = o->warmup;
    d.end_ns = now_ns() + window;
    dealer_phase(&d, &warmup, false);
    d.issued = 0;
    d.limit = -1;
    t->start_ns = now_ns();
    d.end_ns = t->start_ns + window;
    dealer_phase(&d, t, true);
    t->elapsed_ns = now_ns() - t->start_ns;
}

/* The sequence number of the symbol's latest tick, asked on the router (a REQ, reopened after
 * a timeout); -1 if no answer came by `until`. */
static long long latest_seq(const struct options *o, int64_t until)
{
    while (now_ns() < until) {
        void *sock = open_socket(ZMQ_REQ, o->router, o, false);
        char body[MESSAGE_CAP], answer[MESSAGE_CAP];
        long long id = ++next_id, seq = -1;
        int len = request_text(body, sizeof body, id, o->symbol);
        if (zmq_send(sock, body, (size_t)len, 0) < 0)
            fail("zmq_send failed");
        int got = zmq_recv(sock, answer, sizeof answer, 0);
        zmq_close(sock);
        if (got >= 0) {
            size_t n = (size_t)got < sizeof answer ? (size_t)got : sizeof answer;
            if (read_answer(answer, n, o->symbol, &seq) == id && seq >= 0)
                return seq;
        }
    }
    return -1;
}

struct subscriber {
    void *sock;
    long long first, last;     /* -1: none received yet */
};

/* Takes a batch of a subscriber's ticks (so none of N starves), stopping at `until` (a slow
 * reader always has more). Ticks outside (s0, limit] are skipped. */
static void receive(struct subscriber *sub, const struct options *o, struct tally *t,
                    long long s0, long long limit, int64_t until)
{
    for (int taken = 0; taken < BATCH && now_ns() < until; taken++) {
        char topic[MAX_SYMBOL_LEN + 1], body[MESSAGE_CAP];
        int topic_len = zmq_recv(sub->sock, topic, sizeof topic, ZMQ_DONTWAIT);
        if (topic_len < 0)
            return;
        int more = 0;
        size_t more_size = sizeof more;
        zmq_getsockopt(sub->sock, ZMQ_RCVMORE, &more, &more_size);
        if (!more)
            continue;
        int body_len = zmq_recv(sub->sock, body, sizeof body - 1, 0);
        int64_t received = now_ns();
        if (body_len < 0)
            continue;
        body[(size_t)body_len < sizeof body - 1 ? (size_t)body_len : sizeof body - 1] = '\0';
        if ((size_t)topic_len != strlen(o->symbol) || memcmp(topic, o->symbol, strlen(o->symbol)))
            continue;  /* another symbol sharing the prefix */
        long long seq, stamp;
        if (sscanf(body, "%lld %lld", &seq, &stamp) != 2)
            continue;
        if (seq <= s0 || (limit >= 0 && seq > limit))
            continue;
        if (sub->first < 0)
            sub->first = seq;
        else if (seq > sub->last + 1)
            t->gaps += seq - sub->last - 1;
        sub->last = seq;
        record(t, received, received - stamp);
        if (o->read_delay_us)
            sleep_ns(o->read_delay_us * 1000);
    }
}

/* PUB-SUB: N subscribers; every tick in (s0, s_end] ends up received or counted (README). */
static void run_pub_sub(const struct options *o, struct tally *t)
{
    int64_t window = (int64_t)(o->window_s * NS_PER_S);
    long long s0 = latest_seq(o, now_ns() + window);
    if (s0 < 0) {
        fprintf(stderr, "quote-load-c: the server's router never answered\n");
        t->errors++;
        return;
    }
    if (o->join_delay_ms)
        sleep_ns(o->join_delay_ms * NS_PER_MS);
    size_t n = (size_t)o->subscribers;
    struct subscriber *subs = calloc(n, sizeof *subs);
    zmq_pollitem_t *items = calloc(n, sizeof *items);
    if (!subs || !items)
        fail("out of memory");
    for (size_t i = 0; i < n; i++) {
        subs[i] = (struct subscriber){open_socket(ZMQ_SUB, o->pub, o, true), -1, -1};
        zmq_setsockopt(subs[i].sock, ZMQ_SUBSCRIBE, o->symbol, strlen(o->symbol));
        items[i] = (zmq_pollitem_t){subs[i].sock, 0, ZMQ_POLLIN, 0};
    }
    t->start_ns = now_ns();
    int64_t end = t->start_ns + window;
    for (int64_t left; (left = end - now_ns()) > 0;) {
        long wait_ms = left / NS_PER_MS > 0 ? (long)(left / NS_PER_MS) : 1;
        if (zmq_poll(items, (int)n, wait_ms) < 0 && errno != EINTR)
            fail("zmq_poll failed");
        for (size_t i = 0; i < n; i++)
            if (items[i].revents & ZMQ_POLLIN)
                receive(&subs[i], o, t, s0, -1, end);
    }
    t->elapsed_ns = now_ns() - t->start_ns;
    long long s_end = latest_seq(o, now_ns() + timeout_ns(o));
    if (s_end < 0) {
        fprintf(stderr, "quote-load-c: no answer for the last tick's number; the tail is not "
                "counted\n");
        t->errors++;
        s_end = s0;
        for (size_t i = 0; i < n; i++)
            if (subs[i].last > s_end)
                s_end = subs[i].last;
    }
    int64_t drain_end = now_ns() + timeout_ns(o);
    for (;;) {
        bool behind = false;
        for (size_t i = 0; i < n; i++)
            behind |= subs[i].last < s_end;
        int64_t left = drain_end - now_ns();
        if (!behind || left <= 0)
            break;
        long wait_ms = left / NS_PER_MS > 0 ? (long)(left / NS_PER_MS) : 1;
        if (zmq_poll(items, (int)n, wait_ms) < 0 && errno != EINTR)
            fail("zmq_poll failed");
        for (size_t i = 0; i < n; i++)
            if (items[i].revents & ZMQ_POLLIN)
                receive(&subs[i], o, t, s0, s_end, drain_end);
    }
    for (size_t i = 0; i < n; i++) {
        if (subs[i].first < 0) {
            t->join_gaps += s_end - s0;
        } else {
            t->join_gaps += subs[i].first - s0 - 1;
            t->backlog += s_end - subs[i].last;
        }
    }
    t->sent = (s_end - s0) * o->subscribers;
}

int main(int argc, char **argv)
{
    struct options o = parse(argc, argv);
    context = zmq_ctx_new();
    struct tally t;
    tally_init(&t);
    switch (o.pattern) {
    case REQ_REP: run_req_rep(&o, &t); break;
    case DEALER_ROUTER: run_dealer_router(&o, &t); break;
    case PUB_SUB: run_pub_sub(&o, &t); break;
    }
    char *encoded = encode_histogram(t.latency);
    double window_s = (double)t.elapsed_ns / NS_PER_S;
    printf("{\"instrument\": \"c\", \"pattern\": \"%s\", \"profile\": \"%s\", "
           "\"symbol\": \"%s\", \"latency_hdr\": \"%s\", \"sent\": %lld, \"samples\": %lld, "
           "\"errors\": %lld, \"timeouts\": %lld, \"gaps\": %lld, \"join_gaps\": %lld, "
           "\"backlog\": %lld, \"window_s\": %.9f, \"throughput\": %.6f, \"tuning\": {",
           PATTERN_NAMES[o.pattern], o.profile->name, o.symbol, encoded, t.sent, t.samples,
           t.errors, t.timeouts, t.gaps, t.join_gaps, t.backlog, window_s,
           window_s > 0 ? (double)t.samples / window_s : 0.0);
    for (int i = 0; tuning_read && i < OPTION_COUNT; i++)
        printf("%s\"%s\": \"%s\"", i ? ", " : "", OPTION_NAMES[i], tuning[i]);
    printf("}, ");
    sort_samples(t.answers, (size_t)t.samples);
    print_intervals(t.answers, (size_t)t.samples);
    printf("}\n");
    fflush(stdout);
    fprintf(stderr, "quote-load-c: %s %s %s: %lld samples, %lld timeouts, %lld errors, "
            "%lld gaps, %lld join gaps, %lld unread in %.3f s\n", PATTERN_NAMES[o.pattern],
            o.profile->name, o.symbol, t.samples, t.timeouts, t.errors, t.gaps, t.join_gaps,
            t.backlog, window_s);
    /* No zmq_ctx_term: a socket closed with LINGER -1 (the baseline) while a request to a dead
     * server was pending would hold it forever. Exiting ends libzmq's threads. */
    _exit(t.samples > 0 ? 0 : 1);
}
