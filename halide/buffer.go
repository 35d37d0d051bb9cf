package halide

import (
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"math"
	"runtime"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/plumb"
)

// attachment is a Raw's long-lived C halide_buffer_t template, kept in the
// Raw's attachment slot: type, dims and the pinned host pointer, written
// once and only read afterwards, so any number of calls may read it at
// once. A call copies it into a buffer of its own frame (bind) and gives
// that copy its device handle and flags; nothing of one call lives in the
// attachment. Package array closes it exactly once, when the Raw is dropped
// or its root released, and never while a call holds a use of the memory.
type attachment struct {
	c   *rt.Buf        // nil once closed
	pin runtime.Pinner // the host storage, stored in c.B.Host
}

// attachmentOf returns r's attachment, making it on first use. The
// caller holds a use of r (plumb.Acquire), so r's root is not released.
func attachmentOf(r *array.Raw) (*attachment, error) {
	if a, ok := plumb.Array.Attachment(r).(*attachment); ok {
		return a, nil
	}
	a := &attachment{}
	c, err := newCBuf(r, &a.pin)
	if err != nil {
		return nil, err
	}
	a.c = c
	kept, ok := plumb.Array.SetAttachment(r, a).(*attachment)
	if kept != a {
		a.Close() // another call made one first, or the root was released
	}
	if !ok {
		return nil, fmt.Errorf("a closed Array")
	}
	return kept, nil
}

// newCBuf returns a halide_buffer_t in C memory describing r's type, dims
// and host memory, which pin pins (C may keep only pinned Go pointers).
func newCBuf(r *array.Raw, pin *runtime.Pinner) (*rt.Buf, error) {
	rank := r.Rank()
	for i := 0; i < rank; i++ {
		d := r.Dim(i)
		if !fitsInt32(d.Min) || !fitsInt32(d.Extent) || !fitsInt32(d.Stride) || !fitsInt32(d.Min+d.Extent) {
			return nil, fmt.Errorf("dimension %d (min %d, extent %d, stride %d) does not fit Halide's int32 fields", i, d.Min, d.Extent, d.Stride)
		}
	}
	c := rt.NewBuf(rank)
	if c == nil {
		return nil, fmt.Errorf("out of C memory for a halide_buffer_t")
	}
	t := r.Type()
	c.B.Type.Code = uint8(t.Code)
	c.B.Type.Bits = uint8(t.Bits)
	c.B.Type.Lanes = uint16(t.Lanes)
	dims := unsafe.Slice(c.B.Dim, rank)
	dense := 1
	for i := range dims {
		d := r.Dim(i)
		if d.Extent == 1 && d.Stride == 0 && fitsInt32(dense) {
			// A one-element dimension of stride 0 (a broadcast or an
			// empty-view convention) addresses the same element with any
			// stride: give it the dense one, which generators' stride
			// constraints (output.Dim(0).stride == 1) accept.
			d.Stride = dense
		}
		dense = d.Stride * max(d.Extent, 1)
		dims[i] = rt.Dim{Min: int32(d.Min), Extent: int32(d.Extent), Stride: int32(d.Stride)}
	}
	if p := r.HostPtr(); p != nil {
		pin.Pin(p)
		c.B.SetHost(p)
	} else {
		// host == NULL would make a call a bounds query that computes
		// nothing: an empty Array points at a harmless byte instead.
		c.B.SetHost(emptyHost)
	}
	return c, nil
}

// emptyHost is the host pointer of empty Arrays (C memory, never freed).
var emptyHost = rt.Calloc(128)

func fitsInt32(x int) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

// Close frees the C buffer and unpins the host storage. Package array
// calls it once; it holds no device handle (those belong to call frames).
func (a *attachment) Close() error {
	if a.c != nil {
		rt.FreeBuf(a.c)
		a.c = nil
		a.pin.Unpin()
	}
	return nil
}
