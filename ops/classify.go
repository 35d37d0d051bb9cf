package ops

import (
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// classOp is a floating-point class test.
type classOp uint8

const (
	clsNaN classOp = iota
	clsInf
	clsFinite
)

var classNames = [...]string{"IsNaN", "IsInf", "IsFinite"}

// IsNaN stores the mask isnan(a) in dst: 1 where a is NaN, 0 elsewhere
// (always 0 for integer types), as Compare writes masks. a broadcasts to
// dst's shape.
func IsNaN[T array.Elem](dst *array.Array[uint8], a *array.Array[T]) error {
	return classify(clsNaN, dst, a)
}

// IsInf stores the mask isinf(a) in dst: 1 where a is +Inf or −Inf.
func IsInf[T array.Elem](dst *array.Array[uint8], a *array.Array[T]) error {
	return classify(clsInf, dst, a)
}

// IsFinite stores the mask isfinite(a) in dst: 1 where a is neither NaN
// nor ±Inf (always 1 for integer types).
func IsFinite[T array.Elem](dst *array.Array[uint8], a *array.Array[T]) error {
	return classify(clsFinite, dst, a)
}

func classify[T array.Elem](op classOp, dst *array.Array[uint8], a *array.Array[T]) error {
	if ok, err := deviceClassify(op, dst, a); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	if empty, err := hostJob1(j, classNames[op], dst, a); empty || err != nil {
		return err
	}
	j.op = int(op)
	if kindOf[T]() == kHalf {
		j.row = cachedRow[T, T](kClassHalf, func() rowFunc { return classRowHalf[T] })
	} else {
		j.row = cachedRow[T, T](kClass, func() rowFunc { return classRow[T] })
	}
	j.body = rows
	j.parallel(j.total(), 1<<14)
	return nil
}

func classRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa := j.str[0][0], j.str[1][0]
	if useAsm && kindOf[T]() == kFloat && sizeOf[T]() == 4 && sd == 1 && sa == 1 {
		class32(classOp(j.op), unsafe.Slice(ptr[uint8](j.base[0], off[0]), n), unsafe.Slice(ptr[float32](j.base[1], off[1]), n), j.total()*5 >= ntBytes)
		return
	}
	var ab [blk]T
	var db [blk]uint8
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := load(ab[:], j.base[1], off[1]+i*sa, sa, m)
		classVec(classOp(j.op), db[:m], x)
		store(db[:m], j.base[0], off[0]+i*sd, sd)
	}
}

func classRowHalf[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa := j.str[0][0], j.str[1][0]
	var ab [blk]float32
	var db [blk]uint8
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := loadF32[T](ab[:], j.base[1], off[1]+i*sa, sa, m)
		classVec(classOp(j.op), db[:m], x)
		store(db[:m], j.base[0], off[0]+i*sd, sd)
	}
}

func classVec[T array.Elem](op classOp, d []uint8, a []T) {
	a = a[:len(d)]
	if kindOf[T]() != kFloat { // integers are finite
		v := b2u(op == clsFinite)
		for i := range d {
			d[i] = v
		}
		return
	}
	for i, x := range a {
		f := float64(x)
		switch op {
		case clsNaN:
			d[i] = b2u(f != f)
		case clsInf:
			d[i] = b2u(math.IsInf(f, 0))
		default:
			d[i] = b2u(!math.IsInf(f, 0) && f == f)
		}
	}
}
