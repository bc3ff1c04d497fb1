package gobench

import (
	"fmt"
	"testing"
)

func BenchmarkChecksum(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				Checksum(n)
			}
		})
	}
}
