// Command go_client is the http-order suite's Go load client (net/http): it sends orders to
// the order server in a closed or an open loop and prints one JSON document on stdout, as the
// suite's README.md specifies for every client. --library picks how the orders go out: on a
// keep-alive connection per worker with net/http's codec ("tuned", the default), or through
// one shared http.Client ("usual").
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"strings"
	"time"
)

// config is the command line, checked.
type config struct {
	url         string // the order endpoint: --url + "/order"
	orders      int64
	connections int
	warmup      int64
	rate        float64 // 0: closed loop
	duration    time.Duration
	timeout     time.Duration
	pinCPUs     []int // empty: no pinning
	mlock       bool
	settle      time.Duration // closed loop: the most the settled warm-up may take; 0: off
	settleS     float64       // --settle as given, for the report
	library     string        // libraryTuned or libraryUsual: how the orders go out
}

// --library: how a worker's orders go out (the loads, the measuring and the report are the
// same code either way).
const (
	libraryTuned = "tuned" // a keep-alive connection per worker, net/http's codec (tuned.go)
	libraryUsual = "usual" // one shared http.Client, client.Do (usual.go)
)

// report is the JSON document on stdout.
type report struct {
	Client                string     `json:"client"`
	Mode                  string     `json:"mode"`
	LatencyHdr            string     `json:"latency_hdr"`
	LatencyUncorrectedHdr string     `json:"latency_uncorrected_hdr,omitempty"`
	Orders                int64      `json:"orders"`
	OK                    int64      `json:"ok"`
	Errors                int64      `json:"errors"`
	Timeouts              int64      `json:"timeouts"`
	SuccessRate           float64    `json:"success_rate"`
	DurationS             float64    `json:"duration_s"`
	Throughput            float64    `json:"throughput"`
	TargetRate            float64    `json:"target_rate"`
	AchievedRate          float64    `json:"achieved_rate"`
	WarmupOrders          int64      `json:"warmup_orders"` // warm-up orders sent
	WarmupS               float64    `json:"warmup_s"`      // first warm-up order -> measuring
	Tuning                tuning     `json:"tuning"`
	Intervals             []interval `json:"intervals"` // never nil: [] when nothing succeeded
}

type tuning struct {
	PinCPUs string `json:"pin_cpus"`
	Mlock   string `json:"mlock"`
	Settle  string `json:"settle"`
	Library string `json:"library"` // --library: "tuned" or "usual"
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status: 0 when a measured order succeeded,
// 1 when none did, 2 for bad arguments.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if status, stop := usageStatus("go_client", err, stderr); stop {
		return status
	}

	tune := tuning{PinCPUs: "off", Mlock: "off", Library: cfg.library}
	if cfg.mlock {
		tune.Mlock = lockMemory()
	}
	res := newLoad(cfg).run()
	if len(cfg.pinCPUs) > 0 {
		tune.PinCPUs = pinReport(cfg.pinCPUs, res.pinErr)
	}
	tune.Settle = settleReport(cfg, res.settled)

	out, err := buildReport(cfg, res, tune)
	if err != nil {
		fmt.Fprintf(stderr, "go_client: %v\n", err)
		return 1
	}
	logSummary(stderr, out, res)
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		fmt.Fprintf(stderr, "go_client: writing the report: %v\n", err)
		return 1
	}
	if out.OK == 0 {
		return 1
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("go_client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("url", "", "server base URL, e.g. http://127.0.0.1:8080")
	orders := fs.Int64("orders", 1000, "closed loop: measured orders, in total; 0 = as many as --duration takes")
	connections := fs.Int("connections", 50, "concurrent keep-alive connections (workers)")
	warmup := fs.Int64("warmup", 100, "orders sent before measuring (excluded)")
	rate := fs.Float64("rate", 0, "open loop: orders per second; 0 = closed loop")
	duration := fs.Float64("duration", 60, "open loop: seconds to measure; closed loop: the most it may take (--orders 0: how long it takes orders)")
	timeout := fs.Float64("timeout", 5, "seconds one order may take")
	pinCPUs := fs.String("pin-cpus", "", `CPUs to pin the workers to, e.g. "2-3" or "0,2" ("" = off)`)
	mlock := fs.String("mlock", "false", "true: mlockall(MCL_CURRENT | MCL_FUTURE)")
	settle := fs.Float64("settle", 0, "closed loop: seconds the warm-up may go on until latency settles; 0 = off")
	library := fs.String("library", libraryTuned, "tuned: a keep-alive connection per worker with net/http's codec; usual: one shared http.Client (client.Do)")
	if err := parseFlags(fs, args); err != nil {
		return config{}, err
	}

	u, err := url.Parse(*base)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" || u.Port() == "" {
		return config{}, fmt.Errorf("--url must be http://HOST:PORT, got %q", *base)
	}
	switch {
	case *orders < 0:
		return config{}, errors.New("--orders must not be negative")
	case *connections < 1:
		return config{}, errors.New("--connections must be at least 1")
	case *warmup < 0:
		return config{}, errors.New("--warmup must not be negative")
	case !(*rate >= 0) || math.IsInf(*rate, 0):
		return config{}, errors.New("--rate must be a number >= 0")
	case !(*duration > 0) || math.IsInf(*duration, 0):
		return config{}, errors.New("--duration must be a number > 0")
	case !(*timeout > 0) || math.IsInf(*timeout, 0):
		return config{}, errors.New("--timeout must be a number > 0")
	case !(*settle >= 0) || math.IsInf(*settle, 0):
		return config{}, errors.New("--settle must be a number >= 0")
	}
	if *rate > 0 && math.Floor(*rate**duration) < 1 {
		return config{}, errors.New("--rate × --duration must come to at least one order")
	}
	cpus, err := parseCPUList(*pinCPUs)
	if err != nil {
		return config{}, fmt.Errorf("--pin-cpus: %v", err)
	}
	var lock bool
	switch *mlock {
	case "true":
		lock = true
	case "false":
	default:
		return config{}, fmt.Errorf("--mlock must be true or false, got %q", *mlock)
	}
	if *library != libraryTuned && *library != libraryUsual {
		return config{}, fmt.Errorf("--library must be %s or %s, got %q", libraryTuned, libraryUsual, *library)
	}

	return config{
		url:         strings.TrimRight(*base, "/") + "/order",
		orders:      *orders,
		connections: *connections,
		warmup:      *warmup,
		rate:        *rate,
		duration:    seconds(*duration),
		timeout:     seconds(*timeout),
		pinCPUs:     cpus,
		mlock:       lock,
		settle:      seconds(*settle),
		settleS:     *settle,
		library:     *library,
	}, nil
}

