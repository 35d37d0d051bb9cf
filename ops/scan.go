package ops

import (
	"unsafe"

	"github.com/resident-go/resident/array"
)

// CumSum stores in dst the running sums of a along axis ax: element
// i of a line is the sum of elements 0…i. dst has a's shape and may be a
// itself. Float sums accumulate in float64 (NumPy's in the element type,
// so float32 results may differ from NumPy's in the last bits); integer
// sums wrap in T.
func CumSum[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return scan(false, dst, a, axisDim(a, ax))
}

// CumProd stores in dst the running products of a along axis ax,
// as CumSum.
func CumProd[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	return scan(true, dst, a, axisDim(a, ax))
}

func scan[T array.Elem](prod bool, dst, a *array.Array[T], dim int) error {
	name := "CumSum"
	if prod {
		name = "CumProd"
	}
	ls := linesOf(name, lineSame, a, dim, dst)
	if ok, err := deviceScan(prod, &ls, dim, dst, a); ok {
		return err
	}
	if ls.lines() == 0 || ls.L == 0 {
		return nil
	}
	db, ab, err := lineHostPtrs(dst, a)
	if err != nil {
		return err
	}
	ls.forLines(lineGrain, func(_ int, off *[maxOps]int) {
		scanLine[T](prod, db, off[0], ls.st[0], ab, off[1], ls.st[1], ls.L)
	}, nil)
	return nil
}

// scanLine writes the running sums (or products) of n elements at
// ab+aoff (stride sa) to db+doff (stride sd); they may be the same
// elements, each read before it is written.
func scanLine[T array.Elem](prod bool, db unsafe.Pointer, doff, sd int, ab unsafe.Pointer, aoff, sa, n int) {
	d := span[T](db, doff, n, sd)
	s := span[T](ab, aoff, n, sa)
	switch kindOf[T]() {
	case kFloat:
		r := 0.0
		if prod {
			r = 1
		}
		for i := 0; i < n; i++ {
			if prod {
				r *= float64(s[i*sa])
			} else {
				r += float64(s[i*sa])
			}
			d[i*sd] = T(r)
		}
	case kHalf:
		r := 0.0
		if prod {
			r = 1
		}
		for i := 0; i < n; i++ {
			if prod {
				r *= float64(toF32(s[i*sa]))
			} else {
				r += float64(toF32(s[i*sa]))
			}
			d[i*sd] = fromF32[T](float32(r))
		}
	default:
		var r uint64
		if prod {
			r = 1
		}
		for i := 0; i < n; i++ {
			if prod {
				r *= uint64(s[i*sa])
			} else {
				r += uint64(s[i*sa])
			}
			d[i*sd] = T(r)
		}
	}
}
