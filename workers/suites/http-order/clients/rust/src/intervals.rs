//! Latency over time (the suite's README, `intervals`): the ok orders in one-second windows by
//! when they were answered, with exact nearest-rank percentiles per window.

use serde::Serialize;

const NS_PER_S: u64 = 1_000_000_000;

/// One second of the measuring phase; an empty one has only `t_s` and `count`.
#[derive(Debug, PartialEq, Serialize)]
pub struct Window {
    t_s: u64,
    count: usize,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    latency: Option<WindowLatency>,
}

#[derive(Debug, PartialEq, Serialize)]
struct WindowLatency {
    p50: u64,
    p90: u64,
    p99: u64,
    p999: u64,
    max: u64,
}

/// `answers`: (ns from the start of the measuring phase to the answer, latency in ns) of each
/// ok order. Windows run from 0 to the last answer's, empty ones included.
pub fn windows(answers: Vec<(u64, u64)>) -> Vec<Window> {
    let Some(last) = answers.iter().map(|&(at, _)| at / NS_PER_S).max() else {
        return Vec::new();
    };
    let mut buckets: Vec<Vec<u64>> = (0..=last).map(|_| Vec::new()).collect();
    for (at, latency) in answers {
        buckets[(at / NS_PER_S) as usize].push(latency);
    }
    buckets
        .into_iter()
        .enumerate()
        .map(|(t_s, mut values)| {
            values.sort_unstable();
            Window {
                t_s: t_s as u64,
                count: values.len(),
                latency: (!values.is_empty()).then(|| WindowLatency {
                    p50: rank(&values, 500),
                    p90: rank(&values, 900),
                    p99: rank(&values, 990),
                    p999: rank(&values, 999),
                    max: values[values.len() - 1],
                }),
            }
        })
        .collect()
}

/// The nearest-rank percentile of sorted values: the ceil(q × n)-th smallest, q given in
/// tenths of a percent (integers, so 99.9 % of 1000 values is exactly the 999th).
fn rank(sorted: &[u64], per_mille: usize) -> u64 {
    let nth = (per_mille * sorted.len()).div_ceil(1000).max(1);
    sorted[nth - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_by_answer_time_with_nearest_rank_percentiles() {
        // Ten answers in the first second (latencies 1..=10), none in the second, one in the third.
        let mut answers: Vec<(u64, u64)> = (1..=10).map(|v| (v * 1_000, v)).collect();
        answers.push((2 * NS_PER_S + 5, 42));
        let found = windows(answers);
        assert_eq!(found.len(), 3);
        let first = found[0].latency.as_ref().unwrap();
        assert_eq!(
            (
                found[0].count,
                first.p50,
                first.p90,
                first.p99,
                first.p999,
                first.max
            ),
            (10, 5, 9, 10, 10, 10)
        );
        assert_eq!((found[1].count, found[1].latency.is_none()), (0, true));
        assert_eq!(found[2].latency.as_ref().unwrap().p50, 42);
        let json = serde_json::to_value(&found[1]).unwrap();
        assert_eq!(json, serde_json::json!({"t_s": 1, "count": 0}));
        assert!(windows(Vec::new()).is_empty());
    }

    #[test]
    fn the_999th_of_a_thousand_is_p999() {
        let values: Vec<u64> = (1..=1000).collect();
        assert_eq!(rank(&values, 999), 999);
        assert_eq!(rank(&values, 990), 990);
    }
}
