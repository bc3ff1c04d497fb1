// Package honesty has benchmarks under 5 ns, one that fails, and a build tag that changes
// the code measured, for the go-bench adapter's golden files.
package honesty

// Add is the work of the nanobenchmarks: one addition.
func Add(a, b int) int { return a + b }
