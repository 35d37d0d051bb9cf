// Package cu is a minimal binding of the CUDA driver API and cuBLAS,
// loaded at run time: Load dlopens libcuda.so.1 and LoadBLAS cuBLAS, with
// our own declarations (shim.h) of the few types, constants and entry
// points package cuda uses, so building needs only gcc and a machine
// without CUDA gets an error wrapping ErrNoCUDA instead of a link
// failure. Every call that works in a context takes it and makes it
// current on the calling thread inside the same C call (a goroutine may
// change threads between two cgo calls). Callers validate arguments; this
// package only crosses into C and turns codes into *Error values.
package cu

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// ErrNoCUDA is wrapped by Load's error when libcuda.so.1 cannot be opened
// or lacks an entry point, and by package cuda's when no device is there.
var ErrNoCUDA = errors.New("cuda: CUDA is not available")

// ErrNoBLAS is wrapped by LoadBLAS's error when cuBLAS cannot be opened.
var ErrNoBLAS = errors.New("cuda: cuBLAS is not available")

// Error is a CUDA driver or cuBLAS call that failed.
type Error struct {
	Op   string // the entry point
	Code int    // CUresult, or cublasStatus_t for cublas* ops
	Msg  string // the driver's name and description of the code
}

func (e *Error) Error() string { return fmt.Sprintf("cuda: %s: %s (%d)", e.Op, e.Msg, e.Code) }

// Is makes errors.Is(err, &Error{Code: c}) match any Error with code c
// (and op, when the target names one).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Op == "" || t.Op == e.Op)
}

// Codes tested by name.
const (
	ErrorOutOfMemory = 2   // CUDA_ERROR_OUT_OF_MEMORY
	ErrorNoDevice    = 100 // CUDA_ERROR_NO_DEVICE
	ErrorNotReady    = 600 // CUDA_ERROR_NOT_READY
	BlasAllocFailed  = 3   // CUBLAS_STATUS_ALLOC_FAILED
)

// IsOutOfMemory reports whether err is a device allocation failure.
func IsOutOfMemory(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	if len(e.Op) > 6 && e.Op[:6] == "cublas" {
		return e.Code == BlasAllocFailed
	}
	return e.Code == ErrorOutOfMemory
}

func check(op string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(code), Msg: errorText(code)}
}

func checkBLAS(op string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(code), Msg: blasStatusText(code)}
}

var (
	loadOnce sync.Once
	loadErr  error
	blasOnce sync.Once
	blasErr  error
)

// Load opens libcuda.so.1 (RTLD_GLOBAL, so a Halide CUDA runtime in the
// process uses the same driver) and runs cuInit. Idempotent; the error
// wraps ErrNoCUDA and names what is missing.
func Load() error {
	loadOnce.Do(func() {
		if err := cuLoad(); err != nil {
			loadErr = fmt.Errorf("%w: %v", ErrNoCUDA, err)
			return
		}
		if err := check("cuInit", cuInit()); err != nil {
			loadErr = fmt.Errorf("%w: %w", ErrNoCUDA, err)
		}
	})
	return loadErr
}

// LoadBLAS opens cuBLAS (libcublas.so.13, .12, then libcublas.so, also
// under /usr/local/cuda/lib64). Idempotent; the error wraps ErrNoBLAS.
func LoadBLAS() error {
	blasOnce.Do(func() {
		if err := cublasLoad(); err != nil {
			blasErr = fmt.Errorf("%w: %v", ErrNoBLAS, err)
		}
	})
	return blasErr
}

// Handles, as the driver passes them.
type (
	Device    int32   // CUdevice
	Context   uintptr // CUcontext
	Stream    uintptr // CUstream
	Event     uintptr // CUevent
	DevicePtr uint64  // CUdeviceptr
	BLAS      uintptr // cublasHandle_t
)

// Attribute is a CUdevice_attribute.
type Attribute int32

const (
	AttrMaxThreadsPerBlock   Attribute = 1
	AttrMaxSharedPerBlock    Attribute = 8
	AttrMaxPitch             Attribute = 11
	AttrMultiprocessorCount  Attribute = 16
	AttrUnifiedAddressing    Attribute = 41
	AttrComputeCapabilityMaj Attribute = 75
	AttrComputeCapabilityMin Attribute = 76
)

// Flags.
const (
	StreamNonBlocking    = 0x1 // CU_STREAM_NON_BLOCKING: no implicit sync with the legacy stream
	EventDisableTiming   = 0x2 // CU_EVENT_DISABLE_TIMING
	HostAllocPortable    = 0x1 // CU_MEMHOSTALLOC_PORTABLE: pinned for every context
	copyHtoD, copyDtoH   = 0, 1
	copyDtoD             = 2
	maxName              = 256
	driverVersionUnknown = -1
)

