//! Stackful coroutines on one event loop, on one thread: the seed's design (many cheap tasks,
//! each with its own small stack, switched on one event loop). A task runs until its I/O would
//! block, then switches back to the loop, which resumes it when the I/O can go on, its
//! deadline passes, or the loop stops.
//!
//! Two ways to wait for I/O (`Backend`), chosen when the loop starts:
//! - epoll (the default): sockets are non-blocking; a task tries the system call and waits for
//!   epoll (edge-triggered) to report its socket ready when it would block.
//! - io_uring (the seed's ZCO): accept, recv and send are io_uring operations; a task queues
//!   one and suspends until its completion arrives. The loop submits the queued operations and
//!   reaps completions in one `io_uring_enter` (submit_and_wait). A deadline that passes
//!   cancels the task's operation (IORING_OP_ASYNC_CANCEL), and so does `stop`: a task is
//!   resumed only once its operation's completion has arrived, so the kernel never writes into
//!   a buffer whose task has gone.
//!
//! The loop runs in passes: it resumes the tasks that were ready when the pass began (at most
//! `batch` of them, the rest wait for the next pass), then polls for I/O, without blocking if
//! tasks are still ready. The ready queue is first in, first out; or (`Queue.priority`, the
//! seed's ZCO scheduler) a priority queue kept as a list that every pop scans whole for the
//! task resumed the fewest times, O(n) a pop as the seed's was, so its cost at many ready
//! connections can be measured. Deadlines are checked every 50 ms. A task also yields at each I/O
//! call when `preempt` says its time slice is over (see preempt.zig).
//!
//! Context switches use the standard library's `std.Io.fiber` (the one its evented `std.Io`
//! uses). Stacks are mmap'd with a guard page, pooled, and registered with valgrind, so
//! memcheck follows the switches.
const std = @import("std");
const builtin = @import("builtin");
const linux = std.os.linux;
const fiber = std.Io.fiber;
const IoUring = linux.IoUring;
const preempt = @import("preempt.zig");

comptime {
    if (builtin.cpu.arch != .x86_64) @compileError("the coroutines' entry is written for x86_64");
}

pub const Backend = enum { epoll, uring };

/// The ready queue's order: fifo, or priority (the fewest resumes first, a linear scan a pop).
pub const Queue = enum { fifo, priority };

pub const Config = struct {
    backend: Backend = .epoll,
    stack_bytes: usize,
    /// Tasks resumed per pass before I/O is polled again; 0: every task ready at the pass's start.
    batch: usize = 0,
    queue: Queue = .fifo,
};

pub const WaitError = error{ Timeout, Canceled };

/// An I/O call a task makes: accept4, recvfrom or sendto on a socket.
pub const Op = union(enum) {
    /// The listener; flags for the new socket (SOCK.CLOEXEC, SOCK.NONBLOCK).
    accept: struct { fd: i32, flags: u32 },
    recv: struct { fd: i32, into: []u8 },
    send: struct { fd: i32, bytes: []const u8 },

    fn call(op: Op) usize {
        return switch (op) {
            .accept => |a| linux.accept4(a.fd, null, null, a.flags),
            .recv => |r| linux.recvfrom(r.fd, r.into.ptr, r.into.len, 0, null, null),
            .send => |s| linux.sendto(s.fd, s.bytes.ptr, s.bytes.len, linux.MSG.NOSIGNAL, null, 0),
        };
    }

    fn prep(op: Op, sqe: *linux.io_uring_sqe) void {
        switch (op) {
            .accept => |a| sqe.prep_accept(a.fd, null, null, a.flags),
            .recv => |r| sqe.prep_recv(r.fd, r.into, 0),
            .send => |s| sqe.prep_send(s.fd, s.bytes, linux.MSG.NOSIGNAL),
        }
    }
};

