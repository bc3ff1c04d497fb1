//! Host tuning the client may ask for: CPU pinning and locked memory. A refusal is reported,
//! never fatal (README: `"off"`, `"applied"`, `"applied: 2,3"` or `"refused: <reason>"`). And
//! how the settled warm-up went (`"settled"`, `"not settled in S s"` or `"off"`).

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `mlockall(MCL_CURRENT | MCL_FUTURE)`, so no page of the client is swapped out mid-run.
pub fn lock_memory() -> String {
    // SAFETY: mlockall takes flags only and touches no memory of ours.
    if unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) } == 0 {
        "applied".into()
    } else {
        format!("refused: {}", os_reason(&io::Error::last_os_error()))
    }
}

/// Round-robin pinning of the runtime's threads to the CPUs of `--pin-cpus`.
pub struct Pinning {
    cpus: Vec<usize>,
    /// Why nothing is pinned although CPUs were given (checked once, before any thread).
    refusal: Option<String>,
    next: AtomicUsize,
    /// The first thread that could not be pinned, if any.
    failure: Mutex<Option<String>>,
}

impl Pinning {
    pub fn new(cpus: Vec<usize>) -> Self {
        let refusal = if cpus.is_empty() {
            None
        } else {
            check_allowed(&cpus).err()
        };
        Self {
            cpus,
            refusal,
            next: AtomicUsize::new(0),
            failure: Mutex::new(None),
        }
    }

    fn active(&self) -> bool {
        !self.cpus.is_empty() && self.refusal.is_none()
    }

    /// Pins the calling thread to the next CPU of the list (a runtime's `on_thread_start`).
    pub fn pin_next_thread(&self) {
        if !self.active() {
            return;
        }
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.cpus.len();
        self.pin_current(&self.cpus[index..=index]);
    }

    /// Pins the calling thread (the open loop's scheduler) to the whole list.
    pub fn pin_dispatcher(&self) {
        if self.active() {
            self.pin_current(&self.cpus);
        }
    }

    fn pin_current(&self, cpus: &[usize]) {
        if let Err(reason) = set_affinity(cpus) {
            let mut failure = self.failure.lock().unwrap_or_else(|err| err.into_inner());
            failure.get_or_insert(reason);
        }
    }

    pub fn report(&self) -> String {
        if self.cpus.is_empty() {
            return "off".into();
        }
        if let Some(reason) = &self.refusal {
            return format!("refused: {reason}");
        }
        let failure = self.failure.lock().unwrap_or_else(|err| err.into_inner());
        match failure.as_ref() {
            Some(reason) => format!("refused: {reason}"),
            None => {
                let list: Vec<String> = self.cpus.iter().map(usize::to_string).collect();
                format!("applied: {}", list.join(","))
            }
        }
    }
}

/// Every CPU must be one this process may run on, or none is pinned.
fn check_allowed(cpus: &[usize]) -> Result<(), String> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size.
    let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    if unsafe { libc::sched_getaffinity(0, size, &mut allowed) } != 0 {
        return Err(format!(
            "cannot read the allowed CPUs: {}",
            os_reason(&io::Error::last_os_error())
        ));
    }
    let set_size = libc::CPU_SETSIZE as usize;
    for &cpu in cpus {
        // SAFETY: CPU_ISSET reads the set; the index is checked against its size first.
        if cpu >= set_size || !unsafe { libc::CPU_ISSET(cpu, &allowed) } {
            return Err(format!("CPU {cpu} is not in the allowed set"));
        }
    }
    Ok(())
}

fn set_affinity(cpus: &[usize]) -> Result<(), String> {
    // SAFETY: as in check_allowed; every CPU was checked to be below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // pid 0 = the calling thread.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } == 0 {
        Ok(())
    } else {
        Err(os_reason(&io::Error::last_os_error()))
    }
}

/// `tuning.settle`: `verdict` is None when there was no settled warm-up (`--settle 0`, open
/// loop), else whether it settled within `settle_s`.
pub fn settle_report(settle_s: f64, verdict: Option<bool>) -> String {
    match verdict {
        None => "off".into(),
        Some(true) => "settled".into(),
        Some(false) => format!("not settled in {} s", format_g(settle_s)),
    }
}

/// A number as C's `%g` writes it (6 significant digits, no trailing zeros, an exponent below
/// 1e-4 and from 1e6), as every client of the suite reports `--settle`.
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

/// "Operation not permitted", without Rust's " (os error 1)".
fn os_reason(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_off_and_refusals() {
        assert_eq!(Pinning::new(vec![]).report(), "off");
        let refused = Pinning::new(vec![1023]).report();
        assert!(refused.starts_with("refused: CPU 1023"), "{refused}");
        assert!(Pinning::new(vec![5000]).report().starts_with("refused: "));
    }

    #[test]
    fn reports_the_settled_warm_up() {
        assert_eq!(settle_report(0.0, None), "off");
        assert_eq!(settle_report(5.0, Some(true)), "settled");
        assert_eq!(settle_report(5.0, Some(false)), "not settled in 5 s");
        assert_eq!(settle_report(0.5, Some(false)), "not settled in 0.5 s");
        assert_eq!(settle_report(0.05, Some(false)), "not settled in 0.05 s");
    }

    #[test]
    fn writes_numbers_like_printf_g() {
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
            (0.0, "0"),
        ] {
            assert_eq!(format_g(value), printf, "{value}");
        }
    }
}
