package ops

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/place"
	"github.com/resident-go/resident/internal/plumb"
)

// The device side. Every entry point asks placement first; when it names
// a kernel device (OpenCL, or CUDA through NVRTC), the op runs there as kernels enqueued on the device's
// in-order queue, the same queue package halide's OpenCL pipelines use, so
// a pipeline → op → pipeline chain needs neither a host sync nor a
// transfer. See the package documentation ("Where an op runs").

var res = func() plumb.Residency { return plumb.Array }

// On places the Arrays xs on d explicitly, for the first op of a chain:
// each gets an allocation on d and its host-newer data is uploaded
// (explicit copies, counted in d's Stats and allowed under the transfer
// guard). Ops whose operands are all current on d then run on d. An Array
// that lives on another device is an error wrapping device.ErrForeign; a
// closed Array, one wrapping device.ErrClosed. A host-only Array
// (FromSlice, Wrap: caller-held memory the library keeps current) cannot
// live on a device: On returns an error naming Clone, which makes a
// device-resident copy.
func On(d device.Device, xs ...array.Buffer) error {
	for _, x := range xs { // every Array first: nothing moves when one is closed
		if err := closedOperand("On", nil, x.Raw()); err != nil {
			return err
		}
	}
	for _, x := range xs {
		r := x.Raw()
		if r == nil || r.Len() == 0 {
			continue
		}
		if r.HostOnly() {
			return fmt.Errorf("ops.On: %v is host-only (caller-held memory, kept current on the host): make a device-resident copy with ops.Clone(d, x): %w", r, ErrHostOnly)
		}
		if err := res().SyncDevice(r, d); err != nil {
			return fmt.Errorf("ops.On: %w", err)
		}
	}
	return nil
}

// ErrHostOnly: a host-only Array was placed on a device explicitly.
var ErrHostOnly = errors.New("ops: host-only Array")

// Clone returns a new device-aware Array with x's shape and mins, holding
// x's elements, resident on d (allocated and current there, as after On):
// the one-call device copy of any Array, host-only ones included. Its
// memory order is x's (array.KeepOrder, the default: an interleaved x
// gives an interleaved copy, and every Reshape view of x is one of the
// copy) or, with array.COrder, New's planar order (see array.Like). The
// copy is explicit: counted in d's Stats, allowed under the guard. Close
// the result when done.
func Clone[T array.Elem](d device.Device, x *array.Array[T], order ...array.Order) (*array.Array[T], error) {
	if err := closedOperand("Clone", nil, x.Raw()); err != nil {
		return nil, err
	}
	c := array.Like(x, order...)
	v, err := x.HostReadOnly()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("ops.Clone: %w", err)
	}
	h, err := c.Host()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("ops.Clone: %w", err)
	}
	if err := Copy(h.Array(), v.Array()); err != nil {
		c.Close()
		return nil, fmt.Errorf("ops.Clone: %w", err)
	}
	if err := On(d, c); err != nil {
		c.Close()
		return nil, fmt.Errorf("ops.Clone: %w", err)
	}
	return c, nil
}

// closedOperand returns an error wrapping array.ErrClosed (which wraps
// device.ErrClosed) when the root of dst or of an input (nil: none, or a
// Go scalar) was closed: one atomic load per operand, no allocation
// unless one was. Every exported entry that returns an error calls it,
// through placement (which every op asks first) or directly where it
// would touch an operand before placement, so a closed operand is an
// error before anything runs, moves or panics. So is a read-only dst (a
// broadcast view): an error wrapping array.ErrReadOnly.
func closedOperand(op string, dst *array.Raw, ins ...*array.Raw) error {
	if dst != nil && res().Closed(dst) {
		return closedErr(op, "dst", dst)
	}
	if err := writable(op, dst); err != nil {
		return err
	}
	for _, r := range ins {
		if r != nil && res().Closed(r) {
			return closedErr(op, "an input", r)
		}
	}
	return nil
}

