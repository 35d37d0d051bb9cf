package closerace_test

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

var rounds = flag.Int("rounds", 0, "racing rounds per device (0: 12, 4 under -short)")

func nRounds() int {
	switch {
	case *rounds > 0:
		return *rounds
	case testing.Short():
		return 4
	}
	return 12
}

// kind is one kind of work a goroutine does on the device.
type kind int

const (
	kOp       kind = iota // ops.AddScalar, f += 1
	kFused                // ops.Eval of In(f)+2
	kReduce               // ops.SumAll(f)
	kUpload               // f.CopyToDevice
	kDownload             // f.HostReadOnly: values checked against the model
	kMalloc               // Malloc, a transfer in, Free
	kSync                 // Device.Sync
	kPipeline             // brighter on the device: u2 = u+1
	kStream               // stream.Run of brighter: u2 = u+1
	kEngine               // the gorgonia engine: x·2
	nKinds
)

var kindNames = [...]string{"op", "fused", "reduce", "upload", "download", "malloc", "sync", "pipeline", "stream", "engine"}

func (k kind) String() string { return kindNames[k] }

// vals is the set of values a uniform Array may hold: a call that
// completed moved every value; one refused may or may not have.
type vals []float64

func (v vals) add(k float64, done bool) vals {
	out := slices.Clone(v)
	if done {
		out = out[:0]
	}
	for _, x := range v {
		if !slices.Contains(out, x+k) {
			out = append(out, x+k)
		}
	}
	return out
}

// place is a device under test and the kinds of work it runs.
type place struct {
	name  string
	open  func() (device.Device, error)
	kinds []kind
}

func places(t *testing.T) []place {
	all := []kind{kOp, kFused, kReduce, kUpload, kDownload, kMalloc, kSync, kPipeline, kStream, kEngine}
	ps := []place{{name: "sim", open: func() (device.Device, error) { return sim.NewCompute("race", 0), nil },
		kinds: []kind{kOp, kFused, kReduce, kUpload, kDownload, kMalloc, kSync, kEngine}}}
	if cudatest.InChild() {
		// The mock driver copies but runs no kernel: transfers,
		// allocations, syncs and streamed device copies.
		return []place{{name: "cuda-mock", open: func() (device.Device, error) { return cuda.Open(cuda.Options{}) },
			kinds: []kind{kUpload, kDownload, kMalloc, kSync, kStream}}}
	}
	if d, err := cuda.Open(cuda.Options{}); err == nil {
		d.Close() // a real GPU: ops' kernels through NVRTC where it loads
		ps = append(ps, place{name: "cuda", open: func() (device.Device, error) { return cuda.Open(cuda.Options{}) },
			kinds: []kind{kOp, kFused, kReduce, kUpload, kDownload, kMalloc, kSync, kStream, kEngine}})
	}
	if d, err := opencl.Open(opencl.Options{}); err == nil {
		d.Close()
		ps = append(ps, place{name: "opencl", open: func() (device.Device, error) { return opencl.Open(opencl.Options{}) }, kinds: all})
	} else {
		t.Logf("no OpenCL device (%v): sim only", err)
	}
	return ps
}

// TestCloseRacesWork: for each device, rounds of goroutines running drawn
// sequences of work while another goroutine closes the device after a
// drawn number of steps. Every call completes or fails with an error
// wrapping device.ErrClosed; nothing panics; each Array's values are ones
// the model allows; after Close and the Arrays' Close, no device memory
// is held.
func TestCloseRacesWork(t *testing.T) {
	base := draw.Seed(t) // the run's: each day's rounds are new ones
	for _, p := range places(t) {
		t.Run(p.name, func(t *testing.T) {
			for r := range nRounds() {
				seed := base*1_000_003 + uint64(r)*7919 + uint64(len(p.name))
				if !raceRound(t, p, seed) {
					t.Fatalf("round %d (seed %d, -draw.seed %d) failed", r, seed, base)
				}
			}
		})
	}
}

