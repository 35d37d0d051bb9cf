package device

// Device is a memory space with its own allocations, reached from the host
// only through explicit copies. Implementations are safe for concurrent use.
//
// Allocations mirror the host layout of the Array they back: a Region at
// byte offset off in an Allocation has the same strides as the host Region
// it is copied from, so a crop's transfer touches only the crop's bytes.
type Device interface {
	// Name says which device this is, for logs and benchmark tables.
	Name() string
	// Malloc returns a new allocation of at least bytes bytes.
	Malloc(bytes int) (Allocation, error)
	// Free releases an allocation or a crop. A root's memory is released once
	// the root and all its crops are freed. Freeing twice is a no-op.
	Free(a Allocation) error
	// Crop returns an allocation that shares a's memory, starting off bytes
	// into a and bytes long.
	Crop(a Allocation, off, bytes int) (Allocation, error)
	// CopyIn copies the host Region whose first element is src[0] to the same
	// Region at byte offset off in dst (host to device).
	CopyIn(dst Allocation, off int, src []byte, r Region) error
	// CopyOut copies the Region at byte offset off in src to the host Region
	// whose first element is dst[0] (device to host).
	CopyOut(dst []byte, src Allocation, off int, r Region) error
	// Copy copies a Region between two allocations of this device.
	Copy(dst Allocation, dstOff int, src Allocation, srcOff int, r Region) error
	// Sync waits for all work queued on the device.
	Sync() error
	// Stats returns the transfer and allocation counters.
	Stats() Stats
	// Close frees every allocation and the device's resources. Idempotent.
	// A call racing it completes or returns an error wrapping ErrClosed
	// (the module's devices: one gate that every driver call passes).
	Close() error
}

// Allocation is device memory. Native is the handle other runtimes need (an
// OpenCL cl_mem for device/opencl); Offset is the byte offset of this
// allocation from the start of that handle's memory (non-zero for crops).
type Allocation interface {
	Device() Device
	Native() uintptr
	Offset() int
	Bytes() int
}

// HostAllocator is implemented by devices that can give host memory the
// device transfers from without staging (pinned, page-locked memory).
type HostAllocator interface {
	AllocHost(bytes int) (HostBlock, error)
}

// HostBlock is host memory from a HostAllocator. Bytes stays valid until
// Free; Free is idempotent.
type HostBlock interface {
	Bytes() []byte
	Free() error
}
