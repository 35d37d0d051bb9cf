package array_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// poolModel is the model of TestPoolModel: the Arrays a program holds,
// what each element must read, and the slices from Data it keeps after
// their Arrays go.
type poolModel struct {
	t      *testing.T
	rng    *rand.Rand
	roots  []*modelRoot
	slices []*modelSlice
	stamp  float32
	nextID int
}

type modelRoot struct {
	id     int
	a      *array.Array[float32]
	want   []float32 // by storage index
	closed bool
	views  []*array.Array[float32] // crops, by offset lo
	vlo    []int
}

type modelSlice struct {
	id     int // the root it came from
	s      []float32
	want   []float32
	v      *array.Array[float32] // a view kept past its root, or nil
	closed *bool                 // its root's
}

// span is the host memory a root or slice covers.
func spanOf(s []float32) (lo, hi uintptr) {
	if len(s) == 0 {
		return 0, 0
	}
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return lo, lo + uintptr(len(s))*4
}

func (m *poolModel) alloc() {
	// Around the pooled size, so both paths and several classes run.
	n := 1 + m.rng.IntN(3*array.MinPooled/4)
	var a *array.Array[float32]
	zeroed := true
	switch m.rng.IntN(4) {
	case 0:
		a = array.New[float32](n)
	case 1:
		a = array.Zeros[float32](n)
	case 2:
		if r := m.open(); r != nil {
			a = array.Like(r.a)
			n = a.Len()
			break
		}
		a = array.New[float32](n)
	default:
		a = array.Empty[float32](n)
		zeroed = false
	}
	r := &modelRoot{id: m.nextID, a: a, want: make([]float32, n)}
	m.nextID++
	v, err := a.Host()
	if err != nil {
		m.t.Fatal(err)
	}
	d := v.Data()
	if zeroed {
		for i, x := range d {
			if x != 0 {
				m.t.Fatalf("new Array %d of %d elements: element %d is %v, want 0", r.id, n, i, x)
			}
		}
	} else {
		// Empty's contract: the caller writes every element first.
		m.stamp++
		v.Fill(m.stamp)
		for i := range r.want {
			r.want[i] = m.stamp
		}
	}
	m.roots = append(m.roots, r)
}

// open returns a random open root, or nil.
func (m *poolModel) open() *modelRoot {
	if len(m.roots) == 0 {
		return nil
	}
	r := m.roots[m.rng.IntN(len(m.roots))]
	if r.closed {
		return nil
	}
	return r
}

