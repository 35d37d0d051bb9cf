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
	// OpenCLC says that a Kernels device whose Lang is another language
	// also builds OpenCL C source, translating it to its own (device/cuda:
	// into CUDA C++ for NVRTC), so packages with OpenCL C kernels run
	// them there. See BuildsOpenCLC.
	OpenCLC bool
}

// BuildsOpenCLC reports whether a Kernels device with capabilities c
// builds kernels from OpenCL C source: its Lang is "OpenCL C", or it
// translates OpenCL C (Caps.OpenCLC).
func BuildsOpenCLC(c Caps) bool { return c.Lang == "OpenCL C" || c.OpenCLC }

// Computes reports whether work may run on d: d is an open Compute whose
// Caps name a Lang.
func Computes(d Device) bool {
	c, ok := d.(Compute)
	return ok && !c.Closed() && c.Caps().Lang != ""
}

// Kernels is a Compute device that builds kernels from source in its
// Caps().Lang (or OpenCL C, where BuildsOpenCLC) and runs them on an
// in-order queue (device/opencl; device/cuda, on its stream). Kernel arguments are Buffer (an allocation's Native
// handle: kernels take the root and an element offset, never a
// sub-buffer), Local, fixed-size integers and floats, and []byte (a
// struct's bytes).
type Kernels interface {
	Compute
	// Value is the per-device state of packages above (built programs,
	// scratch memory): the value stored under key, made by init on first
	// use (nil init: nil when there is none yet); it lives as long as the
	// device.
	Value(key any, init func() any) any
	// Compile builds a program from src with the compiler options.
	Compile(src, options string) (Program, error)
	// Enqueue sets k's arguments and queues it over g; it does not wait.
	// Enqueues of one Kernel are serialized.
	Enqueue(k Kernel, g Grid, args []any) error
	// CopyBytes queues a copy of n bytes between two buffers of the
	// device: an op's own copy, not a residency transfer (not counted).
	CopyBytes(dst Buffer, dstOff int, src Buffer, srcOff, n int) error
	// ReadBytes reads len(dst) bytes at off in src, waiting for the queue:
	// a result read back, not a transfer (not counted).
	ReadBytes(dst []byte, src Buffer, off int) error
}

// Program is a built program.
type Program interface {
	// Kernel makes a new kernel object for the function name.
	Kernel(name string) (Kernel, error)
	Release() error
}

// Kernel is one kernel function of a Program.
type Kernel interface {
	Name() string
	Release() error
}

// Buffer is a kernel argument: the Native handle of an allocation's root.
type Buffer uintptr

// Local is a kernel argument that reserves that many bytes of work-group
// local memory.
type Local int

// Grid is the shape of a launch: Dims dimensions of Global work items in
// work-groups of Local (all zero: the device picks).
type Grid struct {
	Dims          int
	Global, Local [3]int
}

// HostMemory is a Compute device whose memory the host addresses directly
// (device/sim): work on it runs Go code on views of its memory, inside Run.
type HostMemory interface {
	Compute
	// Run runs fn as one launch named op; fn reaches an allocation's
	// memory (from its Offset, Bytes long) through mem. A launch the
	// device refuses (closed, or a fault injected for tests) returns an
	// error before fn runs.
	Run(op string, fn func(mem func(Allocation) ([]byte, error)) error) error
}

// Native is implemented by devices whose native handles other runtimes
// take (Halide's OpenCL runtime takes the context and queue).
type Native interface {
	// API names the handles' API: "OpenCL".
	API() string
	// Handles returns the native context and queue (cl_context,
	// cl_command_queue for OpenCL).
	Handles() (ctx, queue uintptr)
}
