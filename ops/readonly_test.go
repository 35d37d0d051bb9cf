package ops_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// outputNames are closedEnv's fields that ops write.
var outputNames = []string{"dst", "rdst", "idst", "bdst", "cdst", "mask"}

// allocating are the functions without New in their names that make their
// result (their first operand is an input).
var allocating = []string{"Extract", "Meshgrid", "MeshgridIJ", "Bincount", "BincountWeights"}

// readsHome are the dst-first functions that read inputs on the host on
// purpose: Put's indices (and values) say which elements it writes.
var readsHome = []string{"Put"}

// outputOf is the operand case c writes ("" for none): its first, for the
// dst-first functions.
func outputOf(c closedCase) string {
	if len(c.ops) == 0 || strings.HasPrefix(c.name, "New") || slices.Contains(allocating, c.name) || !slices.Contains(outputNames, c.ops[0]) {
		return ""
	}
	return c.ops[0]
}

// broadcastOf returns a read-only view of x's shape: a broadcast of a new
// row of x's innermost extent holding row (repeated as needed), host-new,
// or on d device-dirty when d is not nil.
func broadcastOf[T array.Elem](t *testing.T, d device.Device, x *array.Array[T], row func(i int) T) *array.Array[T] {
	n := 1
	if x.Rank() > 0 {
		n = x.Dim(0).Extent
	}
	src := array.New[T](n)
	t.Cleanup(func() { src.Close() })
	h, _ := src.Host()
	for i := range n {
		h.Set(row(i), i)
	}
	if d != nil {
		if err := ops.On(d, src); err != nil {
			t.Fatal(err)
		}
		src.SetDeviceDirty(true)
	}
	v, err := src.BroadcastTo(x.Shape()...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setField replaces closedEnv's field name by f(field).
func setField(e *closedEnv, name string, f32 func(*array.Array[float32]) *array.Array[float32],
	i64 func(*array.Array[int64]) *array.Array[int64], u8 func(*array.Array[uint8]) *array.Array[uint8],
	i32 func(*array.Array[int32]) *array.Array[int32]) {
	switch name {
	case "dst":
		e.dst = f32(e.dst)
	case "a":
		e.a = f32(e.a)
	case "b":
		e.b = f32(e.b)
	case "rdst":
		e.rdst = f32(e.rdst)
	case "idst":
		e.idst = i64(e.idst)
	case "mask":
		e.mask = u8(e.mask)
	case "bdst":
		e.bdst = u8(e.bdst)
	case "cdst":
		e.cdst = i32(e.cdst)
	}
}

func roField(t *testing.T, d device.Device, e *closedEnv, name string) {
	setField(e, name,
		func(x *array.Array[float32]) *array.Array[float32] {
			return broadcastOf(t, d, x, func(i int) float32 { return float32(i) })
		},
		func(x *array.Array[int64]) *array.Array[int64] {
			return broadcastOf(t, d, x, func(i int) int64 { return int64(i) })
		},
		func(x *array.Array[uint8]) *array.Array[uint8] {
			return broadcastOf(t, d, x, func(i int) uint8 { return uint8(i % 2) })
		},
		func(x *array.Array[int32]) *array.Array[int32] {
			return broadcastOf(t, d, x, func(i int) int32 { return int32(i) })
		})
}

// TestReadOnlyOutputs: every exported ops function given a read-only
// output (a broadcast view) returns an error wrapping array.ErrReadOnly
// that starts with the op's name and names the copying form, without
// panicking, running or moving anything — on the host, and with the
// other operands device-dirty on a computing device. Its cases are
// closedCases', so a new op joins by joining that table.
func TestReadOnlyOutputs(t *testing.T) {
	n := 0
	for _, onDev := range []bool{false, true} {
		for _, c := range closedCases {
			out := outputOf(c)
			if out == "" {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s/%s/sim=%v", c.name, out, onDev), func(t *testing.T) {
				var d *sim.Device
				var dd device.Device
				if onDev {
					d = sim.NewCompute("gpu", 0)
					defer d.Close()
					dd = d
				}
				e := newClosedEnv(t, dd, 4, false)
				roField(t, nil, e, out)
				changed, err := callCounted(t, d, "", func() error { return c.fn(e) })
				if !errors.Is(err, array.ErrReadOnly) || !strings.HasPrefix(err.Error(), "ops.") || !strings.Contains(err.Error(), "ops.BroadcastTo") {
					t.Fatalf("got %v, want an error wrapping array.ErrReadOnly, naming the op and ops.BroadcastTo", err)
				}
				if changed != "" {
					t.Fatalf("moved or ran: %s", changed)
				}
			})
		}
	}
	if n < 60 {
		t.Errorf("only %d ops with an output in closedCases", n)
	}
}

// TestBroadcastInputs: every exported ops function reads broadcast views
// (stride 0 in the outer dimension) as its inputs, on the host and on a
// computing device, and writes what it writes when given the same values
// densely (Compact copies). On the device, with the inputs device-dirty
// there, dst-first ops run there: launches, no copy to host.
func TestBroadcastInputs(t *testing.T) {
	for _, onDev := range []bool{false, true} {
		for _, c := range closedCases {
			out := outputOf(c)
			var ins []string
			for _, o := range c.ops {
				if o != out {
					ins = append(ins, o)
				}
			}
			if len(ins) == 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/sim=%v", c.name, onDev), func(t *testing.T) {
				run := func(dense bool) (string, *sim.Device) {
					var d *sim.Device
					var dd device.Device
					if onDev || c.name == "On" || c.name == "Clone" {
						d = sim.NewCompute("gpu", 0)
						t.Cleanup(func() { d.Close() })
					}
					if onDev {
						dd = d
					}
					e := newClosedEnv(t, dd, 4, false)
					e.d = d
					for _, in := range ins {
						roField(t, dd, e, in)
						if dense {
							setField(e, in, compact[float32](t), compact[int64](t), compact[uint8](t), compact[int32](t))
						}
					}
					var s0 device.Stats
					runs := 0
					if d != nil {
						s0, runs = d.Stats(), d.Runs()
					}
					if err := c.fn(e); err != nil {
						t.Fatalf("dense inputs %v: %v", dense, err)
					}
					if onDev && out != "" && !dense && !slices.Contains(readsHome, c.name) {
						if s := d.Stats().Sub(s0); d.Runs() == runs || s.D2HCalls != 0 {
							t.Errorf("broadcast inputs device-dirty on %s: %d runs, %+v; want it run there with no copy home", d.Name(), d.Runs()-runs, s)
						}
					}
					if out == "" {
						return "", d
					}
					return fmt.Sprint(e.roots[out]), d
				}
				got, _ := run(false)
				want, _ := run(true)
				if got != want {
					t.Errorf("with broadcast inputs:\n%s\nwith dense copies:\n%s", got, want)
				}
			})
		}
	}
}

// compact returns a function replacing a view by its dense, writable copy.
func compact[T array.Elem](t *testing.T) func(*array.Array[T]) *array.Array[T] {
	return func(x *array.Array[T]) *array.Array[T] {
		c, err := x.Compact(array.COrder) // planar: the layout the ops compare against
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}
