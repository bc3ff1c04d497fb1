package main

import (
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// maxSamples bounds the samples kept for the per-second intervals (16 B each); past it the
// report has no intervals, the histograms are still whole.
const maxSamples = 1 << 23

// plan is what every loop shares, read-only but for `taken`: the target, the request, the
// windows and the open loop's schedule, in ns of CLOCK_MONOTONIC (which the loops' timers use).
type plan struct {
	cfg          *config
	address      unix.Sockaddr
	request      []byte
	loops        int64
	origin       time.Time // now() = monoOrigin + time since origin
	monoOrigin   int64
	start        int64
	measureStart int64
	measureEnd   int64
	warmupCount  int64 // open loop: requests due before the window (sent, not counted)
	total        int64 // open loop: requests scheduled, warm-up included
	sampleCap    int   // samples each loop keeps for the intervals
	taken        atomic.Int64
}

func (p *plan) now() int64 {
	return p.monoOrigin + int64(time.Since(p.origin))
}

// due is when request j of the open loop's schedule is to be sent: start + j/rate.
func (p *plan) due(j int64) int64 {
	return p.start + int64(float64(j)*float64(time.Second)/p.cfg.rate)
}

func newPlan(cfg *config) (*plan, error) {
	resolved, err := net.ResolveTCPAddr("tcp4", cfg.host)
	if err != nil {
		return nil, err
	}
	address := &unix.SockaddrInet4{Port: resolved.Port}
	copy(address.Addr[:], resolved.IP.To4())
	connection := ""
	if !cfg.keepAlive {
		connection = "Connection: close\r\n"
	}
	p := &plan{
		cfg: cfg, address: address,
		request: []byte("GET " + cfg.path + " HTTP/1.1\r\nHost: " + cfg.host +
			"\r\nUser-Agent: latlab-hdr-load\r\n" + connection + "\r\n"),
		loops: int64(cfg.threads),
	}
	if p.loops > int64(cfg.connections) {
		p.loops = int64(cfg.connections)
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return nil, err
	}
	p.origin, p.monoOrigin = time.Now(), ts.Nano()
	p.start = p.now()
	if cfg.rate > 0 {
		p.warmupCount = int64(cfg.warmup.Seconds() * cfg.rate)
		p.total = p.warmupCount + int64(cfg.duration.Seconds()*cfg.rate)
		p.measureStart = p.due(p.warmupCount)
	} else {
		p.measureStart = p.start + int64(cfg.warmup)
	}
	p.measureEnd = p.measureStart + int64(cfg.duration)
	p.sampleCap = maxSamples / int(p.loops)
	return p, nil
}

// result is what the loops measured, merged.
type result struct {
	tally
	elapsed   time.Duration
	intervals []interval // nil when the samples were cut
}

// run starts the loops (each on its own OS thread, owning every loops-th connection) and
// merges what they measured.
func run(cfg *config) (result, error) {
	p, err := newPlan(cfg)
	if err != nil {
		return result{}, err
	}
	loops := make([]*loop, p.loops)
	for i := range loops {
		if loops[i], err = newLoop(p); err != nil {
			return result{}, err
		}
	}
	var done sync.WaitGroup
	for i, l := range loops {
		count := cfg.connections / len(loops)
		if i < cfg.connections%len(loops) {
			count++
		}
		done.Add(1)
		go func(l *loop, count int, index int64) {
			defer done.Done()
			runtime.LockOSThread()
			l.run(count, index)
		}(l, count, int64(i))
	}
	done.Wait()
	res := result{tally: newTally(), elapsed: time.Duration(p.now() - p.measureStart)}
	var samples []sample
	cut := false
	for _, l := range loops {
		res.merge(&l.tally)
		samples = append(samples, l.tally.samples...)
		cut = cut || l.tally.samplesCut
	}
	if !cut {
		res.intervals = buildIntervals(samples)
	}
	return res, nil
}

// outcome is what became of one request.
type outcome int

const (
	succeeded outcome = iota // a 2xx answer, read whole
	non2xx                   // an answer with another status
	failed                   // a connection or protocol error
	timedOut                 // no whole answer within --timeout
)

// tally is one loop's count of measured requests, and the latency of the ok ones.
type tally struct {
	ok, non2xx, errors, timeouts int64
	sent                         int64 // open loop: measured requests sent
	latency, uncorrected         *hdrhistogram.Histogram
	samples                      []sample
	samplesCut                   bool
}

func newTally() tally {
	return tally{latency: newHistogram(), uncorrected: newHistogram()}
}

func (t *tally) count(out outcome) {
	switch out {
	case succeeded:
		t.ok++
	case non2xx:
		t.non2xx++
	case timedOut:
		t.timeouts++
	default:
		t.errors++
	}
}

// record counts an answered request; an ok one is recorded with its latencies (corrected:
// from its start, the due time in open loop; uncorrected: from its send) and kept as a
// sample for the intervals, `at` ns into the window.
func (t *tally) record(out outcome, corrected, uncorrected, at int64, sampleCap int) {
	t.count(out)
	if out != succeeded {
		return
	}
	ns := recordNs(t.latency, corrected)
	recordNs(t.uncorrected, uncorrected)
	if t.samplesCut {
		return
	}
	if len(t.samples) >= sampleCap {
		t.samplesCut, t.samples = true, nil
		return
	}
	t.samples = append(t.samples, sample{at: time.Duration(at), latency: ns})
}

func (t *tally) merge(other *tally) {
	t.ok += other.ok
	t.non2xx += other.non2xx
	t.errors += other.errors
	t.timeouts += other.timeouts
	t.sent += other.sent
	t.latency.Merge(other.latency)
	t.uncorrected.Merge(other.uncorrected)
}
