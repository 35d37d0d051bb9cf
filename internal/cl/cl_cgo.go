//go:build cgo

package cl

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// This file is the only one that crosses into C. Every function takes Go
// values already validated by its caller and returns the raw cl_int code.

func clLoad() error {
	var buf [512]C.char
	if C.rcl_load(&buf[0], C.size_t(len(buf))) != 0 {
		return errors.New(C.GoString(&buf[0]))
	}
	return nil
}

func uptr(s []uintptr) *C.uintptr_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uintptr_t)(unsafe.Pointer(&s[0]))
}

// waitList views an Event slice as a cl_event array: Event is one uintptr.
func waitList(w []Event) (C.cl_uint, *C.uintptr_t) {
	if len(w) == 0 {
		return 0, nil
	}
	return C.cl_uint(len(w)), (*C.uintptr_t)(unsafe.Pointer(&w[0]))
}

func evPtr(ev *Event) *C.uintptr_t {
	if ev == nil {
		return nil
	}
	return (*C.uintptr_t)(unsafe.Pointer(&ev.h))
}

// sizes converts a Go triple to size_t; a nil triple stays NULL.
func sizes(a *[3]int) *C.size_t {
	if a == nil {
		return nil
	}
	s := new([3]C.size_t)
	for i := range a {
		s[i] = C.size_t(a[i])
	}
	return &s[0]
}

func clPlatformIDs(out []uintptr) (int, int32) {
	var n C.cl_uint
	code := C.rcl_get_platform_ids(C.cl_uint(len(out)), uptr(out), &n)
	return int(n), int32(code)
}

func clDeviceIDs(p uintptr, typ uint64, out []uintptr) (int, int32) {
	var n C.cl_uint
	code := C.rcl_get_device_ids(C.uintptr_t(p), C.cl_ulong(typ), C.cl_uint(len(out)), uptr(out), &n)
	return int(n), int32(code)
}

func clInfo(kind int, obj, obj2 uintptr, param uint32, out []byte) (int, int32) {
	var ret C.size_t
	var p unsafe.Pointer
	if len(out) > 0 {
		p = unsafe.Pointer(&out[0])
	}
	code := C.rcl_get_info(C.int(kind), C.uintptr_t(obj), C.uintptr_t(obj2), C.cl_uint(param), C.size_t(len(out)), p, &ret)
	return int(ret), int32(code)
}

func clRetain(kind int, h uintptr) int32  { return int32(C.rcl_retain(C.int(kind), C.uintptr_t(h))) }
func clRelease(kind int, h uintptr) int32 { return int32(C.rcl_release(C.int(kind), C.uintptr_t(h))) }

func clCreateSubDevices(dev uintptr, units int, out []uintptr) (int, int32) {
	var num C.cl_uint
	code := C.rcl_create_sub_devices(C.uintptr_t(dev), C.cl_uint(units), C.cl_uint(len(out)), uptr(out), &num)
	return int(num), int32(code)
}

func clReleaseDevice(dev uintptr) int32 { return int32(C.rcl_release_device(C.uintptr_t(dev))) }

func clCreateContext(platform uintptr, devs []uintptr) (uintptr, int32) {
	r := C.rcl_create_context(C.uintptr_t(platform), C.cl_uint(len(devs)), uptr(devs))
	return uintptr(r.h), int32(r.err)
}

func clCreateQueue(ctx, dev uintptr, props uint64) (uintptr, int32) {
	r := C.rcl_create_queue(C.uintptr_t(ctx), C.uintptr_t(dev), C.cl_ulong(props))
	return uintptr(r.h), int32(r.err)
}

func clCreateBuffer(ctx uintptr, flags uint64, size int) (uintptr, int32) {
	r := C.rcl_create_buffer(C.uintptr_t(ctx), C.cl_ulong(flags), C.size_t(size))
	return uintptr(r.h), int32(r.err)
}

