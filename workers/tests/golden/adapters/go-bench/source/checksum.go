// Package gobench is a tiny benchmark for latlab's go-bench adapter golden files.
package gobench

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// Checksum joins the numbers 0..n-1 as text and hashes the result.
func Checksum(n int) uint64 {
	parts := make([]string, 0, n)
	for i := 0; i < n; i++ {
		parts = append(parts, strconv.Itoa(i))
	}
	h := fnv.New64a()
	h.Write([]byte(strings.Join(parts, ",")))
	return h.Sum64() + extraWork(n)
}
