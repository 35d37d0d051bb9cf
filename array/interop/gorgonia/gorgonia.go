package gorgonia

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/internal/strided"
)

// dtypeOf is the tensor Dtype of T, or an error naming T when tensor has
// none.
func dtypeOf[T array.Elem]() (tensor.Dtype, error) {
	var zero T
	switch any(zero).(type) {
	case array.Float16, array.BFloat16:
		return tensor.Dtype{}, fmt.Errorf("%w: tensor has no %s Dtype: convert the Array to float32 first", array.ErrType, array.TypeOf[T]())
	}
	return tensor.Dtype{Type: reflect.TypeFor[T]()}, nil
}

// FromDense wraps d's memory as an Array[T], without copying: d's shape and
// strides reversed, so d.At(i, j, …) is Array element (…, j, i). Views of a
// Dense (Slice, lazy T) map to the matching strided Arrays. T must be d's
// element type; FromDenseAny takes whatever d holds.
func FromDense[T array.Elem](d *tensor.Dense) (*array.Array[T], error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil *tensor.Dense", array.ErrLayout)
	}
	want, err := dtypeOf[T]()
	if err != nil {
		return nil, err
	}
	if got := d.Dtype(); got != want {
		return nil, fmt.Errorf("%w: the Dense holds %v, asked for %v: call FromDense[%v] or FromDenseAny", array.ErrType, got, want, got)
	}
	if d.IsMasked() {
		return nil, fmt.Errorf("%w: the Dense is masked and an Array has no mask: d.ResetMask() or copy the unmasked values", array.ErrLayout)
	}
	if !d.IsNativelyAccessible() {
		return nil, fmt.Errorf("%w: the Dense's memory is not host memory (engine %T): copy it to host first", array.ErrLayout, d.Engine())
	}
	a, err := array.Wrap(elems[T](d), Dims(d))
	if err != nil {
		return nil, fmt.Errorf("%w: Dense shape %v strides %v over %d elements: %v", array.ErrLayout, d.Shape(), d.Strides(), d.DataSize(), err)
	}
	return a, nil
}

// Dims is d's layout as Array dims: shape and strides reversed (dimension
// 0 is d's last axis), none for a scalar.
func Dims(d *tensor.Dense) []array.Dim {
	shape, strides := d.Shape(), d.Strides()
	n := len(shape)
	if d.IsScalar() {
		n = 0
	}
	dims := make([]array.Dim, n)
	for k := range dims {
		dims[k] = array.Dim{Extent: shape[n-1-k], Stride: strides[n-1-k]}
	}
	return dims
}

// elems is d's backing memory from its first element, as a []T.
func elems[T array.Elem](d *tensor.Dense) []T {
	size := uintptr(unsafe.Sizeof(T(0)))
	if d.MemSize() < size {
		return nil
	}
	if !d.IsScalar() {
		return d.Data().([]T)
	}
	// A scalar's Data is its value; its one element lives at Uintptr. The
	// Dense's Go heap memory does not move, and the slice keeps it alive.
	p := d.Uintptr()
	return unsafe.Slice((*T)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), d.MemSize()/size)
}

// FromDenseAny is FromDense for d's own element type: the result is an
// *array.Array[T] (for example *array.Array[float32] for tensor.Float32).
func FromDenseAny(d *tensor.Dense) (array.Buffer, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: nil *tensor.Dense", array.ErrLayout)
	}
	switch d.Dtype() {
	case tensor.Int, tensor.Uint:
		return nil, fmt.Errorf("%w: tensor.%v is Go's %v, whose size varies by platform: use tensor.%v64", array.ErrType, d.Dtype(), d.Dtype(), map[tensor.Dtype]string{tensor.Int: "Int", tensor.Uint: "Uint"}[d.Dtype()])
	}
	if t, ok := elemTypes[d.Dtype()]; ok {
		if f, err := fromDense.For(t); err == nil {
			return f(d)
		}
	}
	return nil, fmt.Errorf("%w: tensor.Dense of %v has no Array element type (Arrays hold int8…int64, uint8…uint64, float16, bfloat16, float32, float64)", array.ErrType, d.Dtype())
}

// elemTypes maps tensor's Dtypes that Arrays hold to Array element types.
var elemTypes = map[tensor.Dtype]array.Type{
	tensor.Int8: array.TypeOf[int8](), tensor.Int16: array.TypeOf[int16](), tensor.Int32: array.TypeOf[int32](), tensor.Int64: array.TypeOf[int64](),
	tensor.Uint8: array.TypeOf[uint8](), tensor.Uint16: array.TypeOf[uint16](), tensor.Uint32: array.TypeOf[uint32](), tensor.Uint64: array.TypeOf[uint64](),
	tensor.Float32: array.TypeOf[float32](), tensor.Float64: array.TypeOf[float64](),
}

var fromDense = array.Instances(fromDenseBuf[int8], fromDenseBuf[int16], fromDenseBuf[int32], fromDenseBuf[int64],
	fromDenseBuf[uint8], fromDenseBuf[uint16], fromDenseBuf[uint32], fromDenseBuf[uint64],
	nil, nil, fromDenseBuf[float32], fromDenseBuf[float64])

