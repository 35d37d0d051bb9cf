package ops

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/draw"
)

// The differential test: generated cases of every op and element type,
// operands drawn from the layout and residency generators of gen_test.go,
// results compared with references computed here with plain loops, and
// where the op ran checked against the placement rule of doc.go (device
// Stats, Device, DeviceDirty). The same cases run on the device (PoCL in
// CI) and on the host path. Each run draws its cases from the run's seed
// (package draw: the UTC day), so successive runs cover new ones; a
// failure prints the -diff.seed and -diff.case that replay it. Run with
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run Diff ./ops
//	go test -run 'Diff/device' ./ops -diff.n 5000 -diff.seed 7   # more cases
//	go test -run 'Diff/device' ./ops -diff.case 123 -v           # one case, its choices logged

var (
	diffN    = flag.Int("diff.n", 0, "cases per side of TestDiff (0: 800, 200 under -race)")
	diffSeed = flag.Uint64("diff.seed", 0, "seed of TestDiff's and TestDiffNumPy's cases (0: the run's, package draw)")
	diffCase = flag.Int("diff.case", -1, "run only this case of TestDiff")
)

func diffBudget() int {
	if *diffN > 0 {
		return *diffN
	}
	return raceCases(800, 200)
}

// seedOf is the seed of t's drawn cases: -diff.seed, else the run's
// (package draw: the UTC day, so each day's run draws new cases).
func seedOf(t testing.TB) uint64 {
	t.Helper()
	if *diffSeed != 0 {
		return *diffSeed
	}
	return draw.Seed(t)
}

// Op families.
const (
	famBinary = iota
	famBinaryScalar
	famUnary
	famCompare
	famCompareScalar
	famWhere
	famCopy
	famTranspose
	famFill
	famIota
	famCast
	famReduce
	famReduceAll
	famMatMul
	famClassify
	famClip
	famAlong
	famFuse
	nFam
)

var famNames = [...]string{"Binary", "BinaryScalar", "Unary", "Compare", "CompareScalar", "Where", "Copy",
	"Transpose", "Fill", "Iota", "Cast", "Reduce", "ReduceAll", "MatMul", "Classify", "Clip", "Along", "Fuse"}

// diffRunner runs a family for one element type.
type diffRunner interface {
	name() string
	run(g *dgen, fam int)
}

type dr[T array.Elem] struct{}

func (dr[T]) name() string { return typeName[T]() }
func (dr[T]) run(g *dgen, fam int) {
	switch fam {
	case famBinary, famBinaryScalar:
		diffBinary[T](g, fam == famBinaryScalar)
	case famUnary:
		diffUnary[T](g)
	case famCompare, famCompareScalar:
		diffCompare[T](g, fam == famCompareScalar)
	case famWhere:
		diffWhere[T](g)
	case famCopy:
		diffCopy[T](g)
	case famTranspose:
		diffTranspose[T](g)
	case famFill:
		diffFill[T](g)
	case famIota:
		diffIota[T](g)
	case famCast:
		diffCastTo[T](g)
	case famReduce:
		diffReduce[T](g)
	case famReduceAll:
		diffReduceAll[T](g)
	case famClassify:
		diffClassify[T](g)
	case famClip:
		diffClip[T](g)
	case famAlong:
		diffAlong[T](g)
	case famFuse:
		diffFuse[T](g)
	case famMatMul:
		switch any(*new(T)).(type) {
		case float64:
			diffMatMul[float64](g)
		default:
			diffMatMul[float32](g)
		}
	}
}

var diffTypes = []diffRunner{dr[int8]{}, dr[int16]{}, dr[int32]{}, dr[int64]{}, dr[uint8]{}, dr[uint16]{},
	dr[uint32]{}, dr[uint64]{}, dr[float32]{}, dr[float64]{}, dr[array.Float16]{}, dr[array.BFloat16]{}}

