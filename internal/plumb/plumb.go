// Package plumb is the residency plumbing that package array lends to the
// module's bridges (halide, ops) without making it public API. Package
// array installs Array at init; bridges pass the *array.Raw they got from
// an array.Buffer.
package plumb

import (
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"io"
	"time"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Residency is what a bridge does to an Array around a device or host
// consumer. raw is an *array.Raw. Transfers are explicit here: bridges
// check the transfer guard themselves, before anything moves.
type Residency interface {
	// SyncHost copies the device-dirty parts of raw's elements home.
	SyncHost(raw any) error
	// SyncDevice allocates on d if needed and uploads host-dirty parts.
	// Memory on another device is an error wrapping device.ErrForeign.
	SyncDevice(raw any, d device.Device) error
	// Alloc gives the memory an allocation on d without copying.
	Alloc(raw any, d device.Device) error
	// NeedsDownload reports whether SyncHost would move data.
	NeedsDownload(raw any) bool
	// NeedsUpload reports whether SyncDevice(d) would move data.
	NeedsUpload(raw any, d device.Device) bool
	// Wrote records, after a successful call, what the consumer left
	// newest in raw's elements: Host or Equal (a device writer calls
	// WroteDevice, which reports a device closed meanwhile).
	Wrote(raw any, w Newest)
	// WroteDevice is Wrote(raw, Device) for a consumer that wrote the
	// allocation on: if the memory let go of it meanwhile (its device
	// closed), it records nothing and returns an error wrapping
	// device.ErrClosed instead of panicking.
	WroteDevice(raw any, on device.Allocation) error
	// Attachment and SetAttachment keep a bridge's per-Raw state (a C
	// buffer) until the Raw is dropped or its root released; the Closer
	// is closed exactly once. Attachment is safe to call concurrently;
	// SetAttachment returns the Closer the Raw keeps: c, or the one
	// another goroutine set first (then the caller closes c), or nil when
	// the root is released.
	Attachment(raw any) io.Closer
	SetAttachment(raw any, c io.Closer) io.Closer
	// Acquire registers a consumer's use of raw's memory (a call): until
	// the matching Release, Close does not free anything the consumer
	// relies on (the allocation, pinned memory, attachments); it fails
	// with an error wrapping device.ErrClosed once the root is closed.
	Acquire(raw any) error
	Release(raw any)
	// AcquireFor is Acquire for a consumer that reaches the memory on a
	// device (device true) or only on the host. A host consumer of Go
	// memory, which the consumer's reference to raw keeps valid, needs no
	// use: then it only fails for a closed root and reports false (no
	// Release), saving the two atomic operations of a use.
	AcquireFor(raw any, device bool) (held bool, err error)
	// HostUse is the host memory at raw's min corner for a host consumer
	// that reaches it only through the pointer and only until Release:
	// a use is held (Close waits for it; an error wrapping
	// device.ErrClosed once closed), and the memory counts as never
	// handed out, so Close can recycle it at once. ok false: take a host
	// view instead (raw has a device copy, is empty, or is a read-only
	// view given as an output: write true).
	HostUse(raw any, write bool) (p unsafe.Pointer, ok bool, err error)
	// HostDst readies raw's host memory for a host consumer that writes
	// every element of raw, where HostUse said no: like taking a writable
	// host view, but values lost when a device closed (array.ErrLost) do
	// not stop it, as it replaces them.
	HostDst(raw any) error
	// DeviceFree copies device-dirty data home and frees the allocation.
	DeviceFree(raw any) error
	// Closed reports whether raw's root was closed.
	Closed(raw any) bool
	// DeviceNewer calls fn with whether the device holds the newest data
	// of a and of b (views of one root; nil reads false), holding the
	// root's residency lock: no transfer, write record or eviction (its
	// device closing) changes the answer until fn returns. fn must not
	// call into the Array (it would wait for itself).
	DeviceNewer(a, b any, fn func(a, b bool))
	// DeviceState is, under one hold of raw's residency lock, the count
	// of changes to the set of its root's elements whose newest values
	// are on the device (downloads, device writes, host overwrites: equal
	// counts bracket a time no transfer wrote its host copy), and whether
	// the device holds the newest values of some and of all of raw.
	DeviceState(raw any) (gen uint64, some, all bool)
	// OnHome makes fn the one told, holding raw's residency lock, each
	// time a download leaves its root's host copy holding every newest
	// value (gen: DeviceState's count then). fn must not call into the
	// Array.
	OnHome(raw any, fn func(gen uint64))
}

// Newest says which copy of an Array's elements a consumer left newest.
type Newest uint8

const (
	Equal  Newest = iota // both copies agree
	Host                 // the host copy is newer (a host writer)
	Device               // the device copy is newer (a device writer)
)

// Array is package array's implementation, set by its init.
var Array Residency

// CheckAutomatic returns nil, or an error wrapping device.ErrTransferGuard
// that names what would have been copied, when the transfer guard is on
// for d (process-wide, or d's own: device.SetDeviceGuard). Every transfer the
// library makes on its own asks it first.
func CheckAutomatic(d device.Device, what string) error {
	if !guard.OnDevice(d) {
		return nil
	}
	return fmt.Errorf("%w: %s (copy explicitly with CopyToHost/CopyToDevice, or turn the guard off: device.SetDeviceGuard(d, false), or %s=0 at start-up)", device.ErrTransferGuard, what, device.GuardEnv)
}

// OpenCL is what package halide needs of a device/opencl Device beyond
// device.Native: device/opencl fills it at init, keeping these off its
// public surface. Each takes an *opencl.Device.
var OpenCL struct {
	// Owns reports whether d is a device/opencl Device, the only kind
	// the others take (a device that merely says API "OpenCL" is not).
	Owns func(d device.Device) bool
	// Pace bounds the commands in flight on d's queue (every few enqueues
	// it waits for an older marker).
	Pace func(d device.Device) error
	// InFlight counts d's markers not yet waited for.
	InFlight func(d device.Device) int
	// SubBufferAlign is the byte multiple a crop's offset needs to be a
	// cl_mem sub-buffer.
	SubBufferAlign func(d device.Device) int
}

// streamers are the device packages' StreamsOf answers, registered at
// init (device/opencl, device/cuda).
var streamers []func(d device.Device) (Streams, bool, error)

// RegisterStreams adds a device package's answer to StreamsOf: ok false
// for a device that is not the package's. Called from init only.
func RegisterStreams(f func(d device.Device) (st Streams, ok bool, err error)) {
	streamers = append(streamers, f)
}

// StreamsOf returns d's queues for streamed execution (package stream),
// made on first use; ok is false where d's package streams nothing.
func StreamsOf(d device.Device) (st Streams, ok bool, err error) {
	for _, f := range streamers {
		if st, ok, err = f(d); ok {
			return st, ok, err
		}
	}
	return nil, false, nil
}

// Queue names one of a device's three in-order queues (OpenCL command
// queues, CUDA streams) in streamed execution.
type Queue uint8

const (
	// Upload and Download are extra queues on the device's context.
	Upload Queue = iota
	// Compute is the device's own queue, where pipeline calls, ops and
	// the Device's methods run.
	Compute
	Download
)

// Event is a device event (a cl_event, a CUevent) that its holder Releases; the
// zero Event is none, and waiting for or releasing it does nothing.
type Event uintptr

// Streams is what package stream needs of a device: transfers on the
// upload and download queues, and events that order the three queues.
// Every byte a Transfer moves is counted in the device's Stats like
// CopyIn's and CopyOut's.
type Streams interface {
	// Transfer enqueues on Upload (host to device) or Download (device
	// to host) a copy of len(host) bytes between host and the allocation
	// a at byte off, held back until the events in after complete, and
	// returns the copy's event. host must lie in the device's pinned
	// memory (Pinned) and stay untouched until the event completes.
	Transfer(q Queue, a device.Allocation, off int, host []byte, after ...Event) (Event, error)
	// After holds back the commands queued on q from now on until the
	// events complete (clEnqueueBarrierWithWaitList, cuStreamWaitEvent).
	After(q Queue, evs ...Event) error
	// Mark returns an event that completes when every command queued on
	// q so far has.
	Mark(q Queue) (Event, error)
	// Wait blocks until e completes.
	Wait(e Event) error
	// Release drops e.
	Release(e Event) error
	// Flush submits the commands of all three queues.
	Flush() error
	// Pinned reports whether host lies inside one of the device's pinned
	// blocks, so that Transfer takes it.
	Pinned(host []byte) bool
	// Live counts the events handed out and not yet released (for tests
	// that prove nothing leaked).
	Live() int
}

// Timer is a Streams whose stamps carry the device's clock (CUDA events
// made with timing), for stream's Trace.
type Timer interface {
	// Stamp returns an event recorded on q that can be timed; it is
	// Released like any other.
	Stamp(q Queue) (Event, error)
	// Between is the device time from stamp a's completion to b's.
	Between(a, b Event) (time.Duration, error)
}

// TransferArgs checks a Streams.Transfer of n bytes at off on queue q into
// an allocation of size bytes, for package pkg's errors, and says whether
// it is an upload.
func TransferArgs(pkg string, q Queue, size, off, n int) (write bool, err error) {
	if q != Upload && q != Download {
		return false, fmt.Errorf("%s: stream transfer on queue %d: want Upload or Download", pkg, q)
	}
	if off < 0 || off+n > size {
		return false, fmt.Errorf("%s: stream transfer of %d bytes at %d in a %d-byte allocation: %w", pkg, n, off, size, device.ErrOutOfRange)
	}
	return q == Upload, nil
}