// fromDenseBuf is FromDense with a nil Buffer, not a nil *Array, on error.
func fromDenseBuf[T array.Elem](d *tensor.Dense) (array.Buffer, error) {
	a, err := FromDense[T](d)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// ToDense returns a *tensor.Dense over a's host memory, without copying:
// a's extents and strides reversed, so Array element (…, j, i) is
// d.At(i, j, …). A dense Array gives a plain row-major Dense; a permutation
// of one (Transpose, Permute) gives a Dense lazily transposed with T over
// the same memory. Other layouts are an error wrapping array.ErrLayout; use
// ToDenseCopy. An empty Array is an error too: tensor has no empty Dense.
// ToDense takes a's writable host view (see the package documentation).
func ToDense[T array.Elem](a *array.Array[T]) (*tensor.Dense, error) {
	dt, err := dtypeOf[T]()
	if err != nil {
		return nil, err
	}
	dims := a.Dims()
	n := len(dims)
	if a.Len() == 0 {
		return nil, fmt.Errorf("%w: the Array is empty (extents %v): a tensor.Dense cannot be", array.ErrLayout, a.Extents())
	}
	// Tensor axis i is Array dimension n-1-i. base lists the tensor axes in
	// memory order, outermost first; axes of extent 1 stay where they are.
	base := make([]int, n)
	var moving []int
	for i := range n {
		base[i] = i
		if dims[n-1-i].Extent > 1 {
			moving = append(moving, i)
		}
	}
	sorted := slices.Clone(moving)
	slices.SortStableFunc(sorted, func(x, y int) int { return dims[n-1-y].Stride - dims[n-1-x].Stride })
	for j, i := range moving {
		base[i] = sorted[j]
	}
	want := 1
	for j := n - 1; j >= 0; j-- {
		d := dims[n-1-base[j]]
		if d.Extent > 1 && d.Stride != want {
			return nil, fmt.Errorf("%w: Array extents %v strides %v do not tile their memory (dimension %d has stride %d where a dense layout has %d): a tensor.Dense addresses only dense memory and its transposes; use ToDenseCopy, or convert the Array this one is a view of and Slice the Dense", array.ErrLayout, a.Extents(), strides(dims), n-1-base[j], d.Stride, want)
		}
		want *= d.Extent
	}
	h, err := a.Host()
	if err != nil {
		return nil, err
	}
	data := h.Data()[:a.Len()]
	if n == 0 {
		return tensor.New(tensor.Of(dt), tensor.WithBacking(data)), nil
	}
	shape := make([]int, n)
	for j, i := range base {
		shape[j] = dims[n-1-i].Extent
	}
	d := tensor.New(tensor.Of(dt), tensor.WithShape(shape...), tensor.WithBacking(data))
	axes := make([]int, n) // tensor axis i is base axis axes[i]
	identity := true
	for j, i := range base {
		axes[i] = j
		identity = identity && i == j
	}
	if !identity {
		if err := d.T(axes...); err != nil {
			return nil, fmt.Errorf("gorgonia: tensor's T%v on shape %v: %w", axes, shape, err)
		}
	}
	return d, nil
}

// ToDenseCopy returns a new row-major *tensor.Dense holding a copy of a's
// elements, whatever a's layout: d.At(i, j, …) is Array element (…, j, i).
// It reads a through its read-only host view.
func ToDenseCopy[T array.Elem](a *array.Array[T]) (*tensor.Dense, error) {
	dt, err := dtypeOf[T]()
	if err != nil {
		return nil, err
	}
	dims := a.Dims()
	n := len(dims)
	if a.Len() == 0 {
		return nil, fmt.Errorf("%w: the Array is empty (extents %v): a tensor.Dense cannot be", array.ErrLayout, a.Extents())
	}
	v, err := a.HostReadOnly()
	if err != nil {
		return nil, err
	}
	out := gather(v.Data(), dims, a.Len())
	if n == 0 {
		return tensor.New(tensor.Of(dt), tensor.WithBacking(out)), nil
	}
	shape := a.Extents()
	slices.Reverse(shape)
	return tensor.New(tensor.Of(dt), tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

// gather copies the count elements of a non-empty layout over src into a
// new slice, dimension 0 fastest.
func gather[T array.Elem](src []T, dims []array.Dim, count int) []T {
	out := make([]T, 0, count)
	if len(dims) == 0 {
		return append(out, src[0])
	}
	d0 := dims[0]
	for off := range strided.Rows(dims) {
		if d0.Stride == 1 {
			out = append(out, src[off:off+d0.Extent]...)
		} else {
			for i := range d0.Extent {
				out = append(out, src[off+i*d0.Stride])
			}
		}
	}
	return out
}

func strides(dims []array.Dim) []int {
	s := make([]int, len(dims))
	for i, d := range dims {
		s[i] = d.Stride
	}
	return s
}
