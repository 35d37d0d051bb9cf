package ops

import (
	bin "encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/internal/draw"
)

// saveReduceTuning restores the reduction variables when the test ends.
func saveReduceTuning(t *testing.T) {
	one, gpu, wg, u, fg := reduceOnePass, reduceGroupsPerUnit, reduceWG, reduceUnroll, finGroup
	fence, inject := redFence, redFenceInject
	t.Cleanup(func() {
		reduceOnePass, reduceGroupsPerUnit, reduceWG, reduceUnroll, finGroup = one, gpu, wg, u, fg
		redFence, redFenceInject = fence, inject
	})
}

// reduceLaunches is how many launches a reduction of m outputs of L
// elements makes on s under the current variables: the rows kernel, or
// the one-pass kernel (after red_clear when the counters grow), or the
// part pass and a join.
func reduceLaunches(s devRef, m, L int) int {
	if _, rows := s.reducePlan(m, L); rows {
		return 1
	}
	if !s.onePass() {
		return 2
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.countersN < m {
		return 2
	}
	return 1
}

// onePassCase draws one reduction (op, layout, extents, the dimension,
// the tuning variables), runs it on d with the one-pass path and with the
// two-pass one, each twice with the input changed on the device in
// between (so that a counter not set back to zero, or a stale partial,
// shows), and compares every result with the host's; launches are
// counted, which tells the paths apart.
func onePassCase[T array.Elem](t *testing.T, d *opencl.Device, r *rand.Rand, i int) {
	s := stateOf(d)
	reduceGroupsPerUnit = 1 << r.IntN(7)
	reduceWG = 1 << r.IntN(9)
	reduceUnroll = 1 << r.IntN(4)
	finGroup = []int{2, 32}[r.IntN(2)]
	ops := []reduceOp{redSum, redMean, redMin, redMax, redProd}
	op := ops[r.IntN(len(ops))]
	rank := 1 + r.IntN(2)
	ext := make([]int, rank)
	for k := range ext {
		// log-uniform up to 2^17 elements in all
		ext[k] = 1 + int(math.Exp(r.Float64()*math.Log(float64(int(1)<<(17/rank)))))
	}
	if op == redProd {
		for k := range ext {
			ext[k] = min(ext[k], 700)
		}
	}
	dim := r.IntN(rank)
	layout := devLayouts[r.IntN(len(devLayouts))]
	seed := r.Uint64()
	vals := func() func() T {
		g := rand.New(rand.NewPCG(seed, 2))
		if op == redProd { // products exact in any order: ±1, 2, 0.5 (or ±1, 2)
			return func() T {
				v := []float64{1, -1, 2, 0.5}[g.IntN(4)]
				if kindOf[T]() != kFloat && v == 0.5 {
					v = 1
				}
				return T(v)
			}
		}
		return gen[T](g, false)
	}
	ha := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, vals())
	da := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, vals())
	must(t, On(d, da))
	oext := append(append([]int(nil), ext[:dim]...), ext[dim+1:]...)
	m, L := 1, ext[dim]
	for _, e := range oext {
		m *= e
	}
	what := fmt.Sprintf("case %d: %s of %v %s along %d (G/unit %d, wg %d, unroll %d)",
		i, reduceNames[op], ext, layout, dim, reduceGroupsPerUnit, s.redWG(), reduceUnroll)
	tol := devTol[T]()
	if tol != 0 {
		tol *= 4
	}
	for _, one := range []bool{true, false} {
		reduceOnePass = one
		for round := range 2 {
			hd, dd := array.New[T](oext...), array.New[T](oext...)
			must(t, On(d, dd))
			want := reduceLaunches(s, m, L)
			before := d.Stats()
			must(t, reduce(op, hd, ha, dim))
			must(t, reduce(op, dd, da, dim))
			if got := d.Stats().Sub(before).Launches; got != int64(want) {
				t.Errorf("%s, one-pass %v: %d launches, want %d", what, one, got, want)
			}
			checkSame(t, fmt.Sprintf("%s, one-pass %v, round %d", what, one, round), dd, hd, tol)
			if op == redSum || op == redMin {
				hv, err := reduceAllValue(op, ha)
				must(t, err)
				dv, err := reduceAllValue(op, da)
				must(t, err)
				if !closeTo(dv, hv, tol) {
					t.Errorf("%s, one-pass %v: %sAll on the device %v, on the host %v", what, one, reduceNames[op], dv, hv)
				}
			}
			if op != redProd { // the next round's input: changed on the device
				must(t, BinaryScalar(ha, ha, T(1), OpAdd))
				must(t, BinaryScalar(da, da, T(1), OpAdd))
			}
			hd.Close()
			dd.Close()
		}
	}
}

