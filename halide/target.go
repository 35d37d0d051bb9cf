package halide

import "github.com/resident-go/resident/halide/internal/target"

// PortableTarget is the CPU target of the committed runtime and example
// pipelines: x86-64 with SSE4.1, AVX, AVX2, FMA and F16C.
const PortableTarget = target.Portable

// HostTarget returns the Halide target string for the CPU this process runs
// on (as Halide's get_host_target would print it), e.g.
// "x86-64-linux-sse41-avx-f16c-fma-avx2-avx512-avx512_skylake". Pass it to
// a generator for the fastest code on this machine; objects built for it
// may not run on older CPUs, so don't commit them.
func HostTarget() string { return target.Host() }
