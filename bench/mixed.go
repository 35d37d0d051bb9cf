package bench

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/ops"
)

// DefaultScale is the mixed chain's default scale, 1/255: it maps the
// brightened bytes onto [0, 1].
const DefaultScale = 1.0 / 255

// Tolerances of the mixed chain's float stages against float64 host
// references. Scaling rounds each product to float32 (relative error ≤
// 2⁻²⁴ ≈ 6e-8, twice that with the rounding of the scale itself); the sum
// adds float32 values whose total a float32 holds to 6e-8, and leaves room
// for a device that accumulates in float32.
const (
	ScaleTol = 1e-6
	SumTol   = 1e-5
)

// Mixed is the chain that mixes a Halide stage with ops, on the default
// OpenCL device (halide.DefaultDevice("OpenCL")), which it returns:
//
//   - brighter: the Halide pipeline, uint8 → uint8, saturating + k;
//   - cast_f32: ops.CastWrap to float32 (exact for uint8);
//   - scale: ops.BinaryScalar by scale (OpMul), float32;
//   - sum: ops.Sum of every element into a float32 scalar (row sums into
//     a scratch vector the stage keeps on the device, then their sum).
//
// Resident, it uploads the uint8 image once and downloads only the
// 4-byte sum. Every stage has a float64 reference; the check asks for
// equality up to the cast, ScaleTol after the scale and SumTol for the sum.
func Mixed(k uint8, scale float32) ([]Stage, device.Device, error) {
	dev, err := halide.DefaultDevice("OpenCL")
	if err != nil {
		return nil, nil, err
	}
	ss, err := MixedOn(dev, k, scale)
	return ss, dev, err
}

// MixedOn is the mixed chain on dev: the Halide stage (BrighterOn: the
// OpenCL or the CUDA pipeline) runs where its input lives, the ops stages
// on dev when given host views. Each call makes stages of its own (the
// sum keeps its row sums on its device).
func MixedOn(dev device.Device, k uint8, scale float32) ([]Stage, error) {
	b, err := BrighterOn(dev, k)
	if err != nil {
		return nil, err
	}
	ss := []Stage{
		b,
		OpStage(dev, "cast_f32", ImageOut[float32](), ops.CastWrap[float32, uint8]),
		OpStage(dev, "scale", ImageOut[float32](), func(dst, src *array.Array[float32]) error {
			return ops.BinaryScalar(dst, src, scale, ops.OpMul)
		}),
		OpStage(dev, "sum", ScalarOut[float32](), sumAll()),
	}
	return withMixedRefs(ss, k, scale), nil
}

// withMixedRefs gives the four stages of a mixed chain (Mixed's or
// SimMixed's) their references and tolerances. The scale reference
// multiplies by the float32 scale the stages use, in float64.
func withMixedRefs(ss []Stage, k uint8, scale float32) []Stage {
	s := float64(scale)
	ss[0].Ref = SaturatingAdd(k)
	ss[1].Ref = func(dst, src []float64) { copy(dst, src) }
	ss[2].Ref, ss[2].Tol = func(dst, src []float64) {
		for i, x := range src {
			dst[i] = x * s
		}
	}, ScaleTol
	ss[3].Ref, ss[3].Tol = func(dst, src []float64) {
		t := 0.0
		for _, x := range src {
			t += x
		}
		dst[0] = t
	}, SumTol
	return ss
}

// sumAll returns an op that stores in dst, a scalar (ScalarOut), the sum
// of every element of a 2-D src: ops.Sum along dimension 0 into one
// float32 per row (each row's elements are contiguous, so a device reads
// them coalesced), then along the rows. The vector of row sums is kept between calls, on the
// device once a device has written it.
func sumAll() func(dst, src *array.Array[float32]) error {
	var rows *array.Array[float32]
	return func(dst, src *array.Array[float32]) error {
		if src.Rank() != 2 || dst.Rank() != 0 {
			return fmt.Errorf("bench: sum wants a 2-D input and a 0-D output, got %s and %s", src, dst)
		}
		if h := src.Dim(1).Extent; rows == nil || rows.Len() != h {
			if rows != nil {
				rows.Close()
			}
			rows = array.New[float32](h)
		}
		if err := ops.Sum(rows, src, -1); err != nil {
			return err
		}
		return ops.Sum(dst, rows, -1)
	}
}

