package opencl

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
)

// The device.Kernels and device.Native adapter: what package ops (and a
// later backend's users) need, without naming OpenCL types.

var (
	_ device.Kernels = (*Device)(nil)
	_ device.Native  = (*Device)(nil)
	_ device.Program = program{}
	_ device.Kernel  = (*kernel)(nil)
)

// program and kernel adapt the binding's objects to device.Program and
// device.Kernel; kernel remembers the arguments and grid Enqueue set last.
type program struct {
	p *cl.Program
	s *state
}

type kernel struct {
	k    *cl.Kernel
	mu   sync.Mutex
	last []any
	grid device.Grid
}

func (k *kernel) Name() string   { return k.k.Name() }
func (k *kernel) Release() error { return k.k.Release() }
func (p program) Release() error { return p.p.Release() }

// Compile builds an OpenCL C program (device.Kernels); a failed build
// returns a *BuildError with the log.
func (d *Device) Compile(src, options string) (device.Program, error) {
	if err := d.s.Enter(); err != nil {
		return nil, err
	}
	defer d.s.Gate.Leave()
	p, err := d.build(src, options)
	if err != nil {
		return nil, err
	}
	return program{p, d.s}, nil
}

// Kernel implements device.Program: CreateKernel.
func (p program) Kernel(name string) (device.Kernel, error) {
	if err := p.s.Enter(); err != nil {
		return nil, err
	}
	defer p.s.Gate.Leave()
	k, err := p.p.CreateKernel(name)
	if err != nil {
		return nil, err
	}
	return &kernel{k: k}, nil
}

// Enqueue sets k's arguments, skipping those equal to the ones it set
// last (a loop of small ops on the same Arrays then crosses into the
// driver once per op, for the enqueue), and queues k over g. Every
// command counts toward the device's pacing.
func (d *Device) Enqueue(k device.Kernel, g device.Grid, args []any) error {
	kk, ok := k.(*kernel)
	if !ok {
		return fmt.Errorf("opencl: Enqueue of a %T on %s: %w", k, d.Name(), device.ErrForeign)
	}
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	kk.mu.Lock()
	kk.grid = g // in the kernel, so that the slices below allocate nothing
	err := kk.setArgs(args)
	if err == nil {
		err = d.s.queue.EnqueueKernel(kk.k, nil, kk.grid.Global[:g.Dims], localOf(&kk.grid), nil, nil)
	}
	kk.mu.Unlock()
	if err != nil {
		return fmt.Errorf("opencl: kernel %s on %s: %w", kk.k.Name(), d.Name(), err)
	}
	d.record(kk.k.Name(), args, func(a []any) error { return d.Enqueue(k, g, a) }, &kernelStep{kk, g})
	return d.pace()
}

// localOf is g's work-group size, nil for the driver's choice.
func localOf(g *device.Grid) []int {
	if g.Local == [3]int{} {
		return nil
	}
	return g.Local[:g.Dims]
}

// setArgs sets k's arguments that differ from the last ones set; call
// with k.mu held.
func (k *kernel) setArgs(args []any) error {
	for i, a := range args {
		if i < len(k.last) && argEqual(k.last[i], a) {
			continue
		}
		if err := k.k.SetArg(i, a); err != nil {
			k.last = nil
			return err
		}
	}
	k.last = args
	return nil
}

func argEqual(x, y any) bool {
	if bx, ok := x.([]byte); ok {
		by, ok := y.([]byte)
		return ok && bytes.Equal(bx, by)
	}
	return x == y
}

// CopyBytes queues a copy of n bytes between two of d's buffers
// (clEnqueueCopyBuffer, the fastest device-to-device copy NVIDIA's OpenCL
// has): an op's own copy, counted as a launch, not as a transfer.
func (d *Device) CopyBytes(dst device.Buffer, dstOff int, src device.Buffer, srcOff, n int) error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	db := cl.WrapBuffer(uintptr(dst), dstOff+n)
	sb := cl.WrapBuffer(uintptr(src), srcOff+n)
	if err := d.s.queue.CopyBuffer(db, dstOff, sb, srcOff, n, nil, nil); err != nil {
		return fmt.Errorf("opencl: copy on %s: %w", d.Name(), err)
	}
	d.record("copy", []any{dst, src}, func([]any) error { return d.CopyBytes(dst, dstOff, src, srcOff, n) },
		&copyStep{dst, dstOff, src, srcOff, n})
	return d.pace()
}

// ReadBytes reads len(dst) bytes at off in src, blocking; not counted in
// Stats.
func (d *Device) ReadBytes(dst []byte, src device.Buffer, off int) error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	if err := d.refuseRead("ReadBytes"); err != nil {
		return err
	}
	return d.s.queue.ReadBuffer(dst, cl.WrapBuffer(uintptr(src), off+len(dst)), off, nil)
}

// API implements device.Native.
func (d *Device) API() string { return "OpenCL" }

// Handles returns the cl_context and cl_command_queue (device.Native).
func (d *Device) Handles() (ctx, queue uintptr) { return d.s.ctx.Handle(), d.s.queue.Handle() }
