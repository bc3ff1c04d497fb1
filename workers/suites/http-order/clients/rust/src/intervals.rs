//! Latency over time (the suite's README, `intervals`): the ok orders in one-second windows by
//! when they were answered, with exact nearest-rank percentiles per window. And the settled
//! warm-up's watch (README, "Settled warm-up"): the ok answers in 200 ms windows, until three
//! in a row agree.

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

/// The settled warm-up's windows, by answer time.
pub const SETTLE_WINDOW_NS: u64 = 200_000_000;

/// One closed settle window: how many ok answers it had and their p50 (nearest rank; 0 when
/// it had none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub p50: u64,
}

/// The settling rule: the last three windows each have an ok answer, and their counts and
/// their p50s are each within 10 % (largest <= 1.1 x smallest).
pub fn settles(windows: &[Summary]) -> bool {
    let Some(last) = windows.len().checked_sub(3).map(|from| &windows[from..]) else {
        return false;
    };
    let within = |values: [u64; 3]| {
        let (low, high) = (values.iter().min().unwrap(), values.iter().max().unwrap());
        // high <= 1.1 x low, in integers.
        u128::from(*high) * 10 <= u128::from(*low) * 11
    };
    last.iter().all(|window| window.count > 0)
        && within([0, 1, 2].map(|i| last[i].count as u64))
        && within([0, 1, 2].map(|i| last[i].p50))
}

/// The watch of the settled warm-up, fed with the time since it began (ns): the ok answers go
/// into 200 ms windows by answer time; each window is judged once time has passed its end. The
/// verdict is `true` at the end of the first window that settles ([`settles`]) and `false`
/// once `limit_ns` has passed (only windows ended by then count); it never changes after that.
pub struct Settler {
    limit_ns: u64,
    /// The window being filled (window k: `[k, k + 1) x 200 ms`).
    open: u64,
    /// Its ok answers' latencies.
    latencies: Vec<u64>,
    /// The last closed windows, at most three.
    closed: Vec<Summary>,
    verdict: Option<bool>,
}

impl Settler {
    pub fn new(limit_ns: u64) -> Self {
        Self {
            limit_ns,
            open: 0,
            latencies: Vec::new(),
            closed: Vec::with_capacity(3),
            verdict: None,
        }
    }

    /// The verdict so far.
    pub fn verdict(&self) -> Option<bool> {
        self.verdict
    }

    /// Judges every window that ended by `now_ns`; the verdict, once there is one.
    pub fn advance(&mut self, now_ns: u64) -> Option<bool> {
        if self.verdict.is_some() {
            return self.verdict;
        }
        let until = now_ns.min(self.limit_ns);
        while (self.open + 1) * SETTLE_WINDOW_NS <= until {
            let mut values = std::mem::take(&mut self.latencies);
            values.sort_unstable();
            let summary = Summary {
                count: values.len(),
                p50: if values.is_empty() {
                    0
                } else {
                    rank(&values, 500)
                },
            };
            if self.closed.len() == 3 {
                self.closed.remove(0);
            }
            self.closed.push(summary);
            self.open += 1;
            if settles(&self.closed) {
                self.verdict = Some(true);
                return self.verdict;
            }
            if self.closed.iter().all(|window| window.count == 0) && self.closed.len() == 3 {
                // Empty windows from here to `until` change nothing: skip them.
                self.open = self.open.max(until / SETTLE_WINDOW_NS);
            }
        }
        if now_ns >= self.limit_ns {
            self.verdict = Some(false);
        }
        self.verdict
    }

    /// An ok answer `at_ns` after the watch began, of `latency_ns`; one stamped in a window
    /// already judged (another task judged it first) is left out.
    pub fn note(&mut self, at_ns: u64, latency_ns: u64) -> Option<bool> {
        let verdict = self.advance(at_ns);
        if verdict.is_none() && at_ns / SETTLE_WINDOW_NS == self.open {
            self.latencies.push(latency_ns);
        }
        verdict
    }
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

    fn summary(count: usize, p50: u64) -> Summary {
        Summary { count, p50 }
    }

