//! zig-server: the zig-http suite's Zig HTTP/1.1 server. One thread runs one epoll event loop;
//! every connection is a stackful coroutine (coro.zig). Routes and response bytes are the Go
//! baseline's (http.zig). The first stdout line is {"listening": "HOST:PORT", "server": "zig"};
//! SIGTERM or SIGINT stops it, closing every connection and freeing all it allocated.
const std = @import("std");
const linux = std.os.linux;
const build_options = @import("build_options");
const coro = @import("coro.zig");
const http = @import("http.zig");

const usage =
    \\usage: zig-server [--listen IPV4:PORT] [--header-timeout-ms N] [--idle-timeout-ms N]
    \\                  [--stack-kb N]
    \\
;

const Options = struct {
    address: linux.sockaddr.in = .{ .port = 0, .addr = @bitCast([4]u8{ 127, 0, 0, 1 }) },
    /// A request's head and body must arrive, and an answer be taken, within this.
    header_timeout_ms: u64 = 5000,
    /// A kept-alive connection may wait this long for its next request.
    idle_timeout_ms: u64 = 60000,
    stack_kb: usize = 64,
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
    while (true) {
        const rc = linux.recvfrom(conn.fd, into.ptr, into.len, 0, null, null);
        switch (linux.errno(rc)) {
            .SUCCESS => return if (rc == 0) error.Closed else rc,
            .AGAIN => try conn.task.wait(),
            .INTR => {},
            else => return error.Failed,
        }
    }
}

fn sendAll(conn: *Conn, bytes: []const u8) Failure!void {
    conn.task.deadline_ns = deadline(options.header_timeout_ms);
    var sent: usize = 0;
    while (sent < bytes.len) {
        const rc = linux.sendto(conn.fd, bytes[sent..].ptr, bytes.len - sent, linux.MSG.NOSIGNAL, null, 0);
        switch (linux.errno(rc)) {
            .SUCCESS => sent += rc,
            .AGAIN => try conn.task.wait(),
            .INTR => {},
            else => return error.Failed,
        }
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
        const rc = linux.accept4(listener.fd, null, null, linux.SOCK.NONBLOCK | linux.SOCK.CLOEXEC);
        switch (linux.errno(rc)) {
            .SUCCESS => startConn(task.loop, @intCast(rc)),
            .AGAIN => task.wait() catch return,
            .INTR, .CONNABORTED => {},
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
            .AGAIN, .INTR => task.wait() catch return,
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
    var loop = coro.Loop.init(options.stack_kb * 1024) catch |err| return fatal("epoll", err);
    defer loop.deinit();
    var listener: Watcher = .{ .task = .{ .loop = &loop, .body = acceptConnections, .finish = Watcher.close }, .fd = listen_fd };
    var signals: Watcher = .{ .task = .{ .loop = &loop, .body = watchSignals, .finish = Watcher.close }, .fd = signal_fd };
    loop.spawn(&listener.task) catch |err| return fatal("spawn", err);
    loop.spawn(&signals.task) catch |err| return fatal("spawn", err);
    announce(listen_fd) catch |err| return fatal("announce", err);
    loop.run();
    return 0;
}

fn parseArgs(args: std.process.Args) !void {
    var it = args.iterate();
    _ = it.next();
    while (it.next()) |flag| {
        const value = it.next() orelse return error.MissingValue;
        if (std.mem.eql(u8, flag, "--listen")) {
            options.address = try parseAddress(value);
        } else if (std.mem.eql(u8, flag, "--header-timeout-ms")) {
            options.header_timeout_ms = try positive(u64, value);
        } else if (std.mem.eql(u8, flag, "--idle-timeout-ms")) {
            options.idle_timeout_ms = try positive(u64, value);
        } else if (std.mem.eql(u8, flag, "--stack-kb")) {
            options.stack_kb = try positive(usize, value);
            if (options.stack_kb < 16 or options.stack_kb > 8192) return error.StackKbOutOfRange;
        } else {
            return error.UnknownFlag;
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
    const rc = linux.socket(linux.AF.INET, linux.SOCK.STREAM | linux.SOCK.NONBLOCK | linux.SOCK.CLOEXEC, 0);
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
