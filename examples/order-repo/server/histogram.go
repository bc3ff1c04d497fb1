package main

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/bits"
)

// The latency histogram: HdrHistogram's layout for 1 ns .. 1 h at 3 significant digits, as
// load clients record theirs, so its standard encoding reads like theirs.
const (
	lowestNanos       = 1
	highestNanos      = 3_600_000_000_000
	significantDigits = 3
	// subBucketHalfCountMagnitude is log2 of half the sub-buckets: 2 × 10^3 values need 2^11
	// sub-buckets of unit width (the lowest value is 1, so the unit magnitude is 0).
	subBucketHalfCountMagnitude = 10
	subBucketHalfCount          = 1 << subBucketHalfCountMagnitude
	subBucketMask               = 2*subBucketHalfCount - 1
	// bucketCount: each bucket doubles the range; 2048 × 2^31 is the first past an hour.
	bucketCount = 32
	countsLen   = (bucketCount + 1) * subBucketHalfCount
)

// The cookies of HdrHistogram's V2 encoding and of its zlib-compressed form.
const (
	encodingCookie    = 0x1c849303 | 0x10
	compressionCookie = 0x1c849304 | 0x10
)

// histogram counts values in HdrHistogram's buckets.
type histogram struct {
	counts []int64
	total  int64
}

func newHistogram() *histogram {
	return &histogram{counts: make([]int64, countsLen)}
}

// record counts one value in nanoseconds, clamped into the histogram's range.
func (h *histogram) record(nanos int64) {
	value := uint64(min(max(nanos, lowestNanos), highestNanos))
	h.counts[countsIndex(value)]++
	h.total++
}

// countsIndex is where HdrHistogram keeps a value: its bucket (by magnitude) and the
// sub-bucket inside it.
func countsIndex(value uint64) int {
	bucket := 64 - subBucketHalfCountMagnitude - 1 - bits.LeadingZeros64(value|subBucketMask)
	subBucket := int(value >> uint(bucket))
	return (bucket+1)<<subBucketHalfCountMagnitude + subBucket - subBucketHalfCount
}

// encodeBase64 is the histogram in HdrHistogram's compressed V2 encoding, in base64.
func (h *histogram) encodeBase64() (string, error) {
	payload := h.encodeCounts()
	var plain bytes.Buffer
	header := []any{
		uint32(encodingCookie), uint32(len(payload)),
		uint32(0),                 // normalizing index offset
		uint32(significantDigits), // significant digits
		uint64(lowestNanos), uint64(highestNanos),
		math.Float64bits(1), // integer to double conversion ratio
	}
	for _, word := range header {
		_ = binary.Write(&plain, binary.BigEndian, word) // a bytes.Buffer never fails
	}
	plain.Write(payload)

	var compressed bytes.Buffer
	deflater := zlib.NewWriter(&compressed)
	if _, err := deflater.Write(plain.Bytes()); err != nil {
		return "", err
	}
	if err := deflater.Close(); err != nil {
		return "", err
	}
	var out bytes.Buffer
	_ = binary.Write(&out, binary.BigEndian, uint32(compressionCookie))
	_ = binary.Write(&out, binary.BigEndian, uint32(compressed.Len()))
	out.Write(compressed.Bytes())
	return base64.StdEncoding.EncodeToString(out.Bytes()), nil
}

// encodeCounts writes the counts up to the last non-zero one as ZigZag LEB128 varints, a run
// of two or more zeros as its negated length.
func (h *histogram) encodeCounts() []byte {
	last := 0
	for i, count := range h.counts {
		if count != 0 {
			last = i
		}
	}
	var payload []byte
	for i := 0; i <= last; {
		count := h.counts[i]
		i++
		if count == 0 {
			zeros := int64(1)
			for i <= last && h.counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				count = -zeros
			}
		}
		payload = binary.AppendUvarint(payload, uint64(count<<1)^uint64(count>>63))
	}
	return payload
}
