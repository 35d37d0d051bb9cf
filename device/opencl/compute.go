package opencl

import (
	"bytes"
	"fmt"

	"github.com/resident-go/resident/device"
)

// The device.Kernels and device.Native adapter: what package ops (and a
// later backend's users) need, without naming OpenCL types.

var (
	_ device.Kernels = (*Device)(nil)
	_ device.Native  = (*Device)(nil)
	_ device.Program = (*Program)(nil)
	_ device.Kernel  = (*Kernel)(nil)
)

// Value implements device.Kernels: per-device state of packages above,
// dropped with the Device.
func (d *Device) Value(key any, init func() any) any { return d.vals.Value(key, init) }

// Compile builds an OpenCL C program (device.Kernels); a failed build
// returns a *BuildError with the log.
func (d *Device) Compile(src, options string) (device.Program, error) {
	p, err := d.BuildProgram(src, options)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Kernel implements device.Program: CreateKernel.
func (p *Program) Kernel(name string) (device.Kernel, error) {
	k, err := p.CreateKernel(name)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// Enqueue sets k's arguments, skipping those equal to the ones it set
// last (a loop of small ops on the same Arrays then crosses into the
// driver once per op, for the enqueue), and queues k over g. Every
// command counts toward the device's pacing.
func (d *Device) Enqueue(k device.Kernel, g device.Grid, args []any) error {
	kk, ok := k.(*Kernel)
	if !ok {
		return fmt.Errorf("opencl: Enqueue of a %T on %s: %w", k, d.Name(), device.ErrForeign)
	}
	kk.mu.Lock()
	kk.grid = g // in the Kernel, so that the slices below allocate nothing
	var local []int
	if g.Local != [3]int{} {
		local = kk.grid.Local[:g.Dims]
	}
	err := kk.setArgs(args)
	if err == nil {
		err = d.s.queue.EnqueueKernel(kk, nil, kk.grid.Global[:g.Dims], local, nil, nil)
	}
	kk.mu.Unlock()
	if err != nil {
		return fmt.Errorf("opencl: kernel %s on %s: %w", kk.name, d.Name(), err)
	}
	return d.Pace()
}

// setArgs sets k's arguments that differ from the last ones set; call
// with k.mu held.
func (k *Kernel) setArgs(args []any) error {
	for i, a := range args {
		if i < len(k.last) && argEqual(k.last[i], a) {
			continue
		}
		if err := k.SetArg(i, a); err != nil {
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
// has); not counted in Stats.
func (d *Device) CopyBytes(dst device.Buffer, dstOff int, src device.Buffer, srcOff, n int) error {
	db := Buffer{h: uintptr(dst), size: dstOff + n}
	sb := Buffer{h: uintptr(src), size: srcOff + n}
	if err := d.s.queue.CopyBuffer(&db, dstOff, &sb, srcOff, n, nil, nil); err != nil {
		return fmt.Errorf("opencl: copy on %s: %w", d.Name(), err)
	}
	return d.Pace()
}

// ReadBytes reads len(dst) bytes at off in src, blocking; not counted in
// Stats.
func (d *Device) ReadBytes(dst []byte, src device.Buffer, off int) error {
	b := Buffer{h: uintptr(src), size: off + len(dst)}
	return d.s.queue.ReadBuffer(dst, &b, off, nil)
}

// API implements device.Native.
func (d *Device) API() string { return "OpenCL" }

// Handles returns the cl_context and cl_command_queue (device.Native).
func (d *Device) Handles() (ctx, queue uintptr) { return d.s.ctx.h, d.s.queue.h }
