// http-order load client in C++17 on libcurl, in one of two designs (--library):
//
// tuned (the default): asynchronous, on libcurl's multi interface. A few event-loop threads (one
// per CPU, at most one per connection) each drive their share of the C keep-alive connections:
// a multi handle with that many reusable easy handles, one order in flight on each, run through
// curl's socket interface on epoll. Open loop: a loop holds the next index until it is due (a
// timerfd wakes epoll on time) and sends late orders as soon as a handle is free.
//
// usual: the seed report's "libcurl + std::async": one std::async(std::launch::async) task per
// connection, each owning an easy handle and sending one order at a time with a blocking
// curl_easy_perform (its connection kept alive, CURLOPT_TIMEOUT_MS bounding the order); the
// main thread waits on the futures. Open loop: a task sleeps until the order it took is due.
//
// Both share everything else (class Worker: taking orders, booking answers). All threads take
// order indices from one atomic counter. Closed loop: a free connection takes the next order at
// once. Open loop: order i (warm-up first) is due at origin + i / rate, sent late when no
// connection was free, never skipped. Nothing is in flight past window + timeout: an order
// unanswered then is a timeout, and so is one not sent by then. A closed loop with --settle goes
// on warming up after its W warm-up orders until the answers settle (class Settle), then
// switches to measuring without a pause: an order taken before the switch is warm-up, one taken
// after it measured. --orders 0 measures for --duration. The contract (arguments, JSON, exit
// status) is ../../README.md.
#include <curl/curl.h>
#include <hdr_histogram.h>
#include <hdr_histogram_log.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, which the timerfd shares
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr int64_t kHistogramLowestNs = 1;
constexpr int64_t kHistogramHighestNs = 60'000'000'000;
constexpr int kHistogramDigits = 3;
constexpr std::size_t kResponseCap = 4096;  // an answer is ~200 bytes; more is kept out
constexpr std::size_t kTimestampLength = 24;  // 2024-01-01T10:00:00.000Z
constexpr int64_t kNsPerSecond = 1'000'000'000;
// Samples reserved up front over all workers (16 bytes each): enough for most runs, so a vector
// rarely grows, and copies itself, between two answers; bounded, as --orders may be huge.
constexpr int64_t kSampleReserve = int64_t{1} << 22;

struct Options {
    std::string url;
    int64_t orders = 1000;
    int64_t connections = 50;
    int64_t warmup = 100;
    double rate = 0;  // 0 = closed loop
    double duration_s = 60;
    double timeout_s = 5;
    double settle_s = 0;  // 0 = off; closed loop only
    std::vector<int> pin_cpus;  // the expanded --pin-cpus list
    bool mlock = false;
    std::string library = "tuned";  // or "usual": one std::async task per connection

    bool open_loop() const { return rate > 0; }
    bool usual() const { return library == "usual"; }
    bool settling() const { return !open_loop() && settle_s > 0; }
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A series of orders run by every worker. Closed loop: the warm-up, then the measurement, each a
// phase. Open loop: one phase, the warm-up's orders and then the measured ones.
struct Phase {
    int64_t count = 0;  // closed loop: at most this many
    int64_t first_measured = 0;  // orders from this index on are measured
    std::atomic<int64_t> next{0};
    double rate = 0;
    Clock::time_point origin;       // open loop: order i is due at origin + i / rate
    Clock::time_point start;        // the measuring phase's (open loop: the window's)
    Clock::time_point stop_taking;  // no order is sent from then on
    Clock::time_point hard_stop;    // no order is still in flight then

    Clock::time_point due(int64_t index) const
    {
        return origin + nanoseconds(std::llround(static_cast<double>(index) * 1e9 / rate));
    }
};

// ---- RAII over the C libraries -------------------------------------------------------------

struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};
using Histogram = std::unique_ptr<hdr_histogram, FreeDeleter>;

Histogram make_histogram()
{
    hdr_histogram* h = nullptr;
    if (hdr_init(kHistogramLowestNs, kHistogramHighestNs, kHistogramDigits, &h) != 0)
        throw std::runtime_error("hdr_init failed");
    return Histogram(h);
}

std::string encode(hdr_histogram* h)
{
    char* text = nullptr;
    if (hdr_log_encode(h, &text) != 0)
        throw std::runtime_error("hdr_log_encode failed");
    std::unique_ptr<char, FreeDeleter> owned(text);
    return std::string(text);
}

struct EasyDeleter {
    void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

struct MultiDeleter {
    void operator()(CURLM* m) const { curl_multi_cleanup(m); }
};
using MultiHandle = std::unique_ptr<CURLM, MultiDeleter>;

struct UrlDeleter {
    void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

struct SlistDeleter {
    void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

class CurlGlobal {
public:
    CurlGlobal()
    {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            throw std::runtime_error("curl_global_init failed");
    }
    ~CurlGlobal() { curl_global_cleanup(); }
    CurlGlobal(const CurlGlobal&) = delete;
    CurlGlobal& operator=(const CurlGlobal&) = delete;
};

// An owned file descriptor.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd, const char* what) : fd_(fd)
    {
        if (fd_ < 0)
            throw std::system_error(errno, std::generic_category(), what);
    }
    ~FileDescriptor() { close(fd_); }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    int get() const { return fd_; }

private:
    int fd_;
};

// A one-shot monotonic timer as a file descriptor, so epoll wakes at an order's due time with
// sub-millisecond precision (epoll_wait's own timeout counts whole milliseconds).
class Timer {
public:
    Timer() : fd_(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), "timerfd_create") {}

