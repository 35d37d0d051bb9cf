package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// net is a small convnet built the way gorgonia's examples/convnet is:
// Conv2d → Rectify → MaxPool2D → Reshape → Mul → SoftMax, loss
// −mean(log(softmax) ⊙ onehot), trained by gorgonia's VanillaSolver.
type net struct {
	g        *gorgonia.ExprGraph
	filter   *gorgonia.Node
	w        *gorgonia.Node
	loss     gorgonia.Value
	vm       gorgonia.VM
	solver   gorgonia.Solver
	learn    gorgonia.Nodes
	e        *engine.Engine
	dx, dy   *tensor.Dense
	nb, side int
	// infer switches a BatchNorm to its running statistics
	infer func() error
}

const (
	nBatch, nChan, nSide, nFilt, nClass = 4, 2, 8, 3, 5
)

// netValues are the seeded inputs and initial weights.
func netValues(seed uint64) (x, y, f, w []float32) {
	r := rand.New(rand.NewPCG(seed, 7))
	x = make([]float32, nBatch*nChan*nSide*nSide)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	y = make([]float32, nBatch*nClass)
	for b := range nBatch {
		y[b*nClass+r.IntN(nClass)] = 1
	}
	f = make([]float32, nFilt*nChan*3*3)
	for i := range f {
		f[i] = float32(r.NormFloat64() * 0.3)
	}
	w = make([]float32, nFilt*(nSide/2)*(nSide/2)*nClass)
	for i := range w {
		w[i] = float32(r.NormFloat64() * 0.1)
	}
	return
}

// newNet builds the net on e (nil: tensor's standard engine) with nn's
// ops, or gorgonia's own Conv2d and MaxPool2D (stock).
func newNet(t *testing.T, e *engine.Engine, stock bool, seed uint64) *net {
	return newNetOf(t, e, netCfg{stockConv: stock, stockPool: stock}, seed)
}

// netCfg chooses gorgonia's own Conv2d (stockConv) or MaxPool2D
// (stockPool) one by one; deep puts a device op (x+x) before the
// convolution, as a layer after the first would have.
// learnX trains x too, so that the convolution's gradient w.r.t. its
// input (col2im) runs.
// bn puts a BatchNorm after the convolution: gorgonia's own, or nn's
// with nnBN.
type netCfg struct{ stockConv, stockPool, deep, learnX, bn, nnBN bool }

func newNetOf(t *testing.T, e *engine.Engine, cfg netCfg, seed uint64) *net {
	xv, yv, fv, wv := netValues(seed)
	mk := func(vals []float32, shape ...int) *tensor.Dense {
		if e == nil {
			return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(vals)))
		}
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...), tensor.WithEngine(e))
		h, err := engine.Host(d)
		if err != nil {
			t.Fatal(err)
		}
		copy(h.Data().([]float32), vals)
		return d
	}
	n := &net{g: gorgonia.NewGraph(), e: e}
	g := n.g
	n.dx, n.dy = mk(xv, nBatch, nChan, nSide, nSide), mk(yv, nBatch, nClass)
	x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(nBatch, nChan, nSide, nSide), gorgonia.WithName("x"), gorgonia.WithValue(n.dx))
	y := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(nBatch, nClass), gorgonia.WithName("y"), gorgonia.WithValue(n.dy))
	n.filter = gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(nFilt, nChan, 3, 3), gorgonia.WithName("filter"), gorgonia.WithValue(mk(fv, nFilt, nChan, 3, 3)))
	n.w = gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(nFilt*(nSide/2)*(nSide/2), nClass), gorgonia.WithName("w"), gorgonia.WithValue(mk(wv, nFilt*(nSide/2)*(nSide/2), nClass)))
	conv, pool := Conv2d, MaxPool2D
	if cfg.stockConv {
		conv = gorgonia.Conv2d
	}
	if cfg.stockPool {
		pool = gorgonia.MaxPool2D
	}
	in := x
	if cfg.deep {
		in = gorgonia.Must(gorgonia.Add(x, x))
	}
	c := gorgonia.Must(conv(in, n.filter, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}))
	if cfg.bn {
		cs := c.Shape()
		ones := make([]float32, cs.TotalSize())
		for i := range ones {
			ones[i] = 1
		}
		scale := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(cs...), gorgonia.WithName("scale"), gorgonia.WithValue(mk(ones, cs...)))
		bias := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(cs...), gorgonia.WithName("bias"), gorgonia.WithValue(mk(make([]float32, len(ones)), cs...)))
		var err error
		if cfg.nnBN {
			var op *BatchNormOp
			c, _, _, op, err = BatchNorm(c, scale, bias, 0.9, 1e-5)
			n.infer = func() error { op.SetTraining(false); return nil }
		} else {
			var op *gorgonia.BatchNormOp
			c, _, _, op, err = gorgonia.BatchNorm(c, scale, bias, 0.9, 1e-5)
			n.infer = func() error { return op.SetTraining(false) }
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	a := gorgonia.Must(gorgonia.Rectify(c))
	p := gorgonia.Must(pool(a, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}))
	flat := gorgonia.Must(gorgonia.Reshape(p, tensor.Shape{nBatch, nFilt * (nSide / 2) * (nSide / 2)}))
	out := gorgonia.Must(gorgonia.SoftMax(gorgonia.Must(gorgonia.Mul(flat, n.w))))
	cost := gorgonia.Must(gorgonia.Neg(gorgonia.Must(gorgonia.Mean(gorgonia.Must(gorgonia.HadamardProd(gorgonia.Must(gorgonia.Log(out)), y))))))
	gorgonia.Read(cost, &n.loss)
	n.learn = gorgonia.Nodes{n.filter, n.w}
	if cfg.learnX {
		n.learn = append(n.learn, x)
	}
	if _, err := gorgonia.Grad(cost, n.learn...); err != nil {
		t.Fatal(err)
	}
	opts := []gorgonia.VMOpt{gorgonia.BindDualValues(n.learn...)}
	if e != nil {
		opts = append(opts, gorgonia.WithEngine(e))
	}
	n.vm = gorgonia.NewTapeMachine(g, opts...)
	n.solver = gorgonia.NewVanillaSolver(gorgonia.WithLearnRate(0.1))
	return n
}

