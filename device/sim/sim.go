package sim

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
)

// ErrClosed is returned by a Device used after Close; it wraps
// device.ErrClosed.
var ErrClosed = fmt.Errorf("sim: %w", device.ErrClosed)

// OnClose implements device.CloseNotifier.
func (d *Device) OnClose(fn func()) (cancel func()) { return d.hooks.OnClose(fn) }

// Device is a simulated device. The zero value is not usable: call New.
type Device struct {
	devkit.Capture // BeginCapture, EndCapture (device/capture)
	hooks          devkit.CloseHooks
	gate           devkit.Gate // every call passes it; Close shuts it (devkit.Gate)
	// queue orders launches and transfers as a device's in-order queue
	// does: a copy never reads memory a launch is writing.
	queue    sync.Mutex
	name     string
	limit    int
	mu       sync.Mutex
	live     map[*block]struct{}
	c        devkit.Counters
	done     atomic.Bool
	closing  atomic.Bool // Close has begun: its hooks let allocations go
	hostLive int
	compute  bool
	faults   map[string]error // FailNext's, by operation; under mu
	capture  devkit.Capturing // the Recording its entries add to (capture.go)
}

var (
	_ device.Device        = (*Device)(nil)
	_ device.HostMemory    = (*Device)(nil)
	_ device.CloseNotifier = (*Device)(nil)
)

// block is one root allocation; crops share it.
type block struct {
	mem   []byte
	refs  int // the root and its crops not yet freed
	freed bool
}

// Alloc is an allocation on a simulated device.
type Alloc struct {
	d     *Device
	b     *block
	off   int
	n     int
	freed atomic.Bool // read by transfers without the lock
}

func (a *Alloc) Device() device.Device { return a.d }

// Native is the address of the root's memory: a stand-in for a device handle.
func (a *Alloc) Native() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(a.b.mem))) }
func (a *Alloc) Offset() int     { return a.off }
func (a *Alloc) Bytes() int      { return a.n }

// Mem returns the allocation's bytes, for tests that look at device memory.
func (a *Alloc) Mem() []byte { return a.b.mem[a.off : a.off+a.n] }

// New returns a simulated device that refuses allocations beyond limit
// bytes in total (no limit when limit ≤ 0).
func New(name string, limit int) *Device {
	d := &Device{name: name, limit: limit, live: map[*block]struct{}{}}
	d.SetCapture(d.beginCapture, d.endCapture)
	d.c.CountFills(d)
	return d
}

// NewCompute is New for a simulated device that computes: package ops
// runs ops on Arrays resident there, as on a GPU, with its host kernels on
// views of the device's memory (device.HostMemory). Arrays move to and
// from it only through counted transfers, so placement and failure tests
// run without OpenCL.
func NewCompute(name string, limit int) *Device {
	d := New(name, limit)
	d.compute = true
	return d
}

// FailNext makes the next operation op of d fail with err, once: op is
// "Malloc", "CopyIn", "CopyOut", "Copy" or "Run" (a launch).
func (d *Device) FailNext(op string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.faults == nil {
		d.faults = map[string]error{}
	}
	d.faults[op] = err
}

// fault returns and clears the injected failure of op; call with d.mu held.
func (d *Device) fault(op string) error {
	err := d.faults[op]
	if err != nil {
		delete(d.faults, op)
		return fmt.Errorf("sim: %s on %s: %w", op, d.Name(), err)
	}
	return nil
}

func (d *Device) faultLocked(op string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fault(op)
}

// Caps implements device.Compute: a computing sim runs Go code (Lang
// "Go"), a memory-only one nothing.
func (d *Device) Caps() device.Caps {
	if !d.compute {
		return device.Caps{}
	}
	return device.Caps{Lang: "Go", FP64: true, Units: 1, MaxGroup: 1, Vendor: "sim"}
}

// Runs is the number of launches (Run) that ran: Stats().Launches.
func (d *Device) Runs() int { return int(d.c.Snapshot().Launches) }

