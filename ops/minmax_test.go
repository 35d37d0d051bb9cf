package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

// TestMinMaxBits checks Minimum and Maximum's dense kernel (AVX where
// present) against Go's min and max bit for bit, NaN payloads and ±0
// included, over drawn lengths, offsets (alignments) and store modes.
func TestMinMaxBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	draw32 := func() float32 {
		switch r.IntN(8) {
		case 0:
			return math.Float32frombits(0x7fc00000 | r.Uint32()&0x803fffff) // quiet NaN, any payload and sign
		case 1:
			return math.Float32frombits(0x7f800001 | r.Uint32()&0x003fffff) // signalling NaN
		case 2:
			return float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
		case 3:
			return float32(math.Inf(r.IntN(2)*2 - 1))
		case 4:
			return float32(r.IntN(3) - 1) // ties
		}
		return float32(r.NormFloat64())
	}
	for trial := range 300 {
		n, off := r.IntN(200), r.IntN(9)
		a32, b32, d32 := make([]float32, n+off), make([]float32, n+off), make([]float32, n+off)
		a64, b64, d64 := make([]float64, n+off), make([]float64, n+off), make([]float64, n+off)
		for i := range a32 {
			a32[i], b32[i] = draw32(), draw32()
			a64[i], b64[i] = float64(a32[i]), float64(b32[i])
			if r.IntN(10) == 0 { // a float64 NaN payload of its own
				a64[i] = math.Float64frombits(0x7ff8000000000000 | r.Uint64()&0x8007ffffffffffff)
			}
		}
		for _, op := range []BinaryOp{OpMin, OpMax} {
			nt := trial%2 == 0
			binVec(op, d32[off:], a32[off:], b32[off:], nt)
			binVec(op, d64[off:], a64[off:], b64[off:], nt)
			for i := off; i < n+off; i++ {
				w32, w64 := min(a32[i], b32[i]), min(a64[i], b64[i])
				if op == OpMax {
					w32, w64 = max(a32[i], b32[i]), max(a64[i], b64[i])
				}
				if math.Float32bits(d32[i]) != math.Float32bits(w32) {
					t.Fatalf("%v float32 (n %d off %d nt %v) at %d: %v(%#x, %#x) = %#x, want %#x", op, n, off, nt, i,
						op, math.Float32bits(a32[i]), math.Float32bits(b32[i]), math.Float32bits(d32[i]), math.Float32bits(w32))
				}
				if math.Float64bits(d64[i]) != math.Float64bits(w64) {
					t.Fatalf("%v float64 (n %d off %d nt %v) at %d: %v(%#x, %#x) = %#x, want %#x", op, n, off, nt, i,
						op, math.Float64bits(a64[i]), math.Float64bits(b64[i]), math.Float64bits(d64[i]), math.Float64bits(w64))
				}
			}
		}
	}
}

// TestBigDenseBits runs the rounding ops and Maximum through Unary and
// Binary on an op big enough for non-temporal stores (ntBytes), against
// the scalar definitions bit for bit.
func TestBigDenseBits(t *testing.T) {
	n := ntBytes/8 + 5
	r := rand.New(rand.NewPCG(9, 10))
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(r.IntN(4001)-2000)/4, float32(r.NormFloat64()*100)
	}
	a, b, dst := hostArray(t, x), hostArray(t, y), array.New[float32](n)
	defer a.Close()
	defer b.Close()
	defer dst.Close()
	check := func(name string, want func(i int) float32) {
		h, err := dst.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		got := h.Data()
		for i := range got {
			if w := want(i); math.Float32bits(got[i]) != math.Float32bits(w) {
				t.Fatalf("%s at %d of %d: got %v, want %v", name, i, n, got[i], w)
			}
		}
	}
	for _, op := range []UnaryOp{OpFloor, OpCeil, OpRound, OpTrunc} {
		ref := map[UnaryOp]func(float64) float64{OpFloor: math.Floor, OpCeil: math.Ceil, OpRound: math.RoundToEven, OpTrunc: math.Trunc}[op]
		if err := Unary(dst, a, op); err != nil {
			t.Fatal(err)
		}
		check(op.String(), func(i int) float32 { return float32(ref(float64(x[i]))) })
	}
	if err := Binary(dst, a, b, OpMax); err != nil {
		t.Fatal(err)
	}
	check("Maximum", func(i int) float32 { return max(x[i], y[i]) })
}