    int fd() const { return fd_.get(); }

    void arm(Clock::time_point at)
    {
        if (at == armed_)
            return;
        armed_ = at;
        auto ns = std::chrono::duration_cast<nanoseconds>(at.time_since_epoch()).count();
        itimerspec spec{};
        spec.it_value.tv_sec = ns / 1'000'000'000;
        spec.it_value.tv_nsec = ns % 1'000'000'000;
        timerfd_settime(fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr);
    }

    void clear()
    {
        uint64_t expirations;
        while (read(fd_.get(), &expirations, sizeof expirations) > 0) {
        }
        armed_ = {};
    }

private:
    FileDescriptor fd_;
    Clock::time_point armed_{};
};

// ---- Orders --------------------------------------------------------------------------------

// One ok order of the measured phase, kept whole for the per-second intervals: a histogram
// rounds to 3 digits and forgets when an answer came.
struct Sample {
    int64_t answered_ns;  // since the measured phase began
    int64_t latency_ns;   // exactly as recorded in the latency histogram
};

// What one worker counted in the measured phase.
struct Tally {
    int64_t ok = 0, errors = 0, timeouts = 0;
    int64_t unsent = 0;  // open loop: timeouts never sent (every handle stuck until the end)
    int64_t warmup_sent = 0;  // warm-up orders sent, settling ones included
    Histogram latency = make_histogram();      // closed: response - send; open: - due time
    Histogram uncorrected = make_histogram();  // open loop: response - actual send
    std::vector<Sample> samples;               // one per ok order, latency as in `latency`
};

// Returns the value recorded, so the intervals see the very same one.
int64_t record(hdr_histogram* h, nanoseconds latency)
{
    // Out of range only past 60 s (a long open-loop backlog): kept at the top, not lost.
    int64_t value = std::clamp<int64_t>(latency.count(), kHistogramLowestNs, kHistogramHighestNs);
    hdr_record_value(h, value);
    return value;
}

void write_timestamp(char* out)
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    tm utc{};
    gmtime_r(&ts.tv_sec, &utc);
    char text[64];
    std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + length, sizeof text - length, ".%03dZ",
                  static_cast<int>(ts.tv_nsec / 1'000'000));
    std::memcpy(out, text, kTimestampLength);
}

// Closed loop, --settle: the warm-up after the W warm-up orders. The ok answers fall into
// windows of 200 ms by answer time, window k being [origin + k x 200 ms, origin + (k + 1) x
// 200 ms); the warm-up has settled at the end of the first window whose answer count and p50 are,
// with the two windows before it, within 10 % (largest <= 1.1 x smallest), and measuring starts
// then, or at the deadline without that. Any thread closes the windows that have ended (a worker
// with an answer or an order to take, the main thread at each window's end), under the lock;
// orders are taken under it as well, so each one is wholly before or after the switch.
class Settle {
public:
    using Begin = std::function<void(Clock::time_point)>;  // schedules the measured phase

    Settle(Clock::time_point origin, double settle_s, Begin begin)
        : origin_(origin),
          deadline_(origin + nanoseconds(std::llround(std::min(settle_s * 1e9, 1e18)))),
          begin_(std::move(begin))
    {
    }

    Clock::time_point origin() const { return origin_; }
    bool measuring() const { return measuring_.load(std::memory_order_acquire); }
    bool settled() const { return settled_; }  // once measuring

    // A warm-up order (true), unless measuring has started (false).
    bool take()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto now = Clock::now();
        return !update(now, now);
    }

    // Notes an ok warm-up answer in its window. One answered in a window already closed
    // (another thread was a hair faster) is left out: the windows are a gauge, not a measurement.
    void answered(Clock::time_point done, int64_t latency_ns)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!update(done, Clock::now()) && done < deadline_ && index(done) == window_)
            latencies_.push_back(latency_ns);
    }

    // The main thread's part: closes the windows that have ended, so that the switch comes on
    // time even when answers are few. Returns when to look again, nothing once measuring.
    std::optional<Clock::time_point> watch()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto now = Clock::now();
        if (update(now, now))
            return std::nullopt;
        return std::min(origin_ + kWindow * (window_ + 1), deadline_);
    }

private:
    static constexpr nanoseconds kWindow = milliseconds(200);

    int64_t index(Clock::time_point t) const { return (t - origin_) / kWindow; }

    // Under the lock: closes the windows that ended by `until` (never past the deadline) and
    // starts measuring at `now` once one settled, or at the deadline. Whether measuring.
    bool update(Clock::time_point until, Clock::time_point now)
    {
        if (measuring_.load(std::memory_order_relaxed))
            return true;
        bool settled = false;
        until = std::min(until, deadline_);
        if (until >= origin_)
            for (int64_t current = index(until); !settled && window_ < current;)
                settled = close_window();
        if (!settled && now < deadline_)
            return false;
        settled_ = settled;
        begin_(now);
        measuring_.store(true, std::memory_order_release);
        return true;
    }

    // Closes the window being filled; true when it settled the warm-up.
    bool close_window()
    {
        auto n = static_cast<int64_t>(latencies_.size());
        int64_t p50 = 0;  // nearest rank: the ceil(n / 2)-th smallest
        if (n > 0) {
            auto middle = latencies_.begin() + ((n + 1) / 2 - 1);
            std::nth_element(latencies_.begin(), middle, latencies_.end());
            p50 = *middle;
        }
        counts_ = {counts_[1], counts_[2], n};
        p50s_ = {p50s_[1], p50s_[2], p50};
        window_++;
        latencies_.clear();
        auto within_10_percent = [](const std::array<int64_t, 3>& values) {
            auto [low, high] = std::minmax_element(values.begin(), values.end());
            return static_cast<double>(*high) <= 1.1 * static_cast<double>(*low);
        };
        return *std::min_element(counts_.begin(), counts_.end()) > 0 &&
               within_10_percent(counts_) && within_10_percent(p50s_);
    }

    const Clock::time_point origin_, deadline_;  // measuring starts at the deadline at the latest
    const Begin begin_;
    std::mutex mutex_;
    int64_t window_ = 0;  // the window being filled
    std::vector<int64_t> latencies_;  // its ok answers' latencies (ns)
    // The last three windows closed, oldest first (0 while fewer are, or without an ok answer).
    std::array<int64_t, 3> counts_{}, p50s_{};
    bool settled_ = false;  // measuring started as the answers settled
    std::atomic<bool> measuring_{false};  // set once the measured phase is scheduled
};

