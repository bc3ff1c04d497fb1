//! HTTP/1.1 request heads (RFC 9112, strictly: CRLF line ends, no obs-fold) and the suite's
//! responses, byte for byte what the Go baseline's net/http writes for them.
const std = @import("std");

/// The request head buffer; a longer head is answered with 431.
pub const max_head_bytes = 8192;
/// Request bodies are read and discarded; a longer one is answered with 413.
pub const max_body_bytes = 1 << 20;

pub const Version = enum { http10, http11 };

/// What a request head says. `parseHead` sets the request line's fields and only the header
/// fields it finds: the others keep their defaults.
pub const Request = struct {
    method: []const u8 = "",
    target: []const u8 = "",
    version: Version = .http11,
    host: bool = false,
    content_length: ?u64 = null,
    transfer_encoding: bool = false,
    /// `Connection: close` was given.
    close: bool = false,
    /// `Connection: keep-alive` was given.
    keep_alive: bool = false,

    /// Whether the connection stays open after the answer: HTTP/1.1 unless the client asked to
    /// close; HTTP/1.0 only when it asked to keep it (ab -k).
    pub fn keepAlive(req: *const Request) bool {
        if (req.close) return false;
        return switch (req.version) {
            .http11 => true,
            .http10 => req.keep_alive,
        };
    }
};

pub const Status = enum(u16) {
    ok = 200,
    bad_request = 400,
    not_found = 404,
    method_not_allowed = 405,
    request_timeout = 408,
    content_too_large = 413,
    header_fields_too_large = 431,
    not_implemented = 501,
    version_not_supported = 505,

    pub fn reason(status: Status) []const u8 {
        return switch (status) {
            .ok => "OK",
            .bad_request => "Bad Request",
            .not_found => "Not Found",
            .method_not_allowed => "Method Not Allowed",
            .request_timeout => "Request Timeout",
            .content_too_large => "Request Entity Too Large",
            .header_fields_too_large => "Request Header Fields Too Large",
            .not_implemented => "Not Implemented",
            .version_not_supported => "HTTP Version Not Supported",
        };
    }
};

pub const Head = union(enum) {
    /// No complete head yet: read more.
    incomplete,
    /// The head's length in bytes, through its empty line.
    complete: usize,
    /// Answer with this status and close.
    bad: Status,
};

/// Parses the head at the start of `bytes` into `req`.
pub fn parseHead(bytes: []const u8, req: *Request) Head {
    var pos: usize = 0;
    var request_line = true;
    while (true) {
        const lf = std.mem.indexOfScalarPos(u8, bytes, pos, '\n') orelse
            return if (bytes.len >= max_head_bytes) .{ .bad = .header_fields_too_large } else .incomplete;
        if (lf == pos or bytes[lf - 1] != '\r') return .{ .bad = .bad_request }; // a bare LF
        const line = bytes[pos .. lf - 1];
        pos = lf + 1;
        if (request_line) {
            // RFC 9112 2.2: empty lines before the request line are ignored.
            if (line.len == 0) continue;
            if (parseRequestLine(line, req)) |status| return .{ .bad = status };
            request_line = false;
        } else if (line.len == 0) {
            if (req.version == .http11 and !req.host) return .{ .bad = .bad_request };
            if (req.transfer_encoding) {
                return .{ .bad = if (req.content_length != null) .bad_request else .not_implemented };
            }
            if (req.content_length) |length| {
                if (length > max_body_bytes) return .{ .bad = .content_too_large };
            }
            return .{ .complete = pos };
        } else if (parseField(line, req)) |status| {
            return .{ .bad = status };
        }
    }
}

fn parseRequestLine(line: []const u8, req: *Request) ?Status {
    const method_end = std.mem.indexOfScalar(u8, line, ' ') orelse return .bad_request;
    const target_end = std.mem.indexOfScalarPos(u8, line, method_end + 1, ' ') orelse return .bad_request;
    const method = line[0..method_end];
    const target = line[method_end + 1 .. target_end];
    const version = line[target_end + 1 ..];
    if (method.len == 0 or !allToken(method)) return .bad_request;
    if (target.len == 0 or target[0] != '/') return .bad_request;
    for (target) |c| if (c <= ' ' or c == 0x7f) return .bad_request;
    if (std.mem.eql(u8, version, "HTTP/1.1")) {
        req.version = .http11;
    } else if (std.mem.eql(u8, version, "HTTP/1.0")) {
        req.version = .http10;
    } else if (version.len == 8 and std.mem.startsWith(u8, version, "HTTP/") and
        std.ascii.isDigit(version[5]) and version[6] == '.' and std.ascii.isDigit(version[7]))
    {
        return .version_not_supported;
    } else {
        return .bad_request;
    }
    req.method = method;
    req.target = target;
    return null;
}

