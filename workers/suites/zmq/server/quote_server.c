/*
 * The zmq suite's quote server (libzmq): one ROUTER answers quote requests from REQ and
 * DEALER clients alike, one PUB publishes every symbol's ticks at a fixed rate. The contract
 * (arguments, messages, readiness line) is ../README.md.
 *
 *   quote-server --host 127.0.0.1 --symbols EURUSD.s,BTCUSD.s --tick-rate 100 --tick-bytes 64
 *                [--drop-every N]
 *
 * Both sockets keep libzmq's defaults: the socket profiles under test are the load's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define PROGRAM "quote-server"
#include "../program.h"

#define MAX_SYMBOLS 64
#define MAX_SYMBOL_LEN 32
#define SYMBOL_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
#define MAX_FRAMES 8          /* a routing envelope: identity (+ REQ/DEALER's empty frame) */
#define BODY_CAP 256
#define MAX_TICK_BYTES 65536

struct symbol {
    char name[MAX_SYMBOL_LEN + 1];
    long long seq;            /* ticks published so far; the last one's number */
    double bid;
    int64_t stamp_ns;         /* when the last tick was published */
};

struct options {
    const char *host;
    struct symbol symbols[MAX_SYMBOLS];
    int symbol_count;
    long long tick_rate;      /* ticks per second, per symbol */
    long long tick_bytes;     /* a tick's body is padded to this many bytes */
    long long drop_every;     /* test hook: leave every Nth request unanswered; 0 = off */
};

static volatile sig_atomic_t stopping;

static void on_signal(int signum)
{
    (void)signum;
    stopping = 1;
}

static void usage(const char *problem)
{
    fprintf(stderr, "quote-server: %s\n"
            "usage: quote-server --host ADDR --symbols S[,S...] --tick-rate N --tick-bytes N "
            "[--drop-every N]\n", problem);
    exit(2);
}

static void parse_symbols(struct options *opts, const char *text)
{
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        usage("out of memory");
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (opts->symbol_count == MAX_SYMBOLS)
            usage("too many symbols");
        size_t len = strlen(name);
        if (len == 0 || len > MAX_SYMBOL_LEN || strspn(name, SYMBOL_CHARS) != len)
            usage("a symbol is 1..32 of A-Z a-z 0-9 . _ -");
        struct symbol *s = &opts->symbols[opts->symbol_count++];
        memcpy(s->name, name, len + 1);
        /* A plausible start price per symbol; the walk below is all that changes it. */
        s->bid = strncmp(name, "BTC", 3) == 0 ? 65000.0 : 1.0850;
    }
    free(copy);
    if (opts->symbol_count == 0)
        usage("--symbols needs at least one symbol");
}

static struct options parse(int argc, char **argv)
{
    struct options opts = {.host = NULL, .tick_rate = 0, .tick_bytes = 64, .drop_every = 0};
    static const struct option long_options[] = {
        {"host", required_argument, NULL, 'h'},
        {"symbols", required_argument, NULL, 's'},
        {"tick-rate", required_argument, NULL, 'r'},
        {"tick-bytes", required_argument, NULL, 'b'},
        {"drop-every", required_argument, NULL, 'd'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (c) {
        case 'h': opts.host = optarg; break;
        case 's': parse_symbols(&opts, optarg); break;
        case 'r': opts.tick_rate = parse_integer("tick-rate", optarg, 1, 100000); break;
        case 'b': opts.tick_bytes = parse_integer("tick-bytes", optarg, 1, MAX_TICK_BYTES); break;
        case 'd': opts.drop_every = parse_integer("drop-every", optarg, 0, 1000000000); break;
        default: usage("unknown argument");
        }
    }
    if (optind != argc)
        usage("unexpected positional argument");
    if (!opts.host || opts.symbol_count == 0 || opts.tick_rate == 0)
        usage("--host, --symbols and --tick-rate are required");
    if (opts.drop_every == 1)
        usage("--drop-every must be 0 (off) or at least 2");
    return opts;
}

/* Binds `socket` to an ephemeral port on host and writes "host:port" into out. */
static void bind_ephemeral(void *socket, const char *host, char *out, size_t out_size)
{
    char endpoint[300];
    snprintf(endpoint, sizeof endpoint, "tcp://%s:*", host);
    if (zmq_bind(socket, endpoint) != 0) {
        fprintf(stderr, "quote-server: cannot bind %s: %s\n", endpoint, zmq_strerror(errno));
        exit(1);
    }
    char last[300];
    size_t len = sizeof last;
    zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, last, &len);
    /* "tcp://127.0.0.1:PORT" -> "127.0.0.1:PORT" */
    snprintf(out, out_size, "%s", strncmp(last, "tcp://", 6) == 0 ? last + 6 : last);
}

/* A small deterministic random walk (xorshift), so runs are alike. */
static uint64_t walk_state = 0x9E3779B97F4A7C15ULL;

static double step(void)
{
    walk_state ^= walk_state << 13;
    walk_state ^= walk_state >> 7;
    walk_state ^= walk_state << 17;
    return ((double)(walk_state % 2001) - 1000.0) / 1000.0;  /* -1 .. 1 */
}

static double spread(const struct symbol *s)
{
    return s->bid > 1000 ? 5.0 : 0.00002;
}

