package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
	"weak"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/uffd"
)

// collect runs the collector until w's object is gone and its cleanups
// have had time to run (they run on their own goroutine, after the
// collection); it reports whether the object went.
func collect[T any](w weak.Pointer[T]) bool {
	for i := 0; i < 100 && w.Value() != nil; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	return w.Value() == nil
}

// The engine adopts Go memory for the Dense first used over it; when that
// Dense is collected while another Dense over the same memory is still
// reachable (the user's, of which gorgonia or tensor made the first: a
// dual value, tensor.New(WithBacking(d.Data())), a ShallowClone, a view),
// the device copy must stay: that other Dense is used afterwards and reads
// the device's newest values, on the device, with no transfer. Before the
// fix the device copy was dropped with the first Dense and the user's was
// refused with ErrFreed ("the Go memory at 0x… was adopted by the engine
// for a Dense since collected"). Memory too small to let its host copy go
// came home after the op (where pages can be watched): let go when parked,
// its next use uploads it (one H2D), as its first did.
func TestAdoptedMemoryOutlivesItsFirstDense(t *testing.T) {
	e, dev := testEngine(t)
	for _, tc := range []struct {
		name  string
		first func(user *tensor.Dense) *tensor.Dense
	}{
		{"WithBacking(Data())", func(user *tensor.Dense) *tensor.Dense {
			return tensor.New(tensor.WithShape(user.Shape().Clone()...), tensor.WithBacking(user.Data()))
		}},
		{"ShallowClone", func(user *tensor.Dense) *tensor.Dense { return user.ShallowClone() }},
		{"Slice", func(user *tensor.Dense) *tensor.Dense {
			v, err := user.Slice(nil, nil)
			must(t, err)
			return v.(*tensor.Dense)
		}},
	} {
		for _, shape := range [][]int{{2, 3}, {64, 64}} { // 24 B; 16 KiB, its own pages
			t.Run(fmt.Sprintf("%s/%v", tc.name, shape), func(t *testing.T) {
				n := shape[0] * shape[1]
				vals := make([]float32, n)
				for i := range vals {
					vals[i] = float32(i%9 + 1)
				}
				a := onDevice(t, e, vals, shape...)
				user := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(make([]float32, n)))
				tensor.WithEngine(e)(user)
				var gone weak.Pointer[tensor.Dense]
				func() {
					first := tc.first(user)
					tensor.WithEngine(e)(first)
					gone = weak.Make(first)
					_, err := tensor.Add(a, a, tensor.WithReuse(first)) // adopted for first; newest on the device
					must(t, err)
				}()
				if !collect(gone) {
					t.Skip("the first Dense was not collected")
				}
				before := dev.Stats()
				was := guardResident() // nothing may move but an explicit upload
				s, err := tensor.Add(user, a)
				guard.Set(was)
				if err != nil {
					t.Fatalf("the user's Dense after the first Dense over its memory was collected: %v", err)
				}
				small := n == 6 && uffd.Available()
				up := map[bool]int64{true: 1}[small]
				if m := dev.Stats().Sub(before); resident() && (m.H2DCalls != up || m.D2HCalls != 0 || small && m.H2DBytes != 24) {
					t.Fatalf("the op moved %v, want %d uploads", m, up)
				}
				sum, twice := make([]float32, n), make([]float32, n)
				for i, v := range vals {
					sum[i], twice[i] = 3*v, 2*v
				}
				near(t, "user + a", hostVals[float32](t, s.(*tensor.Dense)), sum, 0)
				near(t, "user", hostVals[float32](t, user), twice, 0)
			})
		}
	}
}

