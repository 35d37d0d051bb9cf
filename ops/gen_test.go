package ops

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// Generators of the differential test (differential_test.go): layouts
// (dense, crops with non-zero mins, permutations, steps, reshapes by View,
// views of views, broadcasts in any combination of dimensions, 0-D,
// empty), residency states, and reference arithmetic that walks indices
// with plain loops in float64 or 64-bit integers, never calling ops.

// dgen draws one case. d is nil for the host path: every operand then
// stays on the host.
type dgen struct {
	tb   testing.TB
	r    *rand.Rand
	d    device.Device
	fp64 bool
	log  []string // the choices, for failure messages
	// where counts the op's placement (host, device) by the rule
	where *[2]int
	plain bool // no NaN, Inf or −0 (for JSON)
}

func (g *dgen) note(format string, args ...any) { g.log = append(g.log, fmt.Sprintf(format, args...)) }
func (g *dgen) p(x float64) bool                { return g.r.Float64() < x }
func (g *dgen) n(k int) int                     { return g.r.IntN(k) }

// operand is an input or dst with the host values it held when made, in
// dimension-0-fastest order over its own extents.
type operand[T array.Elem] struct {
	a    *array.Array[T]
	ext  []int
	vals []T
}

// at is the operand's value at destination position pos, broadcasting
// its extent-1 and missing dimensions.
func (o *operand[T]) at(pos []int) T {
	idx, st := 0, 1
	for i, e := range o.ext {
		if e != 1 {
			idx += pos[i] * st
		}
		st *= e
	}
	return o.vals[idx]
}

// values draws element values; the family picks the ranges.
type values int

const (
	valSmall values = iota // small integers (with occasional extremes), floats in steps of 1/8
	valPos                 // positive: Sqrt, Log, Pow's base
	valUnit                // magnitudes near 1: Prod, Pow's exponent
	valWide                // casts: beyond every narrow range, and Inf/NaN
	valTiny                // integers without extremes: Mean
	valCond                // Where's condition: 0 half the time
)

func drawVal[T array.Elem](g *dgen, v values) T {
	t := array.TypeOf[T]()
	if t.Code == array.Float || t.Code == array.BFloat {
		var f float64
		switch v {
		case valPos:
			f = float64(1+g.n(64)) / 8
		case valUnit:
			f = []float64{0.5, 1, 1.5, 2, 0.75, 1.25}[g.n(6)]
			if g.p(0.5) {
				f = -f
			}
		case valWide:
			switch {
			case g.p(0.05):
				f = math.NaN()
			case g.p(0.05):
				f = math.Inf(1 - 2*g.n(2))
			case g.p(0.1):
				f = (g.r.Float64()*2 - 1) * 1e6
			default:
				f = (g.r.Float64()*2 - 1) * 400
			}
		default:
			f = float64(g.n(129)-64) / 8
			if !g.plain && g.p(0.03) { // NaN, ±Inf, −0
				f = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[g.n(4)]
			}
		}
		return drefFromF[T](f)
	}
	signed := t.Code == array.Int
	bits := uint(t.Bits)
	switch v {
	case valCond:
		return T(g.n(2) * (1 + g.n(3)))
	case valPos, valUnit:
		return T(1 + g.n(3))
	case valWide:
		return T(g.r.Uint64())
	}
	if v == valSmall && g.p(0.04) { // an extreme
		if signed {
			if g.p(0.5) {
				return drefWrap[T](uint64(1) << (bits - 1)) // min
			}
			return drefWrap[T](uint64(1)<<(bits-1) - 1) // max
		}
		return drefWrap[T](math.MaxUint64)
	}
	if signed {
		return drefWrap[T](uint64(int64(g.n(41) - 20)))
	}
	return T(g.n(40))
}

// bcastExt draws the extents of an input that broadcasts to ext: each
// dimension full or 1, outer dimensions dropped, an extra outer extent-1
// dimension, or 0-D.
func bcastExt(g *dgen, ext []int) []int {
	if g.p(0.1) {
		return []int{}
	}
	e := append([]int(nil), ext...)
	if g.p(0.5) {
		for i := range e {
			if g.p(0.35) {
				e[i] = 1
			}
		}
	}
	if len(e) > 0 && g.p(0.2) {
		e = e[:g.n(len(e)+1)]
	}
	if g.p(0.08) {
		e = append(e, 1)
	}
	return e
}

