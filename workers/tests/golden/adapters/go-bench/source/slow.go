//go:build slow

package gobench

// extraWork makes the "slow" build about twice as slow, for the regression golden file.
func extraWork(n int) uint64 {
	var sum uint64
	for i := 0; i < n*40; i++ {
		sum += uint64(i) * 2654435761
	}
	return sum & 1
}
