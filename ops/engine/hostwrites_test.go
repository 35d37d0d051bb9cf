package engine_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
	"github.com/resident-go/resident/ops/engine"
)

// Random sequences of host writes (Data before first use, Data while
// current on both sides, Host then Data or SetAt), Memset, Memcpy, tensor.Copy and device ops (new results,
// into a reused destination — whole, a lazy transpose, or two rows of it —,
// in place, incremented, MatMul) on the engine's memory and on Go memory
// it adopts (gorgonia's registers), checked against the same sequence on
// tensor's standard engine. Between checks each slot's state is modelled:
// untyped (no op has used it: its host bytes are the truth), written on
// the host through Host, or current on the device; and every op must move
// exactly what that state asks: one upload per operand written on the host
// (an untyped operand only if it is not all zero), none for a destination
// it overwrites whole, one download per slot of Go memory it writes (too
// small to let its host copy go: copied home at once) and no other, and the engine scans host memory only
// for untyped memory an op reads (HostWork.Scanned), never clears any.
func TestHostWritesModel(t *testing.T) {
	e, dev := testEngine(t)
	for seed := range uint64(10) {
		runHostWrites(t, e, dev, seed)
	}
}

const side = 3 // every slot is a side×side float32 matrix

type hwSlot struct {
	d       *tensor.Dense // of the engine
	m       *tensor.Dense // the model: tensor's standard engine
	untyped bool          // no op has used it yet
	written bool          // written through Host since its last device use
	unknown bool          // residency not modelled (after Memcpy) until the next check
	goMem   bool          // Go memory given the engine, as gorgonia's registers
	both    bool          // current on both sides: checked, and no op since
	// views keeps the slot's views reachable: once the engine's last
	// Dense over a block is collected, the block is parked, and the model
	// has no collector (a parked block keeps no watch of its host copy,
	// so its next use uploads what it reads: with GOGC=1 this test saw
	// such uploads where the model says nothing moves)
	views []*tensor.Dense
}

// hwOperand is a view of a slot: all of it, its lazy transpose, or rows
// r0 and r0+1.
type hwOperand struct {
	s     *hwSlot
	kind  int // 0 whole, 1 transposed, 2 two rows
	r0    int
	d, m  *tensor.Dense
	whole bool // covers the slot
}

func (o hwOperand) String() string {
	return [...]string{"whole", "transposed", fmt.Sprintf("rows %d,%d", o.r0, o.r0+1)}[o.kind]
}

func view(t *testing.T, s *hwSlot, kind, r0 int) hwOperand {
	t.Helper()
	o := hwOperand{s: s, kind: kind, r0: r0, whole: kind != 2}
	if kind == 0 {
		o.d, o.m = s.d, s.m
		return o
	}
	mk := func(d *tensor.Dense) *tensor.Dense {
		var v tensor.View
		var err error
		if kind == 2 {
			v, err = d.Slice(tensor.S(r0, r0+2))
		} else {
			v, err = d.Slice(nil, nil)
		}
		must(t, err)
		vd := v.(*tensor.Dense)
		if kind == 1 {
			must(t, vd.T())
		}
		return vd
	}
	o.d, o.m = mk(s.d), mk(s.m)
	s.views = append(s.views, o.d)
	return o
}

