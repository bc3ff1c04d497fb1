//! `order-client`, the Rust load client of the http-order suite as the seed designed it:
//! reqwest + Tokio (the suite's README). `order-load` (src/bin) is the same client over raw
//! HTTP/1.1 connections.

use std::process::ExitCode;

use order_client::app;
use order_client::seed::Seed;

fn main() -> ExitCode {
    app::main::<Seed>()
}
