package progfuzz

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// TestOnAfterClose: ops.On of a closed Array (or a view of one) must return
// an error wrapping array.ErrClosed or panic with one; it returned nil.
// Found by FuzzProgram (seed Close-0).
func TestOnAfterClose(t *testing.T) {
	openDevices()
	if clDev == nil {
		t.Skip("no OpenCL device:", devErr)
	}
	r := array.New[uint8](6, 4)
	v := r.Permute(1, 0)
	r.Close()
	for _, b := range []array.Buffer{r, v} {
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err, _ = p.(error)
				}
			}()
			err = ops.On(clDev, b)
		}()
		if !errors.Is(err, array.ErrClosed) {
			t.Errorf("ops.On(cl, %v of a closed root): got %v, want an error wrapping array.ErrClosed", b.Raw().Dims(), err)
		}
	}
}

// TestMatMulEmptyOperandOnOtherDevice: MatMul with an empty operand
// (extents 1×0) allocated on PoCL half 0 and dst on the default device.
// ops' placement skips empty operands, so the op should run (K = 0: dst
// becomes 0) or refuse with an error wrapping device.ErrForeign; it
// returns "array: the Array lives on … not …: device: allocation of
// another device", wrapping neither. Found by FuzzProgram
// (testdata/fuzz/FuzzProgram/577547ae59e75665).
func TestMatMulEmptyOperandOnOtherDevice(t *testing.T) {
	openDevices()
	if clDev == nil || len(halves) != 2 {
		t.Skip("needs OpenCL and PoCL halves")
	}
	a, err := array.Wrap(make([]float64, 0), []array.Dim{{Min: 3, Extent: 0, Stride: 1}, {Min: 3, Extent: 3, Stride: 0}})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewWithMins[float64]([]int{1, 2}, []int{1, 0})
	dst := array.NewWithMins[float64]([]int{1, 2}, []int{1, 3})
	defer b.Close()
	defer dst.Close()
	if err := ops.On(clDev, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := b.MoveTo(halves[0]); err != nil {
		t.Fatal(err)
	}
	err = ops.MatMul(dst, a, b)
	if err != nil && !errors.Is(err, device.ErrForeign) {
		t.Fatalf("ops.MatMul(dst on cl, host-only 0×3, empty on half0): %v; want success or an error wrapping device.ErrForeign", err)
	}
}
