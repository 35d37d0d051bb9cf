package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// Writes behind the engine's back to a Dense whose newest values are on
// the device, or current on both sides, drawn: element type, length (one element to many pages, so
// blocks compared whole, blocks with watched pages and the bytes around
// them), memory (Alloc's, Go memory adopted, an op's result), the write
// (none; one element anywhere, by a store, copy or another goroutine, its
// value drawn or the stale one; a run of elements; Zero; tensor.Copy over
// all of it). Against a model: device newer, a whole overwrite of float
// memory is taken (zeros with no upload), any other write is ErrHostWrite
// at the next use, once, with nothing moved and the device's values kept;
// both current, any write is taken (one upload); no write, no error and
// no upload.
func TestWritesBehindTheEngine(t *testing.T) {
	devs := map[string]device.Device{"sim": sim.NewCompute("sim", 64<<20)}
	if dev, err := opencl.Default(); err == nil {
		devs["opencl"] = dev
	}
	if dev, err := cuda.Default(); err == nil {
		devs["cuda"] = dev // downloads through the driver into watched pages
	}
	f0, p0, _, live0 := uffd.Counts()
	defer func() {
		// Where the pages can be watched, the writes to them were seen so.
		if f1, p1, _, _ := uffd.Counts(); uffd.Available() && (f1 == f0 || p1 == p0) {
			t.Errorf("userfaultfd works here, but %d faults and %d protections served the drawn writes", f1-f0, p1-p0)
		}
	}()
	for name, dev := range devs {
		t.Run(name, func(t *testing.T) {
			e := engine.New(dev)
			defer func() {
				// Closed, the engine leaves no watch behind.
				must(t, e.Close())
				if _, _, _, live := uffd.Counts(); live != live0 {
					t.Errorf("%d watches live after Close, %d before New", live, live0)
				}
			}()
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			cases := [...]func(*testing.T, *engine.Engine, device.Device, *rand.Rand, int) bool{
				tripCase[float32], tripCase[float64], tripCase[int32], tripCase[int64], tripCase[uint8],
			}
			both := 0
			for c := range 240 {
				if cases[c%len(cases)](t, e, dev, rng, c) {
					both++
				}
			}
			if both < 40 {
				t.Errorf("%d of 240 cases were current on both sides", both)
			}
		})
	}
}

type tripElem interface {
	float32 | float64 | int32 | int64 | uint8
}

