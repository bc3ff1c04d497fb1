package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 ns .. 60 s, 3 significant digits.
const (
	histLowest  = 1
	histHighest = 60 * int64(time.Second)
	histDigits  = 3
)

// maxSamples bounds the samples kept for the per-second intervals (16 B each); past it the
// report has no intervals, the histograms are still whole.
const maxSamples = 1 << 23

type load struct {
	cfg     config
	workers []*worker
}

type worker struct {
	client                       *client
	ok, non2xx, errors, timeouts int64
	latency, uncorrected         *hdrhistogram.Histogram
	samples                      []sample
	samplesCut                   bool
}

// result is what the workers measured, merged.
type result struct {
	ok, non2xx, errors, timeouts int64
	sent                         int64 // open loop: measured requests sent
	elapsed                      time.Duration
	latency, uncorrected         *hdrhistogram.Histogram
	intervals                    []interval // nil when the samples were cut
}

func newLoad(cfg config) *load {
	l := &load{cfg: cfg}
	for i := 0; i < cfg.connections; i++ {
		l.workers = append(l.workers, &worker{
			client:      newClient(&l.cfg),
			latency:     hdrhistogram.New(histLowest, histHighest, histDigits),
			uncorrected: hdrhistogram.New(histLowest, histHighest, histDigits),
		})
	}
	return l
}

func (l *load) run() result {
	var res result
	if l.cfg.rate > 0 {
		res = l.runOpen()
	} else {
		res = l.runClosed()
	}
	res.latency = hdrhistogram.New(histLowest, histHighest, histDigits)
	res.uncorrected = hdrhistogram.New(histLowest, histHighest, histDigits)
	var samples []sample
	cut := false
	for _, w := range l.workers {
		w.client.close()
		res.ok += w.ok
		res.non2xx += w.non2xx
		res.errors += w.errors
		res.timeouts += w.timeouts
		res.latency.Merge(w.latency)
		res.uncorrected.Merge(w.uncorrected)
		samples = append(samples, w.samples...)
		cut = cut || w.samplesCut
	}
	if !cut {
		res.intervals = buildIntervals(samples)
	}
	return res
}

// runClosed: every connection sends its next request as soon as the previous one is
// answered; requests sent during the warm-up are not counted, nor any sent after the window.
func (l *load) runClosed() result {
	start := time.Now()
	measureStart := start.Add(l.cfg.warmup)
	measureEnd := measureStart.Add(l.cfg.duration)
	var taken atomic.Int64 // measured requests started, for --requests
	var done sync.WaitGroup
	for _, w := range l.workers {
		done.Add(1)
		go func(w *worker) {
			defer done.Done()
			for {
				before := time.Now()
				if !before.Before(measureEnd) {
					break
				}
				measured := !before.Before(measureStart)
				if measured && l.cfg.requests > 0 && taken.Add(1) > l.cfg.requests {
					break
				}
				out := w.client.do()
				if !measured {
					continue
				}
				answered := time.Now()
				l.record(w, out, measureStart, answered.Sub(before), answered.Sub(before), answered)
			}
		}(w)
	}
	done.Wait()
	return result{elapsed: time.Since(measureStart)}
}

// runOpen: request j is due at start + j/rate. A pacer hands each due request to a free
// connection; when all are busy it waits for the first free one, and the request is late:
// its latency runs from its due time (the corrected view) as well as from its actual send
// (the uncorrected one). Requests due in the warm-up are not counted; none is sent after
// the window closes.
func (l *load) runOpen() result {
	warmupCount := int64(l.cfg.warmup.Seconds() * l.cfg.rate)
	total := warmupCount + int64(l.cfg.duration.Seconds()*l.cfg.rate)
	start := time.Now()
	due := func(j int64) time.Time {
		return start.Add(time.Duration(float64(j) * float64(time.Second) / l.cfg.rate))
	}
	measureStart := due(warmupCount)
	measureEnd := measureStart.Add(l.cfg.duration)
	jobs := make(chan int64) // unbuffered: a request goes to a connection free now
	var done sync.WaitGroup
	for _, w := range l.workers {
		done.Add(1)
		go func(w *worker) {
			defer done.Done()
			for j := range jobs {
				intended := due(j)
				sent := time.Now()
				out := w.client.do()
				answered := time.Now()
				if j >= warmupCount {
					l.record(w, out, measureStart, answered.Sub(intended), answered.Sub(sent), answered)
				}
			}
		}(w)
	}
	sent := pace(total, due, measureEnd, jobs) - warmupCount
	close(jobs)
	done.Wait()
	if sent < 0 {
		sent = 0
	}
	return result{sent: sent, elapsed: time.Since(measureStart)}
}

// pace hands requests 0..total-1 to free connections at their due times until the window
// closes, and returns how many it handed out. It runs on its own OS thread and sleeps with
// nanosleep near a due time, which Go's timers do not resolve finely.
func pace(total int64, due func(int64) time.Time, end time.Time, jobs chan<- int64) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	closing := time.NewTimer(time.Until(end))
	defer closing.Stop()
	for j := int64(0); j < total; j++ {
		sleepUntil(due(j))
		if !time.Now().Before(end) {
			return j
		}
		select {
		case jobs <- j:
		case <-closing.C:
			return j // every connection stayed busy until the window closed
		}
	}
	return total
}

func sleepUntil(t time.Time) {
	for {
		d := time.Until(t)
		if d <= 0 {
			return
		}
		ts := syscall.NsecToTimespec(int64(d))
		_ = syscall.Nanosleep(&ts, nil)
	}
}

// record counts one measured request; an ok one is recorded with its latencies (the
// corrected one from its due time in open loop, the same as the uncorrected in closed loop).
func (l *load) record(w *worker, out outcome, measureStart time.Time, corrected, uncorrected time.Duration, answered time.Time) {
	switch out {
	case non2xx:
		w.non2xx++
		return
	case failed:
		w.errors++
		return
	case timedOut:
		w.timeouts++
		return
	}
	w.ok++
	ns := recordNs(w.latency, corrected)
	recordNs(w.uncorrected, uncorrected)
	if w.samplesCut {
		return
	}
	if len(w.samples) >= maxSamples/len(l.workers)+1 {
		w.samplesCut = true
		w.samples = nil
		return
	}
	w.samples = append(w.samples, sample{at: answered.Sub(measureStart), latency: ns})
}

// recordNs records d clamped to the histogram's range and returns the value recorded, so the
// intervals hold exactly the histogram's values.
func recordNs(h *hdrhistogram.Histogram, d time.Duration) int64 {
	ns := int64(d)
	if ns < histLowest {
		ns = histLowest
	} else if ns > histHighest {
		ns = histHighest
	}
	_ = h.RecordValue(ns) // in range by construction
	return ns
}
