// Package cuda is the CUDA implementation of device.Device, over the CUDA
// driver API loaded at run time: the module's internal binding (internal/cu) dlopens libcuda.so.1
// (and cuBLAS for GEMM) with our own declarations, so the module builds
// with gcc alone and, where there is no CUDA, Open and Default return an
// error wrapping ErrNoCUDA that names what is missing (the library, cuInit's
// failure, or the absence of a device). Tests skip with that message.
//
// A Device is one GPU's primary context (shared with the CUDA runtime and
// the libraries that use it) and a non-blocking stream of its own, on which
// everything is queued in order: transfers, device copies, memsets, GEMMs.
// It keeps the contract of device/opencl:
//
//   - allocations with byte offsets (Crop shares the root CUdeviceptr;
//     Native is the root, Offset the crop's start), with a caching
//     allocator (size bins of internal/devkit; Stats counts hits and
//     misses; Options.NoCache, CacheLimit);
//   - CopyIn and CopyOut of strided Regions, counted in Stats, returning
//     when the host memory may be reused. Pinned memory (AllocHost, a
//     device.HostAllocator; array.NewIn) moves directly, one 2-D copy per
//     run of evenly spaced rows; ordinary Go memory is staged through two
//     pinned chunks, the copy into one overlapping the DMA of the other
//     (internal/devkit's pipeline, shared with OpenCL), except dense
//     transfers under Options.StagingMin (uploads) and StagingMinD2H, which take the driver's pageable
//     path. Copy between allocations and Memset are queued without a wait;
//   - the transfer guard, as for every device (package device);
//   - Close (idempotent, also the cleanup backstop of an unreachable
//     Device) runs the OnClose hooks first, so Arrays copy device-dirty data
//     home, then frees allocations, cached blocks, staging, the cuBLAS handle
//     and the stream, and releases the primary context (after the last
//     pinned block still in use is freed).
//
// Computing: Caps().Lang is "CUDA". Where NVRTC loads (libnvrtc.so.13,
// .12, then libnvrtc.so, on the loader path and in /usr/local/cuda/lib64)
// Caps().OpenCLC is true and the Device is a device.Kernels: Compile takes
// package ops' OpenCL C, translates it to CUDA C++ (internal/clcuda: a
// prelude of OpenCL's types and built-ins, and rewrites of kernel
// headers, __local memory and vector literals), compiles it for the
// device's architecture and loads the module; Enqueue launches on the
// Device's stream, covering the grid exactly (explicit work-group sizes
// must divide the global size; unset ones are picked to divide it) and
// passing each device.Local argument as an offset into the launch's
// dynamic shared memory. So ops on Arrays resident here run on the GPU,
// in order with transfers and GEMMs, without a host sync. Without NVRTC
// (or with Options.NoKernels) Compile fails wrapping ErrNoNVRTC and those
// ops run on the host under ops' rule (device-dirty inputs copied home:
// counted, refused under the guard).
//
// The Device is also a device.Gemmer:
// ops.MatMul and ops.MatMulWith on Arrays resident here run cuBLAS
// (cublasGemmEx / cublasGemmStridedBatchedEx on the Device's stream) for
// float32 (CUBLAS_COMPUTE_32F: no TF32 unless asked for with
// device.PrecisionTF32), float64, float16 and bfloat16 (summed in
// float32). Strided operands are passed as they lie, transposed where
// their layout allows; operands with no unit stride are first copied to a
// dense temporary on the device (counted as D2D).
//
// Between devices, Array.MoveTo and device.CopyBetween copy directly
// between two Devices of one CUDA context (two Devices opened on one GPU
// share its primary context; counted as Peer), and otherwise stage
// through host memory (pinned when the destination offers it), counted as
// D2H on one device and H2D on the other: an OpenCL device and a CUDA
// device on the same GPU share no memory.
//
// Tests: where there is no CUDA, TestMockCUDA builds testdata/mockcuda (a
// libcuda.so.1, libcublas.so.13 and libnvrtc.so.13 over host memory, with
// fault injection; its kernels run nothing) and runs the package's tests
// against it in child processes. The ops tests that run on this Device
// (TestCUDAOps, and TestDiff's cuda side in package ops) need a GPU and
// NVRTC and skip naming what is missing.
//
// Capture (package device/capture): between BeginCapture and EndCapture
// the Device's stream records into a CUDA graph (stream capture, relaxed
// mode), instantiated once; a replay is one cuGraphLaunch. Transfers of
// Go memory in a graph go through a pinned staging block the graph owns:
// a host node (cuLaunchHostFunc) copies between it and the Go memory at
// each launch, in stream order, and the Go memory stays pinned while the
// graph lives. The mock models capture, graphs and host nodes
// (TestCaptureMock, TestCaptureGoMock, TestCaptureMockFault).
//
// Environment: RESIDENT_CUDA_DEVICE picks Default's device ordinal (the
// module's table of variables is in its root doc). Options.Verbose logs
// the device chosen and each NVRTC build's time; Options.KeepRejected
// names a folder where programs NVRTC rejects are written with its log.
// cuBLAS is looked up as
// libcublas.so.13, .12, then libcublas.so, on the loader path and in
// /usr/local/cuda/lib64.
package cuda