func buildReport(cfg config, res result, tune tuning) (report, error) {
	out := report{
		Client:       "go",
		Mode:         "closed",
		Orders:       res.ok + res.errors + res.timeouts,
		OK:           res.ok,
		Errors:       res.errors,
		Timeouts:     res.timeouts,
		DurationS:    res.elapsed.Seconds(),
		TargetRate:   cfg.rate,
		WarmupOrders: res.warmupOrders,
		WarmupS:      res.warmupElapsed.Seconds(),
		Tuning:       tune,
		Intervals:    res.intervals,
	}
	if cfg.rate > 0 {
		out.Mode = "open"
	}
	if out.Orders > 0 {
		out.SuccessRate = float64(out.OK) / float64(out.Orders)
	}
	if out.DurationS > 0 {
		out.Throughput = float64(out.OK) / out.DurationS
		out.AchievedRate = float64(out.Orders-res.unsent) / out.DurationS // the orders sent
	}

	encoded, err := encodeHistogram(res.latency)
	if err != nil {
		return report{}, err
	}
	out.LatencyHdr = encoded
	if cfg.rate > 0 {
		if out.LatencyUncorrectedHdr, err = encodeHistogram(res.uncorrected); err != nil {
			return report{}, err
		}
	}
	return out, nil
}

func logSummary(w io.Writer, out report, res result) {
	fmt.Fprintf(w, "go_client: %s loop (%s), %d orders (%d ok, %d errors, %d timeouts) in %.3f s, %.1f ok/s; p50 %v p99 %v\n",
		out.Mode, out.Tuning.Library, out.Orders, out.OK, out.Errors, out.Timeouts, out.DurationS, out.Throughput,
		time.Duration(res.latency.ValueAtQuantile(50)), time.Duration(res.latency.ValueAtQuantile(99)))
	if out.Orders < res.scheduled {
		fmt.Fprintf(w, "go_client: %d of %d orders were not sent within --duration\n", res.scheduled-out.Orders, res.scheduled)
	}
	if res.unsent > 0 {
		fmt.Fprintf(w, "go_client: %d orders were never sent: every worker was busy until --duration + --timeout\n", res.unsent)
	}
	if res.warmupCut {
		fmt.Fprintf(w, "go_client: the warm-up was cut short after --duration\n")
	}
	fmt.Fprintf(w, "go_client: warm-up: %d orders in %.3f s, settle %s\n",
		out.WarmupOrders, out.WarmupS, out.Tuning.Settle)
}
