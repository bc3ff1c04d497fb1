//! zig-server: the zig-http suite's Zig HTTP/1.1 server. One thread runs one event loop (epoll,
//! or io_uring with `--io uring`); every connection is a stackful coroutine (coro.zig). Routes
//! and response bytes are the Go baseline's (http.zig). The first stdout line is
//! {"listening": "HOST:PORT", "server": "zig"}; SIGTERM or SIGINT stops it, closing every
//! connection and freeing all it allocated, and it prints its counters to stderr.
//!
//! The seed's ZCO design is `--io uring --stack-kb 8 --preempt-ms 10 --batch 32 --queue priority
//! --max-conns 10000`.
const std = @import("std");
const linux = std.os.linux;
const build_options = @import("build_options");
const coro = @import("coro.zig");
const http = @import("http.zig");
const preempt = @import("preempt.zig");

const usage =
    \\usage: zig-server [--listen IPV4:PORT] [--header-timeout-ms N] [--idle-timeout-ms N]
    \\                  [--io epoll|uring] [--stack-kb 8..8192] [--preempt-ms N] [--batch N]
    \\                  [--queue fifo|priority] [--max-conns N]
    \\each flag at most once; --preempt-ms 0 (no time slices), --batch 0 and --max-conns 0 (no
    \\limit) and --queue fifo are the defaults
    \\
;

const Options = struct {
    address: linux.sockaddr.in = .{ .port = 0, .addr = @bitCast([4]u8{ 127, 0, 0, 1 }) },
    /// A request's head and body must arrive, and an answer be taken, within this.
    header_timeout_ms: u64 = 5000,
    /// A kept-alive connection may wait this long for its next request.
    idle_timeout_ms: u64 = 60000,
    io: coro.Backend = .epoll,
    stack_kb: usize = 64,
    /// A task's time slice (SIGALRM); 0: none.
    preempt_ms: u32 = 0,
    /// Tasks resumed per pass of the loop before it polls I/O again; 0: no limit.
    batch: usize = 0,
    queue: coro.Queue = .fifo,
    /// Connections open at once; the next waits in the listen backlog (0: no limit).
    max_conns: usize = 0,
};

var options: Options = .{};
var stats: http.Stats = .{};

/// One client connection: its coroutine, socket and buffers, allocated with malloc so
/// valgrind's memcheck and massif see them.
const Conn = struct {
    task: coro.Task,
    fd: i32,
    filled: usize = 0,
    buffer: [http.max_head_bytes]u8 = undefined,
    out: [512]u8 = undefined,

    fn consume(conn: *Conn, count: usize) void {
        std.mem.copyForwards(u8, conn.buffer[0 .. conn.filled - count], conn.buffer[count..conn.filled]);
        conn.filled -= count;
    }
};

const Failure = error{ Closed, Timeout, Canceled, Failed };

fn serve(task: *coro.Task) void {
    const conn: *Conn = @fieldParentPtr("task", task);
    defer _ = linux.close(conn.fd);
    task.watch(conn.fd, linux.EPOLL.IN | linux.EPOLL.OUT | linux.EPOLL.RDHUP) catch return;
    task.deadline_ns = deadline(options.header_timeout_ms);
    while (serveOne(conn)) |keep_alive| {
        if (!keep_alive) return;
        task.deadline_ns = deadline(if (conn.filled > 0) options.header_timeout_ms else options.idle_timeout_ms);
    } else |err| switch (err) {
        // A request that started and did not finish in time is told so.
        error.Timeout => if (conn.filled > 0) fail(conn, .request_timeout),
        error.Closed, error.Canceled, error.Failed => {},
    }
}

/// Reads one request, answers it, and says whether the connection stays open.
fn serveOne(conn: *Conn) Failure!bool {
    var req: http.Request = undefined;
    const head_length = while (true) {
        // The seed's memcheck finding, kept as a build option (-Duninit-request) to show that
        // the suite's memcheck catches it: the request is left uninitialised, so a field no
        // header sets (Connection, Content-Length) is read undefined.
        req = if (build_options.uninit_request) undefined else .{};
        switch (http.parseHead(conn.buffer[0..conn.filled], &req)) {
            .complete => |length| break length,
            .bad => |status| {
                fail(conn, status);
                return false;
            },
            .incomplete => {
                const first = conn.filled == 0;
                conn.filled += try receive(conn, conn.buffer[conn.filled..]);
                if (first) conn.task.deadline_ns = deadline(options.header_timeout_ms);
            },
        }
    };
    stats.requests += 1;
    const keep_alive = req.keepAlive();
    // Answer before the head is consumed: method and target point into the buffer.
    const response = http.answer(&conn.out, &req, &stats);
    conn.consume(head_length);
    var body_left = req.content_length orelse 0;
    while (true) {
        const take: usize = @intCast(@min(body_left, conn.filled));
        conn.consume(take);
        body_left -= take;
        if (body_left == 0) break;
        conn.filled += try receive(conn, conn.buffer[conn.filled..]);
    }
    try sendAll(conn, response);
    return keep_alive;
}