func (m *poolModel) step() {
	switch k := m.rng.IntN(20); {
	case k < 4:
		m.alloc()
	case k < 6: // a view, kept
		if r := m.open(); r != nil && len(r.want) > 1 {
			lo := m.rng.IntN(len(r.want))
			n := 1 + m.rng.IntN(len(r.want)-lo)
			r.views = append(r.views, r.a.Crop(0, lo, n))
			r.vlo = append(r.vlo, lo)
		}
	case k < 9: // a write, through the root or a view
		if r := m.open(); r != nil {
			m.stamp++
			a, lo := r.a, 0
			if len(r.views) > 0 && m.rng.IntN(2) == 0 {
				i := m.rng.IntN(len(r.views))
				a, lo = r.views[i], r.vlo[i]
			}
			v, err := a.Host()
			if err != nil {
				m.t.Fatal(err)
			}
			v.Fill(m.stamp)
			for i := range a.Len() {
				r.want[lo+i] = m.stamp
			}
		}
	case k < 10: // a slice from Data, kept past its Array
		if r := m.open(); r != nil {
			v, err := r.a.Host()
			if err != nil {
				m.t.Fatal(err)
			}
			m.slices = append(m.slices, &modelSlice{id: r.id, s: v.Data(), want: r.want})
		}
	case k < 12: // an op: a new result, or dst-first into a root
		x, y := m.open(), m.open()
		if x == nil || y == nil {
			return
		}
		n := min(len(x.want), len(y.want))
		xa, ya := x.a.Crop(0, 0, n), y.a.Crop(0, 0, n)
		if m.rng.IntN(2) == 0 {
			c, err := ops.New2Op(ops.Binary, xa, ya, ops.OpAdd)
			if err != nil {
				m.t.Fatal(err)
			}
			if m.rng.IntN(2) == 0 {
				// A temporary no view ever reached, closed at once: its
				// storage goes back to the pool at Close.
				t, err := ops.New1Op(ops.Unary, c, ops.OpNeg)
				if err != nil {
					m.t.Fatal(err)
				}
				c.Close()
				c, err = ops.New1Op(ops.Unary, t, ops.OpNeg)
				if err != nil {
					m.t.Fatal(err)
				}
				t.Close()
			}
			r := &modelRoot{id: m.nextID, a: c, want: make([]float32, n)}
			m.nextID++
			for i := range n {
				r.want[i] = x.want[i] + y.want[i]
			}
			m.roots = append(m.roots, r)
			return
		}
		if err := ops.Unary(xa, ya, ops.OpNeg); err != nil {
			m.t.Fatal(err)
		}
		for i := range n {
			x.want[i] = -y.want[i]
		}
	case k < 13: // close a root
		if r := m.open(); r != nil {
			if err := r.a.Close(); err != nil {
				m.t.Fatal(err)
			}
			r.closed = true
		}
	case k < 16: // drop a root, keeping one of its views or none
		if len(m.roots) > 0 {
			i := m.rng.IntN(len(m.roots))
			r := m.roots[i]
			if len(r.views) > 0 && m.rng.IntN(2) == 0 {
				j := m.rng.IntN(len(r.views))
				v, lo := r.views[j], r.vlo[j]
				// Only the view keeps the memory: no slice is stored.
				m.slices = append(m.slices, &modelSlice{id: r.id, want: r.want[lo : lo+v.Len()], v: v, closed: &r.closed})
			}
			m.roots = append(m.roots[:i], m.roots[i+1:]...)
		}
	case k < 17:
		if len(m.slices) > 0 {
			i := m.rng.IntN(len(m.slices))
			m.slices = append(m.slices[:i], m.slices[i+1:]...)
		}
	default:
		runtime.GC()
		runtime.Gosched() // the finalizers return what it found
	}
}

// check: every open root and kept slice reads what was written, and
// memory two of them reach belongs to one root.
func (m *poolModel) check() {
	type mem struct {
		id     int
		lo, hi uintptr
	}
	var mems []mem
	for _, r := range m.roots {
		s := unsafe.Slice((*float32)(r.a.Raw().HostPtr()), len(r.want))
		if len(r.want) == 0 {
			s = nil
		}
		if r.closed {
			// Not live: unreadable, and its storage may be another's
			// (recycled at Close), unless something kept it (slices).
			continue
		}
		lo, hi := spanOf(s)
		mems = append(mems, mem{r.id, lo, hi})
		v, err := r.a.HostReadOnly()
		if err != nil {
			m.t.Fatal(err)
		}
		for i, x := range v.Data() {
			if x != r.want[i] {
				m.t.Fatalf("root %d element %d is %v, want %v", r.id, i, x, r.want[i])
			}
		}
	}
	for _, s := range m.slices {
		d := s.s
		if s.v != nil {
			d = unsafe.Slice((*float32)(s.v.Raw().HostPtr()), s.v.Len())
			if *s.closed {
				d = nil // closed: unreadable, its memory still counted below
			}
		}
		for i, x := range d {
			if x != s.want[i] {
				m.t.Fatalf("a kept slice of root %d: element %d is %v, want %v", s.id, i, x, s.want[i])
			}
		}
		if s.v != nil {
			if *s.closed {
				continue // a view of a closed root is not live either
			}
			d = unsafe.Slice((*float32)(s.v.Raw().HostPtr()), s.v.Len())
		}
		lo, hi := spanOf(d)
		mems = append(mems, mem{s.id, lo, hi})
	}
	for i, a := range mems {
		for _, b := range mems[i+1:] {
			if a.id != b.id && a.lo < b.hi && b.lo < a.hi {
				m.t.Fatalf("roots %d and %d share memory: [%#x, %#x) and [%#x, %#x)", a.id, b.id, a.lo, a.hi, b.lo, b.hi)
			}
		}
	}
}

