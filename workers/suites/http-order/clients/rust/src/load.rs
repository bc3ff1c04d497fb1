//! The two loads, over one pool of at most C keep-alive connections: the closed loop (C tasks,
//! each sending its next order when the previous one is answered; a count of orders or a time,
//! after a warm-up that may go on until settled) and the open loop (orders at a constant rate,
//! measured from their intended send time as well). Generic over how orders travel
//! ([`Transport`]): the same loads drive both clients of the crate.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use tokio::runtime::Handle;
use tokio::sync::{Barrier, Semaphore};

use crate::cli::Params;
use crate::intervals::{self, Window};
use crate::settle::Settler;
use crate::transport::{Failure, Transport};

const LOWEST_NS: u64 = 1;
const HIGHEST_NS: u64 = 60_000_000_000;
const SIGNIFICANT_FIGURES: u8 = 3;

/// What a load measured.
pub struct Outcome {
    /// Successful measured orders, ns; open loop: from the intended send time.
    pub latency: Histogram<u64>,
    /// Open loop only: from the actual send time.
    pub uncorrected: Option<Histogram<u64>>,
    /// Measured orders (= ok + errors + timeouts).
    pub orders: u64,
    pub ok: u64,
    pub errors: u64,
    pub timeouts: u64,
    /// Open loop: timeouts never sent (no connection was free by window + timeout).
    pub unsent: u64,
    /// The measuring phase.
    pub duration: Duration,
    pub warmup_sent: u64,
    /// From the first warm-up order to the start of the measuring phase (zero without one).
    pub warmup_time: Duration,
    /// Whether the settled warm-up settled; None without one (`--settle 0`, open loop).
    pub settled: Option<bool>,
    pub first_failure: Option<String>,
    /// Latency over time, one window per second of the measuring phase.
    pub intervals: Vec<Window>,
}

/// Closed loop: C tasks share the warm-up (W orders, then, with `--settle S`, more until the
/// answers settle or S seconds pass) and then the N measured orders (`--orders 0`: as many as
/// `--duration` lets them take); the measuring phase starts once every task has finished
/// warming up and lasts at most `--duration` (plus one order's `--timeout`). Warm-up is
/// bounded by `--duration` too, so a hung server cannot hold the client in it.
pub async fn closed_loop<T: Transport>(
    params: &Params,
    sender: Arc<Sender<T>>,
) -> Result<Outcome, String> {
    let duration = Duration::from_secs_f64(params.duration_s);
    let plan = Arc::new(ClosedPlan {
        warmup: params.warmup,
        warmup_taken: AtomicU64::new(0),
        warmup_deadline: Instant::now() + duration,
        warmup_began: OnceLock::new(),
        settle: (params.settle_s > 0.0).then(|| Settle {
            began: OnceLock::new(),
            watch: Mutex::new(Settler::new(nanos(Duration::from_secs_f64(
                params.settle_s,
            )))),
        }),
        // No count: the duration alone ends the measuring phase.
        measured: if params.orders == 0 {
            u64::MAX
        } else {
            params.orders
        },
        measured_taken: AtomicU64::new(0),
        warmed_up: Barrier::new(params.connections + 1),
        started: OnceLock::new(),
        duration,
    });
    let workers: Vec<_> = (0..params.connections)
        .map(|_| tokio::spawn(closed_worker(Arc::clone(&plan), Arc::clone(&sender))))
        .collect();
    plan.warmed_up.wait().await;
    let mut total = Tally::new(false);
    for worker in workers {
        let tally = worker
            .await
            .map_err(|err| format!("a connection task failed: {err}"))?;
        total.merge(tally)?;
    }
    // Set by the first task past the barrier: this task may be scheduled well after the
    // connection tasks have started measuring.
    let started = *plan
        .started
        .get()
        .ok_or("no connection task started measuring")?;
    let warmup_time = match plan.warmup_began.get() {
        Some(&began) => started.saturating_duration_since(began),
        None => Duration::ZERO,
    };
    // Settled, or not (S seconds passed first).
    let settled = plan
        .settle
        .as_ref()
        .map(|settle| lock(&settle.watch).verdict() == Some(true));
    Ok(Outcome {
        warmup_time,
        settled,
        ..total.into_outcome(started.elapsed())
    })
}

