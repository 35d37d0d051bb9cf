package engine_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops/engine"
)

var captureDrawn = flag.Int("capture.n", 0, "programs per device of TestCaptureDrawn (0: 30, 8 with -short)")

// capOp is one drawn statement of a step over the state x[0..3] (3×4),
// w (4×3), m (3×3) and the input in (3×4).
type capOp struct {
	kind int
	i, j int
	s    float32
}

func (o capOp) String() string {
	return fmt.Sprintf([...]string{"x%[1]d += x%[2]d", "x%[1]d -= x%[2]d", "x%[1]d *= x%[2]d", "x%[1]d = tanh(x%[1]d)",
		"x%[1]d += %.2[3]f·x%[2]d", "x%[1]d *= %.2[3]f", "sum(x%[1]d)", "m = x%[1]d @ w", "x%[1]d += in"}[o.kind], o.i, o.j, o.s)
}

const nCapOps = 9

func drawCapProgram(r *rand.Rand) []capOp {
	p := make([]capOp, 3+r.IntN(7))
	for k := range p {
		p[k] = capOp{kind: r.IntN(nCapOps), i: r.IntN(4), j: r.IntN(4), s: float32(r.IntN(9)-4) / 4}
	}
	return p
}

// capState is one copy of the program's Denses.
type capState struct {
	x     [4]*tensor.Dense
	w, m  *tensor.Dense
	in    *tensor.Dense
	sums  []float64
	write func(d *tensor.Dense, v []float32) // host write of in before a step
}

// run is one step of p on s; each op is tensor's own API, as gorgonia's
// machine calls it.
func (s *capState) run(p []capOp) error {
	s.sums = s.sums[:0]
	for _, o := range p {
		x, y := s.x[o.i], s.x[o.j]
		var err error
		switch o.kind {
		case 0:
			_, err = tensor.Add(x, y, tensor.UseUnsafe())
		case 1:
			_, err = tensor.Sub(x, y, tensor.UseUnsafe())
		case 2:
			_, err = tensor.Mul(x, y, tensor.UseUnsafe())
		case 3:
			_, err = tensor.Tanh(x, tensor.UseUnsafe())
		case 4:
			_, err = tensor.FMA(y, o.s, x)
		case 5:
			_, err = tensor.Mul(x, o.s, tensor.UseUnsafe())
		case 6:
			var r tensor.Tensor
			if r, err = tensor.Sum(x); err == nil {
				s.sums = append(s.sums, float64(r.Data().(float32)))
			}
		case 7:
			_, err = tensor.MatMul(x, s.w, tensor.WithReuse(s.m))
		case 8:
			_, err = tensor.Add(x, s.in, tensor.UseUnsafe())
		}
		if err != nil {
			return fmt.Errorf("%v: %w", o, err)
		}
		if o.kind != 3 && o.kind != 6 && o.kind != 7 {
			// Keep values bounded over many steps.
			if _, err := tensor.Tanh(x, tensor.UseUnsafe()); err != nil {
				return err
			}
		}
	}
	return nil
}

func newCapState(t *testing.T, e *engine.Engine, r *rand.Rand) *capState {
	vals := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.IntN(17)-8) / 8
		}
		return v
	}
	s := &capState{}
	if e == nil {
		mk := func(v []float32, shape ...int) *tensor.Dense {
			return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
		}
		for i := range s.x {
			s.x[i] = mk(vals(12), 3, 4)
		}
		s.w, s.m, s.in = mk(vals(12), 4, 3), mk(make([]float32, 9), 3, 3), mk(make([]float32, 12), 3, 4)
		s.write = func(d *tensor.Dense, v []float32) { copy(d.Data().([]float32), v) }
		return s
	}
	for i := range s.x {
		s.x[i] = onDevice(t, e, vals(12), 3, 4)
	}
	s.w, s.m, s.in = onDevice(t, e, vals(12), 4, 3), onDevice(t, e, make([]float32, 9), 3, 3), onDevice(t, e, make([]float32, 12), 3, 4)
	s.write = func(d *tensor.Dense, v []float32) {
		h, err := engine.Host(d)
		must(t, err)
		copy(h.Data().([]float32), v)
	}
	return s
}

func (s *capState) all() []*tensor.Dense {
	return []*tensor.Dense{s.x[0], s.x[1], s.x[2], s.x[3], s.w, s.m}
}

// TestCaptureDrawn: drawn steps of tensor's API on engine Denses, captured
// once and replayed, against the same steps run eagerly on the same
// device (bit for bit) and on tensor's standard engine (within 1e-5),
// with a new input written before every step: after each replay every
// Dense and every scalar result agree, on device/sim and PoCL.
func TestCaptureDrawn(t *testing.T) {
	n := *captureDrawn
	if n == 0 {
		n = 30
		if testing.Short() {
			n = 8
		}
	}
	devs := []device.Device{sim.NewCompute("capture-drawn", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	}
	for _, dev := range devs {
		t.Run(dev.Name(), func(t *testing.T) {
			for prog := range n {
				r := rand.New(rand.NewPCG(35, uint64(prog)))
				p := drawCapProgram(r)
				seed := r.Uint64()
				e := engine.New(dev)
				capt := newCapState(t, e, rand.New(rand.NewPCG(seed, 1)))
				eager := newCapState(t, e, rand.New(rand.NewPCG(seed, 1)))
				std := newCapState(t, nil, rand.New(rand.NewPCG(seed, 1)))
				inputs := rand.New(rand.NewPCG(seed, 2))
				step := func() []float32 {
					v := make([]float32, 12)
					for k := range v {
						v[k] = float32(inputs.IntN(9)-4) / 4
					}
					return v
				}
				check := func(when string) {
					for k, d := range capt.all() {
						got, eag, ref := hostVals[float32](t, d), hostVals[float32](t, eager.all()[k]), flat[float32](std.all()[k])
						for i := range got {
							if got[i] != eag[i] {
								t.Fatalf("program %d %v, %s: Dense %d [%d] replayed %v, eager %v", prog, p, when, k, i, got[i], eag[i])
							}
						}
						near(t, fmt.Sprintf("program %d %v, %s: Dense %d against the standard engine", prog, p, when, k), got, ref, 1e-5)
					}
				}
				both := func(v []float32) {
					for _, s := range []*capState{eager, std} {
						s.write(s.in, v)
						must(t, s.run(p))
					}
				}
				// One eager warm-up on every side, then Capture (which runs
				// the step once), then replays, a new input before each.
				v := step()
				capt.write(capt.in, v)
				must(t, capt.run(p))
				both(v)
				v = step()
				capt.write(capt.in, v)
				st, err := e.Capture(func() error { return capt.run(p) }, capt.in)
				if err != nil {
					t.Fatalf("program %d %v: Capture: %v", prog, p, err)
				}
				both(v)
				check("after Capture")
				for k := range 3 {
					v = step()
					capt.write(capt.in, v)
					must(t, st.Replay())
					both(v)
					if got := st.Scalars(); fmt.Sprint(got) != fmt.Sprint(eager.sums) {
						t.Fatalf("program %d %v, replay %d: Scalars %v, eager %v", prog, p, k, got, eager.sums)
					}
					check(fmt.Sprintf("replay %d", k))
				}
				must(t, st.Close())
				must(t, e.Close())
			}
		})
	}
}