// TestDeviceReduceOnePass: reductions whose last work-group joins the
// partials (red_*_one) agree with the host over drawn ops, layouts,
// extents and tuning (work-groups per unit, work-group size, unroll), on
// PoCL, where the work-groups of one launch run on several threads; the
// same cases through the two-pass path (fin and fing) agree too, and
// launches tell the paths apart (one against two).
func TestDeviceReduceOnePass(t *testing.T) {
	drawOnePass(t, 11, 48, 8, onePassCase[float32], onePassCase[int32], onePassCase[float64])
}

// drawOnePass runs n drawn cases (short under -short or -race; each is
// new kernel builds) on the test device, case i through
// cases[i%len(cases)] (one per element type), with the reduction tuning
// restored afterwards. The cases come from the run's seed (package draw)
// mixed with seed, so each day's run draws others.
func drawOnePass(t *testing.T, seed uint64, n, short int, cases ...func(t *testing.T, d *opencl.Device, r *rand.Rand, i int)) {
	d := testDev(t)
	saveReduceTuning(t)
	r := rand.New(rand.NewPCG(draw.Seed(t), seed+1))
	if (testing.Short() || raceEnabled) && !draw.All() {
		n = short
	}
	for i := range n {
		cases[i%len(cases)](t, d, r, i)
	}
}

// oneDevice is a kernel device ops' tests run reductions on, and waits on.
type oneDevice interface {
	device.Kernels
	Sync() error
}

// onePassRepeated queues rounds of (Fill x with k, Sum x into element k of
// dst) with no wait between them, then reads dst: each round's sum must
// be n·k. Every round runs the one-pass kernel over the same partials and
// counter, so a last work-group that read a partial of the round before,
// or a counter not set back to zero (that round's sum then never
// written), gives a wrong element.
func onePassRepeated(t *testing.T, d oneDevice, n, rounds int) {
	x, dst := array.New[float32](n), array.New[float32](rounds)
	defer x.Close()
	defer dst.Close()
	must(t, On(d, x, dst))
	s := stateOf(d)
	G, rows := s.reducePlan(1, n)
	if rows || G < 2 {
		t.Fatalf("Sum of %d elements on %s: G = %d, rows %v: not the one-pass path", n, d.Name(), G, rows)
	}
	before := d.Stats()
	for k := range rounds {
		must(t, Fill(x, float32(k)))
		must(t, Sum(dst.Slice(0, k), x, -1))
	}
	must(t, d.Sync())
	if got, want := d.Stats().Sub(before).Launches, int64(2*rounds); got > want+1 || got < want {
		t.Errorf("%d rounds of Fill and Sum: %d launches, want %d (one a Sum; one more where the counters were first made)", rounds, got, want)
	}
	checkRounds(t, d, dst, fmt.Sprintf("Sum (n %d, G %d)", n, G), func(k int) float32 { return float32(n) * float32(k) })
}