// Adopted Go memory that no Dense reaches any more dies with the first
// collection after it became unreachable, and its device copy is freed
// then (gorgonia drops its registers every run: memory kept one more
// cycle made the heap grow every cycle).
func TestAdoptedMemoryDies(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 1, 1, 1, 1, 1}, 6)
	live := dev.Stats().AllocsLive
	var mem weak.Pointer[float32]
	func() {
		data := make([]float32, 1<<16) // its own object, not a tiny alloc
		mem = weak.Make(&data[0])
		reg := tensor.New(tensor.WithShape(6), tensor.WithBacking(data[:6]))
		tensor.WithEngine(e)(reg)
		_, err := tensor.Add(a, a, tensor.WithReuse(reg)) // adopted; newest on the device
		must(t, err)
	}()
	if got := dev.Stats().AllocsLive; got != live+1 {
		t.Fatalf("%d allocations live after adopting, want %d", got, live+1)
	}
	// The Dense goes first (the engine holds the memory while it lives),
	// then the memory, with the next collection.
	for i := 0; i < 100 && (mem.Value() != nil || dev.Stats().AllocsLive > live); i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if mem.Value() != nil {
		t.Fatal("adopted Go memory no Dense reaches is still alive: the engine holds it")
	}
	if got := dev.Stats().AllocsLive; got != live {
		t.Fatalf("%d allocations live after the adopted memory died, want %d", got, live)
	}
	runtime.KeepAlive(a) // its memory, Alloc's, goes with it (watched)
}

// Close copies the device-newer data of adopted memory home, also when
// the Dense the engine adopted it for was collected and another Dense
// still reaches it.
func TestCloseCopiesHomeAfterFirstDense(t *testing.T) {
	e, _ := testEngine(t)
	a := onDevice(t, e, []float32{1, 2, 3}, 3)
	data := make([]float32, 3)
	var gone weak.Pointer[tensor.Dense]
	func() {
		first := tensor.New(tensor.WithShape(3), tensor.WithBacking(data))
		tensor.WithEngine(e)(first)
		gone = weak.Make(first)
		_, err := tensor.Mul(a, a, tensor.WithReuse(first))
		must(t, err)
	}()
	if !collect(gone) {
		t.Skip("the first Dense was not collected")
	}
	must(t, e.Close())
	near(t, "after Close", data, []float32{1, 4, 9}, 0)
}

// A Dense tensor's pool recycles (tensor.ReturnTensor, which gorgonia
// calls on its temporaries) is never collected, so its cleanup never
// tells the engine it went: later adoptions sweep such blocks, and their
// memory, once unreachable, dies and frees its device copy.
func TestAdoptedMemoryOfRecycledDense(t *testing.T) {
	e, dev := testEngine(t)
	a := onDevice(t, e, []float32{1, 1, 1, 1}, 4)
	live := dev.Stats().AllocsLive
	var mem weak.Pointer[float32]
	func() {
		data := make([]float32, 1<<14)
		mem = weak.Make(&data[0])
		d := tensor.New(tensor.WithShape(4), tensor.WithBacking(data[:4]))
		tensor.WithEngine(e)(d)
		_, err := tensor.Add(a, a, tensor.WithReuse(d))
		must(t, err)
		tensor.ReturnTensor(d) // to the pool: addresses nothing, stays alive
	}()
	var keep []*tensor.Dense
	for range 40 { // adoptions that sweep
		d := tensor.New(tensor.WithShape(4), tensor.WithBacking(make([]float32, 4)))
		tensor.WithEngine(e)(d)
		_, err := tensor.Add(a, a, tensor.WithReuse(d))
		must(t, err)
		keep = append(keep, d)
	}
	for i := 0; i < 100 && mem.Value() != nil; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if mem.Value() != nil {
		t.Fatal("the Go memory of a recycled Dense is still alive: the engine holds it")
	}
	for i := 0; i < 100 && dev.Stats().AllocsLive > live+int64(len(keep)); i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := dev.Stats().AllocsLive; got != live+int64(len(keep)) {
		t.Fatalf("%d allocations live, want %d (the kept Denses')", got, live+int64(len(keep)))
	}
	for _, d := range keep {
		near(t, "kept", hostVals[float32](t, d), []float32{2, 2, 2, 2}, 0)
	}
	runtime.KeepAlive(a)
}

