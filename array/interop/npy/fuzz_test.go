package npy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// FuzzRead feeds arbitrary bytes to the reader: it must return an Array or
// an error wrapping ErrFormat or array.ErrType, never panic; what it reads must
// write back to bytes that read back to the same bytes again; and reading
// them, from a bytes.Reader or from a stream that hides its length, costs
// memory in proportion to the input, whatever the header claims.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.npy")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("\x93NUMPY\x01\x00\x30\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"))
	f.Add([]byte("\x93NUMPY\x03\x00\x10\x00\x00\x00{'shape': ((((("))
	f.Add(append(header("<f8", "(1099511627776,)"), 1, 2, 3)) // 8 TiB claimed
	f.Add([]byte("\x93NUMPY\x02\x00\x00\x00\x10\x00{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range []io.Reader{bytes.NewReader(data), streamOnly{bytes.NewReader(data)}} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			a, _ := npy.ReadAny(r)
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(data))+256<<10 {
				t.Fatalf("reading %d bytes (%T) allocated %d", len(data), r, n)
			}
			runtime.KeepAlive(a)
		}
		a, err := npy.ReadAny(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, npy.ErrFormat) && !errors.Is(err, array.ErrType) {
				t.Fatalf("error wraps neither ErrFormat nor array.ErrType: %v", err)
			}
			return
		}
		first := write(t, a)
		b, err := npy.ReadAny(bytes.NewReader(first))
		if err != nil {
			t.Fatalf("reading what Write wrote: %v", err)
		}
		if second := write(t, b); !bytes.Equal(first, second) {
			t.Fatalf("write∘read is not stable:\n%q\n%q", first, second)
		}
	})
}

func write(t *testing.T, b array.Buffer) []byte {
	var buf bytes.Buffer
	var err error
	switch a := b.(type) {
	case *array.Array[int8]:
		err = npy.Write(&buf, a)
	case *array.Array[int16]:
		err = npy.Write(&buf, a)
	case *array.Array[int32]:
		err = npy.Write(&buf, a)
	case *array.Array[int64]:
		err = npy.Write(&buf, a)
	case *array.Array[uint8]:
		err = npy.Write(&buf, a)
	case *array.Array[uint16]:
		err = npy.Write(&buf, a)
	case *array.Array[uint32]:
		err = npy.Write(&buf, a)
	case *array.Array[uint64]:
		err = npy.Write(&buf, a)
	case *array.Array[array.Float16]:
		err = npy.Write(&buf, a)
	case *array.Array[array.BFloat16]:
		err = npy.Write(&buf, a)
	case *array.Array[float32]:
		err = npy.Write(&buf, a)
	case *array.Array[float64]:
		err = npy.Write(&buf, a)
	default:
		t.Fatalf("ReadAny returned %T", b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