/* A tick: "<seq> <stamp_ns> <bid> <ask>", padded with spaces to --tick-bytes. */
static void publish_tick(void *pub, struct symbol *s, long long tick_bytes)
{
    static char body[MAX_TICK_BYTES + BODY_CAP];
    s->bid += step() * spread(s);
    s->seq++;
    s->stamp_ns = now_ns();
    int len = snprintf(body, BODY_CAP, "%lld %lld %.5f %.5f", s->seq,
                       (long long)s->stamp_ns, s->bid, s->bid + spread(s));
    if (len < tick_bytes) {
        memset(body + len, ' ', (size_t)(tick_bytes - len));
        len = (int)tick_bytes;
    }
    /* PUB never blocks: a subscriber whose queue is full (SNDHWM) misses the tick, which its
     * sequence numbers then show. */
    zmq_send(pub, s->name, strlen(s->name), ZMQ_SNDMORE);
    zmq_send(pub, body, (size_t)len, 0);
}

static struct symbol *find_symbol(struct options *opts, const char *name)
{
    for (int i = 0; i < opts->symbol_count; i++)
        if (strcmp(opts->symbols[i].name, name) == 0)
            return &opts->symbols[i];
    return NULL;
}

/* One request: [envelope frames...][empty][body "Q <id> <symbol>"]; the answer goes back
 * with the same envelope: "<id> <symbol> <seq> <bid> <ask> <stamp_ns>" or "<id> ERR <why>". */
static void answer_request(void *router, struct options *opts, long long *received)
{
    zmq_msg_t frames[MAX_FRAMES];
    int count = 0;
    bool more = true, too_many = false;
    while (more) {
        zmq_msg_t frame;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, router, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&frame);
            break;
        }
        more = zmq_msg_more(&frame);
        if (count < MAX_FRAMES) {
            frames[count++] = frame;
        } else {
            too_many = true;
            zmq_msg_close(&frame);
        }
    }
    if (count == 0)
        return;
    (*received)++;
    bool drop = too_many || count < 2 ||
                (opts->drop_every > 0 && *received % opts->drop_every == 0);
    if (!drop) {
        zmq_msg_t *body = &frames[count - 1];
        char text[BODY_CAP], id[64], name[MAX_SYMBOL_LEN + 2], answer[BODY_CAP];
        size_t len = zmq_msg_size(body) < sizeof text - 1 ? zmq_msg_size(body) : sizeof text - 1;
        memcpy(text, zmq_msg_data(body), len);
        text[len] = '\0';
        int n;
        if (sscanf(text, "Q %63s %33s", id, name) != 2) {
            n = snprintf(answer, sizeof answer, "%s ERR bad request",
                         sscanf(text, "Q %63s", id) == 1 ? id : "-");
        } else {
            struct symbol *s = find_symbol(opts, name);
            if (!s)
                n = snprintf(answer, sizeof answer, "%s ERR unknown symbol", id);
            else
                n = snprintf(answer, sizeof answer, "%s %s %lld %.5f %.5f %lld", id, s->name,
                             s->seq, s->bid, s->bid + spread(s), (long long)s->stamp_ns);
        }
        /* The envelope back as it came (identity, then the empty delimiter), then the answer. */
        for (int i = 0; i < count - 1; i++)
            zmq_send(router, zmq_msg_data(&frames[i]), zmq_msg_size(&frames[i]), ZMQ_SNDMORE);
        zmq_send(router, answer, (size_t)n, 0);
    }
    for (int i = 0; i < count; i++)
        zmq_msg_close(&frames[i]);
}

int main(int argc, char **argv)
{
    struct options opts = parse(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction action = {.sa_handler = on_signal};
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);

    void *context = zmq_ctx_new();
    void *router = zmq_socket(context, ZMQ_ROUTER);
    void *pub = zmq_socket(context, ZMQ_PUB);
    char router_at[300], pub_at[300];
    bind_ephemeral(router, opts.host, router_at, sizeof router_at);
    bind_ephemeral(pub, opts.host, pub_at, sizeof pub_at);
    for (int i = 0; i < opts.symbol_count; i++)
        opts.symbols[i].stamp_ns = now_ns();
    printf("{\"router\": \"%s\", \"pub\": \"%s\"}\n", router_at, pub_at);
    fflush(stdout);

    /* Tick k of every symbol is due at start + k / rate; a late tick goes out at once (its
     * stamp is its real publishing time), none is skipped. */
    const int64_t start = now_ns();
    long long ticks = 0, received = 0;
    zmq_pollitem_t items[] = {{router, 0, ZMQ_POLLIN, 0}};
    while (!stopping) {
        int64_t due = start + (int64_t)((ticks + 1) * (NS_PER_S / (double)opts.tick_rate));
        int64_t now = now_ns();
        if (now >= due) {
            for (int i = 0; i < opts.symbol_count; i++)
                publish_tick(pub, &opts.symbols[i], opts.tick_bytes);
            ticks++;
            continue;
        }
        long wait_ms = (long)((due - now + NS_PER_MS - 1) / NS_PER_MS);
        int ready = zmq_poll(items, 1, wait_ms);
        if (ready < 0 && errno != EINTR) {
            fprintf(stderr, "quote-server: zmq_poll: %s\n", zmq_strerror(errno));
            return 1;
        }
        if (ready > 0)
            for (int i = 0; i < 1000 && !stopping; i++) {
                int events = 0;
                size_t size = sizeof events;
                zmq_getsockopt(router, ZMQ_EVENTS, &events, &size);
                if (!(events & ZMQ_POLLIN))
                    break;
                answer_request(router, &opts, &received);
            }
    }
    fprintf(stderr, "quote-server: stopping after %lld ticks per symbol, %lld requests\n",
            ticks, received);
    int zero = 0;
    zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(pub, ZMQ_LINGER, &zero, sizeof zero);
    zmq_close(router);
    zmq_close(pub);
    zmq_ctx_term(context);
    return 0;
}
