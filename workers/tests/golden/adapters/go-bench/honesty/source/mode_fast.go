//go:build fast

package honesty

// Mode names the build: `-tags fast` adds one, the default build three.
const Mode = "fast"

// Sum adds one to x.
func Sum(x int) int { return x + 1 }