/// Some bytes into `into` (never empty), waiting for them; Closed when the client closed.
fn receive(conn: *Conn, into: []u8) Failure!usize {
    const rc = try conn.task.io(.{ .recv = .{ .fd = conn.fd, .into = into } });
    if (linux.errno(rc) != .SUCCESS) return error.Failed;
    return if (rc == 0) error.Closed else rc;
}

fn sendAll(conn: *Conn, bytes: []const u8) Failure!void {
    conn.task.deadline_ns = deadline(options.header_timeout_ms);
    var sent: usize = 0;
    while (sent < bytes.len) {
        const rc = try conn.task.io(.{ .send = .{ .fd = conn.fd, .bytes = bytes[sent..] } });
        if (linux.errno(rc) != .SUCCESS) return error.Failed;
        sent += rc;
    }
}

/// Answers with an error status and closes after reading what the client still sends, for
/// a bounded time: closing with unread bytes would reset the connection, and the client could
/// lose the answer.
fn fail(conn: *Conn, status: http.Status) void {
    sendAll(conn, http.failure(&conn.out, status)) catch return;
    _ = linux.shutdown(conn.fd, linux.SHUT.WR);
    conn.task.deadline_ns = deadline(@min(options.header_timeout_ms, 2000));
    while (true) _ = receive(conn, &conn.buffer) catch return;
}

fn freeConn(task: *coro.Task) void {
    const conn: *Conn = @fieldParentPtr("task", task);
    stats.open_connections -= 1;
    std.heap.c_allocator.destroy(conn);
}

fn startConn(loop: *coro.Loop, fd: i32) void {
    const on: u32 = 1;
    _ = linux.setsockopt(fd, linux.IPPROTO.TCP, linux.TCP.NODELAY, std.mem.asBytes(&on), @sizeOf(u32));
    const conn = std.heap.c_allocator.create(Conn) catch return closeRefused(fd);
    conn.* = .{ .task = .{ .loop = loop, .body = serve, .finish = freeConn }, .fd = fd };
    loop.spawn(&conn.task) catch {
        std.heap.c_allocator.destroy(conn);
        return closeRefused(fd);
    };
    stats.accepted_connections += 1;
    stats.open_connections += 1;
}

fn closeRefused(fd: i32) void {
    log("out of memory: a connection was refused", .{});
    _ = linux.close(fd);
}

/// A task that waits on one file descriptor: the listener or the signal fd.
const Watcher = struct {
    task: coro.Task,
    fd: i32,

    fn of(task: *coro.Task) *Watcher {
        return @fieldParentPtr("task", task);
    }

    fn close(task: *coro.Task) void {
        _ = linux.close(of(task).fd);
    }
};

fn acceptConnections(task: *coro.Task) void {
    const listener = Watcher.of(task);
    task.watch(listener.fd, linux.EPOLL.IN) catch return task.loop.stop();
    while (true) {
        // At the cap, the next connection waits in the listen backlog (the seed's back-pressure).
        while (options.max_conns != 0 and stats.open_connections >= options.max_conns) task.sleep(1) catch return;
        const rc = task.io(.{ .accept = .{ .fd = listener.fd, .flags = socketFlags() } }) catch return;
        switch (linux.errno(rc)) {
            .SUCCESS => startConn(task.loop, @intCast(rc)),
            .CONNABORTED => {},
            else => |errno| {
                // Out of descriptors or memory: the pending connections wait in the backlog.
                log("accept: {s}; retrying in 100 ms", .{@tagName(errno)});
                task.sleep(100) catch return;
            },
        }
    }
}

