package ops

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// fuseOnePassCase draws a fused reduction (the element type's cast of a
// uint8 operand, scaled, plus a T operand, of drawn layout and extents;
// EvalSum, EvalSumAll, EvalMinAll or EvalMaxAll) and runs it on d with
// the one-pass ending (fuse_one) and with the two-pass one (fuse_part and
// fuse_fin), each twice with the operands changed on the device in
// between (so that a counter not set back to zero, or a stale partial,
// shows), against the same expression on host copies. Values are small
// integers and at most 2^14 elements, so every order of the adds gives
// the same sum: results must be equal. Launches are counted: one against
// two (one more where the counters are first made).
func fuseOnePassCase[T array.Elem](t *testing.T, d *opencl.Device, r *rand.Rand, i int) {
	rank := 1 + r.IntN(3)
	ext := make([]int, rank)
	for k := range ext {
		ext[k] = 1 + int(math.Exp(r.Float64()*math.Log(float64(int(1)<<(14/rank)))))
	}
	layout := devLayouts[r.IntN(len(devLayouts))]
	mode := r.IntN(4)
	scale := T(1 + r.IntN(2)) // 1 or 2: exact
	seed := r.Uint64()
	small := func(k uint64) func() T {
		g := rand.New(rand.NewPCG(seed, k))
		return func() T { return T(g.IntN(100)) }
	}
	byte8 := func() func() uint8 {
		g := rand.New(rand.NewPCG(seed, 3))
		return func() uint8 { return uint8(g.IntN(256)) }
	}
	// host and device operands alike: the same layouts (mins too) and values
	hu := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, byte8())
	du := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, byte8())
	hx := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, small(4))
	dx := makeView(rand.New(rand.NewPCG(seed, 1)), layout, ext, small(4))
	defer func() {
		for _, a := range []interface{ Close() error }{hu, du, hx, dx} {
			a.Close()
		}
	}()
	must(t, On(d, du, dx))
	expr := func(u *array.Array[uint8], x *array.Array[T]) Expr[T] {
		return AsType[T](In(u)).Scale(scale).Binary(OpAdd, In(x))
	}
	eval := func(u *array.Array[uint8], x *array.Array[T], dst *array.Array[T]) (T, error) {
		switch mode {
		case 0:
			if err := EvalSum(dst, expr(u, x)); err != nil {
				var z T
				return z, err
			}
			v, err := dst.HostReadOnly()
			if err != nil {
				var z T
				return z, err
			}
			return v.At(), nil
		case 1:
			return EvalSumAll(expr(u, x))
		case 2:
			return EvalMinAll(expr(u, x))
		}
		return EvalMaxAll(expr(u, x))
	}
	what := fmt.Sprintf("case %d: %s of %v's cast ×%v + %v, %v %s", i,
		[...]string{"EvalSum", "EvalSumAll", "EvalMinAll", "EvalMaxAll"}[mode], "uint8", scale, typeName[T](), ext, layout)
	for _, one := range []bool{true, false} {
		reduceOnePass = one
		for round := range 2 {
			hd, dd := array.New[T](), array.New[T]()
			must(t, On(d, dd))
			want, err := eval(hu, hx, hd)
			must(t, err)
			clear := fuseCountersMissing(d)
			before := d.Stats()
			var got T
			if mode == 0 { // the launches before the read-back
				must(t, EvalSum(dd, expr(du, dx)))
			} else {
				got, err = eval(du, dx, dd)
				must(t, err)
			}
			if n, w := d.Stats().Sub(before).Launches, fuseReduceLaunches(d, clear); n != w {
				t.Errorf("%s, one-pass %v: %d launches, want %d", what, one, n, w)
			}
			if mode == 0 {
				if dd.Device() != d || !dd.DeviceDirty() {
					t.Errorf("%s: EvalSum's dst not device-dirty on %s", what, d.Name())
				}
				v, err := dd.HostReadOnly()
				must(t, err)
				got = v.At()
			}
			if !same(got, want) {
				t.Errorf("%s, one-pass %v, round %d: device %v, host %v", what, one, round, got, want)
			}
			// the next round's operands: changed on the device
			must(t, BinaryScalar(hx, hx, T(round+1), OpAdd))
			must(t, BinaryScalar(dx, dx, T(round+1), OpAdd))
			hd.Close()
			dd.Close()
		}
	}
}

// TestFuseOnePass: fused reductions whose last work-group joins the
// partials (fuse_one) agree with the host over drawn element types,
// layouts, extents and reductions, on PoCL, where the work-groups of one
// launch run on several threads; the two-pass path agrees too, and
// launches tell the paths apart.
func TestFuseOnePass(t *testing.T) {
	drawOnePass(t, 21, 24, 8, fuseOnePassCase[float32], fuseOnePassCase[int32], fuseOnePassCase[float64], fuseOnePassCase[int64])
}

