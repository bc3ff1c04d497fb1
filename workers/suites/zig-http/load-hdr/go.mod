module latlab/zig-http/load-hdr

go 1.22

require github.com/HdrHistogram/hdrhistogram-go v1.1.2
