package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseArgsLibrary(t *testing.T) {
	base := []string{"--url", "http://127.0.0.1:8080"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, libraryTuned},
		{[]string{"--library", "tuned"}, libraryTuned},
		{[]string{"--library", "usual"}, libraryUsual},
	} {
		var stderr bytes.Buffer
		cfg, err := parseArgs(append(base, c.args...), &stderr)
		if err != nil {
			t.Errorf("parseArgs(%q): %v", c.args, err)
			continue
		}
		if cfg.library != c.want {
			t.Errorf("parseArgs(%q): library %q, want %q", c.args, cfg.library, c.want)
		}
	}
}

func TestBadLibraryExitsTwo(t *testing.T) {
	for _, library := range []string{"", "Usual", "net/http", "fasthttp"} {
		var stdout, stderr bytes.Buffer
		status := run([]string{"--url", "http://127.0.0.1:8080", "--library", library}, &stdout, &stderr)
		if status != 2 {
			t.Errorf("--library %q: exit status %d, want 2", library, status)
		}
		if stdout.Len() != 0 {
			t.Errorf("--library %q: stdout %q, want nothing", library, stdout.String())
		}
		if !strings.Contains(stderr.String(), "--library must be tuned or usual") {
			t.Errorf("--library %q: stderr %q says nothing of --library", library, stderr.String())
		}
	}
}
