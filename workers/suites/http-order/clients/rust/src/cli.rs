//! The command line every http-order client takes (README.md), parsed by hand so the client
//! needs no argument crate.

use crate::options::Options;

/// After "usage: PROGRAM ".
pub const USAGE: &str = "--url http://HOST:PORT [--orders N] [--connections C] [--warmup W] \
                         [--rate R] [--duration S] [--timeout T] [--pin-cpus LIST] \
                         [--mlock true|false] [--settle S]";

const OPTIONS: &[&str] = &[
    "url",
    "orders",
    "connections",
    "warmup",
    "rate",
    "duration",
    "timeout",
    "pin-cpus",
    "mlock",
    "settle",
];

/// The command line, with the suite's defaults filled in.
#[derive(Debug)]
pub struct Params {
    /// Where `POST /order` goes.
    pub order_url: reqwest::Url,
    /// Closed loop: measured orders in total, 0 = no count (measure for `duration_s`). Open
    /// loop: unused (the rate and duration decide).
    pub orders: u64,
    pub connections: usize,
    pub warmup: u64,
    /// Orders per second; 0 = closed loop.
    pub rate: f64,
    pub duration_s: f64,
    pub timeout_s: f64,
    /// CPUs to pin the worker threads to, round-robin; empty = no pinning.
    pub pin_cpus: Vec<usize>,
    pub mlock: bool,
    /// Closed loop: after the warm-up orders, warm up until settled, for at most this many
    /// seconds; 0 = off. Unused in open loop.
    pub settle_s: f64,
}

impl Params {
    pub fn parse(args: Vec<String>) -> Result<Self, String> {
        let options = Options::parse(args, OPTIONS)?;
        let url: String = options.required("url")?;
        let params = Self {
            order_url: order_url(&url)?,
            orders: options.optional("orders")?.unwrap_or(1000),
            connections: options.optional("connections")?.unwrap_or(50),
            warmup: options.optional("warmup")?.unwrap_or(100),
            rate: options.optional("rate")?.unwrap_or(0.0),
            duration_s: options.optional("duration")?.unwrap_or(60.0),
            timeout_s: options.optional("timeout")?.unwrap_or(5.0),
            pin_cpus: parse_cpu_list(&options.optional::<String>("pin-cpus")?.unwrap_or_default())?,
            mlock: options.optional("mlock")?.unwrap_or(false),
            settle_s: options.optional("settle")?.unwrap_or(0.0),
        };
        if params.connections == 0 {
            return Err("--connections must be at least 1".into());
        }
        if !(params.rate.is_finite() && params.rate >= 0.0) {
            return Err("--rate must be a number of orders per second, 0 or more".into());
        }
        for (name, seconds) in [
            ("duration", params.duration_s),
            ("timeout", params.timeout_s),
        ] {
            // Up to a day, so every deadline computed from them is representable.
            if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
                return Err(format!("--{name} must be a positive number of seconds"));
            }
        }
        if !(params.settle_s.is_finite() && params.settle_s >= 0.0 && params.settle_s <= 86_400.0) {
            return Err("--settle must be a number of seconds, 0 (off) or more".into());
        }
        Ok(params)
    }
}

fn order_url(base: &str) -> Result<reqwest::Url, String> {
    let parsed = reqwest::Url::parse(base).map_err(|err| format!("--url '{base}': {err}"))?;
    if parsed.scheme() != "http" {
        return Err(format!("--url '{base}': only http:// is supported"));
    }
    let joined = format!("{}/order", base.trim_end_matches('/'));
    reqwest::Url::parse(&joined).map_err(|err| format!("--url '{base}': {err}"))
}

/// "" (no pinning), "2-3", "0,2", "0-1,4": the CPUs in the order given, ranges expanded.
pub fn parse_cpu_list(list: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    if list.trim().is_empty() {
        return Ok(cpus);
    }
    for part in list.split(',') {
        let bad = || format!("--pin-cpus '{list}': '{part}' is not a CPU or a range of CPUs");
        let (first, last) = match part.split_once('-') {
            Some((first, last)) => (first, last),
            None => (part, part),
        };
        let first: usize = first.trim().parse().map_err(|_| bad())?;
        let last: usize = last.trim().parse().map_err(|_| bad())?;
        if first > last {
            return Err(bad());
        }
        cpus.extend(first..=last);
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| arg.to_string()).collect()
    }

    #[test]
    fn reads_the_runners_command_line() {
        let params = Params::parse(args(&[
            "--url",
            "http://127.0.0.1:8080",
            "--orders",
            "100",
            "--connections",
            "10",
            "--warmup",
            "10",
            "--rate",
            "200.0",
            "--duration",
            "2",
            "--timeout",
            "0.5",
            "--pin-cpus",
            "",
            "--mlock",
            "false",
        ]))
        .unwrap();
        assert_eq!(params.order_url.as_str(), "http://127.0.0.1:8080/order");
        assert_eq!(params.orders, 100);
        assert_eq!(params.rate, 200.0);
        assert_eq!(params.timeout_s, 0.5);
        assert!(params.pin_cpus.is_empty());
        assert!(!params.mlock);
        assert_eq!(params.settle_s, 0.0);
    }

    #[test]
    fn takes_trials_by_time_and_a_settled_warm_up() {
        let params = Params::parse(args(&[
            "--url",
            "http://127.0.0.1:8080",
            "--orders",
            "0",
            "--settle",
            "0.5",
        ]))
        .unwrap();
        assert_eq!((params.orders, params.settle_s), (0, 0.5));
    }

    #[test]
    fn refuses_bad_values() {
        for bad in [
            &["--orders", "5"][..],
            &["--url", "https://127.0.0.1:1"],
            &["--url", "http://127.0.0.1:1", "--connections", "0"],
            &["--url", "http://127.0.0.1:1", "--rate", "-1"],
            &["--url", "http://127.0.0.1:1", "--timeout", "0"],
            &["--url", "http://127.0.0.1:1", "--mlock", "yes"],
            &["--url", "http://127.0.0.1:1", "--pin-cpus", "3-2"],
            &["--url", "http://127.0.0.1:1", "--bogus", "1"],
            &["--url", "http://127.0.0.1:1", "--settle", "-1"],
            &["--url", "http://127.0.0.1:1", "--settle", "x"],
            &["--url", "http://127.0.0.1:1", "--settle", "inf"],
        ] {
            assert!(Params::parse(args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn expands_cpu_lists() {
        assert_eq!(parse_cpu_list("").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_cpu_list("2-3").unwrap(), vec![2, 3]);
        assert_eq!(parse_cpu_list("0,2").unwrap(), vec![0, 2]);
        assert_eq!(parse_cpu_list("0-1,4").unwrap(), vec![0, 1, 4]);
        assert!(parse_cpu_list("a").is_err());
    }
}
