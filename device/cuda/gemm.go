package cuda

import (
	"fmt"
	"math"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
)

var _ device.Gemmer = (*Device)(nil)

// Gemm queues g on the device's stream with cuBLAS (loaded on first use;
// one handle per Device, bound to its stream): cublasGemmEx, or
// cublasGemmStridedBatchedEx for batches. Compute types: float32 in
// CUBLAS_COMPUTE_32F (no TF32) unless g asks for device.PrecisionTF32
// (CUBLAS_COMPUTE_32F_FAST_TF32); float64 in CUBLAS_COMPUTE_64F;
// float16 and bfloat16 in CUBLAS_COMPUTE_32F (products exact, sums in
// float32). cuBLAS is column-major and our matrices are any strided
// views: a matrix with a unit stride is passed as it is, transposed or
// not; one without is first copied to a dense temporary on the device
// (2-D copies, counted as D2D). It reports false, for the caller to
// compute, when K is 0, when Dst has no unit stride, for an operand that
// needs the temporary but whose rows repeat or run backwards (a broadcast
// view: stride 0), and for sizes over cuBLAS's 32-bit limits.
func (d *Device) Gemm(g device.Gemm) (bool, error) {
	if g.M == 0 || g.N == 0 || g.Batch == 0 {
		return true, nil
	}
	if err := d.s.Enter(); err != nil {
		return false, err
	}
	defer d.s.Gate.Leave()
	typ, compute, ok := cublasTypes(g.Elem, g.Precision)
	if !ok {
		return false, nil
	}
	pl, ok := plan(g)
	if !ok {
		return false, nil
	}
	var x [3]*alloc // A, B, Dst
	for i, m := range []device.Matrix{g.A, g.B, g.Dst} {
		a, err := d.own(m.Alloc)
		if err != nil {
			return true, fmt.Errorf("cuda: Gemm operand %d: %w", i, err)
		}
		x[i] = a
	}
	s := d.s
	h, err := d.blasHandle()
	if err != nil {
		return true, err
	}
	es := g.Elem.Size()
	var ms [2]cu.Matrix
	for i, o := range pl.in {
		m := [2]device.Matrix{g.A, g.B}[o.which]
		ms[i] = cu.Matrix{Ptr: at(x[o.which], m.Off), Type: typ, LD: o.ld, Stride: int64(m.Batch), Trans: o.trans}
		if !o.dense {
			continue
		}
		t, err := d.dense(x[o.which], m.Off, o.rows, o.cols, o.sr, o.sc, m.Batch, g.Batch, es)
		if err != nil {
			return true, err
		}
		defer d.Free(t) // back to the cache: later work on the stream comes after the GEMM
		d.keepRoots(t.(*alloc).Root.H)
		ms[i].Ptr = at(t.(*alloc), 0)
		if m.Batch != 0 {
			ms[i].Stride = int64(o.rows * o.cols)
		}
	}
	mc := cu.Matrix{Ptr: at(x[2], g.Dst.Off), Type: typ, LD: pl.ldc, Stride: int64(g.Dst.Batch)}
	s.blasMu.Lock()
	err = cu.Gemm(s.ctx, h, pl.m, pl.n, g.K, g.Batch, ms[0], ms[1], mc, compute)
	s.blasMu.Unlock()
	if err != nil {
		return true, err
	}
	s.Counters.Launch()
	d.record("gemm", nil, nil, x[0].Root.H, x[1].Root.H, x[2].Root.H)
	return true, nil
}

// gemmPlan is a Gemm as cuBLAS's column-major C = op(A)·op(B), m×n.
type gemmPlan struct {
	m, n int
	in   [2]planned // cuBLAS's A and B
	ldc  int
}

// planned is one of cuBLAS's inputs: which of the Gemm's operands (0: A,
// 1: B), read transposed or not with leading dimension ld; dense: first
// copied to a column-major rows×cols temporary (strides sr, sc), whose ld
// is then rows and trans OpN.
type planned struct {
	which  int
	trans  int32
	ld     int
	dense  bool
	rows   int
	cols   int
	sr, sc int
}

