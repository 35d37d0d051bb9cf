package ops_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops"
)

// TestAllDims: reductions over AllDims of drawn views (permuted, cropped)
// on the host and on a compute sim device against a model: a dense copy
// in dimension-0-innermost order, whose memory order is NumPy's C order
// of the view. ArgMax and ArgMin give the model's flat index of the first
// extreme (values tie, so a permuted view's first in memory order would
// differ), Sum its float64 sum, Std its two-pass deviation; the dst
// form keeps a device dst on the device, where the reduction ran.
func TestAllDims(t *testing.T) {
	r := draw.Rand(t)
	for round := range 40 {
		ext, n := draw.Extents(r, 4, 6)
		rank := len(ext)
		vals := make([]float32, n)
		for i, p := range r.Perm(n) {
			vals[i] = float32(p%max(1, n/3)) - float32(n)/9 // ties: the first in C order wins
		}
		root, err := array.FromSlice(vals, ext...).Compact() // device-aware
		must(t, err)
		order := r.Perm(rank)
		v := root.Permute(order...)
		if d := r.IntN(rank); v.Dim(d).Extent > 1 {
			v = v.Crop(d, v.Dim(d).Min+1, v.Dim(d).Extent-1)
		}
		model := array.New[float32](v.Extents()...)
		must(t, ops.Copy(model, v))
		mv, err := model.HostReadOnly()
		must(t, err)
		data := mv.Data()
		argmax, argmin, sum := 0, 0, 0.0
		for i, x := range data {
			if x > data[argmax] {
				argmax = i
			}
			if x < data[argmin] {
				argmin = i
			}
			sum += float64(x)
		}
		mean := sum / float64(len(data))
		ss := 0.0
		for _, x := range data {
			ss += (float64(x) - mean) * (float64(x) - mean)
		}
		std := math.Sqrt(ss / float64(len(data)))

		var dev device.Device
		if round%2 == 1 {
			s := sim.NewCompute("alldims", 0)
			t.Cleanup(func() { s.Close() })
			must(t, ops.On(s, root))
			must(t, ops.BinaryScalar(root, root, 0, ops.OpAdd)) // newest on the device
			dev = s
		}
		runs := func() int {
			if s, ok := dev.(*sim.Device); ok {
				return s.Runs()
			}
			return 0
		}
		before := runs()
		var st0 device.Stats
		if dev != nil {
			st0 = dev.(*sim.Device).Stats()
		}
		if got, err := ops.Value(ops.ArgMax, v); err != nil || got != int64(argmax) {
			t.Fatalf("round %d %v: Value(ArgMax) = %d, %v; want %d", round, v, got, err, argmax)
		}
		if got, err := ops.Value(ops.ArgMin, v); err != nil || got != int64(argmin) {
			t.Fatalf("round %d %v: Value(ArgMin) = %d, %v; want %d", round, v, got, err, argmin)
		}
		if got, err := ops.Value(ops.Sum, v); err != nil || math.Abs(float64(got)-sum) > 1e-3 {
			t.Fatalf("round %d %v: Value(Sum) = %v, %v; want %v", round, v, got, err, sum)
		}
		if got, err := ops.ValueOp(ops.Std, v, 0); err != nil || math.Abs(float64(got)-std) > 1e-4*max(1, std) {
			t.Fatalf("round %d %v: ValueOp(Std) = %v, %v; want %v", round, v, got, err, std)
		}
		if dev != nil && runs() == before {
			t.Fatalf("round %d: the reductions of a %s view ran no work there", round, dev.Name())
		}
		if dev != nil { // the values come home as Go values, not as copies
			if s := dev.(*sim.Device).Stats().Sub(st0); s.D2HCalls != 0 || s.H2DCalls != 0 {
				t.Fatalf("round %d: the reductions moved data: %v", round, s)
			}
		}
		dst := array.New[float32]()
		if dev != nil {
			must(t, ops.On(dev, dst))
		}
		must(t, ops.Max(dst, v, ops.AllDims))
		if dst.Device() != dev {
			t.Fatalf("round %d: Max over AllDims left dst on %v, want %v", round, dst.Device(), dev)
		}
		dv, err := dst.HostReadOnly()
		must(t, err)
		if dv.At() != data[argmax] {
			t.Fatalf("round %d: Max over AllDims = %v, want %v", round, dv.At(), data[argmax])
		}
		dst.Close()
		model.Close()
		root.Close()
	}
}

// TestAllDimsErrors: a dst of more than one element panics with
// ErrShape; Min over AllDims of nothing is ErrShape, Sum's 0; a closed
// dst is ErrClosed before anything runs.
func TestAllDimsErrors(t *testing.T) {
	a := array.New[float32](3, 2)
	func() {
		defer func() {
			if err, _ := recover().(error); !errors.Is(err, array.ErrShape) {
				t.Errorf("Sum into 2 elements over AllDims: panic %v, want ErrShape", err)
			}
		}()
		ops.Sum(array.New[float32](2), a, ops.AllDims)
	}()
	empty := array.New[float32](0, 3)
	if _, err := ops.Value(ops.Min, empty); !errors.Is(err, array.ErrShape) {
		t.Errorf("Value(Min) of nothing: %v, want ErrShape", err)
	}
	if v, err := ops.Value(ops.Sum, empty); err != nil || v != 0 {
		t.Errorf("Value(Sum) of nothing: %v, %v; want 0", v, err)
	}
	dst := array.New[float32]()
	dst.Close()
	if err := ops.Sum(dst, a, ops.AllDims); !errors.Is(err, device.ErrClosed) {
		t.Errorf("Sum into a closed dst over AllDims: %v, want ErrClosed", err)
	}
}

// TestValueConcurrent: Value's pooled 0-D dsts are one per call, so
// goroutines summing their own Arrays at once each get their own sum.
func TestValueConcurrent(t *testing.T) {
	const g = 8
	errs := make(chan error, g)
	for k := range g {
		go func() {
			a := array.Full(float64(k), 100)
			defer a.Close()
			for range 200 {
				s, err := ops.Value(ops.Sum, a)
				if err == nil && s != float64(100*k) {
					err = fmt.Errorf("goroutine %d: Value(Sum) = %v, want %d", k, s, 100*k)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range g {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
