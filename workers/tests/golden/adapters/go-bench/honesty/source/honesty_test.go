package honesty

import "testing"

var sink int

// BenchmarkAdd is one addition: a few ns or less.
func BenchmarkAdd(b *testing.B) {
	x := 0
	for i := 0; i < b.N; i++ {
		x = Add(x, i)
	}
	sink = x
}

// BenchmarkSum measures the build's Sum (see the -tags fast build).
func BenchmarkSum(b *testing.B) {
	x := 0
	for i := 0; i < b.N; i++ {
		x = Sum(x)
	}
	sink = x
}

// BenchmarkFails stops with b.Fatal: go test prints --- FAIL and the package FAILs.
func BenchmarkFails(b *testing.B) {
	if b.N > 1000 {
		b.Fatalf("no input file at b.N = %d", b.N)
	}
	for i := 0; i < b.N; i++ {
		sink += Add(i, 1)
	}
}
