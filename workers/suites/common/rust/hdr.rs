//! A latency histogram as the programs' reports carry it (`latency_hdr`): the V2 deflate
//! encoding ("HISTF..." once in base64) that HdrHistogram libraries read.
//!
//! Shared by the echo client and the http-order Rust clients and order server: each crate has
//! a symlink to this file (`src/hdr.rs`), so a suite's folder still holds all it builds from.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};

/// `latency` in the V2 deflate encoding, in base64.
pub fn encode(latency: &Histogram<u64>) -> Result<String, String> {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(latency, &mut bytes)
        .map_err(|err| format!("cannot encode the histogram: {err:?}"))?;
    Ok(BASE64.encode(bytes))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use hdrhistogram::serialization::Deserializer;

    use super::*;

    #[test]
    fn encodes_what_a_reader_decodes_again() {
        let mut latency = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        for ns in [1_000, 2_000, 250_000, 3_000_000_000] {
            latency.record(ns).unwrap();
        }
        let encoded = encode(&latency).unwrap();
        assert!(encoded.starts_with("HISTF"), "{encoded}");
        let bytes = BASE64.decode(encoded).unwrap();
        let decoded: Histogram<u64> = Deserializer::new()
            .deserialize(&mut Cursor::new(bytes))
            .unwrap();
        assert_eq!(decoded, latency);
    }
}
