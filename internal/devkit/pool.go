package devkit

import (
	"fmt"
	"sync"

	"github.com/resident-go/resident/device"
)

// Root is one native block (a cl_mem, a CUdeviceptr) shared by an
// allocation and its crops.
type Root struct {
	H    uintptr // the native handle
	Size int     // bytes of the block: its cache bin
	User int     // bytes the Malloc asked for, as counted in Stats
	// Adopted: made by other code, so released, never cached.
	Adopted bool
	refs    int // the root allocation and its crops not yet freed; under Pool.mu
}

// Dev is a Device type whose values compare (a pointer to the
// implementation's Device).
type Dev interface {
	device.Device
	comparable
}

// Alloc is an allocation of a device of type D: a whole Root or a crop
// of it, Off bytes in and N bytes long.
type Alloc[D Dev] struct {
	Dev   D
	Root  *Root
	Off   int
	N     int
	freed bool // under Pool.mu
}

func (a *Alloc[D]) Device() device.Device { return a.Dev }

// Native returns the root's handle; Offset says where this allocation
// starts in it.
func (a *Alloc[D]) Native() uintptr { return a.Root.H }
func (a *Alloc[D]) Offset() int     { return a.Off }
func (a *Alloc[D]) Bytes() int      { return a.N }

// Pool is a device's allocation table: its live roots, the cache of
// freed blocks, the closed flag, under one mutex, and the counters they
// move. The zero value is ready once Counters is set.
type Pool struct {
	Counters *Counters
	mu       sync.Mutex
	closing  bool // Close has begun: its hooks let Arrays' allocations go
	closed   bool
	live     map[*Root]struct{}
	cache    BlockCache
	// ErrClosed and ErrForeign are the device package's sentinels
	// (wrapping device.ErrClosed, device.ErrForeign).
	ErrClosed, ErrForeign error
}

// SetCacheLimit caps the bytes the cache keeps (0: none).
func (p *Pool) SetCacheLimit(n int) { p.mu.Lock(); p.cache.Limit = n; p.mu.Unlock() }

// Closed reports whether Close has begun (SetClosing) or run.
func (p *Pool) Closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closing || p.closed
}

// SetClosing records that the device's Close has begun, before its hooks
// run: an allocation they let go is then ErrClosed to a call that still
// holds it, not a use after Free.
func (p *Pool) SetClosing() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
}

// Take takes a cached block of exactly size bytes (a BinSize), counting
// the hit or, with countMiss, the miss; on a closed pool, ErrClosed.
func (p *Pool) Take(size int, countMiss bool) (h uintptr, hit bool, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, false, p.ErrClosed
	}
	h, hit = p.cache.Get(size)
	p.mu.Unlock()
	switch {
	case hit:
		p.Counters.CacheHit()
		p.Counters.Cached(-size)
	case countMiss:
		p.Counters.CacheMiss()
	}
	return h, hit, nil
}

// Track makes r live and returns its whole-root allocation of dev; false
// when the pool closed meanwhile (the caller releases r.H).
func Track[D Dev](p *Pool, dev D, r *Root) (*Alloc[D], bool) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false
	}
	if p.live == nil {
		p.live = make(map[*Root]struct{})
	}
	r.refs = 1
	p.live[r] = struct{}{}
	p.mu.Unlock()
	p.Counters.Alloc(r.User)
	return &Alloc[D]{Dev: dev, Root: r, N: r.User}, true
}

// Mine returns a as one of dev's allocations, live or not.
func Mine[D Dev](p *Pool, dev D, a device.Allocation) (*Alloc[D], error) {
	x, ok := a.(*Alloc[D])
	if !ok || x == nil || x.Dev != dev {
		return nil, fmt.Errorf("%w: %T", p.ErrForeign, a)
	}
	return x, nil
}

// Own returns a as one of dev's live allocations.
func Own[D Dev](p *Pool, dev D, a device.Allocation) (*Alloc[D], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ownLocked(p, dev, a)
}

func ownLocked[D Dev](p *Pool, dev D, a device.Allocation) (*Alloc[D], error) {
	x, err := Mine(p, dev, a)
	if err != nil {
		return nil, err
	}
	if p.closed {
		return nil, p.ErrClosed
	}
	if x.freed && p.closing {
		return nil, fmt.Errorf("%w: the allocation was let go as the device closed", p.ErrClosed)
	}
	if x.freed {
		return nil, fmt.Errorf("%w: used after Free", p.ErrForeign)
	}
	return x, nil
}

