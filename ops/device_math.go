package ops

import (
	_ "embed" // the OpenCL sources

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// clMath is the math ops' part of the elementwise program (typeProgram
// appends it to clElementwise).
//
//go:embed cl/math.cl
var clMath string

// clUnary is the unary ops' part of the elementwise program, generated
// from ops/internal/optable's table (typeProgram appends it after clMath).
//
//go:embed cl/unary_gen.cl
var clUnary string

// clBinary is the binary ops' part, generated alike (typeProgram appends
// it after clUnary).
//
//go:embed cl/binary_gen.cl
var clBinary string

var clsCL = [...]string{"nan", "inf", "finite"}

// classifyDevice stores the mask op(a) in dst (uint8).
func classifyDevice[T array.Elem](d device.Kernels, op classOp, dst *array.Array[uint8], a *array.Array[T]) (bool, error) {
	name := classNames[op]
	var n nest
	n.init(name, dst)
	n.add(name, dst, a)
	n.simplify()
	var nd ndArg
	if !nd.fromNest(&n) {
		return false, nil
	}
	s := stateOf(d)
	p, err := s.typeProgram("ew", array.TypeOf[T]())
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, name, (*array.Array[T])(nil), a)
	if err != nil {
		return true, err
	}
	if mems[0], offs[0], err = s.operandMem(name, dst.Raw(), false); err != nil {
		return true, err
	}
	for k := range 3 {
		nd.off[k] = int64(offs[k])
	}
	return wroteOnDevice(dst.Raw(), s.launch(p, "cls_"+clsCL[op]+"_nd", []int{s.items(n.total())}, s.local, mems[0], mems[1], nd.bytes()))
}

func deviceClassify[T array.Elem](op classOp, dst *array.Array[uint8], a *array.Array[T]) (bool, error) {
	name := classNames[op]
	k, m, err := target(name, [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a))
	if m != nil {
		return onHost1(m, name, dst, a, func(vd *array.Array[uint8], va *array.Array[T]) error {
			return classify(op, vd, va)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return classifyDevice(k, op, dst, a)
}
