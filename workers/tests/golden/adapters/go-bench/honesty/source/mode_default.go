//go:build !fast

package honesty

// Mode names the build: `-tags fast` adds one, the default build three.
const Mode = "default"

// Sum adds one to x three times, in a loop the compiler keeps.
func Sum(x int) int {
	for i := 0; i < 3; i++ {
		x = x*3 + i
	}
	return x
}
