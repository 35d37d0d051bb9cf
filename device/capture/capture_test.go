package capture_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/capture"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	tdraw "github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops"
)

// devices are the devices the tests draw on: a computing sim, and the
// OpenCL device where there is one (PoCL here), with and without its
// command buffers.
func devices(t *testing.T) map[string]device.Device {
	t.Helper()
	ds := map[string]device.Device{"sim": sim.NewCompute("capture", 0)}
	if d, err := cuda.Open(cuda.Options{}); err == nil { // real CUDA: the mock's kernels compute nothing
		ds["cuda"] = d
	}
	if d, err := opencl.Open(opencl.Options{}); err == nil {
		ds["opencl"] = d
	} else if !errors.Is(err, opencl.ErrNoOpenCL) {
		t.Fatal(err)
	}
	// the recorded replay (each kernel step a kernel of its own), as on
	// NVIDIA's OpenCL, which has no command buffers
	if d, err := opencl.Open(opencl.Options{NoCommandBuffers: true}); err == nil {
		ds["opencl-recorded"] = d
	}
	t.Cleanup(func() {
		for _, d := range ds {
			d.Close()
		}
	})
	return ds
}

// seed is the run's (package draw: the UTC day, or -draw.seed): each
// day's run draws other cases.
func seed(t *testing.T) uint64 { return tdraw.Seed(t) }

// set is one copy of a drawn sequence's Arrays: inputs (only read),
// work (read and written; all of the drawn shape), a 0-D sum and a sum
// along dimension 0.
type set struct {
	in, work []*array.Array[float32]
	sum, red *array.Array[float32]
	root     map[*array.Array[float32]]*array.Array[float32] // a cropped work Array's root
}

func (s *set) all() []*array.Array[float32] {
	return append(append(append([]*array.Array[float32]{}, s.in...), s.work...), s.sum, s.red)
}

func (s *set) close() {
	for _, a := range s.all() {
		s.rootOf(a).Close()
	}
}

// rootOf is a's root: closing a view does nothing.
func (s *set) rootOf(a *array.Array[float32]) *array.Array[float32] {
	if r := s.root[a]; r != nil {
		return r
	}
	return a
}

// step is one drawn op on a set.
type step struct {
	kind      int
	dst, a, b int // dst into work; a, b into in+work
	s         float32
}

const kinds = 9

// draw is one drawn case: a shape, which inputs are written on the host
// before the capture (so the capture records their upload), and a
// sequence.
type draw struct {
	shape    []int
	nIn      int
	uploaded []bool
	nWork    int
	cropped  []bool // work Arrays that are crops of a larger root (strided)
	steps    []step
}

func drawCase(r *rand.Rand) draw {
	shapes := [][]int{{7}, {5, 3}, {64, 33}, {1000}, {3, 4, 5}}
	c := draw{shape: shapes[r.IntN(len(shapes))], nIn: 1 + r.IntN(2), nWork: 2 + r.IntN(2)}
	for range c.nIn {
		c.uploaded = append(c.uploaded, r.IntN(2) == 0)
	}
	for range c.nWork {
		c.cropped = append(c.cropped, r.IntN(3) == 0)
	}
	scalars := []float32{0.5, -0.75, 0.25, 1.5}
	for range 2 + r.IntN(6) {
		c.steps = append(c.steps, step{kind: r.IntN(kinds), dst: r.IntN(c.nWork), a: r.IntN(c.nIn + c.nWork),
			b: r.IntN(c.nIn + c.nWork), s: scalars[r.IntN(len(scalars))]})
	}
	return c
}

func (c draw) String() string {
	names := []string{"Add", "Sub", "Mul·0.5", "MulScalar", "AddScalar", "Copy", "Eval(a·b·s+1)", "EvalSum", "Sum(dim 0)"}
	var b strings.Builder
	fmt.Fprintf(&b, "shape %v, %d inputs (uploaded %v), %d work (cropped %v):", c.shape, c.nIn, c.uploaded, c.nWork, c.cropped)
	for _, s := range c.steps {
		fmt.Fprintf(&b, " %s(w%d, %d, %d, %v)", names[s.kind], s.dst, s.a, s.b, s.s)
	}
	return b.String()
}