func runHostWrites(t *testing.T, e *engine.Engine, dev device.Device, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 23))
	var slots []*hwSlot
	small := func() float32 { return float32(rng.IntN(9) - 4) }
	newSlot := func() *hwSlot {
		s := &hwSlot{untyped: true, goMem: rng.IntN(2) == 0}
		if s.goMem {
			s.d = tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(side, side))
			tensor.WithEngine(e)(s.d)
		} else {
			s.d = tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(side, side), tensor.WithEngine(e))
		}
		s.m = tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(side, side))
		slots = append(slots, s)
		return s
	}
	pick := func() *hwSlot { return slots[rng.IntN(len(slots))] }
	zero := func(s *hwSlot) bool {
		return !slices.ContainsFunc(s.m.Data().([]float32), func(x float32) bool { return x != 0 })
	}
	// operands draws n views of one shape: whole or transposed (square),
	// or two rows each.
	operands := func(n int, full bool) []hwOperand {
		rows := !full && rng.IntN(3) == 0
		var os []hwOperand
		for range n {
			s := pick()
			kind := rng.IntN(2)
			if rows {
				kind = 2
			}
			if s.goMem && s.untyped {
				// Go memory is adopted for the Dense first used, and let go
				// of when that is collected: gorgonia uses its registers
				// whole, so does this.
				kind, rows = 0, false
				for i := range os {
					os[i] = view(t, os[i].s, 0, 0)
				}
			}
			os = append(os, view(t, s, kind, rng.IntN(side-1)))
		}
		if !rows {
			for i := range os {
				if os[i].kind == 2 {
					os[i] = view(t, os[i].s, 0, 0)
				}
			}
		}
		return os
	}
	// need is what reading s costs: uploads and bytes scanned.
	need := func(s *hwSlot, zero bool) (h2d, scanned int64) {
		switch {
		case s.untyped && zero:
			return 0, int64(side * side * 4)
		case s.untyped:
			return 1, int64(side * side * 4)
		case s.written:
			return 1, 0
		}
		return 0, 0
	}
	var history []string
	idx := func(s *hwSlot) int { return slices.Index(slots, s) }
	check := func(where string) {
		for i, s := range slots {
			a, err := engine.Array[float32](e, s.d)
			must(t, err)
			h, err := a.HostReadOnly()
			must(t, err)
			if got, want := h.Data(), s.m.Data().([]float32); !sameSums(got, want) {
				t.Fatalf("%s: slot %d (Go memory %v) holds %v, the standard engine %v; the sequence since the last check:\n%s", where, i, s.goMem, got, want, strings.Join(history, "\n"))
			}
			must(t, ops.On(e.Device(), a)) // current on the device from here on
			s.untyped, s.written, s.unknown, s.both = false, false, false, true
		}
		history = history[:0]
	}

	for step := range 120 {
		if len(slots) < 3 {
			newSlot()
			continue
		}
		wasZero := map[*hwSlot]bool{} // before the op
		for _, s := range slots {
			wasZero[s] = zero(s)
		}
		var (
			what   string
			reads  []hwOperand // operands the op reads
			dsts   []hwOperand
			wrote  []*hwSlot // slots the op writes
			fresh  int64     // new results the op made
			exact  = true
			added  *hwSlot
			before = dev.Stats()
			work   = e.HostWork()
			err    error
		)
		switch k := rng.IntN(100); {
		case k < 10: // a new slot, maybe written through Data before its first use
			s := newSlot()
			if rng.IntN(2) == 0 {
				for range 1 + rng.IntN(3) {
					i, v := rng.IntN(side*side), small()
					s.d.Data().([]float32)[i] = v
					s.m.Data().([]float32)[i] = v
				}
			}
			continue
		case k < 16: // Data on a slot no op has used (gorgonia fills registers so)
			s := pick()
			if !s.untyped {
				continue
			}
			i, v := rng.IntN(side*side), small()
			s.d.Data().([]float32)[i] = v
			s.m.Data().([]float32)[i] = v
			history = append(history, fmt.Sprintf("step %d: Data write of slot %d", step, idx(s)))
			continue
		case k < 22: // Data on a slot current on both sides: uploaded when read
			s := pick()
			if !s.both || s.written {
				continue
			}
			i, v := rng.IntN(side*side), small()
			s.d.Data().([]float32)[i] = v
			s.m.Data().([]float32)[i] = v
			s.written = true
			history = append(history, fmt.Sprintf("step %d: Data write of slot %d, current on both sides", step, idx(s)))
			continue
		case k < 28: // through Host: Data or SetAt
			s := pick()
			h, err := engine.Host(s.d)
			must(t, err)
			i, j, v := rng.IntN(side), rng.IntN(side), small()
			if rng.IntN(2) == 0 {
				must(t, h.SetAt(v, i, j))
			} else {
				h.Data().([]float32)[i*side+j] = v
			}
			must(t, s.m.SetAt(v, i, j))
			s.written = !s.untyped
			history = append(history, fmt.Sprintf("step %d: Host write of slot %d at %d,%d", step, idx(s), i, j))
			continue
		case k < 36: // Memset of a view
			o := operands(1, false)[0]
			v := small()
			what = fmt.Sprintf("Memset(%v) of %v", v, o)
			err = e.Memset(o.d, v)
			must(t, o.m.Memset(v))
			dsts, wrote = append(dsts, o), append(wrote, o.s)
		case k < 44: // Memcpy or tensor.Copy of whole slots
			dst, src := pick(), pick()
			if rng.IntN(2) == 0 {
				what = "Memcpy"
				err = e.Memcpy(dst.d, src.d)
			} else {
				what = "tensor.Copy"
				err = tensor.Copy(dst.d, src.d)
			}
			must(t, tensor.Copy(dst.m, src.m))
			dst.unknown, src.unknown = true, true
			dst.both, src.both = false, false
			exact = false
		case k < 56: // a binary op into a new result
			os := operands(2, true)
			what = fmt.Sprintf("Add of %v and %v into a new result", os[0], os[1])
			r, err2 := tensor.Add(os[0].d, os[1].d)
			err = err2
			rm, err3 := tensor.Add(os[0].m, os[1].m)
			must(t, err3)
			reads = append(reads, os[0], os[1])
			if err == nil {
				fresh++
				s := &hwSlot{d: r.(*tensor.Dense), m: rm.(*tensor.Dense)}
				if s.d.Shape().Eq(tensor.Shape{side, side}) {
					s.m = s.m.Materialize().(*tensor.Dense)
					added = s
				}
			}
		case k < 70: // into a destination, or incremented
			os := operands(3, false)
			if os[2].s == os[0].s || os[2].s == os[1].s {
				continue // a destination over an operand in another layout: order-dependent
			}
			incr := rng.IntN(3) == 0
			opt, mopt := tensor.WithReuse(os[2].d), tensor.WithReuse(os[2].m)
			what = fmt.Sprintf("Mul of %v and %v into %v", os[0], os[1], os[2])
			if incr {
				opt, mopt = tensor.WithIncr(os[2].d), tensor.WithIncr(os[2].m)
				what = fmt.Sprintf("Mul of %v and %v added to %v", os[0], os[1], os[2])
				reads = append(reads, os[2])
			} else {
				dsts = append(dsts, os[2])
			}
			_, err = tensor.Mul(os[0].d, os[1].d, opt)
			_, err2 := tensor.Mul(os[0].m, os[1].m, mopt)
			must(t, err2)
			reads, wrote = append(reads, os[0], os[1]), append(wrote, os[2].s)
		case k < 80: // in place
			os := operands(2, false)
			if os[0].s == os[1].s && (os[0].kind != os[1].kind || os[0].r0 != os[1].r0) {
				continue // order-dependent, as above
			}
			what = fmt.Sprintf("Sub of %v and %v in place", os[0], os[1])
			_, err = tensor.Sub(os[0].d, os[1].d, tensor.UseUnsafe())
			_, err2 := tensor.Sub(os[0].m, os[1].m, tensor.UseUnsafe())
			must(t, err2)
			reads, wrote = append(reads, os[0], os[1]), append(wrote, os[0].s)
		case k < 92: // MatMul into a whole slot (gorgonia's registers)
			os := operands(2, true)
			dst := view(t, pick(), 0, 0)
			if dst.s == os[0].s || dst.s == os[1].s {
				continue
			}
			what = fmt.Sprintf("MatMul of %v and %v into a slot", os[0], os[1])
			_, err = tensor.MatMul(os[0].d, os[1].d, tensor.WithReuse(dst.d))
			_, err2 := tensor.MatMul(os[0].m, os[1].m, tensor.WithReuse(dst.m))
			must(t, err2)
			reads = append(reads, os[0], os[1])
			dsts, wrote = append(dsts, dst), append(wrote, dst.s)
		default:
			what = "check"
			check(fmt.Sprintf("seed %d step %d", seed, step))
			continue
		}
		where := fmt.Sprintf("seed %d step %d (%s)", seed, step, what)
		var on []string
		for _, o := range reads {
			on = append(on, fmt.Sprintf("read %d %v (untyped %v written %v)", idx(o.s), o, o.s.untyped, o.s.written))
		}
		for _, o := range dsts {
			on = append(on, fmt.Sprintf("dst %d %v (untyped %v written %v)", idx(o.s), o, o.s.untyped, o.s.written))
		}
		history = append(history, where+": "+strings.Join(on, ", "))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		moved, did := dev.Stats().Sub(before), e.HostWork().Sub(work)
		var h2d, scanned int64
		var still []*hwSlot // written on the host still, in part
		seen := map[*hwSlot]bool{}
		for _, o := range reads {
			s := o.s
			if seen[s] {
				if !o.whole && s.written && !s.untyped {
					exact = false // two views of a written slot: their boxes may overlap
				}
				continue
			}
			seen[s] = true
			exact = exact && !s.unknown
			u, b := need(s, wasZero[s])
			h2d, scanned = h2d+u, scanned+b
			if !o.whole && s.written && !s.untyped {
				still = append(still, s) // only the view's box went up
			}
		}
		for _, o := range dsts {
			if seen[o.s] {
				continue
			}
			seen[o.s] = true
			exact = exact && !o.s.unknown
			switch {
			case !o.whole && o.s.untyped:
				// The rest of the slot keeps what it holds: read as an operand.
				u, b := need(o.s, wasZero[o.s])
				h2d, scanned = h2d+u, scanned+b
			case !o.whole && o.s.written:
				// The rest stays host-newer, uploaded when read (where ops
				// runs the write is its residency rule's): values only.
				exact = false
				still = append(still, o.s)
			}
		}
		// Go memory an op wrote, too small to let its host copy go, comes
		// home at once where pages can be watched (one download each), and
		// any memory without userfaultfd: it is current on both sides after.
		var d2h int64
		if !resident() {
			d2h += fresh
		}
		home := map[*hwSlot]bool{}
		for _, s := range wrote {
			if (s.goMem || !resident()) && !home[s] {
				home[s] = true
				d2h++
			}
		}
		if exact && (moved.H2DCalls != h2d || moved.D2HCalls != d2h || did.Scanned != scanned) {
			t.Fatalf("%s: moved %d up, %d down, scanned %d B; the model says %d up, %d down, %d B scanned; the sequence since the last check:\n%s", where, moved.H2DCalls, moved.D2HCalls, did.Scanned, h2d, d2h, scanned, strings.Join(history, "\n"))
		}
		if did.Cleared != 0 || moved.D2HCalls != d2h && exact {
			t.Fatalf("%s: cleared %d B of host memory, moved %v", where, did.Cleared, moved)
		}
		for s := range seen {
			s.untyped, s.written, s.both = false, false, home[s]
		}
		for _, s := range still {
			s.written, s.unknown = true, true
		}
		if added != nil {
			slots = append(slots, added)
		}
	}
	check(fmt.Sprintf("seed %d, the end", seed))
}

// sameSums reports whether got and want, a slot's values, are equal:
// exactly while they are integers float32 holds exactly (below 2^24),
// within a rounding or two of the order of a sum at the slot's largest
// magnitude beyond (MatMul chains grow them, and a product past 2^24
// rounds in the sums of smaller elements too).
func sameSums(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	scale := 0.0 // the slot's largest magnitude: products past 2^24 round
	for _, w := range want {
		scale = max(scale, math.Abs(float64(w)))
	}
	for i, w := range want {
		g := got[i]
		if g == w {
			continue
		}
		if scale < 1<<24 || math.Abs(float64(g-w)) > scale*0x1p-21 {
			return false
		}
	}
	return true
}
