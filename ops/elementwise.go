package ops

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// BinaryOp is an elementwise operation of two operands; the ops are
// defined once, in ops/internal/optable's table (binary_gen.go).
type BinaryOp uint8

func (op BinaryOp) String() string {
	if op >= nBinary {
		return fmt.Sprintf("BinaryOp(%d)", op)
	}
	return binaryNames[op]
}

// Binary stores a op b in dst. a and b broadcast to dst's shape (see the
// package documentation); dst may be a or b (in place) but must not
// otherwise overlap them. Shape mismatches panic with array.ErrShape; an
// op the type does not define (Pow on integers) returns ErrUnsupported.
func Binary[T array.Elem](dst, a, b *array.Array[T], op BinaryOp) error {
	var z T
	return binary(op, dst, a, b, z, z)
}

// BinaryScalar stores a op s in dst: for example BinaryScalar(dst, a,
// 2, OpMul) is 2a.
func BinaryScalar[T array.Elem](dst, a *array.Array[T], s T, op BinaryOp) error {
	return binary(op, dst, a, nil, s, s)
}

// ScalarBinary stores s op b in dst: for example ScalarBinary(dst, 1, b,
// OpDiv) is 1/b.
func ScalarBinary[T array.Elem](dst *array.Array[T], s T, b *array.Array[T], op BinaryOp) error {
	return binary(op, dst, nil, b, s, s)
}

// binary runs dst = a op b; a nil a or b stands for the scalar sa or sb.
func binary[T array.Elem](op BinaryOp, dst, a, b *array.Array[T], sa, sb T) error {
	if err := binaryCheck[T](op); err != nil {
		return err
	}
	if ok, err := deviceBinary(op, dst, a, b, sa, sb); ok {
		return err
	}
	k := kindOf[T]()
	j := getJob()
	defer putJob(j)
	name := op.String()
	j.init(name, dst)
	for i, x := range [2]*array.Array[T]{a, b} {
		if x != nil {
			j.add(name, dst, x)
			continue
		}
		j.addScalar()
		s := sa
		if i == 1 {
			s = sb
		}
		*(*T)(unsafe.Pointer(&j.scal[i+1])) = s
		j.base[i+1] = unsafe.Pointer(&j.scal[i+1])
	}
	j.simplify()
	if j.total() == 0 {
		return nil // an empty dst: nothing to compute, no input to bring home
	}
	if err := hostInputs(j, a, b, nil); err != nil {
		return err
	}
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.op = int(op)
	total := j.total()
	grain := grainFor(binCostly[op] && !(b == nil && squareBy(op, sb)))
	if k == kHalf {
		j.row = cachedRow[T, T](kBinHalf, func() rowFunc { return binRowHalf[T] })
		grain /= 4
	} else {
		j.row = cachedRow[T, T](kBin, func() rowFunc { return binRow[T] })
		j.mode = ntFor(total * 3 * sizeOf[T]())
	}
	j.body = rows
	j.parallel(total, grain)
	return nil
}

// ntBytes is the size of an op above which dense float kernels write with
// non-temporal stores: its data does not fit in the caches anyway.
const ntBytes = 32 << 20

func ntFor(bytes int) int {
	if bytes >= ntBytes {
		return 1
	}
	return 0
}

// hostJob1 sets j up for dst = f(a) on the host: the operands' simplified
// nest, then a's read-only and dst's writable host views. empty: a
// zero-size dst, nothing to compute and no input brought home.
func hostJob1[D, T array.Elem](j *job, name string, dst *array.Array[D], a *array.Array[T]) (empty bool, err error) {
	j.init(name, dst)
	j.add(name, dst, a)
	j.simplify()
	if j.total() == 0 {
		return true, nil
	}
	if err := hostInputs(j, a); err != nil {
		return false, err
	}
	return false, hostDst(j, dst)
}

// hostInputs takes read-only host views of the inputs (operands 1…) that
// are Arrays, which copies them to host when a device holds newer data.
func hostInputs[T array.Elem](j *job, xs ...*array.Array[T]) error {
	for i, x := range xs {
		if x == nil {
			continue
		}
		if p, ok, err := j.hostUse(x.Raw(), false); ok {
			if err != nil {
				return err
			}
			j.base[i+1] = p
			continue
		}
		v, err := x.HostReadOnly()
		if err != nil {
			return err
		}
		j.base[i+1] = hostPtr(v)
	}
	return nil
}

