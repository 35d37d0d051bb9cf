// Package ops holds operations on Arrays that follow residency, destination
// first: ops.Binary(dst, a, b, ops.OpAdd).
//
// An elementwise op is a value passed to its family's one function, as
// Compare takes a CmpOp and image/draw's Draw an Op: Unary(dst, a,
// OpExp), Binary(dst, a, b, OpAdd), BinaryScalar(dst, a, 2, OpMul),
// ScalarBinary(dst, 1, b, OpDiv), Compare(dst, a, b, LT) and
// Expr.Unary/Expr.Binary in fused expressions. A new row of
// ops/internal/optable's table adds a constant, not a function.
//
// # Where an op runs
//
// Residency decides, so user code is the same on both sides. An op's
// operands are dst and its input Arrays (Go scalars do not count). The
// rule is the module's one placement rule, stated in package array's
// documentation ("Where work runs") and shared with package halide: in
// short, operands on two devices are an error wrapping device.ErrForeign;
// a host-only operand (FromSlice, Wrap: caller-held memory) keeps the op
// on the host; otherwise the op runs on the device D its operands are
// allocated on when the freshest copy of some operand is there, or when
// every input Array is already current there (with no input Arrays, as
// for Fill, dst), and on the host else. dst is overwritten and gets an
// allocation on D if it has none; the result stays on D, device-dirty.
// An op on a device that does not compute (device.Computes) runs on the
// host.
//
// Mixed cases therefore cost one counted copy per stale operand: on the
// device, a host-newer input is uploaded (H2D in D's Stats); on the host,
// a device-dirty input is copied home (D2H). Under the transfer guard
// (device.SetDeviceGuard(d, true)) either copy is an error wrapping
// device.ErrTransferGuard, before anything moves. On(d, xs...) is the
// explicit placement for the first op of a chain: it gives each Array an
// allocation on d and uploads its host-newer data (explicit, so allowed
// under the guard). A host op takes each input with HostReadOnly and dst
// with Host; dst is then newest on the host.
//
// MatMul (and MatMulWith, which adds an explicit device.Precision and
// float16/bfloat16 elements) on a device that multiplies matrices itself
// (device.Gemmer: device/cuda's cuBLAS) runs there first, on that
// device's stream.
//
// Device ops are OpenCL kernels enqueued on D's in-order queue, the queue
// package halide's OpenCL pipelines use (halide.DefaultDevice("OpenCL") is
// opencl.Default()), so pipelines and ops chain with no host sync and no
// transfer; only reading a result on the host waits. The same kernels run
// on device/cuda's Device where NVRTC is there (device.BuildsOpenCLC: it
// translates them to CUDA C++), on its stream; without NVRTC ops on such
// a device, MatMul aside, run on the host. Kernels are built once per
// device and element type (PoCL caches binaries under POCL_CACHE_DIR); a
// build failure returns an error wrapping *opencl.BuildError (or
// *cuda.BuildError) with the build log. Views of any layout run in
// place: kernels take the root cl_mem, an element offset and per-operand
// strides, never a sub-buffer or a dense copy.
//
// On the device: every elementwise, scalar and unary op (each BinaryOp
// and UnaryOp: a row of ops/internal/optable's table, whose device form
// is generated with its host form: OpAdd … OpMod, OpAbs … OpLog1p),
// Clip, IsNaN, IsInf, IsFinite, Compare, CompareScalar, Where, Copy (of
// any view: Copy(dst, src.Transpose(0, 1)) is a transpose), Fill, Iota,
// RandUniform, RandNormal (float32 math for float32 and the halves),
// Sum, Prod, Min, Max,
// Mean, ArgMin and ArgMax (along an axis, AllDims and ArgMinAll,
// ArgMaxAll), Var,
// Std, Norm, LogSumExp, CountNonzero, Any and All (both forms), CumSum,
// CumProd, Softmax, Sort, ArgSort and TopK along an axis (cl/along.cl;
// Sort is a bitonic network, 2 + log2(P)(log2(P)+1)/2 launches for lines
// padded to P), Im2Col, Col2Im, MaxPool2D and MaxPool2DBackward (NCHW,
// gorgonia's conventions; cl/conv.cl), MatMul
// (float32; float64 where the device has cl_khr_fp64) and CastWrap and
// CastSaturate between every pair of element types. Ops over more than 8
// dimensions after merging, and any op with a float64 operand on a device
// without cl_khr_fp64, run on the host under the same rule, with the
// counted (and guarded) copy of device-dirty inputs that the host side
// makes. The *All functions return Go values: on the device they read back
// one element (a blocking read, not counted as a transfer); Sum into a 0-D
// Array keeps the result on the device. ArgMinAll and ArgMaxAll pick the
// element the host picks. A reduction along a long axis is one launch:
// each output's work-groups reduce their shares, and the last of them to
// finish joins their partials (go test -run OnePass ./ops). Variants to
// compare on a GPU are set per device with SetTuning
// (Tuning.Reduce: TwoPass joins in a second launch instead, GroupsPerUnit
// the work-groups per compute unit (4), WorkGroup their size (256),
// Unroll the 16-byte loads a work-item has in flight (4)).
//
// Device results equal host results exactly for integers, Copy, Fill,
// Iota, RandUniform and RandNormal (the same Philox-4x32-10 stream, see
// Philox4x32), the argument reductions and casts (bit for bit; a NaN's payload
// may differ where the device converts between float32 and float64).
// Float results are within (device_test.go's devTol) 1e-5 relative for
// float32 and 1e-12 for float64, since OpenCL's division, sqrt and
// transcendentals may be a few ulps off (OpenCL allows up to 16 ulps for
// float pow, 4 for sin and cos) where the host's are correctly rounded or
// (float32 Sin, Cos, Tan, Sigmoid, Log, Log1p, Expm1, Asin, Acos and
// Atan, computed in float64 with short series: math32.go, log32.go,
// hyp32.go, asin32.go; Pow in float64 from tables, pow32.go; Exp, Tanh,
// Sinh and Cosh in float32 with corrected sums, exp32.go, tanh32.go,
// sinhcosh32.go; float64 Exp in float64 lanes, exp64.go; float64 Pow
// with a two-part logarithm, pow64.go; its x^2 is x·x, correctly rounded as NumPy's
// x**2) within one ulp (TestMath32Accuracy,
// TestPow32Hard, TestExpAccuracy, TestTanhAccuracy, TestSinhCoshAccuracy
// (Tan too), TestExpF64Accuracy, TestPow64Accuracy); float64
// Sin, Cos, Tan, Log, Atan, Asin and Acos in float64 lanes give package
// math's bits (sin64.go, atan64.go; TestSinCosF64, TestLogF64,
// TestAtan64), float64 Tanh, Sigmoid, Sinh, Cosh and Expm1 (on Exp's
// kernels, hyp64.go), Log1p (on Log's, math64.go) and Softplus (on
// both) within two ulps (TestTanhF64, TestSigmoidF64, TestHyp64Accuracy,
// TestLog1pF64, TestSoftplusF64); the
// rounding ops, Relu, Sign, Mod, Clip and the class tests are exact; Float16 and BFloat16 compute in float32 and may round to the
// neighbouring value. Device sums of float types accumulate in
// float64 (float32 without cl_khr_fp64) in a different order than the host.
// MatMul's kernel (tiling, and split-K for thin products) is chosen per
// device and shape class: measured at the class's first product, or by a
// deterministic model with Tuning.Gemm.ModelOnly (SetTuning); see
// Tuning; a tuner (bench/cmd/opsbench -tune) forces one through
// package ops/tune. Check with
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run Device ./ops
//
// and with generated cases (every op and element type over generated
// layouts and residency states, against plain-loop references and NumPy,
// placement checked with the transfer counters; -diff.n raises the
// budget):
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run Diff ./ops
//
// # Shapes, views and broadcasting
//
// Operands are Arrays of any rank and layout: crops, slices, transposes and
// permutations, non-zero mins, any non-negative strides. Inputs may be
// read-only broadcast views (array.Array.BroadcastTo: stride 0 with any
// extent), read on the host and on devices as NumPy reads them, moving
// only their source's elements (go test -run 'BroadcastInputs|Diff'
// ./ops); an output never: a read-only dst is an error wrapping
// array.ErrReadOnly, before anything runs or moves (go test -run
// ReadOnlyOutputs ./ops). Operands align by
// position from their min corner, dimension by dimension (dimension 0,
// the innermost, with dimension 0): their mins need not agree. Broadcasting
// is numpy's rule mirrored to this dimension order: an input may have fewer
// dimensions than dst (the missing ones are outer and repeat) and any input
// dimension of extent 1 repeats along dst's extent. dst itself never
// broadcasts: its shape is the result's shape. A shape that does not fit
// panics with an error wrapping array.ErrShape that names both shapes.
// Functions ending in Scalar take a Go value in place of an Array.
//
// Errors follow the module's one policy (package array's documentation,
// first screen; go test -run ShapePolicy ./ops): a programmer's mistake
// that the code shows (shapes that do not fit, a dimension out of range)
// panics, also from calls with an error result; what depends on data or
// state returns an error
// before anything runs or moves: a closed operand (device.ErrClosed, see
// Lifetime), operands on two devices (device.ErrForeign), a refused
// transfer (device.ErrTransferGuard), a read-only output
// (array.ErrReadOnly), an unsupported type
// (ErrUnsupported), and a reduction over no elements that has no value:
// Min, Max, ArgMin and ArgMax over an empty dimension or over AllDims of
// an empty Array, and ArgMinAll and ArgMaxAll of one, return an error wrapping
// array.ErrShape (NumPy raises ValueError). Sum, Prod and Mean over no
// elements are 0, 1 and NaN (0 for integers).
//
// dst may be the same Array as an input with the same layout (in place);
// other overlaps between dst and an input are undefined.
//
// # Results without pre-made outputs
//
// Every op has an allocating form through a few generic helpers that
// take the dst-first op and make dst: New1 (one input: Copy, the casts,
// Clip's closures), New2 (two inputs, broadcast), New1Op, New2Op and
// NewScalarOp (the ops that take an op code: Unary, Binary, Compare,
// BinaryScalar, CompareScalar, as ops.New1Op(ops.Unary, a, ops.OpExp)),
// NewWhere, NewReduce (an
// array.Axis in NumPy's order: ops.NewReduce(ops.Sum, a, -1)), NewMatMul
// and Arange. The new dst has no device allocation, so the op places it
// by the rule above: on the inputs' device when they are current or
// newest there (checked on the host, device/sim and PoCL with the
// counters: go test -run NewPlacement ./ops). NewAlong (Sort, ArgSort,
// CumSum, CumProd, Softmax along an array.Axis), NewReduceOp (Var, Std,
// Norm) and
// MeanFloat (and MeanAllFloat, NumPy's float64 mean of integers) follow
// the same rule. Reshape, Concatenate, Stack,
// Index (any step) and Flip are the copying shape operations beside
// package array's views, and BroadcastTo the writable copy of array's
// read-only broadcast view; package array's documentation has the NumPy
// table.
//
// # NumPy's indexing, statistics and random generators
//
// Take (np.take along an axis) and Put (np.put) index with an int64
// Array; Extract (a[mask]) and PutMask (a[mask] = x) take a uint8 mask.
// Indices and masks are data: read on the host (device-dirty ones copied
// home, counted and guarded), an index out of range an error wrapping
// array.ErrOutOfRange. On a device where the rule places them: Take is
// one Copy launch per index, Put one Fill launch per index, PutMask a
// Fill and a Where, Meshgrid one Copy per output (BroadcastTo), so the
// results stay there with no transfer; Extract, Unique, UniqueCounts,
// Bincount, BincountWeights, Histogram and HistogramRange, whose result
// lengths depend on the data, run on the host. Generator is a seeded,
// splittable random generator passed around as a value: its Uniform,
// Normal and Integers fill an Array from consecutive parts of its seed's
// Philox stream, the same bits on the host and a device (Integers is
// RandUniform, Mod, Add and CastWrap, all on the device when dst is
// there). Checked against loop models on the host, device/sim and PoCL,
// and against NumPy:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run 'TakeModel|PutModel|MaskModel|Meshgrid|Unique|Histogram|MeanFloat|NewAlong|Generator|IndexingNumPy' ./ops
//
// Einsum is np.einsum in NumPy's subscripts ("ij,jk->ik", "bij,bjk->bik",
// "ii", "...ij,...jk", implicit outputs, broadcasting): diagonals and
// lone labels are summed first, then operands contract left to right,
// each pair in one MatMul for float32 and float64 (else a broadcast Mul
// and a Sum), so operands on a device stay there and nothing moves.
// Drawn specs, layouts and element types run on the host, device/sim and
// PoCL against np.einsum, asserting where the result lives and that no
// transfer happened (FuzzEinsumSpec: any spec panics with array.ErrShape
// or works):
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run 'Einsum' ./ops
//	go test -run 'EinsumNumPy' ./ops -args -einsum.n 2000 -einsum.seed 7
//
// # Fused expressions
//
// An Expr is a chain of elementwise ops written once and run in one pass
// over its Arrays, with no temporary Arrays: leaves In(a) and Const(v),
// nodes Binary (any BinaryOp: In(a).Binary(OpMul, In(b))), Scale (by a
// Go value), Unary and the casts AsType and AsTypeSaturate, with the
// definitions of the ops of the same names.
// Eval(dst, e) stores it; EvalSum (into a 0-D dst), EvalSumAll,
// EvalMinAll and EvalMaxAll end it in a reduction over every element. So
// the mixed chain's cast → scale → sum of an image reads the image once:
//
//	sum, err := ops.EvalSumAll(ops.AsType[float32](ops.In(img)).Scale(1.0 / 255))
//
// Placement is the rule above with e's Arrays as the inputs. On an OpenCL
// device e compiles to one kernel, generated from its structure and
// element types and built once per device (constants are kernel
// arguments, so e.Scale(2) and e.Scale(3) share it; Expr.String shows the
// key): Eval is one launch, and so is a reduction, whose last work-group
// to finish joins the work-groups' partial results as Sum's do
// (Tuning.Reduce.TwoPass: a second launch joins them). On the host and on a Go device it is one parallel pass
// over blocks of 128 elements that runs the host kernels node by node on
// the block. Each node's value is rounded, as the op-by-op result is, to
// its element type, so integer results, and float results without
// transcendental nodes, equal op-by-op evaluation exactly; float
// transcendentals are within the tolerances above; sums add in another
// order (Sum's accuracy). An Expr of more than 7 distinct Arrays runs op
// by op, each op placed by the rule, through temporary Arrays it closes;
// more than 8 dimensions after merging, or float64 on a device without
// cl_khr_fp64, run fused on the host. Checked against op-by-op evaluation
// of generated expressions on generated layouts and residency states,
// with the launches counted:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run 'Fuse' ./ops
//
// # Types
//
// Elementwise ops, reductions, comparisons, Where, Copy, Fill, Iota and the
// casts take every array.Elem type. Float16 and BFloat16 compute in float32
// and round once per result. Integer arithmetic wraps; integer x/0 is 0.
// Mod is floored (NumPy's remainder): x mod 0 is NaN for floats, 0 for
// integers. Floor, Ceil, Round, Trunc and Relu take integers too (the
// rounding ops are the identity there); IsNaN, IsInf and IsFinite write
// uint8 masks, as Compare does.
// An op a type does not define (Sqrt of an int, Neg of a uint) returns an
// error wrapping ErrUnsupported. MatMul takes float32 and float64.
//
// # Accuracy of sums
//
// Float sums (Sum and Mean, along a dimension or AllDims) are pairwise: leaves of 512
// float64 (4096 float32, Float16 or BFloat16) elements are added in 8 (Go)
// or 32 (AVX2) float64 lanes, and the leaves' sums join a binary pairwise
// tree, across rows; the workers' partial sums (at most 4 per worker) are
// added in order. Every float type accumulates in float64. The result is
// within
//
//	|s − Σx| ≤ (2·log2(n) + 40) · 2⁻⁵³ · Σ|x|
//
// of the exact sum before the final rounding to T (half an ulp of T),
// which TestSumAccuracy and TestReduceAllTypes check against float64
// references: float32 sums within 2⁻²⁴·Σ|x|, float64 within the bound
// above:
//
//	go test -run 'SumAccuracy|ReduceAllTypes' ./ops
//
// # Speed
//
// Host kernels split work across GOMAXPROCS goroutines (a pool started on
// first use, whose goroutines poll for 50 µs after each task before they
// sleep, so that the next op finds them awake, and let other goroutines
// run every 25 µs meanwhile; a cheap op's chunks go to
// the same goroutine at every call of a shape, so its data stays in that
// core's cache) above a size threshold, and allocate nothing per call in
// steady state (go test -run ZeroAllocs ./ops). Dense float32/float64 add, sub, mul, div and sums use AVX2
// assembly, as do float32 Sigmoid, Sin, Cos, Pow, Log and Log1p (in float64 lanes),
// Exp and Tanh (in float32 lanes), LogSumExp, Softmax, Norm and
// CountNonzero, Abs, Neg, Sqrt and Relu, and Floor, Ceil, Round and
// Trunc (VROUNDPS), transposing copies AVX 8×8 blocks, and MatMul a packed
// micro-kernel with AVX-512 (or AVX2/FMA; ops' tests take -avx512=false
// to compare), chosen at start-up with github.com/klauspost/cpuid/v2; Accel
// reports the choice. Large
// elementwise results are written with non-temporal stores. Everything else,
// and every kernel on other CPUs, runs portable Go: set
// RESIDENT_OPS_PORTABLE=1 (or build with -tags purego) to force it.
// TestPortableKernels runs the host-kernel tests again with the assembly
// off, so every test run covers both. Figures: bench/results/ops-host.txt, from
//
//	go test -run '^$' -bench . -benchmem ./ops
//
// The float32 math ops are measured against NumPy in the same run by
// bench/math-numpy.sh (bench/results/host-math-numpy.txt).
//
// Device ops are measured against PyTorch on the same GPU by
// bench/cmd/opsbench (its documentation has the commands).
//
// # Lifetime
//
// Ops follow package array's one rule ("Lifetime and concurrency" in its
// documentation): ops that only read an Array may run from many goroutines
// at once. Every exported function of the package that returns an error
// returns one wrapping device.ErrClosed (through array.ErrClosed) when the
// root of any operand, or of the root a view operand views, was closed,
// before anything runs or moves and without panicking: one atomic load
// per operand (go test -run Closed ./ops checks every function, on the
// host and on a device). An op on a closed device, or one that races a
// Close, returns an error wrapping device.ErrClosed as the rule says. The
// functions without an error result, Accel, Philox4x32, NewGenerator,
// SetTuning and TuningOf, take
// no Array (the Generator's methods return the error);
// In, Const, AsType and AsTypeSaturate build expressions without reading
// their Arrays (Eval and the reductions of an Expr check them).
package ops
