package array_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// lostCase is one drawn Array whose device closed while a download
// failed: root, the crop whose values were lost, and a model of what
// every other element holds (by root coordinates).
type lostCase struct {
	t        *testing.T
	rng      *rand.Rand
	d, d2    *sim.Device // d closes; d2 is a second device, still open
	injected error
	root     *array.Array[uint16]
	lost     *array.Array[uint16] // the crop whose download failed
	lostBox  [][2]int             // its coordinates per dimension, inclusive
	model    map[string]uint16    // values of the elements not lost
	// host views taken before the device writes, of the root and of lost
	oldRoot, oldLost array.HostView[uint16]
}

func key(c []int) string { return fmt.Sprint(c) }

// drawCrop returns a random non-empty crop of a within lo…hi of dimension k.
func drawCrop(rng *rand.Rand, a *array.Array[uint16], k, lo, hi int) *array.Array[uint16] {
	for i := range a.Rank() {
		d := a.Dim(i)
		mn, mx := d.Min, d.Max()
		if i == k {
			mn, mx = lo, hi
		}
		s := mn + rng.IntN(mx-mn+1)
		e := s + rng.IntN(mx-s+1)
		a = a.Crop(i, s, e-s+1)
	}
	return a
}

// rootCoords maps coordinates of v, a crop of the root perhaps
// transposed in dimensions 0 and 1, to the root's.
func rootCoords(c []int, transposed bool) []int {
	c = slices.Clone(c)
	if transposed {
		c[0], c[1] = c[1], c[0]
	}
	return c
}

func boxOf(a *array.Array[uint16], transposed bool) [][2]int {
	b := make([][2]int, a.Rank())
	for i, d := range a.Dims() {
		b[i] = [2]int{d.Min, d.Max()}
	}
	if transposed {
		b[0], b[1] = b[1], b[0]
	}
	return b
}

func overlapsBox(a, b [][2]int) bool {
	for k := range a {
		if a[k][1] < b[k][0] || b[k][1] < a[k][0] {
			return false
		}
	}
	return true
}

// newLostCase draws a root layout and two disjoint device-dirty crops on
// a computing sim device, then closes the device with the first download
// failing.
func newLostCase(t *testing.T, seed uint64) *lostCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	lc := &lostCase{t: t, rng: rng, d: sim.NewCompute("closing", 0), d2: sim.NewCompute("other", 0),
		injected: errors.New("driver: device lost"), model: map[string]uint16{}}
	rank := 2 + rng.IntN(2)
	ext := make([]int, rank)
	mins := make([]int, rank)
	for i := range ext {
		ext[i] = 2 + rng.IntN(5)
		mins[i] = rng.IntN(7) - 3
	}
	switch rng.IntN(3) {
	case 0:
		lc.root = array.NewWithMins[uint16](mins, ext)
	case 1:
		if rank == 3 {
			lc.root = array.NewInterleaved[uint16](ext[0], ext[1], ext[2])
		} else {
			lc.root = array.New[uint16](ext...)
		}
	default:
		var err error
		if lc.root, err = array.NewIn[uint16](lc.d, ext...); err != nil {
			t.Fatal(err)
		}
	}
	h, err := lc.root.Host()
	if err != nil {
		t.Fatal(err)
	}
	n := uint16(1000)
	each(lc.root.Dims(), func(c []int, _ int) {
		h.Set(n, c...)
		lc.model[key(c)] = n
		n++
	})
	// Two disjoint crops, split along dimension k.
	k := rng.IntN(rank)
	dk := lc.root.Dim(k)
	split := dk.Min + 1 + rng.IntN(dk.Extent-1)
	lost := drawCrop(rng, lc.root, k, dk.Min, split-1)
	kept := drawCrop(rng, lc.root, k, split, dk.Max())
	if rng.IntN(2) == 0 {
		lost, kept = drawCrop(rng, lc.root, k, split, dk.Max()), drawCrop(rng, lc.root, k, dk.Min, split-1)
	}
	lc.lost, lc.lostBox = lost, boxOf(lost, false)
	lc.oldRoot, _ = lc.root.Host()
	lc.oldLost, _ = lost.Host()
	for i, v := range []*array.Array[uint16]{lost, kept} {
		w, tr := v, rng.IntN(2) == 0 // write through a transposed view
		if tr {
			w = v.Transpose(0, 1)
		}
		val := uint16(5000 + 1000*i)
		if err := deviceWrite(t, lc.d, w, func(c []int) uint16 {
			r := rootCoords(c, tr)
			x := val + uint16(r[0]+10*r[1])
			if i == 1 {
				lc.model[key(r)] = x
			} else {
				delete(lc.model, key(r)) // lost: no value
			}
			return x
		}, false); err != nil {
			t.Fatal(err)
		}
	}
	lc.d.FailNext("CopyOut", lc.injected) // the first download: lost's
	if err := lc.d.Close(); err != nil {
		t.Fatal(err)
	}
	return lc
}

