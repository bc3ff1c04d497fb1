package main

import (
	"os"
	"runtime/pprof"
	"time"
)

//go:noinline
func spin(d time.Duration) int {
	end := time.Now().Add(d)
	n := 0
	for time.Now().Before(end) {
		n++
	}
	return n
}

//go:noinline
func parse(d time.Duration) int { return spin(d) }

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	total := 0
	for i := 0; i < 40; i++ {
		total += spin(20 * time.Millisecond)
		total += parse(5 * time.Millisecond)
	}
	pprof.StopCPUProfile()
	f.Close()
	if total < 0 {
		println(total)
	}
}
