package ops

import (
	"unsafe"

	"github.com/resident-go/resident/array"
)

// CmpOp is a comparison.
type CmpOp uint8

// The comparisons. Comparisons with NaN are false except NE, as in Go.
const (
	EQ CmpOp = iota // ==
	NE              // !=
	LT              // <
	LE              // <=
	GT              // >
	GE              // >=
)

var cmpNames = [...]string{"EQ", "NE", "LT", "LE", "GT", "GE"}

func (op CmpOp) String() string { return cmpNames[op] }

// Compare stores the mask a op b in dst: 1 where it holds, 0 elsewhere. a
// and b broadcast to dst's shape.
func Compare[T array.Elem](dst *array.Array[uint8], a, b *array.Array[T], op CmpOp) error {
	var z T
	return compare(op, dst, a, b, z)
}

// CompareScalar stores the mask a op s in dst.
func CompareScalar[T array.Elem](dst *array.Array[uint8], a *array.Array[T], s T, op CmpOp) error {
	return compare(op, dst, a, nil, s)
}

func compare[T array.Elem](op CmpOp, dst *array.Array[uint8], a, b *array.Array[T], s T) error {
	if ok, err := deviceCompare(op, dst, a, b, s); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	name := "Compare"
	j.init(name, dst)
	j.add(name, dst, a)
	if b != nil {
		j.add(name, dst, b)
	} else {
		j.addScalar()
		*(*T)(unsafe.Pointer(&j.scal[2])) = s
		j.base[2] = unsafe.Pointer(&j.scal[2])
	}
	j.simplify()
	if j.total() == 0 {
		return nil // an empty dst: nothing to compute, no input to bring home
	}
	if err := hostInputs(j, a, b); err != nil {
		return err
	}
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.op = int(op)
	if kindOf[T]() == kHalf {
		j.row = cachedRow[T, T](kCmpHalf, func() rowFunc { return cmpRowHalf[T] })
	} else {
		j.row = cachedRow[T, T](kCmp, func() rowFunc { return cmpRow[T] })
	}
	j.body = rows
	j.parallel(j.total(), 1<<14)
	return nil
}

func cmpRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa, sb := j.str[0][0], j.str[1][0], j.str[2][0]
	if useAsm && kindOf[T]() == kFloat && sd == 1 && sa == 1 && sb <= 1 && sb >= 0 {
		d, nt := unsafe.Slice(ptr[uint8](j.base[0], off[0]), n), j.total()*9 >= ntBytes
		switch sizeOf[T]() {
		case 4:
			cmpRowF(CmpOp(j.op), d, unsafe.Slice(ptr[float32](j.base[1], off[1]), n), unsafe.Pointer(ptr[float32](j.base[2], off[2])), sb, nt)
			return
		case 8:
			cmpRowF(CmpOp(j.op), d, unsafe.Slice(ptr[float64](j.base[1], off[1]), n), unsafe.Pointer(ptr[float64](j.base[2], off[2])), sb, nt)
			return
		}
	}
	var ab, bb [blk]T
	var db [blk]uint8
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := load(ab[:], j.base[1], off[1]+i*sa, sa, m)
		y := load(bb[:], j.base[2], off[2]+i*sb, sb, m)
		cmpVec(CmpOp(j.op), db[:m], x, y)
		store(db[:m], j.base[0], off[0]+i*sd, sd)
	}
}

func cmpRowHalf[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa, sb := j.str[0][0], j.str[1][0], j.str[2][0]
	var ab, bb [blk]float32
	var db [blk]uint8
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := loadF32[T](ab[:], j.base[1], off[1]+i*sa, sa, m)
		y := loadF32[T](bb[:], j.base[2], off[2]+i*sb, sb, m)
		cmpVec(CmpOp(j.op), db[:m], x, y)
		store(db[:m], j.base[0], off[0]+i*sd, sd)
	}
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func cmpVec[T array.Elem | float32](op CmpOp, d []uint8, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	switch op {
	case EQ:
		for i := range d {
			d[i] = b2u(a[i] == b[i])
		}
	case NE:
		for i := range d {
			d[i] = b2u(a[i] != b[i])
		}
	case LT:
		for i := range d {
			d[i] = b2u(a[i] < b[i])
		}
	case LE:
		for i := range d {
			d[i] = b2u(a[i] <= b[i])
		}
	case GT:
		for i := range d {
			d[i] = b2u(a[i] > b[i])
		}
	case GE:
		for i := range d {
			d[i] = b2u(a[i] >= b[i])
		}
	}
}

// Where stores a where cond is non-zero and b elsewhere; cond, a and b
// broadcast to dst's shape. It copies elements bit for bit, so it works for
// every element type.
func Where[T array.Elem](dst *array.Array[T], cond *array.Array[uint8], a, b *array.Array[T]) error {
	if ok, err := deviceWhere(dst, cond, a, b); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	name := "Where"
	j.init(name, dst)
	j.add(name, dst, cond)
	j.add(name, dst, a)
	j.add(name, dst, b)
	j.simplify()
	if j.total() == 0 {
		return nil // an empty dst: nothing to compute, no input to bring home
	}
	cv, err := cond.HostReadOnly()
	if err != nil {
		return err
	}
	j.base[1] = hostPtr(cv)
	for i, x := range [2]*array.Array[T]{a, b} {
		v, err := x.HostReadOnly()
		if err != nil {
			return err
		}
		j.base[i+2] = hostPtr(v)
	}
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.row = cachedRow[T, T](kWhere, func() rowFunc { return whereRow[T] })
	j.body = rows
	j.parallel(j.total(), 1<<15)
	return nil
}

// whereBits stores a where c is non-zero, b elsewhere, by masks of bits:
// no branch on c.
func whereBits[U uint32 | uint64](d []U, c []uint8, a, b []U) {
	a, b, c = a[:len(d)], b[:len(d)], c[:len(d)]
	for i := range d {
		var m U
		if c[i] != 0 {
			m = ^U(0)
		}
		d[i] = b[i] ^ (a[i]^b[i])&m
	}
}

func whereRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sc, sa, sb := j.str[0][0], j.str[1][0], j.str[2][0], j.str[3][0]
	d := span[T](j.base[0], off[0], n, sd)
	c := span[uint8](j.base[1], off[1], n, sc)
	a := span[T](j.base[2], off[2], n, sa)
	b := span[T](j.base[3], off[3], n, sb)
	if sd == 1 && sc == 1 && sa == 1 && sb == 1 {
		switch sizeOf[T]() { // bit selects: masks are unpredictable, a branch per element mispredicts
		case 4:
			whereBits(unsafe.Slice(ptr[uint32](j.base[0], off[0]), n), c[:n], unsafe.Slice(ptr[uint32](j.base[2], off[2]), n), unsafe.Slice(ptr[uint32](j.base[3], off[3]), n))
			return
		case 8:
			whereBits(unsafe.Slice(ptr[uint64](j.base[0], off[0]), n), c[:n], unsafe.Slice(ptr[uint64](j.base[2], off[2]), n), unsafe.Slice(ptr[uint64](j.base[3], off[3]), n))
			return
		}
	}
	for i := 0; i < n; i++ {
		v := b[i*sb]
		if c[i*sc] != 0 {
			v = a[i*sa]
		}
		d[i*sd] = v
	}
}