// TestCloseRacesWorkCUDAMock runs TestCloseRacesWork in a child process on
// device/cuda's mock driver.
func TestCloseRacesWorkCUDAMock(t *testing.T) {
	cudatest.InMock(t, true, []string{"TestCloseRacesWork"}, []string{fmt.Sprintf("-rounds=%d", nRounds()), fmt.Sprintf("-draw.seed=%d", draw.Seed(t))})
}

func raceRound(t *testing.T, p place, seed uint64) bool {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	d, err := p.open()
	if err != nil {
		t.Fatal(err)
	}
	workers := 2 + rng.IntN(4)
	steps := 4 + rng.IntN(8)
	closeAt := int64(rng.IntN(workers*steps + 1))
	plans := make([][]kind, workers)
	for w := range plans {
		for range steps {
			plans[w] = append(plans[w], p.kinds[rng.IntN(len(p.kinds))])
		}
	}
	var done atomic.Int64
	var wg sync.WaitGroup
	ok := true
	var mu sync.Mutex
	fail := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		ok = false
		t.Errorf("seed %d: "+format, append([]any{seed}, a...)...)
	}
	ws := make([]*worker, workers)
	for i := range ws {
		ws[i] = newWorker(d, 8+rng.IntN(200))
		if err := ws[i].place(); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan error, 1)
	go func() {
		for done.Load() < closeAt {
			if !ok {
				break
			}
			runtime.Gosched()
		}
		closed <- d.Close()
	}()
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s, k := range plans[i] {
				func() {
					defer func() {
						if v := recover(); v != nil {
							fail("worker %d step %d (%v of %v): panic: %v\n%s", i, s, k, plans[i], v, debug.Stack())
						}
					}()
					if err := w.do(k); err != nil && !errors.Is(err, device.ErrClosed) {
						var be *opencl.BuildError
						if errors.As(err, &be) {
							err = fmt.Errorf("%w\n%s", err, be.Log())
						}
						fail("worker %d step %d (%v of %v): %v does not wrap device.ErrClosed", i, s, k, plans[i], err)
					}
				}()
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if err := <-closed; err != nil {
		fail("Close: %v", err)
	}
	for i, w := range ws {
		if err := w.check(); err != nil {
			fail("worker %d (%v): %v", i, plans[i], err)
		}
		w.close()
	}
	if s := d.Stats(); s.AllocsLive != 0 || s.BytesLive != 0 {
		fail("after Close: %d allocations (%d bytes) live", s.AllocsLive, s.BytesLive)
	}
	if p.name == "cuda-mock" { // NoLeak reads the mock's exact accounting

		cudatest.NoLeak(t, "allocations, streams or events of a closed device")
	}
	return ok
}

// worker owns its Arrays: goroutines never share one, so every value is
// the model's.
type worker struct {
	d     device.Device
	n     int
	f     *array.Array[float32]
	fv    vals
	u, u2 *array.Array[uint8]
	uv    vals // u's; u2 holds u+1 after a pipeline or stream
	u2v   vals
	e     *engine.Engine
}

func newWorker(d device.Device, n int) *worker {
	w := &worker{d: d, n: n, f: array.New[float32](n), u: array.New[uint8](n, 4), u2: array.New[uint8](n, 4),
		fv: vals{0}, uv: vals{0}, u2v: vals{0}}
	fill(w.f, 0)
	fill(w.u, 0)
	fill(w.u2, 0)
	return w
}

func fill[T array.Elem](a *array.Array[T], v T) {
	h, err := a.Host()
	if err != nil {
		panic(err)
	}
	h.Fill(v)
}

// place puts the worker's Arrays on the device before the race.
func (w *worker) place() error {
	if err := w.f.CopyToDevice(w.d); err != nil {
		return err
	}
	if err := w.u.CopyToDevice(w.d); err != nil {
		return err
	}
	return w.u2.CopyToDevice(w.d)
}