fn watchSignals(task: *coro.Task) void {
    const signals = Watcher.of(task);
    task.watch(signals.fd, linux.EPOLL.IN) catch return task.loop.stop();
    while (true) {
        var info: linux.signalfd_siginfo = undefined;
        const rc = linux.read(signals.fd, @ptrCast(&info), @sizeOf(linux.signalfd_siginfo));
        switch (linux.errno(rc)) {
            .SUCCESS => return task.loop.stop(),
            .AGAIN, .INTR => task.readable(signals.fd) catch return,
            else => return task.loop.stop(),
        }
    }
}

pub fn main(init: std.process.Init.Minimal) u8 {
    parseArgs(init.args) catch |err| {
        log("{s}\n{s}", .{ @errorName(err), usage });
        return 2;
    };
    raiseFileLimit();
    const signal_fd = blockSignals() catch |err| return fatal("signals", err);
    const listen_fd = listen() catch |err| return fatal("listen", err);
    var loop = coro.Loop.init(.{ .backend = options.io, .stack_bytes = options.stack_kb * 1024, .batch = options.batch, .queue = options.queue }) catch |err| switch (err) {
        error.IoUringUnavailable => {
            log("io_uring is unavailable: io_uring_setup was refused (kernel.io_uring_disabled, a seccomp policy, or a kernel without io_uring); use --io epoll", .{});
            return 1;
        },
        else => return fatal("event loop", err),
    };
    defer loop.deinit();
    if (options.preempt_ms > 0) preempt.start(options.preempt_ms) catch |err| return fatal("time slices", err);
    defer preempt.stop();
    var listener: Watcher = .{ .task = .{ .loop = &loop, .body = acceptConnections, .finish = Watcher.close }, .fd = listen_fd };
    var signals: Watcher = .{ .task = .{ .loop = &loop, .body = watchSignals, .finish = Watcher.close }, .fd = signal_fd };
    loop.spawn(&listener.task) catch |err| return fatal("spawn", err);
    loop.spawn(&signals.task) catch |err| return fatal("spawn", err);
    announce(listen_fd) catch |err| return fatal("announce", err);
    loop.run();
    log("{d} requests on {d} connections; {d} task switches, {d} preemptions (io {s}, {d} KB stacks, batch {d}, time slice {d} ms, {s} queue, at most {d} connections)", .{
        stats.requests,       stats.accepted_connections, loop.switches,   loop.preemptions,
        @tagName(options.io), options.stack_kb,           options.batch,   options.preempt_ms,
        @tagName(options.queue), options.max_conns,
    });
    return 0;
}

/// io_uring waits for a blocking socket itself; on a non-blocking one its operations would
/// fail with EAGAIN.
fn socketFlags() u32 {
    return linux.SOCK.CLOEXEC | if (options.io == .epoll) @as(u32, linux.SOCK.NONBLOCK) else 0;
}

const Flag = enum { @"--listen", @"--header-timeout-ms", @"--idle-timeout-ms", @"--io", @"--stack-kb", @"--preempt-ms", @"--batch", @"--queue", @"--max-conns" };

fn parseArgs(args: std.process.Args) !void {
    var it = args.iterate();
    _ = it.next();
    var seen: std.EnumSet(Flag) = .empty;
    while (it.next()) |name| {
        const flag = std.meta.stringToEnum(Flag, name) orelse return error.UnknownFlag;
        // A second value would silently override the first (two scenarios' flags merged).
        if (seen.contains(flag)) return error.FlagGivenTwice;
        seen.insert(flag);
        const value = it.next() orelse return error.MissingValue;
        switch (flag) {
            .@"--listen" => options.address = try parseAddress(value),
            .@"--header-timeout-ms" => options.header_timeout_ms = try positive(u64, value),
            .@"--idle-timeout-ms" => options.idle_timeout_ms = try positive(u64, value),
            .@"--io" => options.io = std.meta.stringToEnum(coro.Backend, value) orelse return error.IoIsEpollOrUring,
            .@"--stack-kb" => {
                options.stack_kb = try positive(usize, value);
                if (options.stack_kb < 8 or options.stack_kb > 8192) return error.StackKbOutOfRange;
            },
            .@"--preempt-ms" => {
                options.preempt_ms = try std.fmt.parseInt(u32, value, 10);
                if (options.preempt_ms > 60000) return error.PreemptMsOutOfRange;
            },
            .@"--batch" => options.batch = try std.fmt.parseInt(usize, value, 10),
            .@"--queue" => options.queue = std.meta.stringToEnum(coro.Queue, value) orelse return error.QueueIsFifoOrPriority,
            .@"--max-conns" => options.max_conns = try std.fmt.parseInt(usize, value, 10),
        }
    }
}