// One easy handle: one order in flight, its connection kept alive in the multi's pool (tuned)
// or in the handle's own (usual).
class Transfer {
public:
    Transfer(const std::string& url, curl_slist* headers)
        : url_(curl_url()), easy_(curl_easy_init())
    {
        if (!url_ || !easy_)
            throw std::runtime_error("curl_url or curl_easy_init failed");
        request_.assign(kOrderHead);
        request_.append(kTimestampLength, '0');
        request_.append("\"}");
        response_.reserve(kResponseCap);

        CURL* c = easy_.get();
        // Parsed once here: curl parses a CURLOPT_URL again for every transfer (1 us an order
        // of the client's 16 to 17). A URL curl rejects leaves the handle empty, and then every
        // order fails, as it would with CURLOPT_URL.
        curl_url_set(url_.get(), CURLUPART_URL, url.c_str(), 0);
        curl_easy_setopt(c, CURLOPT_CURLU, url_.get());
        curl_easy_setopt(c, CURLOPT_PROXY, "");  // ignore http_proxy
        curl_easy_setopt(c, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, request_.data());  // not copied: rewritten
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(request_.size()));
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Transfer::keep_response);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, this);
        curl_easy_setopt(c, CURLOPT_PRIVATE, this);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    }
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;

    CURL* easy() const { return easy_.get(); }

    void prepare(bool measured, Clock::time_point due, Clock::time_point sent,
                 milliseconds timeout, bool settling = false)
    {
        measured_ = measured;
        settling_ = settling;
        due_ = due;
        sent_ = sent;
        write_timestamp(request_.data() + kOrderHead.size());
        response_.clear();
        curl_easy_setopt(easy_.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    }

    bool measured() const { return measured_; }
    bool settling() const { return settling_; }  // a warm-up order of the settling kind
    Clock::time_point due() const { return due_; }
    Clock::time_point sent() const { return sent_; }

    bool succeeded() const
    {
        long status = 0;
        curl_easy_getinfo(easy_.get(), CURLINFO_RESPONSE_CODE, &status);
        return status == 200 && response_.find("SUCCESS") != std::string::npos;
    }

private:
    // The order up to its client_timestamp, which each send rewrites in place.
    static constexpr std::string_view kOrderHead =
        "{\"buy_sell\":\"buy\",\"symbol\":2330,\"price\":100.0,\"quantity\":1000,"
        "\"market_type\":\"common\",\"price_type\":\"limit\",\"time_in_force\":\"rod\","
        "\"order_type\":\"stock\",\"user_def\":\"latlab-cpp\",\"client_timestamp\":\"";

    static std::size_t keep_response(char* data, std::size_t size, std::size_t count, void* self)
    {
        auto& response = static_cast<Transfer*>(self)->response_;
        std::size_t n = size * count;
        response.append(data, std::min(n, kResponseCap - response.size()));
        return n;
    }

    UrlHandle url_;  // before the easy handle, which reads it until its cleanup
    EasyHandle easy_;
    std::string request_;
    std::string response_;
    bool measured_ = false;
    bool settling_ = false;
    Clock::time_point due_, sent_;  // a closed loop's orders are due when they are sent
};

// What one thread of either design does, on one connection or many: take the next order for
// a free transfer (take), and book its answer in (book). The threads share the phase's counter.
class Worker {
public:
    virtual ~Worker() = default;
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Runs until the phase has nothing left for this worker and its last answer is in. With
    // `settle`, warm-up orders come first, until it starts the measured phase.
    virtual void run(Phase& phase, Settle* settle) = 0;

    Tally& tally() { return tally_; }
    const Tally& tally() const { return tally_; }

    // Before the run, so the measured phase does not spend its time growing the vector.
    void reserve_samples(int64_t count)
    {
        tally_.samples.reserve(static_cast<std::size_t>(count));
    }

protected:
    explicit Worker(const Options& opts) : opts_(opts) {}

    enum class Take {
        kSend,  // the transfer is prepared with an order: send it now
        kWait,  // the next order is held until it is due (held_due)
        kDone,  // the phase has no order left for this worker
    };

    // At the start of each phase's run.
    void begin(Settle* settle)
    {
        settle_ = settle;
        held_ = kNoOrder;
        exhausted_ = false;
    }