// tripCase runs case c; both: the Dense was current on both sides.
func tripCase[T tripElem](t *testing.T, e *engine.Engine, dev device.Device, rng *rand.Rand, c int) (both bool) {
	var z T
	size := int(typeOf[T]().Size())
	n := 1 + int(float64(1<<19/size)*pow3(rng.Float64())) // mostly small, up to 512 KiB
	if rng.IntN(4) == 0 {                                 // whole pages: Go memory of them is let go too
		pg := os.Getpagesize()
		n = (n*size + pg - 1) / pg * pg / size
	}
	init := make([]T, n)
	for i := range init {
		init[i] = T(rng.IntN(7))
	}
	dt := tensor.Of(tensor.Dtype{Type: typeOf[T]()})
	var d *tensor.Dense
	mem := rng.IntN(3)
	switch mem {
	case 0: // Alloc's
		d = tensor.New(dt, tensor.WithShape(n), tensor.WithEngine(e))
		copy(d.Data().([]T), init)
	case 1: // Go memory adopted, as gorgonia's registers
		d = tensor.New(tensor.WithBacking(slices.Clone(init)), tensor.WithShape(n))
		tensor.WithEngine(e)(d)
	case 2: // an op's result
		src := tensor.New(dt, tensor.WithShape(n), tensor.WithEngine(e))
		copy(src.Data().([]T), init)
		r, err := e.AddScalar(src, z, true)
		must(t, err)
		d = r.(*tensor.Dense)
	}
	model := slices.Clone(init)
	step := func(k T) { // in place on the device
		if _, err := e.AddScalar(d, k, true, tensor.UseUnsafe()); err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		for i := range model {
			model[i] += k
		}
	}
	_, fills0 := uffd.Fills() // a touch of other memory sharing pages may fill too
	step(1)
	step(2)
	a, err := engine.Array[T](e, d)
	must(t, err)
	// The residency: the device newer, or both copies current — read home
	// (HostReadOnly), or written through Host and then read by an op,
	// which uploads it (gorgonia's inputs).
	state := rng.IntN(3)
	switch state {
	case 1:
		_, err = a.HostReadOnly()
		must(t, err)
	case 2:
		_, err = engine.Host(d)
		must(t, err)
		r, err := e.AddScalar(d, z, true)
		must(t, err)
		e.Free(r.(*tensor.Dense), int64(r.(*tensor.Dense).MemSize()))
		a, err = engine.Array[T](e, d) // Go memory let go by Host is adopted again
		must(t, err)
	}
	newer := a.DeviceDirty()
	both = !newer && !a.HostDirty() && a.Device() != nil
	// Both current, a write is seen: where pages can be watched by a
	// fault, else by comparing the block (its hash past 64 KiB).
	// Memory all of whose newest values are on the device is dropped where
	// pages can be watched (an op's result, Alloc's; other Go memory that
	// is whole pages): any touch fills it from the device first, so reads
	// see the newest values and a write lands on them. Other Go memory came
	// home after the op (settle): current on both sides.
	pg := uintptr(os.Getpagesize())
	dropped := newer && uffd.Available() && (mem != 1 || d.Uintptr()%pg == 0 && uintptr(n*size)%pg == 0)
	taken := !newer || dropped
	data := d.Data().([]T)
	read := rng.IntN(2) == 0
	if read {
		i := rng.IntN(n)
		var got T
		switch rng.IntN(3) {
		case 0:
			got = data[i]
		case 1:
			got = slices.Clone(data[i:])[0]
		case 2:
			var wg sync.WaitGroup
			wg.Go(func() { got = data[i] })
			wg.Wait()
		}
		if taken && got != model[i] {
			t.Fatalf("case %d (%v, %d elements, memory %d): Data()[%d] reads %v, want %v (the newest)", c, typeOf[T](), n, mem, i, got, model[i])
		}
		if _, fills := uffd.Fills(); dropped && fills == fills0 {
			t.Fatalf("case %d (%v, %d elements, memory %d, at %#x): a read of dropped memory filled nothing", c, typeOf[T](), n, mem, d.Uintptr())
		}
	}
	float := typeOf[T]().Kind() == reflect.Float32 || typeOf[T]().Kind() == reflect.Float64
	what, whole := "", false
	v := T(rng.IntN(100)) + 10
	if rng.IntN(4) == 0 {
		v = init[0] // a value the stale copy may hold
	}
	prior := slices.Clone(model)
	switch w := rng.IntN(7); w {
	case 0:
		what = "nothing"
	case 1, 2:
		i := [...]int{0, n - 1, n / 2, rng.IntN(n)}[rng.IntN(4)]
		if w == 2 {
			v = init[i]
		}
		switch rng.IntN(3) {
		case 0:
			data[i] = v
		case 1:
			copy(data[i:], []T{v})
		case 2:
			var wg sync.WaitGroup
			wg.Go(func() { data[i] = v })
			wg.Wait()
		}
		what, whole = fmt.Sprintf("element %d of %d = %v", i, n, v), n == 1
		if whole || taken {
			model[i] = v
		}
	case 3:
		i := rng.IntN(n)
		k := 1 + rng.IntN(n-i)
		for j := i; j < i+k; j++ {
			data[j] = v
		}
		what, whole = fmt.Sprintf("elements %d…%d of %d = %v", i, i+k-1, n, v), k == n
		if whole || taken {
			for j := i; j < i+k; j++ {
				model[j] = v
			}
		}
	case 4:
		d.Zero()
		what, whole = "Zero", true
		clear(model)
	case 5:
		src := make([]T, n)
		for i := range src {
			src[i] = T(rng.IntN(50))
		}
		must(t, tensor.Copy(d, tensor.New(tensor.WithBacking(src), tensor.WithShape(n))))
		what, whole = "tensor.Copy of all", true
		copy(model, src)
	case 6: // tensor.Copy into a view (Slice) of some elements
		i := rng.IntN(n)
		k := 1 + rng.IntN(n-i)
		v, err := d.Slice(tensor.S(i, i+k))
		must(t, err)
		src := make([]T, k)
		for j := range src {
			src[j] = T(rng.IntN(50)) + 60 // not a value the elements held
		}
		must(t, tensor.Copy(v.(*tensor.Dense), tensor.New(tensor.WithBacking(src), tensor.WithShape(k))))
		what, whole = fmt.Sprintf("tensor.Copy into elements %d…%d of %d", i, i+k-1, n), k == n
		if whole || taken {
			copy(model[i:], src)
		}
	}
	where := fmt.Sprintf("case %d (%v, %d elements, memory %d, state %d, device newer %v, both current %v, dropped %v, write %s)", c, typeOf[T](), n, mem, state, newer, both, dropped, what)
	if _, fills := uffd.Fills(); dropped && !read && what != "nothing" && taken && fills == fills0 {
		t.Fatalf("%s: the write filled nothing", where)
	}
	before := dev.Stats()
	_, err = e.AddScalar(d, z, true, tensor.UseUnsafe()) // the next use
	moved := dev.Stats().Sub(before)
	switch {
	case !newer: // both current: a write seen makes the host copy the newer
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if up := moved.H2DCalls; what == "nothing" && up != 0 || up > 1 {
			t.Fatalf("%s: %d uploads", where, up)
		}
		if up := moved.H2DCalls; both && !slices.Equal(prior, model) && up != 1 {
			t.Fatalf("%s: the write changed values and %d uploads took them, want 1", where, up)
		}
	case what == "nothing" || whole && float || taken:
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if what == "Zero" && moved.H2DCalls != 0 {
			t.Fatalf("%s: %d uploads for zeros, want 0", where, moved.H2DCalls)
		}
	default:
		if !errors.Is(err, engine.ErrHostWrite) {
			t.Fatalf("%s: err %v, want ErrHostWrite", where, err)
		}
		if moved.H2DCalls+moved.D2HCalls != 0 {
			t.Fatalf("%s: the refused write moved %+v", where, moved)
		}
		if whole { // integer memory: the device's values stay
			model = slices.Clone(init)
			for i := range model {
				model[i] += 3
			}
		}
		if _, err := e.AddScalar(d, z, true, tensor.UseUnsafe()); err != nil {
			t.Fatalf("%s: the use after the error: %v", where, err)
		}
	}
	step(1)
	if got := hostVals[T](t, d); !slices.Equal(got, model) {
		i := 0
		for got[i] == model[i] {
			i++
		}
		t.Fatalf("%s: holds %v at %d…, want %v…", where, got[i:min(n, i+8)], i, model[i:min(n, i+8)])
	}
	return both
}

