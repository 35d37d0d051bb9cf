package ops

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// The ops of stats.go, scan.go, sort.go and softmax.go work line by line:
// a line is the elements of a along dimension dim at one point of the
// other dimensions. lineSet pairs each line of a with where its results go.

// lineShape says how a destination relates to a's shape along dim.
type lineShape uint8

const (
	lineReduce lineShape = iota // a's shape without dim, or with dim of extent 1
	lineSame                    // a's shape
	lineTopK                    // a's shape with any extent along dim
)

// lineSet is the lines of a along dim: n is the nest of the other
// dimensions (operand 0 dst, 1 a, 2 a second dst), L and st the extent and
// per-operand strides along dim, min its Min.
type lineSet struct {
	n   nest
	L   int
	st  [3]int
	k   int // the extent of the destinations along dim (lineSame: L)
	min int
}

// linesOf checks the destinations against a and returns the lines;
// mismatches panic with array.ErrShape, a dim out of range with
// array.ErrOutOfRange.
func linesOf(name string, shape lineShape, a shaped, dim int, dsts ...shaped) lineSet {
	ra := a.Rank()
	if dim < 0 || dim >= ra {
		panic(errOutOfRange(name, dim, a))
	}
	var ls lineSet
	ls.L, ls.st[1], ls.min = a.Dim(dim).Extent, a.Dim(dim).Stride, a.Dim(dim).Min
	ls.k = ls.L
	bad := func(d shaped) {
		what := "a's shape without that dimension (or with extent 1 there)"
		switch shape {
		case lineSame:
			what = "a's shape"
		case lineTopK:
			what = "a's shape except along that dimension"
		}
		panic(fmt.Errorf("%w: ops.%s along %s: destination shape %s does not match source shape %s: want %s",
			array.ErrShape, name, dimName(dim, ra), shapeOf(d), shapeOf(a), what))
	}
	for k, d := range dsts {
		keep := d.Rank() == ra
		switch {
		case shape == lineReduce && !(keep && d.Dim(dim).Extent == 1) && d.Rank() != ra-1,
			shape != lineReduce && !keep,
			shape == lineSame && d.Dim(dim).Extent != ls.L,
			shape == lineTopK && k > 0 && d.Dim(dim).Extent != ls.k:
			bad(d)
		}
		if shape != lineReduce {
			ls.k = d.Dim(dim).Extent
			ls.st[2*k] = d.Dim(dim).Stride // operand 0, or 2 for the second
		}
	}
	r := 0
	for i := 0; i < ra; i++ {
		if i == dim {
			continue
		}
		if r == maxDims {
			panic(fmt.Errorf("%w: ops.%s: more than %d dimensions", array.ErrShape, name, maxDims))
		}
		ls.n.ext[r], ls.n.str[1][r] = a.Dim(i).Extent, a.Dim(i).Stride
		for k, d := range dsts {
			di := i
			if d.Rank() != ra && i > dim {
				di = i - 1
			}
			if d.Dim(di).Extent != a.Dim(i).Extent {
				bad(d)
			}
			op := 0
			if k == 1 {
				op = 2
			}
			ls.n.str[op][r] = d.Dim(di).Stride
		}
		r++
	}
	ls.n.rank = r
	if r == 0 {
		ls.n.rank, ls.n.ext[0] = 1, 1
	}
	ls.n.nops = 3 // an absent second dst has strides 0
	ls.n.simplify()
	return ls
}

// toSecond makes the one destination operand 2 (an int64 second dst).
func (ls *lineSet) toSecond() {
	ls.st[2], ls.st[0] = ls.st[0], 0
	for i := 0; i < ls.n.rank; i++ {
		ls.n.str[2][i], ls.n.str[0][i] = ls.n.str[0][i], 0
	}
}

// lines is the number of lines.
func (ls *lineSet) lines() int { return ls.n.total() }

// forLines calls fn for every line (in parallel for many or long lines)
// with the element offsets of its start in each operand and the chunk
// number (for per-chunk scratch). A chunk takes at least grain points
// (elements of lines): lineGrain for a pass or two over each line,
// costlyGrain for a sort. end, if not nil, is called after each chunk's
// last line (a sort returns its scratch there).
func (ls *lineSet) forLines(grain int, fn func(chunk int, off *[maxOps]int), end func(chunk int)) {
	total := ls.lines()
	if total == 0 {
		return
	}
	j := getJob()
	defer putJob(j)
	j.nest = ls.n
	j.body = func(j *job, chunk, lo, hi int) {
		// off is the chunk's own (j.offs), and forRows sets it afresh for
		// each row: stepping it in place allocates nothing (a copy passed
		// on to fn escaped, once per row)
		forRows(&j.nest, lo, hi, &j.offs[chunk], func(m int, off *[maxOps]int) {
			for i := 0; i < m; i++ {
				fn(chunk, off)
				for k := 0; k < j.nops; k++ {
					off[k] += j.str[k][0]
				}
			}
		})
		if end != nil {
			end(chunk)
		}
	}
	j.parallel(total, max(1, grain/max(ls.L, 1)))
}

// lineGrain is forLines' grain for the ops that pass over each line once
// or twice (sums, scans, Softmax). At 2^15, 256 rows of 256 went to 2
// workers; at 2^13 (8) Var, LogSumExp, Softmax and CumSum along them took
// half the time on 16 cores (bench/results/h100-2026-12-07-pool.txt).
const lineGrain = 1 << 13

// f64Block is a block of a line's values as float64, for the float ops.
type f64Block [blk]float64

// loadF64 converts the m ≤ blk elements at base+off, stride apart, to
// float64 in b.
func loadF64[T array.Elem](b *f64Block, base unsafe.Pointer, off, stride, m int) []float64 {
	s := span[T](base, off, m, stride)
	d := b[:m]
	if kindOf[T]() == kHalf {
		for i := range d {
			d[i] = float64(toF32(s[i*stride]))
		}
		return d
	}
	if stride == 1 {
		s = s[:m]
		for i, x := range s {
			d[i] = float64(x)
		}
		return d
	}
	for i := range d {
		d[i] = float64(s[i*stride])
	}
	return d
}

// f64To rounds a float64 to the float type T.
func f64To[T array.Elem](x float64) T {
	if kindOf[T]() == kHalf {
		return fromF32[T](float32(x))
	}
	return T(x)
}

// eachBlock calls fn with the line's values as float64, blk at a time.
func eachBlock[T array.Elem](base unsafe.Pointer, off, stride, n int, fn func(i int, xs []float64)) {
	var b f64Block
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		fn(i, loadF64[T](&b, base, off+i*stride, stride, m))
	}
}

// floatOnly is the error of a float-only op on an integer type.
func floatOnly[T array.Elem](name string) error {
	if k := kindOf[T](); k == kFloat || k == kHalf {
		return nil
	}
	return unsupported(name, array.TypeOf[T](), "a float type (float32, float64, Float16, BFloat16)")
}
