package blur

// C code that owns halide_buffer_t's and calls the blur pipeline directly,
// as a C program linked with it would: the interop tests of package halide
// use it (halide.WrapCBuffer, halide.ExportBuffer), and it shows the
// calling convention. Not generated.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include "HalideRuntime.h"
#include "blur.h"
#include "blur_opencl.h"

// new_u16 allocates a w×h uint16 buffer with mins (x0, y0), rows padded to
// stride elements, filled with v(x, y) = x*x*31 + y*977 + x*y.
static struct halide_buffer_t *new_u16(int x0, int y0, int w, int h, int stride) {
    struct halide_buffer_t *b = calloc(1, sizeof *b + 2 * sizeof(struct halide_dimension_t));
    if (!b) return NULL;
    b->dim = (struct halide_dimension_t *)(b + 1);
    b->dimensions = 2;
    b->type.code = halide_type_uint;
    b->type.bits = 16;
    b->type.lanes = 1;
    b->dim[0].min = x0; b->dim[0].extent = w; b->dim[0].stride = 1;
    b->dim[1].min = y0; b->dim[1].extent = h; b->dim[1].stride = stride;
    uint16_t *host = malloc((size_t)stride * h * sizeof(uint16_t));
    if (!host) { free(b); return NULL; }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int gx = x0 + x, gy = y0 + y;
            host[y * stride + x] = (uint16_t)(gx * gx * 31 + gy * 977 + gx * gy);
        }
    b->host = (uint8_t *)host;
    return b;
}

static void free_u16(struct halide_buffer_t *b) {
    if (!b) return;
    free(b->host);
    free(b);
}

static int run_blur(struct halide_buffer_t *in, struct halide_buffer_t *out) { return blur(NULL, in, out); }

// run_blur_opencl_keep runs blur_opencl on C's buffers and leaves the
// output where the runtime put it: on the device, device-dirty.
static int run_blur_opencl_keep(struct halide_buffer_t *in, struct halide_buffer_t *out) {
    in->flags |= halide_buffer_flag_host_dirty;
    return blur_opencl(NULL, in, out);
}

static void set_dim(struct halide_buffer_t *b, int i, int min, int extent, int stride) {
    b->dim[i].min = min; b->dim[i].extent = extent; b->dim[i].stride = stride;
}

// at reads element (x, y) the way Halide addresses it.
static uint16_t at_u16(const struct halide_buffer_t *b, int x, int y) {
    const uint16_t *p = (const uint16_t *)b->host;
    return p[(x - b->dim[0].min) * b->dim[0].stride + (y - b->dim[1].min) * b->dim[1].stride];
}
*/
import "C"

import "unsafe"

// CNewUint16 is C allocating a w×h uint16 halide_buffer_t with mins (x0,
// y0) and row stride stride (≥ w), host memory included, filled with
// x·x·31 + y·977 + x·y (in global coordinates). Free it with CFree.
func CNewUint16(x0, y0, w, h, stride int) unsafe.Pointer {
	return unsafe.Pointer(C.new_u16(C.int(x0), C.int(y0), C.int(w), C.int(h), C.int(stride)))
}

// CFree is C freeing a buffer from CNewUint16, host memory included.
func CFree(b unsafe.Pointer) { C.free_u16((*C.struct_halide_buffer_t)(b)) }

// CBlur is C calling blur(NULL, in, out) on two halide_buffer_t*.
func CBlur(in, out unsafe.Pointer) int {
	return int(C.run_blur((*C.struct_halide_buffer_t)(in), (*C.struct_halide_buffer_t)(out)))
}

// COpenCLBlurKeep is C marking in host-dirty and calling
// blur_opencl(NULL, in, out), leaving out's result on the device
// (device-dirty, in a device allocation the runtime made).
func COpenCLBlurKeep(in, out unsafe.Pointer) int {
	return int(C.run_blur_opencl_keep((*C.struct_halide_buffer_t)(in), (*C.struct_halide_buffer_t)(out)))
}

// CDeviceFree is C calling halide_device_free(NULL, b).
func CDeviceFree(b unsafe.Pointer) int {
	return int(C.halide_device_free(nil, (*C.struct_halide_buffer_t)(b)))
}

// CCopyToHost is C calling halide_copy_to_host(NULL, b).
func CCopyToHost(b unsafe.Pointer) int {
	return int(C.halide_copy_to_host(nil, (*C.struct_halide_buffer_t)(b)))
}

// CDevice is b's device handle and flags as C sees them.
func CDevice(b unsafe.Pointer) (handle uint64, deviceDirty bool) {
	cb := (*C.struct_halide_buffer_t)(b)
	return uint64(cb.device), cb.flags&C.halide_buffer_flag_device_dirty != 0
}

// CSetDim is C setting dimension i of b.
func CSetDim(b unsafe.Pointer, i, min, extent, stride int) {
	C.set_dim((*C.struct_halide_buffer_t)(b), C.int(i), C.int(min), C.int(extent), C.int(stride))
}

// CMarkHostDirty is C setting b's host_dirty flag, as a C caller does
// before an OpenCL pipeline reads what it wrote on the host.
func CMarkHostDirty(b unsafe.Pointer) {
	(*C.struct_halide_buffer_t)(b).flags |= C.halide_buffer_flag_host_dirty
}

// CSet is C writing element (x, y) of a 2-D uint16 buffer.
func CSet(b unsafe.Pointer, x, y int, v uint16) {
	cb := (*C.struct_halide_buffer_t)(b)
	d := unsafe.Slice(cb.dim, 2)
	i := (x-int(d[0].min))*int(d[0].stride) + (y-int(d[1].min))*int(d[1].stride)
	unsafe.Slice((*uint16)(unsafe.Pointer(cb.host)), i+1)[i] = v
}

// CAt is C reading element (x, y) of a 2-D uint16 halide_buffer_t.
func CAt(b unsafe.Pointer, x, y int) uint16 {
	return uint16(C.at_u16((*C.struct_halide_buffer_t)(b), C.int(x), C.int(y)))
}
