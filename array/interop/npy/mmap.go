package npy

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// MapMode says what writes to a mapped Array do.
type MapMode int

const (
	// CopyOnWrite maps the file privately: the Array reads the file's
	// pages in place, and a page it writes becomes a private copy of
	// that page, so the file never changes. There is no read-only mode:
	// an Array's host view is writable, and a write to a read-only page
	// would kill the process.
	CopyOnWrite MapMode = iota
	// WriteThrough maps the file shared and opens it read-write: writes
	// to the Array's host memory reach the file (the kernel writes them
	// back; Close unmaps, which does not wait for that).
	WriteThrough
)

// MapFile maps the data of the named .npy file into memory and returns a
// device-aware Array whose host memory is the mapping: nothing is read or
// copied until elements are touched, so a file bigger than memory works,
// and the pages are the kernel's page cache. Close (or the garbage
// collector, for an Array dropped unclosed) unmaps it: host views and
// slices from them must not be used afterwards.
//
// The dtype must be T's (as for Read; a bool file maps as uint8 with the
// bytes as stored), little-endian (a big-endian file needs the swap
// ReadFile makes), and the data must start at a multiple of T's size
// (NumPy aligns it to 64 bytes). A C-order file maps as Read reads it:
// NumPy's shape reversed. A Fortran-order file maps as the root NumPy's
// a.T would read as: dimension k is NumPy axis k, dense; its
// Permute(n-1, …, 0) view is Read's layout (keep the root to Close it).
// The file's size is checked against the header before anything is
// mapped, so a truncated file is an error wrapping ErrFormat, never a
// fault. An empty array maps nothing.
//
// Mapping needs a Unix system; elsewhere MapFile reads the file as
// ReadFile does (a copy) and mode is ignored.
func MapFile[T array.Elem](name string, mode MapMode) (*array.Array[T], error) {
	flag := os.O_RDONLY
	if mode == WriteThrough {
		flag = os.O_RDWR
	}
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := mapFile[T](f, mode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

// mapLayout reads f's header and checks it for mapping: it returns the
// Array's extents, the data's byte offset and length.
func mapLayout[T array.Elem](f *os.File) (ext []int, off, nbytes int64, err error) {
	cr := &countReader{r: f}
	h, err := ReadHeader(cr)
	if err != nil {
		return nil, 0, 0, err
	}
	dt, err := parseDescr(h.Descr)
	if err != nil {
		return nil, 0, 0, err
	}
	want := array.TypeOf[T]()
	if dt.typ != want {
		return nil, 0, 0, fmt.Errorf("%w: the file holds %s (%q), asked for %s (%q): call MapFile[%s]", array.ErrType, dt.typ, h.Descr, want, descrOf(want), goName(dt.typ))
	}
	if dt.bigEndian {
		return nil, 0, 0, fmt.Errorf("%w: %q is big-endian, which this machine cannot use in place: ReadFile swaps the bytes (a copy)", array.ErrType, h.Descr)
	}
	_, n, err := elements(h.Shape, want.Bytes())
	if err != nil {
		return nil, 0, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	if left := st.Size() - cr.n; int64(n) > left {
		return nil, 0, 0, truncated(h, n, int(max(left, 0)))
	}
	if cr.n%int64(want.Bytes()) != 0 {
		return nil, 0, 0, fmt.Errorf("%w: the data starts at byte %d, not a multiple of the %d-byte elements: ReadFile reads it (a copy)", ErrFormat, cr.n, want.Bytes())
	}
	ext = make([]int, len(h.Shape))
	for k := range ext {
		if h.Fortran {
			ext[k] = h.Shape[k]
		} else {
			ext[k] = h.Shape[len(ext)-1-k]
		}
	}
	return ext, cr.n, int64(n), nil
}

// readMapped is the fallback: the file read into a new Array laid out as
// a mapping would be.
func readMapped[T array.Elem](f *os.File) (*array.Array[T], error) {
	ext, off, n, err := mapLayout[T](f)
	if err != nil {
		return nil, err
	}
	a := array.New[T](ext...)
	if n == 0 {
		return a, nil
	}
	h, err := a.Host()
	if err != nil {
		a.Close()
		return nil, err
	}
	b := asBytes(h.Data())
	if _, err := f.ReadAt(b[:n], off); err != nil && err != io.EOF {
		a.Close()
		return nil, err
	}
	return a, nil
}

// asBytes is s's memory as bytes.
func asBytes[T array.Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}