// hostUse reaches r's host memory through a use the job holds until
// putJob, leaving it unexposed so that Close can recycle it at once
// (package array's "Recycled host storage"); ok false: take a view.
func (j *job) hostUse(r *array.Raw, write bool) (unsafe.Pointer, bool, error) {
	p, ok, err := res().HostUse(r, write)
	if ok && err == nil {
		j.held = append(j.held, r)
	}
	return p, ok, err
}

// hostDst takes dst's host memory (operand 0), every element of which
// the op writes, and marks the host copy newest: values of dst lost when
// a device closed (array.ErrLost) are replaced, not read.
func hostDst[T array.Elem](j *job, dst *array.Array[T]) error {
	if p, ok, err := j.hostUse(dst.Raw(), true); ok {
		if err != nil {
			return err
		}
		j.base[0] = p
		return nil
	}
	if err := res().HostDst(dst.Raw()); err != nil {
		return err
	}
	j.base[0] = dst.Raw().HostPtr()
	return nil
}

// outHost is dst's host elements from its min corner over its span (a
// HostView's Data) for a host kernel that writes every element of dst,
// readied once, as hostDst's: values lost there are replaced, not read.
func outHost[T array.Elem](dst *array.Array[T]) ([]T, error) {
	r := dst.Raw()
	if err := res().HostDst(r); err != nil {
		return nil, err
	}
	b := r.HostBytes()
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sizeOf[T]()), nil
}

func binRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa, sb := j.str[0][0], j.str[1][0], j.str[2][0]
	op := BinaryOp(j.op)
	if sd == 1 && sa == 1 && sb == 1 {
		binVec(op, unsafe.Slice(ptr[T](j.base[0], off[0]), n),
			unsafe.Slice(ptr[T](j.base[1], off[1]), n),
			unsafe.Slice(ptr[T](j.base[2], off[2]), n), j.mode == 1)
		return
	}
	if sd == 1 && (sa == 1 && sb == 0 || sa == 0 && sb == 1) {
		binRowScalar[T](op, j, n, off, sa == 0)
		return
	}
	var ab, bb, db [blk]T
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := load(ab[:], j.base[1], off[1]+i*sa, sa, m)
		y := load(bb[:], j.base[2], off[2]+i*sb, sb, m)
		d := db[:m]
		if sd == 1 {
			d = unsafe.Slice(ptr[T](j.base[0], off[0]+i), m)
		}
		binVec(op, d, x, y, false)
		if sd != 1 {
			store(d, j.base[0], off[0]+i*sd, sd)
		}
	}
}

// binRowScalar is binRow for dense d and one dense operand, the other
// (a where aScalar, else b) one value repeated: it fills scalarPiece
// copies of the value once and runs the dense kernels over pieces.
func binRowScalar[T array.Elem](op BinaryOp, j *job, n int, off *[maxOps]int, aScalar bool) {
	var buf [scalarPiece]T
	si, vi := 2, 1
	if aScalar {
		si, vi = 1, 2
	}
	v := *ptr[T](j.base[si], off[si])
	square := !aScalar && squareBy(op, v)
	if square {
		op = OpMul
	}
	fillSlice(buf[:min(n, scalarPiece)], v)
	for i := 0; i < n; i += scalarPiece {
		m := min(scalarPiece, n-i)
		d := unsafe.Slice(ptr[T](j.base[0], off[0]+i), m)
		x, y := unsafe.Slice(ptr[T](j.base[vi], off[vi]+i), m), buf[:m]
		switch {
		case square:
			y = x
		case aScalar:
			x, y = y, x
		}
		binVec(op, d, x, y, j.mode == 1)
	}
}

func binRowHalf[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa, sb := j.str[0][0], j.str[1][0], j.str[2][0]
	op := BinaryOp(j.op)
	var ab, bb [blk]float32
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := loadF32[T](ab[:], j.base[1], off[1]+i*sa, sa, m)
		y := loadF32[T](bb[:], j.base[2], off[2]+i*sb, sb, m)
		binVec(op, x, x, y, false)
		storeF32[T](x, j.base[0], off[0]+i*sd, sd)
	}
}

