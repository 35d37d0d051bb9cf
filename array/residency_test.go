package array_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// deviceWrite stands in for a pipeline writing a on the device: it fills the
// device copy with v and marks it dirty.
func deviceWrite(t *testing.T, a *array.Array[uint16], v uint16) {
	t.Helper()
	a.SetHostDirty(false)
	mem := a.Allocation().(*sim.Alloc).Mem()
	for i := 0; i+1 < len(mem); i += 2 {
		mem[i], mem[i+1] = byte(v), byte(v>>8)
	}
	a.SetDeviceDirty(true)
}

func TestResidencyCounters(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](64, 32)
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	s := d.Stats()
	if s.H2DCalls != 1 || s.H2DBytes != 64*32*2 || s.AllocsLive != 1 {
		t.Fatalf("first CopyToDevice: %v", s)
	}
	// A clean host copies nothing.
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if d.Stats().H2DCalls != 1 {
		t.Fatalf("CopyToDevice with a clean host copied: %v", d.Stats())
	}
	deviceWrite(t, a, 7)
	// The first host view copies once, the second copies nothing.
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if v.At(63, 31) != 7 {
		t.Fatalf("host view read %d, want 7", v.At(63, 31))
	}
	if _, err := a.HostReadOnly(); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.D2HCalls != 1 || s.D2HBytes != 64*32*2 {
		t.Fatalf("two host views: %v", s)
	}
	// A writable view marks the host dirty: the next upload copies.
	w, _ := a.Host()
	w.Set(9, 0, 0)
	if !a.HostDirty() {
		t.Fatal("writable view did not mark host dirty")
	}
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if d.Stats().H2DCalls != 2 {
		t.Fatal("host-dirty Array was not uploaded")
	}
	// Writes through an old view after an upload mark it dirty again.
	w.Set(10, 1, 0)
	if !a.HostDirty() {
		t.Fatal("write after upload was not marked")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.AllocsLive != 0 {
		t.Fatalf("after Close: %v", s)
	}
}

func TestCropResidency(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](100, 50)
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	deviceWrite(t, a, 3)
	before := d.Stats()
	mid := a.Crop(0, 10, 20)
	c := mid.Crop(1, 5, 4)
	if got := d.Stats(); got.AllocsTotal != before.AllocsTotal {
		t.Fatalf("crop allocated: %v", got)
	}
	if c.Ownership() != array.Cropped || c.DeviceDirty() || !c.NeedsCopyToHost() {
		t.Fatalf("crop ownership %v, own device bit %v, needs copy to host %v", c.Ownership(), c.DeviceDirty(), c.NeedsCopyToHost())
	}
	v, err := c.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if v.At(29, 8) != 3 {
		t.Fatal("crop read wrong data")
	}
	if s := d.Stats().Sub(before); s.D2HBytes != 20*4*2 || s.D2HCalls != 1 {
		t.Fatalf("crop copy to host moved %d bytes in %d calls, want %d in 1", s.D2HBytes, s.D2HCalls, 20*4*2)
	}
	// The parent is still device dirty and still stale on host.
	if !a.DeviceDirty() {
		t.Fatal("parent lost its device-dirty bit")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d.Stats().AllocsLive != 1 {
		t.Fatal("closing a crop freed the root")
	}
	a.Close()
	if d.Stats().AllocsLive != 1 {
		t.Fatal("root memory freed while a crop still uses it")
	}
	mid.Close()
	if d.Stats().AllocsLive != 0 {
		t.Fatal("allocation live after Close")
	}
}

func TestStaleView(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](8)
	a.CopyToDevice(d)
	v, _ := a.Host()
	deviceWrite(t, a, 1)
	func() {
		defer func() {
			if err, _ := recover().(error); !errors.Is(err, array.ErrStale) {
				t.Fatalf("stale view use: %v", err)
			}
		}()
		v.At(0)
	}()
	w, _ := a.Host()
	if w.At(0) != 1 || v.At(0) != 1 {
		t.Fatal("fresh view did not see the device write")
	}
}

func TestBothDirtyPanics(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](8)
	a.CopyToDevice(d)
	a.SetHostDirty(true)
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, array.ErrDirty) {
			t.Fatalf("got %v", err)
		}
	}()
	a.SetDeviceDirty(true)
}

func TestTransferGuard(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](8)
	a.CopyToDevice(d)
	deviceWrite(t, a, 2)
	was := device.SetGuard(true)
	defer device.SetGuard(was)
	if _, err := a.HostReadOnly(); !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("guarded host view: %v", err)
	}
	if err := a.CopyToHost(); err != nil {
		t.Fatal("explicit CopyToHost under the guard:", err)
	}
	if _, err := a.HostReadOnly(); err != nil {
		t.Fatal(err)
	}
}

func TestDeviceErrorsReturned(t *testing.T) {
	d := sim.New("small", 100)
	a := array.New[uint16](1000)
	if err := a.CopyToDevice(d); err == nil {
		t.Fatal("allocation beyond the device limit succeeded")
	}
	if a.Allocation() != nil {
		t.Fatal("failed CopyToDevice left an allocation")
	}
	// DeviceFree keeps device-dirty data.
	b := array.New[uint16](10)
	b.CopyToDevice(d)
	deviceWrite(t, b, 5)
	if err := b.DeviceFree(); err != nil {
		t.Fatal(err)
	}
	if v, _ := b.HostReadOnly(); v.At(9) != 5 || b.Allocation() != nil {
		t.Fatal("DeviceFree lost device data")
	}
	other := sim.New("other", 0)
	b.CopyToDevice(d)
	if err := b.CopyToDevice(other); err == nil {
		t.Fatal("moving between devices without DeviceFree succeeded")
	}
}

func TestCleanupBackstop(t *testing.T) {
	d := sim.New("test", 0)
	func() {
		for range 10 {
			a := array.New[uint16](16)
			a.CopyToDevice(d)
			a.Crop(0, 2, 4)
		}
	}()
	for i := 0; i < 50 && d.Stats().AllocsLive != 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := d.Stats().AllocsLive; n != 0 {
		t.Fatalf("%d allocations live after the Arrays were collected", n)
	}
}

func TestWrap(t *testing.T) {
	d := sim.New("test", 0)
	al, _ := d.Malloc(64)
	a := array.New[uint16](32)
	if err := a.Wrap(d, al); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if d.Stats().AllocsLive != 1 {
		t.Fatal("Close freed a wrapped allocation")
	}
	if err := array.New[uint16](33).Wrap(d, al); err == nil {
		t.Fatal("wrap of a too-small allocation succeeded")
	}
}
