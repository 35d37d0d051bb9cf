package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

// Config is one training run.
type Config struct {
	Sizes     []int // input width, hidden widths…, classes
	Batch     int   // examples, all in one fixed batch
	Steps     int
	LearnRate float64
	Seed      uint64
	// Stock: gorgonia's own recipe, unchanged: the loss −mean(Σ y⊙log
	// SoftMax(z)) and gorgonia's VanillaSolver on the device too (it
	// zeroes gradients with Dense.Zero, which the engine sees through its
	// sentinels), instead of the log-sum-exp loss and deviceStep.
	Stock bool
	// Replay: steps 1 and 2 run eagerly, step 3 is recorded
	// (engine.Capture) and every later step replays it: no gorgonia
	// machine, no engine call on the host.
	Replay bool
	// Batches: a new batch of inputs (drawn with the seed plus the step)
	// is written into x before every step from the second on; a replayed
	// step uploads it (x is the Capture's input).
	Batches bool
	// Nudge, when nonzero, moves every initial weight one ulp up or down
	// (drawn from it): rounding noise at its smallest, to measure how far
	// an engine's own runs drift apart (StdSpread).
	Nudge     uint64
	trackLive bool // record Result.Live (collects garbage after each step)
}

// Result is what a run measured.
type Result struct {
	Losses  []float32   // after each step's forward pass
	Weights [][]float32 // after the last step, row-major
	// Moved is the device's transfers over steps 2..N, which run under
	// the transfer guard.
	Moved device.Stats
	// Host is the engine's host-side work over steps 2..N.
	Host engine.HostWork
	// Fills: over steps 2..N, the touches of host copies the engine had
	// let go (gorgonia's solver zeroing a gradient), each filled from the
	// device: one of Moved's D2H transfers.
	Fills int64
	// OnDevice: after the last step every weight's newest copy is on the
	// device (the updates ran there).
	OnDevice bool
	// Replays is the device's counters over the replayed steps
	// (Config.Replay).
	Replays device.Stats
	// Live is the device's live allocations and bytes after each step,
	// when Config.trackLive.
	Live [][2]int64
}

// Train builds the graph (x·w1 → ReLU → … → ·wL → softmax cross-entropy
// against one-hot labels, mean over the batch), differentiates it with
// gorgonia.Grad and runs cfg.Steps steps of a TapeMachine and a vanilla
// SGD solver. With e nil every value is a Dense of tensor's standard
// engine; else of e, and the machine runs WithEngine(e).
func Train(cfg Config, e *engine.Engine) (Result, error) {
	var res Result
	if cfg.Steps < 1 {
		return res, fmt.Errorf("config %+v: want at least 2 sizes, a batch and a step", cfg)
	}
	t, err := newTrainer(cfg, e)
	if err != nil {
		return res, err
	}
	defer t.close()
	var before device.Stats
	var work engine.HostWork
	var fills uint64
	var replay *engine.Step
	var replayed device.Stats // before the first replay
	defer func() {
		if replay != nil {
			replay.Close()
		}
	}()
	for step := 1; step <= cfg.Steps; step++ {
		if step == 2 && e != nil {
			before, work = e.Device().Stats(), e.HostWork()
			_, fills = uffd.Fills()
		}
		var l float32
		var err error
		if cfg.Batches && step >= 2 {
			// Eager steps upload it explicitly (they run under the
			// transfer guard); the recorded step's first use uploads it,
			// and so does every replay.
			if err := t.newBatch(step, !cfg.Replay || step < 3); err != nil {
				return res, err
			}
		}
		switch {
		case e != nil && cfg.Replay && step == 3:
			// The loss as gorgonia's host code computed it during Capture
			// is stale where the recording did not run the work (a CUDA
			// graph runs once Capture returns): read the step's scalar
			// once the device is done, as a replay's.
			if replay, err = e.Capture(func() error { return t.run(false) }, t.x); err == nil {
				if err = e.Device().Sync(); err == nil {
					l, err = t.replayedLoss(replay)
				}
			}
		case replay != nil:
			if step == 4 {
				replayed = e.Device().Stats()
			}
			if err = replay.Replay(); err == nil {
				l, err = t.replayedLoss(replay)
			}
		default:
			l, err = t.step(step >= 2)
		}
		if err != nil {
			return res, fmt.Errorf("step %d: %w", step, err)
		}
		res.Losses = append(res.Losses, l)
		if e != nil && cfg.trackLive {
			// Let the dropped registers' cleanups run: two collections, as
			// memory the engine parked with its host copy let go is freed
			// by the one after its finalizer ends that.
			for range 2 {
				runtime.GC()
				time.Sleep(20 * time.Millisecond)
			}
			s := e.Device().Stats()
			res.Live = append(res.Live, [2]int64{s.AllocsLive, s.BytesLive})
		}
	}
	if e != nil {
		res.Moved, res.Host = e.Device().Stats().Sub(before), e.HostWork().Sub(work)
		_, f := uffd.Fills()
		res.Fills = int64(f - fills)
	}
	if replay != nil {
		res.Replays = e.Device().Stats().Sub(replayed)
	}
	res.OnDevice = e != nil
	for _, w := range t.learnables {
		d := w.Value().(*tensor.Dense)
		if e != nil {
			a, err := engine.Array[float32](e, d)
			if err != nil {
				return res, err
			}
			res.OnDevice = res.OnDevice && a.Device() == device.Device(e.Device()) && a.DeviceDirty()
			if d, err = engine.Host(d); err != nil {
				return res, err
			}
		}
		res.Weights = append(res.Weights, slices.Clone(d.Data().([]float32)))
	}
	return res, nil
}

