package ops

import (
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Dense float32 and float64 masks and float32 <-> float64, int32
// conversions with the kernels of mask_amd64.s, for Compare,
// CompareScalar (float32), the class tests and Cast:
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

// cmpF32's predicates past cmpPred's: either is NaN; |a| is +Inf; |a|
// is finite. classPred maps the class tests to them.
const (
	predUnordered = 4 + iota
	predIsInf
	predIsFinite
)

var classPred = [...]int{clsNaN: predUnordered, clsInf: predIsInf, clsFinite: predIsFinite}

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

// cmpMask64 stores the mask of a op b in d for dense float64 a and b:
// cmpF64 over the first multiple of 32, cmpVec over the rest (all of it
// without the kernels).
func cmpMask64(op CmpOp, d []uint8, a, b []float64) {
	a, b = a[:len(d)], b[:len(d)]
	w := 0
	if useAsm {
		w = len(d) &^ 31
	}
	if w > 0 {
		pred, swap := cmpPred(op)
		x, y := a, b
		if swap {
			x, y = b, a
		}
		cmpF64(unsafe.Pointer(&d[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0]), w, pred)
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

// cmpRowF is cmpRow for dense float32 or float64 a and d, b dense or
// (sb 0) one value repeated: cmpMask32's or cmpMask64's kernel either way.
func cmpRowF[T float32 | float64](op CmpOp, d []uint8, a []T, b unsafe.Pointer, sb int, nt bool) {
	if sb == 1 {
		cmpMaskF(op, d, a, unsafe.Slice((*T)(b), len(d)), nt)
		return
	}
	var buf [scalarPiece]T
	fillSlice(buf[:min(len(buf), len(d))], *(*T)(b))
	for i := 0; i < len(d); i += scalarPiece {
		m := min(scalarPiece, len(d)-i)
		cmpMaskF(op, d[i:i+m], a[i:i+m], buf[:m], nt)
	}
}

// cmpMaskF is cmpMask32 or cmpMask64 by T (the float64 kernel has no
// non-temporal form: nt is for float32).
func cmpMaskF[T float32 | float64](op CmpOp, d []uint8, a, b []T, nt bool) {
	switch a := any(a).(type) {
	case []float32:
		cmpMask32(op, d, a, any(b).([]float32), nt)
	case []float64:
		cmpMask64(op, d, a, any(b).([]float64))
	}
}

// scalarPiece is how many copies of a scalar operand the dense rows fill
// once and reuse.
const scalarPiece = 1024

// fillSlice sets every element of d to v: the pieces that Fill, the
// scalar-operand rows and cmpRowF set one by one.
func fillSlice[T any](d []T, v T) {
	for i := range d {
		d[i] = v
	}
}

// class32 stores the mask of the class test op over dense float32 a in d.
func class32(op classOp, d []uint8, a []float32, nt bool) {
	a = a[:len(d)]
	h := ntHead(d, nt)
	classVec(op, d[:h], a[:h])
	w := h + (len(d)-h)&^31
	if w > h {
		cmpF32(unsafe.Pointer(&d[h]), unsafe.Pointer(&a[h]), unsafe.Pointer(&a[h]), w-h, classPred[op], nt)
		kernelRuns.Add(1)
	}
	classVec(op, d[w:], a[w:])
}

// castDense converts dense float32 to float64 (with non-temporal stores
// where nt), float64 to float32 when not saturating (a float32
// saturation clamps at ±MaxFloat32), float32 to int32 (the lanes the
// kernel leaves at math.MinInt32 redone by narrowFloat: out of range,
// NaN; non-temporal stores where nt too) and int32 to float32, with the
// kernels; false for other types.
func castDense[D, S array.Elem](d []D, s []S, sat, nt bool) bool {
	s = s[:len(d)]
	sk, dk, ss, ds := kindOf[S](), kindOf[D](), sizeOf[S](), sizeOf[D]()
	var k func(d, a unsafe.Pointer, n int)
	switch {
	case sk == kFloat && ss == 4 && dk == kFloat && ds == 8:
		k = func(d, a unsafe.Pointer, n int) { cvtF32F64(d, a, n, nt) }
	case sk == kFloat && ss == 8 && dk == kFloat && ds == 4 && !sat:
		k, nt = cvtF64F32, false
	case sk == kFloat && ss == 4 && dk == kSigned && ds == 4:
		k = func(dp, a unsafe.Pointer, n int) {
			if cvtF32I32(dp, a, n, nt) != 0 {
				di, si := unsafe.Slice((*int32)(dp), n), unsafe.Slice((*float32)(a), n)
				for i, v := range di {
					if v == math.MinInt32 {
						narrowFloat(di[i:i+1], []float64{float64(si[i])}, kSigned, sat)
					}
				}
			}
		}
	case sk == kSigned && ss == 4 && dk == kFloat && ds == 4:
		k, nt = cvtI32F32, false
	default:
		return false
	}
	h := ntHead(d, nt)
	w := h + (len(d)-h)&^15
	var buf castBuf // the ends, with the Go loop's semantics (castVec)
	castVec(d[:h], s[:h], sat, &buf)
	if w > h {
		k(unsafe.Pointer(&d[h]), unsafe.Pointer(&s[h]), w-h)
		kernelRuns.Add(1)
	}
	castVec(d[w:], s[w:], sat, &buf)
	return true
}