func TestDiff(t *testing.T) {
	seed := seedOf(t)
	var cl device.Device
	if d, err := opencl.Default(); err != nil {
		t.Logf("no OpenCL device (%v): sim and the host side only", err)
	} else {
		cl = d
	}
	// The same cases on a simulated device that computes with the host
	// kernels behind a device boundary: placement and counted copies are
	// checked with no OpenCL driver.
	sd := sim.NewCompute("diff", 0)
	defer sd.Close()
	n := diffBudget()
	eachSide(t, cl, sd, func(t *testing.T, dev device.Device) {
		var where [nFam][2]int // per family: cases on the host, on the device
		for i := range n {
			if *diffCase >= 0 && i != *diffCase {
				continue
			}
			runDiffCase(t, dev, seed, i, &where[i%nFam])
		}
		var sum [2]int
		var line []string
		for f, w := range where {
			sum[0], sum[1] = sum[0]+w[0], sum[1]+w[1]
			line = append(line, fmt.Sprintf("%s %d/%d", famNames[f], w[1], w[0]+w[1]))
		}
		t.Logf("ran on the device (by the rule): %s", strings.Join(line, ", "))
		if dev != nil && *diffCase < 0 && n >= 100 && sum[1] < (sum[0]+sum[1])/4 {
			t.Errorf("only %d of %d cases ran on the device: the residency generator is off", sum[1], sum[0]+sum[1])
		}
	})
}

// eachSide runs fn as subtests on the sides of a differential test:
// "device" (cl, skipped when nil), "cuda" (cudaKernels: device/cuda's
// Default with NVRTC, skipped naming what is missing, and under -short),
// "sim" (sd) and "host" (nil).
func eachSide(t *testing.T, cl, sd device.Device, fn func(t *testing.T, dev device.Device)) {
	for _, side := range []string{"device", "cuda", "sim", "host"} {
		t.Run(side, func(t *testing.T) {
			var dev device.Device
			switch side {
			case "device":
				if cl == nil {
					t.Skip("no OpenCL device")
				}
				dev = cl
			case "cuda":
				if testing.Short() {
					t.Skip("-short: the cuda side builds every program with NVRTC (bench/h200.sh's cuda-ops step runs it)")
				}
				d, err := cudaKernels()
				if err != nil {
					t.Skip(err)
				}
				dev = d
			case "sim":
				dev = sd
			}
			fn(t, dev)
		})
	}
}

