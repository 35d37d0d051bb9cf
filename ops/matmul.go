package ops

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Float is the element types MatMul handles.
type Float interface{ float32 | float64 }

// MatMul stores the matrix product a @ b in dst for float32 and float64,
// in NumPy's shapes: a (M, K), b (K, N), dst (M, N). A leading batch axis
// batches, ([B, ]M, K) @ ([B, ]K, N) → ([B, ]M, N), and an operand of
// rank 2 or batch 1 is shared by every batch. In the layout's own order
// (dimension 0 innermost) a has extents (K, M), and
//
//	dst(j, i) = Σ_p a(p, i) · b(j, p)
//
// Any views work (crops, transposes, non-zero mins): operands are packed
// into cache-sized panels, so a transposed operand costs nothing extra. dst
// must not overlap a or b.
//
// The host kernel is a packed, register-blocked GEMM (micro-kernels of 6
// rows by 16 float64 or 32 float32 with AVX-512, 8 or 16 with AVX2/FMA, or
// the same blocking in Go), parallel over rows of dst. Shape mismatches panic with array.ErrShape.
func MatMul[T Float](dst, a, b *array.Array[T]) error {
	if a.Len() == 0 || b.Len() == 0 {
		// An empty inner dimension: every dot product is 0. The empty
		// operands need no memory, wherever they live.
		if err := closedOperand("MatMul", rawOf(dst), rawOf(a), rawOf(b)); err != nil {
			return err // this path asks no placement
		}
		j := getJob()
		j.mm.check(dst, a, b)
		putJob(j)
		return Fill(dst, 0)
	}
	if ok, err := deviceMatMul(dst, a, b); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	mm := &j.mm
	mm.check(dst, a, b)
	if dst.Len() == 0 {
		return nil // nothing to compute, no input to bring home
	}
	av, err := a.HostReadOnly()
	if err != nil {
		return err
	}
	bv, err := b.HostReadOnly()
	if err != nil {
		return err
	}
	dv, err := outHost(dst)
	if err != nil {
		return err
	}
	j.base[0], j.base[1], j.base[2] = dataPtr(dv), hostPtr(av), hostPtr(bv)
	if mm.m == 0 || mm.n == 0 || mm.batch == 0 {
		return nil
	}
	var z T
	mr := 6
	mm.nr = 8 // float64 AVX2 tile width; float32 and AVX-512 are wider
	if unsafe.Sizeof(z) == 4 {
		mm.nr = 16
	}
	if useAVX512 {
		mm.nr *= 2
	}
	mm.upb = (mm.m + mr - 1) / mr
	units := mm.upb * mm.batch
	flopsPerUnit := mr * mm.n * max(mm.k, 1) * 2
	grain := max(1, (1<<20)/flopsPerUnit)
	j.body = cachedBody[T](bGemm, func() bodyFunc { return gemmBody[T] })
	j.parallel(units, grain)
	return nil
}

// mmJob is a matmul's shape and strides (in elements).
type mmJob struct {
	m, n, k, batch int
	sai, sak, sab  int // a: row i, column p, batch
	sbk, sbj, sbb  int // b: row p, column j, batch
	sdi, sdj, sdb  int // dst: row i, column j, batch
	nr, upb        int
}

func (m *mmJob) clear() { *m = mmJob{} }

func mmPanic(dst, a, b shaped, why string) {
	panic(fmt.Errorf("%w: ops.MatMul: dst %s, a %s, b %s: %s (want a ([B, ]M, K), b ([B, ]K, N), dst ([B, ]M, N): NumPy's shapes)",
		array.ErrShape, shapeOf(dst), shapeOf(a), shapeOf(b), why))
}

func (m *mmJob) check(dst, a, b shaped) {
	for _, x := range [3]shaped{dst, a, b} {
		if r := x.Rank(); r < 2 || r > 3 {
			mmPanic(dst, a, b, "every operand must be 2-D or 3-D")
		}
	}
	ak, am := a.Dim(0), a.Dim(1)
	bn, bk := b.Dim(0), b.Dim(1)
	dn, dm := dst.Dim(0), dst.Dim(1)
	if ak.Extent != bk.Extent {
		mmPanic(dst, a, b, fmt.Sprintf("inner extents differ: a's last axis is K=%d, b's second-to-last K=%d", ak.Extent, bk.Extent))
	}
	if am.Extent != dm.Extent || bn.Extent != dn.Extent {
		mmPanic(dst, a, b, "dst must be (M, N) for a (M, K) and b (K, N)")
	}
	batch := func(x shaped) (int, int) {
		if x.Rank() < 3 {
			return 1, 0
		}
		d := x.Dim(2)
		return d.Extent, d.Stride
	}
	db, dbs := batch(dst)
	ab, abs := batch(a)
	bb, bbs := batch(b)
	if ab == 1 {
		abs = 0
	}
	if bb == 1 {
		bbs = 0
	}
	if (ab != 1 && ab != db) || (bb != 1 && bb != db) {
		mmPanic(dst, a, b, "batch extents must equal dst's or be 1")
	}
	*m = mmJob{m: dm.Extent, n: dn.Extent, k: ak.Extent, batch: db,
		sai: am.Stride, sak: ak.Stride, sab: abs,
		sbk: bk.Stride, sbj: bn.Stride, sbb: bbs,
		sdi: dm.Stride, sdj: dn.Stride, sdb: dbs}
}