    // The next order for a free transfer, prepared in it when there is one to send now. An
    // open-loop order not sent by the phase's end is a timeout, never sent, and the next is
    // taken.
    Take take(Phase& phase, Transfer& transfer)
    {
        for (;;) {
            if (exhausted_)
                return Take::kDone;
            if (settle_ && !settle_->measuring()) {
                if (!settle_->take())
                    continue;  // measuring has just started: a measured order
                // Taken before the deadline, so --timeout alone bounds it.
                auto now = Clock::now();
                transfer.prepare(false, now, now, timeout_, true);
                tally_.warmup_sent++;
                return Take::kSend;
            }
            if (held_ == kNoOrder) {
                held_ = phase.next.fetch_add(1, std::memory_order_relaxed);
                if (held_ >= phase.count) {
                    exhausted_ = true;
                    held_ = kNoOrder;
                    return Take::kDone;
                }
            }
            auto now = Clock::now();
            auto due = opts_.open_loop() ? phase.due(held_) : now;
            if (due > now)
                return Take::kWait;
            bool measured = held_ >= phase.first_measured;
            held_ = kNoOrder;
            if (now >= phase.stop_taking) {
                if (!opts_.open_loop()) {
                    exhausted_ = true;
                    return Take::kDone;
                }
                // Every connection was busy until window + timeout: a timeout, never sent.
                if (measured) {
                    tally_.timeouts++;
                    tally_.unsent++;
                }
                continue;
            }
            // An order never outlives the phase's hard stop; cut short, it is a timeout.
            auto left = std::chrono::duration_cast<milliseconds>(phase.hard_stop - now);
            transfer.prepare(measured, due, now, std::clamp(left, milliseconds(1), timeout_));
            if (!measured)
                tally_.warmup_sent++;
            return Take::kSend;
        }
    }

    bool holding() const { return held_ != kNoOrder; }
    Clock::time_point held_due(const Phase& phase) const { return phase.due(held_); }
    bool exhausted() const { return exhausted_; }

    // Books in an order curl has finished with `result`, `done` being when.
    void book(const Phase& phase, const Transfer& transfer, CURLcode result,
              Clock::time_point done)
    {
        if (!transfer.measured()) {
            if (transfer.settling() && result == CURLE_OK && transfer.succeeded())
                settle_->answered(done, (done - transfer.sent()).count());
            return;
        }
        if (result == CURLE_OPERATION_TIMEDOUT) {
            tally_.timeouts++;
        } else if (result != CURLE_OK || !transfer.succeeded()) {
            tally_.errors++;
        } else {
            tally_.ok++;
            int64_t latency = record(tally_.latency.get(), done - transfer.due());
            if (opts_.open_loop())
                record(tally_.uncorrected.get(), done - transfer.sent());
            tally_.samples.push_back(
                {std::chrono::duration_cast<nanoseconds>(done - phase.start).count(), latency});
        }
    }

    const Options& opts_;
    const milliseconds timeout_{
        std::max<int64_t>(1, static_cast<int64_t>(std::ceil(opts_.timeout_s * 1000)))};

private:
    static constexpr int64_t kNoOrder = -1;

    Tally tally_;
    Settle* settle_ = nullptr;  // closed loop, --settle: this run's warm-up until it settles
    int64_t held_ = kNoOrder;   // taken from the counter, not yet due
    bool exhausted_ = false;
};

// --library usual: one connection, driven by a blocking curl_easy_perform on a std::async
// task's thread; curl keeps the easy handle's connection alive between orders.
class Task : public Worker {
public:
    Task(const Options& opts, const std::string& url, curl_slist* headers)
        : Worker(opts), transfer_(url, headers)
    {
    }

    void run(Phase& phase, Settle* settle) override
    {
        begin(settle);
        for (;;) {
            switch (take(phase, transfer_)) {
            case Take::kDone:
                return;
            case Take::kWait:
                std::this_thread::sleep_until(held_due(phase));
                break;
            case Take::kSend: {
                CURLcode result = curl_easy_perform(transfer_.easy());
                book(phase, transfer_, result, Clock::now());
                break;
            }
            }
        }
    }

private:
    Transfer transfer_;
};

// --library tuned: one thread's multi handle and its share of the connections, driven through
// curl's socket interface on epoll: curl is told which socket is ready, so it touches only that
// transfer.
class EventLoop : public Worker {
public:
    EventLoop(const Options& opts, const std::string& url, int64_t connections,
              curl_slist* headers)
        : Worker(opts), epoll_(epoll_create1(EPOLL_CLOEXEC), "epoll_create1"),
          multi_(curl_multi_init())
    {
        if (!multi_)
            throw std::runtime_error("curl_multi_init failed");
        CURLM* m = multi_.get();
        long limit = static_cast<long>(connections);
        curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, limit);
        curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, limit);
        curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, limit);
        curl_multi_setopt(m, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
        curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, &EventLoop::on_socket);
        curl_multi_setopt(m, CURLMOPT_SOCKETDATA, this);
        curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, &EventLoop::on_timer);
        curl_multi_setopt(m, CURLMOPT_TIMERDATA, this);
        epoll_event due{};
        due.events = EPOLLIN;
        due.data.fd = timer_.fd();
        epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, timer_.fd(), &due);
        for (int64_t i = 0; i < connections; i++) {
            transfers_.push_back(std::make_unique<Transfer>(url, headers));
            CURL* c = transfers_.back()->easy();
            curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, &EventLoop::open_socket);
            curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, this);
            curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, &EventLoop::close_socket);
            curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, this);
            idle_.push_back(transfers_.back().get());
        }
    }
    ~EventLoop() override
    {
        for (auto& t : transfers_)
            curl_multi_remove_handle(multi_.get(), t->easy());
    }

    void run(Phase& phase, Settle* settle) override
    {
        begin(settle);
        for (;;) {
            launch_due(phase);
            if (exhausted() && idle_.size() == transfers_.size())
                return;
            wait(phase);
            if (curl_due_ && Clock::now() >= *curl_due_) {
                curl_due_.reset();
                act(CURL_SOCKET_TIMEOUT, 0);
            }
            collect(phase);
        }
    }

