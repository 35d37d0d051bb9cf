package array_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
)

// resident returns a 16×8 uint16 Array uploaded to a fresh simulated device.
func resident(t *testing.T) (*array.Array[uint16], *sim.Device) {
	t.Helper()
	d := sim.New("regions", 0)
	a := array.New[uint16](16, 8)
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	return a, d
}

func stale(f func()) (err error) {
	defer func() { err, _ = recover().(error) }()
	f()
	return nil
}

// A crop written on the device is seen through its parent's host view.
func TestParentSeesCropDeviceWrite(t *testing.T) {
	a, d := resident(t)
	old, _ := a.HostReadOnly()
	rows := a.Crop(1, 2, 3) // rows 2..4: a contiguous span
	deviceWrite(t, rows, 7)
	if !errors.Is(stale(func() { old.At(0, 2) }), array.ErrStale) {
		t.Fatal("a view of the parent taken before the crop's device write is not stale")
	}
	if !a.NeedsCopyToHost() || a.DeviceDirty() {
		t.Fatal("parent should need a copy to host without being device dirty itself")
	}
	before := d.Stats()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if v.At(5, 3) != 7 || v.At(5, 1) != 0 || v.At(5, 5) != 0 {
		t.Fatalf("parent reads %d %d %d, want 0 7 0", v.At(5, 1), v.At(5, 3), v.At(5, 5))
	}
	if s := d.Stats().Sub(before); s.D2HCalls != 1 || s.D2HBytes != 16*8*2 {
		t.Fatalf("parent sync moved %v", s)
	}
	if rows.DeviceDirty() {
		t.Fatal("the parent's dense copy covered the crop, which is still marked dirty")
	}
	if old.At(0, 2) != 7 {
		t.Fatal("old view still stale after the sync")
	}
}

// Crops that do not overlap do not sync each other.
func TestSiblingCropsIndependent(t *testing.T) {
	a, d := resident(t)
	top, bottom := a.Crop(1, 0, 4), a.Crop(1, 4, 4)
	deviceWrite(t, top, 3)
	before := d.Stats()
	v, err := bottom.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if v.At(0, 4) != 0 || d.Stats().Sub(before).D2HCalls != 0 {
		t.Fatal("a clean sibling crop copied data")
	}
	// A crop inside the dirty one copies only its own bytes.
	inner := a.Crop(1, 1, 1)
	if _, err := inner.HostReadOnly(); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.D2HBytes != 16*2 {
		t.Fatalf("inner crop sync moved %d bytes, want %d", s.D2HBytes, 16*2)
	}
}

// A host write through the parent reaches the device when a crop made
// before it is uploaded.
func TestCropUploadsParentHostWrite(t *testing.T) {
	a, d := resident(t)
	c := a.Crop(1, 6, 2) // made while everything is clean
	h, _ := a.Host()
	h.Set(9, 1, 6)
	if c.HostDirty() || !c.NeedsCopyToDevice() {
		t.Fatal("crop should need an upload without being host dirty itself")
	}
	before := d.Stats()
	if err := c.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.H2DCalls != 1 || s.H2DBytes != 16*2*2 {
		t.Fatalf("crop upload moved %v", s)
	}
	if got := c.Allocation().(*sim.Alloc).Mem()[2]; got != 9 {
		t.Fatalf("device holds %d, want 9", got)
	}
}

// A device-dirty crop closed before anyone synced it keeps its data for
// the parent; everything is freed once the last view closes.
func TestClosedDirtyCrop(t *testing.T) {
	a, d := resident(t)
	c := a.Crop(1, 3, 2)
	deviceWrite(t, c, 5)
	c.Close()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if v.At(15, 4) != 5 {
		t.Fatal("the closed crop's device write was lost")
	}
	// The root closed while dirty, with a crop still open.
	b, d2 := resident(t)
	keep := b.Crop(1, 0, 1)
	deviceWrite(t, b, 4)
	b.Close()
	if d2.Stats().AllocsLive != 1 {
		t.Fatal("root device memory freed while a view still needs it")
	}
	w, err := keep.HostReadOnly()
	if err != nil || w.At(3, 0) != 4 {
		t.Fatal("a view lost the root's device write when the root closed", err)
	}
	keep.Close()
	a.Close()
	if d.Stats().AllocsLive != 0 || d2.Stats().AllocsLive != 0 {
		t.Fatal("allocations live after every view closed")
	}
}
