package capture

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/internal/place"
	"github.com/resident-go/resident/internal/plumb"
)

// ErrCapture is wrapped by the errors of work that cannot be recorded or
// replayed (Record's) and of a replay refused because an Array changed.
var ErrCapture = devkit.ErrCapture

// Graph is recorded device work, replayed by Replay until Close. Safe
// for concurrent use; replays of one Graph are serialized.
type Graph struct {
	st      *graphState
	cleanup runtime.Cleanup
}

// graphState is what Close and the cleanup backstop release; it must not
// point back to the Graph.
type graphState struct {
	mu     sync.Mutex
	dev    device.Device
	rec    *devkit.Recording
	rp     devkit.Replayer
	arrays []use
	closed bool
}

// use is one Array the work used: where its memory was, and whether the
// capture left it device-newest (Replay marks it so again).
type use struct {
	r      *array.Raw
	what   string // "input of ops.Add"
	alloc  device.Allocation
	handle uintptr
	off    int
	wrote  bool
}

// Record runs fn once on d, recording the device work it queues, and
// returns the Graph that queues it again. An error of fn is returned as
// is; work that cannot be replayed (see the package doc) fails Record
// with an error wrapping ErrCapture. Nothing is kept after an error.
func Record(d device.Device, fn func() error) (*Graph, error) {
	c, ok := d.(devkit.Capturer)
	if !ok {
		return nil, fmt.Errorf("capture: %s cannot record its work (CUDA, OpenCL and device/sim devices can): %w", d.Name(), ErrCapture)
	}
	st := &graphState{dev: d, rec: &devkit.Recording{}}
	if err := c.BeginCapture(st.rec); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	stop := watch(d, st)
	defer func() {
		if p := recover(); p != nil { // end the capture: the device's queue must run again
			stop()
			if rp, _ := c.EndCapture(st.rec); rp != nil {
				st.rp = rp
			}
			st.close()
			panic(p)
		}
	}()
	err := fn()
	stop()
	rp, endErr := c.EndCapture(st.rec)
	st.rp = rp
	if err == nil {
		err = st.rec.Err()
	}
	if err == nil {
		err = endErr
	}
	if err == nil && !rp.Ran() {
		err = rp.Replay() // as an eager run would have
	}
	if err != nil {
		st.close()
		return nil, err
	}
	for i := range st.arrays {
		u := &st.arrays[i]
		u.wrote = u.wrote && u.r.DeviceDirty()
		if a, off := u.r.Allocation(); a != nil {
			u.alloc, u.handle, u.off = a, a.Native(), a.Offset()+off
		}
	}
	g := &Graph{st: st}
	g.cleanup = runtime.AddCleanup(g, func(st *graphState) { st.close() }, st)
	return g, nil
}

// Replay queues the recorded work once more, after checking that every
// Array it uses is still open with the same device memory; it does not
// wait (Sync the device, or read a result, to wait). An Array that
// changed is an error wrapping ErrCapture that names it; a closed device,
// one wrapping device.ErrClosed.
func (g *Graph) Replay() error {
	st := g.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return fmt.Errorf("capture: Replay of a closed Graph: %w", device.ErrClosed)
	}
	for i := range st.arrays {
		if err := st.arrays[i].check(); err != nil {
			if c, ok := st.dev.(interface{ Closed() bool }); ok && c.Closed() {
				// its close let the Arrays' memory go
				return fmt.Errorf("capture: Replay on %s, which closed: %w", st.dev.Name(), device.ErrClosed)
			}
			return err
		}
	}
	if err := st.rp.Replay(); err != nil {
		return fmt.Errorf("capture: Replay on %s: %w", st.dev.Name(), err)
	}
	for i := range st.arrays {
		if u := &st.arrays[i]; u.wrote {
			// an error where the device closed since the launch: its
			// close hooks let the Array's memory go
			if err := plumb.Array.WroteDevice(u.r, u.alloc); err != nil {
				return fmt.Errorf("capture: Replay on %s: %w", st.dev.Name(), err)
			}
		}
	}
	return nil
}

