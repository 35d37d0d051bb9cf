// Package engine is a gorgonia tensor.Engine whose ops run through package
// ops on an OpenCL device: a *tensor.Dense made WithEngine(e) keeps its
// data on the device between operations, and tensor's own API (Add, Mul,
// MatMul, Sum, Exp, Gte, Argmax, Clamp, … on the Dense, or tensor.Add and
// friends) runs there through package ops, on the device's queue, with no
// copy in between.
//
//	e := engine.New(dev)
//	a := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2, 3), tensor.WithEngine(e))
//	c, err := a.Add(b) // runs on dev; c stays there
//
// Memory. Alloc gives memory on the engine's device: zeroed Go memory
// that tensor addresses, which on its first typed use becomes a
// device-aware array.Array with an allocation on the device — left for
// the op when that use is a destination the op overwrites whole (a result
// the engine made, a reused Dense, MatMul's preallocated, Memset), else
// zeroed there, so no transfer; only bytes written on the host before a
// first use that reads them are uploaded, once. That first read is the
// one time the engine scans host memory (for writes made through Data,
// which it never sees); a destination's host bytes are never looked at.
// The host side of a result the engine makes, and of its scratch, is not
// pinned: memory the system maps lazily (pages only where a copy home
// touches them), reused once the result is reclaimed. HostWork counts
// what the engine does on the host (bytes scanned and cleared, host
// allocations).
// Every op on the engine's Denses then runs on the device with no
// placement by hand (results stay there, device-dirty), and an operand
// written on the host since (through Host or Accessible) is uploaded
// before the op: a counted copy, refused under the transfer guard. Free
// releases an allocation, and Close releases everything the engine still
// holds, as with gorgonia's CUDA engine. Without Free, the device copy of
// Alloc's memory lives exactly as long as the Go memory: while any Dense,
// view or slice reaches it, whoever made it (tensor makes Denses over it
// that the engine never sees, and a whole view, such as a lazy transpose,
// looks like its owner), and is freed once the collector has taken the
// memory. So gorgonia's Adam and BarzilaiBorwein solvers, which Clone
// every step and hand the clones to tensor.ReturnTensor (no Free), keep
// device memory flat, as the other solvers do (mlp TestSolversLiveMemory,
// every solver on sim and PoCL). How: the engine holds the memory only
// while it uses it (pinned, under the Array); once every Dense it saw over
// the memory is collected or recycled by tensor's pool (a sweep when an
// engine call ends after a collection, and every few allocations), it parks the memory as adopted
// memory (below): the device copy and its state stay, the memory is
// watched weakly, and the next use through any Dense takes the copy up
// again with no transfer; a cleanup on the memory frees the copy. Parking
// frees nothing, so a Dense the engine saw going never costs a live one
// its data (TestAllocMemoryLivesWhileReachable: a Dense first seen through
// its transpose, a ShallowClone the engine never saw, a Dense recycled by
// tensor's pool; mlp TestStockSolverGCStress: 1000 steps of every solver
// with the collector running throughout give the weights of a run
// without). Nothing is released while an engine call is under way (a
// Dense's life can end at an op's argument: TestOperandCollectedInOp).
// The cost: Alloc's memory is not the device's page-locked memory, so its
// transfers take the driver's pageable path (CUDA stages them); a CUDA
// graph (Capture on CUDA) moves it through a pinned staging block of the
// graph's, copied to or from at each launch. Results the engine makes
// itself are released when collected, once no engine call is under way.
// A result Dense the engine makes
// itself (for Add, Sum, Gte, …, not one tensor allocates, as for MatMul)
// is also reclaimed once collected: its device allocation is freed and its
// host memory pooled, still mapped, so a view that outlived it reads old
// or reused values from Go code and is refused (ErrFreed) by the engine —
// keep the result while its views are used. Check with
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run 'Example|AllocLives|Methods' -v ./ops/engine
//
// Go memory given the engine (Alloc's memory lives the same way).
// gorgonia's tape machine allocates its
// registers on the Go heap and then sets their engine (tensor.WithEngine):
// the engine adopts such memory on first use — it pins it and gives it a
// device copy as its own (zeros cost no transfer). The device copy lives
// as long as the Go memory, whichever Dense reaches it (gorgonia and
// tensor make several over one backing: Reshape's ShallowClone, views,
// tensor.New(WithBacking(d.Data()))): once every Dense the engine was
// given over it is collected, the engine keeps the device copy and
// watches the memory only weakly (unpinned); a Dense that reaches the
// memory later uses that copy, with no transfer; when the memory itself is
// collected the copy is freed (TestAdoptedMemoryOutlivesItsFirstDense,
// TestAdoptedMemoryDies; mlp TestStockSolverGCStress). Close copies the
// device-newer data of adopted memory home. An Array view (Array) of
// adopted memory is closed when its Denses are collected: keep the Dense
// while its view is used. A one-element Dense over Go memory (gorgonia's
// scalars) stays on the host and is read as a value; memory outside Go's
// heap given WithBacking stays host memory (the engine cannot watch it).
//
// gorgonia's solvers. Vanilla, Momentum, Adam, RMSProp, AdaGrad and
// BarzilaiBorwein train on the engine to the standard engine's losses and
// weights (mlp TestStockSolversMatchStdEngine). AdamW (gorgonia v0.9.18)
// cannot: it keeps its moments in standard-engine Denses and ends each
// step with tensor.Mul(denom, s, WithIncr(w)), w of this engine, which
// tensor hands to the standard engine; that refuses memory it cannot read
// ("Data in 0x… inaccessible") before this engine sees the call, so its
// first Step fails loudly (mlp TestAdamWRefused). Use Adam, with WithL2Reg
// for weight decay: gorgonia's AdamW does not update the weights on the
// standard engine either (it increments a new Dense, not w).
//
// Capture and replay. Capture runs a function once — one gorgonia
// training step: the machine's RunAll and the solver's Step — recording
// the device work it queues (package device/capture: a CUDA graph, an
// OpenCL command buffer, or the recorded kernels and copies), and
// Step.Replay runs that work again with no gorgonia machine, no engine
// call and no planning on the host. The engine keeps what the work used
// while the Step lives; host memory the step uploads is uploaded as it was
// during Capture (gorgonia's gradient seed) unless it is a named input
// (write a new batch into it through Host before each Replay); the host
// arithmetic gorgonia does on scalars is not replayed, so read the
// loss's Sum from Step.Scalars. mlp TestTrainReplayed: the MLP, recipe and
// stock, a fixed and a new batch each step, replayed steps equal to eager
// ones bit for bit; TestCapture here; TestCaptureDrawn draws steps of
// tensor's API (in-place arithmetic, FMA, Tanh, Sum, MatMul into a reused
// Dense, a new input each step), replays each three times on device/sim
// and PoCL, and checks every Dense and scalar against the same steps run
// eagerly (bit for bit) and on the standard engine (go test -run
// CaptureDrawn ./ops/engine -args -capture.n 300).
//
// Convolutions. gorgonia v0.9.18's Conv2d, MaxPool2D and BatchNorm
// compute on the host through Dense.Data(), and read the newest values
// (see Writing): a host copy the engine let go is filled at the read, a
// small register was copied home when the op that wrote it ended. They
// train to the standard engine's losses (nn TestGorgoniaConvOpsOnEngine,
// 100 steps), moving their operands and results each step. Conv2d,
// MaxPool2D and BatchNorm of package
// ops/engine/nn (their own module) have gorgonia's signatures and run on
// the device through ops.Im2Col, Col2Im, MaxPool2D, MaxPool2DBackward and
// ops' reductions, so a convnet trains with every op on the device (nn
// TestConvNetMatchesStdEngine, TestGorgoniaConvOpsOnEngine).
//
// Scalars. A reduction to a 0-D Dense (Sum, Max … over every axis) copies
// its one element home at once (explicit, so allowed under the transfer
// guard, and counted): tensor and gorgonia read a scalar's value straight
// from host memory (Dense.ScalarValue, Data), which the engine never sees.
//
// Host access. AllocAccessible is false, so tensor marks these Denses
// NativelyInaccessible: the methods tensor guards with that flag (String
// and Format print "Inaccesible data"; Dense.Memset, ToMat64, iterators and
// the standard engine's arithmetic) return errors instead of reading stale
// memory. fmt.Sprint(Formatter(d)) (or fmt's other verbs) prints the values
// NumPy's way through one counted copy home, and under the transfer guard
// prints the refusal instead. Methods tensor does not guard (Data, At,
// Get) read the host memory, which is always mapped — never a crash — but
// holds the latest values only after a sync: call Host(d), which copies
// device-newer data home and returns an ordinary Dense over the same
// memory (the host-only view: its writes are uploaded before the next
// device operation), or Accessible. Array(d) gives the device-aware Array
// view of a Dense, for Halide pipelines and ops.
//
// Operations. tensor's Adder … Power, MinBetweener, MaxBetweener (and
// their Scalar forms), MatMuler, Sumer, Proder, Maxer, Miner, Neger,
// Abser, Sqrter, Exper, Loger, Tanher; the comparisons Lter, Lteer, Gter,
// Gteer and ElEqer (ElEq, ElNe, EqScalar, NeScalar: Bool results, or a's
// type with AsSameType); Argmaxer and Argminer (Int results; tensor.AllAxes
// gives a host scalar as the standard engine does); Transposer (the data
// movement of Dense.Transpose after T); Clamper; Repeater (tensor.Repeat,
// which gorgonia uses to broadcast gradients); SoftMaxer (SoftMax,
// LogSoftMax and their gradients); Squarer, Cuber, Inver, InvSqrter,
// Log2er, Signer; Dotter (tensor.Dot of two vectors or two matrices, and
// so tensor.Contract, which gorgonia's BarzilaiBorwein solver uses: a
// result of one element comes home at once, as a scalar reduction's);
// MatVecMuler and OuterProder (gorgonia's Mul of a
// matrix and a vector, of two vectors: ops.MatMul with the vectors as
// one-column matrices). Mapper (tensor's Map, Dense.Apply: a Go function
// per element, which gorgonia uses for Sigmoid, Softplus, Log1p, Expm1,
// Sin, Cos, …): gorgonia's sigmoid and math's (or math32's) Sin, Cos,
// Exp, Log, Sqrt, Abs and Tanh are recognized by name and run as their
// device op; any other function runs on the host, after a counted copy
// of the operand's device-newer data home (refused under the transfer
// guard: ErrTransferGuard), its result host-newer. gorgonia's SoftMax
// ops pass a result Dense of the standard engine (WithReuse): when the
// operands are the engine's, the engine takes that Dense over (sets
// itself as its engine and adopts its memory, as it does gorgonia's
// registers), so softmax runs on the device and its result stays there
// (TestSoftMaxStdReuseOnDevice). Each is one or a few
// calls of package ops and gives the standard engine's values, dtype and
// shape (TestMethodsMatchStdEngine). A scalar Dense operand (a Scalar
// form's value, Clamp's bounds) is used where it lives, broadcast.
//
// Writing. Write a Dense of the engine through Host(d), Memcpy, Memset,
// or tensor.Copy from another Dense of the engine. Paths that bypass the
// engine, and what each does (tests in this package unless named; mlp is
// ops/engine/mlp):
//
//	Data() read, device newer (where Linux offers userfaultfd's write-protect, 6.4 on)
//	  an op's result, Alloc's memory, Go memory (gorgonia's registers) that is whole
//	  pages (from a page boundary, a multiple of 4 KiB)
//	                       the newest values: its host copy was let go, and the first
//	                       touch, by any code, fills it from the device (one D2H
//	                       transfer in the device's Stats)  TestDroppedResults,
//	                       TestWritesBehindTheEngine, TestGoMemoryLetGoOrHome,
//	                       TestAllocMemoryLivesWhileReachable
//	  other Go memory (a small register, or one of an odd size)
//	                       the newest values: copied home once the call that wrote
//	                       it ends (one D2H each, HostWork.Homed)
//	                       TestGoMemoryLetGoOrHome, TestHostWritesModel; gorgonia's
//	                       own MaxPool2D and BatchNorm: nn TestGorgoniaConvOpsOnEngine
//	Data() read, no userfaultfd (a process without the privilege: Debian's default
//	for users other than root, vm.unprivileged_userfaultfd 0)
//	                       the newest values: every block a call left newer on
//	                       the device comes home when the call ends (one D2H each,
//	                       HostWork.Homed), so results cross the bus at each call
//	                       (the MLP step 3.7-15.5x as long on an H100: bench/results/
//	                       h100-2026-12-06-nouffd.txt); to keep them resident, let
//	                       the process open /dev/userfaultfd (Linux 6.1 on: a group
//	                       on the node; uffd TestOpensDevice) or set the sysctl to 1
//	                       TestWritesWithoutPageWatch (drawn); the engine suite and
//	                       gorgonia's own code run as an unprivileged user in
//	                       make test
//	Data() write, before 1st use uploaded at the first use              TestHostWritesModel
//	Data() write, Copy into a view, any memory whose copies are both current
//	(after a device use that read it, or a copy home: HostReadOnly, printing)
//	                             seen at the next use: the host copy is the newer,
//	                             uploaded (one upload; none with no write)
//	                             TestWriteToCurrentSeen, TestWritesBehindTheEngine;
//	                             without userfaultfd, compared (a Dense over 64 KiB
//	                             by a 64-bit hash: a write that keeps it, odds 2^-64,
//	                             is missed)         TestWritesWithoutPageWatch
//	Data() write, Copy into a view, device newer, host copy let go (above)
//	                             lands on the newest values (the touch fills first),
//	                             uploaded at the next use   TestDroppedResults,
//	                                TestZeroBehindTheEngine, TestWritesBehindTheEngine
//	Dense.Zero, tensor.Copy from a host Dense, CopyTo (whole memory), device newer
//	                             seen at the next use: zeros are set on the device with
//	                             no upload, other values uploaded (counted, refused
//	                             under the guard); where the host copy was let go, the
//	                             touch fills it first (one D2H)
//	                             TestZeroBehindTheEngine, TestWritesBehindTheEngine,
//	                             mlp TestStockSolversMatchStdEngine
//	any other write (Data(), Copy into a view) to device-newer memory whose host copy
//	was not let go (a Step's)
//	                             the next use fails with ErrHostWrite naming Host(d),
//	                             once: the write is not taken, the device keeps the
//	                             newest values  TestWritesBehindTheEngine
//	a write to a Dense while a call on another goroutine writes it (a data race with
//	the op, as on the standard engine)
//	                             undefined; without userfaultfd, before the op's copy
//	                             home only a float block's ends are watched
//	At, SetAt, Memset, iterators, String on the engine's own memory
//	                             tensor refuses them ("Inaccesible data")
//	At, SetAt on Go memory the engine adopted (gorgonia's registers)
//	                             stale / as Data()
//	Clone, SafeT (Transpose)     Memcpy: a device copy of float data whose device copy
//	                             is current (no transfer); other data is copied on the
//	                             host and uploaded at its first use    TestCloneThenZero
//	Sprint, Formatter            one counted copy home; refused under the guard
//	Host(d), Accessible          current values; writes uploaded before the next op
//	Host(d) written, then first use under device.SetDeviceGuard(d, true)
//	                             ErrTransferGuard         TestGuardRefusesFirstUseUpload
//
// Dropped host copies: while the device holds all of an op's result's
// newest values, the engine lets its host pages go (userfaultfd,
// internal/uffd; the result's memory is the engine's own mapping). The
// first touch of them, a read or a write by any code (gorgonia's host
// ops, Data(), the runtime's copy, a system call), waits while a C thread
// reads the result from the device (after the work queued there) and puts
// it back, write-protected: a write after it is seen, and the host copy,
// holding every newest value then, is uploaded at the next use. A fill is
// one D2H transfer in the device's Stats (counted by the C thread, added
// at each Stats call). Devices' own transfers fill dropped pages they
// touch first, and a Capture fills them all: a driver never waits on a
// fill. The eager stock MLP step took
// 1.06× (CUDA) and 1.09× (NVIDIA OpenCL) as long with drops as without on
// an H100 (bench/results/h100-2026-12-06-drops.txt). Copies current on
// both sides are watched the same way, from each use and from each
// download home (the Array tells the engine), so a write to them reaches
// the next op; the step took 1.00-1.01× as long with that watch
// (bench/results/h100-2026-12-06-current.txt). Go memory is let go only
// where it is whole pages (Alloc's memory is: it starts a page and owns
// its last one): bytes in a page other Go memory shares could not be
// filled at a read, and Go's copy loads a slice's last bytes before its
// first. Other Go memory comes home once the call that wrote it ends (a
// small register: one D2H each). Memory the engine
// parks (adopted.go) with its host copy let go stays so: a read through a
// Dense the engine never saw fills it from the parked device copy, and a
// finalizer on the memory ends the drop before the collector may reuse
// its pages, so memory that dies unread costs no transfer. Reading right
// has a price where gorgonia's stock solvers zero each gradient with
// Dense.Zero: the zeros land on a host copy filled first, one fill per
// gradient per step. The stock MLP step (784-1024-1024-10, batch 1024)
// took 1.70× (CUDA) and 1.68× (NVIDIA OpenCL) as long as with Go memory
// left stale, the engine's own recipe 0.96× (an H100:
// bench/results/h100-2026-12-06-gomem.txt); a captured Step pays nothing.
// The blocks a call used are watched, or copied home, before it returns,
// while calls on other goroutines run on (a block another call also used
// is settled again as that one returns): a result reads right through
// Data() as soon as the call that made it returns, whatever runs beside it
// (TestReadsWhileACallRuns, with a call held under way throughout;
// TestConcurrentCallsSettle).
//
// The sentinel, where there is no drop: while the device holds a float
// block's newest first or last element, the host copy holds a signalling
// NaN there, so a whole overwrite (gorgonia's solvers zero every gradient
// with Dense.Zero, and the Clone of the weights for their caches) changes
// both and is taken as the newest values. Other writes trip a watch over
// the rest of the host copy: its whole pages are write-protected (a write
// costs one fault, however long; result memory's whole mapping is), and
// the bytes of Go memory around them are compared with a copy, after the
// engine fills the stale ones with the sentinel (0xa5 bytes for integers:
// a write of that value there is not seen; such Go memory comes home as
// its call returns, so only a write racing the op meets it). The cost is
// the kernel's:
// protecting a device-newer block's pages (about 25 µs per MiB on an H100
// host: go test -bench Watch ./internal/uffd) and one fault for a block
// written behind the engine's back. Result memory keeps its protection in
// the engine's pool, and a Step's blocks are neither dropped nor watched
// (a replay writes their host copies), so a replayed step pays nothing.
// Mixing an Array view's own syncs with device ops outside the engine can
// leave it stale: use one or the other per Dense.
//
// Layouts. Operands may be any view tensor makes (Slice, the lazy T,
// Reshape) whose elements form a box of the memory's first layout (the
// Dense it was allocated for); others are an error wrapping
// array.ErrLayout that names the fix (Materialize or Clone). Element
// types are float32, float64 and int8 … uint64; others wrap array.ErrType.
// Operands from the standard engine (host Denses) are wrapped without
// copying and make the op run on the host, as package ops decides
// (documented there). A Dense of another engine of this package on the
// same device is used where its data lives (the op runs on the device,
// nothing moves); one on another device is first synced home by its
// engine (a counted copy, refused under the transfer guard), so the op
// runs on the host and never reads stale memory.
//
// When the device copy of Go memory (Alloc's, or adopted) goes:
//
//	a Dense the engine saw is collected    parked: nothing freed, nothing moves
//	  while another reaches the memory     (a transpose view, a ShallowClone,
//	                                       a Dense tensor made that the engine
//	                                       never saw)  TestAllocMemoryLivesWhileReachable;
//	                                       the next use uploads what it reads
//	                                       (parked memory is not watched)
//	                                       TestParkedNextUse
//	tensor.ReturnTensor of such a Dense    the same, at the next sweep (when an
//	  (the pool reuses it elsewhere)       engine call ends after a collection,
//	                                       and every few Allocs)
//	                                       TestAllocMemoryLivesWhileReachable
//	no Dense, view or slice reaches it     freed after the collection that takes
//	                                       the memory  TestAllocMemoryLivesWhileReachable,
//	                                       mlp TestSolversLiveMemory
//	its last Dense dies inside an op       kept until no engine call is under way
//	                                       TestOperandCollectedInOp
//	Free, Close                            freed at once (Close copies adopted
//	                                       memory's newer values home first)
//
// Lifetime. A Dense used after Free is an error wrapping ErrFreed at
// every entry point (Host, Accessible, Array, the operations, Memset,
// Memcpy; Memclr panics with it). After Close every entry point returns an
// error wrapping device.ErrClosed: Close frees every allocation, device-
// newer data included, so copy what you keep first (Host(d), then Clone).
// Close, like Free, must not run concurrently with operations on the
// engine's Denses. The Arrays behind the Denses follow package array's
// one rule ("Lifetime and concurrency" in its documentation); the engine
// adds only this: Free and Close are the engine's, not the tensors'.
package engine