// step runs one training step and returns the loss.
func (n *net) step() (float32, error) {
	if err := n.vm.RunAll(); err != nil {
		return 0, err
	}
	if err := n.solver.Step(gorgonia.NodesToValueGrads(n.learn)); err != nil {
		return 0, err
	}
	n.vm.Reset()
	switch v := n.loss.(type) {
	case *gorgonia.F32:
		return float32(*v), nil
	case *tensor.Dense:
		return v.ScalarValue().(float32), nil
	}
	return 0, fmt.Errorf("loss %T", n.loss)
}

// forward runs the graph once, without a solver step, and returns the loss.
func (n *net) forward() (float32, error) {
	if err := n.vm.RunAll(); err != nil {
		return 0, err
	}
	n.vm.Reset()
	switch v := n.loss.(type) {
	case *gorgonia.F32:
		return float32(*v), nil
	case *tensor.Dense:
		return v.ScalarValue().(float32), nil
	}
	return 0, fmt.Errorf("loss %T", n.loss)
}

// weights are filter's and w's values, read home: on the engine through
// a device copy (Clone), since Host(d) would mark d host-newer.
func (n *net) weights(t *testing.T) []float32 {
	var all []float32
	for _, nd := range n.learn {
		d := nd.Value().(*tensor.Dense)
		if n.e != nil {
			h, err := engine.Host(d.Clone().(*tensor.Dense))
			if err != nil {
				t.Fatal(err)
			}
			d = h
		}
		all = append(all, d.Data().([]float32)...)
	}
	return all
}

func relNear(a, b float32) bool {
	return math.Abs(float64(a-b)) <= 1e-4*max(1e-3, math.Abs(float64(b)))
}

func netDevices(t *testing.T) map[string]func() (device.Device, error) {
	return map[string]func() (device.Device, error){
		"sim":    func() (device.Device, error) { return sim.NewCompute("nn", 1<<30), nil },
		"OpenCL": func() (device.Device, error) { return opencl.Default() },
		"CUDA":   func() (device.Device, error) { return cuda.Default() },
	}
}

// TestConvNetMatchesStdEngine: the convnet with nn's Conv2d and MaxPool2D
// on the device engine trains to gorgonia's own convnet on tensor's
// standard engine — losses and weights within 1e-4 relative at every
// step — and from the second step on each step moves only gorgonia's
// gradient seed up and the loss home (one transfer each way), so every
// op ran on the device.
func TestConvNetMatchesStdEngine(t *testing.T) {
	for name, mk := range netDevices(t) {
		for _, cfg := range []netCfg{{}, {deep: true, learnX: true}, {bn: true, nnBN: true, learnX: true}} {
			t.Run(fmt.Sprintf("%s/%+v", name, cfg), func(t *testing.T) { trainBoth(t, mk, cfg, 12) })
		}
	}
}

