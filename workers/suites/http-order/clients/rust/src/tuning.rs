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
}
