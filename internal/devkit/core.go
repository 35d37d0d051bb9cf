package devkit

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/device"
)

// Driver is what a backend does for its Core: the few calls that differ
// between OpenCL and CUDA when a device frees memory and shuts down.
type Driver interface {
	// Finish waits for the work queued on the device's queues or streams
	// and releases what recorded it (command buffers, graphs). Shutdown
	// calls it once the gate is shut and empty, before Values close.
	Finish() error
	// NewBlock allocates a device block of size bytes.
	NewBlock(size int) (h uintptr, err error)
	// OutOfMemory reports whether err is the driver's out of memory,
	// which freeing the cache may cure.
	OutOfMemory(err error) bool
	// FreeBlock releases one device block (a Root's handle).
	FreeBlock(h uintptr) error
	// Drop releases the driver's objects that pinned host blocks do not
	// need (staging, libraries' handles, modules), after the memory.
	Drop() error
	// Release releases the rest (queues, the context), last: at shutdown,
	// or at the last pinned host block's Free when blocks outlived it.
	Release() error
}

// Core is the state every backend's Device holds the same way: its gate,
// close hooks, allocation pool, counters, per-device values and pinned
// host blocks, and the one shutdown path over a Driver. A backend's state
// embeds it and calls Init before use.
type Core struct {
	// Pkg prefixes errors ("opencl", "cuda"); Name names the device.
	Pkg, Name string
	// ErrClosed is the backend's sentinel (wrapping device.ErrClosed).
	ErrClosed error
	// Gate: every call into the driver passes it; Close shuts it before
	// releasing anything.
	Gate     Gate
	Hooks    CloseHooks
	Pool     Pool // allocations, the cache, the closed flag
	Counters Counters
	// Values is packages' per-device state (device.Kernels.Value),
	// closed once the gate is empty; its values never point to the
	// Device.
	Values Values
	// Pins are the pinned host blocks (AllocHost).
	Pins PinnedSet[HostRange]

	drv       Driver
	cleanup   runtime.Cleanup // the Device's backstop (Face.InitFace)
	closeOnce sync.Once
	closeErr  error
}

// HostRange is a pinned host block as a Core lists it.
type HostRange interface{ Range() (start uintptr, n int) }

// HostMem is a backend's pinned host block: where it lies and its bytes.
type HostMem interface {
	HostRange
	Bytes() []byte
}

// Init readies c for a backend: pkg and name for errors, its ErrClosed and
// ErrForeign sentinels, and the driver that frees and releases.
func (c *Core) Init(pkg, name string, errClosed, errForeign error, drv Driver) {
	c.Pkg, c.Name, c.ErrClosed, c.drv = pkg, name, errClosed, drv
	c.Pool.Counters, c.Pool.ErrClosed, c.Pool.ErrForeign = &c.Counters, errClosed, errForeign
}

// Enter passes the gate: ErrClosed once Close has shut it. Pair a nil
// error with c.Gate.Leave().
func (c *Core) Enter() error {
	if !c.Gate.Enter() {
		return c.ErrClosed
	}
	return nil
}

// Closed reports whether Close has begun.
func (c *Core) Closed() bool { return c.Gate.IsShut() || c.Pool.Closed() }

// Close runs the shutdown once; concurrent Closes wait for it and all
// return its error.
func (c *Core) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

// shutdown is Close's work. Hooks first, while the device still works:
// Arrays bring device-dirty data home. Then the gate: later calls are
// refused, and those inside finish before the driver's queued work,
// packages' state (built programs, a Halide runtime's state for the
// context) and then the memory go; the context goes last, or with the
// last pinned host block still in use (NewIn Arrays).
func (c *Core) shutdown() error {
	c.Pool.SetClosing()
	if b, ok := c.drv.(interface{ BeginClose() }); ok {
		b.BeginClose() // a driver's capture under way ends: the hooks' downloads must run
	}
	c.Hooks.RunCloseHooks()
	c.Gate.Shut()
	errs := []error{c.drv.Finish(), c.Values.Close()}
	live, cached := c.Pool.Close()
	for _, r := range live {
		errs = append(errs, c.drv.FreeBlock(r.H))
	}
	for _, h := range cached {
		errs = append(errs, c.drv.FreeBlock(h))
	}
	errs = append(errs, c.drv.Drop())
	c.Counters.EndFills()
	if !c.Pins.Close() {
		errs = append(errs, c.drv.Release())
	}
	return errors.Join(errs...)
}

