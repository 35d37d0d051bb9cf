package rt

// #include <stdlib.h>
// #include "cl.h"
// #include "cuda.h"
// #include "frame.h"
// #include "hooks.h"
// #include "setters.h"
// #include "HalideRuntimeOpenCL.h"
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Type is halide_type_t.
type Type struct {
	Code  uint8
	Bits  uint8
	Lanes uint16
}

// Dim is halide_dimension_t: element x of the dimension is at
// (x - Min) * Stride elements from the buffer's host pointer.
type Dim struct {
	Min, Extent, Stride int32
	Flags               uint32
}

// Buffer flags (halide_buffer_flag_*).
const (
	HostDirty   = 1
	DeviceDirty = 2
)

// Buffer is halide_buffer_t.
type Buffer struct {
	Device          uint64
	DeviceInterface unsafe.Pointer
	Host            unsafe.Pointer
	Flags           uint64
	Type            Type
	Dimensions      int32
	Dim             *Dim
	Padding         unsafe.Pointer
}

// Dims is b's dim array as a slice; nil for none.
func (b *Buffer) Dims() []Dim {
	if b.Dim == nil || b.Dimensions <= 0 {
		return nil
	}
	return unsafe.Slice(b.Dim, int(b.Dimensions))
}

// SetHost stores p as b's host pointer as an integer: b lives in C memory,
// and a typed store would run the GC's write barrier on the old value,
// whose Go memory may have been freed since ("found bad pointer in Go
// heap"). p must be pinned or C memory.
func (b *Buffer) SetHost(p unsafe.Pointer) { *(*uintptr)(unsafe.Pointer(&b.Host)) = uintptr(p) }

// CopyHost is SetHost(from.Host), read as an integer too.
func (b *Buffer) CopyHost(from *Buffer) {
	*(*uintptr)(unsafe.Pointer(&b.Host)) = *(*uintptr)(unsafe.Pointer(&from.Host))
}

// How a Buf's device handle was made (GOHL_DEV_*).
const (
	DevNone    = C.GOHL_DEV_NONE
	DevWrapped = C.GOHL_DEV_WRAPPED // a wrapped cl_mem
	DevCrop    = C.GOHL_DEV_CROP    // a crop of a cl_mem at an offset
	DevCUDA    = C.GOHL_DEV_CUDA    // a CUdeviceptr
)

// Buf is gohl_buf: one Array's halide_buffer_t in C memory, its dims
// after it, and how its device handle was made.
type Buf struct {
	B    Buffer
	Kind int32
	Mem  uint64
	Off  int64
}

// Hooks a call has of its own (GOHL_HOOK_*).
const (
	HookPrint = C.GOHL_HOOK_PRINT
	HookTrace = C.GOHL_HOOK_TRACE
)

// FeatureWords is the uint64 words of Halide 14's target features.
const FeatureWords = C.GOHL_FEATURE_WORDS

// Ctx is gohl_ctx, a call's user_context: its device, its Go state's
// slot, the target a multi-target call chose and the runtime's messages.
type Ctx struct {
	CL             *CL
	CLGen          int64
	CU             *CU
	CUGen          int64
	CLRec          *CLRec
	Slot           int32
	Hooks          int32
	TargetAsked    int32
	TargetChosen   int32
	TargetFeatures [FeatureWords]uint64
	TargetRefused  [FeatureWords]uint64
	Texture        int32
	TextureArgs    [256]byte
	Len            int32
	Msg            [C.GOHL_MSG]byte
}

// Messages is what the error handler collected for the call: each
// message NUL-terminated.
func (c *Ctx) Messages() string { return string(c.Msg[:c.Len]) }

// TextureArgNames is what the texture probe found: kernel parameter
// names, space-separated.
func (c *Ctx) TextureArgNames() string {
	n := 0
	for n < len(c.TextureArgs) && c.TextureArgs[n] != 0 {
		n++
	}
	return string(c.TextureArgs[:n])
}

// Scalar is halide_scalar_value_t: 8 bytes holding any scalar.
type Scalar [8]byte

