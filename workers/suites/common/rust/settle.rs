//! The settled warm-up (the http-order suite's README, "Settled warm-up"): after its fixed
//! warm-up a program keeps warming up while it watches its ok answers in 200 ms windows by
//! answer time, until three windows in a row agree within 10 % in count and p50, or a time
//! limit passes; and how it reports that (`tuning.settle`).
//!
//! Shared by the echo client and the http-order Rust clients: each crate has a symlink to
//! this file (`src/settle.rs`), so a suite's folder still holds all it builds from.

/// The settled warm-up's windows, by answer time.
pub const SETTLE_WINDOW_NS: u64 = 200_000_000;

/// One closed window: how many ok answers it had and their p50 (nearest rank: the
/// ceil(n / 2)-th smallest; 0 when it had none).
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
                p50: values
                    .get(values.len().div_ceil(2).saturating_sub(1))
                    .map_or(0, |&v| v),
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
            if self.closed.len() == 3 && self.closed.iter().all(|window| window.count == 0) {
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
    /// already judged (another thread or task judged it first) is left out.
    pub fn note(&mut self, at_ns: u64, latency_ns: u64) -> Option<bool> {
        let verdict = self.advance(at_ns);
        if verdict.is_none() && at_ns / SETTLE_WINDOW_NS == self.open {
            self.latencies.push(latency_ns);
        }
        verdict
    }
}

/// `tuning.settle`: `verdict` is None when there was no settled warm-up (0 seconds, an open
/// loop), else whether it settled within `settle_s`.
pub fn report(settle_s: f64, verdict: Option<bool>) -> String {
    match verdict {
        None => "off".into(),
        Some(true) => "settled".into(),
        Some(false) => format!("not settled in {} s", format_g(settle_s)),
    }
}

/// A number as C's `%g` writes it (6 significant digits, no trailing zeros, an exponent below
/// 1e-4 and from 1e6), as every client reports its settle time.
fn format_g(value: f64) -> String {
    const PRECISION: i32 = 6;
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    // The exponent once rounded to 6 significant digits ("9.99999e-5", "1.00000e6").
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, value);
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("LowerExp always writes an exponent");
    let exponent: i32 = exponent
        .parse()
        .expect("LowerExp writes an integer exponent");
    let trim = |digits: &str| {
        if digits.contains('.') {
            digits
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            digits.to_string()
        }
    };
    if (-4..PRECISION).contains(&exponent) {
        trim(&format!(
            "{:.*}",
            (PRECISION - 1 - exponent) as usize,
            value
        ))
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS_PER_S: u64 = 1_000_000_000;

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
        assert_eq!(settler.verdict(), Some(true));
    }

    #[test]
    fn the_p50_is_the_nearest_rank_one() {
        let mut settler = Settler::new(5 * NS_PER_S);
        for window in 0..3 {
            // Latencies 1, 2, 100, 100: the 2nd smallest is the p50 (2), in each window.
            for (i, latency) in [1, 2, 100, 100].into_iter().enumerate() {
                let at = window * SETTLE_WINDOW_NS + i as u64;
                settler.note(at, latency + u64::from(window == 2));
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
    fn reports_the_settle_time_like_printf_g() {
        for (value, printf) in [
            (5.0, "5"),
            (0.5, "0.5"),
            (0.05, "0.05"),
            (2.25, "2.25"),
            (86400.0, "86400"),
            (0.1234567, "0.123457"),
            (123456.7, "123457"),
            (999999.5, "1e+06"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
        ] {
            assert_eq!(
                report(value, Some(false)),
                format!("not settled in {printf} s")
            );
        }
        assert_eq!(report(5.0, Some(true)), "settled");
        assert_eq!(report(0.0, None), "off");
    }
}
