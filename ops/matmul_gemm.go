package ops

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// MatElem is the element types MatMulWith handles.
type MatElem interface {
	float32 | float64 | array.Float16 | array.BFloat16
}

// MatMulWith is MatMul with an explicit precision, for float32, float64,
// Float16 and BFloat16 (same shapes and dimension order as MatMul).
// device.PrecisionExact computes in the element type's own arithmetic;
// float16 and bfloat16 products are exact and summed in float32, the sum
// rounded once into dst. device.PrecisionTF32 lets float32 products use
// TF32 tensor cores where the operands' device has them (device/cuda);
// elsewhere the product is computed exactly: asking for a lower
// precision allows it, and nothing lowers precision unasked. Float16 and
// BFloat16 operands run on a device.Gemmer where they are resident, else
// as float32 (CastWrap to float32 temporaries, MatMul, CastWrap back:
// wherever those ops run, under ops' rule).
func MatMulWith[T MatElem](dst, a, b *array.Array[T], p device.Precision) error {
	if err := closedOperand("MatMul", rawOf(dst), rawOf(a), rawOf(b)); err != nil {
		return err
	}
	if a.Len() != 0 && b.Len() != 0 && dst.Len() != 0 {
		if ok, err := gemmPlaced(dst, a, b, p); ok {
			return err
		}
	}
	switch d := any(dst).(type) {
	case *array.Array[float32]:
		return MatMul(d, any(a).(*array.Array[float32]), any(b).(*array.Array[float32]))
	case *array.Array[float64]:
		return MatMul(d, any(a).(*array.Array[float64]), any(b).(*array.Array[float64]))
	}
	return matMulViaF32(dst, a, b)
}

// matMulViaF32 computes a 16-bit MatMul in float32 temporaries.
func matMulViaF32[T MatElem](dst, a, b *array.Array[T]) error {
	var mm mmJob
	mm.check(dst, a, b) // shape errors panic before anything is made
	var tmp [3]*array.Array[float32]
	defer func() {
		for _, t := range tmp {
			if t != nil {
				t.Close()
			}
		}
	}()
	for i, x := range [3]*array.Array[T]{dst, a, b} {
		tmp[i] = array.New[float32](x.Extents()...)
		if i > 0 {
			if err := CastWrap(tmp[i], x); err != nil {
				return err
			}
		}
	}
	if err := MatMul(tmp[0], tmp[1], tmp[2]); err != nil {
		return err
	}
	return CastWrap(dst, tmp[0])
}

// gemmPlaced runs dst = a·b on the operands' device when placement picks
// a device.Gemmer; ok false leaves the op to the caller (no such device,
// or one without a routine for it).
func gemmPlaced[T array.Elem](dst, a, b *array.Array[T], p device.Precision) (bool, error) {
	d, err := placement("MatMul", rawOf(dst), rawOf(a), rawOf(b))
	if err != nil || d == nil {
		return false, nil // the caller asks again and reports the error
	}
	g, ok := d.(device.Gemmer)
	if !ok || !device.Computes(d) {
		return false, nil
	}
	elem, ok := gemmElemOf(array.TypeOf[T]())
	if !ok {
		return false, nil
	}
	var mm mmJob
	mm.check(dst, a, b)
	if mm.k == 0 || !(mm.sdi == 1 || mm.sdj == 1 || mm.m == 1 || mm.n == 1) {
		return false, nil // the Gemmer's refusals, known before anything moves
	}
	for _, r := range []*array.Raw{a.Raw(), b.Raw()} {
		if res().NeedsUpload(r, g) {
			if err := plumb.CheckAutomatic(g, fmt.Sprintf("upload of a host-newer operand of ops.MatMul on %s", g.Name())); err != nil {
				return true, err
			}
		}
	}
	for _, r := range []*array.Raw{a.Raw(), b.Raw()} {
		if err := res().SyncDevice(r, g); err != nil {
			return true, fmt.Errorf("ops.MatMul: %w", err)
		}
	}
	if err := res().Alloc(dst.Raw(), g); err != nil {
		return true, fmt.Errorf("ops.MatMul: %w", err)
	}
	var ms [3]device.Matrix
	for i, r := range []*array.Raw{a.Raw(), b.Raw(), dst.Raw()} {
		al, off := r.Allocation()
		if al == nil || al.Device() != device.Device(g) {
			return true, fmt.Errorf("ops.MatMul: operand %d has no allocation on %s: %w", i, g.Name(), device.ErrForeign)
		}
		ms[i] = device.Matrix{Alloc: al, Off: off}
	}
	ms[0].Row, ms[0].Col, ms[0].Batch = mm.sai, mm.sak, mm.sab
	ms[1].Row, ms[1].Col, ms[1].Batch = mm.sbk, mm.sbj, mm.sbb
	ms[2].Row, ms[2].Col, ms[2].Batch = mm.sdi, mm.sdj, mm.sdb
	ok, err = g.Gemm(device.Gemm{Elem: elem, Precision: p, M: mm.m, N: mm.n, K: mm.k, Batch: mm.batch,
		A: ms[0], B: ms[1], Dst: ms[2]})
	if err != nil {
		return true, fmt.Errorf("ops.MatMul on %s: %w", g.Name(), err)
	}
	if ok {
		return true, res().WroteDevice(dst.Raw(), nil)
	}
	return false, nil
}

func gemmElemOf(t array.Type) (device.GemmElem, bool) {
	switch {
	case t.Code == array.Float && t.Bits == 32:
		return device.GemmF32, true
	case t.Code == array.Float && t.Bits == 64:
		return device.GemmF64, true
	case t.Code == array.Float && t.Bits == 16:
		return device.GemmF16, true
	case t.Code == array.BFloat && t.Bits == 16:
		return device.GemmBF16, true
	}
	return 0, false
}