struct ClosedPlan {
    /// The warm-up orders by count; with a settled warm-up, more follow.
    warmup: u64,
    /// Warm-up orders taken so far, both kinds.
    warmup_taken: AtomicU64,
    warmup_deadline: Instant,
    /// When the first warm-up order was taken.
    warmup_began: OnceLock<Instant>,
    settle: Option<Settle>,
    /// u64::MAX: no count (`--orders 0`).
    measured: u64,
    measured_taken: AtomicU64,
    warmed_up: Barrier,
    started: OnceLock<Instant>,
    duration: Duration,
}

/// The settled warm-up, shared by the tasks: the first to run out of counted warm-up orders
/// starts the watch, every task feeds it its ok answers, and whichever task finds a verdict
/// (settled, or S seconds passed) ends the warm-up for all.
struct Settle {
    began: OnceLock<Instant>,
    watch: Mutex<Settler>,
}

impl Settle {
    /// The verdict, judging every window ended by now.
    fn verdict(&self) -> Option<bool> {
        let began = *self.began.get_or_init(Instant::now);
        lock(&self.watch).advance(nanos(began.elapsed()))
    }

    /// An ok warm-up answer; before the watch began it does not count.
    fn note(&self, sent: Instant, answered: Instant) {
        if let Some(&began) = self.began.get()
            && answered >= began
        {
            lock(&self.watch).note(nanos(answered - began), nanos(answered - sent));
        }
    }
}

impl ClosedPlan {
    /// The index of the next order of a phase, if that phase has one left.
    fn take(counter: &AtomicU64, limit: u64) -> Option<u64> {
        counter
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
                (taken < limit).then_some(taken + 1)
            })
            .ok()
    }
}

async fn closed_worker<T: Transport>(plan: Arc<ClosedPlan>, sender: Arc<Sender<T>>) -> Tally {
    let mut tally = Tally::new(false);
    // This task's connection, from its first order to its last.
    let mut line = sender.transport.line();
    while Instant::now() < plan.warmup_deadline {
        let Some(index) = ClosedPlan::take(&plan.warmup_taken, plan.warmup) else {
            break;
        };
        plan.warmup_began.get_or_init(Instant::now);
        let (sent, result) = sender.post(&mut line, index, None).await;
        tally.warmup_sent += 1;
        if let (Some(settle), Ok(())) = (&plan.settle, result) {
            // Answered once the settle watch began (another task ran out of counted orders).
            settle.note(sent, Instant::now());
        }
    }
    if let Some(settle) = &plan.settle {
        // Until the verdict (settled, or S seconds passed); the orders sent until then are
        // warm-up orders, whenever they are answered.
        while settle.verdict().is_none() {
            let index = plan.warmup_taken.fetch_add(1, Ordering::Relaxed);
            plan.warmup_began.get_or_init(Instant::now);
            let (sent, result) = sender.post(&mut line, index, None).await;
            tally.warmup_sent += 1;
            if result.is_ok() {
                settle.note(sent, Instant::now());
            }
        }
    }
    // Always reached, even after failures, or the others would wait forever.
    plan.warmed_up.wait().await;
    let started = *plan.started.get_or_init(Instant::now);
    let deadline = started + plan.duration;
    while Instant::now() < deadline {
        let Some(index) = ClosedPlan::take(&plan.measured_taken, plan.measured) else {
            break;
        };
        let (sent, result) = sender.post(&mut line, plan.warmup + index, None).await;
        let answered = Instant::now();
        tally.note(
            result,
            answered - sent,
            None,
            answered.saturating_duration_since(started),
        );
    }
    tally
}

