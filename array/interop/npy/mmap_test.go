package npy_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// mapsOf counts the mappings of the named file in this process
// (/proc/self/maps; -1 where there is none).
func mapsOf(name string) int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return -1
	}
	return strings.Count(string(b), name)
}

// TestMapFileNumPy: NumPy's files of every type map to Arrays that read as
// ReadFile reads them (C order) or as their Permute(n-1, …, 0) does
// (Fortran order).
func TestMapFileNumPy(t *testing.T) {
	mapped[int8](t, "i1")
	mapped[int16](t, "i2")
	mapped[int32](t, "i4")
	mapped[int64](t, "i8")
	mapped[uint8](t, "u1")
	mapped[uint16](t, "u2")
	mapped[uint32](t, "u4")
	mapped[uint64](t, "u8")
	mapped[array.Float16](t, "f2")
	mapped[array.BFloat16](t, "bf16")
	mapped[float32](t, "f4")
	mapped[float64](t, "f8")
	mapped[uint8](t, "bool")
}

func mapped[T array.Elem](t *testing.T, name string) {
	for _, order := range []string{"c", "f"} {
		file := fmt.Sprintf("testdata/%s_%s.npy", order, name)
		a, err := npy.MapFile[T](file, npy.CopyOnWrite)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r, err := npy.ReadFile[T](file)
		if err != nil {
			t.Fatal(err)
		}
		if order == "f" {
			n := a.Rank()
			perm := make([]int, n)
			for i := range perm {
				perm[i] = n - 1 - i
			}
			if got, want := a.Extents(), reversed(r.Extents()); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: extents %v, want NumPy's shape %v", file, got, want)
			}
			same(t, file, a.Permute(perm...), r)
		} else {
			same(t, file, a, r)
		}
		a.Close()
	}
}

func same[T array.Elem](t *testing.T, what string, a, b *array.Array[T]) {
	t.Helper()
	if fmt.Sprint(a.Extents()) != fmt.Sprint(b.Extents()) {
		t.Fatalf("%s: extents %v and %v", what, a.Extents(), b.Extents())
	}
	va, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	vb, err := b.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if !va.Equal(vb) {
		t.Fatalf("%s: mapped %v, read %v", what, va, vb)
	}
}

// bigFile writes a C-order float32 file of n elements holding their index.
func bigFile(t *testing.T, n int) string {
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(i)
	}
	name := filepath.Join(t.TempDir(), "big.npy")
	if err := npy.WriteFile(name, array.FromSlice(data, n)); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestMapFileShares: the Array's memory is the file's pages: mapping
// allocates nothing in proportion to the file; a write-through Array's
// writes reach the file, a copy-on-write one's do not; and Close unmaps.
func TestMapFileShares(t *testing.T) {
	const n = 4 << 20 // 16 MiB of data
	name := bigFile(t, n)
	var a *array.Array[float32]
	var err error
	if got := allocated(func() {
		a, err = npy.MapFile[float32](name, npy.WriteThrough)
		if err == nil {
			a.Close()
		}
	}); got > 64<<10 {
		t.Errorf("mapping a %d-byte file allocated %d bytes", 4*n, got)
	}
	if err != nil {
		t.Fatal(err)
	}
	before := mapsOf(name)
	for _, mode := range []npy.MapMode{npy.CopyOnWrite, npy.WriteThrough} {
		a, err := npy.MapFile[float32](name, mode)
		if err != nil {
			t.Fatal(err)
		}
		if m := mapsOf(name); before >= 0 && m != before+1 {
			t.Errorf("mode %d: %d mappings of the file while mapped, want %d", mode, m, before+1)
		}
		h, err := a.Host()
		if err != nil {
			t.Fatal(err)
		}
		if h.At(n-1) != n-1 || h.At(12345) != 12345 {
			t.Fatalf("mode %d: elements %v, %v", mode, h.At(n-1), h.At(12345))
		}
		h.Set(-7, 3)
		a.Close()
		if m := mapsOf(name); before >= 0 && m != before {
			t.Errorf("mode %d: %d mappings of the file after Close, want %d", mode, m, before)
		}
		if _, err := a.Host(); !errors.Is(err, array.ErrClosed) {
			t.Errorf("using a closed mapped Array: %v, want ErrClosed", err)
		}
		func() { // a host view kept from before has no error to return: it panics
			defer func() {
				if r := recover(); r == nil || !errors.Is(r.(error), array.ErrClosed) {
					t.Errorf("a host view of a closed mapped Array: %v, want a panic with ErrClosed", r)
				}
			}()
			h.At(0)
		}()
		f, err := npy.ReadFile[float32](name)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := f.HostReadOnly()
		want := float32(3)
		if mode == npy.WriteThrough {
			want = -7
		}
		if got := v.At(3); got != want {
			t.Errorf("mode %d: the file holds %v at 3 after a write through the map, want %v", mode, got, want)
		}
	}
}

