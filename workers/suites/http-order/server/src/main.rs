//! Order-entry server of the http-order suite: the seed's Axum server, with every field checked.
//!
//! `POST /order` validates an order and answers with the one-way latency from the client's
//! timestamp; `GET /stats` counts the accepted orders; `POST /stats/latency` answers the
//! server's own time for each order accepted since the last such call (from the request's
//! head to its answer, body read and parsed, hooks included), as a latlab-json document, and
//! starts a new window: the runner calls it around each trial. With `--test-hooks`, `POST
//! /admin/stall?ms=N` holds every answer for N ms (the coordinated-omission tests) and `POST
//! /admin/delay?us=N` adds N µs to every answer from then on (a known regression, for A/A
//! benchmarks). `--delay-us N` starts with that delay; `--work-us N` makes every order cost N µs
//! of CPU before it is answered (a slower code path: a regression that grows latency in
//! proportion, where a sleep's thread hand-off costs more than a small delay). Prints `{"listening":"HOST:PORT"}` on stdout once bound, serves until SIGTERM
//! or SIGINT, exits 0.

mod hdr;
mod order;

use std::io::{self, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{FromRequest, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::net::TcpListener;

use order::Order;

const USAGE: &str =
    "usage: order-server [--listen HOST:PORT] [--test-hooks] [--delay-us N] [--work-us N]";
const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
const EXIT_USAGE: u8 = 2;
const STALL_MS_MAX: u64 = 10_000;
const DELAY_US_MAX: u64 = 100_000;
/// The server's own latency histogram: the clients' range (1 ns .. 1 h, 3 digits).
const LOWEST_NS: u64 = 1;
const HIGHEST_NS: u64 = 3_600_000_000_000;
const SIGNIFICANT_FIGURES: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "-h" || arg == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match Options::parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("order-server: {message}\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("order-server: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("order-server: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The command line.
struct Options {
    listen: SocketAddr,
    test_hooks: bool,
    /// Microseconds added to every answer from the start (a known slowdown for benchmarks of
    /// the lab's verdicts, as `/admin/delay` sets it later).
    delay_us: u64,
    /// Microseconds of CPU every order costs before it is answered.
    work_us: u64,
}

impl Options {
    fn parse(args: Vec<String>) -> Result<Self, String> {
        let mut listen = None;
        let mut test_hooks = false;
        let mut delay_us = 0;
        let mut work_us = 0;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let raw = match arg.as_str() {
                "--test-hooks" => {
                    test_hooks = true;
                    continue;
                }
                "--delay-us" => {
                    delay_us = micros(&arg, args.next())?;
                    continue;
                }
                "--work-us" => {
                    work_us = micros(&arg, args.next())?;
                    continue;
                }
                "--listen" => args.next().ok_or("--listen needs a value")?,
                _ => match arg.strip_prefix("--listen=") {
                    Some(value) => value.to_string(),
                    None => return Err(format!("unexpected argument '{arg}'")),
                },
            };
            if listen.is_some() {
                return Err("--listen given twice".into());
            }
            let addr = raw
                .parse()
                .map_err(|err| format!("--listen '{raw}': {err}"))?;
            listen = Some(addr);
        }
        let listen = match listen {
            Some(addr) => addr,
            None => DEFAULT_LISTEN
                .parse()
                .expect("the default address is valid"),
        };
        Ok(Self {
            listen,
            test_hooks,
            delay_us,
            work_us,
        })
    }
}

/// A flag's value in microseconds, 0..=DELAY_US_MAX.
fn micros(flag: &str, value: Option<String>) -> Result<u64, String> {
    let value = value.ok_or(format!("{flag} needs a value"))?;
    value
        .parse()
        .ok()
        .filter(|us| *us <= DELAY_US_MAX)
        .ok_or(format!("{flag} '{value}': 0..={DELAY_US_MAX} expected"))
}

/// What every request shares: counters, the stall deadline and the delay, as plain atomics so
/// the hot path takes no lock.
struct Lab {
    started: Instant,
    total_orders: AtomicU64,
    /// Nanoseconds from `started` to the first accepted order, plus one; 0 = none yet.
    first_order_ns: AtomicU64,
    /// Nanoseconds from `started` until which answers are held; 0 = no stall ever asked.
    stall_until_ns: AtomicU64,
    /// Microseconds added to every answer; 0 = none.
    delay_us: AtomicU64,
    /// CPU every order costs before it is answered; zero = none.
    work: Duration,
    /// The server's own time per accepted order since the last `POST /stats/latency`: one
    /// short lock per order, the only one on the hot path.
    latency: Mutex<Histogram<u64>>,
}

impl Lab {
    fn new(delay_us: u64, work_us: u64) -> Self {
        Self {
            started: Instant::now(),
            total_orders: AtomicU64::new(0),
            first_order_ns: AtomicU64::new(0),
            stall_until_ns: AtomicU64::new(0),
            delay_us: AtomicU64::new(delay_us),
            work: Duration::from_micros(work_us),
            latency: Mutex::new(new_histogram()),
        }
    }

    fn record_latency(&self, elapsed: Duration) {
        let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let mut latency = self.latency.lock().unwrap_or_else(PoisonError::into_inner);
        latency.saturating_record(ns.clamp(LOWEST_NS, HIGHEST_NS));
    }

    /// The orders' latencies since the last call, leaving an empty window.
    fn take_latency(&self) -> Histogram<u64> {
        let mut latency = self.latency.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::replace(&mut *latency, new_histogram())
    }

    /// Spends `work` of CPU on this worker thread, as a slower code path would. Never inlined,
    /// and the clock read only every 16 spins, so a CPU profile names this function (not its
    /// caller or the clock) as where the time went.
    #[inline(never)]
    fn work(&self) {
        if self.work.is_zero() {
            return;
        }
        let end = Instant::now() + self.work;
        while Instant::now() < end {
            for _ in 0..16 {
                std::hint::spin_loop();
            }
        }
    }

    fn now_ns(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// What the test hooks hold an answer for: the stall, then the delay (none without
    /// `--test-hooks` or `--delay-us`).
    async fn hold(&self) {
        self.wait_out_stall().await;
        let delay_us = self.delay_us.load(Ordering::Relaxed);
        if delay_us > 0 {
            // Tokio's timer counts whole milliseconds: a blocking thread sleeps instead, with
            // the kernel's timer slack (50 µs by default) cut to 1 ns so the wait is N µs.
            let delay = Duration::from_micros(delay_us);
            let _ = tokio::task::spawn_blocking(move || {
                // SAFETY: PR_SET_TIMERSLACK takes a number and affects only this thread.
                unsafe {
                    libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
                }
                std::thread::sleep(delay);
            })
            .await;
        }
    }

    /// Sleeps (without holding a thread) until the stall deadline, if one is ahead; a stall
    /// asked while waiting extends the wait.
    async fn wait_out_stall(&self) {
        loop {
            let until = self.stall_until_ns.load(Ordering::Acquire);
            if until == 0 {
                return;
            }
            let deadline = self.started + Duration::from_nanos(until);
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline.into()).await;
        }
    }

    fn count_order(&self) {
        if self.total_orders.fetch_add(1, Ordering::Relaxed) == 0 {
            // Only the first order reaches here, so the stats clock starts once.
            let _ = self.first_order_ns.compare_exchange(
                0,
                self.now_ns().saturating_add(1),
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
    }
}

async fn serve(options: Options) -> Result<(), String> {
    let listener = TcpListener::bind(options.listen)
        .await
        .map_err(|err| format!("cannot listen on {}: {err}", options.listen))?;
    let bound = listener
        .local_addr()
        .map_err(|err| format!("bound address unknown: {err}"))?;
    let lab = Arc::new(Lab::new(options.delay_us, options.work_us));
    let mut app = Router::new()
        .route(
            "/order",
            post(submit_order).layer(middleware::from_fn_with_state(lab.clone(), timed)),
        )
        .route("/stats", get(stats))
        .route("/stats/latency", post(take_latency));
    if options.test_hooks {
        app = app
            .route("/admin/stall", post(stall))
            .route("/admin/delay", post(delay));
    }
    let app = app.with_state(lab);
    announce(bound)?;
    tokio::spawn(exit_zero_on_stop_signals());
    // Every answer is one small write; without TCP_NODELAY it could wait on the peer's ACK.
    let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
        if let Err(err) = stream.set_nodelay(true) {
            eprintln!("order-server: cannot set TCP_NODELAY: {err}");
        }
    });
    axum::serve(listener, app)
        .await
        .map_err(|err| format!("server stopped: {err}"))
}

/// Tells the runner the bound address, as one JSON line on stdout.
fn announce(bound: SocketAddr) -> Result<(), String> {
    let line = serde_json::json!({ "listening": bound.to_string() });
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .map_err(|err| format!("cannot write to stdout: {err}"))
}

/// The server holds nothing worth saving, so a stop request ends it at once with status 0.
async fn exit_zero_on_stop_signals() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        eprintln!("order-server: cannot watch for SIGTERM/SIGINT");
        return;
    };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    std::process::exit(0);
}

/// `POST /order`: a valid order is counted and answered with its latency from the client.
async fn submit_order(
    State(lab): State<Arc<Lab>>,
    order: Result<ValidOrder, BadRequest>,
) -> Response {
    lab.hold().await;
    let ValidOrder(order) = match order {
        Ok(order) => order,
        Err(rejection) => return rejection.into_response(),
    };
    lab.work();
    let server_time = chrono::Utc::now();
    lab.count_order();
    let latency = server_time.signed_duration_since(order.client_time);
    let latency_ns = latency
        .num_nanoseconds()
        .unwrap_or(if latency < chrono::TimeDelta::zero() {
            i64::MIN
        } else {
            i64::MAX
        });
    json_response(
        StatusCode::OK,
        &Accepted {
            symbol: &order.symbol,
            buy_sell: order.buy_sell.as_str(),
            status: "SUCCESS",
            client_timestamp: &order.client_timestamp,
            server_timestamp: server_time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            latency_ms: latency_ns as f64 / 1e6,
        },
    )
}

#[derive(Serialize)]
struct Accepted<'a> {
    symbol: &'a serde_json::Number,
    buy_sell: &'static str,
    status: &'static str,
    client_timestamp: &'a str,
    server_timestamp: String,
    latency_ms: f64,
}

