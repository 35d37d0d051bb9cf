package ops

import (
	"flag"
	"os"
	"testing"
)

// avx512 turns the AVX-512 matmul micro-kernels off for a run, to compare
// them with the AVX2 ones (go test -bench MatMul ./ops -args -avx512=false).
var avx512 = flag.Bool("avx512", true, "use the AVX-512 matmul micro-kernels where the CPU has them")

// sortGrain sets a long line's fewest keys per chunk (parSortGrain) for
// a run, to compare grains on many cores (-args -sort.grain=16384).
var sortGrain = flag.Int("sort.grain", 0, "a long line's fewest keys per chunk in Sort and ArgSort (0: the default)")

func TestMain(m *testing.M) {
	flag.Parse()
	if !*avx512 {
		useAVX512 = false
	}
	if *sortGrain > 0 {
		parSortGrain = *sortGrain
	}
	os.Exit(m.Run())
}
