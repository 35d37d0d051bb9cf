package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// emulate runs a plan the way cuBLAS would, column-major, on float64
// memory (element indices, not bytes), dense temporaries included.
func emulate(g device.Gemm, pl gemmPlan, mem []float64) {
	ms := [2]device.Matrix{g.A, g.B}
	var src [2][]float64
	var off, bs [2]int
	for i, o := range pl.in {
		m := ms[o.which]
		src[i], off[i], bs[i] = mem, m.Off, m.Batch
		if o.dense && o.rows > 1 && o.sr <= 0 {
			panic("dense's 2-D copies need rows that step forward (a positive pitch)")
		}
		if o.dense { // the 2-D copies of dense
			nb := g.Batch
			if m.Batch == 0 {
				nb = 1
			}
			t := make([]float64, o.rows*o.cols*nb)
			for z := range nb {
				for c := range o.cols {
					for r := range o.rows {
						t[(z*o.cols+c)*o.rows+r] = mem[m.Off+z*m.Batch+r*o.sr+c*o.sc]
					}
				}
			}
			src[i], off[i] = t, 0
			if m.Batch != 0 {
				bs[i] = o.rows * o.cols
			}
		}
	}
	at := func(i, z, r, c int) float64 { // op(X)(r, c)
		o := pl.in[i]
		if o.trans == cu.OpT {
			r, c = c, r
		}
		return src[i][off[i]+z*bs[i]+r+c*o.ld]
	}
	for z := range g.Batch {
		for r := range pl.m {
			for c := range pl.n {
				s := 0.0
				for p := range g.K {
					s += at(0, z, r, p) * at(1, z, p, c)
				}
				mem[g.Dst.Off+z*g.Dst.Batch+r+c*pl.ldc] = s
			}
		}
	}
}

// TestPlan checks the mapping of strided matrices onto cuBLAS against the
// definition, for layouts drawn at random: row-major, column-major,
// padded, without a unit stride, shared across batches.
func TestPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// strides gives a rows×cols matrix's (row, col) strides and span.
	strides := func(rows, cols int) (int, int, int) {
		pad := rng.IntN(3)
		switch rng.IntN(4) {
		case 0: // columns innermost (our usual layout)
			return cols + pad, 1, rows*(cols+pad) + 1
		case 1: // rows innermost
			return 1, rows + pad, cols*(rows+pad) + 1
		case 2: // no unit stride
			return 2, 2*rows + 1, 2*rows*cols + cols + 2
		}
		// broadcast (ops' BroadcastTo views): rows repeat; columns repeat
		// too or are dense
		if rng.IntN(2) == 0 {
			return 0, 0, 1
		}
		return 0, 1, cols
	}
	for it := range 400 {
		g := device.Gemm{Elem: device.GemmF64, M: 1 + rng.IntN(5), N: 1 + rng.IntN(5), K: 1 + rng.IntN(5), Batch: 1 + rng.IntN(3)}
		n := 0
		place := func(m *device.Matrix, rows, cols int, shared bool) {
			var span int
			m.Row, m.Col, span = strides(rows, cols)
			m.Off = n + rng.IntN(3)
			m.Batch = span
			if shared {
				m.Batch = 0
			}
			n = m.Off + span*(g.Batch+1) + 1
		}
		place(&g.A, g.M, g.K, rng.IntN(4) == 0)
		place(&g.B, g.K, g.N, rng.IntN(4) == 0)
		place(&g.Dst, g.M, g.N, false)
		mem := make([]float64, n+64)
		for i := range mem {
			mem[i] = float64(rng.IntN(7) - 3)
		}
		want := append([]float64(nil), mem...)
		for z := range g.Batch {
			for i := range g.M {
				for j := range g.N {
					s := 0.0
					for p := range g.K {
						s += mem[g.A.Off+z*g.A.Batch+i*g.A.Row+p*g.A.Col] * mem[g.B.Off+z*g.B.Batch+p*g.B.Row+j*g.B.Col]
					}
					want[g.Dst.Off+z*g.Dst.Batch+i*g.Dst.Row+j*g.Dst.Col] = s
				}
			}
		}
		pl, ok := plan(g)
		_, _, dstOK := layout(g.M, g.N, g.Dst.Row, g.Dst.Col)
		// an operand with neither a unit stride nor rows stepping forward
		// (a broadcast) cannot go through dense's copies: the caller's
		fwd := func(rows, cols, sr, sc int) bool {
			_, _, ok := layout(rows, cols, sr, sc)
			return ok || rows == 1 || sr > 0
		}
		planOK := dstOK
		if dstOK {
			if ct, _, _ := layout(g.M, g.N, g.Dst.Row, g.Dst.Col); ct == cu.OpN {
				planOK = fwd(g.M, g.K, g.A.Row, g.A.Col) && fwd(g.K, g.N, g.B.Row, g.B.Col)
			} else {
				planOK = fwd(g.N, g.K, g.B.Col, g.B.Row) && fwd(g.K, g.M, g.A.Col, g.A.Row)
			}
		}
		if ok != planOK {
			t.Fatalf("case %d %+v: plan ok %v, want %v (dst has a unit stride: %v)", it, g, ok, planOK, dstOK)
		}
		if !ok {
			continue
		}
		for _, o := range pl.in {
			if o.ld < 1 {
				t.Fatalf("case %d: ld %d", it, o.ld)
			}
		}
		emulate(g, pl, mem)
		for i := range mem {
			if mem[i] != want[i] {
				t.Fatalf("case %d %+v plan %+v: element %d = %v, want %v", it, g, pl, i, mem[i], want[i])
			}
		}
	}
}