/// Times an order from its request's head to its answer (the body read and parsed, the test
/// hooks' holds included); an accepted one is recorded.
async fn timed(State(lab): State<Arc<Lab>>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let response = next.run(request).await;
    if response.status() == StatusCode::OK {
        lab.record_latency(start.elapsed());
    }
    response
}

/// `POST /stats/latency`: the orders accepted since the last call, as a latlab-json document
/// (`latency_hdr`, and `orders` among its metrics); the next window starts now.
async fn take_latency(State(lab): State<Arc<Lab>>) -> Response {
    let latency = lab.take_latency();
    match hdr::encode(&latency) {
        Ok(encoded) => json_response(
            StatusCode::OK,
            &serde_json::json!({
                "latency_hdr": encoded,
                "metrics": { "orders": latency.len() },
            }),
        ),
        Err(message) => json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &serde_json::json!({ "error": message }),
        ),
    }
}

fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_FIGURES)
        .expect("the bounds are valid")
}

/// `GET /stats`: accepted orders and their rate since the first one.
async fn stats(State(lab): State<Arc<Lab>>) -> Response {
    lab.hold().await;
    let total_orders = lab.total_orders.load(Ordering::Relaxed);
    let first = lab.first_order_ns.load(Ordering::Acquire);
    let elapsed_seconds = if first == 0 {
        0.0
    } else {
        lab.now_ns().saturating_sub(first - 1) as f64 / 1e9
    };
    let orders_per_second = if elapsed_seconds > 0.0 {
        total_orders as f64 / elapsed_seconds
    } else {
        0.0
    };
    json_response(
        StatusCode::OK,
        &serde_json::json!({
            "total_orders": total_orders,
            "elapsed_seconds": elapsed_seconds,
            "orders_per_second": orders_per_second,
        }),
    )
}

