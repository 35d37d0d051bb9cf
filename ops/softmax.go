package ops

import (
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Softmax stores in dst exp(x − m) / Σ exp(x − m) of a along axis
// ax, m the line's maximum, so that no exp overflows (a line with a NaN
// or +Inf gives NaNs, as NumPy's formula does). dst has a's shape and may
// be a itself. Float types only; the sum is in float64, and for float32
// each exp(x − m) is float32 Exp of the float32 difference, as NumPy's
// float32 formula computes it.
func Softmax[T array.Elem](dst, a *array.Array[T], ax array.Axis) error {
	dim := axisDim(a, ax)
	if err := floatOnly[T]("Softmax"); err != nil {
		return err
	}
	ls := linesOf("Softmax", lineSame, a, dim, dst)
	if ok, err := deviceSoftmax(&ls, dim, dst, a); ok {
		return err
	}
	if ls.lines() == 0 || ls.L == 0 {
		return nil
	}
	db, ab, err := lineHostPtrs(dst, a)
	if err != nil {
		return err
	}
	ex := expOf[T]()
	n, sa, sd := ls.L, ls.st[1], ls.st[0]
	ls.forLines(lineGrain, func(_ int, off *[maxOps]int) {
		if sa == 1 && sd == 1 {
			switch x := any(unsafe.Slice(ptr[T](ab, off[1]), n)).(type) {
			case []float32:
				softmaxF32(unsafe.Slice((*float32)(unsafe.Pointer(ptr[T](db, off[0]))), n), x)
				return
			case []float64:
				softmaxF64(unsafe.Slice((*float64)(unsafe.Pointer(ptr[T](db, off[0]))), n), x)
				return
			}
		}
		m := math.Inf(-1)
		eachBlock[T](ab, off[1], sa, n, func(_ int, xs []float64) {
			for _, x := range xs {
				if x > m || x != x {
					m = x
				}
			}
		})
		if m != m {
			m = math.NaN()
		}
		// e = exp(x − m) into dst (rounded to T: the sum uses the unrounded
		// e, which for float32 is already a float32)
		d := span[T](db, off[0], n, sd)
		var s float64
		half := kindOf[T]() == kHalf
		eachBlock[T](ab, off[1], sa, n, func(i int, xs []float64) {
			for q, x := range xs {
				e := ex(x, m)
				s += e
				if !half {
					d[(i+q)*sd] = f64To[T](e)
				}
			}
		})
		r := 1 / s
		if kindOf[T]() == kFloat && sizeOf[T]() == 4 {
			r = float64(float32(r)) // softmaxF32's: d·r then rounds as its float32 product
		}
		if half { // a second rounding would show: exp again, element by element (in place too)
			eachBlock[T](ab, off[1], sa, n, func(i int, xs []float64) {
				for q, x := range xs {
					d[(i+q)*sd] = f64To[T](ex(x, m) * r)
				}
			})
			return
		}
		for i := 0; i < n; i++ {
			d[i*sd] = f64To[T](f64Of(d[i*sd]) * r)
		}
	}, nil)
	return nil
}

// f64Of is a float T as float64.
func f64Of[T array.Elem](x T) float64 {
	if kindOf[T]() == kHalf {
		return float64(toF32(x))
	}
	return float64(x)
}
