package ops

import (
	"testing"

	"github.com/resident-go/resident/internal/draw"
)

// TestPortableKernels runs the host-kernel tests again with the assembly
// kernels off, as RESIDENT_OPS_PORTABLE=1 (or a CPU without AVX2/FMA)
// would: the portable Go loops meet the same models, in the same test
// binary, so make test needs no second build and run of ops for them.
func TestPortableKernels(t *testing.T) {
	if !useAsm {
		t.Skip("the portable kernels are the ones in use: every test ran them")
	}
	saveAsm, save512 := useAsm, useAVX512
	useAsm, useAVX512 = false, false
	defer func() { useAsm, useAVX512 = saveAsm, save512 }()
	cases := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Diff", TestDiff}, {"DiffNumPy", TestDiffNumPy}, {"AlongNumPy", TestAlongNumPy},
		{"BinaryAllTypes", TestBinaryAllTypes}, {"UnaryAllTypes", TestUnaryAllTypes},
		{"LargeParallel", TestLargeParallel}, {"Math32Accuracy", TestMath32Accuracy},
		{"MathSpecialValues", TestMathSpecialValues}, {"ModSigns", TestModSigns}, {"Mod32Model", TestMod32Model},
		{"MinMaxBits", TestMinMaxBits}, {"BigDenseBits", TestBigDenseBits},
		{"ReduceAllTypes", TestReduceAllTypes}, {"SumAccuracy", TestSumAccuracy}, {"SumProperty", TestSumProperty},
		{"ReduceKeepDims", TestReduceKeepDims}, {"MatMulShapes", TestMatMulShapes}, {"MatMulViews", TestMatMulViews},
		{"CastAllPairs", TestCastAllPairs}, {"CompareWhereAllTypes", TestCompareWhereAllTypes},
		{"CopyFillIotaAllTypes", TestCopyFillIotaAllTypes}, {"TransposeLarge", TestTransposeLarge},
		{"FuseDense", TestFuseDense},
	}
	// Under -race a third of them, drawn for the run (package draw), so
	// successive runs cover all; without it, all.
	picked := draw.Pick(t, len(cases), len(cases))
	if raceEnabled {
		picked = draw.Pick(t, len(cases), len(cases)/3)
	}
	for _, i := range picked {
		c := cases[i]
		if !t.Run(c.name, c.fn) {
			t.Errorf("%s fails with the assembly kernels off (RESIDENT_OPS_PORTABLE=1 runs the whole suite so)", c.name)
		}
	}
}