pub const Task = struct {
    loop: *Loop,
    /// The task's body; `finish` runs on the loop's stack after the body returned.
    body: *const fn (*Task) void,
    finish: *const fn (*Task) void,
    context: fiber.Context = undefined,
    stack: Stack = undefined,
    /// Monotonic ns after which a wait fails with Timeout; 0: none.
    deadline_ns: u64 = 0,
    /// Suspended until an event, a completion, its deadline or the loop's stop.
    waiting: bool = false,
    /// In the ready queue.
    queued: bool = false,
    /// io_uring: an operation of this task is submitted and its completion not yet reaped.
    in_flight: bool = false,
    /// io_uring: the completed operation's result (a count, or a negative errno).
    result: i32 = 0,
    timed_out: bool = false,
    canceled: bool = false,
    finished: bool = false,
    /// Times the loop resumed it: its priority in a priority queue (the fewest first).
    resumes: u64 = 0,
    live_prev: ?*Task = null,
    live_next: ?*Task = null,
    queue_next: ?*Task = null,

    /// Performs `op` as its system call would, returning what the call returns (a count, or
    /// an errno in linux's encoding), waiting as long as it would block.
    pub fn io(task: *Task, op: Op) WaitError!usize {
        try task.safePoint();
        switch (task.loop.io) {
            .epoll => while (true) {
                const rc = op.call();
                switch (linux.errno(rc)) {
                    .AGAIN => try task.wait(),
                    .INTR => {},
                    else => return rc,
                }
            },
            .uring => {
                const sqe = task.loop.submission() orelse return errnoResult(.BUSY);
                op.prep(sqe);
                const res = try task.complete(sqe);
                return @bitCast(@as(isize, res));
            },
        }
    }

    /// Waits until `fd` can be read: the loop's epoll watches it (`watch`), or an io_uring poll.
    pub fn readable(task: *Task, fd: i32) WaitError!void {
        switch (task.loop.io) {
            .epoll => try task.wait(),
            .uring => {
                const sqe = task.loop.submission() orelse return error.Canceled;
                sqe.prep_poll_add(fd, linux.POLL.IN);
                _ = try task.complete(sqe);
            },
        }
    }

    /// Suspends the task until the loop resumes it (epoll: its socket is ready; or its deadline
    /// passed, or the loop is stopping).
    pub fn wait(task: *Task) WaitError!void {
        if (task.canceled) return error.Canceled;
        task.suspendUntilWoken();
        if (task.canceled) return error.Canceled;
        if (task.timed_out) {
            task.timed_out = false;
            return error.Timeout;
        }
    }

    /// Waits for `ms` milliseconds (or until the loop stops).
    pub fn sleep(task: *Task, ms: u64) error{Canceled}!void {
        const saved = task.deadline_ns;
        defer task.deadline_ns = saved;
        task.deadline_ns = now() + ms * std.time.ns_per_ms;
        while (true) task.wait() catch |err| switch (err) {
            error.Timeout => return,
            error.Canceled => return error.Canceled,
        };
    }

    /// epoll: registers `fd`, edge-triggered, to resume this task. io_uring: nothing to do.
    pub fn watch(task: *Task, fd: i32, events: u32) error{WatchFailed}!void {
        const epfd = switch (task.loop.io) {
            .epoll => |epfd| epfd,
            .uring => return,
        };
        var event: linux.epoll_event = .{
            .events = events | linux.EPOLL.ET,
            .data = .{ .ptr = @intFromPtr(task) },
        };
        if (linux.errno(linux.epoll_ctl(epfd, linux.EPOLL.CTL_ADD, fd, &event)) != .SUCCESS)
            return error.WatchFailed;
    }

    /// io_uring: `sqe` (prepared) becomes this task's one operation in flight; the task suspends
    /// until its completion arrives and returns its result.
    fn complete(task: *Task, sqe: *linux.io_uring_sqe) WaitError!i32 {
        sqe.user_data = @intFromPtr(task);
        task.in_flight = true;
        task.suspendUntilWoken();
        if (task.canceled) return error.Canceled;
        if (task.timed_out) {
            task.timed_out = false;
            // A completion that won the race with its cancellation is kept.
            if (task.result == -@as(i32, @intFromEnum(linux.E.CANCELED))) return error.Timeout;
        }
        return task.result;
    }

    /// A time slice that ended while this task ran makes it yield here: it goes to the back of
    /// the ready queue and runs again in the loop's next pass.
    fn safePoint(task: *Task) error{Canceled}!void {
        if (!preempt.due()) return;
        task.loop.preemptions += 1;
        task.loop.enqueue(task);
        switchTo(&task.context, &task.loop.main);
        if (task.canceled) return error.Canceled;
    }

    fn suspendUntilWoken(task: *Task) void {
        task.waiting = true;
        switchTo(&task.context, &task.loop.main);
        task.waiting = false;
    }
};

