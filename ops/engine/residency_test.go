package engine_test

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/uffd"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops/engine"
)

// A Dense of the engine lives on its device from its first use, with no
// placement by hand and no transfer: a fresh (zero) Dense gets a zeroed
// device copy, ops on it run there (their results device-dirty), and only
// the Dense written on the host costs its one upload.
func TestAllocLivesOnDevice(t *testing.T) {
	e, dev := testEngine(t)
	before := dev.Stats()
	was := guardResident()
	z := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(4, 5), tensor.WithEngine(e))
	one, err := z.AddScalar(float32(1), true)
	must(t, err)
	sum, err := one.Sum()
	guard.Set(was)
	must(t, err)
	// The 0-D sum comes home at once (tensor reads scalars from host
	// memory): one element, explicit, so the guard allows it.
	if m := dev.Stats().Sub(before); m.H2DCalls != 0 || resident() && (m.D2HCalls != 1 || m.D2HBytes != 4) || m.AllocsTotal < 2 {
		t.Fatalf("a fresh Dense and ops on it: %v, want device allocations and only the scalar's copy home", m)
	}
	for _, d := range []*tensor.Dense{z, one, sum} {
		a, err := engine.Array[float32](e, d)
		must(t, err)
		if a.Device() == nil || a.Device() != device.Device(dev) {
			t.Fatalf("a Dense of shape %v is not on the engine's device: %v", d.Shape(), a.Device())
		}
	}
	s, _ := engine.Array[float32](e, one)
	if s.Device() != device.Device(dev) || s.DeviceDirty() != resident() {
		t.Fatal("1 + z was not written on the device")
	}
	if got := hostVals[float32](t, sum); got[0] != 20 {
		t.Fatalf("sum %v, want 20", got)
	}

	// Written on the host before its first use: one upload, by the op.
	w := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(3), tensor.WithEngine(e))
	h, err := engine.Host(w)
	must(t, err)
	copy(h.Data().([]float32), []float32{1, 2, 3})
	before = dev.Stats()
	r, err := w.Mul(w)
	must(t, err)
	if m := dev.Stats().Sub(before); m.H2DCalls != 1 || resident() && m.D2HCalls != 0 {
		t.Fatalf("first op on a host-written Dense: %v, want one upload", m)
	}
	// Written again through Host: the next op uploads it, and under the
	// guard refuses to.
	h, err = engine.Host(w)
	must(t, err)
	h.Data().([]float32)[0] = 10
	was = guard.Set(true)
	_, err = w.Add(w)
	guard.Set(was)
	if err == nil || !strings.Contains(err.Error(), device.ErrTransferGuard.Error()) {
		t.Fatalf("an op under the guard on a host-written Dense: %v, want the guard's refusal", err)
	}
	before = dev.Stats()
	r2, err := w.Add(w)
	must(t, err)
	if m := dev.Stats().Sub(before); m.H2DCalls != 1 {
		t.Fatalf("op after a host write: %v, want one upload", m)
	}
	near(t, "square", hostVals[float32](t, r), []float32{1, 4, 9}, 0)
	near(t, "double", hostVals[float32](t, r2), []float32{20, 4, 6}, 0)
}

// Sprint prints values NumPy's way through one counted read; under the
// guard the refusal is the text; tensor's String still refuses.
func TestSprint(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	sq, err := a.Mul(a)
	must(t, err)
	was := guard.Set(true)
	refused := fmt.Sprint(engine.Formatter(sq))
	guard.Set(was)
	// Without userfaultfd sq came home when its op ended: nothing to move.
	if resident() && (!strings.HasPrefix(refused, "%!v(") || !strings.Contains(refused, device.ErrTransferGuard.Error())) {
		t.Fatalf("printed under the guard: %q, want the guard's error", refused)
	}
	before := dev.Stats()
	got := fmt.Sprint(engine.Formatter(sq))
	if want := "[[ 1.  4.  9.]\n [16. 25. 36.]]"; got != want {
		t.Fatalf("Sprint %q, want %q", got, want)
	}
	if m := dev.Stats().Sub(before); resident() && m.D2HCalls != 1 {
		t.Fatalf("printing moved %v, want one download", m)
	}
	if s := fmt.Sprint(sq); !strings.Contains(s, "Inaccesible data") {
		t.Fatalf("tensor printed %q", s)
	}
	mask, err := tensor.Gt(sq, float32(5))
	must(t, err)
	if got := fmt.Sprint(engine.Formatter(mask.(*tensor.Dense))); got != "[[0 0 1]\n [1 1 1]]" {
		t.Fatalf("a Bool Dense printed %q", got)
	}
	host := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{1, 2}))
	if got, want := fmt.Sprint(engine.Formatter(host)), fmt.Sprint(host); got != want {
		t.Fatalf("a host Dense printed %q, want tensor's %q", got, want)
	}
}

