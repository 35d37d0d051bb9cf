package array_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
)

type closer struct{ n *int }

func (c closer) Close() error { *c.n++; return nil }

var _ io.Closer = closer{}

func TestNewInPinnedHost(t *testing.T) {
	d := sim.New("pinned", 0)
	a, err := array.NewIn[float32](d, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if uintptr(a.HostPtr())%128 != 0 {
		t.Fatal("NewIn storage not aligned")
	}
	h, _ := a.Host()
	h.Fill(2)
	c := a.Crop(0, 1, 2)
	if d.HostBlocksLive() != 1 {
		t.Fatal("no host block")
	}
	a.Close()
	if d.HostBlocksLive() != 1 {
		t.Fatal("host block freed while a view uses it")
	}
	if v, _ := c.HostReadOnly(); v.At(2, 2) != 2 {
		t.Fatal("view lost data")
	}
	c.Close()
	if d.HostBlocksLive() != 0 {
		t.Fatal("host block not returned")
	}
	d.Close()
	if _, err := array.NewIn[float32](d, 4); err == nil {
		t.Fatal("NewIn on a closed device succeeded")
	}
}

func TestAccessors(t *testing.T) {
	d := sim.New("acc", 0)
	a := array.NewWithMins[int16]([]int{1, 2}, []int{3, 4})
	if a.ElemSize() != 2 || a.Len() != 12 || a.SpanElems() != 12 || !a.Dense() {
		t.Fatal("sizes")
	}
	if got := a.Extents(); len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Fatal("extents", got)
	}
	if a.Raw().Raw() != a.Raw() || a.Device() != nil || a.Ownership() != array.NoDevice {
		t.Fatal("raw state")
	}
	if !strings.Contains(a.String(), "int16") || array.Allocated.String() != "allocated" {
		t.Fatal("String:", a.String())
	}
	n := 0
	a.SetAttachment(closer{&n})
	if a.Attachment() == nil {
		t.Fatal("attachment lost")
	}
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if a.Device() != d || a.DeviceSync() != nil || a.Ownership() != array.Allocated {
		t.Fatal("device state")
	}
	h, _ := a.Host()
	if !h.HostOnly() || h.Array() != a || h.ReadOnly().Raw() != a.Raw() {
		t.Fatal("view accessors")
	}
	data := h.Data()
	data[0] = 4
	if !a.HostDirty() || !strings.HasPrefix(h.String(), "HostView[3 4][4 0 0") {
		t.Fatal("Data write not marked, or String:", h.String())
	}
	a.Close()
	if n != 1 || !a.Closed() {
		t.Fatal("Close did not close the attachment")
	}
	if d.Stats().AllocsLive != 0 {
		t.Fatal("leak")
	}
}

func TestCompactDeviceDirty(t *testing.T) {
	d := sim.New("c", 0)
	a := array.New[uint8](4, 4)
	a.CopyToDevice(d)
	a.SetDeviceDirty(true)
	c, err := a.Transpose(0, 1).Compact()
	if err != nil || d.Stats().D2HCalls != 1 {
		t.Fatal("compact of a device-dirty view", err)
	}
	c.Close()
	a.CopyToHost()
	a.SetDeviceDirty(true)
	d.Close() // the device is gone: the copy must fail as an error
	if _, err := a.Compact(); err == nil {
		t.Fatal("compact with a closed device succeeded")
	}
	if ok, err := array.Equal(a, a); ok || err == nil {
		t.Fatal("Equal with a closed device succeeded")
	}
	if !errors.Is(err, sim.ErrClosed) {
		t.Log("error:", err)
	}
}