func (u *use) check() error {
	if plumb.Array.Closed(u.r) {
		return fmt.Errorf("capture: the Array %v (%s) was closed since the capture: record again with open Arrays: %w", u.r, u.what, ErrCapture)
	}
	if u.handle == 0 {
		return nil // host memory a streamed chain moves: its own, no device copy
	}
	a, off := u.r.Allocation()
	if a == nil || a.Native() != u.handle || a.Offset()+off != u.off {
		return fmt.Errorf("capture: the Array %v (%s) has other device memory than when it was captured (moved or reallocated): record again: %w", u.r, u.what, ErrCapture)
	}
	return nil
}

// Nodes is what one replay launches: the CUDA graph's nodes, or the
// recorded kernels and copies.
func (g *Graph) Nodes() int { return g.st.rp.Nodes() }

// Kind says how the Graph replays: "CUDA graph" (one launch), "OpenCL
// command buffer" (one enqueue; cl_khr_command_buffer), or "recorded
// replay" (the recorded kernels and copies queued again: OpenCL without
// command buffers or with host transfers in the work, device/sim).
func (g *Graph) Kind() string { return g.st.rp.Kind() }

// Close releases the graph and the device memory its work uses.
// Idempotent.
func (g *Graph) Close() error {
	g.cleanup.Stop()
	return g.st.close()
}

func (st *graphState) close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil
	}
	st.closed = true
	var err error
	if st.rp != nil {
		err = st.rp.Close()
	}
	st.arrays = nil
	return errors.Join(err, st.rec.Release())
}

// Active captures, seen by place's observer.
var (
	activeMu sync.Mutex
	active   = map[device.Device]*graphState{}
	stopObs  func()
)

// watch records, until stop, the Arrays of the work placed while fn runs
// and refuses what a replay would skip.
func watch(d device.Device, st *graphState) (stop func()) {
	activeMu.Lock()
	defer activeMu.Unlock()
	active[d] = st
	if len(active) == 1 {
		stopObs = place.Observe(observe)
	}
	return func() {
		activeMu.Lock()
		defer activeMu.Unlock()
		delete(active, d)
		if len(active) == 0 {
			stopObs()
		}
	}
}

func observe(d device.Device, pkg, op string, outs, ins []*array.Raw, err error) {
	if err != nil {
		return
	}
	activeMu.Lock()
	defer activeMu.Unlock()
	name := pkg + "." + op
	if d == nil {
		// the host: refused when it uses an Array of a capturing device
		for _, rs := range [][]*array.Raw{outs, ins} {
			for _, r := range rs {
				if r == nil || r.Len() == 0 {
					continue
				}
				if st := active[r.Device()]; st != nil {
					st.rec.Refuse(fmt.Errorf("capture: %s ran on the host with %v, an Array of %s: a replay runs device work only: make its operands current on the device first: %w", name, r, r.Device().Name(), ErrCapture))
				}
			}
		}
		return
	}
	st := active[d]
	if st == nil {
		return
	}
	if fr, ok := d.(devkit.ForeignRecorder); (pkg == "halide" || pkg == "stream") && (!ok || !takes(fr)) {
		st.rec.Refuse(fmt.Errorf("capture: %s on %s: pipeline calls and streamed chains are not recorded on this device: %w", name, d.Name(), ErrCapture))
		return
	}
	for k, rs := range [][]*array.Raw{outs, ins} {
		for _, r := range rs {
			if r == nil || r.Len() == 0 || r.HostOnly() {
				continue
			}
			st.add(r, k == 0, name)
		}
	}
}

// takes reports whether fr records another runtime's work (its
// Recording is the active one).
func takes(fr devkit.ForeignRecorder) bool {
	rec, _ := fr.Recording()
	return rec != nil
}

// add records r; call with activeMu held (st.arrays is only Record's
// until it returns).
func (st *graphState) add(r *array.Raw, out bool, name string) {
	for i := range st.arrays {
		if u := &st.arrays[i]; u.r == r {
			u.wrote = u.wrote || out
			return
		}
	}
	what := "input of " + name
	if out {
		what = "output of " + name
	}
	st.arrays = append(st.arrays, use{r: r, what: what, wrote: out})
}