/// Open loop: order k (warm-up first) is due at `t0 + k / R`. The measured orders are the
/// `floor(R x duration)` due in the window after the warm-up. The calling thread schedules
/// them: each order is sent when it is due, or, when all C connections are busy (a stalled
/// server), as soon as one is free: a late order is never skipped, and its latency counts from
/// when it was due. Nothing is in flight past window + timeout: an order still unanswered then
/// is a timeout, and one not sent by then (every connection was stuck) is a timeout, unsent.
pub fn open_loop<T: Transport>(
    handle: &Handle,
    params: &Params,
    sender: Arc<Sender<T>>,
) -> Result<Outcome, String> {
    sharpen_sleeps();
    // This thread is no runtime worker; the permit waits below need the runtime's timer.
    let _runtime = handle.enter();
    let rate = params.rate;
    let measured = (params.duration_s * rate).floor() as u64;
    let connections =
        u32::try_from(params.connections).map_err(|_| "--connections is too large".to_string())?;
    let permits = Arc::new(Semaphore::new(params.connections));
    // One line per permit: an order that holds a permit takes a line, and gives it back first.
    let lines = Arc::new(Mutex::new(
        (0..params.connections)
            .map(|_| sender.transport.line())
            .collect::<Vec<_>>(),
    ));
    let tally = Arc::new(Mutex::new(Tally::new(true)));
    let t0 = Instant::now();
    let due = |k: u64| t0 + Duration::from_secs_f64(k as f64 / rate);
    let started = due(params.warmup);
    let window = Duration::from_secs_f64(params.duration_s);
    let end = started + window + Duration::from_secs_f64(params.timeout_s);
    let mut warmup_sent = 0;
    for k in 0..params.warmup + measured {
        let intended = due(k);
        sleep_until(intended);
        let permit = match Arc::clone(&permits).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                let free = Arc::clone(&permits).acquire_owned();
                match handle.block_on(tokio::time::timeout_at(end.into(), free)) {
                    Ok(Ok(permit)) => Some(permit),
                    // Every connection stayed busy until the end.
                    _ => None,
                }
            }
        };
        let Some(permit) = permit.filter(|_| Instant::now() < end) else {
            // This order and the rest are timeouts, never sent.
            let unsent = params.warmup + measured - k.max(params.warmup);
            lock(&tally).note_unsent(unsent);
            break;
        };
        let is_measured = k >= params.warmup;
        warmup_sent += u64::from(!is_measured);
        let sender = Arc::clone(&sender);
        let tally = Arc::clone(&tally);
        let lines = Arc::clone(&lines);
        handle.spawn(async move {
            let mut line = lock(&lines).pop().expect("a line for every permit");
            let (sent, result) = sender.post(&mut line, k, Some(end)).await;
            let answered = Instant::now();
            lock(&lines).push(line);
            if is_measured {
                let corrected = answered.saturating_duration_since(intended);
                let uncorrected = answered.saturating_duration_since(sent);
                let at = answered.saturating_duration_since(started);
                lock(&tally).note(result, corrected, Some(uncorrected), at);
            }
            // Only now: all permits back means every order is in the tally.
            drop(permit);
        });
    }
    // All permits back = every order answered, failed or timed out (each by the end).
    let _all = handle
        .block_on(permits.acquire_many(connections))
        .map_err(|err| format!("cannot wait for the last orders: {err}"))?;
    // The window lasts its full length even when its last order was answered before the end.
    let duration = started.elapsed().max(window);
    let mut tally = std::mem::replace(&mut *lock(&tally), Tally::new(true));
    tally.warmup_sent = warmup_sent;
    Ok(Outcome {
        // The first order was due at t0, the first measured one at the window's start.
        warmup_time: if warmup_sent > 0 {
            started - t0
        } else {
            Duration::ZERO
        },
        ..tally.into_outcome(duration)
    })
}

fn lock<T>(shared: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(|err| err.into_inner())
}

fn sleep_until(deadline: Instant) {
    let now = Instant::now();
    if deadline > now {
        thread::sleep(deadline - now);
    }
}