fn positive(comptime T: type, text: []const u8) !T {
    const value = try std.fmt.parseInt(T, text, 10);
    return if (value == 0) error.NotPositive else value;
}

fn parseAddress(text: []const u8) !linux.sockaddr.in {
    const colon = std.mem.lastIndexOfScalar(u8, text, ':') orelse return error.ListenNeedsIpv4Port;
    var octets: [4]u8 = undefined;
    var parts = std.mem.splitScalar(u8, text[0..colon], '.');
    for (&octets) |*octet| octet.* = try std.fmt.parseInt(u8, parts.next() orelse return error.BadIpv4, 10);
    if (parts.next() != null) return error.BadIpv4;
    const port = try std.fmt.parseInt(u16, text[colon + 1 ..], 10);
    return .{ .port = std.mem.nativeToBig(u16, port), .addr = @bitCast(octets) };
}

/// c=1000 needs more than the usual 1024 descriptors.
fn raiseFileLimit() void {
    var limit: linux.rlimit = undefined;
    if (linux.errno(linux.getrlimit(.NOFILE, &limit)) != .SUCCESS) return;
    limit.cur = limit.max;
    _ = linux.setrlimit(.NOFILE, &limit);
}

fn blockSignals() !i32 {
    var set = linux.sigemptyset();
    linux.sigaddset(&set, .TERM);
    linux.sigaddset(&set, .INT);
    if (linux.errno(linux.sigprocmask(linux.SIG.BLOCK, &set, null)) != .SUCCESS) return error.SigprocmaskFailed;
    const rc = linux.signalfd(-1, &set, linux.SFD.NONBLOCK | linux.SFD.CLOEXEC);
    if (linux.errno(rc) != .SUCCESS) return error.SignalfdFailed;
    return @intCast(rc);
}

fn listen() !i32 {
    const rc = linux.socket(linux.AF.INET, linux.SOCK.STREAM | socketFlags(), 0);
    if (linux.errno(rc) != .SUCCESS) return error.SocketFailed;
    const fd: i32 = @intCast(rc);
    const on: u32 = 1;
    _ = linux.setsockopt(fd, linux.SOL.SOCKET, linux.SO.REUSEADDR, std.mem.asBytes(&on), @sizeOf(u32));
    if (linux.errno(linux.bind(fd, @ptrCast(&options.address), @sizeOf(linux.sockaddr.in))) != .SUCCESS) return error.BindFailed;
    if (linux.errno(linux.listen(fd, 4096)) != .SUCCESS) return error.ListenFailed;
    return fd;
}

fn announce(fd: i32) !void {
    var bound: linux.sockaddr.in = undefined;
    var length: linux.socklen_t = @sizeOf(linux.sockaddr.in);
    if (linux.errno(linux.getsockname(fd, @ptrCast(&bound), &length)) != .SUCCESS) return error.GetsocknameFailed;
    const ip: [4]u8 = @bitCast(bound.addr);
    var line: [96]u8 = undefined;
    const text = try std.fmt.bufPrint(&line, "{{\"listening\": \"{d}.{d}.{d}.{d}:{d}\", \"server\": \"zig\"}}\n", .{ ip[0], ip[1], ip[2], ip[3], std.mem.bigToNative(u16, bound.port) });
    writeAll(1, text);
}

fn deadline(ms: u64) u64 {
    return coro.now() + ms * std.time.ns_per_ms;
}

fn fatal(what: []const u8, err: anyerror) u8 {
    log("{s}: {s}", .{ what, @errorName(err) });
    return 1;
}

fn log(comptime format: []const u8, args: anytype) void {
    var line: [512]u8 = undefined;
    const text = std.fmt.bufPrint(&line, "zig-server: " ++ format ++ "\n", args) catch return;
    writeAll(2, text);
}

fn writeAll(fd: i32, bytes: []const u8) void {
    var done: usize = 0;
    while (done < bytes.len) {
        const rc = linux.write(fd, bytes[done..].ptr, bytes.len - done);
        if (linux.errno(rc) != .SUCCESS) return;
        done += rc;
    }
}

test {
    _ = http;
}