// binVec computes d = a op b over equal-length dense slices (d may be a):
// the AVX kernels where they apply, else the table's (binGo).
func binVec[T array.Elem](op BinaryOp, d, a, b []T, nt bool) {
	if useAsm && op <= OpDiv && len(d) >= 16 && vecAsm(op, d, a, b, nt) {
		return
	}
	a, b = a[:len(d)], b[:len(d)]
	switch op {
	case OpMin, OpMax:
		if useAsm && minMaxAsm(d, a, b, op == OpMax, nt) {
			return
		}
	case OpPow:
		if d32, ok := any(d).([]float32); ok {
			pow32(d32, any(a).([]float32), any(b).([]float32))
			return
		}
		if d64, ok := any(d).([]float64); ok {
			pow64(d64, any(a).([]float64), any(b).([]float64))
			return
		}
	}
	binGo(op, d, a, b)
}

// divInt is integer division with x/0 = 0.
func divInt[T array.Elem](x, y T) T {
	if y == 0 {
		return 0
	}
	return x / y
}

// minMaxAsm runs the AVX kernel of Minimum or Maximum for dense float32
// or float64, the elements before d's first 32-byte boundary and after
// the last whole vector in Go; false for other types.
func minMaxAsm[T array.Elem](d, a, b []T, isMax, nt bool) bool {
	var z T
	var lanes int
	switch any(z).(type) {
	case float32:
		lanes = 8
	case float64:
		lanes = 4
	default:
		return false
	}
	if len(d) < 4*lanes {
		return false
	}
	a, b = a[:len(d)], b[:len(d)]
	sz := int(unsafe.Sizeof(z))
	h := 0
	if nt {
		h = int((32-uintptr(unsafe.Pointer(&d[0]))%32)%32) / sz // 0 unless d is misaligned by whole elements
	}
	m := (len(d) - h) &^ (lanes - 1)
	pd, pa, pb := unsafe.Pointer(&d[h]), unsafe.Pointer(&a[h]), unsafe.Pointer(&b[h])
	if lanes == 8 {
		minMaxF32(pd, pa, pb, m, isMax, nt && uintptr(pd)%32 == 0)
	} else {
		minMaxF64(pd, pa, pb, m, isMax, nt && uintptr(pd)%32 == 0)
	}
	for _, r := range [2][2]int{{0, h}, {h + m, len(d)}} {
		for i := r[0]; i < r[1]; i++ {
			if isMax {
				d[i] = max(a[i], b[i])
			} else {
				d[i] = min(a[i], b[i])
			}
		}
	}
	return true
}

// binaryCheck is the error of op on T, or nil.
func binaryCheck[T array.Elem](op BinaryOp) error {
	k := kindOf[T]()
	switch {
	case op >= nBinary:
		return fmt.Errorf("%w: ops.Binary: op %d is not a BinaryOp (OpAdd … Op%s)", ErrUnsupported, op, binaryNames[nBinary-1])
	case binClass[op] == classFloat && k != kFloat && k != kHalf:
		return unsupported(op.String(), array.TypeOf[T](), "a floating-point type")
	}
	return nil
}

// vecAsm runs the AVX2 kernel for dense float32/float64 add, sub, mul, div.
func vecAsm[T array.Elem](op BinaryOp, d, a, b []T, nt bool) bool {
	var z T
	pd, pa, pb := unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])
	n := len(d)
	switch any(z).(type) {
	case float32:
		switch op {
		case OpAdd:
			addF32(pd, pa, pb, n, nt)
		case OpSub:
			subF32(pd, pa, pb, n, nt)
		case OpMul:
			mulF32(pd, pa, pb, n, nt)
		default:
			divF32(pd, pa, pb, n, nt)
		}
	case float64:
		switch op {
		case OpAdd:
			addF64(pd, pa, pb, n, nt)
		case OpSub:
			subF64(pd, pa, pb, n, nt)
		case OpMul:
			mulF64(pd, pa, pb, n, nt)
		default:
			divF64(pd, pa, pb, n, nt)
		}
	default:
		return false
	}
	return true
}