// Frame is gohl_frame: everything one call passes to NAME_argv.
type Frame struct {
	Ctx     Ctx
	UC      unsafe.Pointer // what Args[0] points at for __user_context
	Args    *unsafe.Pointer
	Scalars *Scalar
}

// FilterArgument is halide_filter_argument_t.
type FilterArgument struct {
	Name                                            *byte
	Kind                                            int32
	Dimensions                                      int32
	Type                                            Type
	ScalarDef, ScalarMin, ScalarMax, ScalarEstimate *Scalar
	BufferEstimates                                 **int64
}

// FilterMetadata is halide_filter_metadata_t.
type FilterMetadata struct {
	Version      int32
	NumArguments int32
	Arguments    *FilterArgument
	Target       *byte
	Name         *byte
}

// TraceEvent is halide_trace_event_t.
type TraceEvent struct {
	Func        *byte
	Value       unsafe.Pointer
	Coordinates *int32
	TraceTag    *byte
	Type        Type
	Event       int32
	ParentID    int32
	ValueIndex  int32
	Dimensions  int32
}

// CL is one OpenCL device as the runtime sees it (gohl_cl, cl.c).
type CL C.gohl_cl

// CU is one CUDA device as the runtime sees it (gohl_cu, cuda.c).
type CU C.gohl_cu

// GoString is the NUL-terminated C string at p ("" for nil).
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	return C.GoString((*C.char)(unsafe.Pointer(p)))
}

func cstr(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// ---- registry ----

// Registered is the number of pipelines registered by their static
// initializers (-e registration), all before any Go code runs.
func Registered() int { return int(C.gohl_registry_len()) }

// Registration is pipeline i's metadata and NAME_argv.
func Registration(i int) (*FilterMetadata, unsafe.Pointer) {
	return (*FilterMetadata)(unsafe.Pointer(C.gohl_registry_md(C.int(i)))), C.gohl_registry_argv(C.int(i))
}

// ---- frames and calls ----

// NewFrame is a frame for nargs arguments in C memory; nil when out of
// memory. Free it with FreeFrame.
func NewFrame(nargs int) *Frame { return (*Frame)(unsafe.Pointer(C.gohl_frame_new(C.int(nargs)))) }

// FreeFrame frees f.
func FreeFrame(f *Frame) { C.gohl_frame_free((*C.gohl_frame)(unsafe.Pointer(f))) }

// Call runs the pipeline argv on f through the entry point that cannot
// call Go (the fast one), and returns its code. It passes integers, so
// cgo has nothing to check: both point to C memory.
func Call(argv unsafe.Pointer, f *Frame) int {
	return int(C.gohl_call(C.uintptr_t(uintptr(argv)), C.uintptr_t(uintptr(unsafe.Pointer(f)))))
}

// CallBack is Call through the entry point that may call back into Go.
func CallBack(argv unsafe.Pointer, f *Frame) int {
	return int(C.gohl_call_cb(C.uintptr_t(uintptr(argv)), C.uintptr_t(uintptr(unsafe.Pointer(f)))))
}

// CallLoop runs argv on f n times from a C loop (a benchmark's baseline).
func CallLoop(argv unsafe.Pointer, f *Frame, n int) int {
	return int(C.gohl_call_loop(argv, (*C.gohl_frame)(unsafe.Pointer(f)), C.int64_t(n)))
}

// InitCtx zeroes c, a ctx outside any frame (for runtime calls).
func InitCtx(c *Ctx) { C.gohl_ctx_init(cctx(c)) }

func cctx(c *Ctx) *C.gohl_ctx { return (*C.gohl_ctx)(unsafe.Pointer(c)) }
func cbuf(b *Buf) *C.gohl_buf { return (*C.gohl_buf)(unsafe.Pointer(b)) }
func chb(b *Buffer) *C.struct_halide_buffer_t {
	return (*C.struct_halide_buffer_t)(unsafe.Pointer(b))
}

// ---- buffers ----

// NewBuf is a zeroed Buf of rank dims in C memory (Dim points at them);
// nil when out of memory.
func NewBuf(rank int) *Buf { return (*Buf)(unsafe.Pointer(C.gohl_buf_new(C.int(rank)))) }

// FreeBuf frees b (its device handle must be detached).
func FreeBuf(b *Buf) { C.gohl_buf_free(cbuf(b)) }

// SetDevice points b at byte off of the cl_mem mem (0: none), through
// the runtime (a wrapped handle, or a crop at an offset).
func (b *Buf) SetDevice(ctx *Ctx, mem uint64, off int64) int {
	return int(C.gohl_buf_set_device(cctx(ctx), cbuf(b), C.uint64_t(mem), C.int64_t(off)))
}

// SetCUDADevice points b at the CUdeviceptr ptr.
func (b *Buf) SetCUDADevice(ctx *Ctx, ptr uint64) int {
	return int(C.gohl_cu_buf_set_device(cctx(ctx), cbuf(b), C.uint64_t(ptr)))
}

// Reclaim copies a device allocation the runtime made by itself home and
// frees it.
func (b *Buf) Reclaim(ctx *Ctx) int { return int(C.gohl_buf_reclaim(cctx(ctx), cbuf(b))) }

// NewBufs is an array of n Buf pointers in C memory, nil when out of
// memory; free it with FreeBufs. Its capacity is at least one, so the
// array's address is known for n = 0 too.
func NewBufs(n int) []*Buf {
	p := C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(uintptr(0))))
	if p == nil {
		return nil
	}
	return unsafe.Slice((**Buf)(p), max(n, 1))[:n]
}

