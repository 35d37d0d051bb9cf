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
// Capture (package device/capture): kernels, copies and transfers are
// recorded at the Device's entry points; a replay is one enqueue of a
// cl_khr_command_buffer where the device has one this binding declares
// (0.9.0 to 0.9.4; PoCL 3.1) and the work is kernels and buffer copies,
// else the recorded steps queued again (Options.NoCommandBuffers
// forces that).
package opencl