// Run implements device.HostMemory: fn computes on views of d's memory.
func (d *Device) Run(op string, fn func(mem func(device.Allocation) ([]byte, error)) error) error {
	if !d.gate.Enter() {
		return ErrClosed
	}
	defer d.gate.Leave()
	if !d.compute {
		return fmt.Errorf("sim: %s on %s: a memory-only device (sim.New) runs nothing: use sim.NewCompute", op, d.Name())
	}
	if err := d.faultLocked("Run"); err != nil {
		return err
	}
	d.c.Launch()
	d.queue.Lock()
	defer d.queue.Unlock()
	err := fn(func(a device.Allocation) ([]byte, error) {
		x, err := d.own(a)
		if err != nil {
			return nil, err
		}
		return x.Mem(), nil
	})
	if err == nil {
		d.record(op, func() error { return d.Run(op, fn) })
	}
	return err
}

func (d *Device) Name() string { return "sim:" + d.name }

func (d *Device) Malloc(n int) (device.Allocation, error) {
	if n < 0 {
		return nil, fmt.Errorf("sim: allocation of %d bytes", n)
	}
	if !d.gate.Enter() {
		return nil, ErrClosed
	}
	defer d.gate.Leave()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done.Load() {
		return nil, ErrClosed
	}
	if err := d.fault("Malloc"); err != nil {
		return nil, err
	}
	if d.limit > 0 && int(d.c.Snapshot().BytesLive)+n > d.limit {
		return nil, fmt.Errorf("sim: allocation of %d bytes exceeds the device's %d bytes", n, d.limit)
	}
	b := &block{mem: make([]byte, n), refs: 1}
	d.live[b] = struct{}{}
	d.c.Alloc(n)
	return &Alloc{d: d, b: b, n: n}, nil
}

func (d *Device) own(a device.Allocation) (*Alloc, error) {
	x, ok := a.(*Alloc)
	if !ok || x.d != d {
		return nil, fmt.Errorf("sim: %T on %s: %w", a, d.Name(), device.ErrForeign)
	}
	if d.done.Load() {
		return nil, ErrClosed
	}
	// One read of freed: Close sets closing before its hooks free, so a
	// free seen here that a hook made always sees closing too (two reads
	// let a hook's free land between them and read as a plain use after
	// Free).
	if x.freed.Load() {
		if d.closing.Load() {
			return nil, fmt.Errorf("sim: the allocation was let go as %s closed: %w", d.Name(), ErrClosed)
		}
		return nil, fmt.Errorf("sim: allocation used after Free")
	}
	return x, nil
}

func (d *Device) Free(a device.Allocation) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	x, ok := a.(*Alloc)
	if !ok || x.d != d {
		return fmt.Errorf("sim: %T on %s: %w", a, d.Name(), device.ErrForeign)
	}
	if x.freed.Load() || d.done.Load() {
		return nil
	}
	x.freed.Store(true)
	d.unref(x.b)
	return nil
}

func (d *Device) unref(b *block) {
	b.refs--
	if b.refs == 0 && !b.freed {
		b.freed = true
		delete(d.live, b)
		d.c.Release(len(b.mem))
	}
}

func (d *Device) Crop(a device.Allocation, off, n int) (device.Allocation, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x, err := d.own(a)
	if err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || off > x.n || n > x.n-off {
		return nil, fmt.Errorf("sim: crop [%d, %d) of a %d-byte allocation", off, off+n, x.n)
	}
	x.b.refs++
	return &Alloc{d: d, b: x.b, off: x.off + off, n: n}, nil
}

func check(r device.Region, mem []byte, off int, what string) error {
	if err := r.Fits(off, len(mem)); err != nil {
		return fmt.Errorf("sim: %s: %w", what, err)
	}
	return nil
}

func (d *Device) transfer(dst []byte, dOff int, src []byte, sOff int, r device.Region) {
	r = r.Simplify()
	r.Rows(func(o, n int) { copy(dst[dOff+o:dOff+o+n], src[sOff+o:sOff+o+n]) })
}

func (d *Device) CopyIn(dst device.Allocation, off int, src []byte, r device.Region) error {
	return d.hostCopy(dst, off, src, r, true)
}

