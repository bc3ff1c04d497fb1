package main

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"flag"
	"io"
	"os"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/latency.hdr from testdata/latency_values.txt")

// TestEncodesLikeHdrHistogram checks the encoding of the values in testdata against
// testdata/latency.hdr, which HdrHistogram's Python library decodes to the same counts (the
// lab's tests check that). zlib's output may change with Go, so the uncompressed bytes are
// compared.
func TestEncodesLikeHdrHistogram(t *testing.T) {
	h := newHistogram()
	for _, value := range readValues(t, "testdata/latency_values.txt") {
		h.record(value)
	}
	encoded, err := h.encodeBase64()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/latency.hdr", []byte(encoded+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile("testdata/latency.hdr")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(uncompressed(t, encoded), uncompressed(t, string(bytes.TrimSpace(golden)))) {
		t.Fatalf("the encoding differs from testdata/latency.hdr; got %s", encoded)
	}
}

func TestCountsIndexFollowsHdrHistogram(t *testing.T) {
	for value, want := range map[uint64]int{1: 1, 2047: 2047, 2048: 2048, 2049: 2048, 4096: 3072} {
		if got := countsIndex(value); got != want {
			t.Errorf("countsIndex(%d) = %d, want %d", value, got, want)
		}
	}
	if got := countsIndex(highestNanos); got >= countsLen {
		t.Errorf("the highest value's index %d is past the counts (%d)", got, countsLen)
	}
}

func readValues(t *testing.T, path string) []int64 {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var values []int64
	lines := bufio.NewScanner(file)
	for lines.Scan() {
		value, err := strconv.ParseInt(lines.Text(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, value)
	}
	return values
}

// uncompressed is a compressed V2 encoding's inner encoding: past the 8-byte header, inflated.
func uncompressed(t *testing.T, encoded string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(raw) < 8 {
		t.Fatalf("not a compressed histogram: %q (%v)", encoded, err)
	}
	inflater, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	inner, err := io.ReadAll(inflater)
	if err != nil {
		t.Fatal(err)
	}
	return inner
}