// Blocking: kc columns of A / rows of B per packed panel, mc rows of A per
// packed block (kept in L2), nc columns of B per packed block.
const (
	mmMR = 6
	mmKC = 256
	mmMC = 96
	mmNC = 1024
)

type mmBuf struct {
	a64, b64 []float64
	a32, b32 []float32
	tile     [mmMR * 32]float64 // the micro-kernel's output (as T)
}

// mmFree keeps packing buffers between calls (at most one per worker): a
// sync.Pool would drop them at each GC, and they are megabytes.
var mmFree = make(chan *mmBuf, maxWorkers)

func getMMBuf() *mmBuf {
	select {
	case b := <-mmFree:
		return b
	default:
		return new(mmBuf)
	}
}

func putMMBuf(b *mmBuf) {
	select {
	case mmFree <- b:
	default:
	}
}

// bufs returns packing buffers of T for one worker.
func (m *mmBuf) bufs(nr int, sz uintptr) (pa, pb unsafe.Pointer) {
	na := mmMC * mmKC
	nbCols := (mmNC*8/int(sz) + nr - 1) / nr * nr
	nb := nbCols * mmKC
	if sz == 8 {
		if m.a64 == nil {
			m.a64, m.b64 = make([]float64, na), make([]float64, nb)
		}
		return unsafe.Pointer(&m.a64[0]), unsafe.Pointer(&m.b64[0])
	}
	if m.a32 == nil {
		m.a32, m.b32 = make([]float32, na), make([]float32, nb)
	}
	return unsafe.Pointer(&m.a32[0]), unsafe.Pointer(&m.b32[0])
}

// gemmBody runs the row panels [lo, hi) (mmMR rows each, counted across
// batches) on one worker.
func gemmBody[T Float](j *job, _, lo, hi int) {
	mm := &j.mm
	buf := getMMBuf()
	defer putMMBuf(buf)
	var z T
	pa, pb := buf.bufs(mm.nr, unsafe.Sizeof(z))
	for u := lo; u < hi; {
		z := u / mm.upb
		end := min(hi, (z+1)*mm.upb)
		i0 := (u - z*mm.upb) * mmMR
		i1 := min(mm.m, (end-z*mm.upb)*mmMR)
		gemmRows[T](j, z, i0, i1, (*T)(pa), (*T)(pb), (*[mmMR * 32]T)(unsafe.Pointer(&buf.tile)))
		u = end
	}
}

// kernelFor returns the micro-kernel for T: assembly or Go.
func kernelFor[T Float]() func(k int, a, b, c unsafe.Pointer) {
	var z T
	if unsafe.Sizeof(z) == 8 {
		if useAVX512 {
			return gemm6x16F64AVX512
		}
		if useAsm {
			return gemm6x8F64
		}
		return gemmGo6x8F64
	}
	if useAVX512 {
		return gemm6x32F32AVX512
	}
	if useAsm {
		return gemm6x16F32
	}
	return gemmGo6x16F32
}

// gemmGo is the portable micro-kernel: the same packed layout and tile as
// the assembly, with the tile's accumulators in a local array.
func gemmGo[T Float](k int, a, b, c unsafe.Pointer, nr int) {
	var acc [mmMR * 16]T
	pa := unsafe.Slice((*T)(a), k*mmMR)
	pb := unsafe.Slice((*T)(b), k*nr)
	for p := 0; p < k; p++ {
		ar := pa[p*mmMR : p*mmMR+mmMR]
		br := pb[p*nr : p*nr+nr]
		for i, x := range ar {
			row := acc[i*nr : i*nr+nr]
			for jj, y := range br {
				row[jj] += x * y
			}
		}
	}
	copy(unsafe.Slice((*T)(c), mmMR*nr), acc[:mmMR*nr])
}

func gemmGo6x8F64(k int, a, b, c unsafe.Pointer)  { gemmGo[float64](k, a, b, c, 8) }
func gemmGo6x16F32(k int, a, b, c unsafe.Pointer) { gemmGo[float32](k, a, b, c, 16) }