// writable refuses a read-only output: its elements repeat a source's.
func writable(op string, out *array.Raw) error {
	if out == nil || out.Writable() {
		return nil
	}
	return fmt.Errorf("ops.%s: the output (%v) is a read-only view (BroadcastTo, or a view of one): write into a writable Array (ops.BroadcastTo makes a writable copy): %w", op, out, array.ErrReadOnly)
}

func closedErr(op, which string, r *array.Raw) error {
	return fmt.Errorf("ops.%s: %s (%v) was closed, or the root it views: keep the root open while ops use it: %w", op, which, r, array.ErrClosed)
}

// placement returns the device an op on these operands runs on, or
// nil for the host: the module's one rule (internal/place, documented in
// array/doc.go, "Where work runs"). dst is operand 0 (nil for the *All
// reductions); nil inputs are scalars. An op with an empty dst does
// nothing, on the host.
func placement(op string, dst *array.Raw, ins ...*array.Raw) (device.Device, error) {
	if err := closedOperand(op, dst, ins...); err != nil {
		return nil, err
	}
	if dst != nil && dst.Len() == 0 {
		return nil, nil
	}
	return place.Where(nil, place.Work{Pkg: "ops", Op: op, Outputs: []*array.Raw{dst}, Inputs: ins})
}

func rawOf[T array.Elem](a *array.Array[T]) *array.Raw {
	if a == nil {
		return nil
	}
	return a.Raw()
}

// devState is what ops keep per kernel device (device.Kernels.Value):
// built programs, device facts and a scratch buffer for reduction
// partials. It does not point to the device (the device holds it), so
// functions that need both take a devRef.
type devState struct {
	fp64     bool
	cus      int
	localMem int64 // bytes of local memory per work-group
	wg       int   // work-group size of reductions (a power of two ≤ 256)
	maxGroup int   // the device's largest work-group
	local    []int // {wg}: the work-group of grid-stride kernels (NVIDIA's pick for nil is poor)
	mu       sync.Mutex
	progs    map[progKey]*clProgram
	gemm     map[int]gemmConfig // by element size
	mmaOff   bool               // inline-PTX GEMM turned off (tune.Gemm.PTX)
	mmaErr   [2]error           // why the inline-PTX GEMM (V 2, 3) failed to build; then never again
	// gemmSplit: a split-K factor forced by element size (tests; with a
	// forced tiling or the model's); gemmChosen: MatMul's choice per shape
	// class (autotuned, or the model's where tuning was cut short);
	// tuning: how it chooses and how reductions are cut up (SetTuning). tuneMu: one autotune
	// at a time on the device, so that two do not time each other.
	gemmSplit  map[int]int
	gemmChosen map[gemmClass]gemmChoice
	tuning     Tuning
	tuneMu     sync.Mutex
	// gemmScratch: split-K's partial products; gemmMu is held from a
	// split product's first enqueue to its reduction's (the queue is in
	// order, so the next one may then reuse it).
	gemmMu       sync.Mutex
	gemmScratch  device.Allocation
	gemmScratchN int
	// scratch: partials of reductions; the queue is in order, so the next
	// op may reuse it while the previous one still runs. scratchMu is held
	// from a reduction's first enqueue to its last (to the read of the
	// result, for the *All forms), so that concurrent reductions do not
	// interleave their passes over it.
	scratchMu sync.Mutex
	scratch   [2]device.Allocation
	scratchN  [2]int
	// counters: the one-pass reductions' (countersFor), zero between
	// reductions; fenceErr: why the reduction program did not build with
	// the fence that its one-pass kernels need here (then they do not run)
	counters  device.Allocation
	countersN int
	fenceErr  error
	released  bool
}

// devRef is a kernel device with ops' state on it.
type devRef struct {
	*devState
	d device.Kernels
}

func (s devRef) dev() device.Kernels { return s.d }

// clProgram is one built program and its kernels by name (under mu).
type clProgram struct {
	mu sync.Mutex
	p  device.Program
	ks map[string]device.Kernel
}

type stateKey struct{}

