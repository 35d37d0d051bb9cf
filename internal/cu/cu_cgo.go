//go:build cgo

package cu

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

// This file is the only one that crosses into C; it returns raw codes.

func cuLoad() error {
	var buf [512]C.char
	if C.rcu_load(&buf[0], C.size_t(len(buf))) != 0 {
		return errors.New(C.GoString(&buf[0]))
	}
	return nil
}

func cublasLoad() error {
	var buf [512]C.char
	if C.rcu_load_blas(&buf[0], C.size_t(len(buf))) != 0 {
		return errors.New(C.GoString(&buf[0]))
	}
	return nil
}

func nvrtcLoad() error {
	var buf [512]C.char
	if C.rcu_load_nvrtc(&buf[0], C.size_t(len(buf))) != 0 {
		return errors.New(C.GoString(&buf[0]))
	}
	return nil
}

func nvrtcErrorText(code int32) string {
	var buf [256]C.char
	C.rcu_nvrtc_error_text(C.rcu_result(code), &buf[0], C.size_t(len(buf)))
	return C.GoString(&buf[0])
}

func nvrtcVersion() (int, int, int32) {
	var a, b C.int
	code := C.rcu_nvrtc_version(&a, &b)
	return int(a), int(b), int32(code)
}

func nvrtcCompile(src, name string, options []string) ([]byte, string, int32) {
	var opts []byte
	for _, o := range options {
		opts = append(append(opts, o...), 0)
	}
	opts = append(opts, 0)
	cs, cn := C.CString(src), C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	defer C.free(unsafe.Pointer(cn))
	var img, lg *C.char
	var in, ln C.size_t
	code := C.rcu_nvrtc_compile(cs, cn, (*C.char)(unsafe.Pointer(&opts[0])), C.int(len(options)), &img, &in, &lg, &ln)
	defer C.rcu_free(unsafe.Pointer(img))
	defer C.rcu_free(unsafe.Pointer(lg))
	var image []byte
	if img != nil {
		image = C.GoBytes(unsafe.Pointer(img), C.int(in))
	}
	log := ""
	if lg != nil {
		log = C.GoStringN(lg, C.int(ln))
	}
	return image, log, int32(code)
}

func cuModuleLoad(ctx Context, image []byte) (Module, int32) {
	var m C.rcu_module
	code := C.rcu_module_load(ctxOf(ctx), &m, unsafe.Pointer(&image[0]))
	return Module(m), int32(code)
}

func cuModuleUnload(ctx Context, m Module) int32 {
	return int32(C.rcu_module_unload(ctxOf(ctx), C.rcu_module(m)))
}

func cuModuleFunction(ctx Context, m Module, name string) (Function, int32) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var f C.rcu_func
	code := C.rcu_module_function(ctxOf(ctx), &f, C.rcu_module(m), cn)
	return Function(f), int32(code)
}

func cuParamInfo(ctx Context, f Function, i int) (int, int, int32) {
	var off, size C.size_t
	code := C.rcu_func_param_info(ctxOf(ctx), C.rcu_func(f), C.size_t(i), &off, &size)
	return int(off), int(size), int32(code)
}

func cuFuncSetAttr(ctx Context, f Function, attr, v int) int32 {
	return int32(C.rcu_func_set_attr(ctxOf(ctx), C.rcu_func(f), C.int(attr), C.int(v)))
}

func cuLaunch(ctx Context, f Function, grid, block [3]int, shared int, s Stream, blob []byte, offs []int32) int32 {
	var b unsafe.Pointer
	if len(blob) > 0 {
		b = unsafe.Pointer(&blob[0])
	}
	var o *C.int
	if len(offs) > 0 {
		o = (*C.int)(unsafe.Pointer(&offs[0]))
	}
	return int32(C.rcu_launch(ctxOf(ctx), C.rcu_func(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shared), strOf(s), b, o, C.int(len(offs))))
}

func errorText(code int32) string {
	var buf [256]C.char
	C.rcu_error_text(C.rcu_result(code), &buf[0], C.size_t(len(buf)))
	return C.GoString(&buf[0])
}