// runDiffCase runs case i of seed: family i mod nFam, a random type.
func runDiffCase(t *testing.T, d device.Device, seed uint64, i int, where *[2]int) {
	sub := &failLog{TB: t}
	g := &dgen{tb: sub, r: rand.New(rand.NewPCG(seed, uint64(i))), d: d, where: where}
	if c, ok := d.(device.Compute); ok {
		g.fp64 = c.Caps().FP64
	}
	fam := i % nFam
	tr := diffTypes[g.n(len(diffTypes))]
	func() {
		defer func() {
			if r := recover(); r != nil && r != errCaseFatal {
				sub.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		tr.run(g, fam)
	}()
	if sub.failed {
		t.Errorf("case %d (%s %s, reproduce with -diff.seed %d -diff.case %d):\n\t%s\n\t%s",
			i, famNames[fam], tr.name(), seed, i, strings.Join(g.log, "\n\t"), strings.Join(sub.msgs, "\n\t"))
	} else if *diffCase >= 0 {
		t.Logf("case %d (%s %s):\n\t%s", i, famNames[fam], tr.name(), strings.Join(g.log, "\n\t"))
	}
}

// failLog collects a case's failures so that they print with its choices.
type failLog struct {
	testing.TB
	failed bool
	msgs   []string
}

func (f *failLog) Errorf(format string, args ...any) {
	f.failed = true
	if len(f.msgs) < 6 {
		f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	}
}

func (f *failLog) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	panic(errCaseFatal)
}

func (f *failLog) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

var errCaseFatal = errors.New("case stopped")

// resident is what placement reads of an operand.
type resident interface {
	Len() int
	Device() device.Device
	DeviceDirty() bool
	HostDirty() bool
	HostOnly() bool
}

// placed is the rule of doc.go, applied before an op: where it runs,
// whether its inputs are all current on the device, whether an input or
// any operand is device-dirty.
type placed struct {
	dev, current, inDirty, anyDirty bool
	before                          device.Stats
}

// expect computes placement the way doc.go states it; f64 says an
// operand is float64.
func (g *dgen) expect(f64 bool, dst resident, ins ...resident) placed {
	var p placed
	if g.d == nil {
		if g.where != nil {
			g.where[0]++
		}
		return p
	}
	p.before = g.d.Stats()
	if dst != nil && dst.Len() == 0 {
		return p
	}
	hostOnly, anyIn := false, false
	p.current = true
	for k, o := range append([]resident{dst}, ins...) {
		if o == nil || o.Len() == 0 {
			continue
		}
		hostOnly = hostOnly || o.HostOnly()
		p.anyDirty = p.anyDirty || o.DeviceDirty()
		if k == 0 {
			continue
		}
		p.inDirty = p.inDirty || o.DeviceDirty()
		if o.HostOnly() {
			continue
		}
		anyIn = true
		if o.Device() != g.d || o.HostDirty() {
			p.current = false
		}
	}
	if !anyIn {
		p.current = dst != nil && dst.Device() == g.d && !dst.HostDirty()
	}
	p.dev = !hostOnly && (!f64 || g.fp64) && (p.anyDirty || p.current)
	if g.where != nil {
		if p.dev {
			g.where[1]++
		} else {
			g.where[0]++
		}
	}
	g.note("expect %s (inputs current %v, device-dirty operand %v)", map[bool]string{true: "device", false: "host"}[p.dev], p.current, p.anyDirty)
	return p
}

// check asserts where the op ran: counters and dst's residency.
func (g *dgen) check(p placed, dst resident, ins ...resident) {
	if g.d == nil {
		if dst != nil && dst.DeviceDirty() {
			g.tb.Errorf("host path: dst device-dirty")
		}
		return
	}
	s := g.d.Stats().Sub(p.before)
	if p.dev {
		if s.D2HCalls != 0 {
			g.tb.Errorf("ran on the device but copied to host: %v", s)
		}
		if p.current && s.H2DCalls != 0 {
			g.tb.Errorf("inputs all current on the device, yet %d H2D", s.H2DCalls)
		}
		if !p.current && s.H2DCalls == 0 && anyNeedsUpload(g.d, ins) {
			g.tb.Errorf("a host-newer input ran on the device without a counted upload")
		}
		if dst != nil && dst.Len() > 0 && (!dst.DeviceDirty() || dst.Device() != g.d) {
			g.tb.Errorf("the rule says device, but dst is not device-dirty there (DeviceDirty %v)", dst.DeviceDirty())
		}
		return
	}
	if s.H2DCalls != 0 {
		g.tb.Errorf("ran on the host but uploaded: %v", s)
	}
	if !p.anyDirty && s.D2HCalls != 0 {
		g.tb.Errorf("no operand device-dirty, yet %d D2H", s.D2HCalls)
	}
	if p.inDirty && s.D2HCalls == 0 {
		g.tb.Errorf("a device-dirty input was used on the host without a counted D2H")
	}
	if dst != nil && dst.DeviceDirty() {
		g.tb.Errorf("the rule says host, but dst is device-dirty")
	}
}

func anyNeedsUpload(d device.Device, ins []resident) bool {
	for _, o := range ins {
		if o != nil && o.Len() > 0 && !o.HostOnly() && (o.Device() != d || o.HostDirty()) {
			return true
		}
	}
	return false
}

// finish checks an op's outcome: where it ran when it succeeded
// (check), then its error (expectErr), whose answer it returns.
func (g *dgen) finish(p placed, err error, unsup bool, dst resident, ins ...resident) bool {
	if err == nil {
		g.check(p, dst, ins...)
	}
	return g.expectErr(err, unsup)
}

// exact is compareTo's tolerance for results that must match exactly.
func exact([]int) float64 { return 0 }

// expectErr checks an op's error: nil, or ErrUnsupported where unsup.
func (g *dgen) expectErr(err error, unsup bool) bool {
	if unsup {
		if !errors.Is(err, ErrUnsupported) {
			g.tb.Errorf("error %v, want ErrUnsupported", err)
		}
		return false
	}
	if err != nil {
		g.tb.Errorf("error: %v", err)
		return false
	}
	return true
}

// compare reads dst on the host and compares every element with want;
// tol (nil: devTol) is relative, with max(1, |want|).
func compareTo[T array.Elem](g *dgen, dst *array.Array[T], want func(pos []int) T, tol func(pos []int) float64) {
	v, err := dst.HostReadOnly()
	if err != nil {
		g.tb.Errorf("HostReadOnly: %v", err)
		return
	}
	bad := 0
	forEachPos(dst.Extents(), func(pos []int) {
		if bad >= 3 {
			return
		}
		w := want(pos)
		tl := devTol[T]()
		if tol != nil {
			tl = tol(pos)
		}
		if got := v.At(coordsOf(dst, pos)...); !closeTo(got, w, tl) {
			bad++
			g.tb.Errorf("at %v: got %v, want %v", pos, got, w)
		}
	})
}

func isF64[T array.Elem]() bool {
	t := array.TypeOf[T]()
	return t.Code == array.Float && t.Bits == 64
}

func diffBinary[T array.Elem](g *dgen, scalar bool) {
	ext := drawExt(g, 4)
	op := BinaryOp(g.n(int(nBinary)))
	va, vb := valSmall, valSmall
	if op == OpPow {
		va, vb = valPos, valUnit
	}
	dst := newOperand[T](g, ext, va)
	var a, b *operand[T]
	switch {
	case g.p(0.15):
		a = dst
		g.note("a is dst")
	default:
		a = newInput[T](g, bcastExt(g, ext), va)
	}
	switch {
	case g.p(0.1) && a != dst:
		b = dst
		g.note("b is dst")
	default:
		b = newInput[T](g, bcastExt(g, ext), vb)
	}
	g.note("op %v", op)
	unsup := op == OpPow && !isFloatT[T]()
	var err error
	var p placed
	var ins []resident
	var sa, sb T
	first := g.p(0.5)
	switch {
	case !scalar:
		ins = []resident{a.a, b.a}
		p = g.expect(isF64[T](), dst.a, ins...)
		err = Binary(dst.a, a.a, b.a, op)
	case first:
		sb = drawVal[T](g, vb)
		g.note("BinaryScalar s=%v", sb)
		ins = []resident{a.a}
		p = g.expect(isF64[T](), dst.a, ins...)
		err = BinaryScalar(dst.a, a.a, sb, op)
	default:
		sa = drawVal[T](g, va)
		g.note("ScalarBinary s=%v", sa)
		ins = []resident{b.a}
		p = g.expect(isF64[T](), dst.a, ins...)
		err = ScalarBinary(dst.a, sa, b.a, op)
	}
	if !g.finish(p, err, unsup, dst.a, ins...) {
		return
	}
	compareTo(g, dst.a, func(pos []int) T {
		switch {
		case !scalar:
			return drefBinary(op, a.at(pos), b.at(pos))
		case first:
			return drefBinary(op, a.at(pos), sb)
		}
		return drefBinary(op, sa, b.at(pos))
	}, nil)
}

func diffUnary[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	op := UnaryOp(g.n(int(drefUnaryOps))) // the ops drefUnary knows; later ones test themselves (unary_ref_test.go)
	v := valSmall
	switch op {
	case OpSqrt, OpLog:
		v = valPos
	case OpAsin, OpAcos:
		v = valUnit // inside and outside [−1, 1]
	}
	dst, a := dstAndIn[T](g, ext, v, 0.8)
	g.note("op %v", op)
	unsup := !drefUnaryDefined[T](op)
	p := g.expect(isF64[T](), dst.a, a.a)
	err := Unary(dst.a, a.a, op)
	if !g.finish(p, err, unsup, dst.a, a.a) {
		return
	}
	compareTo(g, dst.a, func(pos []int) T { return drefUnary(op, a.at(pos)) }, nil)
}

// diffClassify: IsNaN, IsInf, IsFinite into a uint8 mask.
func diffClassify[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	k := g.n(3)
	dst := newOperand[uint8](g, ext, valSmall)
	a := newInput[T](g, bcastExt(g, ext), valWide) // NaN and ±Inf 5% each
	g.note("%s", []string{"IsNaN", "IsInf", "IsFinite"}[k])
	p := g.expect(isF64[T](), dst.a, a.a)
	err := []func(*array.Array[uint8], *array.Array[T]) error{IsNaN[T], IsInf[T], IsFinite[T]}[k](dst.a, a.a)
	if !g.finish(p, err, false, dst.a, a.a) {
		return
	}
	compareTo(g, dst.a, func(pos []int) uint8 {
		f, r := 0.0, false
		if isFloatT[T]() {
			f = drefF(a.at(pos))
		}
		switch k {
		case 0:
			r = math.IsNaN(f)
		case 1:
			r = math.IsInf(f, 0)
		default:
			r = !math.IsNaN(f) && !math.IsInf(f, 0)
		}
		if r {
			return 1
		}
		return 0
	}, exact)
}

// dstAndIn draws a dst of extents ext and an input that broadcasts to it
// with probability pNew, else dst itself (in place, noted).
func dstAndIn[T array.Elem](g *dgen, ext []int, v values, pNew float64) (dst, a *operand[T]) {
	dst = newOperand[T](g, ext, v)
	if !g.p(pNew) {
		g.note("in place")
		return dst, dst
	}
	return dst, newInput[T](g, bcastExt(g, ext), v)
}

// diffClip: Clip with scalar bounds (lo > hi now and then).
func diffClip[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	dst, a := dstAndIn[T](g, ext, valSmall, 0.8)
	lo, hi := drawVal[T](g, valSmall), drawVal[T](g, valSmall)
	if g.p(0.8) && drefCompare(GT, lo, hi) == 1 {
		lo, hi = hi, lo
	}
	g.note("Clip lo=%v hi=%v", lo, hi)
	p := g.expect(isF64[T](), dst.a, a.a)
	err := Clip(dst.a, a.a, lo, hi)
	if !g.finish(p, err, false, dst.a, a.a) {
		return
	}
	compareTo(g, dst.a, func(pos []int) T {
		return drefBinary(OpMin, drefBinary(OpMax, a.at(pos), lo), hi)
	}, nil)
}

func diffCompare[T array.Elem](g *dgen, scalar bool) {
	ext := drawExt(g, 4)
	op := CmpOp(g.n(6))
	dst := newOperand[uint8](g, ext, valSmall)
	a := newInput[T](g, bcastExt(g, ext), valSmall)
	g.note("op %v", op)
	var err error
	var p placed
	var ins []resident
	var s T
	var b *operand[T]
	if scalar {
		s = drawVal[T](g, valSmall)
		if g.p(0.3) && len(a.vals) > 0 {
			s = a.vals[g.n(len(a.vals))]
		}
		g.note("scalar %v", s)
		ins = []resident{a.a}
		p = g.expect(isF64[T](), dst.a, ins...)
		err = CompareScalar(dst.a, a.a, s, op)
	} else {
		b = newInput[T](g, bcastExt(g, ext), valSmall)
		ins = []resident{a.a, b.a}
		p = g.expect(isF64[T](), dst.a, ins...)
		err = Compare(dst.a, a.a, b.a, op)
	}
	if !g.finish(p, err, false, dst.a, ins...) {
		return
	}
	compareTo(g, dst.a, func(pos []int) uint8 {
		if scalar {
			return drefCompare(op, a.at(pos), s)
		}
		return drefCompare(op, a.at(pos), b.at(pos))
	}, nil)
}

func diffWhere[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	dst := newOperand[T](g, ext, valSmall)
	c := newInput[uint8](g, bcastExt(g, ext), valCond)
	a := newInput[T](g, bcastExt(g, ext), valSmall)
	b := dst
	if g.p(0.85) {
		b = newInput[T](g, bcastExt(g, ext), valSmall)
	} else {
		g.note("b is dst")
	}
	p := g.expect(isF64[T](), dst.a, c.a, a.a, b.a)
	err := Where(dst.a, c.a, a.a, b.a)
	if !g.finish(p, err, false, dst.a, c.a, a.a, b.a) {
		return
	}
	compareTo(g, dst.a, func(pos []int) T {
		if c.at(pos) != 0 {
			return a.at(pos)
		}
		return b.at(pos)
	}, exact)
}

func diffCopy[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	dst, a := dstAndIn[T](g, ext, valSmall, 0.9)
	p := g.expect(isF64[T](), dst.a, a.a)
	err := Copy(dst.a, a.a)
	if !g.finish(p, err, false, dst.a, a.a) {
		return
	}
	compareTo(g, dst.a, a.at, exact)
}

func diffTranspose[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	for len(ext) < 2 {
		ext = append(ext, 1+g.n(5))
	}
	d0, d1 := g.n(len(ext)), g.n(len(ext))
	sext := append([]int(nil), ext...)
	sext[d0], sext[d1] = sext[d1], sext[d0]
	dst := newOperand[T](g, ext, valSmall)
	a := newInput[T](g, sext, valSmall)
	g.note("Transpose %d %d", d0, d1)
	p := g.expect(isF64[T](), dst.a, a.a)
	err := Copy(dst.a, a.a.Transpose(d0, d1))
	if !g.finish(p, err, false, dst.a, a.a) {
		return
	}
	compareTo(g, dst.a, func(pos []int) T {
		q := append([]int(nil), pos...)
		q[d0], q[d1] = q[d1], q[d0]
		return a.at(q)
	}, exact)
}

func diffFill[T array.Elem](g *dgen) {
	dst := newOperand[T](g, drawExt(g, 4), valSmall)
	x := drawVal[T](g, valSmall)
	p := g.expect(isF64[T](), dst.a)
	err := Fill(dst.a, x)
	if g.finish(p, err, false, dst.a) {
		compareTo(g, dst.a, func([]int) T { return x }, exact)
	}
}

func diffIota[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	if len(ext) == 0 {
		ext = []int{3}
	}
	dst := newOperand[T](g, ext, valSmall)
	dim := g.n(len(ext))
	p := g.expect(isF64[T](), dst.a)
	err := Iota(dst.a, axisOf(dim))
	if !g.finish(p, err, false, dst.a) {
		return
	}
	m := dst.a.Dim(dim).Min
	compareTo(g, dst.a, func(pos []int) T {
		c := m + pos[dim]
		if isFloatT[T]() {
			return drefFromF[T](float64(c))
		}
		return drefWrap[T](uint64(int64(c)))
	}, exact)
}

func diffCastTo[D array.Elem](g *dgen) {
	switch g.n(12) {
	case 0:
		diffCast[D, int8](g)
	case 1:
		diffCast[D, int16](g)
	case 2:
		diffCast[D, int32](g)
	case 3:
		diffCast[D, int64](g)
	case 4:
		diffCast[D, uint8](g)
	case 5:
		diffCast[D, uint16](g)
	case 6:
		diffCast[D, uint32](g)
	case 7:
		diffCast[D, uint64](g)
	case 8:
		diffCast[D, float32](g)
	case 9:
		diffCast[D, float64](g)
	case 10:
		diffCast[D, array.Float16](g)
	default:
		diffCast[D, array.BFloat16](g)
	}
}

func diffCast[D, S array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	dst := newOperand[D](g, ext, valSmall)
	a := newInput[S](g, bcastExt(g, ext), valWide)
	sat := g.p(0.5)
	g.note("cast %s → %s, saturate %v", typeName[S](), typeName[D](), sat)
	p := g.expect(isF64[D]() || isF64[S](), dst.a, a.a)
	var err error
	if sat {
		err = CastSaturate(dst.a, a.a)
	} else {
		err = CastWrap(dst.a, a.a)
	}
	if !g.finish(p, err, false, dst.a, a.a) {
		return
	}
	compareTo(g, dst.a, func(pos []int) D { return drefCast[D](a.at(pos), sat) }, exact)
}

var reduceOpNames = [...]string{"Sum", "Prod", "Min", "Max", "Mean", "ArgMin", "ArgMax"}

// reduceValues is the operand values of reduction op (reduceOpNames):
// near 1 for Prod, tiny for Mean, small otherwise.
func reduceValues(op int) values {
	switch op {
	case 1:
		return valUnit
	case 4:
		return valTiny
	}
	return valSmall
}

func diffReduce[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	if len(ext) == 0 {
		ext = []int{1 + g.n(9)}
	}
	op := g.n(7)
	dim := g.n(len(ext))
	if ext[dim] == 0 && (op == 2 || op == 3 || op >= 5) {
		ext[dim] = 1 + g.n(5)
	}
	a := newInput[T](g, ext, reduceValues(op))
	dext := append([]int(nil), ext...)
	if g.p(0.3) {
		dext[dim] = 1
		g.note("keep dims")
	} else {
		dext = append(dext[:dim], dext[dim+1:]...)
	}
	g.note("%s along %d", reduceOpNames[op], dim)
	L := ext[dim]
	// pos of the output → the input positions along dim
	inPos := func(pos []int, k int) []int {
		q := make([]int, len(ext))
		for i, j := 0, 0; i < len(ext); i++ {
			switch {
			case i == dim:
				q[i] = k
				if len(dext) == len(ext) {
					j++
				}
			default:
				q[i] = pos[j]
				j++
			}
		}
		return q
	}
	if op >= 5 {
		dst := newOperand[int64](g, dext, valSmall)
		p := g.expect(isF64[T](), dst.a, a.a)
		var err error
		if op == 5 {
			err = ArgMin(dst.a, a.a, axisOf(dim))
		} else {
			err = ArgMax(dst.a, a.a, axisOf(dim))
		}
		if !g.finish(p, err, false, dst.a, a.a) {
			return
		}
		base := a.a.Dim(dim).Min
		compareTo(g, dst.a, func(pos []int) int64 {
			best := 0
			for k := 1; k < L; k++ {
				if argBetter(op == 5, a.at(inPos(pos, k)), a.at(inPos(pos, best))) {
					best = k
				}
			}
			return int64(base + best)
		}, exact)
		return
	}
	dst := newOperand[T](g, dext, valSmall)
	p := g.expect(isF64[T](), dst.a, a.a)
	var err error
	switch op {
	case 0:
		err = Sum(dst.a, a.a, axisOf(dim))
	case 1:
		err = Prod(dst.a, a.a, axisOf(dim))
	case 2:
		err = Min(dst.a, a.a, axisOf(dim))
	case 3:
		err = Max(dst.a, a.a, axisOf(dim))
	case 4:
		err = Mean(dst.a, a.a, axisOf(dim))
	}
	if !g.finish(p, err, false, dst.a, a.a) {
		return
	}
	xs := make([]T, L)
	row := func(pos []int) []T {
		for k := range L {
			xs[k] = a.at(inPos(pos, k))
		}
		return xs
	}
	compareTo(g, dst.a, func(pos []int) T { return drefReduce(op, row(pos)) },
		func(pos []int) float64 { return reduceTol(op, row(pos)) })
}

// drefReduce reduces xs with op (0 Sum, 1 Prod, 2 Min, 3 Max, 4 Mean).
func drefReduce[T array.Elem](op int, xs []T) T {
	if isFloatT[T]() {
		var r float64
		switch op {
		case 0, 4:
			for _, x := range xs {
				r += drefF(x)
			}
			if op == 4 {
				r /= float64(len(xs))
			}
		case 1:
			r = 1
			for _, x := range xs {
				r *= drefF(x)
			}
		case 2, 3: // a NaN if any
			r = drefF(xs[0])
			for _, x := range xs[1:] {
				if f := drefF(x); op == 2 && f < r || op == 3 && f > r || f != f {
					r = f
				}
			}
			for _, x := range xs {
				if f := drefF(x); f != f {
					r = f
				}
			}
		}
		return drefFromF[T](r)
	}
	switch op {
	case 0, 1, 4:
		var s uint64
		if op == 1 {
			s = 1
		}
		for _, x := range xs {
			if op == 1 {
				s *= drefU(x)
			} else {
				s += drefU(x)
			}
		}
		if op == 4 {
			switch {
			case len(xs) == 0:
				s = 0
			case isSignedT[T]():
				s = uint64(int64(s) / int64(len(xs)))
			default:
				s /= uint64(len(xs))
			}
		}
		return drefWrap[T](s)
	}
	best := xs[0]
	for _, x := range xs[1:] {
		if drefCompare(LT, x, best) == 1 && op == 2 || drefCompare(GT, x, best) == 1 && op == 3 {
			best = x
		}
	}
	return best
}

// reduceTol is the tolerance of a float reduction of xs, relative to
// max(1, |result|): devTol of Σ|x| for sums and means (the order of
// addition differs), devTol·n for products.
func reduceTol[T array.Elem](op int, xs []T) float64 {
	tol := devTol[T]()
	if tol == 0 {
		return 0
	}
	switch op {
	case 0, 4:
		var s, abs float64
		for _, x := range xs {
			s += drefF(x)
			abs += math.Abs(drefF(x))
		}
		if op == 4 && len(xs) > 0 {
			s /= float64(len(xs))
			abs /= float64(len(xs))
		}
		return tol * max(1, abs) / max(1, math.Abs(s))
	case 1:
		return tol * float64(max(1, len(xs)))
	}
	return tol
}

func diffReduceAll[T array.Elem](g *dgen) {
	ext := drawExt(g, 4)
	op := g.n(7)
	empty := false
	for _, e := range ext {
		empty = empty || e == 0
	}
	if empty && op != 0 && op != 1 && op != 4 {
		op = 0
	}
	a := newInput[T](g, ext, reduceValues(op))
	g.note("%sAll", reduceOpNames[op])
	p := g.expect(isF64[T](), nil, a.a)
	if op >= 5 {
		var c []int
		var err error
		if op == 5 {
			c, err = ArgMinAll(a.a)
		} else {
			c, err = ArgMaxAll(a.a)
		}
		if !g.finish(p, err, false, nil, a.a) {
			return
		}
		// the first extreme in memory order
		dims := a.a.Dims()
		var best []int
		bestAddr := 0
		forEachPos(ext, func(pos []int) {
			addr := 0
			for i, d := range dims {
				addr += pos[i] * d.Stride
			}
			if best == nil {
				best, bestAddr = append([]int(nil), pos...), addr
				return
			}
			x, y := a.at(pos), a.at(best)
			if argBetter(op == 5, x, y) || !argBetter(op == 5, y, x) && addr < bestAddr {
				best, bestAddr = append([]int(nil), pos...), addr
			}
		})
		want := coordsOf(a.a, best)
		if fmt.Sprint(c) != fmt.Sprint(want) {
			g.tb.Errorf("%sAll = %v, want %v", reduceOpNames[op], c, want)
		}
		return
	}
	var got T
	var err error
	switch op {
	case 0:
		got, err = Value(Sum, a.a)
	case 1:
		got, err = Value(Prod, a.a)
	case 2:
		got, err = Value(Min, a.a)
	case 3:
		got, err = Value(Max, a.a)
	case 4:
		got, err = Value(Mean, a.a)
	}
	if !g.finish(p, err, false, nil, a.a) {
		return
	}
	xs := append([]T(nil), a.vals...)
	if want := drefReduce(op, xs); !closeTo(got, want, reduceTol(op, xs)) {
		g.tb.Errorf("%sAll = %v, want %v", reduceOpNames[op], got, want)
	}
}

func diffMatMul[T Float](g *dgen) {
	dim := func() int {
		switch {
		case g.p(0.05):
			return 0
		case g.p(0.1):
			return 1
		case g.p(0.15):
			return 33 + g.n(40)
		}
		return 2 + g.n(12)
	}
	K, M, N := dim(), dim(), dim()
	ae, be, de := []int{K, M}, []int{N, K}, []int{N, M}
	if g.p(0.3) {
		Z := 1 + g.n(3)
		de = append(de, Z)
		if g.p(0.7) {
			ae = append(ae, []int{Z, 1}[g.n(2)])
		}
		if g.p(0.7) {
			be = append(be, []int{Z, 1}[g.n(2)])
		}
	}
	g.note("MatMul K=%d M=%d N=%d a %v b %v dst %v", K, M, N, ae, be, de)
	dst := newOperand[T](g, de, valSmall)
	a := newInput[T](g, ae, valSmall)
	b := newInput[T](g, be, valSmall)
	p := g.expect(isF64[T](), dst.a, a.a, b.a)
	var err error
	if g.p(0.3) { // asking for TF32 where there is none computes exactly
		g.note("MatMulWith TF32")
		err = MatMulWith(dst.a, a.a, b.a, device.PrecisionTF32)
	} else {
		err = MatMul(dst.a, a.a, b.a)
	}
	if !g.finish(p, err, false, dst.a, a.a, b.a) {
		return
	}
	var abs float64
	at := func(o *operand[T], x, y, z int) T {
		q := []int{x, y, z}[:len(o.ext)]
		return o.at(q)
	}
	compareTo(g, dst.a, func(pos []int) T {
		z := 0
		if len(pos) > 2 {
			z = pos[2]
		}
		var s float64
		abs = 0
		for k := range K {
			x, y := drefF(at(a, k, pos[1], z)), drefF(at(b, pos[0], k, z))
			s += x * y
			abs += math.Abs(x * y)
		}
		return drefFromF[T](s)
	}, func([]int) float64 { return devTol[T]() * max(1, abs) })
}

// argBetter reports whether x beats the current extreme y for ArgMin (min)
// or ArgMax: a NaN beats everything but a NaN.
func argBetter[T array.Elem](min bool, x, y T) bool {
	if isFloatT[T]() {
		fx, fy := drefF(x), drefF(y)
		if fy != fy {
			return false
		}
		if fx != fx {
			return true
		}
	}
	if min {
		return drefCompare(LT, x, y) == 1
	}
	return drefCompare(GT, x, y) == 1
}
