package opencl

import (
	"bytes"
	"github.com/resident-go/resident/internal/cl"
	"testing"
)

// A Device over a context and queue the caller made: it works, Close
// drops only its own references, and hooks run before the release.
func TestWrap(t *testing.T) {
	owner := open(t, Options{}) // only to find a device and load OpenCL
	ctx, err := cl.CreateContext(owner.clDeviceID())
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.CreateQueue(owner.clDeviceID(), 0)
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
	if d.clContext().Handle() != ctx.Handle() || d.clQueue().Handle() != q.Handle() || d.clDeviceID().Handle() != owner.clDeviceID().Handle() {
		t.Errorf("wrapped device has context %#x queue %#x device %#x", d.clContext().Handle(), d.clQueue().Handle(), d.clDeviceID().Handle())
	}
	r := dense(1, 1000)
	src := pattern(r.Bytes(), 3)
	a, err := d.Malloc(r.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CopyIn(a, 0, src, r); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(src))
	if err := d.CopyOut(got, a, 0, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("round trip through the wrapped device changed the data")
	}

	var order []string
	d.OnClose(func() {
		// Still usable: the hook runs before the release.
		if err := d.s.queue.Finish(); err != nil {
			t.Errorf("queue in a close hook: %v", err)
		}
		order = append(order, "first")
	})
	d.OnClose(func() { order = append(order, "second") })
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "second" {
		t.Errorf("hooks ran %v, want [second first]", order)
	}
	if !d.Closed() {
		t.Error("Closed() is false after Close")
	}
	after, err := ctx.ReferenceCount()
	if err != nil {
		t.Fatalf("the caller's context is gone after Close: %v", err)
	}
	if after != before {
		t.Errorf("context references %d → %d: Wrap/Close must leave the caller's references alone", before, after)
	}
	ran := false
	d.OnClose(func() { ran = true })
	if !ran {
		t.Error("OnClose on a closed device did not run the hook at once")
	}

	if _, err := Wrap(ctx.Handle(), 0, Options{}); err == nil {
		t.Error("Wrap with a null queue succeeded")
	}
	other, err := cl.CreateContext(owner.clDeviceID())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	if _, err := Wrap(other.Handle(), q.Handle(), Options{}); err == nil {
		t.Error("Wrap with a queue of another context succeeded")
	}
}