// fill writes values drawn from v into a's host memory.
func fill(t *testing.T, a *array.Array[float32], v *rand.Rand) {
	t.Helper()
	h, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	for c := range h.All() {
		h.Set(float32(v.IntN(9)-4)/4, c...)
	}
}

// setUp makes one set on d with values from seed: inputs uploaded or
// resident as c says (in d's pinned memory: a CUDA graph moves no other),
// work Arrays device-newest.
func setUp(t *testing.T, d device.Device, c draw, seed uint64) *set {
	t.Helper()
	v := rand.New(rand.NewPCG(seed, 1))
	s := &set{}
	for i := range c.nIn {
		a, err := array.NewIn[float32](d.(device.HostAllocator), c.shape...)
		if err != nil {
			t.Fatal(err)
		}
		if c.uploaded[i] {
			if err := ops.On(d, a); err != nil {
				t.Fatal(err)
			}
			fill(t, a, v) // host-newer: the first op uploads it
		} else {
			fill(t, a, v)
			if err := ops.On(d, a); err != nil {
				t.Fatal(err)
			}
		}
		s.in = append(s.in, a)
	}
	s.root = map[*array.Array[float32]]*array.Array[float32]{}
	for i := range c.nWork {
		a := array.New[float32](c.shape...)
		if c.cropped[i] { // dimension 0's middle of a larger root: strided rows
			ext := slices.Clone(c.shape)
			ext[0] += 3
			root := array.New[float32](ext...)
			a = root.Crop(0, 1, c.shape[0])
			s.root[a] = root
		}
		fill(t, a, v)
		if err := ops.On(d, a); err != nil {
			t.Fatal(err)
		}
		if err := ops.BinaryScalar(a, a, 1, ops.OpMul); err != nil { // device-newest
			t.Fatal(err)
		}
		s.work = append(s.work, a)
	}
	s.sum = array.New[float32]()
	s.red = array.New[float32](max(1, len(c.shape)-1))
	if len(c.shape) > 1 {
		s.red = array.New[float32](c.shape[1:]...)
	}
	for _, a := range []*array.Array[float32]{s.sum, s.red} {
		if err := ops.On(d, a); err != nil {
			t.Fatal(err)
		}
		if err := ops.BinaryScalar(a, a, 0, ops.OpMul); err != nil { // device-newest
			t.Fatal(err)
		}
	}
	return s
}