// view draws a view of the root: a crop, perhaps transposed.
func (lc *lostCase) view() (v *array.Array[uint16], tr bool) {
	switch lc.rng.IntN(4) {
	case 0:
		v = lc.root
	case 1:
		v = lc.lost
	default:
		k := lc.rng.IntN(lc.root.Rank())
		v = drawCrop(lc.rng, lc.root, k, lc.root.Dim(k).Min, lc.root.Dim(k).Max())
	}
	if lc.rng.IntN(2) == 0 {
		return v.Transpose(0, 1), true
	}
	return v, false
}

// checkLost fails unless err is the lost error: it wraps device.ErrClosed,
// array.ErrLost and the failed download's error, and names the device
// and the fix.
func (lc *lostCase) checkLost(what string, err error) {
	lc.t.Helper()
	switch {
	case err == nil:
		lc.t.Fatalf("%s of lost values: no error", what)
	case !errors.Is(err, device.ErrClosed) || !errors.Is(err, array.ErrLost) || !errors.Is(err, lc.injected):
		lc.t.Fatalf("%s of lost values: %v, want an error wrapping device.ErrClosed, array.ErrLost and the download's error", what, err)
	case !strings.Contains(err.Error(), lc.d.Name()) || !strings.Contains(err.Error(), "write them again"):
		lc.t.Fatalf("%s of lost values: %q does not name the device and the fix", what, err)
	}
}

// checkValues fails unless v's elements are the model's.
func (lc *lostCase) checkValues(what string, v array.ReadView[uint16], tr bool) {
	lc.t.Helper()
	for c, x := range v.All() {
		r := rootCoords(c, tr)
		want, ok := lc.model[key(r)]
		if !ok {
			lc.t.Fatalf("%s: element %v is lost, yet read", what, r)
		}
		if x != want {
			lc.t.Fatalf("%s: element %v = %d, want %d", what, r, x, want)
		}
	}
}

