//! The http-order suite's Rust load clients: one program ([`app`]) over two transports,
//! `order-client` (src/main.rs: reqwest, the seed's) and `order-load` (src/bin: raw
//! HTTP/1.1, the lab's reference load).

pub mod app;
pub mod cli;
mod hdr;
mod intervals;
mod load;
mod options;
pub mod raw;
pub mod seed;
pub mod settle;
pub mod transport;
mod tuning;