// OpStage is a Stage that runs op, an ops function with its destination
// first, on dev. Given device-aware Arrays it calls op on them, and ops
// runs it where they are. Given host views of device-aware Arrays (as
// RoundTrip passes), it does what halide.Call does with host-only values:
// it uploads the input (ops.On), runs op on dev, copies the output home
// and frees the device copies the Arrays did not have before; each of
// those transfers is counted in dev's Stats.
func OpStage[D, S Real](dev device.Device, name string, out Output, op func(dst *array.Array[D], src *array.Array[S]) error) Stage {
	return Stage{Name: name, Out: out, Run: func(in, out array.Buffer) error {
		src, inView := arrayOf[S](in)
		dst, outView := arrayOf[D](out)
		if src == nil || dst == nil {
			return fmt.Errorf("bench: stage %s wants a %s input and a %s output, device-aware Arrays or host views of them; got %T and %T", name, array.TypeOf[S](), array.TypeOf[D](), in, out)
		}
		if !inView && !outView {
			return op(dst, src)
		}
		hadIn, hadOut := allocated(src), allocated(dst)
		if inView {
			if err := ops.On(dev, src); err != nil {
				return err
			}
		}
		if err := op(dst, src); err != nil {
			return err
		}
		if outView {
			if err := dst.CopyToHost(); err != nil {
				return err
			}
			if !hadOut {
				if err := dst.DeviceFree(); err != nil {
					return err
				}
			}
		}
		if inView && !hadIn {
			return src.DeviceFree()
		}
		return nil
	}}
}

// arrayOf returns the device-aware Array b is, or is a host view of, and
// whether b is a view; nil if b is neither (or over caller-held memory,
// which ops keep on the host).
func arrayOf[T Real](b array.Buffer) (a *array.Array[T], view bool) {
	switch x := b.(type) {
	case *array.Array[T]:
		a = x
	case array.HostView[T]:
		a, view = x.Array(), true
	case array.ReadView[T]:
		a, view = x.Array(), true
	}
	if a == nil || a.HostOnly() {
		return nil, false
	}
	return a, view
}

func allocated[T Real](a *array.Array[T]) bool {
	alloc, _ := a.Raw().Allocation()
	return alloc != nil
}

// MixedFused is the mixed chain with its ops stages fused (ops.Expr) on
// the default OpenCL device: brighter, then cast_scale_sum, which is
// ops.EvalSum of AsType[float32](image).Scale(scale) into a float32
// scalar: one launch (its last work-group joins the partial sums; a
// second launch with RESIDENT_REDUCE_ONEPASS=0), reading the image once instead
// of writing and reading a float32 image three times. Same result as
// Mixed's last stage, within SumTol.
func MixedFused(k uint8, scale float32) ([]Stage, device.Device, error) {
	dev, err := halide.DefaultDevice("OpenCL")
	if err != nil {
		return nil, nil, err
	}
	ss, err := MixedFusedOn(dev, k, scale)
	return ss, dev, err
}

// MixedFusedOn is MixedFused on dev.
func MixedFusedOn(dev device.Device, k uint8, scale float32) ([]Stage, error) {
	b, err := BrighterOn(dev, k)
	if err != nil {
		return nil, err
	}
	ss := []Stage{b, OpStage(dev, "cast_scale_sum", ScalarOut[float32](), func(dst *array.Array[float32], src *array.Array[uint8]) error {
		return ops.EvalSum(dst, ops.AsType[float32](ops.In(src)).Scale(scale))
	})}
	return withMixedFusedRefs(ss, k, scale), nil
}

// withMixedFusedRefs gives a fused mixed chain's two stages their
// references: brighter's, and the sum of the scaled elements (SumTol).
func withMixedFusedRefs(ss []Stage, k uint8, scale float32) []Stage {
	s := float64(scale)
	ss[0].Ref = SaturatingAdd(k)
	ss[1].Ref, ss[1].Tol = func(dst, src []float64) {
		t := 0.0
		for _, x := range src {
			t += x * s
		}
		dst[0] = t
	}, SumTol
	return ss
}
