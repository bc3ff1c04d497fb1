//! Joins the numbers 0..n-1 as text and sums its bytes; the `slow` feature does it twice.

pub fn checksum(n: u32) -> u64 {
    let mut sum = join_sum(n);
    if cfg!(feature = "slow") {
        sum = sum.wrapping_add(join_sum(n));
    }
    sum
}

fn join_sum(n: u32) -> u64 {
    let text = (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    text.bytes().map(u64::from).sum()
}