/// `POST /admin/stall?ms=N` (test hooks only): hold every answer for N ms from now.
async fn stall(State(lab): State<Arc<Lab>>, RawQuery(query): RawQuery) -> Response {
    let ms = match query_integer(query.as_deref(), "ms", 1, STALL_MS_MAX) {
        Ok(ms) => ms,
        Err(rejection) => return rejection.into_response(),
    };
    let until = lab.now_ns().saturating_add(ms * 1_000_000);
    // A shorter stall asked during a longer one does not cut it short.
    lab.stall_until_ns.fetch_max(until, Ordering::AcqRel);
    json_response(StatusCode::OK, &serde_json::json!({ "stalled_ms": ms }))
}

/// `POST /admin/delay?us=N` (test hooks only): add N µs to every answer from now on (0: none).
async fn delay(State(lab): State<Arc<Lab>>, RawQuery(query): RawQuery) -> Response {
    let us = match query_integer(query.as_deref(), "us", 0, DELAY_US_MAX) {
        Ok(us) => us,
        Err(rejection) => return rejection.into_response(),
    };
    lab.delay_us.store(us, Ordering::Relaxed);
    json_response(StatusCode::OK, &serde_json::json!({ "delay_us": us }))
}

/// The integer `name=` in a query string, within `min..=max`, or a 400 naming it.
fn query_integer(query: Option<&str>, name: &str, min: u64, max: u64) -> Result<u64, BadRequest> {
    let prefix = format!("{name}=");
    query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix(prefix.as_str()))
        .and_then(|raw| raw.parse::<u64>().ok())
        .filter(|value| (min..=max).contains(value))
        .ok_or_else(|| BadRequest(format!("{name}: must be an integer from {min} to {max}")))
}