// liveStates counts devStates not yet released, for tests.
var liveStates atomic.Int64

func stateOf(d device.Kernels) devRef {
	if s, ok := d.Value(stateKey{}, nil).(*devState); ok {
		return devRef{s, d} // the hot path: no closure made
	}
	s := d.Value(stateKey{}, func() any {
		c := d.Caps()
		s := &devState{progs: map[progKey]*clProgram{}, gemm: map[int]gemmConfig{}, gemmSplit: map[int]int{}, gemmChosen: map[gemmClass]gemmChoice{},
			cus: max(1, c.Units), localMem: c.LocalMem, fp64: c.FP64, maxGroup: max(1, c.MaxGroup)}
		s.wg = 256
		for s.wg > max(1, c.MaxGroup) {
			s.wg /= 2
		}
		s.local = []int{s.wg}
		liveStates.Add(1)
		// The module's devices close s once work in flight on them has
		// finished (Value's io.Closer); any other, at the start of its
		// Close.
		if n, ok := d.(device.CloseNotifier); ok && devkit.GateOf(d) == nil {
			n.OnClose(func() { s.release() })
		}
		return s
	}).(*devState)
	return devRef{s, d}
}

// Close is release, for the device's Value state (io.Closer).
func (s *devState) Close() error { s.release(); return nil }

// release drops the programs and the scratch buffers (the device closes);
// programs built later are refused (program).
func (s *devState) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.released = true
		liveStates.Add(-1)
	}
	for _, p := range s.progs {
		p.mu.Lock() // a launch may be adding a kernel
		for _, k := range p.ks {
			k.Release()
		}
		p.ks = nil
		p.mu.Unlock()
		p.p.Release()
	}
	s.progs = map[progKey]*clProgram{}
	for i := range s.scratch {
		if a := s.scratch[i]; a != nil {
			a.Device().Free(a)
		}
		s.scratch[i], s.scratchN[i] = nil, 0
	}
	if s.counters != nil {
		s.counters.Device().Free(s.counters)
		s.counters, s.countersN = nil, 0
	}
	if s.gemmScratch != nil {
		s.gemmScratch.Device().Free(s.gemmScratch)
		s.gemmScratch, s.gemmScratchN = nil, 0
	}
}

// progKey names a program: its kind ("ew", "red", "cast", "gemm"), element
// types, for GEMM the tiling and for reductions the variant (redProgram:
// the unroll, plus 16 with the PTX fence).
type progKey struct {
	kind string
	t, u array.Type
	gemm gemmConfig
	v    int
}

// program returns the program of key, building it from src() once per
// device (PoCL caches binaries under POCL_CACHE_DIR too). A failed build
// returns an error wrapping *opencl.BuildError (*cuda.BuildError on a
// CUDA device), which carries the build log; it is not cached, so a later
// call tries again.
func (s devRef) program(key progKey, src func() string) (*clProgram, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.progs[key]; p != nil {
		return p, nil
	}
	if s.released {
		return nil, fmt.Errorf("ops: %s is closed: %w", s.dev().Name(), device.ErrClosed)
	}
	options := ""
	if s.fp64 {
		options = "-DFP64"
	}
	p, err := s.dev().Compile(src(), options)
	if err != nil {
		return nil, fmt.Errorf("ops: building the %s kernels (%v %v) for %s: %w", key.kind, key.t, key.u, s.dev().Name(), err)
	}
	cp := &clProgram{p: p, ks: map[string]device.Kernel{}}
	s.progs[key] = cp
	return cp, nil
}

// kernel returns the named kernel of p; call with p.mu held. A program
// its device released (p.ks nil) makes none.
func (p *clProgram) kernel(name string) (device.Kernel, error) {
	if k := p.ks[name]; k != nil {
		return k, nil
	}
	if p.ks == nil {
		return nil, fmt.Errorf("ops: kernel %s of a released program: %w", name, device.ErrClosed)
	}
	k, err := p.p.Kernel(name)
	if err != nil {
		return nil, err
	}
	p.ks[name] = k
	return k, nil
}

