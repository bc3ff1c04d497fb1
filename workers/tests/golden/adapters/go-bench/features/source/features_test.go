package gofeatures

import (
	"fmt"
	"hash/crc32"
	"testing"
)

var sink uint32

func BenchmarkMetrics(b *testing.B) {
	for _, n := range []int{64, 4096} {
		b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			buf := make([]byte, n)
			for i := 0; i < b.N; i++ {
				buf[i%n]++
				sink += crc32.ChecksumIEEE(buf)
			}
			b.ReportMetric(float64(n/4), "words/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n/4), "ns/word")
		})
	}
}

func BenchmarkLogs(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += crc32.ChecksumIEEE([]byte("latlab"))
	}
	b.Logf("ran %d iterations", b.N)
}

func BenchmarkPrints(b *testing.B) {
	fmt.Printf("starting with b.N = %d\n", b.N)
	for i := 0; i < b.N; i++ {
		sink += crc32.ChecksumIEEE([]byte("latlab"))
	}
}
