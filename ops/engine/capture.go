package engine

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sync"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device/capture"
)

// Step is device work on the engine's Denses recorded once by Capture
// (one gorgonia training step: the machine's run, the solver's update)
// and replayed by Replay with no gorgonia machine, no engine call and no
// planning on the host: one graph launch on CUDA, the recorded kernels
// and copies elsewhere (package device/capture).
type Step struct {
	g    *capture.Graph
	h    *holdings
	mu   sync.Mutex
	held *held
}

// held is what a Capture's work used: the Denses (kept reachable, so the
// machine's registers and results are not collected and reclaimed) and
// the blocks, which are not let go while the Step lives.
type held struct {
	denses []*tensor.Dense
	blocks map[*block]struct{}
	temps  []io.Closer // the engine's temporaries the work used
	// snaps: host memory the work uploaded that is not an input: its
	// bytes then (gorgonia's gradient seed, written on the host into a
	// register the machine reuses later in the step), restored for each
	// replay's upload.
	snaps  []snap
	inputs map[*block]bool
	// scalars: one-element results the work copied home at once (a
	// reduction to a 0-D Dense: gorgonia reads it on the host)
	scalars []scalarAt
}

type scalarAt struct {
	p    uintptr
	kind reflect.Kind
}

// noteScalar records d, a one-element result copied home at once, for
// the Capture running on h.
func (h *holdings) noteScalar(d *tensor.Dense) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.capturing; c != nil {
		c.scalars = append(c.scalars, scalarAt{d.Uintptr(), d.Dtype().Kind()})
	}
}

type snap struct {
	b     *block
	bytes []byte // as the capture uploaded them
	saved []byte // the memory's own bytes during a replay
}

// snapUpload records b's host bytes before the Capture running on h
// uploads them, unless b is one of the Capture's inputs.
func (h *holdings) snapUpload(b *block) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.snapUploadLocked(b)
}

// snapUploadLocked is snapUpload with h.mu held.
func (h *holdings) snapUploadLocked(b *block) {
	c := h.capturing
	if c == nil || c.inputs[b] {
		return
	}
	c.snaps = append(c.snaps, snap{b: b, bytes: slices.Clone(bytesAt(b.start, b.size))})
}

// drop closes t, a temporary of the engine's op, or while a Capture runs
// keeps it for the Step: its replays use its memory.
func (e *Engine) drop(t io.Closer) {
	h := e.h
	h.mu.Lock()
	if c := h.capturing; c != nil {
		c.temps = append(c.temps, t)
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	t.Close()
}

// hold records b and mem for the Capture running on h, if any.
func (h *holdings) hold(b *block, mem tensor.Memory) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.capturing
	if c == nil {
		return
	}
	if d, ok := mem.(*tensor.Dense); ok {
		c.denses = append(c.denses, d)
	}
	if _, ok := c.blocks[b]; !ok {
		c.blocks[b] = struct{}{}
		b.held++
	}
}