// TestMapFileDropped: a mapped Array the program drops is unmapped by the
// garbage collector.
func TestMapFileDropped(t *testing.T) {
	name := bigFile(t, 1<<12)
	before := mapsOf(name)
	if before < 0 {
		t.Skip("no /proc/self/maps")
	}
	func() {
		a, err := npy.MapFile[float32](name, npy.CopyOnWrite)
		if err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(a)
	}()
	for range 20 {
		runtime.GC()
		if mapsOf(name) == before {
			return
		}
	}
	t.Errorf("a dropped mapped Array is still mapped")
}

// TestMapFileErrors: a file whose header does not fit it or T, or whose
// data cannot be used in place, is an error before anything is mapped.
func TestMapFileErrors(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var good bytes.Buffer
	npy.Write(&good, patterned[float64](3, 4))
	g := good.Bytes()
	// A header of 10+6 bytes puts the data at byte 16+...: make one that
	// starts the data at an odd offset.
	odd := []byte("\x93NUMPY\x01\x00")
	dict := "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"
	odd = binary.LittleEndian.AppendUint16(odd, uint16(len(dict)+1))
	odd = append(append(odd, dict...), '\n')
	odd = append(odd, make([]byte, 16)...)
	for _, c := range []struct {
		name   string
		file   string
		target error
		says   string
	}{
		{"truncated", put("trunc.npy", g[:len(g)-1]), npy.ErrFormat, "the file has 95"},
		{"huge claim", put("huge.npy", append(header("<f8", "(1099511627776,)"), 1, 2)), npy.ErrFormat, "truncated"},
		{"wrong type", put("good.npy", g), array.ErrType, "call MapFile[float64]"},
		{"big-endian", "testdata/be_f8.npy", array.ErrType, "big-endian"},
		{"unaligned", put("odd.npy", odd), npy.ErrFormat, "not a multiple of the 8-byte elements"},
		{"not npy", put("x.npy", []byte("hello, world")), npy.ErrFormat, "not an .npy file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.name == "wrong type" {
				_, err = npy.MapFile[float32](c.file, npy.CopyOnWrite)
			} else {
				_, err = npy.MapFile[float64](c.file, npy.CopyOnWrite)
			}
			if !errors.Is(err, c.target) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v, want %v saying %q", err, c.target, c.says)
			}
			if m := mapsOf(c.file); m > 0 {
				t.Fatalf("%d mappings left", m)
			}
		})
	}
	if _, err := npy.MapFile[float64](filepath.Join(dir, "missing.npy"), npy.CopyOnWrite); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	e, err := npy.MapFile[int16]("testdata/empty_i2.npy", npy.CopyOnWrite)
	if err != nil || e.Len() != 0 || fmt.Sprint(e.Extents()) != "[3 0]" {
		t.Errorf("an empty file: %v, %v", e, err)
	}
}

// ExampleMapFile: a big .npy file is used in place: its pages are read
// as elements are touched, and Close unmaps them.
func ExampleMapFile() {
	a, err := npy.MapFile[float32]("testdata/c_f4.npy", npy.CopyOnWrite)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	v, _ := a.HostReadOnly()
	fmt.Println(a.Extents(), v.At(3, 2, 1)) // NumPy's a[1, 2, 3]
	// Output:
	// [4 3 2] 16
}