// TestPoolModel runs random programs of allocate (New, Zeros, Like,
// Empty, ops.New2), view, write, keep a slice from Data, op, Close, drop
// and collect against a model: every open Array reads what was written
// into it, New, Zeros and Like read zeros even from recycled storage,
// and no two Arrays (or a slice kept after its Array went) share memory
// unless one is a view of the other. The pool must have recycled.
//
//	go test -race -run PoolModel ./array
func TestPoolModel(t *testing.T) {
	steps, seeds := 400, 6
	if testing.Short() {
		steps, seeds = 200, 3
	}
	h0, _ := array.PoolStats()
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			m := &poolModel{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 36))}
			for i := range steps {
				m.step()
				if i%8 == 0 {
					m.check()
				}
			}
			m.check()
		})
	}
	if h, _ := array.PoolStats(); h == h0 {
		t.Fatal("no storage was recycled: the model did not test the pool")
	}
}

// TestPoolCloseRace: a Close racing host ops that read or write the
// closed Array: the ops finish (or fail with ErrClosed) before its storage
// is recycled, so a result made right after the Close, which may reuse
// that storage, keeps its values. Run it with -race.
func TestPoolCloseRace(t *testing.T) {
	n := array.MinPooled
	x, y := array.Full[float32](1, n), array.Full[float32](2, n)
	d := array.New[float32](n)
	recycled := 0
	for i := range 200 {
		c, err := ops.New2Op(ops.Binary, x, y, ops.OpAdd) // 3, never exposed
		if err != nil {
			t.Fatal(err)
		}
		at := array.BlockOf(c.Raw())
		done := make(chan error, 1)
		go func() {
			if i%2 == 0 {
				done <- ops.Unary(c, x, ops.OpNeg) // writes c
				return
			}
			done <- ops.Binary(d, c, x, ops.OpAdd) // reads c
		}()
		c.Close()
		e, err := ops.New2Op(ops.Binary, x, y, ops.OpMul) // 2, maybe in c's storage
		if err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil && !errors.Is(err, array.ErrClosed) {
			t.Fatal(err)
		}
		if array.BlockOf(e.Raw()) == at {
			recycled++
		}
		v, err := e.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		for k, z := range v.Data() {
			if z != 2 {
				t.Fatalf("round %d: element %d of a result made after a racing Close is %v, want 2", i, k, z)
			}
		}
	}
	if recycled == 0 {
		t.Fatal("no result reused a closed one's storage: the race was not tested")
	}
}

// TestPoolCloseRecycles: Close hands a result's storage back at once when
// nothing outside the library's counted uses reached it, and not when a
// host view did (a slice from it may outlive the Close).
func TestPoolCloseRecycles(t *testing.T) {
	x := array.Full[float32](1, array.MinPooled)
	for _, exposed := range []bool{false, true} {
		c, err := ops.New1Op(ops.Unary, x, ops.OpNeg)
		if err != nil {
			t.Fatal(err)
		}
		at := array.BlockOf(c.Raw())
		var keep []float32
		if exposed {
			v, _ := c.HostReadOnly()
			keep = v.Data()
		}
		c.Close()
		e, err := ops.New1Op(ops.Unary, x, ops.OpNeg)
		if err != nil {
			t.Fatal(err)
		}
		if got := array.BlockOf(e.Raw()) == at; got == exposed {
			t.Errorf("exposed %v: the next result reused the closed one's storage: %v", exposed, got)
		}
		for _, z := range keep {
			if z != -1 {
				t.Fatalf("a slice kept past Close reads %v, want -1", z)
			}
		}
	}
}

// TestPoolBounded: the pool never holds more than its limit, and blocks
// nobody takes leave it after two collections.
func TestPoolBounded(t *testing.T) {
	const limit = 4 * array.MinPooled
	old := array.SetPoolLimit(limit)
	defer array.SetPoolLimit(old)
	func() {
		var keep []*array.Array[float32]
		for range 64 {
			keep = append(keep, array.New[float32](array.MinPooled/4))
		}
		runtime.KeepAlive(keep)
	}()
	for i := 0; i < 50; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if held, _ := array.PoolHeld(); held > limit {
			t.Fatalf("the pool holds %d bytes, over its limit of %d", held, limit)
		}
		if held, _ := array.PoolHeld(); held == 0 && i >= 4 {
			return
		}
	}
	held, blocks := array.PoolHeld()
	t.Fatalf("the pool still holds %d bytes in %d blocks after 50 collections with no use", held, blocks)
}

