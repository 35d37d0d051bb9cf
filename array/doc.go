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
// Mistakes and failures: one rule for every call of the module. A shape
// mistake — what the arguments' shapes, axes and counts alone rule out: an
// element count that differs (Reshape, FromSlice, FromValues), shapes
// that do not broadcast or match (BroadcastTo, every op), an axis,
// dimension or coordinate outside the Array, a rank that does not fit, a
// negative extent or count — is a programmer error: the call panics with
// a package sentinel (ErrShape, or ErrOutOfRange for an axis, dimension
// or coordinate) and a message that names the fix, also when it has an
// error result. An error is returned only for what the shapes cannot
// tell: the layout (Reshape's ErrNotView; the dims given to View and
// Wrap, checked as a whole), the values (an index array's entries, a reduction over no
// elements), a closed or read-only Array, devices and residency
// (device.ErrForeign, device.ErrTransferGuard, driver failures) and I/O.
// Halide pipelines check their arguments themselves when called, so
// package halide returns those checks' failures as errors. TestShapePolicy
// in package ops drives each call with a mistake and checks which it does.
//
// Residency. An Array made by New is device-aware: once a device has written
// it, the data stays there and the next device consumer reads it in place.
// Host data is reached only through a host view (Host, HostReadOnly):
// obtaining one is the one automatic copy to host, and it copies only what
// the device holds newer. An Array over memory the caller holds (FromSlice,
// Wrap) is host-only: every consumer leaves its host data current.
//
// One memory, one state. A root (made by a constructor) and all its views
// (Crop, Slice, Transpose, Permute, Translate, SetMin, Embed, View, and
// the read-only BroadcastTo) share host
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
// running calls brings the Arrays' device-dirty data home, then waits for
// every call already inside its driver (ops, pipeline calls, streams,
// transfers) and fails later ones with an error wrapping
// device.ErrClosed, before it releases anything. Views
// need no Close (Close on a view does nothing). Outside these rules the
// library returns an error wrapping device.ErrClosed (a call or a
// transfer that raced a Close, or ran on a closed device: its results are
// lost). A closed root or its view used afterwards gives an error wrapping
// ErrClosed from every call that returns an error (Host, CopyToHost, MoveTo,
// every op and pipeline call), and a panic with it from those that cannot (a
// host view's At, SetHostDirty); a view made of a closed Array is closed
// too — never a crash. TestLifetimeStress in package halide and the
// generated races of internal/closerace check this:
// go test -race -run LifetimeStress ./halide; go test -race ./internal/closerace
//
// Values lost at a device's close. The copy home when a device closes
// can itself fail (the driver erring as the device goes away). The
// device-dirty region whose copy failed is then lost: no copy holds its
// values, and its host bytes are stale. The Array remembers it, by box
// as the dirty state, and every read that would see it on the host — a
// host view (Host, HostReadOnly) or an old one's At and Data, CopyToHost,
// printing, Compact, Equal, an upload to another device (CopyToDevice,
// MoveTo), an op or pipeline that reads it — returns an error wrapping
// ErrLost (so device.ErrClosed) and the failed copy's error, or panics
// with it where there is no error result. Views that avoid the region
// read as before. A write of every element of the region (an op or a
// pipeline with it as output, such as ops.Fill or ops.Copy; a host view's
// Fill or a covering CopyFrom; a device write; SetHostDirty(true) or
// SetDeviceDirty(true), which say a writer wrote it) makes it readable again; a
// partial write leaves the rest lost. A lost Array closes, and is
// collected, like any other. Raw's HostPtr and HostBytes bypass this, as
// they bypass residency: go test -run Lost ./array
//
// # Recycled host storage
//
// Host memory of 64 KiB or more (New, Zeros, Like, Empty, and the
// allocating forms of package ops) comes from a pool of blocks by size
// class, bounded (256 MiB; a block unused over two collections leaves
// it). A block goes back by one of two paths, and never while something
// can still reach it:
//
//   - The collector: a finalizer keyed on the block itself, which every
//     sharer reaches (root, views, storage, slices from Data, calls using
//     it), not on any one of them, returns it once none is left. A miss
//     after 16 MiB (or half the live heap) lent since the last
//     collection asks for one, so a loop that drops its results reuses
//     them (go test -run PoolDropLoop ./array).
//   - Close of the root, at once (after the calls using it end), but
//     only for memory nothing outside the library's counted uses ever
//     reached: no host view, HostPtr, HostBytes or device copy (a slice
//     from those may outlive the Close). Host ops of package ops reach
//     their operands through such uses, so a result only fed to ops and
//     then closed is recycled at Close.
//
// New, Zeros and Like clear a recycled block; Empty and the allocating
// forms of package ops, which write every element, do not. Random
// programs of allocate, view, write, keep a slice, op, Close, drop and
// collect are checked against a model, and Close racing ops, under
// -race: go test -race -run Pool ./array
//
// # One axis order
//
// Users meet NumPy's order: shapes outermost first, axes as NumPy counts
// them. Shape, Reshape, BroadcastTo, Index, Squeeze, ExpandDims, Split,
// Zeros, Full, FromValues, FromRows and the NumPy-named functions of
// package ops (the allocating forms, the shape, indexing and statistics
// functions) take and return shapes and Axis values in it; fmt prints an
// Array as NumPy prints it; and a message that prints a shape prints it
// as NumPy does, (2, 3), Array's String ("float32(2, 3) …") included,
// whichever call failed (a dimension named in a message of array or ops
// comes with its axis: "dimension 0 (axis 1)"; a list labelled extents
// is the Halide-order argument of the calls below). go test -run 'AxisOrderNumPy|NumPyOrderErrors' ./ops
// runs drawn calls here and in NumPy and compares result shapes, which
// calls refuse, and the shapes, axes and ranks the messages print.
//
// Halide's order (dimension 0 innermost, the layout's own) is kept only
// where the layout is the point, in the calls that say so by their
// parameters (extents, dim, dims) or by returning Dims — these and no
// others:
//
//	array   New, NewWithMins, NewInterleaved, NewIn, NewOver (extents),
//	        FromSlice (extents), Wrap and View (dims), Dim, Dims, Extents,
//	        Box, Raw, Crop, Slice, Embed, Transpose, Permute, Translate,
//	        SetMin (dim)
//	halide  pipeline arguments and bounds (Halide's buffers)
//	interop images as (x, y, c) (package img); a foreign row-major
//	        shape reverses into extents (package interop's "Axis order")
//
// The bridge between the two: a.DimOf(axis) is the dimension an axis
// names, Shape() is Extents() reversed. The dst-first ops of package ops
// (Sum … ArgMax, Sort, TopK, CumSum, Softmax, Var, Norm, Iota, …) take an
// Axis too: ops.Sum(dst, a, -1) is a.sum(axis=-1) into dst.
//
// # NumPy's words
//
// The layout stays Halide's (dimension 0 innermost); NumPy's order is
// spoken where NumPy is. The rule: a parameter named shape, or of type
// Axis or Sel, is in NumPy's order (outermost first; a negative Axis
// counts from the innermost, -1 being dimension 0); one named extents or
// dim is in Halide's. So NumPy's shape (2, 3) is extents (3, 2), Shape()
// is Extents() reversed, and a row-major (C-order) slice of values is
// exactly the dense layout. Views share host and device memory with
// their Array, as NumPy's views do; the copying forms live in package
// ops, follow residency (they run where their inputs are) and return new
// Arrays. Each row is one call (a, b: Arrays of float32 unless said; c:
// uint8; ops' results come with an error):
//
//	NumPy                          resident
//	np.zeros((2, 3), np.float32)   array.Zeros[float32](2, 3)
//	np.full((2, 3), 7)             array.Full[int32](7, 2, 3)
//	np.empty((2, 3), np.float32)   array.Empty[float32](2, 3) (unspecified elements)
//	np.array([[1, 2], [3, 4]])     array.FromRows([][]float32{{1, 2}, {3, 4}})
//	np.array(xs).reshape(3, 2)     array.FromValues(xs, 3, 2)
//	np.arange(5)                   ops.Arange[int32](5)
//	np.linspace(0, 1, 5)           array.Linspace[float64](0, 1, 5)
//	np.eye(2, 3, k=1)              array.Eye[float32](2, 3, 1)
//	np.identity(3)                 array.Identity[float32](3)
//	np.meshgrid(x, y)              ops.Meshgrid(x, y) (indexing='ij': MeshgridIJ)
//	a.shape                        a.Shape()
//	a.ndim                         a.Rank()
//	a.size                         a.Len()
//	axis=-1 (as a dimension)       a.DimOf(-1)
//	a.reshape(3, -1)               a.Reshape(3, -1) (a view, or ErrNotView)
//	a.reshape(3, -1), copying      ops.Reshape(a, 3, -1) (a view when it can)
//	a[1:3, -2:]                    a.Index(array.R(1, 3), array.From(-2))
//	a[:, 1]                        a.Index(array.All, array.I(1))
//	a[::2, ::-1]                   ops.Index(a, array.All.Step(2), array.All.Step(-1))
//	a.T (2-D)                      a.Transpose(0, 1)
//	np.squeeze(a)                  a.Squeeze()
//	np.expand_dims(a, 0)           a.ExpandDims(0)
//	np.split(a, 3, axis=-1)        a.Split(3, -1)
//	np.concatenate([a, b], 0)      ops.Concatenate(0, a, b)
//	np.stack([a, b], -1)           ops.Stack(-1, a, b)
//	np.flip(a, -1)                 ops.Flip(a, -1)
//	np.take(a, idx, axis=1)        ops.Take(a, idx, 1) (idx: int64 Array)
//	np.put(a, idx, v)              ops.Put(a, idx, v)
//	a[mask]                        ops.Extract(mask, a) (a new 1-D Array)
//	a[mask] = 0                    ops.PutMask(a, mask, 0)
//	np.broadcast_to(a, (2, 3))     a.BroadcastTo(2, 3) (a read-only view)
//	a + b                          ops.New2Op(ops.Binary, a, b, ops.OpAdd)
//	a * 2                          ops.NewScalarOp(ops.BinaryScalar, a, 2, ops.OpMul)
//	np.sqrt(a)                     ops.New1Op(ops.Unary, a, ops.OpSqrt)
//	a.astype(np.int32)             ops.New1(ops.CastWrap[int32, float32], a)
//	a.copy()                       ops.New1(ops.Copy, a)
//	np.copy(a) (order='K')         a.Compact() (order='C': a.Compact(array.COrder); on a device: ops.Clone(d, a))
//	a < b                          ops.New2Op(ops.Compare, a, b, ops.LT)
//	np.where(c, a, b)              ops.NewWhere(c, a, b)
//	a.sum(axis=-1)                 ops.NewReduce(ops.Sum, a, -1)
//	a.argmax(axis=1)               ops.NewReduce(ops.ArgMax, a, 1)
//	a.sum()                        ops.Value(ops.Sum, a) (dst form: ops.Sum(dst, a, ops.AllDims))
//	a.std(ddof=1)                  ops.ValueOp(ops.Std, a, 1)
//	np.mean(i) (i: int32)          ops.MeanAllFloat(i) (a float64; Value(Mean, i)'s is an int32)
//	np.mean(i, axis=-1)            ops.MeanFloat(i, -1)
//	np.var(a, axis=-1, ddof=1)     ops.NewReduceOp(ops.Var, a, -1, 1) (np.std: ops.Std)
//	np.sort(a, axis=-1)            ops.NewAlong(ops.Sort, a, -1)
//	np.argsort(a, kind='stable')   ops.NewAlong(ops.ArgSort, a, -1)
//	np.cumsum(a, axis=0)           ops.NewAlong(ops.CumSum, a, 0)
//	np.unique(a)                   ops.Unique(a) (with counts: UniqueCounts)
//	np.bincount(i)                 ops.Bincount(i, 0) (weights: BincountWeights)
//	np.histogram(a, 10)            ops.Histogram(a, 10) (range=: HistogramRange)
//	rng = np.random.default_rng(1) g := ops.NewGenerator(1) (g.Split(): another)
//	rng.random(out=a)              g.Uniform(a) (g.Normal, g.Integers(a, lo, hi))
//	a @ b                          ops.NewMatMul(a, b)
//	np.einsum('ij,jk->ik', a, b)   ops.Einsum("ij,jk->ik", a, b)
//	print(a)                       fmt.Println(a)
//
// Each row has an Example (array's and ops'; go test -run Example
// ./array ./ops). Every dst-first op of package ops has such an
// allocating form (ops.New1, New2, …: see ops' documentation); the result
// is placed by the rule below, on the inputs' device when they are there.
//
// Not views here, unlike NumPy: a step other than 1 and a flip. An
// Array's strides are never negative, and every view is a box of its
// root's elements: the unit of dirty state and of transfers, which a
// stepped or reversed view would break (a write through it would mark
// elements it never wrote). So ops.Index and ops.Flip copy (on a device
// one Copy launch per selected position of each stepped or flipped axis).
// A broadcast is a view, as NumPy's, and read-only, as NumPy's: its
// stride-0 dimensions repeat one element, so its box is its source's
// (reading it moves only the source's elements), and every write through
// it, or through a view of it, is refused with ErrReadOnly, naming the
// copying forms (ops.BroadcastTo, Compact). Only such views have stride
// 0 with extent > 1; every other layout's strides never alias. Ops read
// broadcast views as inputs on the host and on devices, and also
// broadcast their inputs' extent-1 and missing axes with no view at all.
//
// Reshape is a view when the merged dimensions are contiguous (as
// NumPy's) and the result is a box of the root (View's rule; a
// broadcast's repeated axes may split, not merge with others); else
// ErrNotView, and ops.Reshape copies, with Copy:
// on the input's device, or on the host with the counted download of
// device-newer data that any host op makes.
//
// # Where work runs
//
// One rule decides where every op (package ops) and every pipeline call
// (package halide) runs; internal/place implements it once. The operands
// are the work's output and input Arrays (Go scalars and empty Arrays do
// not count). In order:
//
//  1. A device chosen explicitly for the call (halide's
//     Options.Device) is where it runs. An operand allocated on another device
//     is an error wrapping device.ErrForeign; a closed device, one
//     wrapping device.ErrClosed.
//  2. Operands allocated on two devices are an error wrapping
//     device.ErrForeign that names Array.MoveTo, before anything moves:
//     copies between devices are never silent.
//  3. A host-only operand (FromSlice, Wrap, and the adapters over
//     caller-held memory) keeps the work on the host.
//  4. With no operand allocated on a device, or that device closed or not
//     computing (device.Computes), the work runs on the host.
//  5. Otherwise it runs on that device D when the freshest copy of some
//     operand is there (device-dirty), or when every input is already
//     current there (allocated on D, not host-dirty; with no inputs, the
//     outputs): no copy is needed either way. Outputs stay on D,
//     device-dirty.
//  6. Else on the host.
//
// Work with no host form (a pipeline built for OpenCL) skips rule 3 and
// runs on D whatever is newer there; with no device chosen or allocated it
// runs on the default device. Host-only operands of work that runs on a
// device get a temporary device copy for that call only: inputs are
// uploaded before it, outputs copied home after it, so the caller's memory
// is current when the call returns. Explicit placement of Arrays (ops.On)
// refuses host-only Arrays with an error naming ops.Clone, which makes a
// device-resident copy.
//
// Every copy the rule implies is counted in the device's Stats (H2D for a
// host-newer input of device work, D2H for a device-dirty input of host
// work) and refused under the transfer guard (device.SetDeviceGuard(d, true)) with
// an error wrapping device.ErrTransferGuard, before anything moves.
// Copies asked for by name (ops.On, ops.Clone, CopyToDevice, MoveTo) are
// allowed under the guard.
//
// Layout arithmetic is overflow-checked: constructors, views and Wrap panic
// with ErrShape or ErrOutOfRange (Wrap returns the error) rather than make
// a view that reaches past its storage.
//
// Programmer errors (shape mistakes, coordinates out of range, stale
// views, and use after Close in calls without an error result) panic with
// one of the package's sentinel errors; device failures are returned as
// errors: the rule at the top of this documentation.
package array
