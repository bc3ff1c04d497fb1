//! Round-trip latency client for the echo server.
//!
//! Each connection (one thread) sends a payload, waits for all of it to come back, and records
//! the round trip time in nanoseconds. Warm-up round trips come first and are not recorded:
//! W of them, then, with `--settle-s S`, more until the round trips settle (the http-order
//! suite's rule: three 200 ms windows within 10 % in count and p50) or S seconds pass.
//! Measuring then takes N round trips, or (`--count 0`) as many as `--duration-s` lets it.
//! Prints one JSON document on stdout; diagnostics go to stderr.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use std::{env, thread};

use hdrhistogram::Histogram;
use latlab_echo::hdr::encode;
use latlab_echo::options::{self, Options};
use latlab_echo::settle::{self, Settler};
use serde_json::json;

const USAGE: &str = "usage: echo-client --addr HOST:PORT --count N --warmup W --size BYTES \
                     [--connections C] [--duration-s S] [--timeout-ms T] [--settle-s S]";
const DEFAULT_CONNECTIONS: usize = 1;
const DEFAULT_TIMEOUT_MS: u64 = 1000;
const LOWEST_NS: u64 = 1;
const HIGHEST_NS: u64 = 3_600_000_000_000;
const SIGNIFICANT_FIGURES: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    if options::wants_help(&args) {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let params = match Params::parse(args) {
        Ok(params) => params,
        Err(message) => {
            eprintln!("echo-client: {message}\n{USAGE}");
            return ExitCode::from(options::EXIT_USAGE as u8);
        }
    };
    match run(&params) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("echo-client: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The command line, with defaults filled in.
struct Params {
    addr: String,
    /// Measured round trips in total; 0: no count, measure for `duration_s`.
    count: u64,
    warmup: u64,
    size: usize,
    connections: usize,
    duration_s: Option<f64>,
    timeout_ms: u64,
    /// At most this long a settled warm-up after the W round trips; 0: off.
    settle_s: f64,
}

impl Params {
    fn parse(args: Vec<String>) -> Result<Self, String> {
        let options = Options::parse(
            args,
            &[
                "addr",
                "count",
                "warmup",
                "size",
                "connections",
                "duration-s",
                "timeout-ms",
                "settle-s",
            ],
        )?;
        let params = Self {
            addr: options.required("addr")?,
            count: options.required("count")?,
            warmup: options.required("warmup")?,
            size: options.required("size")?,
            connections: options
                .optional("connections")?
                .unwrap_or(DEFAULT_CONNECTIONS),
            duration_s: options.optional("duration-s")?,
            timeout_ms: options
                .optional("timeout-ms")?
                .unwrap_or(DEFAULT_TIMEOUT_MS),
            settle_s: options.optional("settle-s")?.unwrap_or(0.0),
        };
        if params.count == 0 && params.duration_s.is_none() {
            return Err("--count 0 (measure for a time) needs --duration-s".into());
        }
        if params.size == 0 {
            return Err("--size must be at least 1 byte".into());
        }
        if params.connections == 0 {
            return Err("--connections must be at least 1".into());
        }
        if params.timeout_ms == 0 {
            return Err("--timeout-ms must be at least 1".into());
        }
        if let Some(duration_s) = params.duration_s
            && !(duration_s.is_finite() && duration_s > 0.0)
        {
            return Err("--duration-s must be a positive number of seconds".into());
        }
        // Up to a day, so every deadline computed from it is representable.
        if !(params.settle_s.is_finite() && params.settle_s >= 0.0 && params.settle_s <= 86_400.0) {
            return Err("--settle-s must be a number of seconds, 0 (off) or more".into());
        }
        Ok(params)
    }

    fn to_json(&self) -> serde_json::Value {
        json!({
            "addr": self.addr,
            "count": self.count,
            "warmup": self.warmup,
            "size": self.size,
            "connections": self.connections,
            "duration_s": self.duration_s,
            "timeout_ms": self.timeout_ms,
            "settle_s": self.settle_s,
        })
    }
}

/// Runs every connection and builds the JSON report; an error when no round trip succeeded.
fn run(params: &Params) -> Result<serde_json::Value, String> {
    let addr = resolve(&params.addr)?;
    let timeout = Duration::from_millis(params.timeout_ms);
    let phases = Arc::new(Phases {
        warmed_up: Barrier::new(params.connections + 1),
        warmup_began: OnceLock::new(),
        settle: (params.settle_s > 0.0).then(|| Settle::new(params.settle_s)),
        measuring_began: OnceLock::new(),
        duration: params.duration_s.map(Duration::from_secs_f64),
    });
    let workers: Vec<_> = (0..params.connections)
        .map(|index| {
            let plan = Plan {
                addr,
                payload: payload(params.size),
                timeout,
                warmup: share(params.warmup, params.connections, index),
                measured: if params.count == 0 {
                    u64::MAX // no count: --duration-s ends the measuring phase
                } else {
                    share(params.count, params.connections, index)
                },
            };
            let phases = Arc::clone(&phases);
            thread::spawn(move || plan.run(&phases))
        })
        .collect();
    phases.warmed_up.wait();
    let measured_from = phases.measuring_began();
    let mut total = Tally::new();
    for worker in workers {
        let tally = worker
            .join()
            .map_err(|_| "a connection thread panicked".to_string())?;
        total.merge(tally)?;
    }
    let elapsed_s = measured_from.elapsed().as_secs_f64();
    let warmup_s = phases.warmup_began.get().map_or(0.0, |&began| {
        measured_from.saturating_duration_since(began).as_secs_f64()
    });
    let settle = settle::report(
        params.settle_s,
        phases.settle.as_ref().map(|settle| settle.settled()),
    );

    let count = total.latency.len();
    if count == 0 {
        let cause = total
            .first_failure
            .unwrap_or_else(|| "the duration ended first".into());
        return Err(format!(
            "no round trip succeeded ({} errors, {} timeouts); first failure: {cause}",
            total.errors, total.timeouts
        ));
    }
    if let Some(cause) = &total.first_failure {
        eprintln!(
            "echo-client: {} errors, {} timeouts; first failure: {cause}",
            total.errors, total.timeouts
        );
    }
    eprintln!(
        "echo-client: {count} round trips over {} connection(s) in {elapsed_s:.3} s, after \
         {} warm-up round trips in {warmup_s:.3} s (settle: {settle})",
        params.connections, total.warmup_done
    );
    Ok(json!({
        "program": "echo-client",
        "version": env!("CARGO_PKG_VERSION"),
        "params": params.to_json(),
        "latency_hdr": encode(&total.latency)?,
        "count": count,
        "warmup": total.warmup_done,
        "warmup_s": warmup_s,
        "tuning": {"settle": settle},
        "errors": total.errors,
        "timeouts": total.timeouts,
        "elapsed_s": elapsed_s,
        "throughput": count as f64 / elapsed_s,
        "p50_ns": total.latency.value_at_quantile(0.50),
        "p99_ns": total.latency.value_at_quantile(0.99),
        "max_ns": total.latency.max(),
    }))
}

/// What one connection does: its share of the warm-up and measured round trips.
struct Plan {
    addr: SocketAddr,
    payload: Vec<u8>,
    timeout: Duration,
    warmup: u64,
    /// u64::MAX: no count (`--count 0`).
    measured: u64,
}

/// What the connections share to go from warm-up to measuring together. All of them finish
/// warming up before any measured round trip, so the measured phase has one start time and the
/// throughput covers all connections working at once.
struct Phases {
    warmed_up: Barrier,
    /// When the first warm-up round trip started.
    warmup_began: OnceLock<Instant>,
    settle: Option<Settle>,
    /// Set by the first thread past the barrier (the main thread included).
    measuring_began: OnceLock<Instant>,
    /// `--duration-s`, from the start of measuring.
    duration: Option<Duration>,
}

impl Phases {
    fn measuring_began(&self) -> Instant {
        *self.measuring_began.get_or_init(Instant::now)
    }
}

/// The settled warm-up, shared by the connections: the first to finish its W round trips
/// starts the watch, every connection feeds it its succeeded warm-up round trips, and
/// whichever finds the verdict (settled, or S seconds passed) raises `over` for all.
struct Settle {
    began: OnceLock<Instant>,
    watch: Mutex<Settler>,
    over: AtomicBool,
}

impl Settle {
    fn new(settle_s: f64) -> Self {
        Self {
            began: OnceLock::new(),
            watch: Mutex::new(Settler::new(nanos(Duration::from_secs_f64(settle_s)))),
            over: AtomicBool::new(false),
        }
    }

    /// True once the warm-up is over, judging every window ended by now.
    fn is_over(&self) -> bool {
        if self.over.load(Ordering::Acquire) {
            return true;
        }
        let began = *self.began.get_or_init(Instant::now);
        let verdict = lock(&self.watch).advance(nanos(began.elapsed()));
        if verdict.is_some() {
            self.over.store(true, Ordering::Release);
        }
        verdict.is_some()
    }

    /// A succeeded warm-up round trip, done at `completed`; before the watch began it does not
    /// count.
    fn note(&self, completed: Instant, rtt: Duration) {
        if let Some(&began) = self.began.get()
            && completed >= began
            && lock(&self.watch)
                .note(nanos(completed - began), nanos(rtt))
                .is_some()
        {
            self.over.store(true, Ordering::Release);
        }
    }

    fn settled(&self) -> bool {
        lock(&self.watch).verdict() == Some(true)
    }
}

/// Which phase a round trip is in.
#[derive(Clone, Copy)]
enum Phase<'a> {
    /// Not recorded; the settled warm-up's watch, if any, sees it.
    Warmup(Option<&'a Settle>),
    /// Recorded, until the deadline, if any.
    Measured(Option<Instant>),
}

/// Why one round trip (or a connect) failed.
enum Failure {
    Timeout(String),
    Error(String),
}

/// What one or more connections saw.
struct Tally {
    latency: Histogram<u64>,
    warmup_done: u64,
    errors: u64,
    timeouts: u64,
    first_failure: Option<String>,
}

impl Plan {
    /// Runs the warm-up (W round trips, then the settled warm-up, if any), waits at the
    /// barrier (always, even after a failure, or the other threads would wait forever), then
    /// runs the measured round trips.
    fn run(self, phases: &Phases) -> Tally {
        let mut tally = Tally::new();
        let mut connection = self.connect(&mut tally);
        let warmup = Phase::Warmup(phases.settle.as_ref());
        for _ in 0..self.warmup {
            phases.warmup_began.get_or_init(Instant::now);
            if !self.round_trip(&mut connection, &mut tally, warmup) {
                break;
            }
        }
        if let Some(settle) = &phases.settle {
            while !settle.is_over() {
                phases.warmup_began.get_or_init(Instant::now);
                if !self.round_trip(&mut connection, &mut tally, warmup) {
                    break;
                }
            }
        }
        phases.warmed_up.wait();
        let deadline = phases
            .duration
            .map(|duration| phases.measuring_began() + duration);
        for _ in 0..self.measured {
            if !self.round_trip(&mut connection, &mut tally, Phase::Measured(deadline)) {
                break;
            }
        }
        tally
    }

    /// One attempt (which uses up one of the plan's round trips, failed or not); false when
    /// this connection should stop: the deadline passed or it cannot connect again.
    fn round_trip(
        &self,
        connection: &mut Option<Connection>,
        tally: &mut Tally,
        phase: Phase<'_>,
    ) -> bool {
        let past_deadline = || match phase {
            Phase::Measured(Some(deadline)) => Instant::now() >= deadline,
            _ => false,
        };
        if past_deadline() {
            return false;
        }
        let Some(open) = connection else {
            return false;
        };
        match open.round_trip() {
            Ok(rtt) => {
                match phase {
                    Phase::Measured(_) => tally.latency.saturating_record(nanos(rtt)),
                    Phase::Warmup(settle) => {
                        tally.warmup_done += 1;
                        if let Some(settle) = settle {
                            settle.note(Instant::now(), rtt);
                        }
                    }
                }
                true
            }
            Err(failure) => {
                tally.note(failure);
                // The stream may still carry a late echo, so it cannot be reused.
                *connection = None;
                if past_deadline() {
                    return false;
                }
                *connection = self.connect(tally);
                connection.is_some()
            }
        }
    }

    fn connect(&self, tally: &mut Tally) -> Option<Connection> {
        match Connection::open(self.addr, self.payload.clone(), self.timeout) {
            Ok(connection) => Some(connection),
            Err(failure) => {
                tally.note(failure);
                None
            }
        }
    }
}

impl Tally {
    fn new() -> Self {
        Self {
            latency: Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_FIGURES)
                .expect("histogram bounds are valid constants"),
            warmup_done: 0,
            errors: 0,
            timeouts: 0,
            first_failure: None,
        }
    }

    fn note(&mut self, failure: Failure) {
        let message = match failure {
            Failure::Timeout(message) => {
                self.timeouts += 1;
                message
            }
            Failure::Error(message) => {
                self.errors += 1;
                message
            }
        };
        self.first_failure.get_or_insert(message);
    }

    fn merge(&mut self, other: Tally) -> Result<(), String> {
        self.latency
            .add(&other.latency)
            .map_err(|err| format!("cannot merge histograms: {err:?}"))?;
        self.warmup_done += other.warmup_done;
        self.errors += other.errors;
        self.timeouts += other.timeouts;
        if self.first_failure.is_none() {
            self.first_failure = other.first_failure;
        }
        Ok(())
    }
}

/// An open connection with its payload and a buffer for the echo.
struct Connection {
    stream: TcpStream,
    payload: Vec<u8>,
    echo: Vec<u8>,
    timeout: Duration,
}

impl Connection {
    fn open(addr: SocketAddr, payload: Vec<u8>, timeout: Duration) -> Result<Self, Failure> {
        let stream = TcpStream::connect_timeout(&addr, timeout)
            .map_err(|err| io_failure(&format!("connect to {addr}"), &err, timeout))?;
        let setup = stream
            .set_nodelay(true)
            .and_then(|()| stream.set_read_timeout(Some(timeout)))
            .and_then(|()| stream.set_write_timeout(Some(timeout)));
        setup.map_err(|err| Failure::Error(format!("set up socket to {addr}: {err}")))?;
        let echo = vec![0; payload.len()];
        Ok(Self {
            stream,
            payload,
            echo,
            timeout,
        })
    }

    /// Sends the payload and reads it back, within the timeout from the send.
    fn round_trip(&mut self) -> Result<Duration, Failure> {
        let sent_at = Instant::now();
        self.stream
            .write_all(&self.payload)
            .map_err(|err| io_failure("send", &err, self.timeout))?;
        let mut received = 0;
        let mut narrowed = false;
        while received < self.echo.len() {
            match self.stream.read(&mut self.echo[received..]) {
                Ok(0) => return Err(Failure::Error("server closed the connection".into())),
                Ok(read) => received += read,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(io_failure("receive", &err, self.timeout)),
            }
            if received < self.echo.len() {
                // The echo came in pieces: bound the rest by what is left of the timeout.
                // (A small payload comes in one read, so the common path makes no extra call.)
                let left = self.timeout.saturating_sub(sent_at.elapsed());
                if left.is_zero() {
                    return Err(Failure::Timeout(format!(
                        "no full echo within {:?}",
                        self.timeout
                    )));
                }
                self.stream
                    .set_read_timeout(Some(left))
                    .map_err(|err| io_failure("set timeout", &err, self.timeout))?;
                narrowed = true;
            }
        }
        let rtt = sent_at.elapsed();
        if narrowed {
            self.stream
                .set_read_timeout(Some(self.timeout))
                .map_err(|err| io_failure("set timeout", &err, self.timeout))?;
        }
        if self.echo != self.payload {
            return Err(Failure::Error("echo differs from the payload sent".into()));
        }
        Ok(rtt)
    }
}

fn io_failure(action: &str, err: &io::Error, timeout: Duration) -> Failure {
    if is_timeout(err) {
        Failure::Timeout(format!("{action}: nothing within {timeout:?}"))
    } else {
        Failure::Error(format!("{action}: {err}"))
    }
}

/// A socket timeout shows as WouldBlock on Linux and TimedOut elsewhere.
fn is_timeout(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

fn resolve(addr: &str) -> Result<SocketAddr, String> {
    addr.to_socket_addrs()
        .map_err(|err| format!("cannot resolve --addr '{addr}': {err}"))?
        .next()
        .ok_or_else(|| format!("--addr '{addr}' resolves to no address"))
}

fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(|err| err.into_inner())
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// Connection `index`'s part of `total`, spread as evenly as possible.
fn share(total: u64, connections: usize, index: usize) -> u64 {
    let connections = connections as u64;
    total / connections + u64::from((index as u64) < total % connections)
}

/// Bytes that are not all alike, so an echo that shifts or drops data is noticed.
fn payload(size: usize) -> Vec<u8> {
    (0..size).map(|index| (index % 251) as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_0_needs_a_duration_and_settle_is_checked() {
        let parse = |extra: &[&str]| {
            let mut args: Vec<String> = ["--addr", "127.0.0.1:9", "--warmup", "0", "--size", "8"]
                .iter()
                .map(|arg| arg.to_string())
                .collect();
            args.extend(extra.iter().map(|arg| arg.to_string()));
            Params::parse(args)
        };
        assert!(parse(&["--count", "0"]).is_err());
        let params = parse(&["--count", "0", "--duration-s", "2", "--settle-s", "0.5"]).unwrap();
        assert_eq!((params.count, params.settle_s), (0, 0.5));
        for bad in ["-1", "x", "inf"] {
            assert!(
                parse(&["--count", "5", "--settle-s", bad]).is_err(),
                "{bad}"
            );
        }
    }
}