// run runs c's steps on s, eagerly or inside a capture.
func run(c draw, s *set) error {
	opnd := func(i int) *array.Array[float32] {
		if i < len(s.in) {
			return s.in[i]
		}
		return s.work[i-len(s.in)]
	}
	for _, st := range c.steps {
		dst, a, b := s.work[st.dst], opnd(st.a), opnd(st.b)
		var err error
		switch st.kind {
		case 0:
			err = ops.Binary(dst, a, b, ops.OpAdd)
		case 1:
			err = ops.Binary(dst, a, b, ops.OpSub)
		case 2:
			err = ops.Eval(dst, ops.In(a).Binary(ops.OpMul, ops.In(b)).Scale(0.5))
		case 3:
			err = ops.BinaryScalar(dst, a, st.s, ops.OpMul)
		case 4:
			err = ops.BinaryScalar(dst, a, st.s, ops.OpAdd)
		case 5:
			if dst != a {
				err = ops.Copy(dst, a)
			}
		case 6:
			err = ops.Eval(dst, ops.In(a).Binary(ops.OpMul, ops.In(b)).Scale(st.s).Binary(ops.OpAdd, ops.Const[float32](1)))
		case 7:
			err = ops.EvalSum(s.sum, ops.In(a).Scale(st.s))
		case 8:
			err = ops.Sum(s.red, a, -1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// written is the Array the first step that writes one writes.
func written(c draw, s *set) *array.Array[float32] {
	for _, st := range c.steps {
		switch {
		case st.kind == 7:
			return s.sum
		case st.kind == 8:
			return s.red
		case st.kind != 5 || st.a != len(s.in)+st.dst:
			return s.work[st.dst]
		}
	}
	return nil
}

// same fails t unless the sets hold the same values (NaNs alike).
func same(t *testing.T, what string, got, want *set) {
	t.Helper()
	ga, wa := got.all(), want.all()
	for i := range ga {
		g, err := ga[i].HostReadOnly()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		w, err := wa[i].HostReadOnly()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		bad := ""
		for c, x := range g.All() {
			y := w.At(c...)
			if bad == "" && x != y && !(x != x && y != y) && math.Abs(float64(x-y)) > 1e-4*max(1, math.Abs(float64(y))) {
				bad = fmt.Sprintf("Array %d at %v: replayed %v, eager %v", i, c, x, y)
			}
		}
		if bad != "" {
			t.Fatalf("%s: %s", what, bad)
		}
	}
}

// TestReplayDrawn draws op sequences, shapes and residency states and
// checks on each device that a capture and its replays leave exactly
// what the same sequence run eagerly as many times leaves, that a replay
// launches what the capture did and uploads what it uploaded, that a
// replay refuses a closed Array, and that closing the Graph releases the
// memory it kept.
func TestReplayDrawn(t *testing.T) {
	base := seed(t)
	for name, d := range devices(t) {
		t.Run(name, func(t *testing.T) {
			n := 6
			if name == "sim" {
				n = 20
			}
			r := rand.New(rand.NewPCG(base, 7))
			for k := range n {
				c, vs := drawCase(r), r.Uint64()
				t.Run(strconv.Itoa(k), func(t *testing.T) { replayCase(t, d, c, vs) })
			}
		})
	}
}

func replayCase(t *testing.T, d device.Device, c draw, vs uint64) {
	t.Logf("%v", c)
	A, B := setUp(t, d, c, vs), setUp(t, d, c, vs)
	if err := run(c, B); err != nil {
		t.Fatal(err)
	}
	s0 := d.Stats()
	g, err := capture.Record(d, func() error { return run(c, A) })
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	s1 := d.Stats()
	t.Logf("%s, %d steps", g.Kind(), g.Nodes())
	same(t, "after Record", A, B)
	v := rand.New(rand.NewPCG(vs, 2))
	for rep := range 3 {
		// new inputs where the capture uploaded them
		for i, up := range c.uploaded {
			if up && rep > 0 {
				w := v.Uint64()
				fill(t, A.in[i], rand.New(rand.NewPCG(w, 3)))
				fill(t, B.in[i], rand.New(rand.NewPCG(w, 3)))
			}
		}
		before := d.Stats()
		if err := g.Replay(); err != nil {
			t.Fatalf("Replay %d: %v", rep, err)
		}
		after := d.Stats()
		if err := run(c, B); err != nil {
			t.Fatal(err)
		}
		if got, want := after.Launches-before.Launches, s1.Launches-s0.Launches; got != want {
			t.Errorf("replay %d launched %d, the capture %d", rep, got, want)
		}
		if got, want := after.H2DBytes-before.H2DBytes, s1.H2DBytes-s0.H2DBytes; got != want {
			t.Errorf("replay %d uploaded %d bytes, the capture %d", rep, got, want)
		}
		same(t, fmt.Sprintf("after replay %d", rep), A, B)
	}
	live := d.Stats().AllocsLive
	if w := written(c, A); w != nil {
		A.rootOf(w).Close()
		if err := g.Replay(); !errors.Is(err, capture.ErrCapture) || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Replay with a closed Array: %v", err)
		}
	}
	A.close()
	B.close()
	g.Close()
	if got, want := d.Stats().AllocsLive, live-int64(2*len(A.all())); got != want {
		t.Errorf("%d allocations live after closing the Arrays and the Graph, want %d", got, want)
	}
}

// TestScalar records MulScalar with a marker factor, changes the factor
// through Graph.Scalar and checks that the replay used the new one, on
// the kernel devices; a sim Graph has no kernel arguments to find.
func TestScalar(t *testing.T) {
	for name, d := range devices(t) {
		t.Run(name, func(t *testing.T) {
			x, err := array.NewIn[float32](d.(device.HostAllocator), 100)
			if err != nil {
				t.Fatal(err)
			}
			y := array.New[float32](100)
			defer x.Close()
			defer y.Close()
			fill(t, x, rand.New(rand.NewPCG(1, 2)))
			if err := ops.On(d, x, y); err != nil {
				t.Fatal(err)
			}
			g, err := capture.Record(d, func() error { return ops.BinaryScalar(y, x, 0.123, ops.OpMul) })
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			s, err := g.Scalar(float32(0.123))
			if name == "sim" {
				if !errors.Is(err, capture.ErrCapture) {
					t.Fatalf("Scalar on sim: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s", g.Kind())
			for _, f := range []float32{5, -2} { // the second Set after a replay
				if err := s.Set(f); err != nil {
					t.Fatal(err)
				}
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
			}
			hx, _ := x.HostReadOnly()
			hy, err := y.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			for i := range 100 {
				if hy.At(i) != -2*hx.At(i) {
					t.Fatalf("y[%d] = %v after Set(-2), x[%d] = %v", i, hy.At(i), i, hx.At(i))
				}
			}
		})
	}
}

// TestReplayBetweenEager interleaves replays with eager launches of the
// same kernel on other Arrays: a replay keeps its own arguments (PoCL
// 3.1 takes a command buffer's kernel arguments when it is enqueued).
func TestReplayBetweenEager(t *testing.T) {
	for name, d := range devices(t) {
		t.Run(name, func(t *testing.T) {
			mk := func(v float32) *array.Array[float32] {
				a := array.Full[float32](v, 100)
				if err := ops.On(d, a); err != nil {
					t.Fatal(err)
				}
				return a
			}
			xa, ya, xb, yb := mk(1), mk(0), mk(10), mk(0)
			for _, a := range []*array.Array[float32]{xa, ya, xb, yb} {
				defer a.Close()
			}
			g, err := capture.Record(d, func() error { return ops.BinaryScalar(ya, xa, 1, ops.OpAdd) })
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			for i := range 3 {
				if err := ops.BinaryScalar(xa, xa, 1, ops.OpAdd); err != nil {
					t.Fatal(err)
				}
				if err := g.Replay(); err != nil {
					t.Fatal(err)
				}
				if err := ops.BinaryScalar(yb, xb, 5, ops.OpAdd); err != nil {
					t.Fatal(err)
				}
				h, err := ya.HostReadOnly()
				if err != nil {
					t.Fatal(err)
				}
				if h.At(0) != float32(i+3) || h.At(99) != float32(i+3) {
					t.Fatalf("%s: replay %d gave %v, want %v", g.Kind(), i, h.At(0), i+3)
				}
			}
			// reallocated: refused, naming why
			if err := errors.Join(ya.DeviceFree(), ya.DeviceMalloc(d)); err != nil {
				t.Fatal(err)
			}
			if err := g.Replay(); !errors.Is(err, capture.ErrCapture) || !strings.Contains(err.Error(), "other device memory") {
				t.Fatalf("Replay after the output was reallocated: %v", err)
			}
		})
	}
}

// TestRecordPanics: a panic inside the recorded function ends the
// capture, so the device runs work again, and nothing is kept.
func TestRecordPanics(t *testing.T) {
	for name, d := range devices(t) {
		t.Run(name, func(t *testing.T) {
			x := array.Full[float32](1, 10)
			defer x.Close()
			if err := ops.On(d, x); err != nil {
				t.Fatal(err)
			}
			live := d.Stats().AllocsLive
			func() {
				defer func() {
					if recover() != "boom" {
						t.Fatal("the panic did not come through")
					}
				}()
				capture.Record(d, func() error {
					if err := ops.BinaryScalar(x, x, 1, ops.OpAdd); err != nil {
						return err
					}
					panic("boom")
				})
			}()
			if err := ops.BinaryScalar(x, x, 1, ops.OpAdd); err != nil {
				t.Fatal(err)
			}
			h, err := x.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			if v := h.At(0); v != 2 && v != 3 { // the recorded op ran where recording runs it
				t.Fatalf("x = %v after the panic and one op", v)
			}
			if n := d.Stats().AllocsLive; n != live {
				t.Fatalf("%d allocations live, want %d", n, live)
			}
			g, err := capture.Record(d, func() error { return ops.BinaryScalar(x, x, 1, ops.OpAdd) })
			if err != nil {
				t.Fatalf("Record after the panic: %v", err)
			}
			g.Close()
		})
	}
}

// TestCloseUnderReplay closes the device while goroutines replay: each
// replay completes or returns an error wrapping device.ErrClosed (the
// device's gate), and the Graph closes cleanly after.
func TestCloseUnderReplay(t *testing.T) {
	open := map[string]func() (device.Device, error){
		"sim": func() (device.Device, error) { return sim.NewCompute("close", 0), nil },
		"opencl": func() (device.Device, error) {
			d, err := opencl.Open(opencl.Options{})
			if err != nil {
				return nil, err
			}
			return d, nil
		},
		"opencl-recorded": func() (device.Device, error) {
			d, err := opencl.Open(opencl.Options{NoCommandBuffers: true})
			if err != nil {
				return nil, err
			}
			return d, nil
		},
	}
	for name, o := range open {
		t.Run(name, func(t *testing.T) {
			d, err := o()
			if err != nil {
				t.Skip(err)
			}
			defer d.Close()
			x := array.Full[float32](1, 1000)
			defer x.Close()
			if err := ops.On(d, x); err != nil {
				t.Fatal(err)
			}
			g, err := capture.Record(d, func() error { return ops.BinaryScalar(x, x, 1, ops.OpAdd) })
			if err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 4)
			for range 4 {
				go func() {
					for {
						if err := g.Replay(); err != nil {
							errc <- err
							return
						}
					}
				}()
			}
			time.Sleep(5 * time.Millisecond)
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			for range 4 {
				if err := <-errc; !errors.Is(err, device.ErrClosed) {
					t.Errorf("a replay racing Close: %v", err)
				}
			}
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRecordEdges: an empty function records an empty Graph; fn's error
// comes back as is, with nothing kept.
func TestRecordEdges(t *testing.T) {
	for name, d := range devices(t) {
		t.Run(name, func(t *testing.T) {
			g, err := capture.Record(d, func() error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Replay(); err != nil || g.Nodes() != 0 {
				t.Fatalf("an empty Graph: %v, %d nodes", err, g.Nodes())
			}
			g.Close()
			x := array.Full[float32](1, 10)
			defer x.Close()
			if err := ops.On(d, x); err != nil {
				t.Fatal(err)
			}
			live := d.Stats().AllocsLive
			mine := errors.New("mine")
			g, err = capture.Record(d, func() error {
				if err := ops.BinaryScalar(x, x, 1, ops.OpAdd); err != nil {
					return err
				}
				return mine
			})
			if err != mine || g != nil {
				t.Fatalf("Record of a failing function: %v, %v", g, err)
			}
			if n := d.Stats().AllocsLive; n != live {
				t.Fatalf("%d allocations live, want %d", n, live)
			}
		})
	}
}
