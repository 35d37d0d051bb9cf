// Package array provides Array, a typed N-D array laid out exactly like
// Halide's halide_buffer_t — per-dimension min, extent and stride, dimension
// 0 innermost — with an optional copy on a device.Device.
//
// Element (x0, x1, …) of an Array lives at
//
//	host[Σ (xi − Dim(i).Min) · Dim(i).Stride]
//
// counted in elements from the element at the min corner.
//
// Residency. An Array made by New is device-aware: once a device has written
// it, the data stays there and the next device consumer reads it in place.
// Host data is reached only through a host view (Host, HostReadOnly):
// obtaining one is the one automatic copy to host, and it copies only what
// the device holds newer. An Array over memory the caller holds (FromSlice,
// Wrap) is host-only: every consumer leaves its host data current.
//
// One memory, one state. A root (made by a constructor) and all its views
// (Crop, Slice, Transpose, Permute, Translate, SetMin, Embed, View) share host
// memory, one device allocation — each view uses it at its own offset, as
// Halide's device_crop does, whatever order views and uploads happen in —
// and one dirty state kept by region: which elements the host holds newer,
// and which the device does. HostDirty and DeviceDirty say whether any of
// an Array's own elements are dirty. So any sequence of host writes, device
// writes, syncs and views reads the latest write, and a view's transfers
// move only its own elements.
//
// Staleness and concurrency are by region too. A host view is stale only
// when a later device write overlaps its elements; using it then panics
// with ErrStale. An Array value (a root or one view) is the unit of
// concurrency: goroutines working at once on distinct views whose elements
// do not overlap are supported and race-free. Overlapping concurrent writes
// are the caller's bug, as with slices.
//
// Lifetime and concurrency. On one Array (a root and its views), any
// number of goroutines may read at once — host read views, CopyToHost,
// pipeline calls and ops that only read it — and goroutines may write
// distinct views whose elements do not overlap; concurrent writes to
// overlapping elements (two calls with one output, a host view written
// while a call writes the Array) are the caller's bug, as with slices:
// the data is unspecified, never memory-unsafe. On one Device, any number
// of goroutines may run calls, transfers and Arrays' residency changes at
// once. Close, of an Array or of a Device, may run concurrently with all
// of that, and with the garbage collector: Close and the cleanup that
// frees a dropped root are one path, run once; a root closed while calls
// use it is freed when the last of them returns; a device closed under
// running calls first brings the Arrays' device-dirty data home. Views
// need no Close (Close on a view does nothing). Outside these rules the
// library returns an error wrapping device.ErrClosed (a call or a
// transfer that raced a Close, or ran on a closed device: its results are
// lost), or panics with ErrClosed when a closed root or its view is used
// afterwards — never a crash. TestLifetimeStress in package halide checks
// this: go test -race -run LifetimeStress ./halide
//
// Layout arithmetic is overflow-checked: constructors, views and Wrap panic
// with ErrShape or ErrOutOfRange (Wrap returns the error) rather than make
// a view that reaches past its storage.
//
// Programmer errors (bad shapes, coordinates out of range, use after Close,
// stale views) panic with one of the package's sentinel errors; device
// failures are returned as errors.
package array