// trainer is the built graph, its machine and solver: Train and Bench
// run its steps.
type trainer struct {
	cfg        Config
	x          *tensor.Dense  // the inputs' value
	e          *engine.Engine // nil: tensor's standard engine
	g          *gorgonia.ExprGraph
	learnables gorgonia.Nodes
	lossVal    gorgonia.Value
	vm         gorgonia.VM
	solver     gorgonia.Solver
}

// newTrainer builds the graph and the machine of cfg on e (nil: tensor's
// standard engine); cfg.Steps is not used.
func newTrainer(cfg Config, e *engine.Engine) (*trainer, error) {
	if len(cfg.Sizes) < 2 || cfg.Batch < 1 {
		return nil, fmt.Errorf("config %+v: want at least 2 sizes, a batch and a step", cfg)
	}
	t := &trainer{cfg: cfg, e: e}
	xs, ys := Data(cfg)
	newDense := func(vals []float32, shape ...int) (*tensor.Dense, error) {
		if e == nil {
			return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(vals))), nil
		}
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...), tensor.WithEngine(e))
		h, err := engine.Host(d) // written here, uploaded by its first use
		if err != nil {
			return nil, err
		}
		copy(h.Data().([]float32), vals)
		return d, nil
	}

	g := gorgonia.NewGraph()
	t.g = g
	in, classes := cfg.Sizes[0], cfg.Sizes[len(cfg.Sizes)-1]
	xd, err := newDense(xs, cfg.Batch, in)
	if err != nil {
		return nil, err
	}
	yd, err := newDense(ys, cfg.Batch, classes)
	if err != nil {
		return nil, err
	}
	t.x = xd
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(cfg.Batch, in), gorgonia.WithName("x"), gorgonia.WithValue(xd))
	y := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(cfg.Batch, classes), gorgonia.WithName("y"), gorgonia.WithValue(yd))
	h := x
	for k := 0; k+1 < len(cfg.Sizes); k++ {
		wd, err := newDense(Weights(cfg, k), cfg.Sizes[k], cfg.Sizes[k+1])
		if err != nil {
			return nil, err
		}
		w := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(cfg.Sizes[k], cfg.Sizes[k+1]), gorgonia.WithName(fmt.Sprintf("w%d", k+1)), gorgonia.WithValue(wd))
		t.learnables = append(t.learnables, w)
		if h, err = gorgonia.Mul(h, w); err != nil {
			return nil, err
		}
		if k+2 < len(cfg.Sizes) {
			if h, err = gorgonia.Rectify(h); err != nil {
				return nil, err
			}
		}
	}
	lossOf := crossEntropy
	if cfg.Stock {
		lossOf = stockCrossEntropy
	}
	loss, err := lossOf(h, y, cfg.Batch)
	if err != nil {
		return nil, err
	}
	if _, err := gorgonia.Grad(loss, t.learnables...); err != nil {
		return nil, err
	}
	gorgonia.Read(loss, &t.lossVal)

	opts := []gorgonia.VMOpt{gorgonia.BindDualValues(t.learnables...)}
	if e != nil {
		opts = append(opts, gorgonia.WithEngine(e))
	}
	t.vm = gorgonia.NewTapeMachine(g, opts...)
	t.solver = gorgonia.NewVanillaSolver(gorgonia.WithLearnRate(cfg.LearnRate))
	return t, nil
}

