package main

import (
	"encoding/json"
	"io"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// report is the JSON document on stdout, in latlab-json's shape.
type report struct {
	LatencyHdr            string             `json:"latency_hdr"`
	LatencyUncorrectedHdr string             `json:"latency_uncorrected_hdr,omitempty"`
	Metrics               map[string]float64 `json:"metrics"`
	Intervals             []interval         `json:"intervals,omitempty"`
}

func newReport(cfg config, res result) (report, error) {
	latency, err := encode(res.latency)
	if err != nil {
		return report{}, err
	}
	rep := report{LatencyHdr: latency, Intervals: res.intervals}
	elapsed := res.elapsed.Seconds()
	answered := res.ok + res.non2xx + res.errors + res.timeouts
	rep.Metrics = map[string]float64{
		"throughput":   ratio(float64(res.ok), elapsed),
		"requests":     float64(answered),
		"ok":           float64(res.ok),
		"errors":       float64(res.non2xx + res.errors),
		"non_2xx":      float64(res.non2xx),
		"timeouts":     float64(res.timeouts),
		"success_rate": ratio(float64(res.ok), float64(answered)),
		"duration_s":   elapsed,
	}
	if cfg.rate > 0 {
		uncorrected, err := encode(res.uncorrected)
		if err != nil {
			return report{}, err
		}
		rep.LatencyUncorrectedHdr = uncorrected
		rep.Metrics["target_rate"] = cfg.rate
		rep.Metrics["achieved_rate"] = ratio(float64(res.sent), cfg.duration.Seconds())
	}
	return rep, nil
}

func (r report) write(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

func encode(h *hdrhistogram.Histogram) (string, error) {
	encoded, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(encoded), err
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// sample is one ok measured request, kept for the latency over time.
type sample struct {
	at      time.Duration // answered, from the start of the measuring window
	latency int64         // ns, exactly the value recorded in the histogram
}

// interval is one second of the measuring window, by answer time; percentiles are exact
// nearest ranks over the window's values, in ns. An empty window has only t_s and count.
type interval struct {
	TS    int64  `json:"t_s"`
	Count int    `json:"count"`
	P50   *int64 `json:"p50,omitempty"`
	P90   *int64 `json:"p90,omitempty"`
	P99   *int64 `json:"p99,omitempty"`
	P999  *int64 `json:"p999,omitempty"`
	Max   *int64 `json:"max,omitempty"`
}

func buildIntervals(samples []sample) []interval {
	last := int64(-1)
	for _, s := range samples {
		if k := int64(s.at / time.Second); k > last {
			last = k
		}
	}
	buckets := make([][]int64, last+1)
	for _, s := range samples {
		k := int64(s.at / time.Second)
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
			iv.Max = &values[len(values)-1]
		}
		out = append(out, iv)
	}
	return out
}

// nearestRank is the ceil(perMille/1000 × n)-th smallest of sorted values, in integers (a
// float product rounds one rank too high for some n).
func nearestRank(sorted []int64, perMille int64) *int64 {
	n := int64(len(sorted))
	rank := (perMille*n + 999) / 1000
	if rank < 1 {
		rank = 1
	}
	v := sorted[rank-1]
	return &v
}