func blasStatusText(code int32) string {
	var buf [128]C.char
	C.rcu_blas_status_text(C.rcu_result(code), &buf[0], C.size_t(len(buf)))
	return C.GoString(&buf[0])
}

func ctxOf(c Context) C.rcu_ctx   { return C.rcu_ctx(c) }
func strOf(s Stream) C.rcu_stream { return C.rcu_stream(s) }
func evOf(e Event) C.rcu_event    { return C.rcu_event(e) }
func dp(p DevicePtr) C.rcu_dptr   { return C.rcu_dptr(p) }
func blasOf(h BLAS) C.rcu_blas    { return C.rcu_blas(h) }

func cuInit() int32 { return int32(C.rcu_init()) }

func cuDriverVersion() (int, int32) {
	var v C.int
	code := C.rcu_driver_version(&v)
	return int(v), int32(code)
}

func cuDeviceCount() (int, int32) {
	var n C.int
	code := C.rcu_device_count(&n)
	return int(n), int32(code)
}

func cuDeviceGet(i int) (Device, int32) {
	var d C.rcu_device
	code := C.rcu_device_get(C.int(i), &d)
	return Device(d), int32(code)
}

func cuDeviceName(d Device) (string, int32) {
	var buf [maxName]C.char
	code := C.rcu_device_name(C.rcu_device(d), &buf[0], C.int(len(buf)))
	return C.GoString(&buf[0]), int32(code)
}

func cuDeviceAttr(d Device, a Attribute) (int, int32) {
	var v C.int
	code := C.rcu_device_attr(C.rcu_device(d), C.int(a), &v)
	return int(v), int32(code)
}

func cuDeviceTotalMem(d Device) (int64, int32) {
	var v C.size_t
	code := C.rcu_device_total_mem(C.rcu_device(d), &v)
	return int64(v), int32(code)
}

func cuPrimaryRetain(d Device) (Context, int32) {
	var c C.rcu_ctx
	code := C.rcu_primary_retain(C.rcu_device(d), &c)
	return Context(c), int32(code)
}

func cuPrimaryRelease(d Device) int32 { return int32(C.rcu_primary_release(C.rcu_device(d))) }

func cuMemAlloc(ctx Context, n int) (DevicePtr, int32) {
	var p C.rcu_dptr
	code := C.rcu_mem_alloc(ctxOf(ctx), &p, C.size_t(n))
	return DevicePtr(p), int32(code)
}

func cuMemFree(ctx Context, p DevicePtr) int32 { return int32(C.rcu_mem_free(ctxOf(ctx), dp(p))) }

func cuMemInfo(ctx Context) (int64, int64, int32) {
	var f, t C.size_t
	code := C.rcu_mem_info(ctxOf(ctx), &f, &t)
	return int64(f), int64(t), int32(code)
}

func cuHostAlloc(ctx Context, n int, flags uint32) (unsafe.Pointer, int32) {
	var p unsafe.Pointer
	code := C.rcu_host_alloc(ctxOf(ctx), &p, C.size_t(n), C.uint(flags))
	return p, int32(code)
}

func cuHostFree(ctx Context, p unsafe.Pointer) int32 { return int32(C.rcu_host_free(ctxOf(ctx), p)) }

func cuHtoD(ctx Context, dst DevicePtr, src unsafe.Pointer, n int, s Stream) int32 {
	return int32(C.rcu_htod(ctxOf(ctx), dp(dst), src, C.size_t(n), strOf(s)))
}

func cuDtoH(ctx Context, dst unsafe.Pointer, src DevicePtr, n int, s Stream) int32 {
	return int32(C.rcu_dtoh(ctxOf(ctx), dst, dp(src), C.size_t(n), strOf(s)))
}

func cuDtoD(ctx Context, dst, src DevicePtr, n int, s Stream) int32 {
	return int32(C.rcu_dtod(ctxOf(ctx), dp(dst), dp(src), C.size_t(n), strOf(s)))
}

