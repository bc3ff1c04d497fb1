//! Runs the built echo-server and echo-client as a runner would.

use std::io::{BufRead, BufReader, Cursor};
use std::net::TcpListener;
use std::os::raw::c_int;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use std::{env, fs, process};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_echo-server");
const CLIENT: &str = env!("CARGO_BIN_EXE_echo-client");

#[test]
fn client_measures_round_trips_against_the_server() {
    let server = Server::start();
    let output = client(
        &server.addr,
        "--count 200 --warmup 20 --size 64 --connections 2",
    );

    let report = report_of(&output);
    assert_eq!(report["program"], "echo-client");
    assert_eq!(report["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["params"]["addr"], server.addr.as_str());
    assert_eq!(report["params"]["count"], 200);
    assert_eq!(report["params"]["connections"], 2);
    assert_eq!(report["params"]["duration_s"], Value::Null);
    assert_eq!(report["count"], 200);
    assert_eq!(report["warmup"], 20);
    assert!(report["warmup_s"].as_f64().unwrap() > 0.0);
    assert_eq!(report["tuning"]["settle"], "off");
    assert_eq!(report["params"]["settle_s"], 0.0);
    assert_eq!(report["errors"], 0);
    assert_eq!(report["timeouts"], 0);
    assert!(report["elapsed_s"].as_f64().unwrap() > 0.0);
    assert!(report["throughput"].as_f64().unwrap() > 0.0);
    let p50 = report["p50_ns"].as_u64().unwrap();
    let p99 = report["p99_ns"].as_u64().unwrap();
    let max = report["max_ns"].as_u64().unwrap();
    assert!(0 < p50 && p50 <= p99 && p99 <= max);

    let encoded = report["latency_hdr"].as_str().unwrap();
    assert!(
        encoded.starts_with("HISTF"),
        "not the V2 deflate encoding: {encoded}"
    );
    let latency = decode(encoded);
    assert_eq!(latency.len(), 200);
    assert_eq!(latency.max(), max);
    assert_eq!(latency.value_at_quantile(0.99), p99);

    assert!(server.stop().success(), "the server exits 0 on SIGTERM");
}

#[test]
fn server_writes_its_address_to_the_ready_file() {
    let ready_file = env::temp_dir().join(format!("echo-ready-{}", process::id()));
    let server = Server::start_with(&["--ready-file", ready_file.to_str().unwrap()]);
    let written =
        fs::read_to_string(&ready_file).expect("ready file exists once the line is printed");
    fs::remove_file(&ready_file).unwrap();
    assert_eq!(written.trim_end(), server.addr);
    assert!(server.addr.starts_with("127.0.0.1:") && !server.addr.ends_with(":0"));
}

#[test]
fn client_against_a_closed_port_exits_1() {
    let addr = closed_port();
    let output = client(&addr, "--count 10 --warmup 2 --size 8");

    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "no report when nothing succeeded");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no round trip succeeded"),
        "stderr: {stderr}"
    );
    assert!(stderr.contains("refused"), "stderr: {stderr}");
}

#[test]
fn client_rejects_bad_arguments_with_exit_2() {
    for args in [
        "--count 10 --warmup 0 --size 8",
        "--addr 127.0.0.1:9 --count ten --warmup 0 --size 8",
        "--addr 127.0.0.1:9 --count 10 --warmup 0 --size 0",
        "--addr 127.0.0.1:9 --count 10 --warmup 0 --size 8 --rate 5",
        // No count needs a duration.
        "--addr 127.0.0.1:9 --count 0 --warmup 0 --size 8",
        "--addr 127.0.0.1:9 --count 10 --warmup 0 --size 8 --settle-s -1",
        "--addr 127.0.0.1:9 --count 10 --warmup 0 --size 8 --settle-s x",
    ] {
        let output = Command::new(CLIENT).args(words(args)).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "args {args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("usage:"));
    }
}

#[test]
fn duration_ends_the_run_before_the_count() {
    let server = Server::start();
    let (output, took) = timed_client(
        &server.addr,
        "--count 100000000 --warmup 10 --size 64 --duration-s 0.5",
    );

    let report = report_of(&output);
    assert!(took < Duration::from_millis(500 + 1000 + 500));
    let count = count_of(&report);
    assert!(0 < count && count < 100_000_000);
}

