//go:build !cgo

package cu

import (
	"errors"
	"unsafe"
)

// Without cgo there is no way to call CUDA: Load fails with ErrNoCUDA and
// every entry point answers CUDA_ERROR_NO_DEVICE, so the package still
// compiles for pure-Go builds of the module.

const no = int32(ErrorNoDevice)

func cuLoad() error     { return errors.New("built with CGO_ENABLED=0") }
func cublasLoad() error { return errors.New("built with CGO_ENABLED=0") }
func nvrtcLoad() error  { return errors.New("built with CGO_ENABLED=0") }

func errorText(int32) string      { return "CUDA is not available without cgo" }
func nvrtcErrorText(int32) string { return "NVRTC is not available without cgo" }
func blasStatusText(int32) string { return "cuBLAS is not available without cgo" }

func cuInit() int32                                                                        { return no }
func cuDriverVersion() (int, int32)                                                        { return 0, no }
func cuDeviceCount() (int, int32)                                                          { return 0, no }
func cuDeviceGet(int) (Device, int32)                                                      { return 0, no }
func cuDeviceName(Device) (string, int32)                                                  { return "", no }
func cuDeviceAttr(Device, Attribute) (int, int32)                                          { return 0, no }
func cuDeviceTotalMem(Device) (int64, int32)                                               { return 0, no }
func cuPrimaryRetain(Device) (Context, int32)                                              { return 0, no }
func cuPrimaryRelease(Device) int32                                                        { return no }
func cuMemAlloc(Context, int) (DevicePtr, int32)                                           { return 0, no }
func cuMemFree(Context, DevicePtr) int32                                                   { return no }
func cuMemInfo(Context) (int64, int64, int32)                                              { return 0, 0, no }
func cuHostAlloc(Context, int, uint32) (unsafe.Pointer, int32)                             { return nil, no }
func cuHostFree(Context, unsafe.Pointer) int32                                             { return no }
func cuHtoD(Context, DevicePtr, unsafe.Pointer, int, Stream) int32                         { return no }
func cuDtoH(Context, unsafe.Pointer, DevicePtr, int, Stream) int32                         { return no }
func cuDtoD(Context, DevicePtr, DevicePtr, int, Stream) int32                              { return no }
func cuMemset8(Context, DevicePtr, byte, int, Stream) int32                                { return no }
func cuStreamCreate(Context, uint32) (Stream, int32)                                       { return 0, no }
func cuStreamSync(Context, Stream) int32                                                   { return no }
func cuStreamDestroy(Context, Stream) int32                                                { return no }
func cuStreamWait(Context, Stream, Event) int32                                            { return no }
func cuEventCreate(Context, uint32) (Event, int32)                                         { return 0, no }
func cuEventRecord(Context, Event, Stream) int32                                           { return no }
func cuEventSync(Context, Event) int32                                                     { return no }
func cuEventQuery(Context, Event) int32                                                    { return no }
func cuEventElapsed(Context, Event, Event) (float32, int32)                                { return 0, no }
func cuEventDestroy(Context, Event) int32                                                  { return no }
func cublasCreate(Context) (BLAS, int32)                                                   { return 0, no }
func cublasDestroy(Context, BLAS) int32                                                    { return no }
func cublasSetStream(Context, BLAS, Stream) int32                                          { return no }
func cublasVersion(BLAS) (int, int32)                                                      { return 0, no }
func cublasGemm(Context, BLAS, int, int, int, int, *Matrix, *Matrix, *Matrix, int32) int32 { return no }

func cuCopy2D(Context, int, DevicePtr, DevicePtr, unsafe.Pointer, int, int, int, int, Stream) int32 {
	return no
}

func nvrtcVersion() (int, int, int32)                               { return 0, 0, no }
func nvrtcCompile(string, string, []string) ([]byte, string, int32) { return nil, "", no }
func cuModuleLoad(Context, []byte) (Module, int32)                  { return 0, no }
func cuModuleUnload(Context, Module) int32                          { return no }
func cuModuleFunction(Context, Module, string) (Function, int32)    { return 0, no }
func cuParamInfo(Context, Function, int) (int, int, int32)          { return 0, 0, no }
func cuFuncSetAttr(Context, Function, int, int) int32               { return no }

func cuLaunch(Context, Function, [3]int, [3]int, int, Stream, []byte, []int32) int32 { return no }

func cuCaptureBegin(Context, Stream, int) int32                                 { return no }
func cuCaptureEnd(Context, Stream) (Graph, int32)                               { return 0, no }
func cuGraphInstantiate(Context, Graph) (GraphExec, int32)                      { return 0, no }
func cuGraphLaunch(Context, GraphExec, Stream) int32                            { return no }
func cuGraphDestroy(Context, Graph) int32                                       { return no }
func cuGraphExecDestroy(Context, GraphExec) int32                               { return no }
func cuGraphKernels(Context, Graph) ([]GraphNode, []Function, int32)            { return nil, nil, no }
func cuGraphKernelParams(Context, GraphNode, []byte, []int32, []int32) int32    { return no }
func cuGraphExecSetParams(Context, GraphExec, GraphNode, []byte, []int32) int32 { return no }

func cuHostCopyNew(unsafe.Pointer, unsafe.Pointer, []int) HostCopy { return 0 }
func cuHostCopyFree(HostCopy)                                      {}
func cuLaunchHostCopy(Context, Stream, HostCopy) int32             { return no }

// ReadBack is nil: there is no CUDA without cgo.
func ReadBack() unsafe.Pointer { return nil }