// FreeBufs detaches and frees every Buf of bs, then the array.
func FreeBufs(bs []*Buf) {
	p := unsafe.SliceData(bs[:cap(bs)])
	C.gohl_fbufs_free((**C.gohl_buf)(unsafe.Pointer(p)), C.int(len(bs)))
	C.free(unsafe.Pointer(p))
}

// DropCrops drops the crop handles of bs (they hold a reference on their
// cl_mem), so a pooled frame keeps no device memory alive.
func DropCrops(ctx *Ctx, bs []*Buf) int {
	p := unsafe.SliceData(bs[:cap(bs)])
	return int(C.gohl_bufs_drop_crops(cctx(ctx), (**C.gohl_buf)(unsafe.Pointer(p)), C.int(len(bs))))
}

// Calloc is n zeroed bytes of C memory (never freed by Go).
func Calloc(n int) unsafe.Pointer { return C.calloc(1, C.size_t(n)) }

// ---- the runtime ----

// ReuseDeviceAllocations is halide_reuse_device_allocations.
func ReuseDeviceAllocations(on bool) { C.halide_reuse_device_allocations(nil, C.bool(on)) }

// ReusesDeviceAllocations is halide_can_reuse_device_allocations.
func ReusesDeviceAllocations() bool { return bool(C.halide_can_reuse_device_allocations(nil)) }

// CopyToHost is halide_copy_to_host.
func CopyToHost(uc unsafe.Pointer, b *Buffer) int { return int(C.halide_copy_to_host(uc, chb(b))) }

// DeviceDetachNative is halide_device_detach_native.
func DeviceDetachNative(uc unsafe.Pointer, b *Buffer) int {
	return int(C.halide_device_detach_native(uc, chb(b)))
}

// Report hands msg to the error handler, which routes it to the call uc
// names (or this thread's call).
func Report(uc unsafe.Pointer, msg string) {
	s := C.CString(msg)
	defer C.free(unsafe.Pointer(s))
	C.gohl_report(uc, s)
}

// ---- OpenCL ----

// OpenCLDeviceInterface is halide_opencl_device_interface().
func OpenCLDeviceInterface() unsafe.Pointer {
	return unsafe.Pointer(C.halide_opencl_device_interface())
}

// OpenCLCropOffset is halide_opencl_get_crop_offset.
func OpenCLCropOffset(uc unsafe.Pointer, b *Buffer) int64 {
	return int64(C.halide_opencl_get_crop_offset(uc, chb(b)))
}

// OpenCLMem is halide_opencl_get_cl_mem.
func OpenCLMem(uc unsafe.Pointer, b *Buffer) uintptr {
	return uintptr(C.halide_opencl_get_cl_mem(uc, chb(b)))
}