// launch enqueues kernel name over global (local may be nil) with args,
// without waiting: the queue orders it.
func (s devRef) launch(p *clProgram, name string, global, local []int, args ...any) error {
	p.mu.Lock()
	k, err := p.kernel(name)
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("ops: kernel %s on %s: %w", name, s.dev().Name(), err)
	}
	g := device.Grid{Dims: len(global)}
	copy(g.Global[:], global)
	copy(g.Local[:], local)
	return s.dev().Enqueue(k, g, args)
}

// items is the global size of a grid-stride kernel over n work items:
// enough groups to fill the device several times over, no more.
func (s devRef) items(n int) int {
	g := (n + 255) / 256 * 256
	return max(256, min(g, s.cus*2048))
}

// scratchFor returns scratch allocation i (0 or 1) grown to at least n
// bytes.
func (s devRef) scratchFor(i, n int) (device.Buffer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scratchN[i] < n {
		if s.scratch[i] != nil {
			s.dev().Free(s.scratch[i])
			s.scratch[i], s.scratchN[i] = nil, 0
		}
		sz := max(n, 1<<16)
		a, err := s.dev().Malloc(sz)
		if err != nil {
			return 0, err
		}
		s.scratch[i], s.scratchN[i] = a, sz
	}
	return device.Buffer(s.scratch[i].Native()), nil
}

// typeProgram is the per-element-type program of kind ("ew" elementwise,
// "red" reductions).
func (s devRef) typeProgram(kind string, t array.Type) (*clProgram, error) {
	ct, ok := clTypeOf(t)
	if !ok {
		return nil, unsupported("device", t, "a scalar element type")
	}
	if kind == "red" {
		return s.redProgram(t, ct)
	}
	return s.program(progKey{kind: kind, t: t}, func() string {
		return ct.defines("T", s.fp64) + clCommon + clElementwise + clMath + clUnary + clBinary
	})
}

// redProgram is the reduction program of t, built with the part pass's
// unroll (Tuning.Reduce.Unroll) and, where the device needs it, the PTX fence of
// the one-pass kernels (fencedProgram).
func (s devRef) redProgram(t array.Type, ct clType) (*clProgram, error) {
	u := s.redUnroll()
	return s.fencedProgram(progKey{kind: "red", t: t, v: u}, func(fence bool) string {
		return redSource(ct, s.fp64, u, fence)
	})
}

// fencedProgram is the program of key built from src(fence): with the
// fence (key.v + 16) where the device needs it for the one-pass kernels
// (redFence). A build that fails with the fence but succeeds without it
// records why in s.fenceErr: the two-pass paths then run there, for the
// reductions and the fused reductions alike (onePass).
func (s devRef) fencedProgram(key progKey, src func(fence bool) string) (*clProgram, error) {
	s.mu.Lock()
	fence := s.fenceErr == nil && redFence(s.dev())
	s.mu.Unlock()
	if !fence {
		return s.program(key, func() string { return src(false) })
	}
	fk := key
	fk.v += 16
	p, ferr := s.program(fk, func() string { return src(true) })
	if ferr == nil {
		return p, nil
	}
	p, err := s.program(key, func() string { return src(false) })
	if err != nil {
		return nil, err // not the fence's fault
	}
	s.mu.Lock()
	s.fenceErr = ferr
	s.mu.Unlock()
	return p, nil
}

// fenceDefines puts PTX's membar.gl in GLOBAL_FENCE (cl/lastgroup.cl)
// when fence is set.
func fenceDefines(fence bool) string {
	if fence {
		return "#define RED_PTX_FENCE 1\n" + redFenceInject
	}
	return ""
}

// redSource is the reduction program of element type ct: the part pass
// loads unroll vectors a step; fence puts PTX's membar.gl in the one-pass
// kernels' fence.
func redSource(ct clType, fp64 bool, unroll int, fence bool) string {
	def := fmt.Sprintf("#define RED_UNROLL %d\n", unroll) + fenceDefines(fence)
	return ct.defines("T", fp64) + def + clCommon + clLastGroup + clReduce
}

