package ops

import (
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// UnaryOp is an elementwise operation of one operand.
type UnaryOp uint8

// The unary operations. Abs and Neg wrap on integers (Abs of the most
// negative value is itself) and Abs is the identity on unsigned types; Neg
// is not defined on unsigned types. Sqrt, Exp, Log and Tanh are defined for
// floating-point types.
const (
	OpAbs UnaryOp = iota
	OpNeg
	OpSqrt
	OpExp
	OpLog
	OpTanh
)

var unaryNames = [...]string{"Abs", "Neg", "Sqrt", "Exp", "Log", "Tanh"}

func (op UnaryOp) String() string { return unaryNames[op] }

// Abs stores |a| in dst.
func Abs[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpAbs) }

// Neg stores −a in dst.
func Neg[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpNeg) }

// Sqrt stores √a in dst.
func Sqrt[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpSqrt) }

// Exp stores e^a in dst.
func Exp[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpExp) }

// Log stores the natural logarithm of a in dst.
func Log[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpLog) }

// Tanh stores tanh(a) in dst.
func Tanh[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpTanh) }

// Unary stores op(a) in dst; a broadcasts to dst's shape. An op the type
// does not define returns an error wrapping ErrUnsupported.
func Unary[T array.Elem](dst, a *array.Array[T], op UnaryOp) error {
	if ok, err := deviceUnary(op, dst, a); ok {
		return err
	}
	k := kindOf[T]()
	switch {
	case op >= OpSqrt && k != kFloat && k != kHalf:
		return unsupported(op.String(), array.TypeOf[T](), "a floating-point type")
	case op == OpNeg && k == kUnsigned:
		return unsupported(op.String(), array.TypeOf[T](), "a signed or floating-point type")
	}
	j := getJob()
	defer putJob(j)
	name := op.String()
	j.init(name, dst)
	j.add(name, dst, a)
	j.simplify()
	if j.total() == 0 {
		return nil // an empty dst: nothing to compute, no input to bring home
	}
	if err := hostInputs(j, a); err != nil {
		return err
	}
	if err := hostDst(j, dst); err != nil {
		return err
	}
	j.op = int(op)
	grain := 1 << 15
	if op >= OpExp {
		grain = 1 << 11
	}
	if k == kHalf {
		j.row = cachedRow[T, T](kUnHalf, func() rowFunc { return unRowHalf[T] })
		grain /= 4
	} else {
		j.row = cachedRow[T, T](kUn, func() rowFunc { return unRow[T] })
	}
	j.body = rows
	j.parallel(j.total(), grain)
	return nil
}

func unRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa := j.str[0][0], j.str[1][0]
	op := UnaryOp(j.op)
	if sd == 1 && sa == 1 {
		unVec(op, unsafe.Slice(ptr[T](j.base[0], off[0]), n), unsafe.Slice(ptr[T](j.base[1], off[1]), n))
		return
	}
	var ab [blk]T
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := load(ab[:], j.base[1], off[1]+i*sa, sa, m)
		unVec(op, ab[:m], x)
		store(ab[:m], j.base[0], off[0]+i*sd, sd)
	}
}

func unRowHalf[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa := j.str[0][0], j.str[1][0]
	op := UnaryOp(j.op)
	var ab [blk]float32
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := loadF32[T](ab[:], j.base[1], off[1]+i*sa, sa, m)
		unVec(op, x, x)
		storeF32[T](x, j.base[0], off[0]+i*sd, sd)
	}
}

// unVec computes d = op(a) over equal-length dense slices (d may be a).
func unVec[T array.Elem](op UnaryOp, d, a []T) {
	a = a[:len(d)]
	switch op {
	case OpAbs:
		if kindOf[T]() == kUnsigned {
			copy(d, a)
			return
		}
		for i, x := range a {
			if x < 0 || (x == 0 && math.Signbit(float64(x))) {
				x = -x
			}
			d[i] = x
		}
	case OpNeg:
		for i, x := range a {
			d[i] = -x
		}
	case OpSqrt:
		for i, x := range a {
			d[i] = T(math.Sqrt(float64(x)))
		}
	case OpExp:
		for i, x := range a {
			d[i] = T(math.Exp(float64(x)))
		}
	case OpLog:
		for i, x := range a {
			d[i] = T(math.Log(float64(x)))
		}
	case OpTanh:
		for i, x := range a {
			d[i] = T(math.Tanh(float64(x)))
		}
	}
}
