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
// than T's is an error wrapping array.ErrType that names both; use ReadAny to take
// whatever the file holds. A bool file ('|b1') reads as uint8 0 and 1.
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
		return nil, fmt.Errorf("%w: the file holds %s (%q), asked for %s (%q): call Read[%s] or ReadAny", array.ErrType, dt.typ, h.Descr, want, descrOf(want), goName(dt.typ))
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
	return readAs(r, h, dt)
}

// readAs reads the data of a file with header h and dtype dt.
func readAs(r io.Reader, h Header, dt dtype) (array.Buffer, error) {
	f, err := readers.For(dt.typ)
	if err != nil {
		return nil, fmt.Errorf("%w (descr %q)", err, h.Descr) // parseDescr returns only Elem types
	}
	return f(r, h, dt)
}

var readers = array.Instances(readBuf[int8], readBuf[int16], readBuf[int32], readBuf[int64],
	readBuf[uint8], readBuf[uint16], readBuf[uint32], readBuf[uint64],
	readBuf[array.Float16], readBuf[array.BFloat16], readBuf[float32], readBuf[float64])

// readBuf is readData with a nil Buffer, not a nil *Array, on error.
func readBuf[T array.Elem](r io.Reader, h Header, dt dtype) (array.Buffer, error) {
	a, err := readData[T](r, h, dt)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// ReadFile is Read on the named file.
func ReadFile[T array.Elem](name string) (*array.Array[T], error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Read[T](newFileReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

// fileReader is a buffered file that knows how many bytes are left in it,
// so that readData allocates a file's data at once when it is all there.
type fileReader struct {
	*bufio.Reader
	f    *os.File
	size int64
}

func newFileReader(f *os.File) *fileReader {
	r := &fileReader{Reader: bufio.NewReader(f), f: f, size: -1}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		r.size = st.Size()
	}
	return r
}

// Len is the bytes left: the file's from its offset, plus those buffered;
// 0 when unknown (not a regular file), so the reader takes the slow path.
func (r *fileReader) Len() int {
	if r.size < 0 {
		return 0
	}
	off, err := r.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	return int(max(r.size-off, 0)) + r.Buffered()
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

// A hostile header may claim any shape over a short file or stream, so
// readData's memory follows the bytes that actually arrive: it reads into
// pieces it allocates one at a time, each no bigger than what has been
// read so far (at least firstPiece, at most maxPiece, never more than the
// header claims), and makes the Array's storage only once all of it has
// arrived. A file that ends early thus costs about the bytes it holds plus
// one piece. A reader that says how many bytes it holds (Len, as
// bytes.Reader, ReadFile's reader and an archive's member do) and holds
// them all is read straight into the storage.
const (
	firstPiece = 4 << 10
	maxPiece   = 16 << 20
)

// lener is a reader that knows how many unread bytes it holds.
type lener interface{ Len() int }

func readData[T array.Elem](r io.Reader, h Header, dt dtype) (*array.Array[T], error) {
	size := int(unsafe.Sizeof(T(0)))
	count, nbytes, err := elements(h.Shape, size)
	if err != nil {
		return nil, err
	}
	var data []T
	if l, ok := r.(lener); ok && l.Len() >= nbytes {
		data = make([]T, count)
		if count > 0 {
			if got, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), nbytes)); err != nil {
				return nil, truncated(h, nbytes, got)
			}
		}
	} else {
		var pieces [][]byte
		have := 0
		for have < nbytes {
			p := make([]byte, min(nbytes-have, max(firstPiece, min(have, maxPiece))))
			got, err := io.ReadFull(r, p)
			if err != nil {
				return nil, truncated(h, nbytes, have+got)
			}
			pieces = append(pieces, p)
			have += got
		}
		data = make([]T, count)
		if count > 0 {
			out := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), nbytes)
			for _, p := range pieces {
				out = out[copy(out, p):]
			}
		}
	}
	if dt.bigEndian != bigEndianHost && count > 0 {
		swap(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), nbytes), size)
	}
	if dt.bool && count > 0 {
		for i, b := range unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), nbytes) {
			if b > 1 { // NumPy reads any non-zero byte as True
				data[i] = 1
			}
		}
	}
	a, err := array.Wrap(data, layout(h.Shape, h.Fortran))
	if err != nil {
		return nil, fmt.Errorf("%w: shape %v: %v", ErrFormat, h.Shape, err)
	}
	return a, nil
}

func truncated(h Header, nbytes, got int) error {
	return fmt.Errorf("%w: truncated: shape %v of %s needs %d data bytes, the file has %d", ErrFormat, h.Shape, h.Descr, nbytes, got)
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
