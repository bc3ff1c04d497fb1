//! `order-load`, the lab's reference load for the http-order suite: the `order-client`
//! program (the same command line, loads and report) over its own minimal HTTP/1.1 keep-alive
//! connections instead of reqwest, so the load costs the server's host as little CPU as it
//! can (the suite's README, "ref").

use std::process::ExitCode;

use order_client::app;
use order_client::raw::Raw;

fn main() -> ExitCode {
    app::main::<Raw>()
}
