// Tests of the files in this folder (intervals.go, hdr.go, cli.go), run in every module that
// links them: each links this file beside them.

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"
)

func TestIntervalsByAnswerSecondWithEmptyWindows(t *testing.T) {
	var samples []sample
	for i := int64(1); i <= 10; i++ { // window 0: 10 .. 100 ns, unsorted
		samples = append(samples, sample{at: time.Duration(i) * time.Millisecond, latency: 110 - 10*i})
	}
	samples = append(samples, sample{at: 2500 * time.Millisecond, latency: 7}) // window 2
	samples = append(samples, sample{at: -time.Millisecond, latency: 5})       // clamped to 0

	got, err := json.Marshal(buildIntervals(samples))
	if err != nil {
		t.Fatal(err)
	}
	// Nearest rank in integers: p90 of 11 values is the 10th (ceil(9.9)), p50 the 6th.
	want := `[{"t_s":0,"count":11,"p50":50,"p90":90,"p99":100,"p999":100,"max":100},` +
		`{"t_s":1,"count":0},` +
		`{"t_s":2,"count":1,"p50":7,"p90":7,"p99":7,"p999":7,"max":7}]`
	if string(got) != want {
		t.Errorf("intervals\n got %s\nwant %s", got, want)
	}
	if empty, _ := json.Marshal(buildIntervals(nil)); string(empty) != "[]" {
		t.Errorf("no samples: %s, want []", empty)
	}
}

func TestRecordNsClampsToTheHistogramsRange(t *testing.T) {
	h := newHistogram()
	for _, c := range []struct{ in, want int64 }{{0, 1}, {-5, 1}, {1500, 1500}, {histHighest + 1, histHighest}} {
		if got := recordNs(h, c.in); got != c.want {
			t.Errorf("recordNs(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	if h.TotalCount() != 4 {
		t.Errorf("recorded %d values, want 4", h.TotalCount())
	}
	if encoded, err := encodeHistogram(h); err != nil || !strings.HasPrefix(encoded, "HISTF") {
		t.Errorf("encodeHistogram: %q, %v; want the V2 compressed encoding", encoded, err)
	}
}

func TestCommandLine(t *testing.T) {
	parse := func(args ...string) error {
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		fs.SetOutput(&bytes.Buffer{})
		fs.Int("n", 1, "a number")
		return parseFlags(fs, args)
	}
	for _, c := range []struct {
		args   []string
		status int
		stop   bool
		said   string
	}{
		{[]string{"-n", "2"}, 0, false, ""},
		{[]string{"-h"}, 0, true, ""},
		{[]string{"-n", "x"}, 2, true, `prog: invalid value "x" for flag -n`},
		{[]string{"-n", "2", "extra"}, 2, true, `prog: unexpected argument "extra"`},
	} {
		var stderr bytes.Buffer
		status, stop := usageStatus("prog", parse(c.args...), &stderr)
		if status != c.status || stop != c.stop || !strings.HasPrefix(stderr.String(), c.said) {
			t.Errorf("%q: status %d, stop %v, stderr %q", c.args, status, stop, stderr.String())
		}
	}
	if got := seconds(1.001); got != 1001*time.Millisecond {
		t.Errorf("seconds(1.001) = %d ns, want 1001000000", got)
	}
}
