package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// coverage is a gorgonia op as a graph y = op(x), its loss Σy, and the
// outcome on the device engine: where it runs and what the second run
// (under the transfer guard) moves, or the error that refuses it.
var coverage = []struct {
	name     string
	op       func(x, b *gorgonia.Node) (*gorgonia.Node, error)
	refused  string // substring of the error, "" when it runs
	h2d, d2h int64  // transfers of the second run (the loss's Σ is one D2H)
	// host: the op runs on the host (a counted copy of device-newer
	// data), so the guarded second run fails; unguarded it matches.
	host bool
}{
	{"Mul (matmul) by xᵀ", func(x, b *gorgonia.Node) (*gorgonia.Node, error) {
		return gorgonia.Mul(x, gorgonia.Must(gorgonia.Transpose(x)))
	}, "", 1, 1, false}, // tensor's SafeT copies x with the engine's Memcpy: on the device
	{"Rectify", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Rectify(x) }, "", 1, 1, false},
	{"LeakyRelu", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.LeakyRelu(x, 0.1) }, "", 1, 2, false},
	{"Tanh", wrap(gorgonia.Tanh), "", 1, 1, false},
	{"Exp", wrap(gorgonia.Exp), "", 1, 1, false},
	{"Square", wrap(gorgonia.Square), "", 1, 1, false},
	{"Max along 1", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Max(x, 1) }, "", 1, 1, false},
	{"SoftMax", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.SoftMax(x) }, "", 1, 1, false},
	{"BroadcastAdd (bias)", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.BroadcastAdd(x, b, nil, []byte{0}) }, "", 1, 1, false},
	{"Transpose", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Transpose(x) }, "", 2, 1, false}, // gorgonia makes the gradient seed on the host (ones) for both Σ and the transposed back-pass
	{"Dropout", func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Dropout(x, 0) }, "", 1, 1, false},
	{"Neg", wrap(gorgonia.Neg), "", 1, 1, false},
	{"Abs", wrap(gorgonia.Abs), "", 1, 1, false},
	{"Cube", wrap(gorgonia.Cube), "", 1, 1, false},
	{"HadamardProd, Sub, HadamardDiv", func(x, b *gorgonia.Node) (*gorgonia.Node, error) {
		sq := gorgonia.Must(gorgonia.HadamardProd(x, x))
		return gorgonia.HadamardDiv(gorgonia.Must(gorgonia.Sub(sq, x)), sq)
	}, "", 1, 1, false},
	// tensor's Map: known Go functions run as their device op; others on
	// the host (a counted copy home, refused under the guard).
	{"Sigmoid", wrap(gorgonia.Sigmoid), "", 1, 1, false},
	{"Sin", wrap(gorgonia.Sin), "", 1, 1, false},
	{"Log1p", wrap(gorgonia.Log1p), "", 1, 1, false}, // the engine binds math.Log1p (ops/engine/ops_gen.go)
	{"Softplus", wrap(gorgonia.Softplus), "", 0, 0, true},
}

func wrap(f func(*gorgonia.Node) (*gorgonia.Node, error)) func(x, b *gorgonia.Node) (*gorgonia.Node, error) {
	return func(x, b *gorgonia.Node) (*gorgonia.Node, error) { return f(x) }
}