func cuCopy2D(ctx Context, kind int, dev, dev2 DevicePtr, host unsafe.Pointer, dpitch, spitch, width, height int, s Stream) int32 {
	return int32(C.rcu_copy2d(ctxOf(ctx), C.int(kind), dp(dev), dp(dev2), host,
		C.size_t(dpitch), C.size_t(spitch), C.size_t(width), C.size_t(height), strOf(s)))
}

func cuMemset8(ctx Context, dst DevicePtr, v byte, n int, s Stream) int32 {
	return int32(C.rcu_memset8(ctxOf(ctx), dp(dst), C.uchar(v), C.size_t(n), strOf(s)))
}

func cuStreamCreate(ctx Context, flags uint32) (Stream, int32) {
	var s C.rcu_stream
	code := C.rcu_stream_create(ctxOf(ctx), &s, C.uint(flags))
	return Stream(s), int32(code)
}

func cuStreamSync(ctx Context, s Stream) int32 { return int32(C.rcu_stream_sync(ctxOf(ctx), strOf(s))) }
func cuStreamDestroy(ctx Context, s Stream) int32 {
	return int32(C.rcu_stream_destroy(ctxOf(ctx), strOf(s)))
}
func cuStreamWait(ctx Context, s Stream, e Event) int32 {
	return int32(C.rcu_stream_wait(ctxOf(ctx), strOf(s), evOf(e)))
}

func cuEventCreate(ctx Context, flags uint32) (Event, int32) {
	var e C.rcu_event
	code := C.rcu_event_create(ctxOf(ctx), &e, C.uint(flags))
	return Event(e), int32(code)
}

func cuEventRecord(ctx Context, e Event, s Stream) int32 {
	return int32(C.rcu_event_record(ctxOf(ctx), evOf(e), strOf(s)))
}
func cuEventSync(ctx Context, e Event) int32  { return int32(C.rcu_event_sync(ctxOf(ctx), evOf(e))) }
func cuEventQuery(ctx Context, e Event) int32 { return int32(C.rcu_event_query(ctxOf(ctx), evOf(e))) }
func cuEventElapsed(ctx Context, a, b Event) (float32, int32) {
	var ms C.float
	code := C.rcu_event_elapsed(ctxOf(ctx), &ms, evOf(a), evOf(b))
	return float32(ms), int32(code)
}
func cuEventDestroy(ctx Context, e Event) int32 {
	return int32(C.rcu_event_destroy(ctxOf(ctx), evOf(e)))
}

func cublasCreate(ctx Context) (BLAS, int32) {
	var h C.rcu_blas
	code := C.rcu_blas_create(ctxOf(ctx), &h)
	return BLAS(h), int32(code)
}

func cublasDestroy(ctx Context, h BLAS) int32 {
	return int32(C.rcu_blas_destroy(ctxOf(ctx), blasOf(h)))
}
func cublasSetStream(ctx Context, h BLAS, s Stream) int32 {
	return int32(C.rcu_blas_set_stream(ctxOf(ctx), blasOf(h), strOf(s)))
}
func cublasVersion(h BLAS) (int, int32) {
	var v C.int
	code := C.rcu_blas_version(blasOf(h), &v)
	return int(v), int32(code)
}

func cublasGemm(ctx Context, h BLAS, m, n, k, batch int, a, b, c *Matrix, compute int32) int32 {
	return int32(C.rcu_blas_gemm(ctxOf(ctx), blasOf(h), C.int(a.Trans), C.int(b.Trans), C.int(m), C.int(n), C.int(k),
		dp(a.Ptr), C.int(a.Type), C.int(a.LD), C.longlong(a.Stride),
		dp(b.Ptr), C.int(b.Type), C.int(b.LD), C.longlong(b.Stride),
		dp(c.Ptr), C.int(c.Type), C.int(c.LD), C.longlong(c.Stride),
		C.int(batch), C.int(compute)))
}

