package halide

import "unsafe"

// CArg is a halide_buffer_t that C owns, passed to a pipeline call as it
// is (PassCBuffer): the pipeline gets C's own pointer, so it accepts what
// Halide accepts from a C caller, gpu_texture pipelines aside (below):
// broadcast inputs (stride 0), aliasing strides, device handles and dirty
// bits as C set them; and it refuses what Halide refuses with Halide's
// own code (a negative extent is ErrBufferExtentsNegative, -28; a wrong
// type -3, a wrong rank -43), checked by the pipeline, not in Go. The
// library neither reads nor moves its data: in an OpenCL call the runtime
// itself copies it to the call's device and may leave a device allocation
// and device_dirty in C's struct, which C then owns, copies home
// (halide_copy_to_host) and frees (halide_device_free), as after a call
// from C. C must keep the struct and its memory valid during the call.
//
// The exception: an OpenCL pipeline whose kernels take images (a buffer
// stored as MemoryType::GPUTexture, gpu_texture) is refused before it runs
// with ErrTexture, whatever its arguments, CArgs included. The bridge's
// OpenCL context serves Arrays, whose cl_mem buffers Halide 14 cannot hand
// to an image kernel, so it finds such a pipeline by refusing to build its
// image kernels (the pipeline's first call probes) and never runs it, not
// even on a host-only C buffer that the runtime, called from C, would
// have copied into an image of its own.
type CArg struct{ p unsafe.Pointer }

// PassCBuffer wraps buf, a struct halide_buffer_t* that C owns, for
// Call; see CArg. Use WrapCBuffer instead to get an Array, which the
// library keeps resident, for layouts an Array holds.
func PassCBuffer(buf unsafe.Pointer) CArg { return CArg{buf} }
