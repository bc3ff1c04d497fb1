package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// load drives C workers against the order endpoint, each sending one order at a time through
// its exchanger (--library): on a keep-alive connection of its own (tuned), or on one of the C
// connections of a shared http.Client (usual).
type load struct {
	cfg     config
	workers []*worker
}

// result is what the workers measured, merged.
type result struct {
	ok, errors, timeouts int64
	unsent               int64                   // open loop: timeouts never sent (no worker free by window + timeout)
	elapsed              time.Duration           // the measuring phase
	latency              *hdrhistogram.Histogram // closed loop: sent -> answered; open: intended -> answered
	uncorrected          *hdrhistogram.Histogram // open loop: sent -> answered
	pinErr               error                   // the first worker that could not be pinned
	intervals            []interval              // ok orders per second of the measuring phase
	scheduled            int64                   // closed loop: measured orders planned (N; 0: by time)
	warmupCut            bool                    // the warm-up hit its time bound
	warmupOrders         int64                   // warm-up orders sent (count and settle phases)
	warmupElapsed        time.Duration           // first warm-up order -> measuring; 0 without warm-up
	settled              bool                    // closed loop: the settled warm-up settled
}

type worker struct {
	id                   int
	ok, errors, timeouts int64
	unsent               int64 // open loop: timeouts never sent (no worker free by window + timeout)
	warmup               int64 // warm-up orders sent
	latency, uncorrected *hdrhistogram.Histogram
	samples              []sample // ok measured orders, for the per-second intervals
	pinErr               error
	ex                   exchanger // sends this worker's orders (--library)
}

// exchanger sends one worker's orders, one at a time: the only part of the load that
// --library changes (tuned.go, usual.go). Each worker has its own, used by it alone.
type exchanger interface {
	// exchange sends one order (its JSON body) by `limit` and judges its answer, read whole.
	// A non-nil error says why the order failed (a timeout if it is one, see isTimeout), or,
	// with `succeeded`, that the connection was dropped after a good answer.
	exchange(body []byte, limit time.Time) (outcome, error)
}

// newExchangers returns what makes each worker's exchanger for --library.
func newExchangers(cfg config) func() exchanger {
	if cfg.library == libraryUsual {
		return usualLibrary(cfg)
	}
	return tunedLibrary(cfg)
}

type outcome int

const (
	succeeded outcome = iota
	failed
	timedOut
)

// maxPreallocSamples bounds the samples a worker reserves up front (16 B each): reserving
// avoids growing the slice while measuring, but a huge --orders must not reserve gigabytes.
const maxPreallocSamples = 1 << 18

// timedPreallocSamples is what a worker reserves in a trial by time (--orders 0), which has no
// count to share out: 64 KiB, then append grows the slice with the orders actually answered.
const timedPreallocSamples = 1 << 12