// gemmRows computes dst rows [i0, i1) of batch z.
func gemmRows[T Float](j *job, z, i0, i1 int, pa, pb *T, tile *[mmMR * 32]T) {
	mm := &j.mm
	nr := mm.nr
	kern := kernelFor[T]()
	d := ptr[T](j.base[0], z*mm.sdb)
	nc := (mmNC * 8 / int(unsafe.Sizeof(tile[0])) / nr) * nr
	if mm.k == 0 { // a and b are empty: their bases are nil, no pointer into them
		for i := i0; i < i1; i++ {
			for jj := 0; jj < mm.n; jj++ {
				*add(d, i*mm.sdi+jj*mm.sdj) = 0
			}
		}
		return
	}
	a := ptr[T](j.base[1], z*mm.sab)
	b := ptr[T](j.base[2], z*mm.sbb)
	for jc := 0; jc < mm.n; jc += nc {
		nb := min(nc, mm.n-jc)
		for pc := 0; pc < mm.k; pc += mmKC {
			kb := min(mmKC, mm.k-pc)
			packB(pb, b, mm.sbk, mm.sbj, pc, kb, jc, nb, nr)
			for ic := i0; ic < i1; ic += mmMC {
				mb := min(mmMC, i1-ic)
				packA(pa, a, mm.sai, mm.sak, ic, mb, pc, kb)
				for jr := 0; jr < nb; jr += nr {
					nn := min(nr, nb-jr)
					bp := add(pb, jr*kb)
					for ir := 0; ir < mb; ir += mmMR {
						mr := min(mmMR, mb-ir)
						kern(kb, unsafe.Pointer(add(pa, ir*kb)), unsafe.Pointer(bp), unsafe.Pointer(&tile[0]))
						drow := add(d, (ic+ir)*mm.sdi+(jc+jr)*mm.sdj)
						for ii := 0; ii < mr; ii++ {
							t := tile[ii*nr : ii*nr+nn]
							dr := add(drow, ii*mm.sdi)
							if mm.sdj == 1 {
								ds := unsafe.Slice(dr, nn)
								if pc == 0 {
									copy(ds, t)
								} else {
									for q, x := range t {
										ds[q] += x
									}
								}
								continue
							}
							for q, x := range t {
								p := add(dr, q*mm.sdj)
								if pc == 0 {
									*p = x
								} else {
									*p += x
								}
							}
						}
					}
				}
			}
		}
	}
}

// add returns p advanced by off elements.
func add[T any](p *T, off int) *T {
	var z T
	return (*T)(unsafe.Add(unsafe.Pointer(p), uintptr(off)*unsafe.Sizeof(z)))
}

// packA copies rows [i0, i0+mb) × columns [p0, p0+kb) of A into panels of
// mmMR rows: panel r holds, for each p, the mmMR values of column p (zeros
// past the last row).
func packA[T Float](dst, a *T, si, sk, i0, mb, p0, kb int) {
	out := unsafe.Slice(dst, (mb+mmMR-1)/mmMR*mmMR*kb)
	for r := 0; r < mb; r += mmMR {
		panel := out[r*kb : (r+mmMR)*kb]
		rows := min(mmMR, mb-r)
		for ii := 0; ii < mmMR; ii++ {
			if ii >= rows {
				for p := 0; p < kb; p++ {
					panel[p*mmMR+ii] = 0
				}
				continue
			}
			src := add(a, (i0+r+ii)*si+p0*sk)
			if sk == 1 {
				s := unsafe.Slice(src, kb)
				for p, x := range s {
					panel[p*mmMR+ii] = x
				}
				continue
			}
			for p := 0; p < kb; p++ {
				panel[p*mmMR+ii] = *add(src, p*sk)
			}
		}
	}
}

// packB copies rows [p0, p0+kb) × columns [j0, j0+nb) of B into panels of
// nr columns: panel q holds, for each p, nr values of row p (zeros past the
// last column).
func packB[T Float](dst, b *T, sk, sj, p0, kb, j0, nb, nr int) {
	out := unsafe.Slice(dst, (nb+nr-1)/nr*nr*kb)
	for q := 0; q < nb; q += nr {
		panel := out[q*kb : (q+nr)*kb]
		cols := min(nr, nb-q)
		for p := 0; p < kb; p++ {
			row := panel[p*nr : p*nr+nr]
			src := add(b, (p0+p)*sk+(j0+q)*sj)
			if sj == 1 {
				copy(row, unsafe.Slice(src, cols))
			} else {
				for jj := 0; jj < cols; jj++ {
					row[jj] = *add(src, jj*sj)
				}
			}
			for jj := cols; jj < nr; jj++ {
				row[jj] = 0
			}
		}
	}
}