// reads is every host read path, each returning its error (nil: it read
// v, whose values it checked).
func (lc *lostCase) reads() map[string]func(v *array.Array[uint16], tr bool) error {
	return map[string]func(v *array.Array[uint16], tr bool) error{
		"HostReadOnly": func(v *array.Array[uint16], tr bool) error {
			h, err := v.HostReadOnly()
			if err == nil {
				lc.checkValues("HostReadOnly", h, tr)
			}
			return err
		},
		"Host": func(v *array.Array[uint16], tr bool) error {
			h, err := v.Host()
			if err == nil {
				lc.checkValues("Host", h.ReadView, tr)
			}
			return err
		},
		"CopyToHost": func(v *array.Array[uint16], tr bool) error { return v.CopyToHost() },
		"Compact": func(v *array.Array[uint16], tr bool) error {
			c, err := v.Compact()
			if err == nil {
				h, _ := c.HostReadOnly()
				lc.checkValues("Compact", h, tr)
				c.Close()
			}
			return err
		},
		"Equal": func(v *array.Array[uint16], tr bool) error {
			_, err := array.Equal(v, v)
			return err
		},
		"fmt": func(v *array.Array[uint16], tr bool) error {
			s := fmt.Sprint(v)
			if i := strings.Index(s, "%!v("); i >= 0 {
				return fmt.Errorf("printed %s", s[i:]) // checked by text below
			}
			return nil
		},
		"ops.Copy": func(v *array.Array[uint16], tr bool) error {
			dst := array.Like(v)
			defer dst.Close()
			if err := ops.Copy(dst, v); err != nil {
				return err
			}
			h, _ := dst.HostReadOnly()
			lc.checkValues("ops.Copy", h, tr)
			return nil
		},
		"ops.Add": func(v *array.Array[uint16], tr bool) error {
			dst := array.Like(v)
			defer dst.Close()
			return ops.Binary(dst, v, v, ops.OpAdd)
		},
		"ops.Clone": func(v *array.Array[uint16], tr bool) error {
			c, err := ops.Clone(lc.d2, v)
			if err == nil {
				c.Close()
			}
			return err
		},
	}
}

// TestLostAtDeviceClose draws Arrays (layouts, device-dirty crops
// written through transposes, views) whose device closes while the
// download of one device-dirty crop fails, and checks every host read
// path: a view overlapping the lost crop fails with the lost error,
// others read their values; partial writes keep the rest lost, a covering
// write makes it readable; nothing leaks.
func TestLostAtDeviceClose(t *testing.T) {
	for seed := range uint64(60) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { lostRound(t, seed) })
	}
}

