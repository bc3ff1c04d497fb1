// The latency over time of the suites' Go load programs: the per-second "intervals" of their
// reports, from the ok measured answers.
//
// Shared by the http-order Go client (clients/go) and the zig-http load generator (load-hdr):
// each module has a symlink to this file in its package (package main), so a suite's folder
// still holds all it builds from.

package main

import (
	"sort"
	"time"
)

// sample is one ok measured answer, kept so the report can show latency over time: the
// histogram alone cannot tell a steady tail from a stall.
type sample struct {
	at      time.Duration // answered, from the start of the measuring phase
	latency int64         // ns, exactly the value recorded in the latency histogram
}

// interval is one second of the measuring phase in the report, by answer time; the
// percentiles are exact nearest ranks over the window's values, in ns. An empty window
// carries only t_s and count, so the percentiles are pointers left out when nil.
type interval struct {
	TS    int64  `json:"t_s"`
	Count int    `json:"count"`
	P50   *int64 `json:"p50,omitempty"`
	P90   *int64 `json:"p90,omitempty"`
	P99   *int64 `json:"p99,omitempty"`
	P999  *int64 `json:"p999,omitempty"`
	Max   *int64 `json:"max,omitempty"`
}

// buildIntervals splits the samples into one-second windows by answer time, from 0 to the
// window of the last answer, empty windows included. It never returns nil, so a report
// shows [] rather than null when nothing succeeded.
func buildIntervals(samples []sample) []interval {
	last := int64(-1)
	for _, s := range samples {
		if k := window(s.at); k > last {
			last = k
		}
	}
	buckets := make([][]int64, last+1)
	for _, s := range samples {
		k := window(s.at)
		buckets[k] = append(buckets[k], s.latency)
	}

	out := make([]interval, 0, len(buckets))
	for k, values := range buckets {
		iv := interval{TS: int64(k), Count: len(values)}
		if len(values) > 0 {
			sort.Slice(values, func(i, j int) bool { return values[i] < values[j] })
			iv.P50 = nearestRank(values, 500)
			iv.P90 = nearestRank(values, 900)
			iv.P99 = nearestRank(values, 990)
			iv.P999 = nearestRank(values, 999)
			iv.Max = nearestRank(values, 1000) // the largest
		}
		out = append(out, iv)
	}
	return out
}

// window is the whole second an answer falls in; an answer can only come after the phase
// began, but a negative offset would still land in window 0 rather than index out of range.
func window(at time.Duration) int64 {
	if at < 0 {
		return 0
	}
	return int64(at / time.Second)
}

// nearestRank is the ceil(q/100 × n)-th smallest of sorted values, with q given in tenths of a
// percent so the rank is computed in integers: 99.9/100 in floating point is not exact and
// would move the rank by one for some n.
func nearestRank(sorted []int64, tenths int64) *int64 {
	n := int64(len(sorted))
	rank := (tenths*n + 999) / 1000
	if rank < 1 {
		rank = 1
	}
	v := sorted[rank-1]
	return &v
}