// plan maps g to cuBLAS. Dst column-major as it lies (Row stride 1):
// C = A·B. Else as its transpose (Col stride 1): Cᵀ = Bᵀ·Aᵀ, the usual
// case for our layout (dimension 0, the column, innermost). false: Dst
// has no unit stride, K is 0, an operand to copy dense has rows that do
// not step forward, or a size is over cuBLAS's 32-bit ints.
func plan(g device.Gemm) (gemmPlan, bool) {
	if g.K == 0 {
		return gemmPlan{}, false
	}
	ct, ldc, ok := layout(g.M, g.N, g.Dst.Row, g.Dst.Col)
	if !ok {
		return gemmPlan{}, false
	}
	copyable := true
	in := func(which, rows, cols, sr, sc int) planned {
		p := planned{which: which, rows: rows, cols: cols, sr: sr, sc: sc}
		var ok bool
		if p.trans, p.ld, ok = layout(rows, cols, sr, sc); !ok {
			p.dense, p.trans, p.ld = true, cu.OpN, max(1, rows)
			// dense's 2-D copies step rows by a positive pitch: a
			// broadcast (stride 0) or reversed column is the caller's.
			copyable = copyable && (rows == 1 || sr > 0)
		}
		return p
	}
	var pl gemmPlan
	if ct == cu.OpN {
		pl = gemmPlan{m: g.M, n: g.N, ldc: ldc, in: [2]planned{
			in(0, g.M, g.K, g.A.Row, g.A.Col), in(1, g.K, g.N, g.B.Row, g.B.Col)}}
	} else {
		pl = gemmPlan{m: g.N, n: g.M, ldc: ldc, in: [2]planned{
			in(1, g.N, g.K, g.B.Col, g.B.Row), in(0, g.K, g.M, g.A.Col, g.A.Row)}}
	}
	if !copyable {
		return gemmPlan{}, false
	}
	for _, v := range []int{g.M, g.N, g.K, g.Batch, ldc, pl.in[0].ld, pl.in[1].ld} {
		if v > math.MaxInt32 {
			return gemmPlan{}, false
		}
	}
	return pl, true
}

// cublasTypes maps an element type and precision to cuBLAS's data and
// compute types.
func cublasTypes(e device.GemmElem, p device.Precision) (typ, compute int32, ok bool) {
	switch e {
	case device.GemmF32:
		if p == device.PrecisionTF32 {
			return cu.R32F, cu.Compute32FFastTF32, true
		}
		return cu.R32F, cu.Compute32F, true
	case device.GemmF64:
		return cu.R64F, cu.Compute64F, true
	case device.GemmF16:
		return cu.R16F, cu.Compute32F, true
	case device.GemmBF16:
		return cu.R16BF, cu.Compute32F, true
	}
	return 0, 0, false
}

// layout says how cuBLAS can read a rows×cols matrix whose element (r, c)
// is at r·sr + c·sc: as it lies (OpN, column-major, ld = sc) when rows are
// contiguous, or transposed (OpT, ld = sr) when columns are. A dimension
// of extent 1 may have any stride.
func layout(rows, cols, sr, sc int) (trans int32, ld int, ok bool) {
	if sr == 1 || rows == 1 {
		ld = sc
		if cols == 1 {
			ld = max(1, rows)
		}
		if ld >= max(1, rows) {
			return cu.OpN, ld, true
		}
	}
	if sc == 1 || cols == 1 {
		ld = sr
		if rows == 1 {
			ld = max(1, cols)
		}
		if ld >= max(1, cols) {
			return cu.OpT, ld, true
		}
	}
	return 0, 0, false
}

// dense copies a rows×cols matrix (strides sr, sc, batch stride bs; bs 0:
// one matrix for every batch) at byte off of a into a new column-major
// allocation, one 2-D copy per column of each batch.
func (d *Device) dense(a *alloc, off, rows, cols, sr, sc, bs, batch, es int) (device.Allocation, error) {
	nb := batch
	if bs == 0 {
		nb = 1
	}
	t, err := d.Malloc(rows * cols * nb * es)
	if err != nil {
		return nil, err
	}
	s := d.s
	dst := at(t.(*alloc), 0)
	for z := range nb {
		for c := range cols {
			src := at(a, off+(z*bs+c*sc)*es)
			to := dst + cu.DevicePtr((z*cols+c)*rows*es)
			if err := cu.Copy2DDtoD(s.ctx, to, es, src, max(sr, 1)*es, es, rows, s.stream); err != nil {
				d.Free(t)
				return nil, fmt.Errorf("cuda: Gemm operand to a dense temporary: %w", err)
			}
		}
	}
	s.Counters.D2D(rows * cols * nb * es)
	return t, nil
}

// blasHandle returns the device's cuBLAS handle, creating it (and loading
// cuBLAS) on first use.
func (d *Device) blasHandle() (cu.BLAS, error) {
	s := d.s
	s.blasMu.Lock()
	defer s.blasMu.Unlock()
	if s.blas != 0 {
		return s.blas, nil
	}
	if d.Closed() { // the caller (Gemm) is inside the gate
		return 0, ErrClosed
	}
	if err := cu.LoadBLAS(); err != nil {
		return 0, err
	}
	h, err := cu.BLASCreate(s.ctx)
	if err != nil {
		return 0, err
	}
	if err := cu.BLASSetStream(s.ctx, h, s.stream); err != nil {
		cu.BLASDestroy(s.ctx, h)
		return 0, err
	}
	s.blas = h
	return h, nil
}
