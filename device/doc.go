// Package device defines where an Array's data can live besides Go host
// memory: the Device interface (in the spirit of Halide's
// halide_device_interface_t), device Allocations that expose their native
// handle and byte offset, strided Regions so a crop moves only its own bytes,
// transfer counters (Stats) and the transfer guard.
//
// The guard is per call where a call takes options (WithGuard's context,
// halide's Options.Guard), per device (SetDeviceGuard: ops, host views and
// the engine, which take none, honour it), or, from start-up only,
// process-wide (RESIDENT_TRANSFER_GUARD=1); Guarded(ctx, d) says whether a
// call would refuse. No call changes the guard of the whole process.
// SyncContext is Sync that a context can stop waiting for.
//
// Implementations: package device/sim (separate host memory that counts
// every transfer, for tests), package device/opencl and package
// device/cuda (a Gemmer: matrix products through cuBLAS; and, where NVRTC
// is there, a Kernels device that builds OpenCL C: BuildsOpenCLC).
package device
