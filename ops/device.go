package ops

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
	"weak"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/internal/place"
	"github.com/resident-go/resident/internal/plumb"
)

// The device side. Every entry point asks placement first; when it names
// an OpenCL device, the op runs there as kernels enqueued on the device's
// in-order queue, the same queue package halide's OpenCL pipelines use, so
// a pipeline → op → pipeline chain needs neither a host sync nor a
// transfer. See the package documentation ("Where an op runs").

var res = func() plumb.Residency { return plumb.Array }

// On places the Arrays xs on d explicitly, for the first op of a chain:
// each gets an allocation on d and its host-newer data is uploaded
// (explicit copies, counted in d's Stats and allowed under the transfer
// guard). Ops whose operands are all current on d then run on d. An Array
// that lives on another device is an error wrapping device.ErrForeign.
func On(d *opencl.Device, xs ...array.Buffer) error {
	for _, x := range xs {
		r := x.Raw()
		if r == nil || r.Len() == 0 {
			continue
		}
		if err := res().SyncDevice(r, d); err != nil {
			return fmt.Errorf("ops.On: %w", err)
		}
	}
	return nil
}

// placement returns the OpenCL device an op on these operands runs on, or
// nil for the host: the module's one rule (internal/place, documented in
// array/doc.go, "Where work runs"). dst is operand 0 (nil for the *All
// reductions); nil inputs are scalars. An op with an empty dst does
// nothing, on the host.
func placement(op string, dst *array.Raw, ins ...*array.Raw) (*opencl.Device, error) {
	if dst != nil && dst.Len() == 0 {
		return nil, nil
	}
	d, err := place.Where(nil, place.Work{Pkg: "ops", Op: op, Outputs: []*array.Raw{dst}, Inputs: ins})
	if err != nil || d == nil {
		return nil, err
	}
	cl, _ := d.(*opencl.Device)
	return cl, nil
}

func rawOf[T array.Elem](a *array.Array[T]) *array.Raw {
	if a == nil {
		return nil
	}
	return a.Raw()
}

// devState is what ops keep per OpenCL device: built programs, device
// facts and a scratch buffer for reduction partials.
type devState struct {
	// wdev is weak: the global table must not keep a dropped Device (and
	// its cleanup backstop) alive.
	wdev     weak.Pointer[opencl.Device]
	fp64     bool
	cus      int
	localMem int64 // bytes of local memory per work-group
	wg       int   // work-group size of reductions (a power of two ≤ 256)
	local    []int // {wg}: the work-group of grid-stride kernels (NVIDIA's pick for nil is poor)
	mu       sync.Mutex
	progs    map[progKey]*clProgram
	gemm     map[int]GemmConfig // by element size
	// scratch: partials of reductions; the queue is in order, so the next
	// op may reuse it while the previous one still runs. scratchMu is held
	// from a reduction's first enqueue to its last (to the read of the
	// result, for the *All forms), so that concurrent reductions do not
	// interleave their passes over it.
	scratchMu sync.Mutex
	scratch   [2]device.Allocation
	scratchN  [2]int
}

// clProgram is one built program and its kernels. Kernel arguments are set
// and the kernel enqueued under mu, since arguments are kernel state.
type clProgram struct {
	mu   sync.Mutex
	p    *opencl.Program
	ks   map[string]*opencl.Kernel
	last map[*opencl.Kernel][]any // arguments as last set
}

var (
	statesMu sync.Mutex
	states   = map[weak.Pointer[opencl.Device]]*devState{}
)

// dev is the device; callers hold it, so it is alive.
func (s *devState) dev() *opencl.Device { return s.wdev.Value() }

func stateOf(d *opencl.Device) *devState {
	statesMu.Lock()
	defer statesMu.Unlock()
	key := weak.Make(d)
	if s := states[key]; s != nil {
		return s
	}
	info := d.Info()
	s := &devState{wdev: key, progs: map[progKey]*clProgram{}, gemm: map[int]GemmConfig{},
		cus: max(1, info.MaxComputeUnits()), localMem: info.LocalMemSize()}
	s.fp64 = strings.Contains(info.Extensions(), "cl_khr_fp64")
	s.wg = 256
	for s.wg > info.MaxWorkGroupSize() {
		s.wg /= 2
	}
	s.local = []int{s.wg}
	states[key] = s
	d.OnClose(func() { s.release() })
	return s
}

// release drops the programs and the scratch buffers (the device closes;
// when its cleanup closes it, the weak pointer is already nil, and Close
// frees the buffers itself).
func (s *devState) release() {
	statesMu.Lock()
	if states[s.wdev] == s {
		delete(states, s.wdev)
	}
	statesMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.progs {
		for _, k := range p.ks {
			k.Release()
		}
		p.p.Release()
	}
	s.progs = map[progKey]*clProgram{}
	d := s.dev()
	for i := range s.scratch {
		if s.scratch[i] != nil && d != nil {
			d.Free(s.scratch[i])
		}
		s.scratch[i], s.scratchN[i] = nil, 0
	}
}

