// The command line of the suites' Go load programs: flags parsed the same way, the same exit
// statuses for -h and for a bad command line, and seconds given as numbers.
//
// Shared by the http-order Go client (clients/go) and the zig-http load generator (load-hdr):
// each module has a symlink to this file in its package (package main), so a suite's folder
// still holds all it builds from.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"time"
)

// parseFlags parses args with fs, its flags defined, and refuses a positional argument.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// usageStatus is what a program does with its command line's error: nothing (stop false)
// when there is none; else it stops with status 0 after -h (the flag set printed the usage)
// or 2 for a bad command line, which it names on stderr after the program's name.
func usageStatus(program string, err error, stderr io.Writer) (status int, stop bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	default:
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		return 2, true
	}
}

// seconds is a number of seconds as a Duration, rounded to the nanosecond: the product is not
// exact in floating point, and truncating it makes 1.001 s 1000999999 ns.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}