func trainBoth(t *testing.T, mk func() (device.Device, error), cfg netCfg, steps int) {
	dev, err := mk()
	if err != nil {
		t.Skip(err)
	}
	e := engine.New(dev)
	defer e.Close()
	ref := newNetOf(t, nil, netCfg{stockConv: true, stockPool: true, deep: cfg.deep, learnX: cfg.learnX, bn: cfg.bn}, 1)
	got := newNetOf(t, e, cfg, 1)
	defer ref.vm.Close()
	defer got.vm.Close()
	for s := range steps {
		wl, err := ref.step()
		if err != nil {
			t.Fatal(err)
		}
		before, work := dev.Stats(), e.HostWork()
		_, f0 := uffd.Fills()
		l, err := got.step()
		if err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		// Besides the seed and the loss: gorgonia's registers too small to
		// let their host copies go come home after the ops that write them
		// (the engine doc's "Writing", counted in HostWork), and gorgonia's
		// solver zeroing a gradient whose host copy was let go fills it
		// first (a touch). Without userfaultfd every block comes home, and
		// host-current memory parked between steps goes up again.
		moved, homed := dev.Stats().Sub(before), e.HostWork().Sub(work).Homed
		_, f1 := uffd.Fills()
		fills := int64(f1 - f0)
		if s > 0 && (uffd.Available() && moved.H2DCalls != 1 || moved.D2HCalls-homed-fills != 1 || fills > 4) {
			t.Errorf("step %d moved %d uploads (%d B), %d downloads (%d B): %d small registers, %d fills; want the seed up and the loss home", s, moved.H2DCalls, moved.H2DBytes, moved.D2HCalls, moved.D2HBytes, homed, fills)
		}
		if !relNear(l, wl) {
			t.Fatalf("step %d: loss %v, standard engine %v", s, l, wl)
		}
		gw, ww := got.weights(t), ref.weights(t)
		for i := range ww {
			if !relNear(gw[i], ww[i]) {
				t.Fatalf("step %d: weight %d is %v, standard engine %v", s, i, gw[i], ww[i])
			}
		}
		if s == 0 || s == steps-1 {
			t.Logf("step %d: loss %v (standard engine %v); moved %d up (%d B), %d home (%d B): %d small registers, %d fills", s, l, wl, moved.H2DCalls, moved.H2DBytes, moved.D2HCalls, moved.D2HBytes, homed, fills)
		}
	}
	if cfg.bn {
		// the running statistics: the loss with them (gorgonia's gradient
		// then differs: its inference branch for images reads the batch's)
		if err := ref.infer(); err != nil {
			t.Fatal(err)
		}
		if err := got.infer(); err != nil {
			t.Fatal(err)
		}
		wl, err := ref.forward()
		if err != nil {
			t.Fatal(err)
		}
		l, err := got.forward()
		if err != nil {
			t.Fatal(err)
		}
		if !relNear(l, wl) {
			t.Fatalf("inference: loss %v, standard engine %v", l, wl)
		}
		t.Logf("inference: loss %v (standard engine %v)", l, wl)
	}
}

// TestNNOnStdEngine: nn's ops on tensor's standard engine (package ops'
// host kernels over the Denses' memory) train as gorgonia's own do.
func TestNNOnStdEngine(t *testing.T) {
	for _, cfg := range []netCfg{{deep: true, learnX: true}, {bn: true, nnBN: true, learnX: true}} {
		ref := newNetOf(t, nil, netCfg{stockConv: true, stockPool: true, deep: cfg.deep, learnX: cfg.learnX, bn: cfg.bn}, 1)
		got := newNetOf(t, nil, cfg, 1)
		for s := range 5 {
			wl, err := ref.step()
			if err != nil {
				t.Fatal(err)
			}
			l, err := got.step()
			if err != nil {
				t.Fatalf("%+v step %d: %v", cfg, s, err)
			}
			if !relNear(l, wl) {
				t.Fatalf("%+v step %d: loss %v, gorgonia's ops %v", cfg, s, l, wl)
			}
			gw, ww := got.weights(t), ref.weights(t)
			for i := range ww {
				if !relNear(gw[i], ww[i]) {
					t.Fatalf("%+v step %d: weight %d is %v, gorgonia's ops %v", cfg, s, i, gw[i], ww[i])
				}
			}
		}
		ref.vm.Close()
		got.vm.Close()
	}
}