/// The body of `POST /order`, read as JSON and validated field by field. Any failure (wrong
/// Content-Type, unreadable body, malformed JSON, a bad field) is a 400 naming the cause,
/// instead of axum's 415/422.
struct ValidOrder(Order);

impl<S: Send + Sync> FromRequest<S> for ValidOrder {
    type Rejection = BadRequest;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(content_type) = request.headers().get(header::CONTENT_TYPE) {
            let is_json = content_type.to_str().is_ok_and(is_json_media_type);
            if !is_json {
                return Err(BadRequest(format!(
                    "body: Content-Type must be application/json, got {}",
                    String::from_utf8_lossy(content_type.as_bytes())
                )));
            }
        }
        let body = axum::body::Bytes::from_request(request, state)
            .await
            .map_err(|rejection| BadRequest(format!("body: {}", rejection.body_text())))?;
        Order::from_json(&body).map(ValidOrder).map_err(BadRequest)
    }
}

/// `application/json`, with parameters or not (`; charset=utf-8`), in any letter case.
fn is_json_media_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
}

/// A 400 answer, `{"error": "<field>: <reason>"}`.
struct BadRequest(String);

impl IntoResponse for BadRequest {
    fn into_response(self) -> Response {
        json_response(
            StatusCode::BAD_REQUEST,
            &serde_json::json!({ "error": self.0 }),
        )
    }
}

fn json_response(status: StatusCode, body: &impl Serialize) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => (status, [(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot encode the answer: {err}"),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| arg.to_string()).collect()
    }

    #[test]
    fn reads_the_command_line() {
        let options = Options::parse(args(&["--listen", "127.0.0.1:0", "--test-hooks"])).unwrap();
        assert_eq!(options.listen.port(), 0);
        assert!(options.test_hooks);
        let options = Options::parse(args(&["--delay-us", "250"])).unwrap();
        assert_eq!(options.delay_us, 250);
        assert!(Options::parse(args(&["--delay-us", "100001"])).is_err());
        assert!(Options::parse(args(&["--delay-us"])).is_err());
        let options = Options::parse(args(&["--work-us", "40"])).unwrap();
        assert_eq!((options.delay_us, options.work_us), (0, 40));
        assert!(Options::parse(args(&["--work-us", "-1"])).is_err());
        let options = Options::parse(args(&[])).unwrap();
        assert_eq!(options.listen.to_string(), DEFAULT_LISTEN);
        assert!(!options.test_hooks);
        assert!(Options::parse(args(&["--listen"])).is_err());
        assert!(Options::parse(args(&["--listen", "nowhere"])).is_err());
        assert!(Options::parse(args(&["--port", "1"])).is_err());
    }

    #[test]
    fn reads_a_query_integer() {
        assert_eq!(query_integer(Some("us=0"), "us", 0, 10).ok(), Some(0));
        assert_eq!(query_integer(Some("a=1&us=10"), "us", 0, 10).ok(), Some(10));
        for bad in [
            None,
            Some(""),
            Some("us=11"),
            Some("us=-1"),
            Some("us=x"),
            Some("ms=1"),
        ] {
            let refused = query_integer(bad, "us", 0, 10)
                .err()
                .map(|rejection| rejection.0);
            assert_eq!(
                refused.as_deref(),
                Some("us: must be an integer from 0 to 10")
            );
        }
    }

    #[test]
    fn knows_json_media_types() {
        assert!(is_json_media_type("application/json"));
        assert!(is_json_media_type("Application/JSON; charset=utf-8"));
        assert!(!is_json_media_type("text/plain"));
    }
}
