package ops

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// The unary ops are defined once, in ops/internal/optable's table; their
// enum, names, public funcs, host kernels, OpenCL kernels, fused
// templates and engine bindings are generated from it:
//
//go:generate go run ./internal/optable/gen

// UnaryOp is an elementwise operation of one operand.
type UnaryOp uint8

// opClass is the element types a unary op is defined for (unClass).
type opClass uint8

const (
	classFloat  opClass = iota // floating-point types only
	classSigned                // signed integers and floating-point types
	classAll                   // every element type
)

func (op UnaryOp) String() string {
	if op >= nUnary {
		return fmt.Sprintf("UnaryOp(%d)", op)
	}
	return unaryNames[op]
}

// unaryCheck is the error of op on element kind k, or nil.
func unaryCheck[T array.Elem](op UnaryOp) error {
	k := kindOf[T]()
	switch {
	case op >= nUnary:
		return fmt.Errorf("%w: ops.Unary: op %d is not a UnaryOp (OpAbs … Op%s)", ErrUnsupported, op, unaryNames[nUnary-1])
	case unClass[op] == classFloat && k != kFloat && k != kHalf:
		return unsupported(op.String(), array.TypeOf[T](), "a floating-point type")
	case unClass[op] == classSigned && k == kUnsigned:
		return unsupported(op.String(), array.TypeOf[T](), "a signed or floating-point type")
	}
	return nil
}

// Unary stores op(a) in dst; a broadcasts to dst's shape. An op the type
// does not define returns an error wrapping ErrUnsupported.
func Unary[T array.Elem](dst, a *array.Array[T], op UnaryOp) error {
	p, err := planUnary(op, dst, a)
	if err != nil {
		return err
	}
	return p.run()
}

// unaryPlan is a Unary call decided: the op checked for T and placement
// asked once; run then computes where it says, with no second look.
type unaryPlan[T array.Elem] struct {
	op     UnaryOp
	dst, a *array.Array[T]
	k      device.Kernels    // non-nil: OpenCL C kernels on this device
	m      device.HostMemory // non-nil: the host kernels over this device's memory
}

// planUnary checks op for T and asks placement where the call runs (an
// error when it refuses the operands).
func planUnary[T array.Elem](op UnaryOp, dst, a *array.Array[T]) (unaryPlan[T], error) {
	p := unaryPlan[T]{op: op, dst: dst, a: a}
	if err := unaryCheck[T](op); err != nil {
		return p, err
	}
	var err error
	p.k, p.m, err = target(op.String(), [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a))
	return p, err
}

// run computes the plan: on the kernel device, on the host-addressed
// device's memory, or on the host (also when the kernel device has no
// form for these operands: more dimensions than its kernels take).
func (p unaryPlan[T]) run() error {
	switch {
	case p.m != nil:
		_, err := onHost1(p.m, p.op.String(), p.dst, p.a, func(vd, va *array.Array[T]) error {
			return unaryHost(p.op, vd, va)
		})
		return err
	case p.k != nil:
		if ok, err := unaryDevice(p.k, p.op, p.dst, p.a); ok {
			return err
		}
	}
	return unaryHost(p.op, p.dst, p.a)
}

// unaryHost computes dst = op(a) with the host kernels, in parallel.
func unaryHost[T array.Elem](op UnaryOp, dst, a *array.Array[T]) error {
	k := kindOf[T]()
	j := getJob()
	defer putJob(j)
	if empty, err := hostJob1(j, op.String(), dst, a); empty || err != nil {
		return err
	}
	j.op = int(op)
	grain := grainFor(unCostly[op])
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
		if j.mode == 1 && n > 0 { // big: write past the caches
			switch d := any(d).(type) {
			case []float32:
				if op >= OpFloor && op <= OpTrunc {
					roundF32(unsafe.Pointer(&d[0]), unsafe.Pointer(&a[0]), n, roundMode[op-OpFloor], true)
					return
				}
				if !unCostly[op] && unStream(op, d, any(a).([]float32), unVec32) {
					return
				}
			case []float64:
				if !unCostly[op] && unStream(op, d, any(a).([]float64), unVec64) {
					return
				}
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

// unStream is vec (unVec32 or unVec64) for cheap ops too big for the
// caches: it computes pieces of 8 KiB into a buffer that stays in L1
// and streams them to d with non-temporal stores, so d's lines are not
// read before they are written (a third less memory traffic). The costly
// ops ran 8-15% slower this way on 2 cores at 2^24 (their time is the
// arithmetic's), so unRow keeps them off it. d is a or does not overlap
// it. It reports false, d untouched, for an op vec does not have.
func unStream[T float32 | float64](op UnaryOp, d, a []T, vec func(UnaryOp, []T, []T) bool) bool {
	bp := streamBufs.Get().(*[streamPiece]float32) // a stack array would escape (vec calls kernels through func values)
	defer streamBufs.Put(bp)
	size := int(unsafe.Sizeof(d[0]))
	buf := unsafe.Slice((*T)(unsafe.Pointer(bp)), streamPiece*4/size)
	head := ntHead(d, true)
	if head > 0 && !vec(op, d[:head], a[:head]) {
		return false
	}
	for i := head; i < len(d); i += len(buf) {
		m := min(len(buf), len(d)-i)
		if !vec(op, buf[:m], a[i:i+m]) {
			return false // the first piece, with head 0: nothing written
		}
		w := m &^ (128/size - 1) // ntCopyF32 moves 128 bytes a step
		ntCopyF32(unsafe.Pointer(&d[i]), unsafe.Pointer(&buf[0]), w*size/4)
		copy(d[i+w:i+m], buf[w:m])
	}
	sfence()
	streamed.Add(1)
	return true
}

// streamed counts unStream's calls, for tests to see which path ran.
var streamed atomic.Int64

// streamPiece is unStream's piece (float32s): 8 KiB, well inside L1.
const streamPiece = 2048

var streamBufs = sync.Pool{New: func() any { return new([streamPiece]float32) }}

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

// unVec computes d = op(a) over equal-length dense slices (d may be a):
// the table's kernels (unary_gen.go), float32 first through math32.go's
// own where it has one, float64 through exp64.go's.
func unVec[T array.Elem](op UnaryOp, d, a []T) {
	a = a[:len(d)]
	if kindOf[T]() != kFloat {
		unInt(op, d, a)
		return
	}
	if d32, ok := any(d).([]float32); ok && unVec32(op, d32, any(a).([]float32)) {
		return
	}
	if d64, ok := any(d).([]float64); ok && unVec64(op, d64, any(a).([]float64)) {
		return
	}
	unFloat(op, d, a)
}
