package halide_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/callbacks"
)

// Two goroutines call one Pipeline on the two halves of the CPU device at
// once, each choosing its device per call (CallWith): nothing of the
// shared Pipeline changes, each result lives on its goroutine's half, and
// the runtime ran on each half's own queue.
func TestCallWithTwoDevicesAtOnce(t *testing.T) {
	d0, d1 := opencltest.Halves(t)
	p := brighter.BrighterPipeline
	const w, h, iters = 29, 13, 25
	src := pattern(w, h)
	acq0, acq1 := halide.DeviceAcquires(d0), halide.DeviceAcquires(d1)
	var wg sync.WaitGroup
	for g, d := range []*opencl.Device{d0, d1} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b := array.New[uint8](w, h), array.New[uint8](w, h)
			defer a.Close()
			defer b.Close()
			av, _ := a.Host()
			copy(av.Data(), src)
			for range iters {
				if err := p.CallWith(halide.Options{Device: d}, a, uint8(1), b); err != nil {
					t.Errorf("half %d: %v", g, err)
					return
				}
				a, b = b, a
			}
			if a.Device() != device.Device(d) || !a.DeviceDirty() {
				t.Errorf("half %d: result on %v (device-dirty %v), want %s", g, a.Device(), a.DeviceDirty(), d.Name())
			}
			checkBrightened(t, fmt.Sprintf("half %d", g), a, src, iters)
		}()
	}
	wg.Wait()
	if halide.DeviceAcquires(d0) == acq0 || halide.DeviceAcquires(d1) == acq1 {
		t.Errorf("the runtime did not run on both halves: acquires %d→%d, %d→%d", acq0, halide.DeviceAcquires(d0), acq1, halide.DeviceAcquires(d1))
	}
}

// The transfer guard scoped to one call (Options.Guard) and to one device
// (device.SetDeviceGuard): refused before anything moves, other calls and
// devices unaffected, the process-wide guard untouched.
func TestScopedGuard(t *testing.T) {
	d0, d1 := opencltest.Halves(t)
	p := brighter.BrighterPipeline
	const w, h = 16, 8
	fresh := func() *array.Array[uint8] { // host-newer: a call would upload it
		a := array.New[uint8](w, h)
		hv, _ := a.Host()
		copy(hv.Data(), pattern(w, h))
		return a
	}
	in, out := fresh(), array.New[uint8](w, h)
	defer in.Close()
	defer out.Close()
	before := d0.Stats()
	err := p.CallWith(halide.Options{Device: d0, Guard: true}, in, uint8(1), out)
	if !errors.Is(err, halide.ErrTransferGuard) || !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("Options.Guard with a host-newer input: %v, want ErrTransferGuard", err)
	}
	if s := d0.Stats().Sub(before); s.H2DCalls != 0 || in.Device() != nil {
		t.Errorf("a refused call moved data: %+v", s)
	}
	if device.Guarded(nil, d0) {
		t.Fatal("Options.Guard turned a guard beyond the call on")
	}
	// The guard a context carries (device.WithGuard) refuses the same.
	if err := p.CallContext(device.WithGuard(context.Background()), halide.Options{Device: d0}, in, uint8(1), out); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("CallContext with device.WithGuard and a host-newer input: %v, want ErrTransferGuard", err)
	}
	if s := d0.Stats().Sub(before); s.H2DCalls != 0 || in.Device() != nil {
		t.Errorf("a refused call moved data: %+v", s)
	}
	host := array.FromSlice(make([]uint8, w*h), w, h) // host-only output: a copy home
	if err := p.CallWith(halide.Options{Device: d0}, in, uint8(1), out); err != nil {
		t.Fatal(err)
	}
	if err := p.CallWith(halide.Options{Device: d0, Guard: true}, in, uint8(1), out); err != nil {
		t.Fatalf("Options.Guard with everything resident: %v", err)
	}
	if err := p.CallWith(halide.Options{Device: d0, Guard: true}, in, uint8(1), host); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("Options.Guard with a host-only output: %v, want ErrTransferGuard", err)
	}

	if device.SetDeviceGuard(d1, true) {
		t.Fatal("d1's guard was on")
	}
	defer device.SetDeviceGuard(d1, false)
	in1, out1 := fresh(), array.New[uint8](w, h)
	defer in1.Close()
	defer out1.Close()
	if err := p.CallWith(halide.Options{Device: d1}, in1, uint8(1), out1); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("d1's guard with a host-newer input: %v, want ErrTransferGuard", err)
	}
	if !device.Guarded(nil, d1) || device.Guarded(nil, d0) || device.Guarded(nil, nil) {
		t.Errorf("Guarded(d1) %v, Guarded(d0) %v, Guarded(nil) %v: want true, false, false", device.Guarded(nil, d1), device.Guarded(nil, d0), device.Guarded(nil, nil))
	}
	in2 := fresh()
	defer in2.Close()
	if err := p.CallWith(halide.Options{Device: d0}, in2, uint8(1), array.New[uint8](w, h)); err != nil {
		t.Fatalf("d0 under d1's guard: %v", err)
	}
	// A device-dirty input of a host pipeline on a guarded device.
	if err := in1.CopyToDevice(d1); err != nil {
		t.Fatal(err)
	}
	in1.SetDeviceDirty(true)
	if err := brighter.BrighterHost(in1, 1, array.New[uint8](w, h)); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("host pipeline, input device-dirty on guarded d1: %v, want ErrTransferGuard", err)
	}
	device.SetDeviceGuard(d1, false)
	if err := p.CallWith(halide.Options{Device: d1}, in1, uint8(1), out1); err != nil {
		t.Fatalf("d1 after its guard is off: %v", err)
	}
}

