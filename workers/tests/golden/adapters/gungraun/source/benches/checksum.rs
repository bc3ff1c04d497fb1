use std::hint::black_box;

use ::checksum::fnv1a;
use gungraun::{library_benchmark, library_benchmark_group, main};

#[library_benchmark]
#[bench::ten_bytes(vec![7u8; 10])]
#[bench::thousand_bytes(vec![7u8; 1000])]
fn fnv1a_bytes(data: Vec<u8>) -> u64 {
    black_box(fnv1a(black_box(&data)))
}

#[library_benchmark]
fn vec_push_100() -> Vec<u32> {
    let mut pushed = Vec::new();
    for i in 0..100u32 {
        pushed.push(black_box(i));
    }
    pushed
}

library_benchmark_group!(
    name = checksums;
    benchmarks = fnv1a_bytes, vec_push_100
);

main!(library_benchmark_groups = checksums);