func cuCaptureBegin(ctx Context, s Stream, mode int) int32 {
	return int32(C.rcu_capture_begin(ctxOf(ctx), strOf(s), C.int(mode)))
}

func cuCaptureEnd(ctx Context, s Stream) (Graph, int32) {
	var g C.rcu_graph
	code := C.rcu_capture_end(ctxOf(ctx), strOf(s), &g)
	return Graph(g), int32(code)
}

func cuGraphInstantiate(ctx Context, g Graph) (GraphExec, int32) {
	var e C.rcu_exec
	code := C.rcu_graph_instantiate(ctxOf(ctx), &e, C.rcu_graph(g))
	return GraphExec(e), int32(code)
}

func cuGraphLaunch(ctx Context, e GraphExec, s Stream) int32 {
	return int32(C.rcu_graph_launch(ctxOf(ctx), C.rcu_exec(e), strOf(s)))
}

func cuGraphDestroy(ctx Context, g Graph) int32 {
	return int32(C.rcu_graph_destroy(ctxOf(ctx), C.rcu_graph(g)))
}

func cuGraphExecDestroy(ctx Context, e GraphExec) int32 {
	return int32(C.rcu_graph_exec_destroy(ctxOf(ctx), C.rcu_exec(e)))
}

func cuGraphKernels(ctx Context, g Graph) ([]GraphNode, []Function, int32) {
	var n C.int
	code := C.rcu_graph_kernels(ctxOf(ctx), C.rcu_graph(g), nil, nil, 0, &n)
	if code != 0 || n == 0 {
		return nil, nil, int32(code)
	}
	nodes := make([]GraphNode, int(n))
	funcs := make([]Function, int(n))
	code = C.rcu_graph_kernels(ctxOf(ctx), C.rcu_graph(g), (*C.rcu_node)(unsafe.Pointer(&nodes[0])),
		(*C.rcu_func)(unsafe.Pointer(&funcs[0])), n, &n)
	return nodes[:min(len(nodes), int(n))], funcs[:min(len(funcs), int(n))], int32(code)
}

func cuGraphKernelParams(ctx Context, nd GraphNode, blob []byte, offs, lens []int32) int32 {
	if len(offs) == 0 {
		return 0
	}
	return int32(C.rcu_graph_kernel_params(ctxOf(ctx), C.rcu_node(nd), unsafe.Pointer(&blob[0]),
		(*C.int)(unsafe.Pointer(&offs[0])), (*C.int)(unsafe.Pointer(&lens[0])), C.int(len(offs))))
}

func cuGraphExecSetParams(ctx Context, e GraphExec, nd GraphNode, blob []byte, offs []int32) int32 {
	var b unsafe.Pointer
	if len(blob) > 0 {
		b = unsafe.Pointer(&blob[0])
	}
	var o *C.int
	if len(offs) > 0 {
		o = (*C.int)(unsafe.Pointer(&offs[0]))
	}
	return int32(C.rcu_graph_exec_set_params(ctxOf(ctx), C.rcu_exec(e), C.rcu_node(nd), b, o, C.int(len(offs))))
}

func cuHostCopyNew(dst, src unsafe.Pointer, rows []int) HostCopy {
	r := make([]C.size_t, len(rows))
	for i, v := range rows {
		r[i] = C.size_t(v)
	}
	var rp *C.size_t
	if len(r) > 0 {
		rp = &r[0]
	}
	return HostCopy(C.rcu_host_copy_new(dst, src, rp, C.size_t(len(rows)/2)))
}

func cuHostCopyFree(h HostCopy) { C.rcu_host_copy_free(C.rcu_hcopy(h)) }

func cuLaunchHostCopy(ctx Context, s Stream, h HostCopy) int32 {
	return int32(C.rcu_launch_host_copy(ctxOf(ctx), strOf(s), C.rcu_hcopy(h)))
}

// ReadBack is the C function that reads device memory back for
// internal/uffd's fills (uffd.h's ruffd_read_fn: a0 the context, a1 the
// stream, off the device address).
func ReadBack() unsafe.Pointer { return C.rcu_read_back }
