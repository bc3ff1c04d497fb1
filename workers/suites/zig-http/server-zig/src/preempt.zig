//! Time slices, as the seed's ZCO had them: SIGALRM every slice (setitimer, ITIMER_REAL).
//!
//! What "preemption" means here: the signal handler only sets a flag. Switching stacks inside
//! a signal handler is unsafe (the task could be in the middle of malloc, or of the loop's own
//! bookkeeping), so the task that was running when the slice ended yields at its next safe
//! point, its next I/O call (`coro.Task.io`): it goes to the back of the ready queue. A task
//! that computed for long without I/O would not be interrupted; this server's tasks never do
//! (a request is parsed and answered in microseconds), so a yield happens only when a slice
//! happens to end while a task runs, and the count says how often that was.
//!
//! The handler runs on an alternate signal stack: a signal frame (the CPU's extended state,
//! kilobytes with AVX-512) would not fit on an 8 KB coroutine stack.
const std = @import("std");
const linux = std.os.linux;

/// Set by SIGALRM; cleared by the loop each time it resumes a task.
var slice_over = std.atomic.Value(bool).init(false);
var signal_stack: [64 * 1024]u8 align(16) = undefined;

/// setitimer's argument: the interval, then the time to the first expiry.
const Itimerval = extern struct { interval: linux.timeval, value: linux.timeval };

/// Starts a time slice of `slice_ms` milliseconds.
pub fn start(slice_ms: u32) error{ SigaltstackFailed, SigactionFailed, SetitimerFailed }!void {
    const stack: linux.stack_t = .{ .sp = &signal_stack, .flags = 0, .size = signal_stack.len };
    if (linux.errno(linux.sigaltstack(&stack, null)) != .SUCCESS) return error.SigaltstackFailed;
    const action: linux.Sigaction = .{
        .handler = .{ .handler = onAlarm },
        .mask = linux.sigemptyset(),
        .flags = linux.SA.ONSTACK | linux.SA.RESTART,
    };
    if (linux.errno(linux.sigaction(.ALRM, &action, null)) != .SUCCESS) return error.SigactionFailed;
    const slice: linux.timeval = .{ .sec = slice_ms / 1000, .usec = @as(i64, slice_ms % 1000) * 1000 };
    if (setTimer(.{ .interval = slice, .value = slice }) != .SUCCESS) return error.SetitimerFailed;
}

/// Disarms the timer (a no-op when it was never started).
pub fn stop() void {
    const zero: linux.timeval = .{ .sec = 0, .usec = 0 };
    _ = setTimer(.{ .interval = zero, .value = zero });
}

/// Whether the running task's slice is over.
pub inline fn due() bool {
    return slice_over.load(.monotonic);
}

/// The loop resumes a task: its slice starts.
pub inline fn sliceStarts() void {
    slice_over.store(false, .monotonic);
}

fn onAlarm(_: linux.SIG) callconv(.c) void {
    slice_over.store(true, .monotonic);
}

fn setTimer(timer: Itimerval) linux.E {
    // std.os.linux.setitimer takes an itimerspec (nanoseconds); the system call reads an
    // itimerval (microseconds).
    return linux.errno(linux.syscall3(.setitimer, @intFromEnum(linux.ITIMER.REAL), @intFromPtr(&timer), 0));
}