// operandMem readies r on s's device for a device op: an input is made
// current there (uploading host-newer parts, which the guard refuses), an
// output gets an allocation. It returns the root cl_mem and the element
// offset of r's min corner in it.
func (s devRef) operandMem(op string, r *array.Raw, in bool) (device.Buffer, int, error) {
	var err error
	if in {
		if res().NeedsUpload(r, s.dev()) {
			if err := plumb.CheckAutomatic(s.dev(), fmt.Sprintf("upload of a host-newer operand of ops.%s on %s", op, s.dev().Name())); err != nil {
				return 0, 0, err
			}
		}
		err = res().SyncDevice(r, s.dev())
	} else {
		err = res().Alloc(r, s.dev())
	}
	if err != nil {
		return 0, 0, fmt.Errorf("ops.%s: %w", op, err)
	}
	alloc, off := r.Allocation()
	if alloc == nil {
		// Its device closed meanwhile: the close hook let it go.
		return 0, 0, fmt.Errorf("ops.%s: the operand was let go by %s, which closed meanwhile: %w", op, s.dev().Name(), device.ErrClosed)
	}
	if alloc.Device() != device.Device(s.dev()) {
		return 0, 0, fmt.Errorf("ops.%s: allocation on %s, not %s: %w", op, alloc.Device().Name(), s.dev().Name(), device.ErrForeign)
	}
	mem, aoff := alloc.Native(), alloc.Offset()
	es := r.Type().Bytes()
	if (aoff+off)%es != 0 {
		return 0, 0, fmt.Errorf("ops.%s: view at byte offset %d is not element-aligned: %w", op, aoff+off, errUnaligned)
	}
	return device.Buffer(mem), (aoff + off) / es, nil
}

var errUnaligned = errors.New("ops: unaligned device view")

// ndArg is an nd_t, the kernel argument that carries a layout: all longs,
// so the host and device layouts agree.
type ndArg struct {
	n, rank int64
	ext     [clMaxDims]int64
	st      [3][clMaxDims]int64
	off     [3]int64
}

func (a *ndArg) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(a)), unsafe.Sizeof(*a))
}

// fromNest fills a from a simplified nest (operands 0…2).
func (a *ndArg) fromNest(n *nest) bool {
	if n.rank > clMaxDims {
		return false
	}
	*a = ndArg{n: int64(n.total()), rank: int64(n.rank)}
	for i := 0; i < n.rank; i++ {
		a.ext[i] = int64(n.ext[i])
		for k := 0; k < n.nops && k < 3; k++ {
			a.st[k][i] = int64(n.str[k][i])
		}
	}
	return true
}

// denseNest reports whether a simplified nest fits the _vec kernels, which
// take no strides: one dimension, dst dense (stride 1, or a single
// element), every input dense or one element broadcast (stride 0). The
// caller must flag each stride-0 input (vecFlags), or the kernel reads it
// as contiguous.
func denseNest(n *nest) bool {
	if n.rank != 1 || (n.str[0][0] != 1 && n.ext[0] != 1) {
		return false
	}
	for k := 1; k < n.nops; k++ {
		if s := n.str[k][0]; s != 1 && s != 0 {
			return false
		}
	}
	return true
}

// vecFlags adds to fl (bit i: input i is a Go scalar) bit i+2 for each
// input Array i that broadcasts one element (stride 0 in a dense nest),
// so that the _vec kernels read it once instead of as contiguous.
func vecFlags(n *nest, fl int) int {
	for k := 1; k < n.nops && k <= 2; k++ {
		if n.str[k][0] == 0 && fl&(1<<(k-1)) == 0 {
			fl |= 1 << (k + 1)
		}
	}
	return fl
}

// scalarArg is x as a kernel argument of its storage type.
func scalarArg[T array.Elem](x T) []byte {
	b := make([]byte, unsafe.Sizeof(x))
	*(*T)(unsafe.Pointer(&b[0])) = x
	return b
}
