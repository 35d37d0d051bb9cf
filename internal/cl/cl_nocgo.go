//go:build !cgo

package cl

import (
	"errors"
	"unsafe"
)

// Without cgo there is no way to call OpenCL: Load fails with ErrNoOpenCL
// and every entry point answers CL_PLATFORM_NOT_FOUND_KHR, so the package
// still compiles for pure-Go builds of the module.

func clLoad() error { return errors.New("built with CGO_ENABLED=0") }

func clPlatformIDs([]uintptr) (int, int32)                      { return 0, codePlatformNotFound }
func clDeviceIDs(uintptr, uint64, []uintptr) (int, int32)       { return 0, codePlatformNotFound }
func clInfo(int, uintptr, uintptr, uint32, []byte) (int, int32) { return 0, codePlatformNotFound }
func clRetain(int, uintptr) int32                               { return codePlatformNotFound }
func clRelease(int, uintptr) int32                              { return codePlatformNotFound }
func clCreateContext(uintptr, []uintptr) (uintptr, int32)       { return 0, codePlatformNotFound }
func clCreateSubDevices(uintptr, int, []uintptr) (int, int32)   { return 0, codePlatformNotFound }
func clReleaseDevice(uintptr) int32                             { return codePlatformNotFound }
func clCreateQueue(uintptr, uintptr, uint64) (uintptr, int32)   { return 0, codePlatformNotFound }
func clCreateBuffer(uintptr, uint64, int) (uintptr, int32)      { return 0, codePlatformNotFound }
func clCreateSubBuffer(uintptr, uint64, int, int) (uintptr, int32) {
	return 0, codePlatformNotFound
}
func clRW(uintptr, uintptr, bool, bool, int, int, unsafe.Pointer, []Event, *Event) int32 {
	return codePlatformNotFound
}
func clRWRect(uintptr, uintptr, bool, bool, *Rect, unsafe.Pointer, []Event, *Event) int32 {
	return codePlatformNotFound
}
func clCopy(uintptr, uintptr, uintptr, int, int, int, []Event, *Event) int32 {
	return codePlatformNotFound
}
func clCopyRect(uintptr, uintptr, uintptr, *CopyRect, []Event, *Event) int32 {
	return codePlatformNotFound
}
func clFill(uintptr, uintptr, []byte, int, int, []Event, *Event) int32 { return codePlatformNotFound }
func clMap(uintptr, uintptr, bool, uint64, int, int, []Event, *Event) (unsafe.Pointer, int32) {
	return nil, codePlatformNotFound
}
func clUnmap(uintptr, uintptr, unsafe.Pointer, []Event, *Event) int32 { return codePlatformNotFound }
func clCreateProgram(uintptr, string) (uintptr, int32)                { return 0, codePlatformNotFound }
func clBuildProgram(uintptr, []uintptr, string) int32                 { return codePlatformNotFound }
func clCreateKernel(uintptr, string) (uintptr, int32)                 { return 0, codePlatformNotFound }
func clSetKernelArg(uintptr, int, int, unsafe.Pointer) int32          { return codePlatformNotFound }
func clNDRange(uintptr, uintptr, int, *[3]int, *[3]int, *[3]int, []Event, *Event) int32 {
	return codePlatformNotFound
}
func clWait([]Event) int32   { return codePlatformNotFound }
func clFlush(uintptr) int32  { return codePlatformNotFound }
func clFinish(uintptr) int32 { return codePlatformNotFound }

func clMarker(uintptr, []Event) (Event, int32) { return Event{}, codePlatformNotFound }
func clBarrier(uintptr, []Event, *Event) int32 { return codePlatformNotFound }

func clCmdBufLoad(uintptr) int                      { return -1 }
func clCmdBufCreate(uintptr, bool) (uintptr, int32) { return 0, codePlatformNotFound }
func clCmdBufNDRange(uintptr, uintptr, int, *[3]int, *[3]int, bool, *uint32) int32 {
	return codePlatformNotFound
}
func clCmdBufCopy(uintptr, uintptr, uintptr, int, int, int, bool, *uint32) int32 {
	return codePlatformNotFound
}
func clCmdBufFinalize(uintptr) int32                          { return codePlatformNotFound }
func clCmdBufRelease(uintptr) int32                           { return codePlatformNotFound }
func clCmdBufEnqueue(uintptr, uintptr, []Event, *Event) int32 { return codePlatformNotFound }

// ReadBack is nil: there is no OpenCL without cgo.
func ReadBack() unsafe.Pointer { return nil }
