module latlab/zig-http/load-hdr

go 1.19

require (
	github.com/HdrHistogram/hdrhistogram-go v1.1.2
	golang.org/x/sys v0.30.0
)