private:
    // curl asks for a connection's socket to be watched when an order goes out on it and to
    // be forgotten when the order is done: twice per order. The socket stays in epoll
    // meanwhile, with the events it had, so an order on a kept-alive connection costs no
    // epoll_ctl (they were 2 per order, 10 % of the client's CPU); one that wakes epoll while
    // idle (the server closed it) is taken out then. Sockets curl opens otherwise (a name
    // resolver's) are taken out when curl forgets them.
    static int on_socket(CURL*, curl_socket_t socket, int what, void* self, void*)
    {
        auto* loop = static_cast<EventLoop*>(self);
        Watch& watch = loop->watch(socket);
        if (what == CURL_POLL_REMOVE) {
            watch.curl_wants = false;
            if (!watch.connection && watch.in_epoll) {
                epoll_ctl(loop->epoll_.get(), EPOLL_CTL_DEL, socket, nullptr);
                watch.in_epoll = false;
            }
            return 0;
        }
        watch.curl_wants = true;
        uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0u) |
                          (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
        if (watch.in_epoll && watch.events == events)
            return 0;
        epoll_event event{};
        event.events = events;
        event.data.fd = socket;
        epoll_ctl(loop->epoll_.get(), watch.in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket,
                  &event);
        watch.in_epoll = true;
        watch.events = events;
        return 0;
    }

    // Every connection's socket is opened and closed here, so that its number starts afresh
    // when given out again (closing a socket takes it out of epoll).
    static curl_socket_t open_socket(void* self, curlsocktype, curl_sockaddr* address)
    {
        curl_socket_t socket = ::socket(address->family, address->socktype, address->protocol);
        if (socket != CURL_SOCKET_BAD) {
            Watch& watch = static_cast<EventLoop*>(self)->watch(socket);
            watch = Watch{};
            watch.connection = true;
        }
        return socket;
    }

    static int close_socket(void* self, curl_socket_t socket)
    {
        static_cast<EventLoop*>(self)->watch(socket) = Watch{};
        return close(socket);
    }

    // A socket's epoll registration and whether curl watches it.
    struct Watch {
        bool connection = false;  // opened by open_socket
        bool in_epoll = false;
        uint32_t events = 0;  // as registered
        bool curl_wants = false;
    };

    Watch& watch(curl_socket_t socket)
    {
        auto index = static_cast<std::size_t>(socket);
        if (index >= watches_.size())
            watches_.resize(index + 1);
        return watches_[index];
    }

    static int on_timer(CURLM*, long timeout_ms, void* self)
    {
        auto* loop = static_cast<EventLoop*>(self);
        if (timeout_ms < 0)
            loop->curl_due_.reset();
        else
            loop->curl_due_ = Clock::now() + milliseconds(timeout_ms);
        return 0;
    }

    void act(curl_socket_t socket, int events)
    {
        int running = 0;
        curl_multi_socket_action(multi_.get(), socket, events, &running);
    }

    // Sends orders on the idle handles while there are some due.
    void launch_due(Phase& phase)
    {
        while (!idle_.empty() && take(phase, *idle_.back()) == Take::kSend) {
            curl_multi_add_handle(multi_.get(), idle_.back()->easy());
            idle_.pop_back();
        }
    }

    // Sleeps until a socket is ready, curl's timer runs out or the held order falls due, and
    // hands the ready sockets to curl.
    void wait(const Phase& phase)
    {
        int timeout_ms = kMaxWaitMs;
        if (curl_due_) {
            auto left = std::chrono::ceil<milliseconds>(*curl_due_ - Clock::now()).count();
            timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, kMaxWaitMs));
        }
        if (holding())
            timer_.arm(held_due(phase));
        std::array<epoll_event, 64> events;
        int ready = epoll_wait(epoll_.get(), events.data(), events.size(), timeout_ms);
        for (int i = 0; i < ready; i++) {
            const epoll_event& e = events[i];
            if (e.data.fd == timer_.fd()) {
                timer_.clear();
                continue;
            }
            Watch& watch = this->watch(e.data.fd);
            if (!watch.curl_wants) {  // idle in curl's pool
                epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, e.data.fd, nullptr);
                watch.in_epoll = false;
                continue;
            }
            int mask = (e.events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                       (e.events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                       (e.events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            act(e.data.fd, mask);
        }
    }

    // Books the answers in.
    void collect(const Phase& phase)
    {
        int left = 0;
        auto done = Clock::now();
        while (CURLMsg* msg = curl_multi_info_read(multi_.get(), &left)) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            Transfer* transfer = nullptr;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &transfer);
            curl_multi_remove_handle(multi_.get(), msg->easy_handle);
            idle_.push_back(transfer);
            book(phase, *transfer, msg->data.result, done);
        }
    }

    static constexpr int64_t kMaxWaitMs = 100;

    // Declared before the multi handle, whose cleanup still calls back into them.
    FileDescriptor epoll_;
    Timer timer_;
    std::optional<Clock::time_point> curl_due_;  // when curl wants its timeout action
    std::vector<Watch> watches_;  // by socket number
    MultiHandle multi_;
    std::vector<std::unique_ptr<Transfer>> transfers_;
    std::vector<Transfer*> idle_;
};


