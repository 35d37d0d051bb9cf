// Package backends links the device packages whose Halide runtimes package
// halide carries (OpenCL, CUDA), so that importing halide is enough to run
// an OpenCL or CUDA pipeline on its default device. Each registers itself
// (internal/plumb.RegisterBackend); halide finds them by API name and
// imports none of them.
package backends

import (
	_ "github.com/resident-go/resident/device/cuda"   // registers "CUDA"
	_ "github.com/resident-go/resident/device/opencl" // registers "OpenCL"
)