func lostRound(t *testing.T, seed uint64) {
	lc := newLostCase(t, seed)
	defer func() {
		lc.root.Close()
		if s := lc.d2.Stats(); s.AllocsLive != 0 || s.BytesLive != 0 {
			t.Fatalf("second device after Close: %v", s)
		}
		if s := lc.d.Stats(); s.BytesLive != 0 || lc.d.HostBlocksLive() != 0 {
			t.Fatalf("closed device after the Array's Close: %v, %d host blocks", s, lc.d.HostBlocksLive())
		}
	}()
	if lc.root.Device() != nil || lc.root.DeviceDirty() {
		t.Fatal("the Array still points at the closed device")
	}
	oldRoot, oldLost := lc.oldRoot, lc.oldLost
	reads := lc.reads()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range reads {
			if !yield(n) {
				return
			}
		}
	})
	check := func(phase string) {
		t.Helper()
		for range 6 {
			v, tr := lc.view()
			if v.Len() == 0 {
				continue
			}
			over := false // v holds a value the model lost
			each(v.Dims(), func(c []int, _ int) {
				_, ok := lc.model[key(rootCoords(c, tr))]
				over = over || !ok
			})
			for _, n := range names {
				err := reads[n](v, tr)
				what := fmt.Sprintf("%s: %s of %v (transposed %v)", phase, n, boxOf(v, tr), tr)
				switch {
				case n == "fmt" && over:
					if err == nil || !strings.Contains(err.Error(), "write them again") {
						t.Fatalf("%s printed no lost error: %v", what, err)
					}
				case over:
					lc.checkLost(what, err)
				case err != nil:
					t.Fatalf("%s: %v (no lost value there)", what, err)
				}
			}
			// An old view's At on v's first element.
			c := make([]int, v.Rank())
			for i, d := range v.Dims() {
				c[i] = d.Min
			}
			r := rootCoords(c, tr)
			got, perr := catch(func() uint16 { return oldRoot.At(r...) })
			switch {
			case lc.root.DeviceDirty():
				if !errors.Is(perr, array.ErrStale) {
					t.Fatalf("%s: a stale old host view's At: %v, want ErrStale", phase, perr)
				}
			case lc.anyLost():
				// The old view's elements hold lost values: its reads panic.
				lc.checkLost(phase+": old host view's At", perr)
			case perr != nil:
				t.Fatalf("%s: old host view's At %v: %v", phase, r, perr)
			case got != lc.model[key(r)]:
				t.Fatalf("%s: old host view's At %v = %d, want %d", phase, r, got, lc.model[key(r)])
			}
			// Its Data and Values read too; printing it prints the error.
			_, derr := catch(func() int { return len(oldRoot.ReadView.Data()) })
			_, verr := catch(func() int {
				n := 0
				for range oldRoot.Values() {
					n++
				}
				return n
			})
			text := fmt.Sprint(oldRoot.ReadView)
			if !lc.root.DeviceDirty() && lc.anyLost() {
				lc.checkLost(phase+": old host view's Data", derr)
				lc.checkLost(phase+": old host view's Values", verr)
				if !strings.Contains(text, "write them again") {
					t.Fatalf("%s: old host view printed %q, want the lost error", phase, text)
				}
			} else if !lc.root.DeviceDirty() && (derr != nil || verr != nil || strings.Contains(text, "%!")) {
				t.Fatalf("%s: old host view with nothing lost: Data %v, Values %v, printed %q", phase, derr, verr, text)
			}
		}
	}
	check("after close")

	// Uploads to another device and moves read the host copy.
	if err := lc.lost.CopyToDevice(lc.d2); err != nil {
		lc.checkLost("CopyToDevice", err)
	} else {
		t.Fatal("CopyToDevice of lost values: no error")
	}
	if _, err := lc.lost.MoveTo(lc.d2); err != nil {
		lc.checkLost("MoveTo", err)
	} else {
		t.Fatal("MoveTo of lost values: no error")
	}
	if lc.rng.IntN(2) == 0 {
		// A disjoint view uploads fine; the root then lives on d2, and
		// the lost values stay lost there.
		last := lc.root.Rank() - 1
		for x := lc.root.Dim(last).Min; x <= lc.root.Dim(last).Max(); x++ {
			if v := lc.root.Crop(last, x, 1); !overlapsBox(boxOf(v, false), lc.lostBox) {
				if err := v.CopyToDevice(lc.d2); err != nil {
					t.Fatalf("CopyToDevice of a view with no lost value: %v", err)
				}
			}
		}
		check("after a disjoint upload")
	}

	// A partial write keeps the rest lost.
	if lc.lost.Len() > 1 {
		k := slices.IndexFunc(lc.lost.Dims(), func(d array.Dim) bool { return d.Extent > 1 })
		p := lc.lost.Crop(k, lc.lost.Dim(k).Min, 1)
		if err := ops.Fill(p, 9); err != nil {
			t.Fatalf("ops.Fill of %v (device %v): %+v", boxOf(p, false), lc.root.Device(), err)
		}
		each(p.Dims(), func(c []int, _ int) { lc.model[key(c)] = 9 })
		if h, err := p.HostReadOnly(); err != nil {
			t.Fatalf("the written part of the lost values: %v", err)
		} else {
			lc.checkValues("partial write", h, false)
		}
		_, err := lc.lost.HostReadOnly()
		lc.checkLost("read after a partial write", err)
		// A host view's Set writes one element: the rest stays lost.
		if !lc.root.DeviceDirty() {
			oldLost.Set(8, lc.lostCorner(true)...)
			_, err := lc.lost.HostReadOnly()
			lc.checkLost("read after a host view's Set", err)
		}
		check("after a partial write")
	}

	// A covering write makes every value readable again.
	switch w := lc.rng.IntN(4); {
	case w == 0 || lc.root.DeviceDirty() && w != 3:
		if err := ops.Fill(lc.root, 3); err != nil {
			t.Fatal(err)
		}
		each(lc.root.Dims(), func(c []int, _ int) { lc.model[key(c)] = 3 })
	case w == 1:
		oldRoot.Fill(4)
		each(lc.root.Dims(), func(c []int, _ int) { lc.model[key(c)] = 4 })
	case w == 2:
		src := array.NewWithMins[uint16](array.Box(lc.lost.Dims()))
		sh, _ := src.Host()
		sh.Fill(6)
		sv, _ := src.HostReadOnly()
		oldLost.CopyFrom(sv)
		each(lc.lost.Dims(), func(c []int, _ int) { lc.model[key(c)] = 6 })
		src.Close()
	default: // a device write on the second device
		if err := deviceWrite(t, lc.d2, lc.lost.Transpose(0, 1), fill(7), false); err != nil {
			t.Fatal(err)
		}
		each(lc.lost.Dims(), func(c []int, _ int) { lc.model[key(c)] = 7 })
	}
	if lc.anyLost() {
		t.Fatal("test bug: the covering write left values lost in the model")
	}
	check("after a covering write")
}

