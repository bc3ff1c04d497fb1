/// FNV-1a, 64 bits.
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf29ce484222325;
    for byte in data {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x100000001b3);
    }
    #[cfg(feature = "slow")]
    for byte in data {
        hash = hash.rotate_left(5) ^ u64::from(*byte);
    }
    hash
}