func clCreateSubBuffer(mem uintptr, flags uint64, origin, size int) (uintptr, int32) {
	r := C.rcl_create_sub_buffer(C.uintptr_t(mem), C.cl_ulong(flags), C.size_t(origin), C.size_t(size))
	return uintptr(r.h), int32(r.err)
}

func cbool(b bool) C.cl_bool {
	if b {
		return 1
	}
	return 0
}

// clRW reads or writes a buffer. ptr is Go memory only when blocking.
func clRW(q, mem uintptr, write, blocking bool, off, n int, ptr unsafe.Pointer, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	wr := C.int(0)
	if write {
		wr = 1
	}
	return int32(C.rcl_rw(C.uintptr_t(q), C.uintptr_t(mem), wr, cbool(blocking), C.size_t(off), C.size_t(n), ptr, nw, w, evPtr(ev)))
}

// clRWRect is clRW for a rectangle; the pitches in r are already resolved.
func clRWRect(q, mem uintptr, write, blocking bool, r *Rect, ptr unsafe.Pointer, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	wr := C.int(0)
	if write {
		wr = 1
	}
	bo, ho, rg := sizes(&r.BufferOrigin), sizes(&r.HostOrigin), sizes(&r.Region)
	return int32(C.rcl_rw_rect(C.uintptr_t(q), C.uintptr_t(mem), wr, cbool(blocking), bo, ho, rg,
		C.size_t(r.BufferRowPitch), C.size_t(r.BufferSlicePitch), C.size_t(r.HostRowPitch), C.size_t(r.HostSlicePitch),
		ptr, nw, w, evPtr(ev)))
}

func clCopy(q, src, dst uintptr, srcOff, dstOff, n int, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	return int32(C.rcl_copy(C.uintptr_t(q), C.uintptr_t(src), C.uintptr_t(dst), C.size_t(srcOff), C.size_t(dstOff), C.size_t(n), nw, w, evPtr(ev)))
}

func clCopyRect(q, src, dst uintptr, r *CopyRect, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	so, do, rg := sizes(&r.SrcOrigin), sizes(&r.DstOrigin), sizes(&r.Region)
	return int32(C.rcl_copy_rect(C.uintptr_t(q), C.uintptr_t(src), C.uintptr_t(dst), so, do, rg,
		C.size_t(r.SrcRowPitch), C.size_t(r.SrcSlicePitch), C.size_t(r.DstRowPitch), C.size_t(r.DstSlicePitch),
		nw, w, evPtr(ev)))
}

func clFill(q, mem uintptr, pattern []byte, off, n int, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	return int32(C.rcl_fill(C.uintptr_t(q), C.uintptr_t(mem), unsafe.Pointer(&pattern[0]), C.size_t(len(pattern)), C.size_t(off), C.size_t(n), nw, w, evPtr(ev)))
}

func clMap(q, mem uintptr, blocking bool, flags uint64, off, n int, wait []Event, ev *Event) (unsafe.Pointer, int32) {
	nw, w := waitList(wait)
	r := C.rcl_map(C.uintptr_t(q), C.uintptr_t(mem), cbool(blocking), C.cl_ulong(flags), C.size_t(off), C.size_t(n), nw, w, evPtr(ev))
	return r.p, int32(r.err)
}

func clUnmap(q, mem uintptr, ptr unsafe.Pointer, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	return int32(C.rcl_unmap(C.uintptr_t(q), C.uintptr_t(mem), ptr, nw, w, evPtr(ev)))
}

func clCreateProgram(ctx uintptr, src string) (uintptr, int32) {
	r := C.rcl_create_program(C.uintptr_t(ctx), (*C.char)(unsafe.Pointer(unsafe.StringData(src))), C.size_t(len(src)))
	return uintptr(r.h), int32(r.err)
}

func clBuildProgram(prog uintptr, devs []uintptr, options string) int32 {
	o := C.CString(options)
	defer C.free(unsafe.Pointer(o))
	return int32(C.rcl_build_program(C.uintptr_t(prog), C.cl_uint(len(devs)), uptr(devs), o))
}

