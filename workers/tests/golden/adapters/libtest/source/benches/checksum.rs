#![feature(test)]
extern crate test;

use std::hint::black_box;
use test::Bencher;

fn fnv1a(data: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf29ce484222325;
    for byte in data {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x100000001b3);
    }
    hash
}

#[bench]
fn checksum_10_bytes(b: &mut Bencher) {
    let data = vec![7u8; 10];
    b.iter(|| fnv1a(black_box(&data)));
}

#[bench]
fn checksum_1000_bytes(b: &mut Bencher) {
    let data = vec![7u8; 1000];
    b.bytes = data.len() as u64;
    b.iter(|| fnv1a(black_box(&data)));
}

#[bench]
fn vec_push_100(b: &mut Bencher) {
    b.iter(|| {
        let mut v = Vec::new();
        for i in 0..100u32 {
            v.push(black_box(i));
        }
        v
    });
}

#[test]
fn checksum_is_stable() {
    assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
}