pub const Loop = struct {
    io: union(Backend) { epoll: i32, uring: IoUring },
    stacks: StackPool,
    batch: usize,
    queue: Queue,
    main: fiber.Context = undefined,
    live: ?*Task = null,
    live_count: usize = 0,
    ready: ?*Task = null,
    ready_tail: ?*Task = null,
    ready_count: usize = 0,
    /// Tasks whose body returned this pass; freed after the pass polled for I/O, so a later
    /// event of the same poll never reaches freed memory.
    finished: ?*Task = null,
    stopping: bool = false,
    /// Times a task was resumed, and times one yielded because its time slice was over.
    switches: u64 = 0,
    preemptions: u64 = 0,

    const scan_interval_ns = 50 * std.time.ns_per_ms;
    const scan_interval: linux.kernel_timespec = .{ .sec = 0, .nsec = scan_interval_ns };
    /// io_uring user_data that is not a task: completions of cancellations, and the tick (a
    /// timeout that wakes the loop for the deadline scan). Tasks are aligned: never 0 or 1.
    const untracked: u64 = 0;
    const tick: u64 = 1;

    pub const InitError = error{ EpollCreateFailed, IoUringUnavailable, IoUringFailed };

    pub fn init(config: Config) InitError!Loop {
        const stacks: StackPool = .{ .size = config.stack_bytes };
        switch (config.backend) {
            .epoll => {
                const rc = linux.epoll_create1(linux.EPOLL.CLOEXEC);
                if (linux.errno(rc) != .SUCCESS) return error.EpollCreateFailed;
                return .{ .io = .{ .epoll = @intCast(rc) }, .stacks = stacks, .batch = config.batch, .queue = config.queue };
            },
            .uring => return .{ .io = .{ .uring = try openRing() }, .stacks = stacks, .batch = config.batch, .queue = config.queue },
        }
    }

    pub fn deinit(loop: *Loop) void {
        loop.stacks.deinit();
        switch (loop.io) {
            .epoll => |epfd| _ = linux.close(epfd),
            .uring => |*ring| ring.deinit(),
        }
    }

    /// Starts `task` (its fields loop, body and finish set) on a stack of its own; it first
    /// runs in the loop's next pass.
    pub fn spawn(loop: *Loop, task: *Task) error{OutOfMemory}!void {
        task.stack = try loop.stacks.get();
        // The entry finds its task 16 bytes below the stack's top; the slot under it stands for
        // a return address (0 ends backtraces), so `start` sees a standard call frame.
        const top = @intFromPtr(task.stack.memory.ptr) + task.stack.memory.len;
        const slots: [*]usize = @ptrFromInt(top - 24);
        slots[0] = 0;
        slots[1] = @intFromPtr(task);
        task.context = .{ .rsp = top - 24, .rbp = 0, .rip = @intFromPtr(&entry) };
        task.live_next = loop.live;
        if (loop.live) |head| head.live_prev = task;
        loop.live = task;
        loop.live_count += 1;
        loop.enqueue(task);
    }

    /// Runs until `stop` was called and every task has finished.
    pub fn run(loop: *Loop) void {
        if (loop.io == .uring) loop.armTick();
        var next_scan = now() + scan_interval_ns;
        while (!(loop.stopping and loop.live_count == 0)) {
            loop.runReady();
            loop.poll(loop.ready_count == 0);
            const t = now();
            if (t >= next_scan) {
                next_scan = t + scan_interval_ns;
                loop.expire(t);
            }
            loop.reap();
        }
    }

    /// Makes every task's wait fail with Canceled, so each one unwinds and closes what it
    /// holds; `run` returns when they all have.
    pub fn stop(loop: *Loop) void {
        loop.stopping = true;
        var it = loop.live;
        while (it) |task| : (it = task.live_next) {
            task.canceled = true;
            loop.interrupt(task);
        }
    }

    /// Ends a waiting task's wait: at once, or (io_uring) by canceling its operation, whose
    /// completion then resumes it.
    fn interrupt(loop: *Loop, task: *Task) void {
        if (task.in_flight) {
            const sqe = loop.submission() orelse return; // it resumes when its operation ends
            sqe.prep_cancel(@intFromPtr(task), 0);
            sqe.user_data = untracked;
        } else if (task.waiting) {
            loop.enqueue(task);
        }
    }

    fn enqueue(loop: *Loop, task: *Task) void {
        if (task.queued) return;
        task.queued = true;
        task.queue_next = null;
        if (loop.ready_tail) |tail| tail.queue_next = task else loop.ready = task;
        loop.ready_tail = task;
        loop.ready_count += 1;
    }

    fn runReady(loop: *Loop) void {
        var count = loop.ready_count;
        if (loop.batch != 0) count = @min(count, loop.batch);
        while (count > 0) : (count -= 1) {
            const task = switch (loop.queue) {
                .fifo => loop.popFirst(),
                .priority => loop.popFewestResumes(),
            };
            loop.ready_count -= 1;
            task.queued = false;
            loop.resumeTask(task);
        }
    }

    fn popFirst(loop: *Loop) *Task {
        const task = loop.ready.?;
        loop.ready = task.queue_next;
        if (loop.ready == null) loop.ready_tail = null;
        return task;
    }

    /// The ready task resumed the fewest times (the oldest of those), found by scanning the
    /// whole queue and unlinked from it.
    fn popFewestResumes(loop: *Loop) *Task {
        var best = loop.ready.?;
        var best_prev: ?*Task = null;
        var prev = best;
        var it = best.queue_next;
        while (it) |task| : (it = task.queue_next) {
            if (task.resumes < best.resumes) {
                best = task;
                best_prev = prev;
            }
            prev = task;
        }
        if (best_prev) |before| before.queue_next = best.queue_next else loop.ready = best.queue_next;
        if (loop.ready_tail == best) loop.ready_tail = best_prev;
        return best;
    }

    /// Waits for I/O (at most until the next deadline scan) unless `block` is false, and
    /// queues the tasks it can resume.
    fn poll(loop: *Loop, block: bool) void {
        switch (loop.io) {
            .epoll => |epfd| {
                var events: [256]linux.epoll_event = undefined;
                const rc = linux.epoll_wait(epfd, &events, events.len, if (block) 50 else 0);
                const count: usize = if (linux.errno(rc) == .SUCCESS) rc else 0;
                for (events[0..count]) |event| {
                    const task: *Task = @ptrFromInt(event.data.ptr);
                    if (task.waiting) loop.enqueue(task);
                }
            },
            .uring => |*ring| {
                // Interrupted (SIGALRM) or short of kernel resources: reap what is there.
                _ = ring.submit_and_wait(if (block) 1 else 0) catch {};
                var cqes: [256]linux.io_uring_cqe = undefined;
                while (true) {
                    const count = ring.copy_cqes(&cqes, 0) catch 0;
                    for (cqes[0..count]) |cqe| loop.completed(cqe);
                    if (count < cqes.len) break;
                }
            },
        }
    }

    fn completed(loop: *Loop, cqe: linux.io_uring_cqe) void {
        switch (cqe.user_data) {
            untracked => {},
            tick => loop.armTick(),
            else => {
                const task: *Task = @ptrFromInt(cqe.user_data);
                task.in_flight = false;
                task.result = cqe.res;
                loop.enqueue(task);
            },
        }
    }

    fn armTick(loop: *Loop) void {
        const sqe = loop.submission() orelse return;
        sqe.prep_timeout(&scan_interval, 0, 0);
        sqe.user_data = tick;
    }

    /// A free submission queue entry, submitting the queued ones to make room if needed;
    /// null if the kernel takes none.
    fn submission(loop: *Loop) ?*linux.io_uring_sqe {
        const ring = &loop.io.uring;
        return ring.get_sqe() catch {
            _ = ring.submit() catch return null;
            return ring.get_sqe() catch null;
        };
    }

    fn expire(loop: *Loop, t: u64) void {
        var it = loop.live;
        while (it) |task| : (it = task.live_next) {
            if (task.waiting and !task.queued and !task.timed_out and
                task.deadline_ns != 0 and t >= task.deadline_ns)
            {
                task.timed_out = true;
                loop.interrupt(task);
            }
        }
    }

    fn resumeTask(loop: *Loop, task: *Task) void {
        loop.switches += 1;
        task.resumes += 1;
        preempt.sliceStarts();
        switchTo(&loop.main, &task.context);
        if (task.finished) {
            task.queue_next = loop.finished;
            loop.finished = task;
        }
    }

    fn reap(loop: *Loop) void {
        while (loop.finished) |task| {
            loop.finished = task.queue_next;
            if (task.live_prev) |prev| prev.live_next = task.live_next else loop.live = task.live_next;
            if (task.live_next) |next| next.live_prev = task.live_prev;
            loop.live_count -= 1;
            loop.stacks.put(task.stack);
            task.finish(task);
        }
    }
};