func clCreateKernel(prog uintptr, name string) (uintptr, int32) {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	r := C.rcl_create_kernel(C.uintptr_t(prog), n)
	return uintptr(r.h), int32(r.err)
}

func clSetKernelArg(k uintptr, idx, size int, val unsafe.Pointer) int32 {
	return int32(C.rcl_set_kernel_arg(C.uintptr_t(k), C.cl_uint(idx), C.size_t(size), val))
}

func clNDRange(q, k uintptr, dims int, offset, global, local *[3]int, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	o, g, l := sizes(offset), sizes(global), sizes(local)
	return int32(C.rcl_ndrange(C.uintptr_t(q), C.uintptr_t(k), C.cl_uint(dims), o, g, l, nw, w, evPtr(ev)))
}

func clWait(evs []Event) int32 {
	n, w := waitList(evs)
	return int32(C.rcl_wait(n, w))
}

func clFlush(q uintptr) int32  { return int32(C.rcl_flush(C.uintptr_t(q))) }
func clFinish(q uintptr) int32 { return int32(C.rcl_finish(C.uintptr_t(q))) }

func clMarker(q uintptr, wait []Event) (Event, int32) {
	nw, w := waitList(wait)
	var ev C.uintptr_t
	rc := C.rcl_marker(C.uintptr_t(q), nw, w, &ev)
	return Event{h: uintptr(ev)}, int32(rc)
}

// clBarrier enqueues a barrier; ev may be nil.
func clBarrier(q uintptr, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	return int32(C.rcl_barrier(C.uintptr_t(q), nw, w, evPtr(ev)))
}

func clCmdBufLoad(platform uintptr) int { return int(C.rcl_cmdbuf_load(C.uintptr_t(platform))) }

func clCmdBufCreate(q uintptr, simultaneous bool) (uintptr, int32) {
	s := C.int(0)
	if simultaneous {
		s = 1
	}
	r := C.rcl_cmdbuf_create(C.uintptr_t(q), s)
	return uintptr(r.h), int32(r.err)
}

func chain(synced bool) C.int {
	if synced {
		return 1
	}
	return 0
}

func clCmdBufNDRange(b, k uintptr, dims int, global, local *[3]int, synced bool, sync *uint32) int32 {
	g, l := sizes(global), sizes(local)
	var s C.cl_uint = C.cl_uint(*sync)
	code := C.rcl_cmdbuf_ndrange(C.uintptr_t(b), C.uintptr_t(k), C.cl_uint(dims), g, l, chain(synced), &s)
	*sync = uint32(s)
	return int32(code)
}

func clCmdBufCopy(b, src, dst uintptr, srcOff, dstOff, n int, synced bool, sync *uint32) int32 {
	var s C.cl_uint = C.cl_uint(*sync)
	code := C.rcl_cmdbuf_copy(C.uintptr_t(b), C.uintptr_t(src), C.uintptr_t(dst), C.size_t(srcOff), C.size_t(dstOff), C.size_t(n), chain(synced), &s)
	*sync = uint32(s)
	return int32(code)
}

func clCmdBufFinalize(b uintptr) int32 { return int32(C.rcl_cmdbuf_finalize(C.uintptr_t(b))) }
func clCmdBufRelease(b uintptr) int32  { return int32(C.rcl_cmdbuf_release(C.uintptr_t(b))) }

func clCmdBufEnqueue(q, b uintptr, wait []Event, ev *Event) int32 {
	nw, w := waitList(wait)
	return int32(C.rcl_cmdbuf_enqueue(C.uintptr_t(q), C.uintptr_t(b), nw, w, evPtr(ev)))
}

// ReadBack is the C function that reads a buffer back for internal/uffd's
// fills (uffd.h's ruffd_read_fn: a0 the queue, a1 the buffer).
func ReadBack() unsafe.Pointer { return C.rcl_read_back }
