package npy_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// FuzzShape puts int64 values anywhere in a header's shape (negative,
// zero, huge, products that overflow) over a few data bytes and reads the
// file every way there is: Read from a reader that tells its length and
// one that does not, as a stored and as a deflated .npz member, and
// through MapFile. None may panic; errors wrap ErrFormat or array.ErrType;
// memory stays in proportion to the file, whatever the shape claims; a
// file that reads holds exactly the shape's elements, the same every way.
func FuzzShape(f *testing.F) {
	f.Add(int64(2), int64(3), int64(4), uint8(3), uint8(0), false, []byte("0123456789abcdef"))
	f.Add(int64(1<<40), int64(0), int64(0), uint8(1), uint8(1), false, []byte{1, 2, 3})
	f.Add(int64(math.MaxInt64), int64(2), int64(1), uint8(2), uint8(2), true, []byte{})
	f.Add(int64(-1), int64(4), int64(1), uint8(2), uint8(3), false, make([]byte, 8))
	f.Add(int64(1<<32), int64(1<<32), int64(0), uint8(3), uint8(0), false, []byte{})
	f.Add(int64(0), int64(math.MaxInt64), int64(math.MaxInt64), uint8(3), uint8(1), true, []byte{})
	f.Add(int64(3), int64(1), int64(5), uint8(4), uint8(4), true, make([]byte, 60))
	dir := f.TempDir()
	descrs := []string{"|u1", "<f4", "<i8", "|b1", "<f2"}
	f.Fuzz(func(t *testing.T, s0, s1, s2 int64, rank, descr uint8, fortran bool, data []byte) {
		dims := []int64{s0, s1, s2, s0 ^ s1}[:rank%5]
		parts := make([]string, len(dims))
		for i, d := range dims {
			parts[i] = fmt.Sprint(d)
		}
		shape := "(" + strings.Join(parts, ", ")
		if len(dims) == 1 {
			shape += ","
		}
		shape += ")"
		dt := descrs[int(descr)%len(descrs)]
		dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %v, 'shape': %s}", dt, map[bool]string{false: "False", true: "True"}[fortran], shape)
		file := append(header(dt, "()")[:8:8], byte(len(dict)+1), byte((len(dict)+1)>>8))
		file = append(append(append(file, dict...), '\n'), data...)

		budget := 4*uint64(len(file)) + 256<<10
		var results []string
		check := func(how string, read func() (array.Buffer, error)) {
			var b array.Buffer
			var err error
			if n := allocatedOnce(func() { b, err = read() }); n > budget {
				t.Fatalf("%s: %d bytes claiming shape %s allocated %d", how, len(file), shape, n)
			}
			if err != nil {
				if !errors.Is(err, npy.ErrFormat) && !errors.Is(err, array.ErrType) {
					t.Fatalf("%s: error wraps neither ErrFormat nor array.ErrType: %v", how, err)
				}
				results = append(results, "error")
				return
			}
			n := 1
			for _, d := range dims {
				n *= int(d) // fits: the read checked it
			}
			if b.Raw().Len() != n || n*b.Raw().Type().Bytes() > len(data) {
				t.Fatalf("%s: shape %s over %d data bytes read as %v", how, shape, len(data), b.Raw().Dims())
			}
			results = append(results, string(write(t, b)))
		}
		check("bytes.Reader", func() (array.Buffer, error) { return npy.ReadAny(bytes.NewReader(file)) })
		check("stream", func() (array.Buffer, error) { return npy.ReadAny(streamOnly{bytes.NewReader(file)}) })
		for _, method := range []uint16{zip.Store, zip.Deflate} {
			var z bytes.Buffer
			zw := zip.NewWriter(&z)
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.npy", Method: method})
			w.Write(file)
			zw.Close()
			check(fmt.Sprint("npz method ", method), func() (array.Buffer, error) {
				m, err := npy.ReadArchive(bytes.NewReader(z.Bytes()), int64(z.Len()))
				if err != nil {
					return nil, err
				}
				return m["a"], nil
			})
		}
		name := filepath.Join(dir, "f.npy")
		if err := os.WriteFile(name, file, 0o644); err != nil {
			t.Fatal(err)
		}
		var mappedOK bool
		var mapErr error
		if n := allocatedOnce(func() {
			var a *array.Array[uint8]
			a, mapErr = npy.MapFile[uint8](name, npy.CopyOnWrite)
			if mapErr == nil {
				mappedOK = true
				a.Close()
			}
		}); n > budget {
			t.Fatalf("MapFile: %d bytes claiming shape %s allocated %d", len(file), shape, n)
		}
		if mapErr != nil && !errors.Is(mapErr, npy.ErrFormat) && !errors.Is(mapErr, array.ErrType) {
			t.Fatalf("MapFile: error wraps neither ErrFormat nor array.ErrType: %v", mapErr)
		}
		if mappedOK && results[0] == "error" {
			t.Fatalf("MapFile maps shape %s that Read refuses", shape)
		}
		for i := range results {
			if results[i] != results[0] {
				t.Fatalf("shape %s reads differently: %q and %q", shape, results[0], results[i])
			}
		}
		runtime.KeepAlive(results)
	})
}

// allocatedOnce is the bytes f allocates, measured once without a GC
// (fuzz targets run it often; a background allocation only adds).
func allocatedOnce(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