// TestConcurrentOptions: goroutines call one Pipeline at once, each with
// its own per-call settings — hooks and user context, none, the guard or
// not — and none sees another's: each hook hears only its own call (its
// own context), calls without hooks reach no hook, and one call's guard
// refuses only that call. Run it with -race.
func TestConcurrentOptions(t *testing.T) {
	const n, rounds = 8, 20
	type heard struct {
		mu             sync.Mutex
		prints, traces int
		foreign        []any
	}
	var got [n]heard
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			h := &got[g]
			note := func(ctx any) {
				if ctx != g {
					h.foreign = append(h.foreign, ctx)
				}
			}
			o := halide.Options{Context: g, Hooks: &halide.Hooks{
				Print: func(ctx any, _ []byte) { h.mu.Lock(); defer h.mu.Unlock(); h.prints++; note(ctx) },
				Trace: func(e *halide.TraceEvent) {
					h.mu.Lock()
					defer h.mu.Unlock()
					h.traces++
					if e.Context != nil { // nil from Halide's worker threads
						note(e.Context)
					}
				},
			}}
			if g%2 == 1 {
				o = halide.Options{} // no hooks: the runtime's print and trace
			}
			src, dst := make([]int32, 8), make([]int32, 8)
			for range rounds {
				if err := callbacks.PrinterPipeline.CallWith(o, array.FromSlice(src, 8), array.FromSlice(dst, 8)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for g := range n {
		h := &got[g]
		switch {
		case len(h.foreign) > 0:
			t.Errorf("goroutine %d's hooks heard other calls: contexts %v", g, h.foreign)
		case g%2 == 0 && (h.prints != rounds || h.traces < 8*rounds):
			t.Errorf("goroutine %d's hooks: %d prints, %d trace events; want %d and at least %d", g, h.prints, h.traces, rounds, 8*rounds)
		case g%2 == 1 && h.prints+h.traces != 0:
			t.Errorf("goroutine %d has no hooks but heard %d prints, %d events", g, h.prints, h.traces)
		}
	}

	// The guard of one call, beside calls without it, on one device.
	d := clDevice(t)
	const w, h = 16, 8
	var refused, ran [n]bool
	for g := range n {
		wg.Go(func() {
			in, out := array.New[uint8](w, h), array.New[uint8](w, h)
			defer in.Close()
			defer out.Close()
			hv, _ := in.Host() // host-newer: the call would upload it
			copy(hv.Data(), pattern(w, h))
			err := brighter.BrighterPipeline.CallWith(halide.Options{Device: d, Guard: g%2 == 0}, in, uint8(1), out)
			refused[g] = errors.Is(err, device.ErrTransferGuard)
			ran[g] = err == nil
		})
	}
	wg.Wait()
	for g := range n {
		if want := g%2 == 0; refused[g] != want || ran[g] == want {
			t.Errorf("goroutine %d (guard %v): refused %v, ran %v", g, want, refused[g], ran[g])
		}
	}
}