/// An io_uring of 4,096 entries: more than the tasks that queue an operation in one pass,
/// else `submission` submits early. Completions that overflow its queue wait in the kernel
/// (IORING_FEAT_NODROP, Linux 5.5).
fn openRing() Loop.InitError!IoUring {
    // Completion work runs when the loop enters the kernel rather than by interrupting it.
    const cooperative = linux.IORING_SETUP_SINGLE_ISSUER | linux.IORING_SETUP_COOP_TASKRUN;
    return IoUring.init(4096, cooperative) catch |err| switch (err) {
        error.ArgumentsInvalid => IoUring.init(4096, 0) catch |again| return ringError(again), // before Linux 6.0
        else => return ringError(err),
    };
}

fn ringError(err: anyerror) Loop.InitError {
    return switch (err) {
        // kernel.io_uring_disabled, a seccomp policy, or a kernel without io_uring.
        error.PermissionDenied, error.SystemOutdated => error.IoUringUnavailable,
        else => error.IoUringFailed,
    };
}

fn errnoResult(e: linux.E) usize {
    return @bitCast(-@as(isize, @intFromEnum(e)));
}

pub fn now() u64 {
    var ts: linux.timespec = undefined;
    _ = linux.clock_gettime(.MONOTONIC, &ts);
    return @as(u64, @intCast(ts.sec)) * std.time.ns_per_s + @as(u64, @intCast(ts.nsec));
}