// drawExt draws a destination shape: rank 0…4, extents 0…9 with an
// occasional long dimension.
func drawExt(g *dgen, maxRank int) []int {
	r := g.n(maxRank + 1)
	if g.p(0.4) && maxRank >= 2 {
		r = 2 + g.n(maxRank-1)
	}
	e := make([]int, r)
	big := false // one long dimension at most: two made seed 101's case 6 a 441M-element array (10 GB, a minute)
	for i := range e {
		switch {
		case g.p(0.04):
			e[i] = 0
		case g.p(0.15):
			e[i] = 1
		case g.p(0.01) && r <= 2 && !big:
			e[i] = 1000 + g.n(20000) // past the host's parallel threshold, the device's multi-group reductions
			big = true
		case g.p(0.1):
			e[i] = 40 + g.n(100)
		default:
			e[i] = 2 + g.n(8)
		}
	}
	return e
}

// layoutOf makes an Array of extents ext with a random layout: a root in
// a random storage order, padded (a crop with an offset), stepped (a
// phase dimension sliced away), translated mins, reshaped from a 1-D root
// through View, and views of views (identity View, double Transpose).
func layoutOf[T array.Elem](g *dgen, ext []int) *array.Array[T] {
	r := len(ext)
	if r == 0 {
		switch g.n(3) {
		case 0:
			g.note("0-D Scalar")
			return array.Scalar[T](0)
		case 1:
			g.note("0-D New")
			return array.New[T]()
		default:
			k := g.n(5)
			g.note("0-D slice %d of [5]", k)
			return array.New[T](5).Slice(0, k)
		}
	}
	var a *array.Array[T]
	var desc []string
	if g.p(0.12) { // reshape: a run of a 1-D root, dims outermost-first
		total := 1
		for _, e := range ext {
			total *= e
		}
		extra := g.n(4)
		off := g.n(extra + 1)
		dims := make([]array.Dim, r)
		st := 1
		for i := r - 1; i >= 0; i-- {
			dims[i] = array.Dim{Min: g.n(7) - 3, Extent: ext[i], Stride: st}
			st *= max(ext[i], 1)
		}
		root := array.New[T](total + extra)
		v, err := root.View(off, dims)
		if err != nil {
			g.tb.Fatalf("View(%d, %v) of [%d]: %v", off, dims, total+extra, err)
		}
		desc = append(desc, fmt.Sprintf("View(%d,%v) of [%d]", off, dims, total+extra))
		a = v
	} else {
		perm := make([]int, r)
		for i := range perm {
			perm[i] = i
		}
		if g.p(0.5) {
			g.r.Shuffle(r, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			desc = append(desc, fmt.Sprintf("storage order %v", perm))
		}
		pad, lo, step := make([]int, r), make([]int, r), make([]int, r)
		var rootExt []int
		main, phase := make([]int, r), make([]int, r)
		for i := range phase {
			phase[i] = -1
		}
		for _, L := range perm {
			step[L] = 1
			if g.p(0.2) {
				step[L] = 2 + g.n(2)
				phase[L] = len(rootExt)
				rootExt = append(rootExt, step[L])
			}
			if g.p(0.4) {
				pad[L] = 1 + g.n(3)
				lo[L] = g.n(pad[L] + 1)
			}
			main[L] = len(rootExt)
			rootExt = append(rootExt, ext[L]+pad[L])
		}
		root := array.New[T](rootExt...)
		order := append([]int(nil), main...)
		var phases []int
		for i := range phase {
			if phase[i] >= 0 {
				order = append(order, phase[i])
				phases = append(phases, step[i])
			}
		}
		a = root.Permute(order...)
		for k := len(phases) - 1; k >= 0; k-- {
			ph := g.n(phases[k])
			a = a.Slice(r+k, ph)
		}
		if len(phases) > 0 {
			desc = append(desc, fmt.Sprintf("steps %v", step))
		}
		for i := range ext {
			if pad[i] > 0 {
				a = a.Crop(i, lo[i], ext[i])
			}
		}
		if fmt.Sprint(pad) != fmt.Sprint(make([]int, r)) {
			desc = append(desc, fmt.Sprintf("crop pad %v at %v", pad, lo))
		}
		if g.p(0.5) {
			for i := range ext {
				a = a.Translate(i, g.n(11)-5)
			}
			desc = append(desc, "mins")
		}
	}
	if g.p(0.15) {
		v, err := a.View(0, a.Dims())
		if err != nil {
			g.tb.Fatalf("identity View of %v: %v", a.Dims(), err)
		}
		a = v
		desc = append(desc, "identity View")
	}
	if r >= 2 && g.p(0.15) {
		i, j := g.n(r), g.n(r)
		a = a.Transpose(i, j).Transpose(i, j)
		desc = append(desc, "Transpose twice")
	}
	g.note("layout %v: %s", ext, strings.Join(desc, ", "))
	return a
}

// fill writes values into a through its host view and returns the
// operand.
func fill[T array.Elem](g *dgen, a *array.Array[T], v values) *operand[T] {
	ext := a.Extents()
	o := &operand[T]{a: a, ext: ext}
	h, err := a.Host()
	if err != nil {
		g.tb.Fatal(err)
	}
	forEachPos(ext, func(pos []int) {
		x := drawVal[T](g, v)
		o.vals = append(o.vals, x)
		h.Set(x, coordsOf(a, pos)...)
	})
	return o
}

// residency states of an operand.
const (
	resHostNew   = iota // no device allocation
	resHostOnly         // FromSlice: host-only
	resHostDirty        // allocated on the device, host newer
	resCurrent          // current on both
	resDevDirty         // device newer, after a device op on all of it
	resMixedDev         // a crop of it device-dirty after a device op
	resMixedHost        // a crop of it host-dirty
	nRes
)

var resNames = [...]string{"host-new", "host-only", "host-dirty", "current", "device-dirty", "mixed-dev", "mixed-host"}

// newOperand makes an operand of extents ext in a random layout and
// residency state (on the host path, host-new or host-only).
func newOperand[T array.Elem](g *dgen, ext []int, v values) *operand[T] {
	o := fill(g, layoutOf[T](g, ext), v)
	st := g.n(nRes)
	if g.d == nil && st > resHostOnly {
		st = resHostNew
	}
	setResT(g, st, o.a)
	if st == resHostOnly {
		// Wrap keeps the rank (a 0-D one too), unlike FromSlice
		dims := make([]array.Dim, len(o.ext))
		st := 1
		for i, e := range o.ext {
			dims[i] = array.Dim{Min: g.n(5) - 2, Extent: e, Stride: st}
			st *= max(e, 1)
		}
		w, err := array.Wrap(append(make([]T, 0, len(o.vals)+1), o.vals...), dims)
		g.must(err)
		o.a = w
	}
	return o
}

// newInput is newOperand for an input: one time in five, when ext has a
// dimension of extent > 1, a read-only broadcast view (Array.BroadcastTo)
// of an operand drawn with some of those dimensions 1 and maybe fewer
// outer ones, in any layout and residency state (the source's: the view
// covers exactly its elements), sometimes cropped along a repeated axis
// or transposed twice. So inputs have stride 0 with extent > 1 in any
// dimension, the layout device kernels once read as contiguous.
func newInput[T array.Elem](g *dgen, ext []int, v values) *operand[T] {
	var big []int
	for i, e := range ext {
		if e > 1 {
			big = append(big, i)
		}
	}
	if len(big) == 0 || !g.p(0.2) {
		return newOperand[T](g, ext, v)
	}
	src := append([]int(nil), ext...)
	rep := big[g.n(len(big))] // at least one axis repeats
	src[rep] = 1
	for _, i := range big {
		if g.p(0.3) {
			src[i] = 1
		}
	}
	for len(src) > 0 && src[len(src)-1] == 1 && g.p(0.5) {
		src = src[:len(src)-1] // a missing outer axis repeats too
	}
	o := newOperand[T](g, src, v)
	full := append([]int(nil), ext...)
	crop := -1
	if g.p(0.3) && rep < len(src) {
		crop = rep
		full[rep] += 1 + g.n(3)
	}
	shape := append([]int(nil), full...)
	slices.Reverse(shape)
	b, err := o.a.BroadcastTo(shape...)
	g.must(err)
	desc := fmt.Sprintf("broadcast view %v of %v", ext, src)
	if crop >= 0 {
		b = b.Crop(crop, 1, ext[crop])
		desc += fmt.Sprintf(", cropped along repeated dimension %d", crop)
	}
	if len(ext) >= 2 && g.p(0.2) {
		i, j := g.n(len(ext)), g.n(len(ext))
		b = b.Transpose(i, j).Transpose(i, j)
		desc += ", Transpose twice"
	}
	if b.Raw().Writable() {
		g.tb.Fatalf("%s: writable", desc)
	}
	g.note("%s", desc)
	in := &operand[T]{a: b, ext: ext}
	forEachPos(ext, func(pos []int) { in.vals = append(in.vals, o.at(pos)) })
	return in
}

// must stops the case on an error of its set-up.
func (g *dgen) must(err error) {
	if err != nil {
		g.tb.Fatal(err)
	}
}

// setResT puts a into residency state st (resHostOnly is the caller's).
func setResT[T array.Elem](g *dgen, st int, a *array.Array[T]) {
	g.note("residency %s", resNames[st])
	if st <= resHostOnly || g.d == nil {
		return
	}
	g.must(On(g.d, a))
	switch st {
	case resHostDirty:
		if _, err := a.Host(); err != nil {
			g.tb.Fatal(err)
		}
	case resDevDirty:
		g.must(BinaryScalar(a, a, one[T](), OpMul)) // exact: the values stay
	case resMixedDev, resMixedHost:
		c := a
		for i := 0; i < a.Rank(); i++ {
			if e := a.Dim(i).Extent; e > 1 {
				c = a.Crop(i, a.Dim(i).Min+g.n(e), 1)
				break
			}
		}
		if st == resMixedDev {
			g.must(BinaryScalar(c, c, one[T](), OpMul))
		} else if _, err := c.Host(); err != nil {
			g.tb.Fatal(err)
		}
	}
}

// Reference arithmetic, in float64 (floats; Float16 and BFloat16 round
// through float32, as the package documents) or 64-bit integers that wrap
// when narrowed.

func isFloatT[T array.Elem]() bool {
	c := array.TypeOf[T]().Code
	return c == array.Float || c == array.BFloat
}

func isSignedT[T array.Elem]() bool { return array.TypeOf[T]().Code == array.Int }

func drefF[T array.Elem](x T) float64 {
	switch v := any(x).(type) {
	case array.Float16:
		return float64(v.Float32())
	case array.BFloat16:
		return float64(v.Float32())
	case float32:
		return float64(v)
	case float64:
		return v
	}
	if isSignedT[T]() {
		return float64(drefI(x))
	}
	return float64(drefU(x))
}

// drefI is x sign- or zero-extended to 64 bits.
func drefI[T array.Elem](x T) int64 {
	switch v := any(x).(type) {
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int64:
		return v
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		return int64(v)
	}
	panic("drefI of a float")
}

func drefU[T array.Elem](x T) uint64 { return uint64(drefI(x)) }

// drefWrap narrows v to an integer T, keeping the low bits.
func drefWrap[T array.Elem](v uint64) T {
	var z T
	switch any(z).(type) {
	case int8:
		return any(int8(v)).(T)
	case int16:
		return any(int16(v)).(T)
	case int32:
		return any(int32(v)).(T)
	case int64:
		return any(int64(v)).(T)
	case uint8:
		return any(uint8(v)).(T)
	case uint16:
		return any(uint16(v)).(T)
	case uint32:
		return any(uint32(v)).(T)
	case uint64:
		return any(v).(T)
	}
	panic("drefWrap to a float")
}

// drefFromF rounds f to the float type T (nearest; through float32 for
// the 16-bit types).
func drefFromF[T array.Elem](f float64) T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(float32(f)).(T)
	case float64:
		return any(f).(T)
	case array.Float16:
		return any(array.F16(float32(f))).(T)
	case array.BFloat16:
		return any(array.BF16(float32(f))).(T)
	}
	panic("drefFromF to an integer")
}