// run builds and runs y = op(x), loss Σy, twice (the second under the
// guard on the device engine) and returns the loss, x's gradient and the
// second run's transfers.
func runOp(e *engine.Engine, op func(x, b *gorgonia.Node) (*gorgonia.Node, error), guard bool) (float32, []float32, device.Stats, error) {
	xv := []float32{1, -2, 3, 4, -5, 6, 7, 8, -9, 1, 2, 3}
	bv := []float32{0.5, -1, 2}
	mk := func(vals []float32, shape ...int) *tensor.Dense {
		if e == nil {
			return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(vals)))
		}
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...), tensor.WithEngine(e))
		h, _ := engine.Host(d)
		copy(h.Data().([]float32), vals)
		return d
	}
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(4, 3), gorgonia.WithName("x"), gorgonia.WithValue(mk(xv, 4, 3)))
	b := gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("b"), gorgonia.WithValue(mk(bv, 3)))
	y, err := op(x, b)
	if err != nil {
		return 0, nil, device.Stats{}, err
	}
	loss, err := gorgonia.Sum(y)
	if err != nil {
		return 0, nil, device.Stats{}, err
	}
	if _, err := gorgonia.Grad(loss, x); err != nil {
		return 0, nil, device.Stats{}, err
	}
	var lv gorgonia.Value
	gorgonia.Read(loss, &lv)
	opts := []gorgonia.VMOpt{gorgonia.BindDualValues(x)}
	if e != nil {
		opts = append(opts, gorgonia.WithEngine(e))
	}
	vm := gorgonia.NewTapeMachine(g, opts...)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		return 0, nil, device.Stats{}, err
	}
	vm.Reset()
	var moved device.Stats
	if e != nil {
		before, work := e.Device().Stats(), e.HostWork()
		_, f0 := uffd.Fills()
		was := device.SetDeviceGuard(e.Device(), guard && uffd.Available()) // else results come home
		err = vm.RunAll()
		device.SetDeviceGuard(e.Device(), was)
		moved = e.Device().Stats().Sub(before)
		// Not the op's: registers too small to let go, copied home after
		// the ops that write them, and fills of dropped host copies that
		// gorgonia's tape machine touches (zeroing gradients).
		_, f1 := uffd.Fills()
		homed := e.HostWork().Sub(work).Homed
		moved.D2HCalls -= homed + int64(f1-f0)
		if err != nil {
			return 0, nil, moved, err
		}
	} else if err := vm.RunAll(); err != nil {
		return 0, nil, moved, err
	}
	l, err := scalar(lv)
	if err != nil {
		return 0, nil, moved, err
	}
	gv, err := x.Grad()
	if err != nil {
		return 0, nil, moved, err
	}
	gd := gv.(*tensor.Dense)
	if e != nil {
		if gd, err = engine.Host(gd); err != nil {
			return 0, nil, moved, err
		}
	}
	return l, slices.Clone(gd.Data().([]float32)), moved, nil
}

// The coverage table of the README: each op's loss and gradient match the
// standard engine's where it runs, its second run moves what the table
// says, and refused ops fail with the error it names.
func TestCoverage(t *testing.T) {
	dev, err := opencl.Default()
	if err != nil {
		t.Skip(err)
	}
	e := engine.New(dev)
	defer e.Close()
	for _, c := range coverage {
		t.Run(c.name, func(t *testing.T) {
			l, g, moved, err := runOp(e, c.op, true)
			if c.host && uffd.Available() { // else the operands came home with their ops
				if err == nil || !strings.Contains(err.Error(), device.ErrTransferGuard.Error()) { // gorgonia wraps it as text
					t.Fatalf("guarded: %v, want the guard's refusal of the host fallback's copy", err)
				}
				l, g, moved, err = runOp(e, c.op, false)
			}
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("got %v, want refused with %q", err, c.refused)
				}
				return
			}
			if err != nil {
				if strings.Contains(err.Error(), device.ErrTransferGuard.Error()) {
					t.Fatalf("the second run needed a transfer: %v", err)
				}
				t.Fatal(err)
			}
			wl, wg, _, err := runOp(nil, c.op, false)
			if err != nil {
				t.Fatal(err)
			}
			near := func(a, b float32) bool {
				nan := math.IsNaN(float64(a))
				return nan && math.IsNaN(float64(b)) || !nan && math.Abs(float64(a-b)) <= 1e-5*max(1, math.Abs(float64(b)))
			}
			if !near(l, wl) || !slices.EqualFunc(g, wg, near) {
				t.Fatalf("loss %v gradient %v; standard engine %v %v", l, g, wl, wg)
			}
			if !c.host && uffd.Available() && (moved.H2DCalls != c.h2d || moved.D2HCalls != c.d2h) {
				t.Fatalf("second run moved %v, want %d uploads and %d downloads", moved, c.h2d, c.d2h)
			}
			t.Logf("%s: %d uploads (%d B), %d downloads (%d B)", c.name, moved.H2DCalls, moved.H2DBytes, moved.D2HCalls, moved.D2HBytes)
		})
	}
}
