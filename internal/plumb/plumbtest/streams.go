// Package plumbtest checks a device package's plumb.Streams against the
// contract package stream relies on. For tests only.
package plumbtest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// Streams checks d's streams with the three queues ordered by events
// alone: an upload on the upload queue, a device copy on the compute
// queue held back until the upload's event, a download on the download
// queue after the compute queue's mark, over n bytes of pinned memory
// (n > 1). Every byte is counted once, every event released, and refused
// transfers (Go memory, a range past the allocation, the compute queue)
// queue nothing. d must be a device.HostAllocator; it is left open and
// holding nothing the check made.
func Streams(t testing.TB, d device.Device, n int) {
	t.Helper()
	st, ok, err := plumb.StreamsOf(d)
	if !ok || err != nil {
		t.Fatalf("StreamsOf(%s) = %v, %v", d.Name(), ok, err)
	}
	ha := d.(device.HostAllocator)
	in, err := ha.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Free()
	out, err := ha.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Free()
	for i := range in.Bytes() {
		in.Bytes()[i] = byte(i*7 + i>>8)
	}
	a, err := d.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(a)
	b, err := d.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)
	s0 := d.Stats()
	up, err := st.Transfer(plumb.Upload, a, 0, in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.After(plumb.Compute, up); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(b, 0, a, 0, device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}); err != nil {
		t.Fatal(err)
	}
	done, err := st.Mark(plumb.Compute)
	if err != nil {
		t.Fatal(err)
	}
	down, err := st.Transfer(plumb.Download, b, 0, out.Bytes(), done)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if st.Live() != 3 {
		t.Errorf("%d live events, want 3", st.Live())
	}
	if err := st.Wait(down); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in.Bytes()) {
		t.Error("upload → copy → download across three queues changed the data")
	}
	for _, e := range []plumb.Event{up, done, down} {
		if err := st.Release(e); err != nil {
			t.Error(err)
		}
	}
	if st.Live() != 0 {
		t.Errorf("%d live events after releasing them all", st.Live())
	}
	s := d.Stats().Sub(s0)
	if s.H2DBytes != int64(n) || s.D2HBytes != int64(n) || s.H2DCalls != 1 || s.D2HCalls != 1 {
		t.Errorf("counted %v, want one H2D and one D2H of %d bytes", s, n)
	}

	// Refused before anything is queued.
	if _, err := st.Transfer(plumb.Upload, a, 0, make([]byte, n)); !errors.Is(err, device.ErrOutOfRange) {
		t.Errorf("transfer from Go memory: %v, want ErrOutOfRange", err)
	}
	if _, err := st.Transfer(plumb.Download, a, 1, out.Bytes()); !errors.Is(err, device.ErrOutOfRange) {
		t.Errorf("transfer past the allocation: %v, want ErrOutOfRange", err)
	}
	if _, err := st.Transfer(plumb.Compute, a, 0, out.Bytes()); err == nil {
		t.Error("a transfer on the compute queue was accepted")
	}
	if st.Live() != 0 || d.Stats().Sub(s0).H2DCalls != 1 {
		t.Error("a refused transfer queued something")
	}
}
