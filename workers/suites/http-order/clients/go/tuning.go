package main

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// parseCPUList reads "2-3" or "0,2" (or a mix); "" is no pinning.
func parseCPUList(list string) ([]int, error) {
	if list == "" {
		return nil, nil
	}
	var cpus []int
	for _, part := range strings.Split(list, ",") {
		bounds := strings.SplitN(part, "-", 2)
		lo, err := strconv.Atoi(bounds[0])
		if err != nil || lo < 0 {
			return nil, fmt.Errorf("bad CPU %q in %q", part, list)
		}
		hi := lo
		if len(bounds) == 2 {
			if hi, err = strconv.Atoi(bounds[1]); err != nil || hi < lo {
				return nil, fmt.Errorf("bad CPU range %q in %q", part, list)
			}
		}
		for cpu := lo; cpu <= hi; cpu++ {
			cpus = append(cpus, cpu)
		}
	}
	return cpus, nil
}

// pinThread binds the calling goroutine to its OS thread and that thread to one CPU. The
// goroutine stays bound for good: when it ends, the runtime retires the pinned thread with it.
func pinThread(cpu int) error {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("cpu %d: %s", cpu, describe(err))
	}
	return nil
}

func pinReport(cpus []int, err error) string {
	if err != nil {
		return "refused: " + err.Error()
	}
	names := make([]string, len(cpus))
	for i, cpu := range cpus {
		names[i] = strconv.Itoa(cpu)
	}
	return "applied: " + strings.Join(names, ",")
}

// lockMemory keeps every page of the process, present and future, in RAM.
func lockMemory() string {
	if err := unix.Mlockall(unix.MCL_CURRENT | unix.MCL_FUTURE); err != nil {
		return "refused: " + describe(err)
	}
	return "applied"
}

// describe spells a system error as C's strerror does ("Operation not permitted"), so every
// client of the suite reports a refusal in the same words.
func describe(err error) string {
	var errno unix.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	text := errno.Error()
	if text == "" {
		return text
	}
	return strings.ToUpper(text[:1]) + text[1:]
}

// sleepUntil waits for t. time.Sleep alone wakes up to a millisecond late (the runtime's timers
// ride on epoll's millisecond timeout), which open loop would add to every latency measured
// from the intended send time; so the last stretch is a nanosleep, late by the kernel's timer
// slack (~50 µs) only. The nanosleep holds an OS thread, hence only for that last stretch.
func sleepUntil(t time.Time) {
	const precise = 2 * time.Millisecond
	wait := time.Until(t)
	if wait > precise {
		time.Sleep(wait - precise)
		wait = time.Until(t)
	}
	for wait > 0 {
		ts := unix.NsecToTimespec(int64(wait))
		if err := unix.Nanosleep(&ts, nil); err != unix.EINTR {
			return
		}
		wait = time.Until(t)
	}
}
