package progfuzz

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/ops"
)

// kind is a pool element type.
type kind int

const (
	kU8 kind = iota
	kU16
	kI16
	kI32
	kF32
	kF64
	nKinds
)

var kindNames = [...]string{"uint8", "uint16", "int16", "int32", "float32", "float64"}

func (k kind) String() string { return kindNames[k] }
func (k kind) size() int      { return [...]int{1, 2, 2, 4, 4, 8}[k] }
func (k kind) float() bool    { return k == kF32 || k == kF64 }
func (k kind) signed() bool   { return k != kU8 && k != kU16 }

// common is the part of *array.Array[T]'s method set that does not name T.
type common interface {
	Dims() []array.Dim
	Dim(int) array.Dim
	Rank() int
	Len() int
	HostDirty() bool
	DeviceDirty() bool
	Device() device.Device
	Raw() *array.Raw
	Close() error
	Closed() bool
	CopyToHost() error
	CopyToDevice(device.Device) error
	DeviceFree() error
	MoveTo(device.Device) (device.Path, error)
	HostOnly() bool
}

// arr is a pool Array of any kind; its T-typed operations are methods of
// tv[T]. Operands passed to them must be of the same kind (callers check).
type arr interface {
	common
	kind() kind
	crop(d, lo, n int) arr
	slice(d, p int) arr
	transpose(i, j int) arr
	permute(order []int) arr
	setMin(m []int) arr
	view(off int, dims []array.Dim) (arr, error)
	hostWrite(f func(c []int) float64) error
	hostRead(f func(c []int, v float64)) error
	binary(op int, a, b arr) error
	scalar(op int, a arr, s float64) error
	unary(op int, a arr) error
	copyFrom(a arr) error
	fill(x float64) error
	castFrom(src arr, sat bool) error
	hostBuf() (array.Buffer, error)
	buf() array.Buffer
	sum(a arr, dim int) error
	sumAll() (float64, error)
	maxAll() (float64, error)
	matmul(a, b arr) (bool, error)
}

type tv[T array.Elem] struct{ *array.Array[T] }

func wrapArr[T array.Elem](a *array.Array[T]) arr { return tv[T]{a} }

func kindOf[T array.Elem]() kind {
	var z T
	switch any(z).(type) {
	case uint8:
		return kU8
	case uint16:
		return kU16
	case int16:
		return kI16
	case int32:
		return kI32
	case float32:
		return kF32
	case float64:
		return kF64
	}
	panic("progfuzz: unexpected element type")
}

func toF[T array.Elem](v T) float64 {
	switch x := any(v).(type) {
	case uint8:
		return float64(x)
	case uint16:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	}
	panic("progfuzz: unexpected element type")
}

// fromF converts a model value (already of kind T's range) to T.
func fromF[T array.Elem](f float64) T {
	var z T
	switch any(z).(type) {
	case uint8:
		return any(uint8(int64(f))).(T)
	case uint16:
		return any(uint16(int64(f))).(T)
	case int16:
		return any(int16(int64(f))).(T)
	case int32:
		return any(int32(int64(f))).(T)
	case float32:
		return any(float32(f)).(T)
	case float64:
		return any(f).(T)
	}
	panic("progfuzz: unexpected element type")
}

