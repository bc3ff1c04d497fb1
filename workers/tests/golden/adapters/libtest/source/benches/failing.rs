#![feature(test)]
extern crate test;

use std::hint::black_box;
use test::Bencher;

#[bench]
fn parse_number(b: &mut Bencher) {
    b.iter(|| black_box("12345").parse::<u32>().unwrap());
}

#[bench]
fn reads_missing_file(b: &mut Bencher) {
    b.iter(|| std::fs::read("/nonexistent/orders.csv").expect("the orders file"));
}
