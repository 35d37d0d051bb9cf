package opencl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// kernelStep and copyStep are what a command buffer records of a step.
type kernelStep struct {
	k *kernel
	g device.Grid
}

type copyStep struct {
	dst    device.Buffer
	dstOff int
	src    device.Buffer
	srcOff int
	n      int
}

// cmdBufs is a Device's command-buffer support, looked up once, and the
// buffers its Graphs hold (released by Close).
type cmdBufs struct {
	once         sync.Once
	err          error // why there are none
	simultaneous bool
	live         devkit.Live[*cmdReplay]
}

// commandBuffer returns a replay through a command buffer of steps, or
// nil (and no error) where the device has none or a step is not a kernel
// or buffer copy.
func (d *Device) commandBuffer(steps []*devkit.Step) (devkit.Replayer, error) {
	c := &d.s.cmdbuf
	c.once.Do(func() {
		if d.s.opts.NoCommandBuffers {
			c.err = errors.New("turned off by Options.NoCommandBuffers")
			return
		}
		c.simultaneous, c.err = cl.CommandBuffers(d.s.id)
	})
	if c.err != nil || len(steps) == 0 {
		return nil, nil
	}
	for _, st := range steps {
		switch st.Data.(type) {
		case *kernelStep, *copyStep, *foreignStep:
		default:
			return nil, nil // a transfer: the recorded replay
		}
	}
	if err := d.s.Enter(); err != nil {
		return nil, err
	}
	defer d.s.Gate.Leave()
	r := &cmdReplay{d: d, steps: steps}
	if err := r.build(); err != nil {
		return nil, fmt.Errorf("opencl: a command buffer on %s: %w", d.s.Name, err)
	}
	c.live.Add(r)
	return r, nil
}

// cmdReplay replays steps through one command buffer, recorded again
// after SetArg changed an argument.
type cmdReplay struct {
	d     *Device
	mu    sync.Mutex
	steps []*devkit.Step
	buf   *cl.CommandBuffer
	own   []*cl.Kernel // the buffer's kernels: its own, so that no other launch changes their arguments
	last  cl.Event     // the last enqueue's, where the buffer may not be pending twice
	dirty bool
}

// build records the steps into a new command buffer; call inside the
// gate, with r.mu held or before r is shared.
func (r *cmdReplay) build() error {
	s := r.d.s
	b, err := cl.NewCommandBuffer(s.queue, s.cmdbuf.simultaneous)
	if err != nil {
		return err
	}
	for _, st := range r.steps {
		switch x := st.Data.(type) {
		case *kernelStep:
			// A kernel of its own: PoCL 3.1 takes a recorded kernel's
			// arguments when the buffer is enqueued, not when recorded.
			var k *cl.Kernel
			if k, err = x.k.k.Twin(); err == nil {
				r.own = append(r.own, k)
				err = k.SetArgs(st.Args...)
			}
			if err == nil {
				err = b.NDRange(k, x.g.Global[:x.g.Dims], localOf(&x.g))
			}
		case *foreignStep: // Halide's: its arguments are the step's alone
			if err = x.setArgs(st.Args); err == nil {
				err = b.NDRange(x.k, x.g.Global[:x.g.Dims], localOf(&x.g))
			}
		case *copyStep:
			err = b.CopyBuffer(uintptr(x.dst), x.dstOff, uintptr(x.src), x.srcOff, x.n)
		}
		if err != nil {
			return errors.Join(fmt.Errorf("recording %s: %w", st.Name, err), b.Release(), r.releaseKernels())
		}
	}
	if err := b.Finalize(); err != nil {
		return errors.Join(err, b.Release(), r.releaseKernels())
	}
	r.buf, r.dirty = b, false
	return nil
}

// idle waits for the last enqueue, where one is outstanding.
func (r *cmdReplay) idle() error {
	if r.last == (cl.Event{}) {
		return nil
	}
	err := errors.Join(r.last.Wait(), r.last.Release())
	r.last = cl.Event{}
	return err
}

func (r *cmdReplay) Replay() error {
	s := r.d.s
	if err := s.Enter(); err != nil {
		return err
	}
	defer s.Gate.Leave()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf == nil && !r.dirty {
		return fmt.Errorf("opencl: replay of a closed command buffer: %w", ErrClosed)
	}
	if r.dirty {
		if err := r.idle(); err != nil {
			return err
		}
		if err := errors.Join(r.buf.Release(), r.releaseKernels()); err != nil {
			return err
		}
		if err := r.build(); err != nil {
			return err
		}
	}
	var ev *cl.Event
	if !s.cmdbuf.simultaneous {
		if err := r.idle(); err != nil { // it may not be pending twice
			return err
		}
		ev = &r.last
	}
	if err := r.buf.Enqueue(s.queue, nil, ev); err != nil {
		return fmt.Errorf("opencl: enqueueing a command buffer on %s: %w", s.Name, err)
	}
	s.Counters.AddWork(device.Stats{Launches: int64(len(r.steps) - 1)})
	return r.d.pace()
}

func (r *cmdReplay) SetArg(st *devkit.Step, i int, v any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := devkit.SetStepArg(st, i, v); err != nil {
		return err
	}
	r.dirty = true
	return nil
}

func (r *cmdReplay) Ran() bool    { return true }
func (r *cmdReplay) Nodes() int   { return len(r.steps) }
func (r *cmdReplay) Kind() string { return "OpenCL command buffer" }

// Close releases the command buffer once its last enqueue is done.
func (r *cmdReplay) Close() error {
	c := &r.d.s.cmdbuf
	if !c.live.Remove(r) {
		return nil
	}
	if err := r.d.s.Enter(); err != nil {
		return nil // Close released it
	}
	defer r.d.s.Gate.Leave()
	return r.release(true)
}

// release waits for the buffer's work (wait: its own event, else the
// caller finished the queue) and releases it.
func (r *cmdReplay) release(wait bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if wait && r.d.s.cmdbuf.simultaneous {
		errs = append(errs, r.d.s.queue.Finish())
	}
	errs = append(errs, r.idle())
	if r.buf != nil {
		errs = append(errs, r.buf.Release())
		r.buf = nil
	}
	errs = append(errs, r.releaseKernels())
	r.dirty = false
	return errors.Join(errs...)
}

func (r *cmdReplay) releaseKernels() error {
	var errs []error
	for _, k := range r.own {
		errs = append(errs, k.Release())
	}
	r.own = nil
	return errors.Join(errs...)
}

// releaseAll releases the command buffers left (shutdown, after the
// queue finished).
func (c *cmdBufs) releaseAll() error {
	return c.live.Release(func(r *cmdReplay) error { return r.release(false) })
}
