module latlab/zig-http/server-go

go 1.19
