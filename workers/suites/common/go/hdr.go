// The latency histograms of the suites' Go load programs: their range, recording into them,
// and the encoding their reports carry.
//
// Shared by the http-order Go client (clients/go) and the zig-http load generator (load-hdr):
// each module has a symlink to this file in its package (package main), so a suite's folder
// still holds all it builds from.

package main

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 ns .. 60 s, 3 significant digits.
const (
	histLowest  = 1
	histHighest = 60 * int64(time.Second)
	histDigits  = 3
)

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histDigits)
}

// recordNs records ns, clamped to the histogram's range (a longer wait is kept at the top,
// not lost), and returns the value recorded, so the intervals hold exactly the histogram's
// values.
func recordNs(h *hdrhistogram.Histogram, ns int64) int64 {
	if ns < histLowest {
		ns = histLowest
	} else if ns > histHighest {
		ns = histHighest
	}
	_ = h.RecordValue(ns) // in range by construction
	return ns
}

// encodeHistogram is the V2 compressed encoding ("HISTF..." in base64) latency_hdr carries.
func encodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	encoded, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return string(encoded), nil
}
