package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/array"
)

// TestRandDense: the dense float32 path (whole Philox blocks straight into
// dst) gives the stream's bits — element by element through philox.block
// and philox.normal — at any length and offset, wrapping ones included.
// Cases are drawn from a seed that changes per run and is printed.
func TestRandDense(t *testing.T) {
	s := rand.Uint64()
	r := rand.New(rand.NewPCG(s, 7))
	for k := range 24 {
		n, seed, off := 1+r.IntN(70), r.Uint64(), drawOffset(r)
		if k == 0 { // a 16-element group that wraps the stream
			n, off = 64, math.MaxUint64-5
		}
		for _, normal := range []bool{false, true} {
			a := array.New[float32](n)
			fill := RandUniform[float32]
			if normal {
				fill = RandNormal[float32]
			}
			if err := fill(a, seed, off); err != nil {
				t.Fatal(err)
			}
			h, _ := a.Host()
			p := philox{key: [2]uint32{uint32(seed), uint32(seed >> 32)}}
			for i, got := range h.Data() {
				e := off + uint64(i)
				want := float32(p.block(e / 4)[e%4]>>8) * 0x1p-24
				if normal {
					want = float32(p.normal(e, false))
				}
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("draw seed %d: normal=%v n=%d seed %d offset %d: element %d is %v, the stream's %v", s, normal, n, seed, off, i, got, want)
				}
			}
			a.Close()
		}
	}
}
