package ops

import (
	"flag"
	"os"
	"testing"
)

// avx512 turns the AVX-512 matmul micro-kernels off for a run, to compare
// them with the AVX2 ones (go test -bench MatMul ./ops -args -avx512=false).
var avx512 = flag.Bool("avx512", true, "use the AVX-512 matmul micro-kernels where the CPU has them")

func TestMain(m *testing.M) {
	flag.Parse()
	if !*avx512 {
		useAVX512 = false
	}
	os.Exit(m.Run())
}