func (w *worker) do(k kind) error {
	switch k {
	case kOp:
		err := ops.BinaryScalar(w.f, w.f, 1, ops.OpAdd)
		w.fv = w.fv.add(1, err == nil)
		return err
	case kFused:
		err := ops.Eval(w.f, ops.In(w.f).Binary(ops.OpAdd, ops.Const[float32](2)))
		w.fv = w.fv.add(2, err == nil)
		return err
	case kReduce:
		s, err := ops.Value(ops.Sum, w.f)
		if err == nil && !slices.Contains(w.fv, float64(s)/float64(w.n)) {
			return fmt.Errorf("SumAll gave %v, the model allows %v each over %d", s, w.fv, w.n)
		}
		return err
	case kUpload:
		return w.f.CopyToDevice(w.d)
	case kDownload:
		h, err := w.f.HostReadOnly()
		if err != nil {
			return err
		}
		return uniform(h.Data(), w.fv)
	case kMalloc:
		a, err := w.d.Malloc(w.n)
		if err != nil {
			return err
		}
		err = w.d.CopyIn(a, 0, make([]byte, w.n), device.Region{ElemSize: 1, Shape: []device.Span{{Extent: w.n, Stride: 1}}})
		return errors.Join(err, w.d.Free(a))
	case kSync:
		return w.d.Sync()
	case kPipeline:
		err := brighter.BrighterPipeline.CallWith(halide.Options{Device: w.d}, w.u, uint8(1), w.u2)
		w.u2v = shift(w.u2v, w.uv, err == nil)
		return err
	case kStream:
		step := stream.Op("copy+0", func(out, in *array.Array[uint8]) error { return ops.Copy(out, in) })
		if w.canPipeline() {
			var err error
			if step, err = stream.Pipeline(brighter.BrighterPipeline, uint8(1)); err != nil {
				return err
			}
		}
		err := stream.Run(w.u2, w.u, stream.Options{Device: w.d, Bands: 2}, step)
		if w.canPipeline() {
			w.u2v = shift(w.u2v, w.uv, err == nil)
		} else {
			w.u2v = merge(w.u2v, w.uv, err == nil)
		}
		return err
	case kEngine:
		if w.e == nil {
			w.e = engine.New(w.d)
		}
		x := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(w.n), tensor.WithEngine(w.e))
		h, err := engine.Host(x)
		if err != nil {
			return err
		}
		for i := range w.n {
			h.Data().([]float32)[i] = 3
		}
		y, err := x.Add(x)
		if err != nil {
			return err
		}
		hy, err := engine.Host(y)
		if err != nil {
			return err
		}
		for _, v := range hy.Data().([]float32) {
			if v != 6 {
				return fmt.Errorf("engine: 3+3 gave %v", v)
			}
		}
		return nil
	}
	panic(k)
}

func (w *worker) canPipeline() bool { _, ok := w.d.(*opencl.Device); return ok }

// shift is u2's values after a u2 = u+1 that completed (done) or may have.
func shift(u2v, uv vals, done bool) vals {
	out := uv.add(1, true)
	if !done {
		out = merge(u2v, out, false)
	}
	return out
}

// merge is dst's values after a copy of src that completed or may have.
func merge(dst, src vals, done bool) vals {
	if done {
		return slices.Clone(src)
	}
	out := slices.Clone(dst)
	for _, x := range src {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func uniform[T float32 | uint8](data []T, allowed vals) error {
	for i, v := range data {
		if !slices.Contains(allowed, float64(v)) {
			return fmt.Errorf("element %d is %v, the model allows %v", i, v, allowed)
		}
	}
	return nil
}

// check reads every Array home (the device is closed: nothing may be
// lost) against the model.
func (w *worker) check() error {
	h, err := w.f.HostReadOnly()
	if err != nil {
		return fmt.Errorf("f after Close: %w", err)
	}
	if err := uniform(h.Data(), w.fv); err != nil {
		return fmt.Errorf("f: %w", err)
	}
	for _, x := range []struct {
		a *array.Array[uint8]
		v vals
	}{{w.u, w.uv}, {w.u2, w.u2v}} {
		h, err := x.a.HostReadOnly()
		if err != nil {
			return fmt.Errorf("after Close: %w", err)
		}
		if err := uniform(h.Data(), x.v); err != nil {
			return err
		}
	}
	return nil
}

func (w *worker) close() {
	w.f.Close()
	w.u.Close()
	w.u2.Close()
	if w.e != nil {
		w.e.Close()
	}
}