// ---- Arguments -----------------------------------------------------------------------------

constexpr const char* kUsage =
    "usage: cpp_client --url http://HOST:PORT --orders N --connections C --warmup W --rate R"
    " --duration S --timeout T --pin-cpus LIST --mlock true|false [--settle S]"
    " [--library tuned|usual]";

int64_t parse_integer(std::string_view name, std::string_view text, int64_t minimum,
                      int64_t maximum)
{
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < minimum ||
        value > maximum) {
        std::string range = maximum == INT64_MAX ? ">= " + std::to_string(minimum)
                                                 : "in " + std::to_string(minimum) + ".." +
                                                       std::to_string(maximum);
        throw UsageError("--" + std::string(name) + " must be an integer " + range + ", got '" +
                         std::string(text) + "'");
    }
    return value;
}

// A finite number >= 0 (or > 0 when zero is not allowed).
double parse_number(std::string_view name, std::string_view text, bool zero_allowed)
{
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
        value < 0 || (value == 0 && !zero_allowed))
        throw UsageError("--" + std::string(name) + " must be a number " +
                         (zero_allowed ? ">= 0" : "> 0") + ", got '" + std::string(text) + "'");
    return value;
}

// "2-3,5" -> {2, 3, 5}; "" -> none.
std::vector<int> parse_cpu_list(std::string_view spec)
{
    std::vector<int> cpus;
    const UsageError bad("--pin-cpus must look like 2-3 or 0,2, got '" + std::string(spec) + "'");
    std::string_view rest = spec;
    while (!rest.empty()) {
        std::string_view item = rest.substr(0, rest.find(','));
        rest.remove_prefix(std::min(rest.size(), item.size() + 1));
        if (item.empty() || (rest.empty() && spec.back() == ','))
            throw bad;
        auto dash = item.find('-');
        auto parse = [&](std::string_view digits) {
            int value = 0;
            auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
                value < 0 || value > 99999)
                throw bad;
            return value;
        };
        int first = parse(item.substr(0, dash));
        int last = dash == std::string_view::npos ? first : parse(item.substr(dash + 1));
        if (last < first)
            throw bad;
        for (int cpu = first; cpu <= last; cpu++)
            cpus.push_back(cpu);
    }
    return cpus;
}

Options parse_options(int argc, char** argv)
{
    Options opts;
    bool have_url = false;
    for (int i = 1; i < argc; i++) {
        std::string_view arg = argv[i];
        if (arg.substr(0, 2) != "--")
            throw UsageError("unexpected argument '" + std::string(arg) + "'");
        std::string_view name = arg.substr(2), value;
        if (auto eq = name.find('='); eq != std::string_view::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            throw UsageError("--" + std::string(name) + " needs a value");
        }
        constexpr int64_t kMax = INT64_MAX;
        if (name == "url") {
            opts.url = value;
            have_url = true;
        } else if (name == "orders") {
            opts.orders = parse_integer(name, value, 0, kMax);
        } else if (name == "connections") {
            opts.connections = parse_integer(name, value, 1, 10000);
        } else if (name == "warmup") {
            opts.warmup = parse_integer(name, value, 0, kMax);
        } else if (name == "rate") {
            opts.rate = parse_number(name, value, true);
        } else if (name == "duration") {
            opts.duration_s = parse_number(name, value, false);
        } else if (name == "timeout") {
            opts.timeout_s = parse_number(name, value, false);
        } else if (name == "settle") {
            opts.settle_s = parse_number(name, value, true);
        } else if (name == "pin-cpus") {
            opts.pin_cpus = parse_cpu_list(value);
        } else if (name == "mlock") {
            if (value != "true" && value != "false")
                throw UsageError("--mlock must be true or false, got '" + std::string(value) + "'");
            opts.mlock = value == "true";
        } else if (name == "library") {
            if (value != "tuned" && value != "usual")
                throw UsageError("--library must be tuned or usual, got '" + std::string(value) +
                                 "'");
            opts.library = value;
        } else {
            throw UsageError("unknown option '--" + std::string(name) + "'");
        }
    }
    if (!have_url || opts.url.rfind("http://", 0) != 0)
        throw UsageError("--url must be given as http://HOST:PORT, got '" + opts.url + "'");
    if (opts.open_loop() && opts.rate * opts.duration_s > 1e12)
        throw UsageError("--rate x --duration is more than 1e12 orders");
    return opts;
}

// ---- The run -------------------------------------------------------------------------------

std::string tune_memory(bool wanted)
{
    if (!wanted)
        return "off";
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        return std::string("refused: ") + std::strerror(errno);
    return "applied";
}

// Pins the calling thread; 0 or the reason it could not be.
int pin_this_thread(int cpu)
{
    if (cpu >= CPU_SETSIZE)
        return EINVAL;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(cpu, &cpus);
    return pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
}

