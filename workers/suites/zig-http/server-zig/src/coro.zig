//! Stackful coroutines on one epoll event loop, on one thread: the seed's design (many cheap
//! tasks, each with its own small stack, switched on one event loop). A task runs until a
//! socket would block, then switches back to the loop, which resumes it when epoll reports the
//! socket ready, its deadline passes, or the loop stops.
//!
//! Context switches use the standard library's `std.Io.fiber` (the one its evented `std.Io`
//! uses). Stacks are mmap'd with a guard page, pooled, and registered with valgrind, so
//! memcheck follows the switches.
const std = @import("std");
const builtin = @import("builtin");
const linux = std.os.linux;
const fiber = std.Io.fiber;

comptime {
    if (builtin.cpu.arch != .x86_64) @compileError("the coroutines' entry is written for x86_64");
}

pub const WaitError = error{ Timeout, Canceled };

pub const Task = struct {
    loop: *Loop,
    /// The task's body; `finish` runs on the loop's stack after the body returned.
    body: *const fn (*Task) void,
    finish: *const fn (*Task) void,
    context: fiber.Context = undefined,
    stack: Stack = undefined,
    /// Monotonic ns after which a wait fails with Timeout; 0: none.
    deadline_ns: u64 = 0,
    waiting: bool = false,
    timed_out: bool = false,
    canceled: bool = false,
    finished: bool = false,
    live_prev: ?*Task = null,
    live_next: ?*Task = null,
    queue_next: ?*Task = null,

    /// Suspends the task until the loop resumes it (its socket is ready, its deadline passed,
    /// or the loop is stopping).
    pub fn wait(task: *Task) WaitError!void {
        if (task.canceled) return error.Canceled;
        task.waiting = true;
        switchTo(&task.context, &task.loop.main);
        task.waiting = false;
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

    /// Registers `fd` with the loop's epoll, edge-triggered, to resume this task.
    pub fn watch(task: *Task, fd: i32, events: u32) error{WatchFailed}!void {
        var event: linux.epoll_event = .{
            .events = events | linux.EPOLL.ET,
            .data = .{ .ptr = @intFromPtr(task) },
        };
        if (linux.errno(linux.epoll_ctl(task.loop.epfd, linux.EPOLL.CTL_ADD, fd, &event)) != .SUCCESS)
            return error.WatchFailed;
    }
};

pub const Loop = struct {
    epfd: i32,
    stacks: StackPool,
    main: fiber.Context = undefined,
    live: ?*Task = null,
    live_count: usize = 0,
    ready: ?*Task = null,
    /// Tasks whose body returned this iteration; freed after the iteration's events, so a
    /// later event of the same batch never reaches freed memory.
    finished: ?*Task = null,
    stopping: bool = false,

    const scan_interval_ns = 50 * std.time.ns_per_ms;

    pub fn init(stack_bytes: usize) !Loop {
        const rc = linux.epoll_create1(linux.EPOLL.CLOEXEC);
        if (linux.errno(rc) != .SUCCESS) return error.EpollCreateFailed;
        return .{ .epfd = @intCast(rc), .stacks = .{ .size = stack_bytes } };
    }

    pub fn deinit(loop: *Loop) void {
        loop.stacks.deinit();
        _ = linux.close(loop.epfd);
    }

    /// Starts `task` (its fields loop, body and finish set) on a stack of its own; it first
    /// runs in the loop's next iteration.
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
        task.queue_next = loop.ready;
        loop.ready = task;
    }

    /// Runs until `stop` was called and every task has finished.
    pub fn run(loop: *Loop) void {
        var events: [256]linux.epoll_event = undefined;
        var next_scan = now() + scan_interval_ns;
        while (!(loop.stopping and loop.live_count == 0)) {
            loop.runReady();
            const rc = linux.epoll_wait(loop.epfd, &events, events.len, 50);
            const count: usize = if (linux.errno(rc) == .SUCCESS) rc else 0;
            for (events[0..count]) |event| {
                const task: *Task = @ptrFromInt(event.data.ptr);
                if (!task.finished and task.waiting) loop.resumeTask(task);
            }
            loop.runReady();
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
            if (task.waiting) {
                task.queue_next = loop.ready;
                loop.ready = task;
            }
        }
    }

    fn runReady(loop: *Loop) void {
        while (loop.ready) |task| {
            loop.ready = task.queue_next;
            task.queue_next = null;
            if (!task.finished) loop.resumeTask(task);
        }
    }

    fn expire(loop: *Loop, t: u64) void {
        var it = loop.live;
        while (it) |task| {
            it = task.live_next;
            if (task.waiting and !task.finished and task.deadline_ns != 0 and t >= task.deadline_ns) {
                task.timed_out = true;
                loop.resumeTask(task);
            }
        }
    }

    fn resumeTask(loop: *Loop, task: *Task) void {
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