// DriverVersion is the driver's CUDA version, 1000·major + 10·minor.
func DriverVersion() (int, error) {
	v, code := cuDriverVersion()
	return v, check("cuDriverGetVersion", code)
}

// DeviceCount is the number of CUDA devices.
func DeviceCount() (int, error) {
	n, code := cuDeviceCount()
	return n, check("cuDeviceGetCount", code)
}

// DeviceGet returns device ordinal i.
func DeviceGet(i int) (Device, error) {
	d, code := cuDeviceGet(i)
	return d, check("cuDeviceGet", code)
}

// Name is the device's name.
func (d Device) Name() (string, error) {
	s, code := cuDeviceName(d)
	return s, check("cuDeviceGetName", code)
}

// Attr reads a device attribute.
func (d Device) Attr(a Attribute) (int, error) {
	v, code := cuDeviceAttr(d, a)
	return v, check("cuDeviceGetAttribute", code)
}

// TotalMem is the device's memory in bytes.
func (d Device) TotalMem() (int64, error) {
	v, code := cuDeviceTotalMem(d)
	return v, check("cuDeviceTotalMem_v2", code)
}

// PrimaryCtxRetain retains the device's primary context, the one the CUDA
// runtime (and so cuBLAS, Halide, PyTorch) uses.
func PrimaryCtxRetain(d Device) (Context, error) {
	c, code := cuPrimaryRetain(d)
	return c, check("cuDevicePrimaryCtxRetain", code)
}

// PrimaryCtxRelease releases one retain of the primary context.
func PrimaryCtxRelease(d Device) error {
	return check("cuDevicePrimaryCtxRelease_v2", cuPrimaryRelease(d))
}

// MemAlloc allocates n bytes of device memory.
func MemAlloc(ctx Context, n int) (DevicePtr, error) {
	p, code := cuMemAlloc(ctx, n)
	return p, check("cuMemAlloc_v2", code)
}

// MemFree frees device memory.
func MemFree(ctx Context, p DevicePtr) error { return check("cuMemFree_v2", cuMemFree(ctx, p)) }

// MemInfo returns the free and total device memory in bytes.
func MemInfo(ctx Context) (free, total int64, err error) {
	f, t, code := cuMemInfo(ctx)
	return f, t, check("cuMemGetInfo_v2", code)
}

// HostAlloc allocates n bytes of pinned host memory.
func HostAlloc(ctx Context, n int, flags uint32) (unsafe.Pointer, error) {
	p, code := cuHostAlloc(ctx, n, flags)
	return p, check("cuMemHostAlloc", code)
}

// HostFree frees HostAlloc memory.
func HostFree(ctx Context, p unsafe.Pointer) error { return check("cuMemFreeHost", cuHostFree(ctx, p)) }

// HtoD queues a copy of n bytes from host memory to dst on s. With Go
// (pageable) memory the driver has read src when it returns.
func HtoD(ctx Context, dst DevicePtr, src unsafe.Pointer, n int, s Stream) error {
	return check("cuMemcpyHtoDAsync_v2", cuHtoD(ctx, dst, src, n, s))
}

// DtoH queues a copy of n bytes from src to host memory on s; dst must be
// pinned memory that stays valid until the stream passes the copy.
func DtoH(ctx Context, dst unsafe.Pointer, src DevicePtr, n int, s Stream) error {
	return check("cuMemcpyDtoHAsync_v2", cuDtoH(ctx, dst, src, n, s))
}

// DtoD queues a copy of n bytes between device pointers on s.
func DtoD(ctx Context, dst, src DevicePtr, n int, s Stream) error {
	return check("cuMemcpyDtoDAsync_v2", cuDtoD(ctx, dst, src, n, s))
}

// Copy2DHtoD queues height rows of width bytes from pinned host memory
// (spitch apart) to dst (dpitch apart) on s.
func Copy2DHtoD(ctx Context, dst DevicePtr, dpitch int, src unsafe.Pointer, spitch, width, height int, s Stream) error {
	return check("cuMemcpy2DAsync_v2", cuCopy2D(ctx, copyHtoD, dst, 0, src, dpitch, spitch, width, height, s))
}

// Copy2DDtoH queues height rows of width bytes from src (spitch apart) to
// pinned host memory (dpitch apart) on s.
func Copy2DDtoH(ctx Context, dst unsafe.Pointer, dpitch int, src DevicePtr, spitch, width, height int, s Stream) error {
	return check("cuMemcpy2DAsync_v2", cuCopy2D(ctx, copyDtoH, src, 0, dst, dpitch, spitch, width, height, s))
}