// Fills a phase of `count` orders starting at `origin`, those from `first_measured` on
// measured. A closed loop stops taking orders after `span_s`, and none is in flight --timeout
// later. In an open loop order i is due at origin + i / rate, the measurement starts with the
// first measured one's due time, and nothing is in flight past `span_s` + --timeout after that:
// an order not sent by then is a timeout, never sent.
void schedule(Phase& phase, const Options& opts, int64_t count, int64_t first_measured,
              double span_s, Clock::time_point origin = Clock::now())
{
    auto span = nanoseconds(std::llround(span_s * 1e9));
    auto timeout = nanoseconds(std::llround(opts.timeout_s * 1e9));
    phase.count = count;
    phase.first_measured = first_measured;
    phase.next.store(0);
    phase.rate = opts.rate;
    phase.origin = origin;
    phase.start = opts.open_loop() ? phase.due(first_measured) : phase.origin;
    phase.hard_stop = phase.start + span + timeout;
    // (Open loop: not in the hard stop's last millisecond, as curl's timeouts are whole ms and
    // a fresh connection given 1 ms timed out 200 ms late.)
    phase.stop_taking = opts.open_loop() ? phase.hard_stop - milliseconds(1) : phase.start + span;
}

class Client {
public:
    explicit Client(const Options& opts) : opts_(opts)
    {
        std::string url = opts.url;
        while (!url.empty() && url.back() == '/')
            url.pop_back();
        url += "/order";
        // "Expect:" keeps curl from waiting for a 100-continue it would never need here.
        for (const char* header :
             {"Content-Type: application/json", "Accept: application/json", "Expect:"}) {
            curl_slist* head = curl_slist_append(headers_.get(), header);
            if (!head)
                throw std::runtime_error("curl_slist_append failed");
            if (!headers_)
                headers_.reset(head);  // later appends keep the same head
        }
        if (opts.usual()) {
            for (int64_t k = 0; k < opts.connections; k++)
                workers_.push_back(std::make_unique<Task>(opts, url, headers_.get()));
        } else {
            int64_t threads = std::min<int64_t>(
                opts.connections, std::max(1u, std::thread::hardware_concurrency()));
            for (int64_t k = 0; k < threads; k++) {
                int64_t share = opts.connections / threads + (k < opts.connections % threads);
                workers_.push_back(std::make_unique<EventLoop>(opts, url, share, headers_.get()));
            }
        }
        pin_errors_.assign(workers_.size(), 0);
    }

    // Runs the warm-up (--settle: until the answers settle), then the measured phase (open
    // loop: one phase, the warm-up's orders first); returns the measured phase's length.
    double run()
    {
        // --orders 0: no count, the measured phase takes orders for --duration.
        measured_ = opts_.open_loop()
                        ? static_cast<int64_t>(std::floor(opts_.rate * opts_.duration_s))
                        : opts_.orders > 0 ? opts_.orders : INT64_MAX;
        // Each worker room for every order up to its share of the cap: the workers share one
        // counter, so one of them may well take more than an even share of a small run. A trial
        // by time has no count to go by: its samples grow with the answers.
        auto workers = static_cast<int64_t>(workers_.size());
        int64_t expected = opts_.open_loop() ? measured_ : opts_.orders;
        for (auto& worker : workers_)
            worker->reserve_samples(std::min(expected, kSampleReserve / workers));
        if (opts_.open_loop()) {
            schedule(phase_, opts_, opts_.warmup + measured_, opts_.warmup, opts_.duration_s);
            warmup_from_ = phase_.origin;
            run_phase(nullptr);
            // The window lasts its full length even when its last order was answered before.
            double elapsed = std::chrono::duration<double>(Clock::now() - phase_.start).count();
            return std::max(elapsed, opts_.duration_s);
        }
        schedule(phase_, opts_, opts_.warmup, opts_.warmup, opts_.duration_s);
        warmup_from_ = phase_.origin;
        run_phase(nullptr);
        if (!opts_.settling()) {
            schedule(phase_, opts_, measured_, 0, opts_.duration_s);
            run_phase(nullptr);
        } else {
            Settle settle(Clock::now(), opts_.settle_s, [this](Clock::time_point start) {
                schedule(phase_, opts_, measured_, 0, opts_.duration_s, start);
            });
            if (opts_.warmup == 0)
                warmup_from_ = settle.origin();
            run_phase(&settle);
            char text[64];
            std::snprintf(text, sizeof text, "not settled in %g s", opts_.settle_s);
            settle_state_ = settle.settled() ? "settled" : text;
        }
        return std::chrono::duration<double>(Clock::now() - phase_.start).count();
    }

    // Warm-up orders sent, and the seconds from the first one (open loop: its due time) to the
    // start of measuring.
    std::pair<int64_t, double> warmup() const
    {
        int64_t sent = 0;
        for (const auto& worker : workers_)
            sent += worker->tally().warmup_sent;
        if (sent == 0)
            return {0, 0.0};
        return {sent, std::chrono::duration<double>(phase_.start - warmup_from_).count()};
    }

    const std::string& settle_state() const { return settle_state_; }

    std::vector<std::unique_ptr<Worker>>& workers() { return workers_; }

