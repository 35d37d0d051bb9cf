package cuda

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// The capture side (package device/capture): the driver's stream
// capture. Between BeginCapture and EndCapture the Device's stream
// records instead of running (cuStreamBeginCapture_v2, relaxed mode, so
// that allocations may happen meanwhile); EndCapture instantiates the
// graph once, and a replay is one cuGraphLaunch. The entry points also
// record each step (a kernel's arguments, for Graph.Scalar) and keep the
// device memory the graph uses allocated until it closes. A transfer of
// Go memory goes through a pinned block of the graph's, with host nodes
// copying between it and the Go memory (gostage.go). What needs the
// stream to have run (a read back, a synchronize) is refused with an
// error saying why.

var _ devkit.Capturer = (*Device)(nil)

// capState is a Device's capture bookkeeping.
type capState struct {
	rec    devkit.Capturing
	start  device.Stats // the counters when the capture began
	graphs devkit.Live[*graphReplay]
	staged stages // the capture's staging of Go memory, until its graph takes it
}

// hostRange is the pinned host memory a recorded transfer moves: a
// replay checks that it is still allocated.
type hostRange struct {
	p uintptr
	n int
}

// cudaStep is what SetArg needs of a recorded kernel launch.
type cudaStep struct {
	k    *kernel
	f    cu.Function
	blob []byte
	offs []int32
	lens []int32
	node cu.GraphNode // 0: not found in the graph
}

// beginCapture starts capturing d's stream into rec. (Face.BeginCapture)
func (d *Device) beginCapture(rec *devkit.Recording) error {
	s := d.s
	if err := s.Enter(); err != nil {
		return err
	}
	defer s.Gate.Leave()
	if err := s.capture.rec.Begin("cuda: "+s.Name, rec); err != nil {
		return err
	}
	s.capture.start = s.Counters.Snapshot()
	if err := cu.BeginCapture(s.ctx, s.stream, cu.CaptureRelaxed); err != nil {
		s.capture.rec.End(rec)
		return fmt.Errorf("cuda: capturing on %s: %w", s.Name, err)
	}
	return nil
}

// endCapture ends the capture and instantiates its graph. (Face.EndCapture)
func (d *Device) endCapture(rec *devkit.Recording) (devkit.Replayer, error) {
	s := d.s
	if err := s.Enter(); err != nil {
		s.capture.rec.End(rec)
		return nil, err
	}
	defer s.Gate.Leave()
	if !s.capture.rec.End(rec) {
		return nil, fmt.Errorf("cuda: EndCapture on %s without its BeginCapture", s.Name)
	}
	staged := s.capture.staged.take()
	g, err := cu.EndCapture(s.ctx, s.stream)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("cuda: ending the capture on %s: %w", s.Name, err), freeStages(s, staged))
	}
	work := s.Counters.Snapshot().Sub(s.capture.start)
	exec, err := cu.GraphInstantiate(s.ctx, g)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("cuda: instantiating the graph on %s: %w", s.Name, err), cu.GraphDestroy(s.ctx, g), freeStages(s, staged))
	}
	r := &graphReplay{s: s, graph: g, exec: exec, work: work, first: true, steps: rec.Steps(), staged: staged}
	if len(staged) > 0 {
		if r.done, err = cu.EventCreate(s.ctx, cu.EventDisableTiming); err != nil {
			return nil, errors.Join(fmt.Errorf("cuda: the graph's event on %s: %w", s.Name, err), r.destroy())
		}
	}
	if err := r.mapNodes(rec); err != nil {
		return nil, errors.Join(err, r.destroy())
	}
	s.capture.graphs.Add(r)
	return r, nil
}

// graphReplay is an instantiated graph.
type graphReplay struct {
	s     *state
	graph cu.Graph
	exec  cu.GraphExec
	work  device.Stats // what the capture counted, counted again by each replay
	first bool         // Record's own launch: counted while recorded
	mu    sync.Mutex
	steps []*devkit.Step
	// staged is the graph's staging of Go memory; done, recorded after
	// each launch, tells destroy when the last launch's host nodes ran.
	staged []*goStage
	done   cu.Event
	// foreign is the kernel nodes no step recorded: launches of other
	// runtimes on the stream (Halide's).
	foreign int
}

