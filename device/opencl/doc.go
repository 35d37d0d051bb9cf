// Package opencl is the OpenCL implementation of device.Device: Open,
// Default and Wrap give a Device; Options choose and tune it. The raw
// binding (OpenCL's objects and handles, enqueues, events) is internal to
// the module (internal/cl); Device.Handles gives the raw cl_context and
// cl_command_queue, as Halide's raw_buffer() gives a buffer's handle.
//
// Device adds what a residency library needs on top of the binding:
// selection like Halide's runtime (HL_OCL_PLATFORM_NAME, HL_OCL_DEVICE_TYPE;
// default the first GPU, else the first CPU), crops that share their root
// cl_mem, a caching allocator, strided transfers as rect calls, pinned host
// memory (AllocHost) and pinned double-buffered staging for ordinary Go
// memory. For package stream it makes, on first use, an upload and a
// download queue beside its own, on the same context, ordered against it
// by events; their transfers are counted in Stats like the others, and
// Sync and Close wait for them. Options.Verbose logs the platforms found
// and the device chosen.
//
// The methods every backend shares (Name, Close, Closed, Stats, OnClose,
// Value, ReleaseCache, Malloc, Free, Crop, CopyIn, CopyOut) come from the
// module's device skeleton and are documented by device.Device,
// device.Kernels and device.CloseNotifier; this page lists what is
// OpenCL's own. Here: Malloc above CL_DEVICE_MAX_MEM_ALLOC_SIZE fails with
// CL_INVALID_BUFFER_SIZE; a Crop is a cl_mem of the same root and is not
// counted in Stats' AllocsLive; CopyIn and CopyOut move a dense region in
// one transfer (staged through pinned memory for large ordinary Go
// memory), 2-D and 3-D regions in one rect transfer, higher ranks in a
// loop of them. Close is idempotent, and a cleanup does it for a Device
// that becomes unreachable.
//
// Capture (package device/capture): kernels, copies and transfers are
// recorded at the Device's entry points; a replay is one enqueue of a
// cl_khr_command_buffer where the device has one this binding declares
// (0.9.0 to 0.9.4; PoCL 3.1) and the work is kernels and buffer copies,
// else the recorded steps queued again (Options.NoCommandBuffers
// forces that).
package opencl