// TestPoolClass: a class holds its size, wastes at most an eighth (or
// less than a page), and pooled blocks are 128-byte aligned.
func TestPoolClass(t *testing.T) {
	for _, n := range []int{array.MinPooled, array.MinPooled + 1, 100000, 1 << 20, 1<<20 + 128, 3 << 22, 1<<26 - 1} {
		c := array.PoolClass(n)
		if c < n || (c-n)*8 > n && c-n >= 8192 || c%8192 != 0 {
			t.Errorf("class of %d bytes is %d", n, c)
		}
		a := array.Empty[byte](n)
		if p := uintptr(a.Raw().HostPtr()); p%128 != 0 {
			t.Errorf("%d bytes at %#x: not 128-byte aligned", n, p)
		}
	}
}

// TestPoolDeviceFreed: a dropped Array with a device copy frees that copy
// as before, and its host storage comes back to the pool.
func TestPoolDeviceFreed(t *testing.T) {
	d := sim.New("pool", 0)
	h0, _ := array.PoolStats()
	func() {
		for range 8 {
			a := array.Empty[float32](array.MinPooled)
			if err := a.CopyToDevice(d); err != nil {
				t.Fatal(err)
			}
		}
	}()
	for i := 0; i < 100 && d.Stats().AllocsLive != 0; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if n := d.Stats().AllocsLive; n != 0 {
		t.Fatalf("%d device allocations live after their Arrays were dropped", n)
	}
	func() {
		for range 8 {
			runtime.KeepAlive(array.Empty[float32](array.MinPooled))
		}
	}()
	if h, _ := array.PoolStats(); h == h0 {
		t.Fatal("the dropped Arrays' host storage was not recycled")
	}
}

// settle empties the pool (a block unused over two collections leaves
// it) and sets the pacer's goal from the heap live now.
func settle() {
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond) // the pool's tick runs after each
	}
}

// dropLoop allocates n pooled Arrays of one class, each dropped, and
// returns the misses (new blocks) and the collections the pool asked for.
func dropLoop(n int) (misses, forced uint64) {
	_, m0 := array.PoolStats()
	f0 := array.PoolForced()
	for range n {
		a := array.Empty[float32](array.MinPooled / 4)
		runtime.KeepAlive(a)
	}
	_, m1 := array.PoolStats()
	return m1 - m0, array.PoolForced() - f0
}

// TestPoolDropLoop: a loop that drops each result, as NumPy code does,
// gets recycled blocks, not only when the pacer runs: past lendBudget
// since a collection, a miss asks for one and takes a block its
// finalizers bring back. With the pacer off, every result would be a new
// block; with it on, about half of each cycle's are (the pacer counts
// the pool's blocks as live).
func TestPoolDropLoop(t *testing.T) {
	const n = 1000 // 62.5 MiB
	old := array.SetLendBudget(1 << 20)
	defer array.SetLendBudget(old)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	settle()
	misses, forced := dropLoop(n)
	t.Logf("%d dropped results, collector off: %d new blocks, %d collections asked for", n, misses, forced)
	if want := uint64(n * array.MinPooled / (1 << 20) / 4); forced < want {
		t.Errorf("%d collections asked for over %d MiB lent at a 1 MiB budget; want at least %d", forced, n*array.MinPooled>>20, want)
	}
	if misses > n/5 {
		t.Errorf("%d of %d dropped results got new blocks; want at most a fifth", misses, n)
	}
}

// TestPoolLargeHeapFewCollections: with a large live heap, the pool asks
// for a collection only after lending half of it, so a drop loop next to
// 512 MiB of live data forces none over 128 MiB (at lendBudget alone it
// would force 8).
func TestPoolLargeHeapFewCollections(t *testing.T) {
	ballast := make([]byte, 512<<20) // pointer-free, never touched
	runtime.GC()
	_, forced := dropLoop(128 << 20 / array.MinPooled)
	runtime.KeepAlive(ballast)
	ballast = nil
	settle()
	if forced > 0 {
		t.Fatalf("%d collections asked for over 128 MiB lent beside a 512 MiB live heap; want none", forced)
	}
}
