// Package array provides Array, a typed N-D array laid out exactly like
// Halide's halide_buffer_t — per-dimension min, extent and stride, dimension
// 0 innermost — with an optional copy on a device.Device and Halide's two
// dirty bits.
//
// Element (x0, x1, …) of an Array lives at
//
//	host[Σ (xi − Dim(i).Min) · Dim(i).Stride]
//
// counted in elements from the element at the min corner.
//
// Residency. An Array made by New is device-aware: once a device has written
// it (DeviceDirty), the data stays there and the next device consumer reads
// it in place. Host data is reached only through a host view (Host,
// HostReadOnly): obtaining one is the one automatic copy to host, and it
// copies only when the device is newer. An Array over memory the caller
// holds (FromSlice) is host-only: every consumer leaves its host data
// current. A host view goes stale when a device later writes the Array or a
// view of its memory; using a stale view panics with ErrStale, so take a new
// view after device work.
//
// Views (Crop, Slice, Transpose, Permute, Translate, SetMin, Embed) share host
// and device memory with their parent and allocate no element data. As in
// Halide, each view carries its own dirty bits (HostDirty, DeviceDirty); a
// new view's start clean. Unlike Halide, the views of one memory also see
// each other's dirty regions: a host view of an Array picks up what a crop
// of it left on the device, a crop of a device-dirty Array syncs from the
// device, and uploading a crop picks up host writes made through its parent
// (NeedsCopyToHost, NeedsCopyToDevice).
//
// Programmer errors (bad shapes, coordinates out of range, use after Close)
// panic with one of the package's sentinel errors; device failures are
// returned as errors.
package array
