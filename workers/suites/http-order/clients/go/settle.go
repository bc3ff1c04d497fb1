package main

import (
	"sort"
	"strconv"
	"sync"
	"time"
)

// settleWindow is one window of the settled warm-up: its ok answers are grouped by when they
// were answered, 200 ms at a time.
const settleWindow = 200 * time.Millisecond

// steadyWindows is how many windows in a row must agree for the warm-up to have settled.
const steadyWindows = 3

// windowStat is one closed window of the settled warm-up.
type windowStat struct {
	count int   // ok answers in the window
	p50   int64 // ns, nearest rank over the window's latencies; 0 when count is 0
}

// steady reports whether windows (the last three closed, in any order) make a settled
// warm-up: each has an ok answer, and their counts and their p50s are each within 10 %, the
// largest at most 1.1 × the smallest (in integers: 10 × largest ≤ 11 × smallest).
func steady(windows [steadyWindows]windowStat) bool {
	minCount, maxCount := windows[0].count, windows[0].count
	minP50, maxP50 := windows[0].p50, windows[0].p50
	for _, w := range windows[1:] {
		if w.count < minCount {
			minCount = w.count
		}
		if w.count > maxCount {
			maxCount = w.count
		}
		if w.p50 < minP50 {
			minP50 = w.p50
		}
		if w.p50 > maxP50 {
			maxP50 = w.p50
		}
	}
	if minCount == 0 { // a window without an ok answer never settles
		return false
	}
	return 10*int64(maxCount) <= 11*int64(minCount) && 10*maxP50 <= 11*minP50
}

// settleAnswer is one ok warm-up answer not yet in a closed window.
type settleAnswer struct {
	at      time.Time // answered, read under the settler's lock
	latency int64     // ns
}

// settler watches the ok answers of the settled warm-up, from every worker: windows
// [start + k × 200 ms, start + (k+1) × 200 ms), k = 0, 1, …, closed one by one at their end.
type settler struct {
	start time.Time

	mu      sync.Mutex
	pending []settleAnswer // answered, not yet in a closed window
	closed  []windowStat   // the last windows closed, oldest first (at most steadyWindows)
}

func newSettler(start time.Time) *settler {
	return &settler{start: start}
}

// answered records an ok warm-up answer. Its time is read under the lock, so answers enter
// `pending` in time order and one recorded after a window was closed is never due in it.
func (s *settler) answered(latency time.Duration) {
	s.mu.Lock()
	s.pending = append(s.pending, settleAnswer{at: time.Now(), latency: int64(latency)})
	s.mu.Unlock()
}

// closeWindow ends the window that ends at `end` (called at or after it): the answers before
// `end` make its count and p50. It reports whether it and the two before it are steady.
func (s *settler) closeWindow(end time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var values []int64
	later := 0 // pending is in time order: the answers from `end` on are its tail
	for later < len(s.pending) && s.pending[later].at.Before(end) {
		values = append(values, s.pending[later].latency)
		later++
	}
	s.pending = append(s.pending[:0], s.pending[later:]...)

	stat := windowStat{count: len(values)}
	if len(values) > 0 {
		sort.Slice(values, func(i, j int) bool { return values[i] < values[j] })
		stat.p50 = *nearestRank(values, 500)
	}
	if len(s.closed) == steadyWindows {
		s.closed = append(s.closed[:0], s.closed[1:]...)
	}
	s.closed = append(s.closed, stat)
	if len(s.closed) < steadyWindows {
		return false
	}
	var last [steadyWindows]windowStat
	copy(last[:], s.closed)
	return steady(last)
}

// watch closes window after window, each at its end, and returns true at the end of the
// first one that settles the warm-up; false at `stop` (the settle time is up, or the warm-up's
// --duration) when none has. A window ending after `stop` is not waited for.
func (s *settler) watch(stop time.Time) bool {
	for k := 1; ; k++ {
		end := s.start.Add(time.Duration(k) * settleWindow)
		if end.After(stop) {
			time.Sleep(time.Until(stop))
			return false
		}
		time.Sleep(time.Until(end)) // never returns early: the window is over
		if s.closeWindow(end) {
			return true
		}
	}
}

// settleReport is tuning.settle: "off" (no --settle, or an open loop), "settled", or
// "not settled in S s", S as C's %g prints it (5 -> "5", 0.5 -> "0.5").
func settleReport(cfg config, settled bool) string {
	switch {
	case cfg.settle <= 0 || cfg.rate > 0:
		return "off"
	case settled:
		return "settled"
	default:
		return "not settled in " + strconv.FormatFloat(cfg.settleS, 'g', 6, 64) + " s"
	}
}

// firstTime keeps the time of the first of its marks; safe for concurrent use.
type firstTime struct {
	once sync.Once
	at   time.Time
}

func (f *firstTime) mark() {
	f.once.Do(func() { f.at = time.Now() })
}

// get returns the first mark's time, zero if none; a later mark no longer counts. Its own Do
// makes the read safe: Do returns only after the marking function has returned.
func (f *firstTime) get() time.Time {
	f.once.Do(func() {})
	return f.at
}