// Copy2DDtoD queues height rows of width bytes between device pointers.
func Copy2DDtoD(ctx Context, dst DevicePtr, dpitch int, src DevicePtr, spitch, width, height int, s Stream) error {
	return check("cuMemcpy2DAsync_v2", cuCopy2D(ctx, copyDtoD, dst, src, nil, dpitch, spitch, width, height, s))
}

// MemsetD8 queues setting n bytes at dst to v on s.
func MemsetD8(ctx Context, dst DevicePtr, v byte, n int, s Stream) error {
	return check("cuMemsetD8Async", cuMemset8(ctx, dst, v, n, s))
}

// StreamCreate creates a stream.
func StreamCreate(ctx Context, flags uint32) (Stream, error) {
	s, code := cuStreamCreate(ctx, flags)
	return s, check("cuStreamCreate", code)
}

// StreamSync waits for the work queued on s.
func StreamSync(ctx Context, s Stream) error {
	return check("cuStreamSynchronize", cuStreamSync(ctx, s))
}

// StreamDestroy destroys s once its work is done.
func StreamDestroy(ctx Context, s Stream) error {
	return check("cuStreamDestroy_v2", cuStreamDestroy(ctx, s))
}

// StreamWaitEvent makes work queued on s later wait for e.
func StreamWaitEvent(ctx Context, s Stream, e Event) error {
	return check("cuStreamWaitEvent", cuStreamWait(ctx, s, e))
}

// EventCreate creates an event.
func EventCreate(ctx Context, flags uint32) (Event, error) {
	e, code := cuEventCreate(ctx, flags)
	return e, check("cuEventCreate", code)
}

// EventRecord records e on s.
func EventRecord(ctx Context, e Event, s Stream) error {
	return check("cuEventRecord", cuEventRecord(ctx, e, s))
}

// EventSync waits for e.
func EventSync(ctx Context, e Event) error { return check("cuEventSynchronize", cuEventSync(ctx, e)) }

// EventDone reports whether the work before e is done, without waiting.
func EventDone(ctx Context, e Event) (bool, error) {
	code := cuEventQuery(ctx, e)
	if code == ErrorNotReady {
		return false, nil
	}
	return code == 0, check("cuEventQuery", code)
}

// EventElapsed is the time in milliseconds between two recorded events.
func EventElapsed(ctx Context, a, b Event) (float32, error) {
	ms, code := cuEventElapsed(ctx, a, b)
	return ms, check("cuEventElapsedTime", code)
}

// EventDestroy destroys e.
func EventDestroy(ctx Context, e Event) error {
	return check("cuEventDestroy_v2", cuEventDestroy(ctx, e))
}

// BLASCreate creates a cuBLAS handle in ctx (LoadBLAS first).
func BLASCreate(ctx Context) (BLAS, error) {
	h, code := cublasCreate(ctx)
	return h, checkBLAS("cublasCreate_v2", code)
}

// BLASDestroy destroys a cuBLAS handle.
func BLASDestroy(ctx Context, h BLAS) error {
	return checkBLAS("cublasDestroy_v2", cublasDestroy(ctx, h))
}

// BLASSetStream makes h queue its work on s.
func BLASSetStream(ctx Context, h BLAS, s Stream) error {
	return checkBLAS("cublasSetStream_v2", cublasSetStream(ctx, h, s))
}

// BLASVersion is cuBLAS's version (e.g. 130000 for 13.0.0).
func BLASVersion(h BLAS) (int, error) {
	v, code := cublasVersion(h)
	return v, checkBLAS("cublasGetVersion_v2", code)
}

// cudaDataType and cublasComputeType_t values.
const (
	R32F  = 0  // CUDA_R_32F
	R64F  = 1  // CUDA_R_64F
	R16F  = 2  // CUDA_R_16F
	R16BF = 14 // CUDA_R_16BF

	Compute32F         = 68 // CUBLAS_COMPUTE_32F: float32 arithmetic, no TF32
	Compute32FFastTF32 = 77 // CUBLAS_COMPUTE_32F_FAST_TF32: TF32 tensor-core products
	Compute64F         = 70 // CUBLAS_COMPUTE_64F

	OpN = 0 // CUBLAS_OP_N
	OpT = 1 // CUBLAS_OP_T
)

// Matrix is one column-major cuBLAS operand: Ptr, its leading dimension
// and the element stride between batches.
type Matrix struct {
	Ptr    DevicePtr
	Type   int32 // cudaDataType
	LD     int
	Stride int64
	Trans  int32 // OpN or OpT (ignored for C)
}