// anyLost reports whether the model misses an element: lost values remain.
func (lc *lostCase) anyLost() bool {
	return len(lc.model) < lc.root.Len()
}

// lostCorner is the lost crop's min corner (or max corner).
func (lc *lostCase) lostCorner(max bool) []int {
	c := make([]int, lc.lost.Rank())
	for i, d := range lc.lost.Dims() {
		c[i] = d.Min
		if max {
			c[i] = d.Max()
		}
	}
	return c
}

// catch runs f and returns its result or the error it panicked with.
func catch[T any](f func() T) (x T, err error) {
	defer func() {
		if p := recover(); p != nil {
			if err, _ = p.(error); err == nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}
	}()
	return f(), nil
}

// TestLostArrayCollected: a lost Array dropped without Close gives its
// pinned host block and its allocation on another device back through the
// collector, as any dropped Array does.
func TestLostArrayCollected(t *testing.T) {
	d, d2 := sim.NewCompute("closing", 0), sim.NewCompute("other", 0)
	func() {
		a, err := array.NewIn[uint16](d, 8, 4)
		if err != nil {
			t.Fatal(err)
		}
		deviceWrite(t, d, a.Crop(1, 0, 2), fill(5), false)
		d.FailNext("CopyOut", errors.New("driver: device lost"))
		d.Close()
		if err := a.Crop(1, 2, 2).CopyToDevice(d2); err != nil {
			t.Fatal(err)
		}
		if _, err := a.HostReadOnly(); !errors.Is(err, array.ErrLost) {
			t.Fatalf("read of lost values: %v", err)
		}
	}()
	for i := 0; i < 100 && (d.HostBlocksLive() != 0 || d2.Stats().AllocsLive != 0); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if d.HostBlocksLive() != 0 || d2.Stats().AllocsLive != 0 {
		t.Fatalf("a dropped lost Array leaked: %d host blocks, %v", d.HostBlocksLive(), d2.Stats())
	}
}

// TestLostMarkedWritten: Halide's set_host_dirty and set_device_dirty say
// a writer wrote every element of the view, so its lost values are no
// longer; the rest of the root stays lost.
func TestLostMarkedWritten(t *testing.T) {
	for seed := range uint64(8) {
		lc := newLostCase(t, seed)
		if seed%2 == 0 {
			lc.lost.SetHostDirty(true)
		} else {
			d := sim.NewCompute("next", 0)
			defer d.Close()
			if err := lc.lost.DeviceMalloc(d); err != nil {
				t.Fatal(err)
			}
			lc.lost.SetHostDirty(false) // a device writer writes every element next
			lc.lost.SetDeviceDirty(true)
		}
		if _, err := lc.lost.HostReadOnly(); err != nil {
			t.Errorf("seed %d: the view marked written: %v", seed, err)
		}
		if _, err := lc.root.HostReadOnly(); err != nil {
			t.Errorf("seed %d: the root: %v (only lost's box was lost)", seed, err)
		}
		lc.root.Close()
	}
}
