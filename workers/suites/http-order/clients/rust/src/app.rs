//! A load client of the http-order suite, per the suite's README, over a [`Transport`].
//!
//! Closed loop (`--rate 0`): C tasks send orders one after another, a count of them or for a
//! time, after a warm-up that may go on until the answers settle. Open loop (`--rate R`):
//! orders are scheduled at a constant rate and their latency is measured from the intended
//! send time too. Prints one JSON document on stdout; diagnostics go to stderr.

use std::process::ExitCode;
use std::sync::Arc;
use std::{env, thread};

use serde_json::json;

use crate::cli::{self, Params};
use crate::hdr::encode;
use crate::load::{self, Outcome, Sender};
use crate::options;
use crate::settle;
use crate::transport::Transport;
use crate::tuning::{self, Pinning};

/// The whole program: the command line, the load over `T`, the report.
pub fn main<T: Transport>() -> ExitCode {
    let program = T::PROGRAM;
    let args: Vec<String> = env::args().skip(1).collect();
    if options::wants_help(&args) {
        println!("usage: {program} {}", cli::USAGE);
        return ExitCode::SUCCESS;
    }
    let params = match Params::parse(args) {
        Ok(params) => params,
        Err(message) => {
            eprintln!("{program}: {message}\nusage: {program} {}", cli::USAGE);
            return ExitCode::from(options::EXIT_USAGE as u8);
        }
    };
    // Before any thread or buffer exists, so MCL_CURRENT covers little and MCL_FUTURE the rest.
    let mlock = if params.mlock {
        tuning::lock_memory()
    } else {
        "off".to_string()
    };
    let pinning = Arc::new(Pinning::new(params.pin_cpus.clone()));
    match run::<T>(&params, &pinning) {
        Ok(outcome) => {
            let tuning = json!({
                "pin_cpus": pinning.report(),
                "mlock": mlock,
                "settle": settle::report(params.settle_s, outcome.settled),
            });
            match report(T::CLIENT, &params, &outcome, tuning) {
                Ok(document) => println!("{document}"),
                Err(message) => {
                    eprintln!("{program}: {message}");
                    return ExitCode::FAILURE;
                }
            }
            if outcome.ok == 0 {
                eprintln!("{program}: no measured order succeeded");
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            eprintln!("{program}: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run<T: Transport>(params: &Params, pinning: &Arc<Pinning>) -> Result<Outcome, String> {
    let program = T::PROGRAM;
    let cpus = thread::available_parallelism().map_or(1, |count| count.get());
    let hook = Arc::clone(pinning);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(params.connections.min(cpus))
        .enable_all()
        .on_thread_start(move || hook.pin_next_thread())
        .build()
        .map_err(|err| format!("cannot start the runtime: {err}"))?;
    let sender = Arc::new(Sender::<T>::new(params)?);
    let outcome = if params.rate > 0.0 {
        pinning.pin_dispatcher();
        load::open_loop(runtime.handle(), params, sender)
    } else {
        runtime.block_on(load::closed_loop(params, sender))
    }?;
    if outcome.unsent > 0 {
        eprintln!(
            "{program}: {} orders were never sent: every connection was busy until \
             --duration + --timeout",
            outcome.unsent
        );
    }
    if let Some(cause) = &outcome.first_failure {
        eprintln!(
            "{program}: {} errors, {} timeouts; first failure: {cause}",
            outcome.errors, outcome.timeouts
        );
    }
    eprintln!(
        "{program}: {} {} loop orders ({} ok) over {} connection(s) in {:.3} s, \
         after {} warm-up orders in {:.3} s{}",
        outcome.orders,
        if params.rate > 0.0 { "open" } else { "closed" },
        outcome.ok,
        params.connections,
        outcome.duration.as_secs_f64(),
        outcome.warmup_sent,
        outcome.warmup_time.as_secs_f64(),
        match outcome.settled {
            None => "",
            Some(true) => " (settled)",
            Some(false) => " (not settled)",
        },
    );
    // Requests still held by the runtime (none, normally) must not delay the exit.
    runtime.shutdown_background();
    Ok(outcome)
}

fn report(
    client: &str,
    params: &Params,
    outcome: &Outcome,
    tuning: serde_json::Value,
) -> Result<serde_json::Value, String> {
    let duration_s = outcome.duration.as_secs_f64();
    let per_second = |count: u64| {
        if duration_s > 0.0 {
            count as f64 / duration_s
        } else {
            0.0
        }
    };
    let mut document = json!({
        "client": client,
        "mode": if params.rate > 0.0 { "open" } else { "closed" },
        "latency_hdr": encode(&outcome.latency)?,
        "orders": outcome.orders,
        "ok": outcome.ok,
        "errors": outcome.errors,
        "timeouts": outcome.timeouts,
        "success_rate": if outcome.orders > 0 {
            outcome.ok as f64 / outcome.orders as f64
        } else {
            0.0
        },
        "duration_s": duration_s,
        "throughput": per_second(outcome.ok),
        "target_rate": params.rate,
        "achieved_rate": per_second(outcome.orders - outcome.unsent), // the orders sent
        "warmup_orders": outcome.warmup_sent,
        "warmup_s": outcome.warmup_time.as_secs_f64(),
        "tuning": tuning,
        "intervals": outcome.intervals,
    });
    if let Some(uncorrected) = &outcome.uncorrected {
        document["latency_uncorrected_hdr"] = encode(uncorrected)?.into();
    }
    Ok(document)
}