/// Lets the scheduler's sleeps end within microseconds of their deadline instead of Linux's
/// default 50 µs timer slack (so orders leave close to when they are due).
fn sharpen_sleeps() {
    // SAFETY: PR_SET_TIMERSLACK takes a number and affects only the calling thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Sends orders, each within the timeout.
pub struct Sender<T> {
    transport: T,
    timeout: Duration,
}

impl<T: Transport> Sender<T> {
    pub fn new(params: &Params) -> Result<Self, String> {
        Ok(Self {
            transport: T::new(params)?,
            timeout: Duration::from_secs_f64(params.timeout_s),
        })
    }

    /// Sends order `index` on `line`, stamped with the current time, and reads the whole
    /// answer, within the timeout (and by `deadline`, if given); returns when it was sent
    /// (after building it) and how it went.
    pub async fn post(
        &self,
        line: &mut T::Line,
        index: u64,
        deadline: Option<Instant>,
    ) -> (Instant, Result<(), Failure>) {
        self.transport.stage(line, index);
        let sent = Instant::now();
        let deadline = deadline.map_or(sent + self.timeout, |by| by.min(sent + self.timeout));
        let result = tokio::time::timeout_at(deadline.into(), self.transport.exchange(line))
            .await
            .unwrap_or_else(|_| {
                let waited = deadline.saturating_duration_since(sent).as_secs_f64();
                Err(Failure::Timeout(format!("no answer within {waited:.3} s")))
            });
        (sent, result)
    }
}

/// What one or more tasks saw.
struct Tally {
    latency: Histogram<u64>,
    uncorrected: Option<Histogram<u64>>,
    orders: u64,
    ok: u64,
    errors: u64,
    timeouts: u64,
    unsent: u64,
    warmup_sent: u64,
    first_failure: Option<String>,
    /// Ok orders: (ns from the start of the measuring phase to the answer, latency in ns).
    answers: Vec<(u64, u64)>,
}

impl Tally {
    fn new(open: bool) -> Self {
        Self {
            latency: histogram(),
            uncorrected: open.then(histogram),
            orders: 0,
            ok: 0,
            errors: 0,
            timeouts: 0,
            unsent: 0,
            warmup_sent: 0,
            first_failure: None,
            answers: Vec::new(),
        }
    }

    fn note(
        &mut self,
        result: Result<(), Failure>,
        latency: Duration,
        uncorrected: Option<Duration>,
        answered_at: Duration,
    ) {
        self.orders += 1;
        let message = match result {
            Ok(()) => {
                self.ok += 1;
                record(&mut self.latency, latency);
                self.answers.push((nanos(answered_at), nanos(latency)));
                if let (Some(histogram), Some(value)) = (&mut self.uncorrected, uncorrected) {
                    record(histogram, value);
                }
                return;
            }
            Err(Failure::Timeout(message)) => {
                self.timeouts += 1;
                message
            }
            Err(Failure::Error(message)) => {
                self.errors += 1;
                message
            }
        };
        self.first_failure.get_or_insert(message);
    }

    /// `count` orders not sent by window + timeout (every connection was stuck): timeouts.
    fn note_unsent(&mut self, count: u64) {
        if count == 0 {
            return;
        }
        self.orders += count;
        self.timeouts += count;
        self.unsent += count;
        self.first_failure.get_or_insert_with(|| {
            "no connection was free before --duration + --timeout".to_string()
        });
    }

    fn merge(&mut self, other: Tally) -> Result<(), String> {
        self.latency
            .add(&other.latency)
            .map_err(|err| format!("cannot merge histograms: {err:?}"))?;
        if let (Some(mine), Some(theirs)) = (&mut self.uncorrected, &other.uncorrected) {
            mine.add(theirs)
                .map_err(|err| format!("cannot merge histograms: {err:?}"))?;
        }
        self.orders += other.orders;
        self.ok += other.ok;
        self.errors += other.errors;
        self.timeouts += other.timeouts;
        self.unsent += other.unsent;
        self.warmup_sent += other.warmup_sent;
        self.answers.extend(other.answers);
        if self.first_failure.is_none() {
            self.first_failure = other.first_failure;
        }
        Ok(())
    }

    fn into_outcome(self, duration: Duration) -> Outcome {
        Outcome {
            latency: self.latency,
            uncorrected: self.uncorrected,
            orders: self.orders,
            ok: self.ok,
            errors: self.errors,
            timeouts: self.timeouts,
            unsent: self.unsent,
            duration,
            warmup_sent: self.warmup_sent,
            warmup_time: Duration::ZERO,
            settled: None,
            first_failure: self.first_failure,
            intervals: intervals::windows(self.answers),
        }
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_FIGURES)
        .expect("histogram bounds are valid constants")
}

/// Records in ns; a latency past the histogram's 60 s counts as 60 s.
fn record(histogram: &mut Histogram<u64>, latency: Duration) {
    histogram.saturating_record(nanos(latency).max(LOWEST_NS));
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_add_up() {
        let mut tally = Tally::new(true);
        let at = Duration::from_millis(7);
        tally.note(
            Ok(()),
            Duration::from_millis(5),
            Some(Duration::from_millis(1)),
            at,
        );
        tally.note(
            Err(Failure::Timeout("slow".into())),
            Duration::ZERO,
            None,
            at,
        );
        tally.note(
            Err(Failure::Error("refused".into())),
            Duration::ZERO,
            None,
            at,
        );
        tally.note_unsent(2);
        assert_eq!(
            (
                tally.orders,
                tally.ok,
                tally.timeouts,
                tally.errors,
                tally.unsent
            ),
            (5, 1, 3, 1, 2)
        );
        assert_eq!(tally.latency.len(), 1);
        assert_eq!(tally.uncorrected.as_ref().unwrap().len(), 1);
        assert_eq!(tally.first_failure.as_deref(), Some("slow"));
        assert_eq!(tally.answers, vec![(7_000_000, 5_000_000)]); // ok orders only
    }
}
