package ops

import (
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Copy copies src into dst element by element; src broadcasts to dst's
// shape. Any layouts work: a transposed or permuted src (see Transpose)
// takes a tiled path that reads and writes whole cache lines.
func Copy[T array.Elem](dst, src *array.Array[T]) error {
	if ok, err := deviceCopy(dst, src); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	if empty, err := hostJob1(j, "Copy", dst, src); empty || err != nil {
		return err
	}
	if j.tiled() {
		j.mode = ntFor(2 * j.total() * sizeOf[T]())
		j.body = cachedBody[T](bTile, func() bodyFunc { return tileBody[T] })
		j.parallel(j.mm.upb*j.mm.batch*j.mm.nr, max(1, 4096/(tileR*j.ext[0])))
		return nil
	}
	j.row = cachedRow[T, T](kCopy, func() rowFunc { return copyRow[T] })
	j.body = rows
	j.parallel(j.total(), 1<<16)
	return nil
}

// Fill sets every element of dst to x.
func Fill[T array.Elem](dst *array.Array[T], x T) error {
	if ok, err := deviceFill(dst, x); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	j.init("Fill", dst)
	j.addScalar()
	*(*T)(unsafe.Pointer(&j.scal[1])) = x
	j.simplify()
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.base[1] = unsafe.Pointer(&j.scal[1])
	j.row = cachedRow[T, T](kCopy, func() rowFunc { return copyRow[T] })
	j.body = rows
	j.parallel(j.total(), 1<<16)
	return nil
}

// Iota sets every element of dst to its coordinate along axis ax
// (Min included), like Halide's Func f(x, y) = x; for Float16 and BFloat16
// the coordinate is rounded.
func Iota[T array.Elem](dst *array.Array[T], ax array.Axis) error {
	dim := axisDim(dst, ax)
	if ok, err := deviceIota(dst, dim); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	j.init("Iota", dst)
	if dim < 0 || dim >= dst.Rank() {
		panic(errOutOfRange("Iota", dim, dst))
	}
	j.addScalar()
	j.str[1][dim] = 1 // a virtual operand: its offset is the coordinate − Min
	j.scal[1] = uint64(dst.Dim(dim).Min)
	j.simplify()
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.row = cachedRow[T, T](kIota, func() rowFunc { return iotaRow[T] })
	j.body = rows
	j.parallel(j.total(), 1<<16)
	return nil
}

func iotaRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, s1 := j.str[0][0], j.str[1][0]
	d := span[T](j.base[0], off[0], n, sd)
	v0 := int64(j.scal[1]) + int64(off[1])
	half := kindOf[T]() == kHalf
	for i := 0; i < n; i++ {
		v := v0 + int64(i*s1)
		if half {
			d[i*sd] = fromF32[T](float32(v))
		} else {
			d[i*sd] = T(v)
		}
	}
}

// fillPiece is how many elements Fill sets one by one before copying.
const fillPiece = 512

// fillStream is Fill's row for a dst past the caches: one piece set from
// d's first 32-byte boundary, then streamed over the rest with
// non-temporal stores (ntCopyF32 moves fillPiece·size bytes, a multiple
// of 128, as float32s), so d's lines are not read first.
func fillStream[T array.Elem](d []T, x T) {
	h := ntHead(d, true)
	m := min(len(d), h+fillPiece)
	fillSlice(d[:m], x)
	i := m
	for ; i+fillPiece <= len(d); i += fillPiece {
		ntCopyF32(unsafe.Pointer(&d[i]), unsafe.Pointer(&d[h]), fillPiece*sizeOf[T]()/4)
	}
	sfence()
	copy(d[i:], d[h:m])
	streamed.Add(1)
}

func copyRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, ss := j.str[0][0], j.str[1][0]
	d := span[T](j.base[0], off[0], n, sd)
	switch {
	case sd == 1 && ss == 1:
		copy(d, unsafe.Slice(ptr[T](j.base[1], off[1]), n))
	case ss == 0:
		x := *ptr[T](j.base[1], off[1])
		if sd == 1 && useAsm && j.total()*sizeOf[T]() >= ntBytes {
			fillStream(d, x)
			return
		}
		if sd == 1 { // a piece by the loop, the rest copied from it (memmove's vector stores)
			m := min(len(d), fillPiece)
			fillSlice(d[:m], x)
			for i := m; i < len(d); i += m {
				copy(d[i:], d[:m])
			}
			return
		}
		for i := 0; i < n; i++ {
			d[i*sd] = x
		}
	default:
		s := span[T](j.base[1], off[1], n, ss)
		for i := 0; i < n; i++ {
			d[i*sd] = s[i*ss]
		}
	}
}