inline fn switchTo(save: *fiber.Context, load: *fiber.Context) void {
    const message: fiber.Switch = .{ .old = save, .new = load };
    _ = fiber.contextSwitch(&message);
}

/// A new task's first instruction: its stack holds the task pointer above a zero "return
/// address", where `spawn` put them.
fn entry() callconv(.naked) void {
    asm volatile (
        \\ movq 8(%%rsp), %%rdi
        \\ jmp %[start:P]
        :
        : [start] "X" (&start),
    );
}

fn start(task: *Task) callconv(.c) noreturn {
    task.body(task);
    task.finished = true;
    switchTo(&task.context, &task.loop.main);
    unreachable; // a finished task is never resumed
}

pub const Stack = struct {
    /// The usable stack, above its guard page.
    memory: []align(std.heap.page_size_min) u8,
    valgrind_id: usize,
};

/// Stacks are reused: mapping and unmapping one per connection would cost three system calls
/// for every short-lived connection (ab without -k opens one per request).
const StackPool = struct {
    size: usize,
    free: std.ArrayList(Stack) = .empty,

    const guard = std.heap.page_size_min;
    const max_free = 4096;

    fn get(pool: *StackPool) error{OutOfMemory}!Stack {
        if (pool.free.pop()) |stack| return stack;
        const rc = linux.mmap(null, guard + pool.size, .{ .READ = true, .WRITE = true }, .{ .TYPE = .PRIVATE, .ANONYMOUS = true, .NORESERVE = true }, -1, 0);
        if (linux.errno(rc) != .SUCCESS) return error.OutOfMemory;
        const base: [*]align(std.heap.page_size_min) u8 = @ptrFromInt(rc);
        _ = linux.mprotect(base, guard, .{});
        const memory = base[guard .. guard + pool.size];
        return .{ .memory = memory, .valgrind_id = std.valgrind.stackRegister(memory) };
    }

    fn put(pool: *StackPool, stack: Stack) void {
        if (pool.free.items.len < max_free) {
            if (pool.free.append(std.heap.c_allocator, stack)) return else |_| {}
        }
        unmap(stack);
    }

    fn deinit(pool: *StackPool) void {
        for (pool.free.items) |stack| unmap(stack);
        pool.free.deinit(std.heap.c_allocator);
    }

    fn unmap(stack: Stack) void {
        std.valgrind.stackDeregister(stack.valgrind_id);
        _ = linux.munmap(stack.memory.ptr - guard, guard + stack.memory.len);
    }
};