// fuseOnePassRepeated queues rounds of (Fill u with v = 2^(k mod 8),
// EvalSum of u's float32 cast ×2 into element k of dst) with no wait
// between them, then reads dst: each round's sum must be 2·n·v (exact in
// float32 in any order of the adds: every partial is v times a count). Every round runs fuse_one
// over the same partials and counter, so a last work-group that read a
// partial of the round before, or a counter not set back to zero, gives a
// wrong element.
func fuseOnePassRepeated(t *testing.T, d oneDevice, n, rounds int) {
	u, dst := array.New[uint8](n), array.New[float32](rounds)
	defer u.Close()
	defer dst.Close()
	must(t, On(d, u, dst))
	e := AsType[float32](In(u)).Scale(2)
	must(t, EvalSum(dst.Slice(0, 0), e)) // the build and the counters, before counting
	must(t, d.Sync())
	before := d.Stats()
	for k := range rounds {
		must(t, Fill(u, uint8(1)<<(k%8)))
		must(t, EvalSum(dst.Slice(0, k), e))
	}
	must(t, d.Sync())
	if got, want := d.Stats().Sub(before).Launches, int64(2*rounds); got != want {
		t.Errorf("%d rounds of Fill and EvalSum: %d launches, want %d", rounds, got, want)
	}
	checkRounds(t, d, dst, fmt.Sprintf("EvalSum (n %d)", n), func(k int) float32 { return 2 * float32(n) * float32(int(1)<<(k%8)) })
}

// TestFuseOnePassRepeated runs fuseOnePassRepeated on the OpenCL device
// and, where there is one with kernels, the CUDA device: on a GPU (the
// H200) 2^24 elements over 300 rounds.
func TestFuseOnePassRepeated(t *testing.T) {
	saveReduceTuning(t)
	reduceOnePass = true
	onKernelDevices(t, fuseOnePassRepeated)
}

// TestFuseOnePassFailure: a fused reduction whose counters cannot be
// allocated (Malloc fails) or whose launches cannot be queued (red_clear
// before the counters exist, fuse_one after) returns the error, leaves no allocation live and no counters held; the next call,
// with the device working again, makes the counters (red_clear, then
// fuse_one) and returns the right sum, and the one after is one launch.
func TestFuseOnePassFailure(t *testing.T) {
	testDev(t)
	saveReduceTuning(t)
	cl, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer cl.Close()
	// the Arrays live on cl; the reduction's ending goes through f
	f := &failKernels{Device: cl}
	defer func(end func(devRef) devRef) { fuseEnd = end }(fuseEnd)
	fuseEnd = func(s devRef) devRef { return devRef{s.devState, f} }
	const n = 5000
	u := array.New[uint8](n)
	defer u.Close()
	must(t, Fill(u, 3))
	must(t, On(cl, u))
	e := AsType[float32](In(u)).Scale(2)
	// the two-pass path first: the program, the scratch and u's copy exist
	reduceOnePass = false
	if v, err := EvalSumAll(e); err != nil || v != 6*n {
		t.Fatalf("two-pass EvalSumAll = %v, %v; want %v", v, err, 6*n)
	}
	reduceOnePass = true
	dst := array.New[float32]()
	defer dst.Close()
	must(t, On(cl, dst))
	s := stateOf(cl)
	live := cl.Stats().AllocsLive
	for _, c := range []struct {
		name            string
		malloc, enqueue bool
	}{{"Malloc", true, false}, {"Enqueue", false, true}} {
		f.malloc, f.enqueue = c.malloc, c.enqueue
		if _, err := EvalSumAll(e); !errors.Is(err, errInjected) {
			t.Errorf("%s fails: EvalSumAll = %v, want the injected error", c.name, err)
		}
		if err := EvalSum(dst, e); !errors.Is(err, errInjected) {
			t.Errorf("%s fails: EvalSum = %v, want the injected error", c.name, err)
		}
		if s.counters != nil || s.countersN != 0 || cl.Stats().AllocsLive != live {
			t.Errorf("%s fails: counters %v (%d), %d allocations live, want none and %d", c.name, s.counters, s.countersN, cl.Stats().AllocsLive, live)
		}
	}
	f.malloc, f.enqueue = false, false
	for i, want := range []int64{2, 1} { // red_clear and fuse_one, then fuse_one
		before := cl.Stats()
		if v, err := EvalSumAll(e); err != nil || v != 6*n {
			t.Errorf("call %d after the failures: EvalSumAll = %v, %v; want %v", i, v, err, 6*n)
		}
		if got := cl.Stats().Sub(before).Launches; got != want {
			t.Errorf("call %d after the failures: %d launches, want %d", i, got, want)
		}
	}
	// a failed fuse_one launch once the counters exist leaves them at 0
	f.enqueue = true
	if _, err := EvalSumAll(e); !errors.Is(err, errInjected) {
		t.Errorf("Enqueue fails with counters: EvalSumAll = %v, want the injected error", err)
	}
	if err := EvalSum(dst, e); !errors.Is(err, errInjected) {
		t.Errorf("Enqueue fails with counters: EvalSum = %v, want the injected error", err)
	}
	f.enqueue = false
	if v, err := EvalSumAll(e); err != nil || v != 6*n {
		t.Errorf("after a failed launch: EvalSumAll = %v, %v; want %v", v, err, 6*n)
	}
	if got := cl.Stats().AllocsLive; got != live+1 {
		t.Errorf("%d allocations live, want %d (the counters added)", got, live+1)
	}
}

