package opencl

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl/cl"
	"github.com/resident-go/resident/internal/plumb"
)

// The three stream queues, ordered by events alone: an upload on the
// upload queue, a device copy on the compute queue held back by a barrier
// on the upload's event, a download on the download queue after the
// compute queue's marker. Every byte is counted, every event released,
// and Close releases the extra queues (the caller's context is back to
// its references).
func TestStreams(t *testing.T) {
	owner := open(t, Options{})
	ctx, err := cl.CreateContext(owner.DeviceID())
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.CreateQueue(owner.DeviceID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	before, err := ctx.ReferenceCount()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Wrap(ctx.Handle(), q.Handle(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3<<20 + 17
	in, err := d.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	copy(in.Bytes(), pattern(n, 5))
	a, err := d.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	st, err := plumb.OpenCL.Streams(d)
	if err != nil {
		t.Fatal(err)
	}
	s0 := d.Stats()
	up, err := st.Transfer(plumb.Upload, a, 0, in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.After(plumb.Compute, up); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(b, 0, a, 0, dense(1, n)); err != nil {
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
	if s.H2DBytes != n || s.D2HBytes != n || s.H2DCalls != 1 || s.D2HCalls != 1 {
		t.Errorf("counted %v, want one H2D and one D2H of %d bytes", s, n)
	}

	// Refused before anything is queued: Go memory, a range past the
	// allocation, the compute queue as a transfer queue.
	if _, err := st.Transfer(plumb.Upload, a, 0, make([]byte, 1<<20)); !errors.Is(err, device.ErrOutOfRange) {
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

	d.Free(a)
	d.Free(b)
	in.Free()
	out.Free()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := plumb.OpenCL.Streams(d); !errors.Is(err, ErrClosed) {
		t.Errorf("Streams on a closed device: %v, want ErrClosed", err)
	}
	if _, err := st.Mark(plumb.Upload); !errors.Is(err, ErrClosed) {
		t.Errorf("Mark after Close: %v, want ErrClosed", err)
	}
	// PoCL drops the references its finished commands hold on the context
	// from its own threads, a little after Close under load: wait for them
	// (a queue left behind keeps its reference for good).
	after, err := ctx.ReferenceCount()
	for i := 0; err == nil && after != before && i < 200; i++ {
		time.Sleep(5 * time.Millisecond)
		after, err = ctx.ReferenceCount()
	}
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("context references %d → %d: Close left the stream queues behind", before, after)
	}
}
