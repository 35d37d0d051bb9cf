package opencl_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/opencl/opencltest"
)

// copyCheck writes a pattern on src's device, copies it to dst's with
// CopyBetween and reads it back there.
func copyCheck(t *testing.T, src, dst device.Device, n int) device.Path {
	t.Helper()
	a, err := src.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free(a)
	b, err := dst.Malloc(n + 64)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free(b)
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(i*7 + 3)
	}
	r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
	if err := src.CopyIn(a, 0, want, r); err != nil {
		t.Fatal(err)
	}
	path, err := device.CopyBetween(b, 64, a, 0, n)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := dst.CopyOut(got, b, 64, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s copy from %s to %s changed the data", path, src.Name(), dst.Name())
	}
	if _, err := device.CopyBetween(b, 65, a, 0, n); err == nil {
		t.Fatal("a copy past the destination's end was accepted")
	}
	return path
}

// Devices of one context copy directly, counted as Peer on the receiver.
func TestGroupCopiesDirectly(t *testing.T) {
	d0, d1 := opencltest.Halves(t)
	before0, before1 := d0.Stats(), d1.Stats()
	if p := copyCheck(t, d0, d1, 3<<20+5); p != device.PathDirect {
		t.Fatalf("path %v, want direct", p)
	}
	s0, s1 := d0.Stats().Sub(before0), d1.Stats().Sub(before1)
	if s1.PeerCalls != 1 || s1.PeerBytes != 3<<20+5 || s0.D2HCalls != 0 || s1.H2DCalls != 0 {
		t.Fatalf("counters: sender %v; receiver %v", s0, s1)
	}
}

// Devices of separate contexts stage through host memory, counted as a
// download on the sender and an upload on the receiver.
func TestSeparateContextsStage(t *testing.T) {
	d0, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	defer d0.Close()
	d1, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d1.Close()
	before0, before1 := d0.Stats(), d1.Stats()
	if p := copyCheck(t, d0, d1, 70<<20+3); p != device.PathStaged { // two staging chunks
		t.Fatalf("path %v, want staged", p)
	}
	s0, s1 := d0.Stats().Sub(before0), d1.Stats().Sub(before1)
	if s1.PeerCalls != 0 || s0.D2HBytes < 70<<20+3 || s1.H2DBytes < 70<<20+3 {
		t.Fatalf("counters: sender %v; receiver %v", s0, s1)
	}
}

// Several takes a platform's devices when it has enough, else splits the
// one: PoCL's single CPU device gives halves in one context (they copy
// directly). Zero devices is an error.
func TestSeveral(t *testing.T) {
	o := opencl.Options{Type: opencl.DeviceCPU}
	probe, err := opencl.Split(o, 2)
	if errors.Is(err, opencl.ErrCannotSplit) {
		t.Skip(err)
	}
	for _, d := range probe {
		d.Close()
	}
	for _, n := range []int{1, 2} {
		devs, err := opencl.Several(o, n)
		if err != nil {
			t.Fatalf("Several(%d): %v", n, err)
		}
		if len(devs) != n {
			t.Fatalf("Several(%d) opened %d devices", n, len(devs))
		}
		if n == 2 {
			if p := copyCheck(t, devs[0], devs[1], 1<<10); p != device.PathDirect {
				t.Errorf("Several's devices copy by %v, want direct (one context)", p)
			}
		}
		for _, d := range devs {
			if err := d.Close(); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := opencl.Several(o, 0); err == nil {
		t.Error("Several(0) opened nothing without an error")
	}
}

// TestSplitBadParts: asking for fewer than one part is an error naming the
// fix, before any device is touched (it was a slice-bounds panic).
func TestSplitBadParts(t *testing.T) {
	for _, parts := range []int{0, -1, -1 << 63} {
		devs, err := opencl.Split(opencl.Options{}, parts)
		if err == nil || devs != nil {
			t.Errorf("Split(%d) = %v, %v; want an error", parts, devs, err)
			continue
		}
		if errors.Is(err, opencl.ErrCannotSplit) || !strings.Contains(err.Error(), "want at least one part") {
			t.Errorf("Split(%d): %v; want an argument error naming the fix", parts, err)
		}
	}
}

// A sub-device closed right after its last command completed: PoCL 3.1's
// worker releases the command's event after signalling completion, and
// that release reads the queue's device, which nothing but the Device
// retains (the context retains the parent). Close used to free the
// sub-device under it: SIGSEGV in POclReleaseEvent on a PoCL thread, in
// most runs of these 30 rounds. Close now waits for the driver's late
// references before releasing the sub-device.
func TestGroupCloseAfterWork(t *testing.T) {
	const n = 3<<20 + 5
	buf := make([]byte, n)
	r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
	for range 30 {
		devs, err := opencl.Split(opencl.Options{Type: opencl.DeviceCPU}, 2)
		if errors.Is(err, opencl.ErrCannotSplit) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range devs {
			a, err := d.Malloc(n)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.CopyIn(a, 0, buf, r); err != nil { // blocking
				t.Fatal(err)
			}
		}
		for _, d := range devs {
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
