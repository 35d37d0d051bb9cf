package npy

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// Read reads an .npy file whose dtype is T's (see the package
// documentation) into a new host-only Array: NumPy's shape reversed, dense
// for C order, with Fortran-order strides for Fortran order. A dtype other
// than T's is an error wrapping ErrType that names both; use ReadAny to take
// whatever the file holds.
func Read[T array.Elem](r io.Reader) (*array.Array[T], error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	dt, err := parseDescr(h.Descr)
	if err != nil {
		return nil, err
	}
	if want := array.TypeOf[T](); dt.typ != want {
		return nil, fmt.Errorf("%w: the file holds %s (%q), asked for %s (%q): call Read[%s] or ReadAny", ErrType, dt.typ, h.Descr, want, descrOf(want), goName(dt.typ))
	}
	return readData[T](r, h, dt)
}

// ReadAny reads an .npy file of any supported dtype; the result is an
// *array.Array[T] for the file's element type (for example
// *array.Array[float32] for "<f4"), laid out as Read lays it out.
func ReadAny(r io.Reader) (array.Buffer, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	dt, err := parseDescr(h.Descr)
	if err != nil {
		return nil, err
	}
	switch dt.typ {
	case array.TypeOf[int8]():
		return readData[int8](r, h, dt)
	case array.TypeOf[int16]():
		return readData[int16](r, h, dt)
	case array.TypeOf[int32]():
		return readData[int32](r, h, dt)
	case array.TypeOf[int64]():
		return readData[int64](r, h, dt)
	case array.TypeOf[uint8]():
		return readData[uint8](r, h, dt)
	case array.TypeOf[uint16]():
		return readData[uint16](r, h, dt)
	case array.TypeOf[uint32]():
		return readData[uint32](r, h, dt)
	case array.TypeOf[uint64]():
		return readData[uint64](r, h, dt)
	case array.TypeOf[array.Float16]():
		return readData[array.Float16](r, h, dt)
	case array.TypeOf[array.BFloat16]():
		return readData[array.BFloat16](r, h, dt)
	case array.TypeOf[float32]():
		return readData[float32](r, h, dt)
	case array.TypeOf[float64]():
		return readData[float64](r, h, dt)
	}
	return nil, fmt.Errorf("%w %q", ErrType, h.Descr) // parseDescr returns only the types above
}

// ReadFile is Read on the named file.
func ReadFile[T array.Elem](name string) (*array.Array[T], error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Read[T](bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

// goName is the Go spelling of an Array element type, for error messages.
func goName(t array.Type) string {
	switch t.Code {
	case array.Int:
		return fmt.Sprintf("int%d", t.Bits)
	case array.UInt:
		return fmt.Sprintf("uint%d", t.Bits)
	case array.BFloat:
		return "array.BFloat16"
	}
	if t.Bits == 16 {
		return "array.Float16"
	}
	return fmt.Sprintf("float%d", t.Bits)
}

// chunk is how many bytes readData allocates ahead of the data it has read,
// so that a header claiming a huge shape over a short file fails at the end
// of the file, not in the allocator.
const chunk = 16 << 20

func readData[T array.Elem](r io.Reader, h Header, dt dtype) (*array.Array[T], error) {
	size := int(unsafe.Sizeof(T(0)))
	count, nbytes, err := elements(h.Shape, size)
	if err != nil {
		return nil, err
	}
	data := make([]T, 0, min(count, chunk/size))
	for len(data) < count {
		n := min(count-len(data), max(len(data), chunk/size))
		data = slices.Grow(data, n)
		tail := data[len(data) : len(data)+n]
		got, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(&tail[0])), n*size))
		if err != nil {
			return nil, fmt.Errorf("%w: truncated: shape %v of %s needs %d data bytes, the file has %d", ErrFormat, h.Shape, h.Descr, nbytes, len(data)*size+got)
		}
		data = data[:len(data)+n]
	}
	if dt.bigEndian != bigEndianHost && count > 0 {
		swap(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), nbytes), size)
	}
	a, err := array.Wrap(data, layout(h.Shape, h.Fortran))
	if err != nil {
		return nil, fmt.Errorf("%w: shape %v: %v", ErrFormat, h.Shape, err)
	}
	return a, nil
}

// layout is the Array layout of a file's data: NumPy's axes reversed, so
// that Array dimension k is NumPy axis n-1-k.
func layout(shape []int, fortran bool) []array.Dim {
	n := len(shape)
	dims := make([]array.Dim, n)
	stride := 1
	if fortran { // NumPy axis 0 (Array dimension n-1) is innermost
		for k := n - 1; k >= 0; k-- {
			dims[k] = array.Dim{Extent: shape[n-1-k], Stride: stride}
			stride *= max(shape[n-1-k], 1)
		}
	} else { // NumPy's last axis (Array dimension 0) is innermost
		for k := range n {
			dims[k] = array.Dim{Extent: shape[n-1-k], Stride: stride}
			stride *= max(shape[n-1-k], 1)
		}
	}
	return dims
}

// bigEndianHost reports the machine's byte order.
var bigEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}()

// swap reverses the bytes of each size-byte element of b in place.
func swap(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		slices.Reverse(b[i : i+size])
	}
}