// mapNodes finds each recorded launch's node in the graph (same kernel,
// same arguments), for SetArg, and makes the kernel nodes no step
// recorded (other runtimes' launches on the stream: Halide's, cuBLAS's)
// steps of rec whose arguments are their parameters' bytes, so that
// Graph.Scalar finds a pipeline's scalars too.
func (r *graphReplay) mapNodes(rec *devkit.Recording) error {
	nodes, funcs, err := cu.GraphKernels(r.s.ctx, r.graph)
	if err != nil {
		if errors.Is(err, &cu.Error{Code: cu.ErrorNotSupported}) {
			return nil // a driver without the entry points: no scalar updates
		}
		return fmt.Errorf("cuda: the graph's nodes on %s: %w", r.s.Name, err)
	}
	used := make([]bool, len(nodes))
	r.foreign = len(nodes)
	for _, st := range r.steps {
		cs, ok := st.Data.(*cudaStep)
		if !ok {
			continue
		}
		r.foreign--
		for i, n := range nodes {
			if used[i] || funcs[i] != cs.f {
				continue
			}
			same, err := cu.GraphKernelSame(r.s.ctx, n, cs.blob, cs.offs, cs.lens)
			if err != nil {
				return fmt.Errorf("cuda: the graph's nodes on %s: %w", r.s.Name, err)
			}
			if same {
				used[i], cs.node = true, n
				break
			}
		}
	}
	for i, n := range nodes {
		if used[i] {
			continue
		}
		blob, offs, lens, err := cu.GraphKernelParams(r.s.ctx, n, funcs[i])
		if err != nil {
			continue // a driver before 12.4, a library's kernel: counted, no scalars
		}
		args := make([]any, len(offs))
		for j, o := range offs {
			args[j] = slices.Clone(blob[o : o+lens[j]])
		}
		st := &devkit.Step{Name: "another runtime's kernel (Halide's, cuBLAS's)", Args: args,
			Data: &cudaStep{f: funcs[i], blob: blob, offs: offs, lens: lens, node: n}}
		rec.Add(st)
		r.steps = append(r.steps, st)
		r.foreign--
	}
	return nil
}

func (r *graphReplay) Replay() error {
	s := r.s
	if err := s.Enter(); err != nil {
		return err
	}
	defer s.Gate.Leave()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exec == 0 {
		return fmt.Errorf("cuda: replay of a closed graph: %w", ErrClosed)
	}
	for _, st := range r.steps {
		if h, ok := st.Data.(hostRange); ok && !s.Pins.Contains(h.p, h.n) {
			return fmt.Errorf("cuda: the graph's %s moves %d bytes of pinned memory that was freed since the capture (an Array closed): record again: %w", st.Name, h.n, device.ErrOutOfRange)
		}
	}
	if err := cu.GraphLaunch(s.ctx, r.exec, s.stream); err != nil {
		return fmt.Errorf("cuda: launching the graph on %s: %w", s.Name, err)
	}
	if r.first {
		r.first = false
	} else {
		s.Counters.AddWork(r.work)
	}
	if r.done != 0 && s.recording() == nil {
		if err := cu.EventRecord(s.ctx, r.done, s.stream); err != nil {
			// destroy could not tell when this launch is done: wait now
			return errors.Join(fmt.Errorf("cuda: after launching the graph on %s: %w", s.Name, err), cu.StreamSync(s.ctx, s.stream))
		}
	}
	return nil
}

func (r *graphReplay) SetArg(st *devkit.Step, i int, v any) error {
	cs, ok := st.Data.(*cudaStep)
	if !ok || cs.node == 0 {
		return fmt.Errorf("cuda: %s's node was not found in the graph (a driver before 12.0?): %w", st.Name, device.ErrOutOfRange)
	}
	if i < 0 || i >= len(st.Args) {
		return fmt.Errorf("argument %d of %s, which has %d: %w", i, st.Name, len(st.Args), device.ErrOutOfRange)
	}
	s := r.s
	if err := s.Enter(); err != nil {
		return err
	}
	defer s.Gate.Leave()
	r.mu.Lock()
	defer r.mu.Unlock()
	var p packed
	if cs.k == nil { // another runtime's kernel: its parameters' bytes
		b, ok := v.([]byte)
		if !ok || len(b) != int(cs.lens[i]) {
			return fmt.Errorf("cuda: argument %d of %s takes %d bytes, not %T: %w", i, st.Name, cs.lens[i], v, device.ErrOutOfRange)
		}
		copy(cs.blob[cs.offs[i]:], b) // the driver copies the parameters at the call
		p.blob, p.offs = cs.blob, cs.offs
	} else {
		args := slices.Clone(st.Args)
		args[i] = v
		if _, err := p.pack(cs.k.sizes, args); err != nil {
			return fmt.Errorf("cuda: kernel %s on %s: %w", st.Name, s.Name, err)
		}
	}
	if err := cu.GraphExecSetParams(s.ctx, r.exec, cs.node, p.blob, p.offs); err != nil {
		return fmt.Errorf("cuda: kernel %s on %s: %w", st.Name, s.Name, err)
	}
	return devkit.SetStepArg(st, i, v)
}