// pow3 skews draws in [0, 1) toward 0.
func pow3(x float64) float64 { return x * x * x }

// BenchmarkWatchedUse: an in-place device op on a Dense whose newest
// values stay on the device (each use checks, and arms, its watch), and
// the solvers' pattern: gradients zeroed behind the engine's back, then
// used (one fault, zeros set on the device).
func BenchmarkWatchedUse(b *testing.B) {
	dev := sim.NewCompute("sim", 256<<20)
	e := engine.New(dev)
	defer e.Close()
	for _, n := range []int{1 << 10, 1 << 14, 1 << 20} {
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
		op := func() {
			if _, err := e.AddScalar(d, float32(1), true, tensor.UseUnsafe()); err != nil {
				b.Fatal(err)
			}
		}
		op()
		b.Run(fmt.Sprintf("op/%dKiB", n*4>>10), func(b *testing.B) {
			b.SetBytes(int64(n * 4))
			b.ReportAllocs()
			for b.Loop() {
				op()
			}
		})
		b.Run(fmt.Sprintf("zero-then-op/%dKiB", n*4>>10), func(b *testing.B) {
			b.SetBytes(int64(n * 4))
			b.ReportAllocs()
			for b.Loop() {
				d.Zero()
				op()
			}
		})
	}
}

// noWatchChild names the environment variable under which
// TestWritesWithoutPageWatch runs its checks in a child process.
const noWatchChild = "ENGINE_TEST_NO_UFFD"

