// Command hdr-load is the zig-http suite's own HTTP load generator: C keep-alive connections
// send GET requests, closed loop (each connection sends when its answer arrived) or open loop
// at a constant rate, wrk2-style, latency then counted from each request's intended send time
// (coordinated omission corrected). The connections are driven by epoll event loops: one by
// default, as ab; --threads N for more, as wrk -t. Every answered request is recorded in an
// HdrHistogram; warm-up is excluded. It prints one JSON document (latlab-json, README.md).
package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"time"
)

type config struct {
	host        string // host:port
	path        string
	connections int
	duration    time.Duration
	warmup      time.Duration
	rate        float64 // requests/s in total; 0: closed loop
	timeout     time.Duration
	keepAlive   bool
	requests    int64 // closed loop: stop after this many measured requests; 0: no bound
	threads     int   // event loops, each on its own thread
}

func main() {
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}

// cli returns the exit status: 0 when a measured request succeeded, 1 when none did (the
// report is printed either way), 2 for bad arguments.
func cli(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if status, stop := usageStatus("hdr-load", err, stderr); stop {
		return status
	}
	res, err := run(&cfg)
	if err != nil {
		fmt.Fprintf(stderr, "hdr-load: %v\n", err)
		return 1
	}
	rep, err := newReport(cfg, res)
	if err != nil {
		fmt.Fprintf(stderr, "hdr-load: %v\n", err)
		return 1
	}
	if err := rep.write(stdout); err != nil {
		fmt.Fprintf(stderr, "hdr-load: %v\n", err)
		return 1
	}
	if res.ok == 0 {
		fmt.Fprintf(stderr, "hdr-load: no request succeeded (%d errors, %d timeouts)\n", res.errors, res.timeouts)
		return 1
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("hdr-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rawURL := fs.String("url", "", "http://HOST:PORT/PATH")
	connections := fs.Int("connections", 10, "concurrent connections")
	duration := fs.Float64("duration", 5, "seconds to measure")
	warmup := fs.Float64("warmup", 1, "seconds of load before measuring (excluded)")
	rate := fs.Float64("rate", 0, "open loop: requests per second in total; 0: closed loop")
	timeout := fs.Float64("timeout", 5, "seconds one request may take")
	keepAlive := fs.String("keepalive", "true", "true: reuse connections; false: one connection per request")
	threads := fs.Int("threads", 1, "event loops (threads) sharing the connections (at most one per connection)")
	requests := fs.Int64("requests", 0, "closed loop: measured requests in total, --duration bounding them; 0: for --duration")
	if err := parseFlags(fs, args); err != nil {
		return config{}, err
	}
	u, err := url.Parse(*rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return config{}, fmt.Errorf("--url must be http://HOST:PORT/PATH, got %q", *rawURL)
	}
	if u.Port() == "" {
		u.Host += ":80"
	}
	path := u.RequestURI()
	switch {
	case *connections < 1 || *connections > 100000:
		return config{}, fmt.Errorf("--connections must be 1..100000")
	case !(*duration > 0 && *duration <= 3600):
		return config{}, fmt.Errorf("--duration must be in (0, 3600] seconds")
	case !(*warmup >= 0 && *warmup <= 3600):
		return config{}, fmt.Errorf("--warmup must be in [0, 3600] seconds")
	case !(*rate >= 0 && *rate <= 10_000_000):
		return config{}, fmt.Errorf("--rate must be in [0, 10000000]")
	case !(*timeout > 0 && *timeout <= 600):
		return config{}, fmt.Errorf("--timeout must be in (0, 600] seconds")
	case *threads < 1 || *threads > 256:
		return config{}, fmt.Errorf("--threads must be 1..256")
	case *requests < 0 || (*requests > 0 && *rate > 0):
		return config{}, fmt.Errorf("--requests must be >= 0, and only in closed loop")
	}
	keep, err := strconv.ParseBool(*keepAlive)
	if err != nil {
		return config{}, fmt.Errorf("--keepalive must be true or false")
	}
	return config{
		host: u.Host, path: path, connections: *connections,
		duration: seconds(*duration), warmup: seconds(*warmup), rate: *rate,
		timeout: seconds(*timeout), keepAlive: keep, requests: *requests,
		threads: *threads,
	}, nil
}
