package opencl_test

import (
	"github.com/resident-go/resident/internal/plumb"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
)

// Closing a Device with live Arrays loses nothing and crashes nothing:
// device-dirty data comes home first, and pinned host memory (NewIn)
// stays valid until its Array lets go of it.
func TestCloseWithLiveArrays(t *testing.T) {
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	pinned, err := array.NewIn[uint8](d, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	plain := array.New[float32](64, 64)
	h, _ := plain.Host()
	h.Fill(3)
	if err := plain.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if err := plain.Crop(1, 0, 8).CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	// As if a kernel wrote it: the device holds the 3s, the host garbage
	// (written behind residency's back), so only a copy home shows 3.
	for i, hb := 0, plain.Raw().HostBytes(); i < len(hb); i++ {
		hb[i] = 0xEE
	}
	plain.SetDeviceDirty(true)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if plain.Device() != nil || plain.DeviceDirty() {
		t.Fatal("the Array still refers to the closed device")
	}
	if v, err := plain.HostReadOnly(); err != nil || v.At(63, 63) != 3 {
		t.Fatal("data lost at Close", err)
	}
	hp, err := pinned.Host()
	if err != nil {
		t.Fatal(err)
	}
	hp.Fill(7) // the pinned memory is still mapped
	if hp.At(1<<20-1) != 7 {
		t.Fatal("pinned memory after Close")
	}
	if err := pinned.Close(); err != nil { // the last block releases the context
		t.Fatal(err)
	}
}

// Pace bounds the commands in flight.
func TestPace(t *testing.T) {
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	defer d.Close()
	for range 2000 {
		if err := plumb.OpenCL.Pace(d); err != nil {
			t.Fatal(err)
		}
		if n := plumb.OpenCL.InFlight(d); n > 8 {
			t.Fatalf("%d pacing markers in flight, want at most 8", n)
		}
	}
}