// A write through a Dense the engine never saw, to Go memory current on
// both sides, is seen whenever it happens: before the engine parks the
// memory (its Denses collected) or while it is parked. Drawn over sizes
// (let go whole, or copied home) and the moment of the write.
func TestWriteAcrossPark(t *testing.T) {
	e, dev := testEngine(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for c := range 24 {
		n := []int{6, 1 << 12, 1<<12 + 5}[c%3]
		before := rng.IntN(2) == 0
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = float32(i%5 + 1)
		}
		a := onDevice(t, e, vals, n)
		user := tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float32, n)))
		var gone weak.Pointer[tensor.Dense]
		func() {
			first := user.ShallowClone()
			tensor.WithEngine(e)(first)
			gone = weak.Make(first)
			_, err := tensor.Add(a, a, tensor.WithReuse(first))
			must(t, err)
			if _, err := tensor.Add(first, a); err != nil { // read: both copies current (small), or let go (large)
				t.Fatal(err)
			}
		}()
		i := rng.IntN(n)
		if before {
			user.Data().([]float32)[i] = -7
		}
		if !collect(gone) {
			t.Skip("the first Dense was not collected")
		}
		_, err := tensor.Add(a, float32(0)) // an engine call: the sweep parks the memory
		must(t, err)
		if !before {
			user.Data().([]float32)[i] = -7
		}
		tensor.WithEngine(e)(user)
		st := dev.Stats()
		s, err := tensor.Add(user, float32(1))
		must(t, err)
		// The write went up: one upload of the host copy, the newest.
		if m := dev.Stats().Sub(st); m.H2DCalls != 1 || m.H2DBytes != 4*int64(n) {
			t.Fatalf("case %d (%d floats, write before the park %v): the next op moved %v, want one upload of %d B", c, n, before, m, 4*n)
		}
		got := hostVals[float32](t, s.(*tensor.Dense))
		for j, v := range vals {
			want := 2*v + 1
			if j == i {
				want = -6
			}
			if got[j] != want {
				t.Fatalf("case %d (%d floats, write before the park %v): element %d is %v, want %v", c, n, before, j, got[j], want)
			}
		}
	}
}

// Which Go memory has its host copy let go and which comes home, drawn
// over sizes and offsets into a backing (the doc's row): memory that is
// whole pages is let go (no transfer after the op, one fill at a read),
// any other comes home once the op ends (one D2H, HostWork.Homed); either
// way a copy of all of Data() reads the newest values (Go's copy loads a
// slice's last bytes first: with them in a page shared with other memory
// and let go, they read stale).
func TestGoMemoryLetGoOrHome(t *testing.T) {
	if !uffd.Available() {
		t.Skip("no userfaultfd here: Go memory reads stale (the doc's row)")
	}
	e, dev := testEngine(t)
	pg := os.Getpagesize()
	rng := rand.New(rand.NewPCG(13, 14))
	for c := range 60 {
		n := 2 + int(float64(1<<15)*pow3(rng.Float64())) // floats, mostly small (one is a host scalar)
		if rng.IntN(2) == 0 {
			n = (n + 1023) &^ 1023 // whole pages
		}
		back := make([]float32, n+1024)
		off := 0
		if rng.IntN(2) == 0 {
			off = rng.IntN(1024)
		}
		vals := back[off : off+n]
		a := onDevice(t, e, slices.Repeat([]float32{3}, n), n)
		reg := tensor.New(tensor.WithShape(n), tensor.WithBacking(vals))
		tensor.WithEngine(e)(reg)
		p := uintptr(unsafe.Pointer(&vals[0]))
		letGo := p%uintptr(pg) == 0 && 4*n%pg == 0
		st, w0 := dev.Stats(), e.HostWork()
		_, err := tensor.Add(a, a, tensor.WithReuse(reg))
		must(t, err)
		m, homed := dev.Stats().Sub(st), e.HostWork().Sub(w0).Homed
		if want := map[bool]int64{false: 1}[letGo]; m.D2HCalls != want || homed != want || m.H2DCalls != 0 {
			t.Fatalf("case %d (%d floats at %#x, let go %v): the op moved %v, %d homed; want %d copies home", c, n, p, letGo, m, homed, want)
		}
		st = dev.Stats()
		got := slices.Clone(vals)
		fill := dev.Stats().Sub(st)
		if want := map[bool]int64{true: 1}[letGo]; fill.D2HCalls != want {
			t.Fatalf("case %d (%d floats, let go %v): the read moved %v, want %d fills", c, n, letGo, fill, want)
		}
		for i, x := range got {
			if x != 6 {
				t.Fatalf("case %d (%d floats, let go %v): Data()[%d] = %v, want 6", c, n, letGo, i, x)
			}
		}
	}
}
