package bench

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// SimBrighter is a Stage that adds k to every uint8 element, saturating at
// 255, "on" a simulated device: it computes in the sim allocation's memory
// and follows the same residency rules as an OpenCL pipeline call, so the
// benchmark's transfer counts can be checked without OpenCL.
func SimBrighter(dev *sim.Device, k uint8) Stage {
	s := simStage(dev, "sim_brighter", ImageOut[uint8](), func(dst, src []uint8) {
		for i, x := range src {
			dst[i] = x + min(k, 255-x)
		}
	})
	s.Ref = SaturatingAdd(k)
	return s
}

// SimMixed is the mixed chain (see Mixed) on a simulated device:
// sim_brighter, sim_cast_f32, sim_scale and sim_sum, each computing in the
// sim allocations' memory with the residency of an OpenCL call, with the
// same references and tolerances as Mixed's stages. The sum adds in
// float64, as ops' device sums do.
func SimMixed(dev *sim.Device, k uint8, scale float32) []Stage {
	cast := simStage(dev, "sim_cast_f32", ImageOut[float32](), func(dst []float32, src []uint8) {
		for i, x := range src {
			dst[i] = float32(x)
		}
	})
	mul := simStage(dev, "sim_scale", ImageOut[float32](), func(dst, src []float32) {
		for i, x := range src {
			dst[i] = x * scale
		}
	})
	sum := simStage(dev, "sim_sum", ScalarOut[float32](), func(dst, src []float32) {
		t := 0.0
		for _, x := range src {
			t += float64(x)
		}
		dst[0] = float32(t)
	})
	return withMixedRefs([]Stage{SimBrighter(dev, k), cast, mul, sum}, k, scale)
}

// simStage is a Stage that runs fn on the sim allocations of a dense S
// input and a dense D output: the input's elements are uploaded first if
// the host holds them newer, the output is left newest on the device, and
// host-only values end current on the host without a device copy they did
// not have before, as halide.Call leaves them.
func simStage[D, S Real](dev *sim.Device, name string, o Output, fn func(dst []D, src []S)) Stage {
	return Stage{Name: name, Out: o, Run: func(in, out array.Buffer) error {
		ri, ro := in.Raw(), out.Raw()
		n := ri.Len()
		if o.Scalar() {
			n = 1
		}
		if ri.Type() != array.TypeOf[S]() || ro.Type() != array.TypeOf[D]() || ro.Len() != n || !ri.Dense() || !ro.Dense() {
			return fmt.Errorf("bench: %s wants a dense %s input and a dense %s, got %s and %s", name, array.TypeOf[S](), outWant(o, ri), ri, ro)
		}
		src, dst := arrayIn[S](in), arrayIn[D](out)
		if src == nil || dst == nil {
			return fmt.Errorf("bench: %s wants Arrays or host views of them, got %T and %T", name, in, out)
		}
		ia, _ := ri.Allocation()
		oa, _ := ro.Allocation()
		hadIn, hadOut := ia != nil, oa != nil
		if err := src.CopyToDevice(dev); err != nil {
			return err
		}
		if err := dst.DeviceMalloc(dev); err != nil {
			return err
		}
		ia, io := ri.Allocation()
		oa, oo := ro.Allocation()
		srcMem, err := simSlice[S](ia.(*sim.Alloc).Mem(), io, ri.Len())
		if err != nil {
			return err
		}
		dstMem, err := simSlice[D](oa.(*sim.Alloc).Mem(), oo, ro.Len())
		if err != nil {
			return err
		}
		fn(dstMem, srcMem)
		// Record the device write as a pipeline call does, unless the
		// memory let go of the allocation meanwhile (its device closed).
		if now, _ := ro.Allocation(); now != oa {
			return fmt.Errorf("bench: %s: the device copy written was let go meanwhile (its device closed): %w", name, device.ErrClosed)
		}
		dst.SetHostDirty(false)
		dst.SetDeviceDirty(true)
		if out.HostOnly() {
			if err := dst.CopyToHost(); err != nil {
				return err
			}
			if !hadOut {
				if err := dst.DeviceFree(); err != nil {
					return err
				}
			}
		}
		if in.HostOnly() && !hadIn {
			return src.DeviceFree()
		}
		return nil
	}}
}

// arrayIn is the Array b is, or is a host view of; nil if b is neither
// or its elements are not T's.
func arrayIn[T array.Elem](b array.Buffer) *array.Array[T] {
	switch x := b.(type) {
	case *array.Array[T]:
		return x
	case array.HostView[T]:
		return x.Array()
	case array.ReadView[T]:
		return x.Array()
	}
	return nil
}

// outWant names the output a stage of output o wants for input in.
func outWant(o Output, in *array.Raw) string {
	if o.Scalar() {
		return o.String() + " output"
	}
	return fmt.Sprintf("%s output of %d elements", o.Type(), in.Len())
}

// simSlice is the n elements of T at byte offset off in a sim
// allocation's memory.
func simSlice[T Real](mem []byte, off, n int) ([]T, error) {
	size := int(unsafe.Sizeof(*new(T)))
	if n == 0 {
		return nil, nil
	}
	if off < 0 || off+n*size > len(mem) {
		return nil, fmt.Errorf("bench: %d elements of %d bytes at offset %d overrun a %d-byte sim allocation", n, size, off, len(mem))
	}
	p := unsafe.Pointer(&mem[off])
	if uintptr(p)%uintptr(size) != 0 {
		return nil, fmt.Errorf("bench: sim memory at offset %d is not aligned for %d-byte elements", off, size)
	}
	return unsafe.Slice((*T)(p), n), nil
}

// SimMixedFused is MixedFused on a simulated device: sim_brighter, then
// sim_cast_scale_sum computing Σ float32(x)·scale in one pass.
func SimMixedFused(dev *sim.Device, k uint8, scale float32) []Stage {
	fused := simStage(dev, "sim_cast_scale_sum", ScalarOut[float32](), func(dst []float32, src []uint8) {
		t := 0.0
		for _, x := range src {
			t += float64(float32(x) * scale)
		}
		dst[0] = float32(t)
	})
	return withMixedFusedRefs([]Stage{SimBrighter(dev, k), fused}, k, scale)
}
