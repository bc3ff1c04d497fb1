use std::hint::black_box;

use gungraun::{library_benchmark, library_benchmark_group, main};

#[library_benchmark]
fn parse_number() -> u32 {
    black_box("12345").parse::<u32>().unwrap()
}

#[library_benchmark]
fn reads_missing_file() -> Vec<u8> {
    std::fs::read(black_box("/nonexistent/orders.csv")).expect("the orders file")
}

library_benchmark_group!(
    name = needs_input;
    benchmarks = parse_number, reads_missing_file
);

main!(library_benchmark_groups = needs_input);
