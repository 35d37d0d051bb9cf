package device

// Compute is a Device that runs work on its own memory, so that work on
// data it holds need not copy the data home. Package ops asks for it (and
// for Kernels or HostMemory below) to run an op where its operands live;
// a Device that is not a Compute, or whose Caps name no Lang, only holds
// memory, and work on its data runs on the host.
type Compute interface {
	Device
	// Caps says what the device computes with.
	Caps() Caps
	// Closed reports whether Close has run.
	Closed() bool
}

// Caps are a computing device's capabilities.
type Caps struct {
	// Lang is the language the device runs: "OpenCL C" for a device that
	// builds kernels from OpenCL C source (Kernels), "Go" for one whose
	// memory the host addresses and on which Go code computes
	// (HostMemory). Empty: the device computes nothing.
	Lang string
	// FP64 says whether kernels may use double precision.
	FP64 bool
	// LocalMem is the local (work-group shared) memory in bytes.
	LocalMem int64
	// Units is the number of compute units; MaxGroup the largest
	// work-group.
	Units, MaxGroup int
	// Vendor names the platform or driver ("NVIDIA CUDA", "Portable
	// Computing Language"), for tuning tables.
	Vendor string
}

// Computes reports whether work may run on d: d is an open Compute whose
// Caps name a Lang.
func Computes(d Device) bool {
	c, ok := d.(Compute)
	return ok && !c.Closed() && c.Caps().Lang != ""
}