func (r *graphReplay) Kind() string { return "CUDA graph" }

func (r *graphReplay) Ran() bool { return false }
func (r *graphReplay) Nodes() int {
	return len(r.steps) + max(r.foreign, 0)
}

// Close destroys the graph; after the Device's Close, nothing (its
// shutdown did).
func (r *graphReplay) Close() error {
	s := r.s
	if !s.capture.graphs.Remove(r) {
		return nil
	}
	if err := s.Enter(); err != nil {
		return nil
	}
	defer s.Gate.Leave()
	return r.destroy()
}

func (r *graphReplay) destroy() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exec == 0 {
		return nil
	}
	var errs []error
	if r.done != 0 { // the host nodes of a launch still running use the staging
		errs = append(errs, cu.EventSync(r.s.ctx, r.done), cu.EventDestroy(r.s.ctx, r.done))
	}
	errs = append(errs, cu.GraphExecDestroy(r.s.ctx, r.exec), cu.GraphDestroy(r.s.ctx, r.graph), freeStages(r.s, r.staged))
	r.exec, r.graph, r.done, r.staged = 0, 0, 0, nil
	return errors.Join(errs...)
}

// releaseGraphs destroys the graphs left and frees the staging of a
// capture that never reached its EndCapture (shutdown, after the gate and
// a synchronize).
func (s *state) releaseGraphs() error {
	return errors.Join(s.capture.graphs.Release((*graphReplay).destroy), freeStages(s, s.capture.staged.take()))
}

// BeginClose ends a capture under way as the Device closes (devkit's
// shutdown calls it before the close hooks): its Record fails with
// ErrClosed, and the stream runs work again.
func (s *state) BeginClose() {
	rec := s.recording()
	if rec == nil || !s.capture.rec.End(rec) {
		return
	}
	rec.Refuse(fmt.Errorf("cuda: %s closed during the capture: %w", s.Name, ErrClosed))
	if g, err := cu.EndCapture(s.ctx, s.stream); err == nil {
		cu.GraphDestroy(s.ctx, g)
	}
}

// recording is the active capture's Recording, or nil.
func (s *state) recording() *devkit.Recording { return s.capture.rec.Load() }

// record adds a step while a capture is on and keeps the roots it uses.
func (d *Device) record(name string, args []any, data any, roots ...uintptr) {
	if rec := d.s.recording(); rec != nil {
		rec.Record(&devkit.Step{Name: name, Args: args, Data: data}, d.s.Keep, roots...)
	}
}

// keepRoots keeps roots while a capture is on, adding no step.
func (d *Device) keepRoots(roots ...uintptr) {
	if rec := d.s.recording(); rec != nil {
		for _, h := range roots {
			rec.Keep(h, d.s.Keep(h))
		}
	}
}

// refuse fails work a graph cannot replay, during a capture.
func (s *state) refuse(what string) error {
	if rec := s.recording(); rec != nil {
		return rec.Refuse(fmt.Errorf("cuda: %s on %s during a capture: %w", what, s.Name, device.ErrOutOfRange))
	}
	return nil
}

var _ devkit.ForeignRecorder = (*Device)(nil)

// recording is the capture d's stream records into, nil when none
// (devkit.ForeignRecorder). The stream capture takes the launches other
// runtimes queue on d's stream (Halide's pipeline calls) by itself.
func (d *Device) recording() (*devkit.Recording, func(h uintptr) func() func() error) {
	rec := d.s.capture.rec.Load()
	if rec == nil {
		return nil, nil // no method value: calls outside a capture allocate nothing here
	}
	return rec, d.s.Keep
}