// Free drops a's reference to its root. When it was the last, the root
// stops being live and goes to the cache (kept) or is returned for the
// caller to release (release). Freeing twice, or after Close, does
// nothing.
func Free[D Dev](p *Pool, dev D, a device.Allocation) (release *Root, err error) {
	x, err := Mine(p, dev, a)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if x.freed || p.closed {
		p.mu.Unlock()
		return nil, nil
	}
	x.freed = true
	r := x.Root
	r.refs--
	if r.refs > 0 {
		p.mu.Unlock()
		return nil, nil
	}
	delete(p.live, r)
	kept := !r.Adopted && p.cache.Put(r.H, r.Size)
	p.mu.Unlock()
	p.Counters.Release(r.User)
	if kept {
		p.Counters.Cached(r.Size)
		return nil, nil
	}
	return r, nil
}

// Crop returns an allocation of dev that shares a's root, off bytes into a
// and n bytes long. Crops are not counted in AllocsLive.
func Crop[D Dev](p *Pool, dev D, a device.Allocation, off, n int) (*Alloc[D], error) {
	// One critical section: the checks and the new reference must not be
	// split by a concurrent Free.
	p.mu.Lock()
	defer p.mu.Unlock()
	x, err := ownLocked(p, dev, a)
	if err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || off > x.N || n > x.N-off {
		return nil, fmt.Errorf("Crop [%d, %d) of a %d-byte allocation: %w", off, off+n, x.N, device.ErrOutOfRange)
	}
	x.Root.refs++
	return &Alloc[D]{Dev: x.Dev, Root: x.Root, Off: x.Off + off, N: n}, nil
}

// Drain empties the cache and returns its handles.
func (p *Pool) Drain() []uintptr {
	p.mu.Lock()
	hs, bytes := p.cache.Drain()
	p.mu.Unlock()
	p.Counters.Cached(-bytes)
	return hs
}

// Close marks the pool closed and returns what the caller releases: the
// live roots (counted released) and the cached handles. Idempotent: a
// second Close returns nothing.
func (p *Pool) Close() (live []*Root, cached []uintptr) {
	p.mu.Lock()
	p.closed = true
	for r := range p.live {
		live = append(live, r)
	}
	p.live = nil
	hs, bytes := p.cache.Drain()
	p.mu.Unlock()
	for _, r := range live {
		p.Counters.Release(r.User)
	}
	p.Counters.Cached(-bytes)
	return live, hs
}

// CheckRegion validates a transfer of r at byte off in an allocation of
// n bytes against host bytes (hostLen < 0: no host side) and returns r
// simplified and its span; errors name pkg and op.
func CheckRegion(pkg, op string, n, off int, r device.Region, hostLen int) (device.Region, int, error) {
	if err := r.Fits(off, n); err != nil {
		return r, 0, fmt.Errorf("%s: %s: %w", pkg, op, err)
	}
	span := r.SpanBytes()
	if hostLen >= 0 && span > hostLen {
		return r, 0, fmt.Errorf("%s: %s: region spans %d bytes, host slice has %d: %w", pkg, op, span, hostLen, device.ErrOutOfRange)
	}
	return r.Simplify(), span, nil
}

// CopyPair resolves the two allocations of a device-to-device Copy on
// dev and checks r at dstOff and srcOff against them: it returns them, r
// simplified and its span (0: nothing to copy). Errors name pkg.
func CopyPair[D Dev](p *Pool, dev D, pkg string, dst device.Allocation, dstOff int, src device.Allocation, srcOff int, r device.Region) (xd, xs *Alloc[D], rs device.Region, span int, err error) {
	if xd, err = Own(p, dev, dst); err != nil {
		return nil, nil, r, 0, err
	}
	if xs, err = Own(p, dev, src); err != nil {
		return nil, nil, r, 0, err
	}
	if _, _, err = CheckRegion(pkg, "Copy destination", xd.N, dstOff, r, -1); err != nil {
		return nil, nil, r, 0, err
	}
	rs, span, err = CheckRegion(pkg, "Copy source", xs.N, srcOff, r, -1)
	return xd, xs, rs, span, err
}
