package halide

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/internal/plumb"
)

// attachment is an Array's long-lived C halide_buffer_t, kept in the Raw's
// attachment slot. Layout and host pointer never change for a Raw, so they
// are written once; the device handle follows the Raw's Allocation and is
// re-made only when that changes. The Raw's Close (or its cleanup
// backstop, which holds the attachment) closes it.
type attachment struct {
	c   *C.gohl_buf    // nil once closed
	pin runtime.Pinner // the host storage, stored in c.b.host
}

// attachmentOf returns r's attachment, making it on first use.
func attachmentOf(r *array.Raw) (*attachment, error) {
	if a, ok := plumb.Array.Attachment(r).(*attachment); ok && a.c != nil {
		return a, nil
	}
	a := &attachment{}
	c, err := newCBuf(r, &a.pin)
	if err != nil {
		return nil, err
	}
	a.c = c
	if old := plumb.Array.Attachment(r); old != nil {
		old.Close()
	}
	plumb.Array.SetAttachment(r, a)
	return a, nil
}

// newCBuf returns a halide_buffer_t in C memory describing r's type, dims
// and host memory, which pin pins (C may keep only pinned Go pointers).
func newCBuf(r *array.Raw, pin *runtime.Pinner) (*C.gohl_buf, error) {
	rank := r.Rank()
	for i := 0; i < rank; i++ {
		d := r.Dim(i)
		if !fitsInt32(d.Min) || !fitsInt32(d.Extent) || !fitsInt32(d.Stride) || !fitsInt32(d.Min+d.Extent) {
			return nil, fmt.Errorf("dimension %d (min %d, extent %d, stride %d) does not fit Halide's int32 fields", i, d.Min, d.Extent, d.Stride)
		}
	}
	c := C.gohl_buf_new(C.int(rank))
	if c == nil {
		return nil, fmt.Errorf("out of C memory for a halide_buffer_t")
	}
	t := r.Type()
	c.b._type.code = C.uint8_t(t.Code)
	c.b._type.bits = C.uint8_t(t.Bits)
	c.b._type.lanes = C.uint16_t(t.Lanes)
	dims := unsafe.Slice(c.b.dim, rank)
	for i := range dims {
		d := r.Dim(i)
		dims[i] = C.struct_halide_dimension_t{min: C.int32_t(d.Min), extent: C.int32_t(d.Extent), stride: C.int32_t(d.Stride)}
	}
	if p := r.HostPtr(); p != nil {
		pin.Pin(p)
		c.b.host = (*C.uint8_t)(p)
	} else {
		// host == NULL would make a call a bounds query that computes
		// nothing: an empty Array points at a harmless byte instead.
		c.b.host = (*C.uint8_t)(emptyHost)
	}
	return c, nil
}

// emptyHost is the host pointer of empty Arrays (C memory, never freed).
var emptyHost = C.calloc(1, 128)

func fitsInt32(x int) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

// setDevice points the buffer at byte off of mem (0: no device handle).
// c.mem and c.off say what is wrapped now: an unchanged handle, the common
// case, costs no cgo call.
func (a *attachment) setDevice(ctx *C.gohl_ctx, mem uintptr, off int) C.int {
	if uintptr(a.c.mem) == mem && int(a.c.off) == off {
		return 0
	}
	return C.gohl_buf_set_device(ctx, a.c, C.uint64_t(mem), C.int64_t(off))
}

// Close drops the device handle (never freeing our cl_mem), frees the C
// buffer and unpins the host storage. Idempotent.
func (a *attachment) Close() error {
	if a.c == nil {
		return nil
	}
	var ctx C.gohl_ctx
	C.gohl_ctx_init(&ctx)
	rc := C.gohl_buf_detach(&ctx, a.c)
	C.gohl_buf_free(a.c)
	a.c = nil
	a.pin.Unpin()
	if rc != 0 {
		return &Error{Pipeline: "(buffer release)", Code: int(rc), Msg: C.GoString(&ctx.msg[0])}
	}
	return nil
}
