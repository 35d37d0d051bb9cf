// Package engine is a gorgonia tensor.Engine whose ops run through package
// ops on an OpenCL device: a *tensor.Dense made WithEngine(e) keeps its data on the
// device between operations, and tensor's own API (Add, Mul, MatMul, Sum,
// Exp, … on the Dense, or tensor.Add and friends) runs there through
// package ops, on the device's queue, with no copy in between.
//
//	e := engine.New(dev)
//	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
//	c, err := a.Add(b) // runs on dev; c stays there
//
// Memory. Alloc hands tensor pinned host memory of the device, which every
// Dense of the engine addresses; the device copy and which side is newer
// are an array.Array's (a device-aware Array over that memory, typed on
// first use). Free releases it, and Close releases everything the engine
// still holds, as with gorgonia's CUDA engine: memory is not collected
// while the Engine is reachable (every Dense of it refers to it).
//
// Host access. AllocAccessible is false, so tensor marks these Denses
// NativelyInaccessible: the methods tensor guards with that flag (String
// and Format print "Inaccesible data"; Dense.Memset, ToMat64, iterators and
// the standard engine's arithmetic) return errors instead of reading stale
// memory. Methods tensor does not guard (Data, At, Get) read the host
// memory, which is always mapped — never a crash — but holds the latest
// values only after a sync: call Host(d), which copies device-newer data
// home and returns an ordinary Dense over the same memory (the host-only
// view: its writes are uploaded before the next device operation), or
// Accessible. Array(d) gives the device-aware Array view of a Dense, for
// Halide pipelines and ops.
//
// Writing. Write a Dense of the engine through Host(d), Memcpy, Memset,
// or tensor.Copy from another Dense of the engine. tensor.Copy from a host
// Dense runs the standard engine's Memcpy, which this engine never sees:
// call Host(d) first, so that the write is uploaded before the next device
// operation.
//
// Layouts. Operands may be any view tensor makes (Slice, the lazy T,
// Reshape) whose elements form a box of the memory's first layout (the
// Dense it was allocated for); others are an error wrapping
// gorgonia.ErrLayout that names the fix (Materialize or Clone). Element
// types are float32, float64 and int8 … uint64; others wrap gorgonia.ErrType.
// Operands from the standard engine (host Denses) are wrapped without
// copying and make the op run on the host, as package ops decides
// (documented there). A Dense of another engine of this package on the
// same device is used where its data lives (the op runs on the device,
// nothing moves); one on another device is first synced home by its
// engine (a counted copy, refused under the transfer guard), so the op
// runs on the host and never reads stale memory.
//
// Lifetime. A Dense used after Free is an error wrapping ErrFreed at
// every entry point (Host, Accessible, Array, the operations, Memset,
// Memcpy; Memclr panics with it). After Close every entry point returns an
// error wrapping device.ErrClosed: Close frees every allocation, device-
// newer data included, so copy what you keep first (Host(d), then Clone).
// Close, like Free, must not run concurrently with operations on the
// engine's Denses.
package engine