// ReleaseCache frees the cached device blocks; nothing after Close (it
// released the cache).
func (c *Core) ReleaseCache() error {
	if err := c.Enter(); err != nil {
		return nil
	}
	defer c.Gate.Leave()
	var errs []error
	for _, h := range c.Pool.Drain() {
		errs = append(errs, c.drv.FreeBlock(h))
	}
	return errors.Join(errs...)
}

// Keep is a Recording's keep for the root with handle h (see
// Recording.Keep): it holds the root while a Graph uses it, as a crop
// does; the release lets go inside the gate, freeing the block when it
// was the last reference. After Close it does nothing (Close freed the
// root, still live).
func (c *Core) Keep(h uintptr) func() func() error {
	return func() func() error {
		rel := RetainHandle(&c.Pool, h)
		if rel == nil {
			return nil
		}
		return func() error {
			if err := c.Enter(); err != nil {
				return nil
			}
			defer c.Gate.Leave()
			if r := rel(); r != nil {
				return c.drv.FreeBlock(r.H)
			}
			return nil
		}
	}
}

// Pinned reports whether host lies in one of the pinned host blocks.
func (c *Core) Pinned(host []byte) bool {
	return len(host) > 0 && c.Pins.Contains(uintptr(unsafe.Pointer(&host[0])), len(host))
}

// FreeHost drops the pinned block p with free (the driver's unmap or
// host free); the last block of a closed device releases the rest too.
// Idempotent.
func (c *Core) FreeHost(p HostRange, free func() error) error {
	removed, last := c.Pins.Remove(p)
	if !removed {
		return nil
	}
	err := free()
	if last {
		err = errors.Join(err, c.drv.Release())
	}
	return err
}

// AllocHost is a backend's AllocHost: bytes > 0, then, inside the gate, a
// block from alloc, listed in Pins; on a device closed meanwhile the
// block goes back to free and the error is ErrClosed. The block's Free
// is free through FreeHost; it keeps dev (the Device) alive.
func AllocHost[P HostMem](c *Core, dev any, bytes int, alloc func() (P, error), free func(P) error) (device.HostBlock, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("%s: AllocHost(%d): want > 0: %w", c.Pkg, bytes, device.ErrOutOfRange)
	}
	if err := c.Enter(); err != nil {
		return nil, err
	}
	defer c.Gate.Leave()
	p, err := alloc()
	if err != nil {
		return nil, fmt.Errorf("%s: AllocHost(%d) on %s: %w", c.Pkg, bytes, c.Name, err)
	}
	if !c.Pins.Add(p) {
		free(p)
		return nil, c.ErrClosed
	}
	return &hostBlock[P]{dev: dev, c: c, p: p, free: free}, nil
}

// hostBlock is pinned host memory from a backend's AllocHost. Transfers
// from or to slices inside it skip staging and run at the bus's speed.
type hostBlock[P HostMem] struct {
	dev  any // keeps the Device, and so the context or mapping, alive
	c    *Core
	p    P
	free func(P) error
}

// Bytes returns the block's memory, valid until Free.
func (b *hostBlock[P]) Bytes() []byte { return b.p.Bytes() }

// Free releases the block. Idempotent. After the Device's Close, the last
// block freed releases the driver's context.
func (b *hostBlock[P]) Free() error { return b.c.FreeHost(b.p, func() error { return b.free(b.p) }) }