// TestForRuns checks that the copy pieces of a Region cover exactly its
// rows, each piece within limit, pitches within maxPitch.
func TestForRuns(t *testing.T) {
	for _, tc := range []struct {
		r               device.Region
		maxPitch, limit int
		pieces          int
	}{
		{device.Region{ElemSize: 4, Shape: []device.Span{{Extent: 100, Stride: 1}}}, 1 << 30, 0, 1},
		{device.Region{ElemSize: 4, Shape: []device.Span{{Extent: 10, Stride: 1}, {Extent: 20, Stride: 16}}}, 1 << 30, 0, 1},
		{device.Region{ElemSize: 4, Shape: []device.Span{{Extent: 10, Stride: 1}, {Extent: 20, Stride: 16}}}, 32, 0, 20},
		{device.Region{ElemSize: 4, Shape: []device.Span{{Extent: 10, Stride: 1}, {Extent: 20, Stride: 16}}}, 1 << 30, 200, 4},
		{device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 10, Stride: 1}, {Extent: 3, Stride: 12}, {Extent: 4, Stride: 100}}}, 1 << 30, 0, 4},
		{device.Region{ElemSize: 1, Shape: []device.Span{{Extent: 1000, Stride: 1}, {Extent: 2, Stride: 1000}}}.Simplify(), 1 << 30, 300, 7},
	} {
		r := tc.r.Simplify()
		var want [][2]int
		r.Rows(func(off, n int) { want = append(want, [2]int{off, n}) })
		var got [][2]int
		count := 0
		err := forRuns(r, tc.maxPitch, tc.limit, func(p devkit.Piece) error {
			count++
			if tc.limit > 0 && p.Bytes() > tc.limit || p.Rows > 1 && (p.Pitch > tc.maxPitch || p.Pitch < p.RowBytes) {
				t.Errorf("%v: piece %+v breaks the limits", tc.r, p)
			}
			for y := range p.Rows {
				got = append(got, [2]int{p.Off + y*p.Pitch, p.RowBytes})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Rows cut into segments: merge them back before comparing.
		var merged [][2]int
		for _, g := range got {
			if k := len(merged) - 1; k >= 0 && merged[k][0]+merged[k][1] == g[0] && tc.limit > 0 && merged[k][1]%tc.limit == 0 {
				merged[k][1] += g[1]
				continue
			}
			merged = append(merged, g)
		}
		if len(merged) != len(want) {
			t.Fatalf("%v: rows %v, want %v", tc.r, merged, want)
		}
		for i := range want {
			if merged[i] != want[i] {
				t.Fatalf("%v: rows %v, want %v", tc.r, merged, want)
			}
		}
		if count != tc.pieces {
			t.Errorf("%v (max pitch %d, limit %d): %d pieces, want %d", tc.r, tc.maxPitch, tc.limit, count, tc.pieces)
		}
	}
}
