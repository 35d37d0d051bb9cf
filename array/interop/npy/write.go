package npy

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/internal/strided"
)

// Write writes a as an .npy file (format 1.0, little-endian, 64-byte
// aligned header, as NumPy writes it): NumPy's shape is a's extents
// reversed. A dense Array is written as it lies in memory in C order, its
// full reversal (a.Permute(n-1, …, 0) of a dense Array) in Fortran order;
// any other layout is written in C order element by element. Write reads a
// through its read-only host view, which copies device data to host first
// when the device is newer.
func Write[T array.Elem](w io.Writer, a *array.Array[T]) error {
	return write(w, a, descrOf(array.TypeOf[T]()), writeElems[T])
}

// WriteBool writes a as a NumPy bool .npy file ('|b1'), laid out as Write
// lays it out: each non-zero element is True (byte 1), zero False, so
// the uint8 masks of package ops (Compare) save as NumPy masks.
func WriteBool(w io.Writer, a *array.Array[uint8]) error {
	return write(w, a, "|b1", writeBools)
}

func write[T array.Elem](w io.Writer, a *array.Array[T], descr string, out func(io.Writer, []T) error) error {
	dims := a.Dims()
	n := len(dims)
	h := Header{Descr: descr, Shape: make([]int, n)}
	for k, d := range dims {
		h.Shape[n-1-k] = d.Extent
	}
	var data []T
	if a.Len() > 0 {
		v, err := a.HostReadOnly()
		if err != nil {
			return err
		}
		data = v.Data()
	}
	switch {
	case a.Len() == 0 || packed(dims, false):
	case packed(dims, true):
		h.Fortran = true
	default:
		if _, err := w.Write(h.format()); err != nil {
			return err
		}
		return writeStrided(w, data, dims, out)
	}
	if _, err := w.Write(h.format()); err != nil {
		return err
	}
	return out(w, data[:a.Len()])
}

// writeBools writes s as bytes 0 and 1, a buffer at a time.
func writeBools(w io.Writer, s []uint8) error {
	var buf [16 << 10]byte
	for len(s) > 0 {
		n := min(len(s), len(buf))
		for i, x := range s[:n] {
			buf[i] = 0
			if x != 0 {
				buf[i] = 1
			}
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// packed reports whether dims lie densely in memory with dimension 0
// innermost, or with dimension n-1 innermost when reversed.
func packed(dims []array.Dim, reversed bool) bool {
	want := 1
	for i := range dims {
		d := dims[i]
		if reversed {
			d = dims[len(dims)-1-i]
		}
		if d.Extent == 1 {
			continue
		}
		if d.Stride != want {
			return false
		}
		want *= d.Extent
	}
	return true
}

// writeStrided writes the elements of a non-empty strided layout in C
// order (dimension 0 fastest), a buffer at a time.
func writeStrided[T array.Elem](w io.Writer, data []T, dims []array.Dim, out func(io.Writer, []T) error) error {
	buf := make([]T, 0, max(1, min(64<<10/int(unsafe.Sizeof(T(0))), dims[0].Extent*8)))
	d0 := dims[0]
	for off := range strided.Rows(dims) {
		for i := range d0.Extent {
			buf = append(buf, data[off+i*d0.Stride])
			if len(buf) == cap(buf) {
				if err := out(w, buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	return out(w, buf)
}

// writeElems writes s little-endian.
func writeElems[T array.Elem](w io.Writer, s []T) error {
	if len(s) == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(s[0]))
	b := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*size)
	if !bigEndianHost || size == 1 {
		_, err := w.Write(b)
		return err
	}
	tmp := make([]byte, min(len(b), 64<<10))
	for len(b) > 0 {
		n := copy(tmp, b)
		swap(tmp[:n], size)
		if _, err := w.Write(tmp[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// WriteFile is Write to the named file, created or truncated.
func WriteFile[T array.Elem](name string, a *array.Array[T]) error {
	return writeFile(name, func(w io.Writer) error { return Write(w, a) })
}

// WriteBoolFile is WriteBool to the named file, created or truncated.
func WriteBoolFile(name string, a *array.Array[uint8]) error {
	return writeFile(name, func(w io.Writer) error { return WriteBool(w, a) })
}

func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
