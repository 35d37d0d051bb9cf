package ops

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// UnaryOp is an elementwise operation of one operand.
type UnaryOp uint8

// The unary operations. Abs and Neg wrap on integers (Abs of the most
// negative value is itself) and Abs is the identity on unsigned types; Neg
// is not defined on unsigned types. Sqrt through Softplus are defined for
// floating-point types; Relu, Floor, Ceil, Round, Trunc and Sign for every
// type (the rounding ops are the identity on integers).
const (
	OpAbs UnaryOp = iota
	OpNeg
	OpSqrt
	OpExp
	OpLog
	OpTanh
	OpSin
	OpCos
	OpTan
	OpAsin
	OpAcos
	OpAtan
	OpSinh
	OpCosh
	OpSigmoid  // 1/(1+e^−x)
	OpSoftplus // log(1+e^x), computed as max(x,0)+log1p(e^−|x|) so it never overflows
	OpRelu     // max(x, 0); NaN stays NaN
	OpFloor
	OpCeil
	OpRound // to the nearest integer, halves to even (NumPy's round and rint)
	OpTrunc
	OpSign // −1, 0 or 1 (NumPy's sign: 0 for ±0, NaN for NaN)
	nUnary
)

var unaryNames = [...]string{"Abs", "Neg", "Sqrt", "Exp", "Log", "Tanh", "Sin", "Cos", "Tan",
	"Asin", "Acos", "Atan", "Sinh", "Cosh", "Sigmoid", "Softplus", "Relu", "Floor", "Ceil", "Round",
	"Trunc", "Sign"}

func (op UnaryOp) String() string {
	if op >= nUnary {
		return fmt.Sprintf("UnaryOp(%d)", op)
	}
	return unaryNames[op]
}

// floatOnly reports whether op is defined for floating-point types only.
func (op UnaryOp) floatOnly() bool { return op >= OpSqrt && op <= OpSoftplus }

// unaryCheck is the error of op on element kind k, or nil.
func unaryCheck[T array.Elem](op UnaryOp) error {
	k := kindOf[T]()
	switch {
	case op >= nUnary:
		return fmt.Errorf("%w: ops.Unary: op %d is not a UnaryOp (OpAbs … OpSign)", ErrUnsupported, op)
	case op.floatOnly() && k != kFloat && k != kHalf:
		return unsupported(op.String(), array.TypeOf[T](), "a floating-point type")
	case op == OpNeg && k == kUnsigned:
		return unsupported(op.String(), array.TypeOf[T](), "a signed or floating-point type")
	}
	return nil
}

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

// Sin stores sin(a) in dst (radians).
func Sin[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpSin) }

// Cos stores cos(a) in dst (radians).
func Cos[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpCos) }

// Tan stores tan(a) in dst (radians).
func Tan[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpTan) }

// Asin stores arcsin(a) in dst; NaN outside [−1, 1].
func Asin[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpAsin) }

// Acos stores arccos(a) in dst; NaN outside [−1, 1].
func Acos[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpAcos) }

// Atan stores arctan(a) in dst.
func Atan[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpAtan) }

// Sinh stores sinh(a) in dst.
func Sinh[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpSinh) }

// Cosh stores cosh(a) in dst.
func Cosh[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpCosh) }

// Sigmoid stores the logistic function 1/(1+e^−a) in dst.
func Sigmoid[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpSigmoid) }

// Softplus stores log(1+e^a) in dst (NumPy's logaddexp(0, a)).
func Softplus[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpSoftplus) }

// Relu stores max(a, 0) in dst; a NaN stays NaN.
func Relu[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpRelu) }

// Floor stores the largest integer ≤ a in dst.
func Floor[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpFloor) }

// Ceil stores the smallest integer ≥ a in dst.
func Ceil[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpCeil) }

// Round stores a rounded to the nearest integer in dst, halves to even
// (NumPy's round with no decimals: Round(2.5) = 2, Round(−0.5) = −0).
func Round[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpRound) }

// Trunc stores a rounded toward zero in dst.
func Trunc[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpTrunc) }

// Sign stores −1, 0 or 1 in dst by the sign of a (NaN for NaN, 0 for ±0).
func Sign[T array.Elem](dst, a *array.Array[T]) error { return Unary(dst, a, OpSign) }

// Unary stores op(a) in dst; a broadcasts to dst's shape. An op the type
// does not define returns an error wrapping ErrUnsupported.
func Unary[T array.Elem](dst, a *array.Array[T], op UnaryOp) error {
	if err := unaryCheck[T](op); err != nil {
		return err
	}
	if ok, err := deviceUnary(op, dst, a); ok {
		return err
	}
	k := kindOf[T]()
	j := getJob()
	defer putJob(j)
	if empty, err := hostJob1(j, op.String(), dst, a); empty || err != nil {
		return err
	}
	j.op = int(op)
	grain := 1 << 15
	if op >= OpExp && op <= OpSoftplus {
		grain = 1 << 11
	}
	if k == kHalf {
		j.row = cachedRow[T, T](kUnHalf, func() rowFunc { return unRowHalf[T] })
		grain /= 4
	} else {
		j.row = cachedRow[T, T](kUn, func() rowFunc { return unRow[T] })
		if useAsm {
			j.mode = ntFor(j.total() * 2 * sizeOf[T]())
		}
	}
	j.body = rows
	j.parallel(j.total(), grain)
	return nil
}

func unRow[T array.Elem](j *job, n int, off *[maxOps]int) {
	sd, sa := j.str[0][0], j.str[1][0]
	op := UnaryOp(j.op)
	if sd == 1 && sa == 1 {
		d, a := unsafe.Slice(ptr[T](j.base[0], off[0]), n), unsafe.Slice(ptr[T](j.base[1], off[1]), n)
		if j.mode == 1 && n > 0 && op >= OpFloor && op <= OpTrunc {
			if d32, ok := any(d).([]float32); ok { // big: write past the caches
				roundF32(unsafe.Pointer(&d32[0]), unsafe.Pointer(&a[0]), n, roundMode[op-OpFloor], true)
				return
			}
		}
		unVec(op, d, a)
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
	if op >= OpExp {
		if d32, ok := any(d).([]float32); ok {
			unVec32(op, d32, any(a).([]float32))
			return
		}
		unMath(op, d, a)
		return
	}
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
	}
}