func (d *Device) CopyOut(dst []byte, src device.Allocation, off int, r device.Region) error {
	return d.hostCopy(src, off, dst, r, false)
}

// hostCopy moves r between host and the allocation at off: to the device
// when in is true.
func (d *Device) hostCopy(a device.Allocation, off int, host []byte, r device.Region, in bool) error {
	if !d.gate.Enter() {
		return ErrClosed
	}
	defer d.gate.Leave()
	x, err := d.own(a)
	if err != nil {
		return err
	}
	op := "CopyOut"
	if in {
		op = "CopyIn"
	}
	if err := d.faultLocked(op); err != nil {
		return err
	}
	if err := check(r, x.Mem(), off, "allocation"); err != nil {
		return err
	}
	if err := check(r, host, 0, "host slice"); err != nil {
		return err
	}
	if err := devkit.Settle(host[:r.SpanBytes()], in, r); err != nil {
		return fmt.Errorf("sim: %s: %w", op, err)
	}
	d.queue.Lock()
	defer d.queue.Unlock()
	if in {
		d.transfer(x.b.mem, x.off+off, host, 0, r)
		d.c.H2D(r.Bytes())
	} else {
		d.transfer(host, 0, x.b.mem, x.off+off, r)
		d.c.D2H(r.Bytes())
	}
	d.record(op, func() error { return d.hostCopy(a, off, host, r, in) })
	return nil
}

func (d *Device) Copy(dst device.Allocation, dOff int, src device.Allocation, sOff int, r device.Region) error {
	if !d.gate.Enter() {
		return ErrClosed
	}
	defer d.gate.Leave()
	x, err := d.own(dst)
	if err != nil {
		return err
	}
	y, err := d.own(src)
	if err != nil {
		return err
	}
	if err := d.faultLocked("Copy"); err != nil {
		return err
	}
	if err := check(r, x.Mem(), dOff, "destination"); err != nil {
		return err
	}
	if err := check(r, y.Mem(), sOff, "source"); err != nil {
		return err
	}
	d.queue.Lock()
	d.transfer(x.b.mem, x.off+dOff, y.b.mem, y.off+sOff, r)
	d.queue.Unlock()
	d.c.D2D(r.Bytes())
	d.record("Copy", func() error { return d.Copy(dst, dOff, src, sOff, r) })
	return nil
}

func (d *Device) Sync() error { return nil }

func (d *Device) Stats() device.Stats { return d.c.Snapshot() }

// Close frees every allocation. Idempotent. As on a real device, Arrays'
// hooks run first, then the gate shuts and the calls inside finish; later
// calls fail with ErrClosed.
func (d *Device) Close() error {
	if !d.done.Load() {
		d.closing.Store(true)
		d.hooks.RunCloseHooks()
	}
	d.gate.Shut()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done.Load() {
		return nil
	}
	d.done.Store(true)
	d.c.EndFills()
	for b := range d.live {
		d.c.Release(len(b.mem))
	}
	d.live = nil
	return nil
}

// hostBlock is host memory from AllocHost.
type hostBlock struct {
	d    *Device
	mem  []byte
	done bool
}

func (b *hostBlock) Bytes() []byte { return b.mem }

func (b *hostBlock) Free() error {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	if !b.done {
		b.done = true
		b.d.hostLive--
	}
	return nil
}

// AllocHost returns host memory the device "transfers from directly"; the
// simulated device counts live blocks (HostBlocksLive) so tests can check
// that Arrays return them.
func (d *Device) AllocHost(n int) (device.HostBlock, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done.Load() {
		return nil, ErrClosed
	}
	d.hostLive++
	return &hostBlock{d: d, mem: make([]byte, n)}, nil
}

// HostBlocksLive is the number of AllocHost blocks not yet freed.
func (d *Device) HostBlocksLive() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hostLive
}

var _ device.HostAllocator = (*Device)(nil)

// Closed reports whether Close has run.
func (d *Device) Closed() bool { return d.closing.Load() || d.gate.IsShut() || d.done.Load() }