// decode reads one element of kind k from little-endian bytes.
func decode(k kind, b []byte) float64 {
	switch k {
	case kU8:
		return float64(b[0])
	case kU16:
		return float64(binary.LittleEndian.Uint16(b))
	case kI16:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case kI32:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	case kF32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

func (t tv[T]) kind() kind                  { return kindOf[T]() }
func (t tv[T]) crop(d, lo, n int) arr       { return tv[T]{t.Crop(d, lo, n)} }
func (t tv[T]) slice(d, p int) arr          { return tv[T]{t.Slice(d, p)} }
func (t tv[T]) transpose(i, j int) arr      { return tv[T]{t.Transpose(i, j)} }
func (t tv[T]) permute(order []int) arr     { return tv[T]{t.Permute(order...)} }
func (t tv[T]) setMin(m []int) arr          { return tv[T]{t.SetMin(m...)} }
func (t tv[T]) other(a arr) *array.Array[T] { return a.(tv[T]).Array }

func (t tv[T]) view(off int, dims []array.Dim) (arr, error) {
	v, err := t.View(off, dims)
	if err != nil {
		return nil, err
	}
	return tv[T]{v}, nil
}

func (t tv[T]) hostWrite(f func(c []int) float64) error {
	h, err := t.Host()
	if err != nil {
		return err
	}
	each(t.Dims(), func(c []int) { h.Set(fromF[T](f(c)), c...) })
	return nil
}

func (t tv[T]) hostRead(f func(c []int, v float64)) error {
	h, err := t.HostReadOnly()
	if err != nil {
		return err
	}
	each(t.Dims(), func(c []int) { f(c, toF(h.At(c...))) })
	return nil
}

const (
	opAdd = iota
	opSub
	opMul
	opDiv
	opMax
	opMin
	nBinary
)

var binaryNames = [...]string{"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}

func (t tv[T]) binary(op int, a, b arr) error {
	x, y := t.other(a), t.other(b)
	switch op {
	case opAdd:
		return ops.Binary(t.Array, x, y, ops.OpAdd)
	case opSub:
		return ops.Binary(t.Array, x, y, ops.OpSub)
	case opMul:
		return ops.Binary(t.Array, x, y, ops.OpMul)
	case opDiv:
		return ops.Binary(t.Array, x, y, ops.OpDiv)
	case opMax:
		return ops.Binary(t.Array, x, y, ops.OpMax)
	}
	return ops.Binary(t.Array, x, y, ops.OpMin)
}

func (t tv[T]) scalar(op int, a arr, s float64) error {
	x, v := t.other(a), fromF[T](s)
	switch op {
	case opAdd:
		return ops.BinaryScalar(t.Array, x, v, ops.OpAdd)
	case opSub:
		return ops.BinaryScalar(t.Array, x, v, ops.OpSub)
	case opMul:
		return ops.BinaryScalar(t.Array, x, v, ops.OpMul)
	}
	return ops.BinaryScalar(t.Array, x, v, ops.OpDiv)
}

func (t tv[T]) unary(op int, a arr) error {
	if op == 0 {
		return ops.Unary(t.Array, t.other(a), ops.OpNeg)
	}
	return ops.Unary(t.Array, t.other(a), ops.OpAbs)
}

func (t tv[T]) copyFrom(a arr) error   { return ops.Copy(t.Array, t.other(a)) }
func (t tv[T]) fill(x float64) error   { return ops.Fill(t.Array, fromF[T](x)) }
func (t tv[T]) sum(a arr, d int) error { return ops.Sum(t.Array, t.other(a), array.Axis(-1-d)) }

func (t tv[T]) sumAll() (float64, error) {
	v, err := ops.Value(ops.Sum, t.Array)
	return toF(v), err
}

func (t tv[T]) maxAll() (float64, error) {
	v, err := ops.Value(ops.Max, t.Array)
	return toF(v), err
}

func (t tv[T]) matmul(a, b arr) (bool, error) {
	switch d := any(t.Array).(type) {
	case *array.Array[float32]:
		return true, ops.MatMul(d, a.(tv[float32]).Array, b.(tv[float32]).Array)
	case *array.Array[float64]:
		return true, ops.MatMul(d, a.(tv[float64]).Array, b.(tv[float64]).Array)
	}
	return false, nil
}

func (t tv[T]) castFrom(src arr, sat bool) error {
	switch s := src.(type) {
	case tv[uint8]:
		return castTo(t.Array, s.Array, sat)
	case tv[uint16]:
		return castTo(t.Array, s.Array, sat)
	case tv[int16]:
		return castTo(t.Array, s.Array, sat)
	case tv[int32]:
		return castTo(t.Array, s.Array, sat)
	case tv[float32]:
		return castTo(t.Array, s.Array, sat)
	case tv[float64]:
		return castTo(t.Array, s.Array, sat)
	}
	return fmt.Errorf("progfuzz: unexpected cast source %T", src)
}

func castTo[D, S array.Elem](dst *array.Array[D], src *array.Array[S], sat bool) error {
	if sat {
		return ops.CastSaturate(dst, src)
	}
	return ops.CastWrap(dst, src)
}

// each calls fn with every coordinate of dims, dimension 0 fastest; c is
// reused between calls.
func each(dims []array.Dim, fn func(c []int)) {
	for _, d := range dims {
		if d.Extent == 0 {
			return
		}
	}
	c := make([]int, len(dims))
	for i, d := range dims {
		c[i] = d.Min
	}
	for {
		fn(c)
		k := 0
		for ; k < len(dims); k++ {
			c[k]++
			if c[k] <= dims[k].Max() {
				break
			}
			c[k] = dims[k].Min
		}
		if k == len(dims) {
			return
		}
	}
}

// wrapTo is kind k's conversion of an exact value with wrapping: integers
// keep their low bits (floats truncate first; NaN and ±Inf become 0),
// float32 rounds to nearest.
func wrapTo(k kind, f float64) float64 {
	if !k.float() {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		f = math.Trunc(f)
		if f >= 1<<63 || f < -(1<<63) {
			f = math.Mod(f, 1<<32) // only the low 32 bits matter
		}
		i := int64(f)
		switch k {
		case kU8:
			return float64(uint8(i))
		case kU16:
			return float64(uint16(i))
		case kI16:
			return float64(int16(i))
		}
		return float64(int32(i))
	}
	if k == kF32 {
		return float64(float32(f))
	}
	return f
}

// satTo is kind k's conversion with saturation.
func satTo(k kind, f float64) float64 {
	if math.IsNaN(f) {
		if k.float() {
			return f
		}
		return 0
	}
	lo, hi := rangeOf(k)
	if k.float() && math.IsInf(f, 0) {
		return f
	}
	if !k.float() {
		f = math.Trunc(f)
	}
	return wrapTo(k, math.Max(lo, math.Min(hi, f)))
}

func rangeOf(k kind) (lo, hi float64) {
	switch k {
	case kU8:
		return 0, 255
	case kU16:
		return 0, 65535
	case kI16:
		return math.MinInt16, math.MaxInt16
	case kI32:
		return math.MinInt32, math.MaxInt32
	case kF32:
		return -math.MaxFloat32, math.MaxFloat32
	}
	return -math.MaxFloat64, math.MaxFloat64
}

func (t tv[T]) buf() array.Buffer { return t.Array }

func (t tv[T]) hostBuf() (array.Buffer, error) { return t.Host() }

// makeRoot makes a root of kind k: device-aware (New, then SetMin) or
// host-only (Wrap over a Go slice).
func makeRoot(k kind, hostOnly bool, mins, ext []int) (arr, error) {
	switch k {
	case kU8:
		return makeRootT[uint8](hostOnly, mins, ext)
	case kU16:
		return makeRootT[uint16](hostOnly, mins, ext)
	case kI16:
		return makeRootT[int16](hostOnly, mins, ext)
	case kI32:
		return makeRootT[int32](hostOnly, mins, ext)
	case kF32:
		return makeRootT[float32](hostOnly, mins, ext)
	}
	return makeRootT[float64](hostOnly, mins, ext)
}

func makeRootT[T array.Elem](hostOnly bool, mins, ext []int) (arr, error) {
	if !hostOnly {
		return tv[T]{array.NewWithMins[T](mins, ext)}, nil
	}
	n, dims := 1, make([]array.Dim, len(ext))
	for i, e := range ext {
		dims[i] = array.Dim{Min: mins[i], Extent: e, Stride: n}
		n *= e
	}
	a, err := array.Wrap(make([]T, n), dims)
	if err != nil {
		return nil, err
	}
	return tv[T]{a}, nil
}
