//! `zig build -Doptimize=ReleaseSafe [-Duninit-request=true] --prefix DIR` installs
//! DIR/bin/zig-server; `zig build test` runs the HTTP parser's tests.
const std = @import("std");

pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{});
    const optimize = b.standardOptimizeOption(.{});
    const uninit_request = b.option(bool, "uninit-request",
        "Leave each request uninitialised (the seed's memcheck finding, for the memcheck test)") orelse false;
    const options = b.addOptions();
    options.addOption(bool, "uninit_request", uninit_request);

    const module = b.createModule(.{
        .root_source_file = b.path("src/main.zig"),
        .target = target,
        .optimize = optimize,
        // malloc, so valgrind's memcheck and massif see the heap.
        .link_libc = true,
        // Client requests: coroutine stacks registered as stacks, `undefined` marked undefined.
        .valgrind = true,
    });
    module.addOptions("build_options", options);
    b.installArtifact(b.addExecutable(.{ .name = "zig-server", .root_module = module }));

    const tests = b.addTest(.{ .root_module = module });
    b.step("test", "Run the parser's tests").dependOn(&b.addRunArtifact(tests).step);
}