// Gemm queues C = op(A)·op(B) (m×n, inner k), batch times, with compute
// type compute, on h's stream: cublasGemmEx, or
// cublasGemmStridedBatchedEx when batch > 1.
func Gemm(ctx Context, h BLAS, m, n, k, batch int, a, b, c Matrix, compute int32) error {
	op := "cublasGemmEx"
	if batch > 1 {
		op = "cublasGemmStridedBatchedEx"
	}
	return checkBLAS(op, cublasGemm(ctx, h, m, n, k, batch, &a, &b, &c, compute))
}

// ErrNoNVRTC is wrapped by LoadNVRTC's error when NVRTC cannot be opened.
var ErrNoNVRTC = errors.New("cuda: NVRTC is not available")

var (
	nvrtcOnce sync.Once
	nvrtcErr  error
)

// LoadNVRTC opens NVRTC, the run-time compiler (libnvrtc.so.13, .12, then
// libnvrtc.so, also under /usr/local/cuda/lib64). Idempotent; the error
// wraps ErrNoNVRTC.
func LoadNVRTC() error {
	nvrtcOnce.Do(func() {
		if err := nvrtcLoad(); err != nil {
			nvrtcErr = fmt.Errorf("%w: %v", ErrNoNVRTC, err)
		}
	})
	return nvrtcErr
}

// NVRTCVersion is NVRTC's version (LoadNVRTC first).
func NVRTCVersion() (major, minor int, err error) {
	major, minor, code := nvrtcVersion()
	return major, minor, checkNVRTC("nvrtcVersion", code)
}

// NVRTCCompilation is nvrtcResult NVRTC_ERROR_COMPILATION: the source
// did not compile (the log says why).
const NVRTCCompilation = 6

func checkNVRTC(op string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{Op: op, Code: int(code), Msg: nvrtcErrorText(code)}
}

// Compile compiles CUDA C++ source with NVRTC (LoadNVRTC first) to a
// CUBIN for the architecture the options name; log is NVRTC's log
// (warnings, or the errors when err is set).
func Compile(src, name string, options []string) (image []byte, log string, err error) {
	image, log, code := nvrtcCompile(src, name, options)
	return image, log, checkNVRTC("nvrtcCompileProgram", code)
}

// Module and Function are a loaded module and one of its kernels.
type (
	Module   uintptr // CUmodule
	Function uintptr // CUfunction
)

// ModuleLoad loads a CUBIN (or PTX) image into ctx.
func ModuleLoad(ctx Context, image []byte) (Module, error) {
	if len(image) == 0 {
		return 0, &Error{Op: "cuModuleLoadData", Code: 1, Msg: "empty image"}
	}
	m, code := cuModuleLoad(ctx, image)
	return m, check("cuModuleLoadData", code)
}

// ModuleUnload unloads m; work queued with its kernels must be done.
func ModuleUnload(ctx Context, m Module) error {
	return check("cuModuleUnload", cuModuleUnload(ctx, m))
}

// ModuleFunction finds the kernel name (an extern "C" name) in m.
func ModuleFunction(ctx Context, m Module, name string) (Function, error) {
	f, code := cuModuleFunction(ctx, m, name)
	return f, check("cuModuleGetFunction", code)
}

// ErrorNotSupported is CUDA_ERROR_NOT_SUPPORTED, also the answer of an
// optional entry point the driver lacks.
const ErrorNotSupported = 801

// ParamInfo is the byte offset and size of f's parameter i; ok is false
// past the last parameter. A driver without cuFuncGetParamInfo (before
// 12.4) answers an error with code ErrorNotSupported.
func ParamInfo(ctx Context, f Function, i int) (off, size int, ok bool, err error) {
	off, size, code := cuParamInfo(ctx, f, i)
	if code == 1 { // CUDA_ERROR_INVALID_VALUE: no parameter i
		return 0, 0, false, nil
	}
	return off, size, code == 0, check("cuFuncGetParamInfo", code)
}

// FuncAttrMaxDynamicShared is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
const FuncAttrMaxDynamicShared = 8

// FuncSetAttr sets a kernel attribute.
func FuncSetAttr(ctx Context, f Function, attr, v int) error {
	return check("cuFuncSetAttribute", cuFuncSetAttr(ctx, f, attr, v))
}

// Launch queues f on s over grid blocks of block threads with shared
// bytes of dynamic shared memory; parameter i's value is at
// blob[offs[i]:]. The driver copies the values before it returns.
func Launch(ctx Context, f Function, grid, block [3]int, shared int, s Stream, blob []byte, offs []int32) error {
	return check("cuLaunchKernel", cuLaunch(ctx, f, grid, block, shared, s, blob, offs))
}