    #[test]
    fn three_windows_within_ten_percent_settle() {
        assert!(settles(&[
            summary(100, 1000),
            summary(110, 1100),
            summary(105, 1050)
        ]));
        // Only the last three count.
        assert!(settles(&[
            summary(1, 1),
            summary(100, 1000),
            summary(110, 1100),
            summary(105, 1050)
        ]));
        assert!(!settles(&[
            summary(100, 1000),
            summary(111, 1000),
            summary(105, 1000)
        ]));
        assert!(!settles(&[
            summary(100, 1000),
            summary(100, 1101),
            summary(100, 1000)
        ]));
        assert!(!settles(&[summary(100, 1000), summary(100, 1000)]));
        assert!(!settles(&[]));
        // An empty window never settles, even among empty ones.
        assert!(!settles(&[summary(0, 0), summary(0, 0), summary(0, 0)]));
        assert!(!settles(&[summary(0, 0), summary(1, 5), summary(1, 5)]));
    }

    /// Feeds `per_window` answers of `latency` ns into each of `windows` windows from `first`.
    fn feed(settler: &mut Settler, first: u64, windows: u64, per_window: u64, latency: u64) {
        for window in first..first + windows {
            for i in 0..per_window {
                let at = window * SETTLE_WINDOW_NS + i * (SETTLE_WINDOW_NS / per_window);
                assert_eq!(settler.note(at, latency), None);
            }
        }
    }

    #[test]
    fn settles_at_the_end_of_the_third_steady_window() {
        let mut settler = Settler::new(5 * NS_PER_S);
        // A slow start (window 0), then three steady windows.
        feed(&mut settler, 0, 1, 10, 5_000);
        feed(&mut settler, 1, 3, 50, 1_000);
        // Window 3 is still open: no verdict before its end.
        assert_eq!(settler.advance(4 * SETTLE_WINDOW_NS - 1), None);
        assert_eq!(settler.advance(4 * SETTLE_WINDOW_NS), Some(true));
        // Final.
        assert_eq!(settler.advance(10 * NS_PER_S), Some(true));
        assert_eq!(settler.note(10 * NS_PER_S, 1), Some(true));
    }

    #[test]
    fn the_p50_is_the_nearest_rank_one() {
        let mut settler = Settler::new(5 * NS_PER_S);
        for window in 0..3 {
            // Latencies 1, 2, 100, 100: the 2nd smallest is the p50 (2), in each window.
            for (i, latency) in [1, 2, 100, 100].into_iter().enumerate() {
                let at = window * SETTLE_WINDOW_NS + i as u64;
                settler.note(at, latency + if window == 2 { 1 } else { 0 });
            }
        }
        // p50s 2, 2, 3: 3 > 1.1 x 2.
        assert_eq!(settler.advance(3 * SETTLE_WINDOW_NS), None);
        assert_eq!(
            settler.closed,
            vec![summary(4, 2), summary(4, 2), summary(4, 3)]
        );
    }

    #[test]
    fn gives_up_at_the_limit_and_never_settles_on_silence() {
        let mut settler = Settler::new(NS_PER_S);
        feed(&mut settler, 0, 2, 20, 1_000);
        // Nothing more: windows 2.. are empty.
        assert_eq!(settler.advance(NS_PER_S - 1), None);
        assert_eq!(settler.advance(NS_PER_S), Some(false));
        // A long silence is skipped, not walked window by window.
        let mut silent = Settler::new(86_400 * NS_PER_S);
        assert_eq!(silent.advance(86_000 * NS_PER_S), None);
        assert!(silent.open >= 86_000 * NS_PER_S / SETTLE_WINDOW_NS);
        assert_eq!(silent.advance(86_400 * NS_PER_S), Some(false));
    }

    #[test]
    fn a_window_ending_after_the_limit_does_not_settle() {
        // Limit at 0.5 s: window 2 ends at 0.6 s, past it.
        let mut settler = Settler::new(NS_PER_S / 2);
        feed(&mut settler, 0, 2, 20, 1_000);
        assert_eq!(settler.note(2 * SETTLE_WINDOW_NS, 1_000), None);
        assert_eq!(settler.advance(3 * SETTLE_WINDOW_NS), Some(false));
    }

    #[test]
    fn the_999th_of_a_thousand_is_p999() {
        let values: Vec<u64> = (1..=1000).collect();
        assert_eq!(rank(&values, 999), 999);
        assert_eq!(rank(&values, 990), 990);
    }
}
