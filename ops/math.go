package ops

import (
	"math"

	"github.com/resident-go/resident/array"
)

// Helpers of the unary ops' host kernels (unary_gen.go).

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// softplus64 is log(1+e^x) without overflow: max(x,0) + log1p(e^−|x|),
// with Exp's and Log1p's one-element forms, so that every path (the
// kernels' passes, softplusLanes64) gives the same bits.
func softplus64(x float64) float64 { return max(x, 0) + log1p64(expF64one(-math.Abs(x))) }

func relu64(x float64) float64 {
	if x > 0 || x != x {
		return x
	}
	return 0
}

// sign64 is NumPy's sign: ±1, 0 for ±0, NaN for NaN.
func sign64(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// signInt is Sign on integers: −1, 0 or 1.
func signInt[T array.Elem](x T) T {
	var one T = 1
	switch {
	case x > 0:
		return one
	case x < 0:
		return -one
	}
	return 0
}
