// Package resident is a Go tensor library whose arrays stay on the GPU.
//
// An array.Array is the Go analogue of Halide's Runtime::Buffer: a typed
// N-D array laid out exactly like a halide_buffer_t (per-dimension min,
// extent and stride, dimension 0 innermost) that tracks a host copy and a
// device copy with Halide's two dirty bits. A device-aware Array stays on
// its device between pipeline calls; only its host view (Array.Host,
// Array.HostReadOnly) copies data back, and only when the device is newer.
// Arrays over caller-held Go memory (array.FromSlice) are host-only: every
// consumer leaves them current. That is the fix for Halide 14's trap where
// AOT outputs on OpenCL never came back to host.
//
// Packages:
//
//   - array: Array, Type, Dim, views, residency, host views.
//   - device: the Device interface, Regions, counters, the transfer guard;
//     device/sim simulates a device for tests; device/opencl is our own
//     dlopen'd OpenCL binding and the OpenCL Device; device/cuda the CUDA
//     Device (driver API, cuBLAS and NVRTC, dlopen'd too).
//   - halide: calls Halide 14 AOT pipelines (host, OpenCL or CUDA) on
//     Arrays; halide/stream runs
//     a chain of pipelines and ops in bands whose upload, compute and
//     download overlap, for Arrays too large or too slow to move before
//     computing.
//   - ops: operations that follow residency, on the host, OpenCL or CUDA;
//     ops/engine is a gorgonia tensor.Engine on a device.
//   - bench: the GPU-residency benchmark, its own module (cd bench && go run ./cmd/residency).
//
// # Environment
//
// The library reads these variables, and no others of its own (Halide's
// HL_OCL_PLATFORM_NAME and HL_OCL_DEVICE_TYPE choose the default OpenCL
// device, as in Halide's runtime: device/opencl):
//
//	RESIDENT_TRANSFER_GUARD=1   the transfer guard on from start-up (device.GuardEnv; per device: device.SetDeviceGuard; per call: device.WithGuard)
//	RESIDENT_OPS_PORTABLE=1     host ops in portable Go, no assembly (ops.PortableEnv; ops.TestPortableKernels covers it)
//	RESIDENT_CUDA_DEVICE=N      the ordinal of cuda.Default's device, default 0 (cuda.EnvDevice)
//
// Tuning is API, per device: ops.SetTuning (how reductions are cut up
// and how MatMul picks its kernels), package ops/tune, and the
// Options of opencl.Open and cuda.Open (staging, caches, Verbose logging,
// cuda's KeepRejected). Tests and benchmarks take flags (go test ./ops
// -args -diff.n=100), never environment variables; CHANGES.md maps each
// retired variable to its replacement.
package resident
