// Package opencl is the module's only OpenCL cgo: a binding that dlopens
// libOpenCL.so.1 (so building needs only gcc, and a machine without OpenCL
// gets ErrNoOpenCL instead of a link failure) and Device, the OpenCL
// implementation of device.Device.
//
// The binding follows OpenCL's objects — Platform, DeviceID, Context,
// CommandQueue, Buffer, Program, Kernel, Event — and exposes every raw
// handle as a uintptr for other runtimes (Halide needs the cl_mem,
// cl_context, cl_command_queue and cl_device_id). Failed calls return an
// *Error whose message names the CL error code; failed builds return a
// *BuildError with every device's build log.
//
// Device adds what a residency library needs on top: selection like
// Halide's runtime (HL_OCL_PLATFORM_NAME, HL_OCL_DEVICE_TYPE; default the
// first GPU, else the first CPU), crops that share their root cl_mem, a
// caching allocator, strided transfers as rect calls, pinned host memory
// (AllocHost) and pinned double-buffered staging for ordinary Go memory.
// Set RESIDENT_OCL_VERBOSE=1 to log the device chosen.
//
// Go memory is only ever passed to blocking OpenCL calls; non-blocking ones
// get C memory (mapped buffers), as cgo requires.
package opencl