// drefMaxF is the largest finite value of the float type T.
func drefMaxF[T array.Elem]() float64 {
	var z T
	switch any(z).(type) {
	case float32:
		return math.MaxFloat32
	case array.Float16:
		return 65504
	case array.BFloat16:
		return float64(math.Float32frombits(0x7f7f0000))
	}
	return math.MaxFloat64
}

// refIntRange is the range of the integer type T as float64 and its
// limits as int64/uint64.
func drefIntLimits[T array.Elem]() (lo int64, hi uint64) {
	bits := uint(array.TypeOf[T]().Bits)
	if isSignedT[T]() {
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	if bits == 64 {
		return 0, math.MaxUint64
	}
	return 0, 1<<bits - 1
}

func drefBinary[T array.Elem](op BinaryOp, x, y T) T {
	if isFloatT[T]() {
		a, b := drefF(x), drefF(y)
		var r float64
		switch op {
		case OpAdd:
			r = a + b
		case OpSub:
			r = a - b
		case OpMul:
			r = a * b
		case OpDiv:
			r = a / b
		case OpMin, OpMax: // NaN when either is (math.Min(−Inf, NaN) is −Inf)
			r = math.Min(a, b)
			if op == OpMax {
				r = math.Max(a, b)
			}
			if a != a || b != b {
				r = math.NaN()
			}
		case OpPow:
			r = math.Pow(a, b)
		case OpMod: // NumPy's floored remainder
			r = math.Mod(a, b)
			switch {
			case b == 0:
			case r == 0:
				r = math.Copysign(0, b)
			case (r < 0) != (b < 0):
				r += b
			}
		}
		return drefFromF[T](r)
	}
	a, b := drefI(x), drefI(y)
	ua, ub := uint64(a), uint64(b)
	signed := isSignedT[T]()
	switch op {
	case OpAdd:
		return drefWrap[T](ua + ub)
	case OpSub:
		return drefWrap[T](ua - ub)
	case OpMul:
		return drefWrap[T](ua * ub)
	case OpDiv:
		switch {
		case b == 0:
			return drefWrap[T](0)
		case signed && b == -1:
			return drefWrap[T](-ua)
		case signed:
			return drefWrap[T](uint64(a / b))
		}
		return drefWrap[T](ua / ub)
	case OpMin, OpMax:
		less := ua < ub
		if signed {
			less = a < b
		}
		if less == (op == OpMin) {
			return x
		}
		return y
	case OpMod: // floored, x mod 0 = 0: big.Int's Euclidean modulus moved to b's sign
		if b == 0 {
			return drefWrap[T](0)
		}
		bx, by := new(big.Int).SetUint64(ua), new(big.Int).SetUint64(ub)
		if signed {
			bx, by = big.NewInt(a), big.NewInt(b)
		}
		m := new(big.Int).Mod(bx, by) // 0 ≤ m < |by|
		if m.Sign() != 0 && by.Sign() < 0 {
			m.Add(m, by)
		}
		if signed {
			return drefWrap[T](uint64(m.Int64()))
		}
		return drefWrap[T](m.Uint64())
	}
	panic("drefBinary: " + op.String())
}

// drefUnaryOps are the unary ops drefUnary knows, OpAbs … OpSign: the
// differential tests draw from them (the same draws as before the op
// table); ops added since have their own tests (unary_ref_test.go).
const drefUnaryOps = OpSign + 1

func drefUnary[T array.Elem](op UnaryOp, x T) T {
	if isFloatT[T]() {
		a := drefF(x)
		var r float64
		switch op {
		case OpAbs:
			r = math.Abs(a)
		case OpNeg:
			r = -a
		case OpSqrt:
			r = math.Sqrt(a)
		case OpExp:
			r = math.Exp(a)
		case OpLog:
			r = math.Log(a)
		case OpTanh:
			r = math.Tanh(a)
		case OpSin:
			r = math.Sin(a)
		case OpCos:
			r = math.Cos(a)
		case OpTan:
			r = math.Tan(a)
		case OpAsin:
			r = math.Asin(a)
		case OpAcos:
			r = math.Acos(a)
		case OpAtan:
			r = math.Atan(a)
		case OpSinh:
			r = math.Sinh(a)
		case OpCosh:
			r = math.Cosh(a)
		case OpSigmoid:
			r = 1 / (1 + math.Exp(-a))
		case OpSoftplus: // log(1+e^a), exact where e^a overflows
			r = math.Log1p(math.Exp(a))
			if a > 30 {
				r = a + math.Log1p(math.Exp(-a))
			}
		case OpRelu:
			r = math.Max(a, 0)
		case OpFloor:
			r = math.Floor(a)
		case OpCeil:
			r = math.Ceil(a)
		case OpRound:
			r = math.RoundToEven(a)
		case OpTrunc:
			r = math.Trunc(a)
		case OpSign:
			switch {
			case a > 0:
				r = 1
			case a < 0:
				r = -1
			default:
				r = a // ±0 (compared as equal) or NaN
			}
		}
		return drefFromF[T](r)
	}
	a := drefI(x)
	signed := isSignedT[T]()
	switch {
	case op == OpNeg || op == OpAbs && a < 0 && signed:
		return drefWrap[T](-uint64(a))
	case op == OpRelu && signed && a < 0:
		return drefWrap[T](0)
	case op == OpSign && signed && a < 0:
		return drefWrap[T](math.MaxUint64) // −1
	case op == OpSign && a != 0:
		return drefWrap[T](1)
	}
	return x
}

// drefUnaryDefined reports whether T defines op: the transcendental ops
// need a float type, Neg a signed or float one; the rest take every type.
func drefUnaryDefined[T array.Elem](op UnaryOp) bool {
	switch op {
	case OpSqrt, OpExp, OpLog, OpTanh, OpSin, OpCos, OpTan, OpAsin, OpAcos, OpAtan, OpSinh, OpCosh,
		OpSigmoid, OpSoftplus:
		return isFloatT[T]()
	case OpNeg:
		return isFloatT[T]() || isSignedT[T]()
	}
	return true
}

func drefCompare[T array.Elem](op CmpOp, x, y T) uint8 {
	var lt, eq, unordered bool
	switch {
	case isFloatT[T]():
		a, b := drefF(x), drefF(y)
		lt, eq, unordered = a < b, a == b, a != a || b != b
	case isSignedT[T]():
		lt, eq = drefI(x) < drefI(y), x == y
	default:
		lt, eq = drefU(x) < drefU(y), x == y
	}
	var r bool
	switch op {
	case EQ:
		r = eq
	case NE:
		r = !eq
	case LT:
		r = lt
	case LE:
		r = lt || eq
	case GT:
		r = !lt && !eq && !unordered
	case GE:
		r = !lt && !unordered
	}
	if r {
		return 1
	}
	return 0
}

// drefCast converts x to D with CastWrap's (sat false) or CastSaturate's
// rules, as the package documents them.
func drefCast[D, S array.Elem](x S, sat bool) D {
	if isFloatT[D]() {
		var f float64
		if isFloatT[S]() {
			f = drefF(x)
		} else if isSignedT[S]() {
			f = float64(float32(drefI(x))) // through float32 (never wider than needed for D)
			if _, ok := any(*new(D)).(float64); ok {
				f = float64(drefI(x))
			}
		} else {
			f = float64(float32(drefU(x)))
			if _, ok := any(*new(D)).(float64); ok {
				f = float64(drefU(x))
			}
		}
		r := drefFromF[D](f)
		if sat && !math.IsInf(f, 0) && math.IsInf(drefF(r), 0) {
			return drefFromF[D](math.Copysign(drefMaxF[D](), f))
		}
		return r
	}
	lo, hi := drefIntLimits[D]()
	if isFloatT[S]() {
		f := drefF(x)
		if math.IsNaN(f) {
			return drefWrap[D](0)
		}
		if sat {
			switch {
			case f <= float64(lo):
				return drefWrap[D](uint64(lo))
			case f >= float64(hi):
				return drefWrap[D](hi)
			}
			return drefWrap[D](uint64(int64(math.Trunc(f))))
		}
		if math.IsInf(f, 0) {
			return drefWrap[D](0)
		}
		f = math.Trunc(f)
		if f < 0 {
			return drefWrap[D](uint64(int64(f)))
		}
		return drefWrap[D](uint64(f))
	}
	if !sat {
		return drefWrap[D](drefU(x))
	}
	if isSignedT[S]() {
		v := drefI(x)
		switch {
		case v < lo:
			return drefWrap[D](uint64(lo))
		case v >= 0 && uint64(v) > hi:
			return drefWrap[D](hi)
		}
		return drefWrap[D](uint64(v))
	}
	if v := drefU(x); v > hi {
		return drefWrap[D](hi)
	}
	return drefWrap[D](drefU(x))
}

// one is 1 in T.
func one[T array.Elem]() T {
	if isFloatT[T]() {
		return drefFromF[T](1)
	}
	return 1
}
