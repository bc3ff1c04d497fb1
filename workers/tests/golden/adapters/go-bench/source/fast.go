//go:build !slow

package gobench

func extraWork(int) uint64 { return 0 }