// step runs one training step (forward, backward, SGD update) and returns
// its loss. guard: on the device engine the forward, backward and update
// run under the transfer guard (any automatic copy fails the step); the
// loss's read home after them is the one allowed, counted D2H. Only where
// results stay on the device: without userfaultfd each call's come home,
// and memory parked between steps goes up again (the engine's doc).
func (t *trainer) step(guard bool) (float32, error) {
	if err := t.run(guard); err != nil {
		return 0, err
	}
	return t.loss()
}

// run queues the forward and backward passes and the update.
func (t *trainer) run(guard bool) error {
	if t.e != nil {
		was := device.SetDeviceGuard(t.e.Device(), guard && uffd.Available())
		defer device.SetDeviceGuard(t.e.Device(), was)
	}
	if err := t.vm.RunAll(); err != nil {
		return err
	}
	if t.e == nil || t.cfg.Stock {
		return t.solver.Step(gorgonia.NodesToValueGrads(t.learnables))
	}
	return deviceStep(t.e, t.learnables, t.cfg.LearnRate)
}

// loss reads the step's loss home and resets the machine for the next.
func (t *trainer) loss() (float32, error) {
	l, err := scalar(t.lossVal)
	if err != nil {
		return 0, fmt.Errorf("loss: %w", err)
	}
	t.vm.Reset()
	return l, nil
}

func (t *trainer) close() { t.vm.Close() }

// newBatch writes the inputs of step into x, and uploads them.
func (t *trainer) newBatch(step int, upload bool) error {
	c := t.cfg
	c.Seed += uint64(step)
	xs, _ := Data(c)
	x := t.x
	if t.e != nil {
		var err error
		if x, err = engine.Host(x); err != nil {
			return err
		}
	}
	copy(x.Data().([]float32), xs)
	if t.e == nil || !upload {
		return nil
	}
	a, err := engine.Array[float32](t.e, t.x)
	if err != nil {
		return err
	}
	return ops.On(t.e.Device(), a)
}

// replayedLoss is the loss of a replayed step: the sum over the batch
// (the step's one scalar the device computed, copied home), divided as
// gorgonia's Mean does on the host, and negated for the stock loss.
func (t *trainer) replayedLoss(s *engine.Step) (float32, error) {
	v := s.Scalars()
	if len(v) != 1 {
		return 0, fmt.Errorf("the recorded step copied %d scalars home, want 1 (the loss's sum)", len(v))
	}
	sign := float32(1)
	if t.cfg.Stock {
		sign = -1
	}
	return sign * float32(v[0]) / float32(t.cfg.Batch), nil
}

// crossEntropy is the mean over the batch of softmax cross-entropy:
// log Σ_j exp(z_ij) − Σ_j y_ij·z_ij for one-hot y.
func crossEntropy(z, y *gorgonia.Node, batch int) (*gorgonia.Node, error) {
	ez, err := gorgonia.Exp(z)
	if err != nil {
		return nil, err
	}
	se, err := gorgonia.Sum(ez, 1)
	if err != nil {
		return nil, err
	}
	lse, err := gorgonia.Log(se)
	if err != nil {
		return nil, err
	}
	yz, err := gorgonia.HadamardProd(y, z)
	if err != nil {
		return nil, err
	}
	picked, err := gorgonia.Sum(yz, 1)
	if err != nil {
		return nil, err
	}
	per, err := gorgonia.Sub(lse, picked)
	if err != nil {
		return nil, err
	}
	return gorgonia.Mean(per)
}

// stockCrossEntropy is the loss as gorgonia's examples write it:
// −mean over the batch of Σ_j y_ij·log softmax(z)_ij.
func stockCrossEntropy(z, y *gorgonia.Node, _ int) (*gorgonia.Node, error) {
	p, err := gorgonia.SoftMax(z)
	if err != nil {
		return nil, err
	}
	logp, err := gorgonia.Log(p)
	if err != nil {
		return nil, err
	}
	yl, err := gorgonia.HadamardProd(y, logp)
	if err != nil {
		return nil, err
	}
	per, err := gorgonia.Sum(yl, 1)
	if err != nil {
		return nil, err
	}
	m, err := gorgonia.Mean(per)
	if err != nil {
		return nil, err
	}
	return gorgonia.Neg(m)
}

// scalar reads a scalar Value: gorgonia's own scalar, or a 0-D Dense.
func scalar(v gorgonia.Value) (float32, error) {
	switch v := v.(type) {
	case *gorgonia.F32:
		return float32(*v), nil
	case *tensor.Dense:
		if _, ok := v.Engine().(*engine.Engine); ok {
			h, err := engine.Host(v)
			if err != nil {
				return 0, err
			}
			v = h
		}
		switch x := v.Data().(type) {
		case float32:
			return x, nil
		case []float32:
			if len(x) == 1 {
				return x[0], nil
			}
		}
	}
	return 0, fmt.Errorf("the loss is a %T, not a float32 scalar", v)
}