#[test]
fn count_0_measures_for_the_duration_after_a_settled_warm_up() {
    let server = Server::start();
    let (output, took) = timed_client(
        &server.addr,
        "--count 0 --warmup 100 --size 64 --connections 2 --duration-s 1 --settle-s 3",
    );

    let report = report_of(&output);
    // Warm-up (100 round trips, at most 3 s more), 1 s of measuring, the last round trip.
    assert!(took < Duration::from_millis(3000 + 1000 + 1000 + 1000));
    assert_eq!(report["params"]["count"], 0);
    assert_eq!(report["params"]["settle_s"], 3.0);
    let elapsed_s = report["elapsed_s"].as_f64().unwrap();
    assert!((1.0..2.0).contains(&elapsed_s), "elapsed_s {elapsed_s}");
    assert!(count_of(&report) > 0);
    // The settle phase's round trips are warm-up too, and take three 200 ms windows at least.
    let warmup_s = report["warmup_s"].as_f64().unwrap();
    match report["tuning"]["settle"].as_str().unwrap() {
        "settled" => assert!(warmup_s >= 0.6, "warmup_s {warmup_s}"),
        // A busy host may keep the windows apart: then it tried for the full 3 s.
        "not settled in 3 s" => assert!(warmup_s >= 3.0, "warmup_s {warmup_s}"),
        other => panic!("tuning.settle {other:?}"),
    }
    assert!(report["warmup"].as_u64().unwrap() > 100);
}

#[test]
fn a_settle_time_too_short_for_three_windows_is_reported_and_measuring_goes_on() {
    let server = Server::start();
    let output = client(
        &server.addr,
        "--count 500 --warmup 10 --size 64 --settle-s 0.05",
    );

    let report = report_of(&output);
    assert_eq!(report["tuning"]["settle"], "not settled in 0.05 s");
    assert_eq!(report["count"], 500);
    assert!(report["warmup_s"].as_f64().unwrap() >= 0.05);
    assert!(report["warmup"].as_u64().unwrap() > 10);
}

#[test]
fn silent_server_gives_timeouts_within_the_time_bound() {
    // Connections complete in the kernel's backlog, but nothing is ever echoed.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let (output, took) = timed_client(
        &addr,
        "--count 50 --warmup 0 --size 8 --timeout-ms 200 --duration-s 0.5",
    );

    assert_eq!(output.status.code(), Some(1));
    assert!(took < Duration::from_millis(500 + 200 + 500));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("timeouts") && stderr.contains("nothing within"),
        "stderr: {stderr}"
    );
}

/// A running echo-server, stopped (SIGKILL) if a test fails before stopping it.
struct Server {
    child: Option<Child>,
    addr: String,
}

impl Server {
    fn start() -> Self {
        Self::start_with(&[])
    }

    fn start_with(extra: &[&str]) -> Self {
        let mut child = Command::new(SERVER)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ready: Value = serde_json::from_str(&line).expect("first line is JSON");
        let addr = ready["listening"]
            .as_str()
            .expect("has 'listening'")
            .to_string();
        Self {
            child: Some(child),
            addr,
        }
    }

    fn stop(mut self) -> process::ExitStatus {
        let mut child = self.child.take().unwrap();
        let pid = c_int::try_from(child.id()).unwrap();
        assert_eq!(unsafe { kill(pid, SIGTERM) }, 0);
        child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

const SIGTERM: c_int = 15;

unsafe extern "C" {
    fn kill(pid: c_int, signal: c_int) -> c_int;
}

/// Runs the client against `addr` with `args`, its other arguments separated by spaces.
fn client(addr: &str, args: &str) -> Output {
    Command::new(CLIENT)
        .args(["--addr", addr])
        .args(words(args))
        .output()
        .unwrap()
}

/// `client`, and how long it took.
fn timed_client(addr: &str, args: &str) -> (Output, Duration) {
    let started = Instant::now();
    let output = client(addr, args);
    (output, started.elapsed())
}

/// The report of a client that succeeded (exit 0): its stdout, one JSON document.
fn report_of(output: &Output) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON document")
}

/// A command line's arguments, written as one line: none of them holds a space.
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// The report's count of measured round trips, checked against its histogram's.
fn count_of(report: &Value) -> u64 {
    let count = report["count"].as_u64().unwrap();
    assert_eq!(decode(report["latency_hdr"].as_str().unwrap()).len(), count);
    count
}

fn decode(encoded: &str) -> Histogram<u64> {
    let bytes = BASE64.decode(encoded).expect("valid base64");
    Deserializer::new()
        .deserialize(&mut Cursor::new(bytes))
        .expect("valid V2 deflate histogram")
}

/// An address where nothing listens: a port just bound by this process and released.
fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}