// gorgonia's tape machine allocates registers on the Go heap and gives
// them the engine afterwards: the engine adopts such memory (a device copy,
// no transfer for zeros), so ops on it run on the device too, and code the
// engine never sees reads the newest values through Data(): a register
// with whole pages of its own (from 64 KiB, a Go allocation starts on a
// page) is let go while the device holds them, and filled at the read; a
// small one comes home once the op is done (one download), where pages can
// be watched. The data comes home when the engine closes.
func TestAdoptsGoMemory(t *testing.T) {
	e, dev := testEngine(t)
	for _, n := range []int{6, 1 << 14} {
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = float32(i%7 + 1)
		}
		a := onDevice(t, e, vals, n)
		reg := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n)) // Go memory
		tensor.WithEngine(e)(reg)
		small := n == 6 && uffd.Available()
		before := dev.Stats()
		was := guardResident()
		_, err := tensor.Mul(a, a, tensor.WithReuse(reg))
		guard.Set(was)
		must(t, err)
		m := dev.Stats().Sub(before)
		if down := map[bool]int64{true: 1}[small]; m.H2DCalls != 0 || resident() && (m.D2HCalls != down || small && m.D2HBytes != 4*int64(n)) {
			t.Fatalf("an op into %d floats of adopted Go memory moved %v, want %d copies home", n, m, down)
		}
		r, err := engine.Array[float32](e, reg)
		must(t, err)
		if r.HostOnly() || resident() && r.DeviceDirty() == small {
			t.Fatalf("%d floats of adopted memory: host-only %v, device-dirty %v; want written on the device, and home when small", n, r.HostOnly(), r.DeviceDirty())
		}
		got := slices.Clone(reg.Data().([]float32)) // no engine call
		for i, x := range vals {
			if got[i] != x*x {
				t.Fatalf("%d floats of adopted memory: Data()[%d] = %v, want %v", n, i, got[i], x*x)
			}
		}
		_, err = tensor.Add(a, a, tensor.WithReuse(reg))
		must(t, err)
		if n > 6 {
			must(t, e.Close())
			if got := reg.Data().([]float32); got[5] != 12 {
				t.Fatalf("after Close the Go memory holds %v, want the device's last write", got[:6])
			}
		}
	}
}

// tensor's Clone copies through Memcpy; gorgonia then zeroes the clone
// with Dense.Zero, a host write the engine never sees. A clone of data
// current on the host stays host memory until its first use, so the
// zeros reach the device; a clone of device-newer data is made there.
func TestCloneThenZero(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3}, 3)
	before := dev.Stats()
	was := guardResident()
	c := a.Clone().(*tensor.Dense) // a's device copy is current: made there
	_, err := tensor.Add(c, c)
	guard.Set(was)
	must(t, err)
	if m := dev.Stats().Sub(before); m.H2DCalls != 0 || resident() && m.D2HCalls != 0 {
		t.Fatalf("a clone of float data current on the device, and its use, moved %v", m)
	}
	// Integer memory carries no sentinel: a clone of it stays host memory
	// until its first use, so the zeros reach the device.
	ia := onDevice(t, e, []int32{4, 5, 6}, 3)
	ic := ia.Clone().(*tensor.Dense)
	ic.Zero()
	is, err := tensor.Add(ia, ic)
	must(t, err)
	if got := hostVals[int32](t, is.(*tensor.Dense)); !slices.Equal(got, []int32{4, 5, 6}) {
		t.Fatalf("int a + zeroed clone = %v, want [4 5 6]", got)
	}
	c = a.Clone().(*tensor.Dense)
	c.Zero()
	s, err := tensor.Add(a, c)
	must(t, err)
	near(t, "a + zeroed clone", hostVals[float32](t, s.(*tensor.Dense)), []float32{1, 2, 3}, 0)

	sq, err := a.Mul(a) // device-dirty
	must(t, err)
	before = dev.Stats()
	was = guardResident()
	c2 := sq.Clone().(*tensor.Dense)
	guard.Set(was)
	if m := dev.Stats().Sub(before); m.H2DCalls != 0 || resident() && m.D2HCalls != 0 {
		t.Fatalf("a clone of device-newer data moved %v", m)
	}
	near(t, "clone", hostVals[float32](t, c2), []float32{1, 4, 9}, 0)
}

// A result Dense the engine made is reclaimed once collected: its device
// allocation is freed; a view of it that outlived it is refused.
func TestReclaimsResults(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3, 4}, 4)
	live := dev.Stats().AllocsLive
	var view *tensor.Dense
	func() {
		r, err := a.Add(a)
		must(t, err)
		v, err := r.Slice(tensor.S(1, 3))
		must(t, err)
		view = v.(*tensor.Dense)
	}()
	for i := 0; i < 100 && dev.Stats().AllocsLive > live; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := dev.Stats().AllocsLive; got > live {
		t.Skipf("the result was not collected: %d allocations live, %d before", got, live)
	}
	if _, err := tensor.Add(view, view); !errors.Is(err, engine.ErrFreed) {
		t.Fatalf("a view of a reclaimed result: %v, want an error wrapping ErrFreed", err)
	}
	_ = view.Data() // mapped: never a crash
}
