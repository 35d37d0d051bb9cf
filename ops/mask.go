package ops

import (
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Dense float32 masks and float32 <-> float64 conversions with the
// kernels of mask_amd64.s, for Compare, CompareScalar, IsNaN and Cast:
// their rows take these when every operand is dense (a scalar b
// repeated), the Go loops otherwise and for the last few elements.

// cmpPred is cmpF32's predicate for op, and whether a and b swap (a > b
// is b < a).
func cmpPred(op CmpOp) (pred int, swap bool) {
	switch op {
	case EQ:
		return 0, false
	case NE:
		return 1, false
	case LT:
		return 2, false
	case LE:
		return 3, false
	case GT:
		return 2, true
	}
	return 3, true // GE
}

// predUnordered is cmpF32's predicate for "either is NaN".
const predUnordered = 4

// cmpMask32 stores the mask of a op b in d, a and b dense; nt: with
// non-temporal stores from d's first 32-byte boundary.
func cmpMask32(op CmpOp, d []uint8, a, b []float32, nt bool) {
	a, b = a[:len(d)], b[:len(d)]
	h := ntHead(d, nt)
	cmpVec(op, d[:h], a[:h], b[:h])
	w := h + (len(d)-h)&^31
	if w > h {
		pred, swap := cmpPred(op)
		x, y := a, b
		if swap {
			x, y = b, a
		}
		cmpF32(unsafe.Pointer(&d[h]), unsafe.Pointer(&x[h]), unsafe.Pointer(&y[h]), w-h, pred, nt)
		kernelRuns.Add(1)
	}
	cmpVec(op, d[w:], a[w:], b[w:])
}

// ntHead is how many elements of d come before its first 32-byte
// boundary where nt, else 0.
func ntHead[T any](d []T, nt bool) int {
	if !nt || len(d) == 0 {
		return 0
	}
	var z T
	return min(int(-uintptr(unsafe.Pointer(&d[0]))&31)/int(unsafe.Sizeof(z)), len(d))
}

// cmpRow32 is cmpRow for dense float32 a and d, b dense or (sb 0) one
// value repeated.
func cmpRow32(op CmpOp, d []uint8, a []float32, b unsafe.Pointer, sb int, nt bool) {
	if sb == 1 {
		cmpMask32(op, d, a, unsafe.Slice((*float32)(b), len(d)), nt)
		return
	}
	var buf [scalarPiece]float32
	fillF32(buf[:min(len(buf), len(d))], *(*float32)(b))
	for i := 0; i < len(d); i += scalarPiece {
		m := min(scalarPiece, len(d)-i)
		cmpMask32(op, d[i:i+m], a[i:i+m], buf[:m], nt)
	}
}

// scalarPiece is how many copies of a scalar operand the dense rows fill
// once and reuse.
const scalarPiece = 1024

func fillF32(d []float32, v float32) {
	for i := range d {
		d[i] = v
	}
}

// isNaN32 stores the mask of NaN lanes of dense float32 a in d.
func isNaN32(d []uint8, a []float32, nt bool) {
	a = a[:len(d)]
	h := ntHead(d, nt)
	classVec(clsNaN, d[:h], a[:h])
	w := h + (len(d)-h)&^31
	if w > h {
		cmpF32(unsafe.Pointer(&d[h]), unsafe.Pointer(&a[h]), unsafe.Pointer(&a[h]), w-h, predUnordered, nt)
		kernelRuns.Add(1)
	}
	classVec(clsNaN, d[w:], a[w:])
}

// castDense converts dense float32 to float64 (with non-temporal stores
// where nt), or float64 to float32 when not saturating (a float32
// saturation clamps at ±MaxFloat32), with the kernels; false for other
// types.
func castDense[D, S array.Elem](d []D, s []S, sat, nt bool) bool {
	s = s[:len(d)]
	widen := kindOf[S]() == kFloat && sizeOf[S]() == 4 && kindOf[D]() == kFloat && sizeOf[D]() == 8
	narrow := kindOf[S]() == kFloat && sizeOf[S]() == 8 && kindOf[D]() == kFloat && sizeOf[D]() == 4 && !sat
	if !widen && !narrow {
		return false
	}
	h := 0
	if widen {
		h = ntHead(d, nt)
	}
	w := h + (len(d)-h)&^15
	for i := range h {
		d[i] = D(s[i])
	}
	if w > h {
		if widen {
			cvtF32F64(unsafe.Pointer(&d[h]), unsafe.Pointer(&s[h]), w-h, nt)
		} else {
			cvtF64F32(unsafe.Pointer(&d[h]), unsafe.Pointer(&s[h]), w-h)
		}
		kernelRuns.Add(1)
	}
	for i := w; i < len(d); i++ {
		d[i] = D(s[i])
	}
	return true
}