// progKey names a program: its kind ("ew", "red", "cast", "gemm"), element
// types and, for GEMM, the tiling.
type progKey struct {
	kind string
	t, u array.Type
	gemm GemmConfig
}

// program returns the program of key, building it from src() once per
// device (PoCL caches binaries under POCL_CACHE_DIR too). A failed build
// returns an error wrapping *opencl.BuildError, which carries the build
// log; it is not cached, so a later call tries again.
func (s *devState) program(key progKey, src func() string) (*clProgram, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.progs[key]; p != nil {
		return p, nil
	}
	options := ""
	if s.fp64 {
		options = "-DFP64"
	}
	p, err := s.dev().BuildProgram(src(), options)
	if err != nil {
		return nil, fmt.Errorf("ops: building the %s kernels (%v %v) for %s: %w", key.kind, key.t, key.u, s.dev().Name(), err)
	}
	cp := &clProgram{p: p, ks: map[string]*opencl.Kernel{}}
	s.progs[key] = cp
	return cp, nil
}

// kernel returns the named kernel of p; call with p.mu held.
func (p *clProgram) kernel(name string) (*opencl.Kernel, error) {
	if k := p.ks[name]; k != nil {
		return k, nil
	}
	k, err := p.p.CreateKernel(name)
	if err != nil {
		return nil, err
	}
	p.ks[name] = k
	return k, nil
}

// launch sets the arguments of kernel name and enqueues it over global
// (local may be nil), without waiting: the queue orders it. Every
// command counts toward the device's pacing.
func (s *devState) launch(p *clProgram, name string, global, local []int, args ...any) error {
	p.mu.Lock()
	k, err := p.kernel(name)
	if err == nil {
		err = p.setArgs(k, args)
	}
	if err == nil {
		err = s.dev().CLQueue().EnqueueKernel(k, nil, global, local, nil, nil)
	}
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("ops: kernel %s on %s: %w", name, s.dev().Name(), err)
	}
	return s.dev().Pace()
}

// setArgs sets k's arguments, skipping those equal to the last ones set:
// a loop of small ops on the same Arrays then crosses into the driver
// once per op, for the enqueue.
func (p *clProgram) setArgs(k *opencl.Kernel, args []any) error {
	if p.last == nil {
		p.last = map[*opencl.Kernel][]any{}
	}
	last := p.last[k]
	for i, a := range args {
		if i < len(last) && argEqual(last[i], a) {
			continue
		}
		if err := k.SetArg(i, a); err != nil {
			delete(p.last, k)
			return err
		}
	}
	p.last[k] = args
	return nil
}

func argEqual(x, y any) bool {
	if bx, ok := x.([]byte); ok {
		by, ok := y.([]byte)
		return ok && bytes.Equal(bx, by)
	}
	return x == y
}

// items is the global size of a grid-stride kernel over n work items:
// enough groups to fill the device several times over, no more.
func (s *devState) items(n int) int {
	g := (n + 255) / 256 * 256
	return max(256, min(g, s.cus*2048))
}

// scratchFor returns scratch allocation i (0 or 1) grown to at least n
// bytes.
func (s *devState) scratchFor(i, n int) (opencl.Mem, error) {
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
	mem, _, err := s.dev().Mem(s.scratch[i])
	return opencl.Mem(mem), err
}

// typeProgram is the per-element-type program of kind ("ew" elementwise,
// "red" reductions).
func (s *devState) typeProgram(kind string, t array.Type) (*clProgram, error) {
	ct, ok := clTypeOf(t)
	if !ok {
		return nil, unsupported("device", t, "a scalar element type")
	}
	return s.program(progKey{kind: kind, t: t}, func() string {
		body := clElementwise
		if kind == "red" {
			body = clReduce
		}
		return ct.defines("T", s.fp64) + clCommon + body
	})
}

// operandMem readies r on s's device for a device op: an input is made
// current there (uploading host-newer parts, which the guard refuses), an
// output gets an allocation. It returns the root cl_mem and the element
// offset of r's min corner in it.
func (s *devState) operandMem(op string, r *array.Raw, in bool) (opencl.Mem, int, error) {
	var err error
	if in {
		if res().NeedsUpload(r, s.dev()) {
			if err := plumb.CheckAutomatic(fmt.Sprintf("upload of a host-newer operand of ops.%s on %s", op, s.dev().Name())); err != nil {
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
		return 0, 0, fmt.Errorf("ops.%s: no device allocation after SyncDevice", op)
	}
	mem, aoff, err := s.dev().Mem(alloc)
	if err != nil {
		return 0, 0, fmt.Errorf("ops.%s: %w", op, err)
	}
	es := r.Type().Bytes()
	if (aoff+off)%es != 0 {
		return 0, 0, fmt.Errorf("ops.%s: view at byte offset %d is not element-aligned: %w", op, aoff+off, errUnaligned)
	}
	return opencl.Mem(mem), (aoff + off) / es, nil
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
