package main

import (
	"testing"
	"time"
)

func TestSteadyWindowsAgreeWithinTenPercent(t *testing.T) {
	cases := []struct {
		name    string
		windows [steadyWindows]windowStat
		want    bool
	}{
		{"equal", [3]windowStat{{100, 1000}, {100, 1000}, {100, 1000}}, true},
		{"counts exactly 10 % apart", [3]windowStat{{100, 1000}, {110, 1000}, {105, 1000}}, true},
		{"counts just over 10 % apart", [3]windowStat{{100, 1000}, {111, 1000}, {105, 1000}}, false},
		{"p50s exactly 10 % apart", [3]windowStat{{100, 1100}, {100, 1000}, {100, 1050}}, true},
		{"p50s just over 10 % apart", [3]windowStat{{100, 1000}, {100, 1101}, {100, 1050}}, false},
		{"an empty window", [3]windowStat{{0, 0}, {0, 0}, {0, 0}}, false},
		{"one empty window", [3]windowStat{{100, 1000}, {0, 0}, {100, 1000}}, false},
		{"one answer each", [3]windowStat{{1, 500}, {1, 520}, {1, 480}}, true},
	}
	for _, c := range cases {
		if got := steady(c.windows); got != c.want {
			t.Errorf("%s: steady(%v) = %v, want %v", c.name, c.windows, got, c.want)
		}
	}
}

func TestSettlerClosesWindowsByAnswerTime(t *testing.T) {
	start := time.Now()
	s := newSettler(start)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	// Three windows of 200 ms, four answers each, p50 (the 2nd smallest of 4) 20 or 21 µs;
	// one answer already in the fourth window stays pending.
	for w := 0; w < 3; w++ {
		for i, us := range []int64{30, 10, 20 + int64(w%2), 40} {
			s.pending = append(s.pending, settleAnswer{at: at(200*w + 10*i), latency: us * 1000})
		}
	}
	s.pending = append(s.pending, settleAnswer{at: at(600), latency: 1})
	if s.closeWindow(at(200)) || s.closeWindow(at(400)) {
		t.Fatal("settled before three windows were closed")
	}
	if !s.closeWindow(at(600)) {
		t.Fatalf("three equal windows did not settle: %v", s.closed)
	}
	if want := (windowStat{4, 20000}); s.closed[0] != want {
		t.Errorf("first window %v, want %v", s.closed[0], want)
	}
	if len(s.pending) != 1 || s.pending[0].latency != 1 {
		t.Errorf("pending after three windows: %v", s.pending)
	}
	// An empty fourth window (its one answer aside) breaks the run: counts 4, 4, 1.
	if s.closeWindow(at(800)) {
		t.Errorf("settled with counts %v", s.closed)
	}
}

func TestSettleReport(t *testing.T) {
	closed := func(settle float64) config { return config{settle: seconds(settle), settleS: settle} }
	cases := []struct {
		cfg     config
		settled bool
		want    string
	}{
		{closed(0), false, "off"},
		{closed(5), true, "settled"},
		{closed(5), false, "not settled in 5 s"},
		{closed(0.5), false, "not settled in 0.5 s"},
		{closed(0.05), false, "not settled in 0.05 s"},
		{closed(1234567), false, "not settled in 1.23457e+06 s"},
		{config{settle: seconds(3), settleS: 3, rate: 2000}, false, "off"},
	}
	for _, c := range cases {
		if got := settleReport(c.cfg, c.settled); got != c.want {
			t.Errorf("settleReport(%g s, %v) = %q, want %q", c.cfg.settleS, c.settled, got, c.want)
		}
	}
}