// OpenCLPlatformName and OpenCLDeviceType are what C chose with
// halide_opencl_set_platform_name and _set_device_type ("" for none).
func OpenCLPlatformName() string { return cstr(C.halide_opencl_get_platform_name(nil)) }
func OpenCLDeviceType() string   { return cstr(C.halide_opencl_get_device_type(nil)) }

// ReleaseCLMem drops one reference to a cl_mem.
func ReleaseCLMem(mem uintptr) { C.gohl_cl_release_mem(C.uintptr_t(mem)) }

// OpenCL is the runtime's state for one device's context and queue;
// nil when out of memory. It may be a retired one, reused.
func OpenCL(ctx, queue uintptr) *CL {
	return (*CL)(C.gohl_cl_open(C.uintptr_t(ctx), C.uintptr_t(queue)))
}

// Close releases the runtime's state for cl's context (its programs)
// while it is still valid, and retires cl: calls still holding it fail.
func (cl *CL) Close() { C.gohl_cl_close((*C.gohl_cl)(cl)) }

// Acquires counts the runtime's context acquires on cl (nil: all).
func (cl *CL) Acquires() int64 { return int64(C.gohl_cl_acquires((*C.gohl_cl)(cl))) }

// Bind routes ctx's calls to cl as it is now: if cl is retired and reused
// for another device meanwhile, the runtime's acquire fails instead of
// handing it the other device's context.
func (cl *CL) Bind(ctx *Ctx) {
	ctx.CL = cl
	ctx.CLGen = atomic.LoadInt64((*int64)(unsafe.Pointer(&cl.gen)))
}

// SetBuildOptions sets cl's own OpenCL build options; false once the
// runtime has built kernels on cl (they keep their options) or other
// options were set; true for the options already set. opts has no NUL
// and fits 511 bytes.
func (cl *CL) SetBuildOptions(opts string) bool {
	s := C.CString(opts)
	defer C.free(unsafe.Pointer(s))
	return C.gohl_cl_set_opts((*C.gohl_cl)(cl), s) == 0
}

// BuildOptions is what a kernel build on cl gets: the process-wide
// options, then cl's.
func (cl *CL) BuildOptions() string { return cstr(C.gohl_build_options((*C.gohl_cl)(cl))) }

// TextureProbe runs argv once on f as a bounds query, so the runtime
// builds the kernels, and reports whether one takes an image.
func TextureProbe(argv unsafe.Pointer, f *Frame) bool {
	return C.gohl_cl_texture_probe(C.uintptr_t(uintptr(argv)), (*C.gohl_frame)(unsafe.Pointer(f))) != 0
}

// RuntimeTransfers counts the copies between host and device that the
// OpenCL runtime made by itself.
func RuntimeTransfers() (reads, writes int64) {
	var r, w C.int64_t
	C.gohl_runtime_transfers(&r, &w)
	return int64(r), int64(w)
}

// ---- CUDA ----

// CUDA is the runtime's state for one device's context and stream; nil
// when out of memory.
func CUDA(ctx, stream uintptr) *CU {
	return (*CU)(C.gohl_cu_open(C.uintptr_t(ctx), C.uintptr_t(stream)))
}

// Close unloads the runtime's modules for cu's context and retires cu.
func (cu *CU) Close() { C.gohl_cu_close((*C.gohl_cu)(cu)) }

// Acquires counts the runtime's context acquires on cu (nil: all).
func (cu *CU) Acquires() int64 { return int64(C.gohl_cu_acquires((*C.gohl_cu)(cu))) }

// Bind routes ctx's calls to cu as it is now.
func (cu *CU) Bind(ctx *Ctx) { C.gohl_cu_bind(cctx(ctx), (*C.gohl_cu)(cu)) }

// CUDARuntimeTransfers counts the copies the CUDA runtime made by itself.
func CUDARuntimeTransfers() (reads, writes int64) {
	var r, w C.int64_t
	C.gohl_cu_runtime_transfers(&r, &w)
	return int64(r), int64(w)
}

// ---- hooks and setters ----

// DefaultPrint prints msg (a NUL-terminated C string) as C chose, else as
// the runtime does.
func DefaultPrint(msg unsafe.Pointer) { C.gohl_default_print(nil, (*C.char)(msg)) }

