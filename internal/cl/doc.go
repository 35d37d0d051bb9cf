// Package cl is the raw OpenCL binding under package opencl: it dlopens
// libOpenCL.so.1 (so building needs only gcc, and a machine without OpenCL
// gets ErrNoOpenCL instead of a link failure) and follows OpenCL's objects
// — Platform, DeviceID, Context, CommandQueue, Buffer, Program, Kernel,
// Event — each with Handle() for its raw handle (Halide and other runtimes
// take cl_mem, cl_context, cl_command_queue, cl_device_id). The
// handle-level calls (CreateMem, ReadWrite, CopyMem, Marker…) serve layers
// that keep raw handles, such as opencl.Device's caching allocator.
//
// Failed calls return an *Error naming the entry point and the CL error
// code; failed builds return a *BuildError with every device's log. Go
// memory is only ever passed to blocking calls; non-blocking ones need C
// or pinned memory, as cgo requires.
//
// Most programs want package opencl's Device instead: open, choose,
// options, transfers, Stats.
package cl