// checkRounds checks each element k of dst (a round's result) against
// want(k), listing the first five wrong ones.
func checkRounds(t *testing.T, d oneDevice, dst *array.Array[float32], what string, want func(k int) float32) {
	t.Helper()
	v, err := dst.HostReadOnly()
	must(t, err)
	rounds, bad := dst.Len(), 0
	for k := range rounds {
		if w := want(k); v.At(k) != w {
			if bad++; bad <= 5 {
				t.Errorf("%s, round %d of %d: %v, want %v", what, k, rounds, v.At(k), w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d rounds wrong on %s", what, bad, rounds, d.Name())
	}
}

// TestDeviceReduceOnePassRepeated runs onePassRepeated on the OpenCL
// device and, where there is one with kernels, the CUDA device: on a GPU
// (the H200) 2^24 elements over 300 rounds, as in BenchmarkOps' Sum.
func TestDeviceReduceOnePassRepeated(t *testing.T) {
	saveReduceTuning(t)
	reduceOnePass = true
	onKernelDevices(t, onePassRepeated)
}

// onKernelDevices runs f on the OpenCL test device and, where there is
// one with kernels, the CUDA device, with n elements over rounds rounds:
// 2^15 × 40, or 2^24 × 300 on a GPU.
func onKernelDevices(t *testing.T, f func(t *testing.T, d oneDevice, n, rounds int)) {
	run := func(t *testing.T, d oneDevice) {
		n, rounds := 1<<15, 40
		if d.Caps().Units >= 32 { // a GPU
			n, rounds = 1<<24, 300
		}
		f(t, d, n, rounds)
	}
	t.Run("opencl", func(t *testing.T) { run(t, testDev(t)) })
	t.Run("cuda", func(t *testing.T) {
		d, err := cudaKernels()
		if err != nil {
			t.Skip(err)
		}
		run(t, d)
	})
}

// failKernels is a kernel device whose Malloc or Enqueue fails on demand.
type failKernels struct {
	*opencl.Device
	malloc, enqueue bool
}

var errInjected = errors.New("injected device failure")

func (f *failKernels) Malloc(n int) (device.Allocation, error) {
	if f.malloc {
		return nil, errInjected
	}
	return f.Device.Malloc(n)
}

func (f *failKernels) Enqueue(k device.Kernel, g device.Grid, args []any) error {
	if f.enqueue {
		return errInjected
	}
	return f.Device.Enqueue(k, g, args)
}

// TestReduceCountersFailure: when the counters cannot be allocated, or
// red_clear cannot be queued, countersFor returns the error and holds
// nothing (no allocation left live); a later call makes them, zeroed, and
// a larger m replaces them without a leak.
func TestReduceCountersFailure(t *testing.T) {
	testDev(t)
	cl, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer cl.Close()
	f := &failKernels{Device: cl}
	s := stateOf(f)
	p, err := s.typeProgram("red", array.TypeOf[float32]())
	must(t, err)
	live := cl.Stats().AllocsLive
	for _, c := range []struct {
		name            string
		malloc, enqueue bool
	}{{"Malloc", true, false}, {"Enqueue", false, true}} {
		f.malloc, f.enqueue = c.malloc, c.enqueue
		s.scratchMu.Lock()
		_, err := s.countersFor(p, 10)
		s.scratchMu.Unlock()
		if !errors.Is(err, errInjected) {
			t.Errorf("%s fails: countersFor = %v, want the injected error", c.name, err)
		}
		if s.counters != nil || s.countersN != 0 || cl.Stats().AllocsLive != live {
			t.Errorf("%s fails: counters %v (%d), %d allocations live, want none and %d", c.name, s.counters, s.countersN, cl.Stats().AllocsLive, live)
		}
	}
	f.malloc, f.enqueue = false, false
	for _, m := range []int{10, 5000} {
		s.scratchMu.Lock()
		buf, err := s.countersFor(p, m)
		s.scratchMu.Unlock()
		must(t, err)
		if s.countersN < m || cl.Stats().AllocsLive != live+1 {
			t.Errorf("m %d: %d counters, %d allocations live, want ≥ m and %d", m, s.countersN, cl.Stats().AllocsLive, live+1)
		}
		b := make([]byte, 4*s.countersN)
		must(t, cl.ReadBytes(b, buf, 0))
		for i := 0; i < len(b); i += 4 {
			if v := bin.LittleEndian.Uint32(b[i:]); v != 0 {
				t.Fatalf("m %d: counter %d is %d, want 0", m, i/4, v)
			}
		}
	}
}

// TestDeviceReduceFenceFallback: where the one-pass kernels' fence does
// not build (forced on PoCL with an #error), the reduction program is
// built without it, the reason is kept, and reductions take the two-pass
// path (two launches) with the host's values.
func TestDeviceReduceFenceFallback(t *testing.T) {
	testDev(t)
	saveReduceTuning(t)
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer d.Close()
	redFence = func(device.Kernels) bool { return true }
	redFenceInject = "#error injected: no fence here\n"
	reduceOnePass = true
	const n = 5000
	x, s0 := array.New[float32](n), array.New[float32]()
	defer x.Close()
	defer s0.Close()
	must(t, Fill(x, 0.5))
	must(t, On(d, x, s0))
	for range 2 {
		before := d.Stats()
		must(t, Sum(s0, x, -1))
		if got := d.Stats().Sub(before).Launches; got != 2 {
			t.Errorf("Sum without the fence: %d launches, want the two-pass path's 2", got)
		}
		v, err := s0.HostReadOnly()
		must(t, err)
		if v.At() != n/2 {
			t.Errorf("Sum = %v, want %v", v.At(), n/2)
		}
	}
	s := stateOf(d)
	if s.onePass() || s.fenceErr == nil || !strings.Contains(s.fenceErr.Error(), "injected") {
		t.Errorf("one-pass %v, fence error %v: want off, with the build's error", s.onePass(), s.fenceErr)
	}
}