fn parseField(line: []const u8, req: *Request) ?Status {
    const colon = std.mem.indexOfScalar(u8, line, ':') orelse return .bad_request;
    const name = line[0..colon];
    // No whitespace before the colon, no obs-fold (a line starting with whitespace).
    if (name.len == 0 or !allToken(name)) return .bad_request;
    const value = std.mem.trim(u8, line[colon + 1 ..], " \t");
    for (value) |c| if ((c < ' ' and c != '\t') or c == 0x7f) return .bad_request;
    if (std.ascii.eqlIgnoreCase(name, "host")) {
        if (req.host) return .bad_request; // RFC 9112 3.2: exactly one Host
        req.host = true;
    } else if (std.ascii.eqlIgnoreCase(name, "content-length")) {
        if (value.len == 0 or value.len > 19) return .bad_request;
        for (value) |c| if (!std.ascii.isDigit(c)) return .bad_request;
        const length = std.fmt.parseInt(u64, value, 10) catch return .bad_request;
        if (req.content_length) |seen| if (seen != length) return .bad_request;
        req.content_length = length;
    } else if (std.ascii.eqlIgnoreCase(name, "transfer-encoding")) {
        req.transfer_encoding = true;
    } else if (std.ascii.eqlIgnoreCase(name, "connection")) {
        var options = std.mem.splitScalar(u8, value, ',');
        while (options.next()) |raw| {
            const option = std.mem.trim(u8, raw, " \t");
            if (std.ascii.eqlIgnoreCase(option, "close")) req.close = true;
            if (std.ascii.eqlIgnoreCase(option, "keep-alive")) req.keep_alive = true;
        }
    }
    return null;
}

fn allToken(bytes: []const u8) bool {
    for (bytes) |c| switch (c) {
        'a'...'z', 'A'...'Z', '0'...'9', '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~' => {},
        else => return false,
    };
    return true;
}

pub const hello_body = "Hello, World!\n";

/// The server's counters, shown by GET /stats.
pub const Stats = struct {
    requests: u64 = 0,
    open_connections: u64 = 0,
    accepted_connections: u64 = 0,
};

/// The answer to a complete, well-formed request, written into `out` (at least 512 bytes).
pub fn answer(out: []u8, req: *const Request, stats: *const Stats) []const u8 {
    const path = if (std.mem.indexOfScalar(u8, req.target, '?')) |q| req.target[0..q] else req.target;
    const text = "text/plain; charset=utf-8";
    if (!std.mem.eql(u8, path, "/") and !std.mem.eql(u8, path, "/stats")) {
        return write(out, req.version, req.keepAlive(), .not_found, text, "not found\n", false);
    }
    if (!std.mem.eql(u8, req.method, "GET")) {
        return write(out, req.version, req.keepAlive(), .method_not_allowed, text, "method not allowed\n", true);
    }
    if (std.mem.eql(u8, path, "/")) {
        return write(out, req.version, req.keepAlive(), .ok, text, hello_body, false);
    }
    var body_buffer: [160]u8 = undefined;
    const body = std.fmt.bufPrint(&body_buffer, "{{\"requests\":{d},\"open_connections\":{d},\"accepted_connections\":{d}}}\n", .{ stats.requests, stats.open_connections, stats.accepted_connections }) catch unreachable;
    return write(out, req.version, req.keepAlive(), .ok, "application/json", body, false);
}

/// The answer to a request that cannot be served; the connection closes after it.
pub fn failure(out: []u8, status: Status) []const u8 {
    var body_buffer: [64]u8 = undefined;
    const body = std.fmt.bufPrint(&body_buffer, "{s}\n", .{status.reason()}) catch unreachable;
    return write(out, .http11, false, status, "text/plain; charset=utf-8", body, false);
}

/// net/http's layout: status line, the handler's headers sorted (Allow, Content-Length,
/// Content-Type), then Connection when it differs from the version's default.
fn write(out: []u8, version: Version, keep_alive: bool, status: Status, content_type: []const u8, body: []const u8, allow: bool) []const u8 {
    const connection = switch (version) {
        .http10 => if (keep_alive) "Connection: keep-alive\r\n" else "",
        .http11 => if (keep_alive) "" else "Connection: close\r\n",
    };
    return std.fmt.bufPrint(out, "{s} {d} {s}\r\n{s}Content-Length: {d}\r\nContent-Type: {s}\r\n{s}\r\n{s}", .{
        if (version == .http10) "HTTP/1.0" else "HTTP/1.1",
        @intFromEnum(status),
        status.reason(),
        if (allow) "Allow: GET\r\n" else "",
        body.len,
        content_type,
        connection,
        body,
    }) catch unreachable;
}

test "a request head is parsed, and a partial one asks for more" {
    var req: Request = .{};
    const head = "GET /stats?x=1 HTTP/1.0\r\nHost: a\r\nConnection: Keep-Alive\r\n\r\nGET";
    try std.testing.expectEqual(Head{ .complete = head.len - 3 }, parseHead(head, &req));
    try std.testing.expectEqualStrings("/stats?x=1", req.target);
    try std.testing.expect(req.keepAlive());
    req = .{};
    try std.testing.expectEqual(Head.incomplete, parseHead(head[0..20], &req));
}

test "malformed heads are refused with their status" {
    const cases = [_]struct { []const u8, Status }{
        .{ "GET / HTTP/1.1\nHost: a\n\n", .bad_request },
        .{ "GET / HTTP/1.1\r\n\r\n", .bad_request },
        .{ "GET / HTTP/2.0\r\nHost: a\r\n\r\n", .version_not_supported },
        .{ "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", .bad_request },
        .{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n", .bad_request },
        .{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", .not_implemented },
        .{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", .content_too_large },
    };
    for (cases) |case| {
        var req: Request = .{};
        try std.testing.expectEqual(Head{ .bad = case[1] }, parseHead(case[0], &req));
    }
    var req: Request = .{};
    const long = "GET / HTTP/1.1\r\nX: " ++ @as([max_head_bytes]u8, @splat('a'));
    try std.testing.expectEqual(Head{ .bad = .header_fields_too_large }, parseHead(long, &req));
}