// DefaultTrace traces e as C chose, else as the runtime does.
func DefaultTrace(e *TraceEvent) int32 {
	return int32(C.gohl_default_trace(nil, (*C.struct_halide_trace_event_t)(unsafe.Pointer(e))))
}

// XBuf is an extern stage argument kind: a halide_buffer_t*; the others
// are (type code << 8) | bits.
const XBuf = C.GOHL_XBUF

// ---- layout ----

func init() {
	if err := CheckLayout(); err != nil {
		panic(err)
	}
}

// CheckLayout reports the first Go mirror whose layout differs from its
// C struct.
func CheckLayout() error {
	type pair struct {
		what   string
		go_, c uintptr
	}
	var (
		b  Buffer
		cb C.struct_halide_buffer_t
		g  Buf
		cg C.gohl_buf
		x  Ctx
		cx C.gohl_ctx
		f  Frame
		cf C.gohl_frame
		a  FilterArgument
		ca C.struct_halide_filter_argument_t
		m  FilterMetadata
		cm C.struct_halide_filter_metadata_t
		e  TraceEvent
		ce C.struct_halide_trace_event_t
		d  Dim
		cd C.struct_halide_dimension_t
	)
	for _, p := range []pair{
		{"Dim", unsafe.Sizeof(d), unsafe.Sizeof(cd)},
		{"Dim.Flags", unsafe.Offsetof(d.Flags), unsafe.Offsetof(cd.flags)},
		{"Type", unsafe.Sizeof(b.Type), unsafe.Sizeof(cb._type)},
		{"Scalar", unsafe.Sizeof(Scalar{}), unsafe.Sizeof(C.struct_halide_scalar_value_t{})},
		{"Buffer", unsafe.Sizeof(b), unsafe.Sizeof(cb)},
		{"Buffer.DeviceInterface", unsafe.Offsetof(b.DeviceInterface), unsafe.Offsetof(cb.device_interface)},
		{"Buffer.Host", unsafe.Offsetof(b.Host), unsafe.Offsetof(cb.host)},
		{"Buffer.Flags", unsafe.Offsetof(b.Flags), unsafe.Offsetof(cb.flags)},
		{"Buffer.Type", unsafe.Offsetof(b.Type), unsafe.Offsetof(cb._type)},
		{"Buffer.Dimensions", unsafe.Offsetof(b.Dimensions), unsafe.Offsetof(cb.dimensions)},
		{"Buffer.Dim", unsafe.Offsetof(b.Dim), unsafe.Offsetof(cb.dim)},
		{"Buffer.Padding", unsafe.Offsetof(b.Padding), unsafe.Offsetof(cb.padding)},
		{"Buf", unsafe.Sizeof(g), unsafe.Sizeof(cg)},
		{"Buf.Kind", unsafe.Offsetof(g.Kind), unsafe.Offsetof(cg.kind)},
		{"Buf.Mem", unsafe.Offsetof(g.Mem), unsafe.Offsetof(cg.mem)},
		{"Buf.Off", unsafe.Offsetof(g.Off), unsafe.Offsetof(cg.off)},
		{"Ctx", unsafe.Sizeof(x), unsafe.Sizeof(cx)},
		{"Ctx.CLGen", unsafe.Offsetof(x.CLGen), unsafe.Offsetof(cx.cl_gen)},
		{"Ctx.CU", unsafe.Offsetof(x.CU), unsafe.Offsetof(cx.cu)},
		{"Ctx.CUGen", unsafe.Offsetof(x.CUGen), unsafe.Offsetof(cx.cu_gen)},
		{"Ctx.CLRec", unsafe.Offsetof(x.CLRec), unsafe.Offsetof(cx.clrec)},
		{"Ctx.Slot", unsafe.Offsetof(x.Slot), unsafe.Offsetof(cx.slot)},
		{"Ctx.Hooks", unsafe.Offsetof(x.Hooks), unsafe.Offsetof(cx.hooks)},
		{"Ctx.TargetAsked", unsafe.Offsetof(x.TargetAsked), unsafe.Offsetof(cx.target_asked)},
		{"Ctx.TargetChosen", unsafe.Offsetof(x.TargetChosen), unsafe.Offsetof(cx.target_chosen)},
		{"Ctx.TargetFeatures", unsafe.Offsetof(x.TargetFeatures), unsafe.Offsetof(cx.target_features)},
		{"Ctx.TargetRefused", unsafe.Offsetof(x.TargetRefused), unsafe.Offsetof(cx.target_refused)},
		{"Ctx.Texture", unsafe.Offsetof(x.Texture), unsafe.Offsetof(cx.texture)},
		{"Ctx.TextureArgs", unsafe.Offsetof(x.TextureArgs), unsafe.Offsetof(cx.texture_args)},
		{"Ctx.Len", unsafe.Offsetof(x.Len), unsafe.Offsetof(cx.len)},
		{"Ctx.Msg", unsafe.Offsetof(x.Msg), unsafe.Offsetof(cx.msg)},
		{"Frame", unsafe.Sizeof(f), unsafe.Sizeof(cf)},
		{"Frame.UC", unsafe.Offsetof(f.UC), unsafe.Offsetof(cf.uc)},
		{"Frame.Args", unsafe.Offsetof(f.Args), unsafe.Offsetof(cf.args)},
		{"Frame.Scalars", unsafe.Offsetof(f.Scalars), unsafe.Offsetof(cf.scalars)},
		{"FilterArgument", unsafe.Sizeof(a), unsafe.Sizeof(ca)},
		{"FilterArgument.Kind", unsafe.Offsetof(a.Kind), unsafe.Offsetof(ca.kind)},
		{"FilterArgument.Dimensions", unsafe.Offsetof(a.Dimensions), unsafe.Offsetof(ca.dimensions)},
		{"FilterArgument.Type", unsafe.Offsetof(a.Type), unsafe.Offsetof(ca._type)},
		{"FilterArgument.ScalarDef", unsafe.Offsetof(a.ScalarDef), unsafe.Offsetof(ca.scalar_def)},
		{"FilterArgument.ScalarEstimate", unsafe.Offsetof(a.ScalarEstimate), unsafe.Offsetof(ca.scalar_estimate)},
		{"FilterArgument.BufferEstimates", unsafe.Offsetof(a.BufferEstimates), unsafe.Offsetof(ca.buffer_estimates)},
		{"FilterMetadata", unsafe.Sizeof(m), unsafe.Sizeof(cm)},
		{"FilterMetadata.NumArguments", unsafe.Offsetof(m.NumArguments), unsafe.Offsetof(cm.num_arguments)},
		{"FilterMetadata.Arguments", unsafe.Offsetof(m.Arguments), unsafe.Offsetof(cm.arguments)},
		{"FilterMetadata.Target", unsafe.Offsetof(m.Target), unsafe.Offsetof(cm.target)},
		{"FilterMetadata.Name", unsafe.Offsetof(m.Name), unsafe.Offsetof(cm.name)},
		{"TraceEvent", unsafe.Sizeof(e), unsafe.Sizeof(ce)},
		{"TraceEvent.Value", unsafe.Offsetof(e.Value), unsafe.Offsetof(ce.value)},
		{"TraceEvent.Coordinates", unsafe.Offsetof(e.Coordinates), unsafe.Offsetof(ce.coordinates)},
		{"TraceEvent.TraceTag", unsafe.Offsetof(e.TraceTag), unsafe.Offsetof(ce.trace_tag)},
		{"TraceEvent.Type", unsafe.Offsetof(e.Type), unsafe.Offsetof(ce._type)},
		{"TraceEvent.Event", unsafe.Offsetof(e.Event), unsafe.Offsetof(ce.event)},
		{"TraceEvent.ParentID", unsafe.Offsetof(e.ParentID), unsafe.Offsetof(ce.parent_id)},
		{"TraceEvent.ValueIndex", unsafe.Offsetof(e.ValueIndex), unsafe.Offsetof(ce.value_index)},
		{"TraceEvent.Dimensions", unsafe.Offsetof(e.Dimensions), unsafe.Offsetof(ce.dimensions)},
	} {
		if p.go_ != p.c {
			return fmt.Errorf("halide/internal/rt: %s is at %d in Go, %d in C", p.what, p.go_, p.c)
		}
	}
	return nil
}