// A transposing copy moves tiles of tileN columns (dst rows of 128 bytes
// for float32) by tileR rows (src runs of 1 KiB, long enough for the
// hardware prefetcher).
const (
	tileN = 32
	tileR = 256
)

// tiled prepares a transposing copy: dst steps by 1 along dimension 0 but
// src steps by 1 along another dimension k. It moves k to dimension 1 and
// splits the work into bands of tileR rows of it (mm.upb bands per outer
// point, mm.batch outer points), each in mm.nr parts of whole tiles: a
// square 2048² float32 has 8 bands, which would leave 8 of 16 cores idle.
func (j *job) tiled() bool {
	if j.rank < 2 || j.str[0][0] != 1 || j.str[1][0] == 1 || j.str[1][0] == 0 {
		return false
	}
	k := -1
	for d := 1; d < j.rank; d++ {
		if j.str[1][d] == 1 {
			k = d
			break
		}
	}
	if k < 0 {
		return false
	}
	j.swap(1, k)
	j.mm.upb = (j.ext[1] + tileR - 1) / tileR
	j.mm.batch = 1
	for d := 2; d < j.rank; d++ {
		j.mm.batch *= j.ext[d]
	}
	tiles := (j.ext[0] + tileN - 1) / tileN
	j.mm.nr = 1
	if units := j.mm.upb * j.mm.batch; units < 4*workers() {
		j.mm.nr = min(tiles, (4*workers()+units-1)/units)
	}
	return true
}

// tileBody copies bands [lo, hi) of a transposing copy tile by tile.
func tileBody[T array.Elem](j *job, _, lo, hi int) {
	sd1, ss0 := j.str[0][1], j.str[1][0]
	h, parts := j.ext[1], j.mm.nr
	span := ((j.ext[0]+tileN-1)/tileN + parts - 1) / parts * tileN // columns per part
	for u := lo; u < hi; u++ {
		part := u % parts
		z, band := u/parts/j.mm.upb, u/parts%j.mm.upb
		first, w := part*span, min(j.ext[0], (part+1)*span)
		var od, os int
		for d := 2; d < j.rank; d++ {
			c := z % j.ext[d]
			z /= j.ext[d]
			od += c * j.str[0][d]
			os += c * j.str[1][d]
		}
		r0 := band * tileR
		rn := min(tileR, h-r0)
		// Each tile goes through buf so that both memories are touched in
		// whole runs: dst rows of a power-of-two width map to the same cache
		// set, and storing down a column of them thrashes L1.
		var buf [tileR * tileN]T
		asm := useAsm && sizeOf[T]() == 4 && rn%8 == 0
		nt := j.mode == 1 && sd1%8 == 0 // then every dst row of the tile is 32-byte aligned if the first is
		for c0 := first; c0 < w; c0 += tileN {
			cn := min(tileN, w-c0)
			if asm && cn == tileN {
				// 8×8 blocks in AVX registers, src → buf; src rows are read a
				// cache line at a time (two blocks) while they are in L1.
				for c := 0; c < tileN; c += 8 {
					transposeStripF32(unsafe.Pointer(&buf[c]), 4*tileN,
						unsafe.Pointer(ptr[T](j.base[1], os+(c0+c)*ss0+r0)), 4*ss0, rn)
				}
				d := unsafe.Pointer(ptr[T](j.base[0], od+r0*sd1+c0))
				if nt && uintptr(d)%32 == 0 {
					copyRows128NT(d, 4*sd1, unsafe.Pointer(&buf[0]), 4*tileN, rn)
					continue
				}
			} else {
				for c := 0; c < cn; c++ {
					s := unsafe.Slice(ptr[T](j.base[1], os+(c0+c)*ss0+r0), rn)
					for r, x := range s {
						buf[r*tileN+c] = x
					}
				}
			}
			for r := 0; r < rn; r++ {
				d := unsafe.Slice(ptr[T](j.base[0], od+(r0+r)*sd1+c0), cn)
				copy(d, buf[r*tileN:r*tileN+cn])
			}
		}
	}
}