// TestWritesWithoutPageWatch: where the system has no userfaultfd (here:
// turned off in a child process; a process without the privilege), each
// call's device-newer blocks come home when it ends (HostWork.Homed, one
// D2H each), so Data() reads the newest values with no engine call, and a
// write to a host copy current on both sides is seen at any size (a block
// past 64 KiB by its hash): at an end, in the middle, or whole, of Go
// memory, Alloc's memory and an op's result, drawn.
func TestWritesWithoutPageWatch(t *testing.T) {
	if os.Getenv(noWatchChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWritesWithoutPageWatch$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), noWatchChild+"=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestWritesWithoutPageWatch") {
			t.Fatalf("the child: %v\n%s", err, out)
		}
		return
	}
	uffd.TurnOff() // as in a process without the privilege
	r := rand.New(rand.NewPCG(draw.Seed(t), 31))
	dev := sim.NewCompute("sim", 256<<20)
	e := engine.New(dev)
	defer e.Close()
	for c := range 40 {
		n := 1 + r.IntN(100)
		if r.IntN(2) == 0 {
			n = 1<<14 + r.IntN(1<<16) // past 64 KiB
		}
		init := make([]float32, n)
		for i := range init {
			init[i] = float32(r.IntN(50))
		}
		var d *tensor.Dense
		kind := r.IntN(3)
		switch kind {
		case 0: // Alloc's memory
			d = tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
			copy(d.Data().([]float32), init)
		case 1: // Go memory, as gorgonia's registers
			d = tensor.New(tensor.WithBacking(slices.Clone(init)), tensor.WithShape(n))
			tensor.WithEngine(e)(d)
		case 2: // an op's result
			src := tensor.New(tensor.WithBacking(slices.Clone(init)), tensor.WithShape(n))
			tensor.WithEngine(e)(src)
			res, err := e.AddScalar(src, float32(0), true)
			must(t, err)
			d = res.(*tensor.Dense)
		}
		model := slices.Clone(init)
		for range 1 + r.IntN(3) {
			k := float32(1 + r.IntN(5))
			st, w0 := dev.Stats(), e.HostWork()
			_, err := e.AddScalar(d, k, true, tensor.UseUnsafe())
			must(t, err)
			for i := range model {
				model[i] += k
			}
			m, homed := dev.Stats().Sub(st), e.HostWork().Sub(w0).Homed
			if m.Launches != 1 || homed != 1 || m.D2HCalls != 1 {
				t.Fatalf("case %d (kind %d, %d floats): the op moved %v, %d homed; want one launch and one copy home", c, kind, n, m, homed)
			}
			if got := slices.Clone(d.Data().([]float32)); !slices.Equal(got, model) { // no engine call
				t.Fatalf("case %d (kind %d, %d floats): Data() reads stale values", c, kind, n)
			}
		}
		// A write behind the engine's back: one element (an end or
		// inside), or all of them (Zero); the next use takes it.
		var what string
		switch data := d.Data().([]float32); r.IntN(4) {
		case 0:
			data[0], model[0], what = 90, 90, "the first"
		case 1:
			data[n-1], model[n-1], what = 91, 91, "the last"
		case 2:
			i := r.IntN(n)
			data[i], model[i], what = 92, 92, fmt.Sprintf("element %d", i)
		case 3:
			d.Zero()
			clear(model)
			what = "Zero"
		}
		st := dev.Stats()
		_, err := e.AddScalar(d, float32(1), true, tensor.UseUnsafe())
		must(t, err)
		for i := range model {
			model[i]++
		}
		if up := dev.Stats().Sub(st).H2DCalls; what != "Zero" && up != 1 {
			t.Fatalf("case %d (kind %d, %d floats): a write to %s, then %d uploads, want 1", c, kind, n, what, up)
		}
		if got := hostVals[float32](t, d); !slices.Equal(got, model) {
			t.Fatalf("case %d (kind %d, %d floats): a write to %s was lost", c, kind, n, what)
		}
	}
}

// BenchmarkCurrentOperand: a device op reading Go memory whose copies are
// both current (a program's input: each use sets its trip, a protection
// only after a write), and the same with one element written on the host
// before each use (a fault, then one upload).
func BenchmarkCurrentOperand(b *testing.B) {
	dev := sim.NewCompute("sim", 256<<20)
	e := engine.New(dev)
	defer e.Close()
	for _, n := range []int{1 << 10, 1 << 14, 1 << 20} {
		x := tensor.New(tensor.WithBacking(make([]float32, n)), tensor.WithShape(n))
		tensor.WithEngine(e)(x)
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
		op := func() {
			if _, err := e.Add(d, x, tensor.UseUnsafe()); err != nil {
				b.Fatal(err)
			}
		}
		op()
		for _, write := range []bool{false, true} {
			b.Run(fmt.Sprintf("write=%v/%dKiB", write, n*4>>10), func(b *testing.B) {
				b.SetBytes(int64(n * 4))
				b.ReportAllocs()
				for b.Loop() {
					if write {
						x.Data().([]float32)[n/2]++
					}
					op()
				}
			})
		}
	}
}