// TestFuseFenceFallback: where the one-pass fence does not build (forced
// on PoCL with an #error), a fused reduction's program is built without
// it, the reason is kept, and fused reductions take the two-pass path
// (two launches) with the right values.
func TestFuseFenceFallback(t *testing.T) {
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
	u := array.New[uint8](n)
	defer u.Close()
	must(t, Fill(u, 3))
	must(t, On(d, u))
	e := AsType[float32](In(u)).Scale(0.5)
	for range 2 {
		before := d.Stats()
		v, err := EvalSumAll(e)
		must(t, err)
		if got := d.Stats().Sub(before).Launches; got != 2 {
			t.Errorf("EvalSumAll without the fence: %d launches, want the two-pass path's 2", got)
		}
		if v != 1.5*n {
			t.Errorf("EvalSumAll = %v, want %v", v, 1.5*n)
		}
	}
	s := stateOf(d)
	if s.onePass() || s.fenceErr == nil || !strings.Contains(s.fenceErr.Error(), "injected") {
		t.Errorf("one-pass %v, fence error %v: want off, with the build's error", s.onePass(), s.fenceErr)
	}
}

// TestFuseDense: fused reductions over contiguous leaves take the dense
// path (a vector of each leaf a step) where every leaf starts at a
// multiple of its width, and the element-at-a-time path otherwise; drawn
// lengths (ragged ends, fewer elements than a vector), start offsets and
// two leaf types, on the OpenCL device and, where it has kernels, the
// CUDA one, equal the exact sum (small integers: float32 adds them
// exactly in any order) in one launch.
func TestFuseDense(t *testing.T) {
	saveReduceTuning(t)
	reduceOnePass = true
	onKernelDevices(t, func(t *testing.T, d oneDevice, big, _ int) {
		if !strings.Contains(clPlanSource(), "s.off[1] % 4 == 0") {
			t.Fatal("the fused reduction's source has no dense path")
		}
		r := rand.New(rand.NewPCG(24, 12))
		for i := range 24 {
			// at most 2^21 elements of at most 8: every partial sum stays
			// below 2^24, where float32 holds integers exactly (past the
			// GPU's grid several times over)
			n := 1 + int(math.Exp(r.Float64()*math.Log(float64(min(big, 1<<21)))))
			ou, ox := r.IntN(9), r.IntN(9) // starts: aligned to 4 or not
			u, x := array.New[uint8](n+ou), array.New[float32](n+ox)
			uv, _ := u.Host()
			xv, _ := x.Host()
			want := 0.0
			for j := range n {
				a, b := uint8(r.IntN(4)), float32(r.IntN(3))
				uv.Data()[ou+j], xv.Data()[ox+j] = a, b
				want += 2*float64(a) + float64(b)
			}
			must(t, On(d, u, x))
			e := AsType[float32](In(u.Crop(0, ou, n).SetMin(0))).Scale(2).Binary(OpAdd, In(x.Crop(0, ox, n).SetMin(0)))
			if _, err := EvalSumAll(e); err != nil { // the build and the counters
				t.Fatal(err)
			}
			before := d.Stats()
			got, err := EvalSumAll(e)
			if err != nil || float64(got) != want {
				t.Errorf("case %d: %d elements from %d and %d: EvalSumAll = %v, %v; want %v", i, n, ou, ox, got, err, want)
			}
			if l := d.Stats().Sub(before).Launches; l != 1 {
				t.Errorf("case %d: %d launches, want 1", i, l)
			}
			u.Close()
			x.Close()
		}
	})
}

// clPlanSource is the fused reduction source of TestFuseDense's
// expression shape (uint8 cast, scaled, plus a float32 leaf), summed.
func clPlanSource() string {
	u, x := array.New[uint8](8), array.New[float32](8)
	e := AsType[float32](In(u)).Scale(2).Binary(OpAdd, In(x))
	return newPlan("EvalSumAll", e.node("EvalSumAll")).source(redSum, true, false, false)
}
