package engine

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/gorgonia"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// ErrFreed is wrapped by errors about memory the engine does not hold:
// freed, from another engine, or after Close.
var ErrFreed = errors.New("engine: memory not held by this engine")

// alignment of the memory Alloc returns, as array's own storage.
const alignment = 128

// Engine is a tensor.Engine on an OpenCL device. Its methods are safe for
// concurrent use; operations on one Dense are as safe as the Dense.
type Engine struct {
	dev *opencl.Device
	h   *holdings
}

// holdings is what the engine frees: kept apart from Engine so that the
// cleanup backstop does not keep the Engine reachable.
type holdings struct {
	mu     sync.Mutex
	blocks []*block // by start address
	closed bool
}

// block is one Alloc: host memory [start, start+size) that tensor
// addresses, and, from the first typed use, the device-aware Array over it.
type block struct {
	start, size uintptr
	hb          device.HostBlock
	skip        int // bytes of hb before start
	root        interface {
		Raw() *array.Raw
		Close() error
	} // nil until typed; it then owns hb
	host     func() error                // sync home and mark host-written (typed)
	fill0    func(p, n uintptr) error    // zero [p, p+n) where it lives (typed)
	copyFrom func(dst, src memory) error // copy within the engine (typed)
}

// New returns an engine whose memory lives on dev. Close it when done
// (a cleanup frees its memory if it is dropped).
func New(dev *opencl.Device) *Engine {
	e := &Engine{dev: dev, h: &holdings{}}
	runtime.AddCleanup(e, func(h *holdings) { h.close() }, e.h)
	return e
}

// Device is the engine's device.
func (e *Engine) Device() *opencl.Device { return e.dev }

// Close frees every block the engine still holds; Denses of it must not
// be used afterwards. Close is idempotent.
func (e *Engine) Close() error { return e.h.close() }

func (h *holdings) close() error {
	h.mu.Lock()
	blocks := h.blocks
	h.blocks, h.closed = nil, true
	h.mu.Unlock()
	var errs []error
	for _, b := range blocks {
		errs = append(errs, b.free())
	}
	return errors.Join(errs...)
}

func (b *block) free() error {
	if b.root != nil {
		return b.root.Close()
	}
	return b.hb.Free()
}

// memory is a tensor.Memory of the engine: size bytes at p.
type memory struct{ p, n uintptr }

func (m memory) Uintptr() uintptr { return m.p }
func (m memory) MemSize() uintptr { return m.n }

// AllocAccessible is false: tensor then guards its host-reading methods
// (see the package documentation).
func (e *Engine) AllocAccessible() bool { return false }

// Alloc returns size bytes of the device's pinned host memory, whose
// device copy the engine's operations use.
func (e *Engine) Alloc(size int64) (tensor.Memory, error) {
	if size < 0 || size > 1<<47 {
		return nil, fmt.Errorf("engine: Alloc of %d bytes: want 0 … 2^47", size)
	}
	hb, err := e.dev.AllocHost(int(size) + alignment)
	if err != nil {
		return nil, fmt.Errorf("engine: Alloc of %d bytes: %w", size, err)
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(hb.Bytes())))
	skip := int((alignment - p%alignment) % alignment)
	b := &block{start: p + uintptr(skip), size: uintptr(size), hb: hb, skip: skip}
	h := e.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		hb.Free()
		return nil, fmt.Errorf("engine: Alloc after Close: %w", ErrFreed)
	}
	i, _ := slices.BinarySearchFunc(h.blocks, b.start, func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
	h.blocks = slices.Insert(h.blocks, i, b)
	return memory{b.start, b.size}, nil
}

func cmpPtr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Free releases memory from Alloc: its host memory, device copy and the
// Array over them.
func (e *Engine) Free(mem tensor.Memory, size int64) error {
	h := e.h
	h.mu.Lock()
	i, ok := slices.BinarySearchFunc(h.blocks, mem.Uintptr(), func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
	if !ok {
		h.mu.Unlock()
		return fmt.Errorf("engine: Free of %#x: %w: free only what this engine's Alloc returned, once", mem.Uintptr(), ErrFreed)
	}
	b := h.blocks[i]
	h.blocks = slices.Delete(h.blocks, i, i+1)
	h.mu.Unlock()
	return b.free()
}

// find returns the block holding [p, p+n), or nil for memory the engine
// does not hold (another engine's, or Go memory).
func (h *holdings) find(p, n uintptr) *block {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := slices.BinarySearchFunc(h.blocks, p, func(x *block, p uintptr) int { return cmpPtr(x.start, p) })
	if !ok {
		i--
	}
	if i < 0 {
		return nil
	}
	b := h.blocks[i]
	if p < b.start || p-b.start > b.size || n > b.size-(p-b.start) {
		return nil
	}
	return b
}

// WorksWith is true: row- and column-major Denses both map to Array views.
func (e *Engine) WorksWith(order tensor.DataOrder) bool { return true }

// subBlock is hb's memory from skip on, as the block NewOver adopts.
type subBlock struct {
	device.HostBlock
	skip int
}

func (s subBlock) Bytes() []byte { return s.HostBlock.Bytes()[s.skip:] }

// rootOf returns b's Array of T, typing b on first use: the memory becomes
// an Array with d's shape when d is the whole of it in row-major order
// (the usual first user: the Dense it was allocated for), else 1-D.
func rootOf[T array.Elem](h *holdings, b *block, d *tensor.Dense) (*array.Array[T], error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if b.root == nil {
		size := uintptr(unsafe.Sizeof(*new(T)))
		ext := []int{int(b.size / size)}
		if d != nil && d.Uintptr() == b.start && uintptr(d.DataSize())*size == b.size && rowMajorDense(d) {
			ext = reversed(d.Shape())
		}
		r, err := array.NewOver[T](subBlock{b.hb, b.skip}, ext...)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		b.root = r
		b.host = func() error { _, err := r.Host(); return err }
		b.fill0 = func(p, n uintptr) error { return fillRange(h, b, r, p, n, 0) }
		b.copyFrom = func(dst, src memory) error { return copyRange[T](h, dst, src) }
	}
	r, ok := b.root.(*array.Array[T])
	if !ok {
		return nil, fmt.Errorf("%w: the engine's memory at %#x holds %s, used as %s: keep one element type per allocation", gorgonia.ErrType, b.start, b.root.Raw().Type(), array.TypeOf[T]())
	}
	return r, nil
}

// rowMajorDense reports whether d is contiguous with row-major strides.
func rowMajorDense(d *tensor.Dense) bool {
	shape, strides := d.Shape(), d.Strides()
	if d.IsScalar() {
		return true
	}
	want := 1
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] != 1 && strides[k] != want {
			return false
		}
		want *= shape[k]
	}
	return true
}

func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// bytesAt is n bytes of host memory at p.
func bytesAt(p, n uintptr) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(ptr(p)), n)
}

// ptr is the address tensor.Memory gives as a uintptr, back as a pointer.
// The memory is pinned or tensor's, never moved by Go's collector; the
// indirection keeps vet's uintptr check, meant for Go memory, quiet.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