// Data is the synthetic, deterministic dataset: inputs uniform in [0, 1),
// labels the argmax of a fixed random linear map of them (learnable), as
// one-hot rows.
func Data(cfg Config) (xs, ys []float32) {
	in, classes := cfg.Sizes[0], cfg.Sizes[len(cfg.Sizes)-1]
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	proj := make([]float32, in*classes)
	for i := range proj {
		proj[i] = float32(rng.NormFloat64())
	}
	xs = make([]float32, cfg.Batch*in)
	ys = make([]float32, cfg.Batch*classes)
	for b := range cfg.Batch {
		row := xs[b*in : (b+1)*in]
		for i := range row {
			row[i] = rng.Float32()
		}
		best, bestV := 0, float32(math.Inf(-1))
		for c := range classes {
			var s float32
			for i, v := range row {
				s += v * proj[i*classes+c]
			}
			if s > bestV {
				best, bestV = c, s
			}
		}
		ys[b*classes+best] = 1
	}
	return xs, ys
}

// Weights are layer k's initial weights (Glorot uniform), row-major
// sizes[k] × sizes[k+1].
func Weights(cfg Config, k int) []float32 {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(100+k)))
	fanIn, fanOut := cfg.Sizes[k], cfg.Sizes[k+1]
	lim := math.Sqrt(6 / float64(fanIn+fanOut))
	w := make([]float32, fanIn*fanOut)
	for i := range w {
		w[i] = float32((2*rng.Float64() - 1) * lim)
	}
	if cfg.Nudge != 0 {
		up := rand.New(rand.NewPCG(cfg.Nudge, uint64(k)))
		for i, v := range w {
			w[i] = math.Nextafter32(v, float32(2*up.IntN(2)-1))
		}
	}
	return w
}

// StdSpread trains cfg on tensor's standard engine once as given and
// once per nudge (Config.Nudge: every initial weight one ulp away) and
// returns each nudged run's Compare with the first: how far rounding
// alone moves this training. A ReLU whose input sits within rounding of
// zero takes the other branch, and the step's gradient changes at once;
// an engine that sums in another order (split-K, FMA, cuBLAS) meets the
// same, so its difference from the standard engine is judged against
// this spread.
func StdSpread(cfg Config, nudges ...uint64) (loss, weights []float64, err error) {
	cfg.Nudge = 0
	ref, err := Train(cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range nudges {
		cfg.Nudge = n
		r, err := Train(cfg, nil)
		if err != nil {
			return nil, nil, err
		}
		l, w := r.Compare(ref)
		loss, weights = append(loss, l), append(weights, w)
	}
	return loss, weights, nil
}

// Compare returns the largest relative difference of the losses and the
// largest absolute weight difference relative to the largest |weight|.
func (r Result) Compare(s Result) (loss, weights float64) {
	for i := range min(len(r.Losses), len(s.Losses)) {
		d := math.Abs(float64(r.Losses[i]-s.Losses[i])) / max(math.Abs(float64(s.Losses[i])), 1e-30)
		loss = max(loss, d)
	}
	for k := range min(len(r.Weights), len(s.Weights)) {
		var big, diff float64
		for i := range s.Weights[k] {
			big = max(big, math.Abs(float64(s.Weights[k][i])))
			diff = max(diff, math.Abs(float64(r.Weights[k][i]-s.Weights[k][i])))
		}
		weights = max(weights, diff/big)
	}
	return loss, weights
}

// deviceStep is gorgonia's VanillaSolver.Step (no regularisation,
// clipping or batch scaling: w += -η·g, one tensor.FMA kernel, then
// g = 0) with the gradient zeroed through the engine. VanillaSolver zeroes it with Dense.Zero,
// which writes host memory behind the engine's back: the device copy,
// where the next backward pass accumulates, would keep the old gradient.
func deviceStep(e *engine.Engine, learnables gorgonia.Nodes, lr float64) error {
	for _, n := range learnables {
		gv, err := n.Grad()
		if err != nil {
			return err
		}
		w, g := n.Value().(*tensor.Dense), gv.(*tensor.Dense)
		if _, err := tensor.FMA(g, float32(-lr), w); err != nil { // w += -η·g, one kernel
			return err
		}
		if err := e.Memset(g, float32(0)); err != nil {
			return err
		}
	}
	return nil
}