func newLoad(cfg config) *load {
	c := cfg.connections
	l := &load{cfg: cfg}
	newExchanger := newExchangers(cfg)
	// Each worker reserves room for its share of the measured orders up front, so recording a
	// sample does not grow the slice (allocate and copy) in the middle of the measurement. A
	// trial by time (--orders 0) has no count to share: it reserves a little and lets append
	// grow the slice, so memory follows what is actually sent.
	expected := cfg.orders
	if cfg.rate > 0 {
		expected = int64(cfg.rate * cfg.duration.Seconds())
	}
	perWorker := expected/int64(c) + 1
	if perWorker < 1 || perWorker > maxPreallocSamples { // < 1: an overflowed huge count
		perWorker = maxPreallocSamples
	}
	if cfg.rate == 0 && cfg.orders == 0 {
		perWorker = timedPreallocSamples
	}
	for i := 0; i < c; i++ {
		l.workers = append(l.workers, &worker{
			id:          i,
			latency:     newHistogram(),
			uncorrected: newHistogram(),
			samples:     make([]sample, 0, perWorker),
			ex:          newExchanger(),
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
	res.latency = newHistogram()
	res.uncorrected = newHistogram()
	var samples []sample
	for _, w := range l.workers {
		samples = append(samples, w.samples...)
		res.ok += w.ok
		res.errors += w.errors
		res.timeouts += w.timeouts
		res.unsent += w.unsent
		res.warmupOrders += w.warmup
		res.latency.Merge(w.latency)
		res.uncorrected.Merge(w.uncorrected)
		if res.pinErr == nil && w.pinErr != nil {
			res.pinErr = w.pinErr
		}
	}
	res.intervals = buildIntervals(samples)
	return res
}

// runClosed: W warm-up orders, then with --settle more of them until latency settles (or the
// settle time is up), then N measured ones (--orders 0: as many as --duration takes), each
// worker sending its next order as soon as the previous one is answered. The count warm-up
// stops taking orders after --duration from the start, the settled one after --settle from its
// own start, the measuring phase after --duration from its start.
func (l *load) runClosed() result {
	var res result
	var warmupTaken, measuredTaken int64
	var firstWarmup firstTime
	warmupDeadline := time.Now().Add(l.cfg.duration)
	// Set before startSettling / startMeasuring are closed, so the workers read them only after.
	var settle *settler
	var settleStop, measureStart, measureDeadline time.Time
	startSettling := make(chan struct{})
	startMeasuring := make(chan struct{})
	var warmedUp, finished sync.WaitGroup
	warmedUp.Add(len(l.workers))
	finished.Add(len(l.workers))
	var warmupCut int32

	for _, w := range l.workers {
		go func(w *worker) {
			defer finished.Done()
			l.pin(w)
			for atomic.AddInt64(&warmupTaken, 1) <= l.cfg.warmup {
				if !time.Now().Before(warmupDeadline) {
					atomic.StoreInt32(&warmupCut, 1)
					break
				}
				firstWarmup.mark()
				w.warmup++
				l.send(w, 0, time.Now(), time.Time{})
			}
			warmedUp.Done()
			if l.cfg.settle > 0 {
				<-startSettling
				l.warmUntilSettled(w, settle, startMeasuring, settleStop, &firstWarmup)
			}
			<-startMeasuring
			for seq := atomic.AddInt64(&measuredTaken, 1); l.cfg.orders == 0 || seq <= l.cfg.orders; seq = atomic.AddInt64(&measuredTaken, 1) {
				sent := time.Now()
				if !sent.Before(measureDeadline) {
					break
				}
				out := l.send(w, seq, sent, time.Time{})
				if out == succeeded {
					answered := time.Now()
					ns := recordNs(w.latency, int64(answered.Sub(sent)))
					w.samples = append(w.samples, sample{at: answered.Sub(measureStart), latency: ns})
				}
				l.count(w, out)
			}
		}(w)
	}

	warmedUp.Wait()
	if l.cfg.settle > 0 {
		// The settle time runs from the end of the count warm-up, for --settle at most.
		settle = newSettler(time.Now())
		settleStop = settle.start.Add(l.cfg.settle)
		close(startSettling)
		res.settled = settle.watch(settleStop)
	}
	measureStart = time.Now()
	measureDeadline = measureStart.Add(l.cfg.duration)
	close(startMeasuring)
	if first := firstWarmup.get(); !first.IsZero() {
		res.warmupElapsed = measureStart.Sub(first)
	}
	finished.Wait()
	res.elapsed = time.Since(measureStart)
	res.scheduled = l.cfg.orders
	res.warmupCut = warmupCut != 0
	return res
}

// warmUntilSettled is one worker's share of the settled warm-up: warm-up orders one after
// another, their ok answers watched by `settle`, until measuring starts (an order sent before
// is warm-up, whenever it is answered), taking none after `deadline` (the settle time's end).
func (l *load) warmUntilSettled(w *worker, settle *settler, startMeasuring <-chan struct{},
	deadline time.Time, first *firstTime) {
	for {
		select {
		case <-startMeasuring:
			return
		default:
		}
		sent := time.Now()
		if !sent.Before(deadline) {
			return
		}
		first.mark()
		w.warmup++
		if l.send(w, 0, sent, time.Time{}) == succeeded {
			settle.answered(time.Since(sent))
		}
	}
}

// runOpen: order k (warm-up first, then measured) is due at origin + k/R. The pacer hands each
// order to a free worker at its due time; when all are busy, a late order goes to the first one
// free. The corrected latency runs from the due time, so a stalled server is charged for every
// order it held back, not only for the few in flight (coordinated omission). Nothing is in
// flight past window + timeout: an order still unanswered then is a timeout, and one not sent
// by then (every worker was stuck) is a timeout, never sent.
func (l *load) runOpen() result {
	var res result
	warmup := l.cfg.warmup
	total := warmup + int64(l.cfg.rate*l.cfg.duration.Seconds())
	origin := time.Now()
	due := func(k int64) time.Time {
		return origin.Add(time.Duration(float64(k) * float64(time.Second) / l.cfg.rate))
	}
	measureStart := due(warmup) // the window's start, fixed before the workers start
	end := measureStart.Add(l.cfg.duration + l.cfg.timeout)
	orders := make(chan int64) // unbuffered: an order goes to a worker that is free now
	var finished sync.WaitGroup
	finished.Add(len(l.workers))

	for _, w := range l.workers {
		go func(w *worker) {
			defer finished.Done()
			l.pin(w)
			for k := range orders {
				intended := due(k)
				measured := k >= warmup
				sent := time.Now()
				if !sent.Before(end) { // handed over just as the run's time ran out
					if measured {
						w.timeouts++
						w.unsent++
					}
					continue
				}
				if !measured {
					w.warmup++
					l.send(w, 0, sent, end)
					continue
				}
				out := l.send(w, k-warmup+1, sent, end)
				if out == succeeded {
					answered := time.Now()
					ns := recordNs(w.latency, int64(answered.Sub(intended)))
					recordNs(w.uncorrected, int64(answered.Sub(sent)))
					w.samples = append(w.samples, sample{at: answered.Sub(measureStart), latency: ns})
				}
				l.count(w, out)
			}
		}(w)
	}

	res.unsent = l.pace(total, warmup, due, end, orders)
	res.timeouts = res.unsent
	close(orders)
	finished.Wait()
	// The window lasts its full length even when its last order was answered before the end.
	res.elapsed = time.Since(measureStart)
	if res.elapsed < l.cfg.duration {
		res.elapsed = l.cfg.duration
	}
	if warmup > 0 { // the warm-up is the schedule's first W orders, from origin to the window
		res.warmupElapsed = measureStart.Sub(origin)
	}
	return res
}

// pace hands order k to a free worker at its due time, or as soon as one is free when all are
// busy (a late order is never skipped), until `end` (window + timeout); it returns how many
// measured orders were left unsent then. One pacer, on its own OS thread, does the precise
// sleeping: a nanosleep holds its thread and the runtime's P, and with every worker sleeping
// like that the goroutines reading answers could wait for a P.
func (l *load) pace(total, warmup int64, due func(int64) time.Time, end time.Time,
	orders chan<- int64) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	closing := time.NewTimer(time.Until(end))
	defer closing.Stop()
	for k := int64(0); k < total; k++ {
		sleepUntil(due(k))
		select {
		case orders <- k:
		case <-closing.C: // every worker stayed busy until the end
			unsent := total - k
			if k < warmup {
				unsent = total - warmup
			}
			return unsent
		}
	}
	return 0
}

func (l *load) pin(w *worker) {
	if len(l.cfg.pinCPUs) > 0 {
		w.pinErr = pinThread(l.cfg.pinCPUs[w.id%len(l.cfg.pinCPUs)])
	}
}

func (l *load) count(w *worker, out outcome) {
	switch out {
	case succeeded:
		w.ok++
	case timedOut:
		w.timeouts++
	default:
		w.errors++
	}
}

// send posts one order, stamped `now` (when it is sent), and reads the whole answer; within
// --timeout, and by `deadline` if it is not zero. An order that fails or runs out of time
// leaves no connection behind: the next one goes out on another.
func (l *load) send(w *worker, seq int64, now, deadline time.Time) outcome {
	limit := now.Add(l.cfg.timeout)
	if !deadline.IsZero() && deadline.Before(limit) {
		limit = deadline
	}
	out, err := w.ex.exchange(orderBody(seq, now), limit)
	if err != nil && isTimeout(err) {
		return timedOut
	}
	return out
}

// isTimeout tells an order that ran out of time (a connection's deadline, a context's) from
// one that failed.
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()
}

var successField = []byte(`"status":"SUCCESS"`)

// isSuccess looks for the server's compact `"status":"SUCCESS"` first and parses the JSON only
// when that is absent, so a differently spaced answer is still read right.
func isSuccess(body []byte) bool {
	if bytes.Contains(body, successField) {
		return true
	}
	var answer struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(body, &answer) == nil && answer.Status == "SUCCESS"
}

// orderBody is the seed's order, buying on odd sequence numbers and selling on even ones
// (warm-up orders are 0).
func orderBody(seq int64, now time.Time) []byte {
	side := "buy"
	if seq%2 == 0 {
		side = "sell"
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"buy_sell":"`...)
	b = append(b, side...)
	b = append(b, `","symbol":2330,"price":100.0,"quantity":1000,"market_type":"common","price_type":"limit","time_in_force":"rod","order_type":"stock","user_def":"go-`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `","client_timestamp":"`...)
	b = now.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `"}`...)
	return b
}
