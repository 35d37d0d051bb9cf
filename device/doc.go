// Package device defines where an Array's data can live besides Go host
// memory: the Device interface (in the spirit of Halide's
// halide_device_interface_t), device Allocations that expose their native
// handle and byte offset, strided Regions so a crop moves only its own bytes,
// transfer counters (Stats) and the transfer guard.
//
// Implementations: package device/sim (separate host memory that counts
// every transfer, for tests), package device/opencl and package
// device/cuda (a Gemmer: matrix products through cuBLAS; and, where NVRTC
// is there, a Kernels device that builds OpenCL C: BuildsOpenCLC).
package device
