package main

import (
	"encoding/json"
	"io"
)

// report is the JSON document on stdout, in latlab-json's shape.
type report struct {
	LatencyHdr            string             `json:"latency_hdr"`
	LatencyUncorrectedHdr string             `json:"latency_uncorrected_hdr,omitempty"`
	Metrics               map[string]float64 `json:"metrics"`
	Intervals             []interval         `json:"intervals,omitempty"`
}

func newReport(cfg config, res result) (report, error) {
	latency, err := encodeHistogram(res.latency)
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
		uncorrected, err := encodeHistogram(res.uncorrected)
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

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