    std::string pinning() const
    {
        if (opts_.pin_cpus.empty())
            return "off";
        for (int error : pin_errors_)
            if (error != 0)
                return std::string("refused: ") + std::strerror(error);
        std::string applied = "applied: ";
        for (std::size_t i = 0; i < opts_.pin_cpus.size(); i++)
            applied += (i ? "," : "") + std::to_string(opts_.pin_cpus[i]);
        return applied;
    }

private:
    // One thread per worker for the phase (--library usual: a std::async task, waited on as a
    // future); a multi handle or an easy one moves between threads between phases. With
    // `settle`, this thread closes its windows as they end.
    void run_phase(Settle* settle)
    {
        auto work = [this, settle](std::size_t k) {
            if (!opts_.pin_cpus.empty()) {
                int error = pin_this_thread(opts_.pin_cpus[k % opts_.pin_cpus.size()]);
                if (error != 0)
                    pin_errors_[k] = error;
            }
            workers_[k]->run(phase_, settle);
        };
        std::vector<std::thread> threads;
        std::vector<std::future<void>> tasks;
        for (std::size_t k = 0; k < workers_.size(); k++) {
            if (opts_.usual())
                tasks.push_back(std::async(std::launch::async, work, k));
            else
                threads.emplace_back(work, k);
        }
        if (settle) {
            while (auto wake = settle->watch())
                std::this_thread::sleep_until(*wake);
        }
        for (auto& t : threads)
            t.join();
        for (auto& task : tasks)
            task.wait();
        for (auto& task : tasks)
            task.get();  // a task's exception, if any, now that all are done
    }

    const Options& opts_;
    HeaderList headers_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<int> pin_errors_;
    Phase phase_;
    int64_t measured_ = 0;
    Clock::time_point warmup_from_;  // the first warm-up order's (due) time
    std::string settle_state_ = "off";
};

// The ok orders by the second of the measured phase they were answered in (README.md).
class Intervals {
public:
    void add(const std::vector<Sample>& samples)
    {
        for (const Sample& s : samples) {
            auto window = static_cast<std::size_t>(s.answered_ns / kNsPerSecond);
            if (window >= windows_.size())
                windows_.resize(window + 1);  // the empty windows between stay, as count 0
            windows_[window].push_back(s.latency_ns);
        }
    }

    // The "intervals" array; sorts each window in place.
    std::string json()
    {
        std::string out = "[";
        for (std::size_t t = 0; t < windows_.size(); t++) {
            std::vector<int64_t>& values = windows_[t];
            auto n = static_cast<int64_t>(values.size());
            out += t ? ", " : "";
            out += "{\"t_s\": " + std::to_string(t) + ", \"count\": " + std::to_string(n);
            if (n > 0) {
                std::sort(values.begin(), values.end());
                // Nearest rank in per mille, in integers: 99.9 / 100 * n in doubles can land
                // a hair above a whole number and its ceil one rank too high.
                for (auto [name, per_mille] : kPercentiles) {
                    int64_t rank = std::max<int64_t>(1, (per_mille * n + 999) / 1000);
                    out += ", \"" + std::string(name) + "\": " + std::to_string(values[rank - 1]);
                }
                out += ", \"max\": " + std::to_string(values.back());
            }
            out += "}";
        }
        return out + "]";
    }

private:
    static constexpr std::pair<const char*, int64_t> kPercentiles[] = {
        {"p50", 500}, {"p90", 900}, {"p99", 990}, {"p999", 999}};

    std::vector<std::vector<int64_t>> windows_;  // latencies (ns) by whole second
};

int run(const Options& opts)
{
    std::string mlock_state = tune_memory(opts.mlock);
    CurlGlobal curl;
    Client client(opts);
    double duration_s = client.run();

    Histogram latency = make_histogram(), uncorrected = make_histogram();
    int64_t ok = 0, errors = 0, timeouts = 0, unsent = 0;
    Intervals intervals;
    for (auto& worker : client.workers()) {
        Tally& t = worker->tally();
        intervals.add(t.samples);
        hdr_add(latency.get(), t.latency.get());
        hdr_add(uncorrected.get(), t.uncorrected.get());
        ok += t.ok;
        errors += t.errors;
        timeouts += t.timeouts;
        unsent += t.unsent;
    }
    const int64_t orders = ok + errors + timeouts;
    if (unsent > 0)
        std::fprintf(stderr,
                     "cpp_client: %lld orders were never sent: every connection was busy until "
                     "--duration + --timeout\n",
                     static_cast<long long>(unsent));

    std::printf("{\"client\": \"cpp\", \"mode\": \"%s\", \"latency_hdr\": \"%s\", ",
                opts.open_loop() ? "open" : "closed", encode(latency.get()).c_str());
    if (opts.open_loop())
        std::printf("\"latency_uncorrected_hdr\": \"%s\", ", encode(uncorrected.get()).c_str());
    auto [warmup_orders, warmup_s] = client.warmup();
    std::printf("\"orders\": %lld, \"ok\": %lld, \"errors\": %lld, \"timeouts\": %lld, "
                "\"success_rate\": %.6f, \"duration_s\": %.6f, \"throughput\": %.3f, "
                "\"target_rate\": %.9g, \"achieved_rate\": %.3f, "
                "\"warmup_orders\": %lld, \"warmup_s\": %.6f, "
                "\"tuning\": {\"pin_cpus\": \"%s\", \"mlock\": \"%s\", \"settle\": \"%s\", "
                "\"library\": \"%s\"}, "
                "\"intervals\": %s}\n",
                static_cast<long long>(orders), static_cast<long long>(ok),
                static_cast<long long>(errors), static_cast<long long>(timeouts),
                orders ? static_cast<double>(ok) / orders : 0.0, duration_s, ok / duration_s,
                opts.rate, (orders - unsent) / duration_s, static_cast<long long>(warmup_orders),
                warmup_s, client.pinning().c_str(), mlock_state.c_str(),
                client.settle_state().c_str(), opts.library.c_str(), intervals.json().c_str());
    return ok > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    Options opts;
    try {
        opts = parse_options(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "cpp_client: %s\n%s\n", e.what(), kUsage);
        return 2;
    }
    try {
        return run(opts);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cpp_client: %s\n", e.what());
        return 1;
    }
}