// Capture runs step once, recording the device work it queues on the
// engine's device, and returns the Step that queues that work again.
// Run the step eagerly once or twice first (kernels built, GEMM tilings
// tuned, the machine's registers sized). The rules are device/capture's:
// the work must stay on the device (a host fallback, a Halide call or a
// read-back fails Capture with an error wrapping capture.ErrCapture),
// and a replay does only what the device did — host work inside step
// (gorgonia's arithmetic on host scalars, the solver's bookkeeping) is
// not redone, so it must not change between steps (a fixed batch size, a
// fixed learning rate; update scalars with Graph's Scalar through
// Step.Graph). To feed a new batch, write it into the input Dense's host
// memory (Host) before Capture, so that the step uploads it, and again
// before each Replay, and name it among inputs: a replay uploads what
// its memory holds then. Other host memory the step uploads (gorgonia's
// gradient seed) is uploaded as it was during Capture. Where recording
// does not run the work (a CUDA graph runs once, when Capture returns),
// host code inside step that reads a device result (gorgonia's Mean of
// the loss's Sum) sees the value from before the step: read the step's
// results after Capture returns and the device syncs (Scalars, Host).
// While the Step
// lives, the engine keeps every Dense the work used and their memory.
func (e *Engine) Capture(step func() error, inputs ...*tensor.Dense) (*Step, error) {
	h := e.h
	hd := &held{blocks: map[*block]struct{}{}, inputs: map[*block]bool{}}
	for _, d := range inputs {
		_, b, err := h.locate(d)
		if err != nil {
			return nil, fmt.Errorf("engine: Capture: input: %w", err)
		}
		if b == nil {
			return nil, fmt.Errorf("engine: Capture: an input is not memory of the engine (a Dense made WithEngine(e), or Go memory given it)")
		}
		hd.inputs[b] = true
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errClosed("Capture")
	}
	if h.capturing != nil {
		h.mu.Unlock()
		return nil, errors.New("engine: Capture inside a Capture of the same engine")
	}
	for _, b := range h.blocks {
		b.undrop() // a replay's transfers write host copies: never dropped pages
	}
	h.capturing = hd
	h.mu.Unlock()
	g, err := capture.Record(e.dev, step)
	h.mu.Lock()
	h.capturing = nil
	h.mu.Unlock()
	s := &Step{g: g, h: h, held: hd}
	if err != nil {
		s.release()
		return nil, fmt.Errorf("engine: Capture: %w", err)
	}
	return s, nil
}

// Replay runs the recorded work again and waits for it. The step's host
// memory that is not an input gets its recorded bytes back for the
// replay's upload, and its own bytes after it; Denses whose newest values
// the replay left on the device read as they do after an eager step
// (their sentinels: hostwrites.go).
func (s *Step) Replay() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.g == nil {
		return fmt.Errorf("engine: Replay of a closed Step: %w", capture.ErrCapture)
	}
	snaps := s.held.snaps
	for i := range snaps {
		sn := &snaps[i]
		mem := bytesAt(sn.b.start, sn.b.size)
		sn.saved = append(sn.saved[:0], mem...) // reused: no allocation a replay
		copy(mem, sn.bytes)
	}
	err := errors.Join(s.g.Replay(), s.h.dev.Sync())
	for _, sn := range snaps {
		copy(bytesAt(sn.b.start, sn.b.size), sn.saved)
	}
	h := s.h
	h.mu.Lock()
	for b := range s.held.blocks {
		if b.root != nil && b.endsDirty != nil {
			b.arm()
		}
	}
	h.mu.Unlock()
	return err
}

// Scalars are the values of the one-element results the step copied
// home (reductions to a 0-D Dense, Dot of vectors), in the order it made
// them, as the last Replay left them. gorgonia reads such results on the
// host and goes on there (the loss: Mean divides a Sum by the batch size
// on the host), which a replay does not redo: read them here.
func (s *Step) Scalars() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		return nil
	}
	v := make([]float64, len(s.held.scalars))
	for i, sc := range s.held.scalars {
		switch sc.kind {
		case reflect.Float32:
			v[i] = float64(*(*float32)(ptr(sc.p)))
		case reflect.Float64:
			v[i] = *(*float64)(ptr(sc.p))
		default:
			v[i] = math.NaN()
		}
	}
	return v
}

// Graph is the recorded work (its Kind, Nodes, and Scalar to change a
// recorded scalar such as a learning rate).
func (s *Step) Graph() *capture.Graph { return s.g }

// Close releases the recorded work and lets the engine reclaim what it
// kept for it. Idempotent.
func (s *Step) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.g != nil {
		err = s.g.Close()
		s.g = nil
	}
	s.release()
	return err
}

func (s *Step) release() {
	if s.held == nil {
		return
	}
	s.h.mu.Lock()
	for b := range s.held.blocks {
		b.held--
	}
	s.h.mu.Unlock()
	for _, t := range s.held.temps {
		t.Close()
	}
	s.held = nil
}
