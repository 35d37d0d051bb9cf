package npy_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

func d(min, extent, stride int) array.Dim { return array.Dim{Min: min, Extent: extent, Stride: stride} }

// pattern is element k (in NumPy's C order) of every test array, as
// testdata/gen.py and the numpy round trip make it.
func pattern[T array.Elem](k int) T {
	t := array.TypeOf[T]()
	f := float32(k*3-5) / 4
	switch {
	case t.Code == array.BFloat:
		return any(array.BF16(f)).(T)
	case t.Code == array.Float && t.Bits == 16:
		return any(array.F16(f)).(T)
	case t.Code == array.Float:
		return T(f)
	case t.Code == array.UInt:
		return T(k*3 + 1)
	}
	return T(k*3 - 5)
}

// patterned returns a dense Array of the given NumPy shape (so its extents
// are the reverse) holding pattern.
func patterned[T array.Elem](shape ...int) *array.Array[T] {
	n := 1
	for _, s := range shape {
		n *= s
	}
	data := make([]T, n)
	for k := range data {
		data[k] = pattern[T](k)
	}
	return array.FromSlice(data, reversed(shape)...)
}

// fortranPatterned is patterned in Fortran-order memory: the reversal
// (Permute(n-1, …, 0)) of a dense Array, dimension n-1 innermost.
func fortranPatterned[T array.Elem](shape ...int) *array.Array[T] {
	n := len(shape)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = n - 1 - i
	}
	f := array.New[T](shape...).Permute(perm...)
	h, _ := f.Host()
	coords := make([]int, n)
	for k := range f.Len() {
		r := k
		for i := range coords {
			coords[i] = r % shape[n-1-i]
			r /= shape[n-1-i]
		}
		h.Set(pattern[T](k), coords...)
	}
	return f
}

func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	if r == nil {
		r = []int{}
	}
	return r
}

// checkPattern checks that a holds pattern at every NumPy index, whatever
// its strides: NumPy's a[i0, …, in-1] is Array element (in-1, …, i0).
func checkPattern[T array.Elem](t *testing.T, a *array.Array[T], shape []int) {
	t.Helper()
	if got, want := a.Rank(), len(shape); got != want {
		t.Fatalf("rank %d, want %d", got, want)
	}
	for k, s := range reversed(shape) {
		if a.Dim(k).Extent != s {
			t.Fatalf("extents %v, want the reverse of NumPy's %v", a.Dims(), shape)
		}
	}
	if a.Len() == 0 {
		return
	}
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	coords := make([]int, len(shape)) // Array order
	for k := range a.Len() {
		// C-order index k → NumPy index → reversed coordinates.
		r := k
		for i := range coords {
			coords[i] = r % shape[len(shape)-1-i]
			r /= shape[len(shape)-1-i]
		}
		if got, want := v.At(coords...), pattern[T](k); got != want {
			t.Fatalf("element %d (Array %v) = %v, want %v", k, coords, got, want)
		}
	}
}

type typeCase struct {
	name  string // file suffix in testdata
	check func(t *testing.T, file string, shape []int, wantDims []array.Dim)
}

func typed[T array.Elem](name string) typeCase {
	return typeCase{name, func(t *testing.T, file string, shape []int, wantDims []array.Dim) {
		a, err := npy.ReadFile[T](file)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Dims(); !slices.Equal(got, wantDims) {
			t.Fatalf("dims %v, want %v", got, wantDims)
		}
		checkPattern(t, a, shape)
		f, _ := os.Open(file)
		defer f.Close()
		b, err := npy.ReadAny(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := b.(*array.Array[T]); !ok {
			t.Fatalf("ReadAny gave %T, want *array.Array[%s]", b, array.TypeOf[T]())
		}
	}}
}

var types = []typeCase{
	typed[int8]("i1"), typed[int16]("i2"), typed[int32]("i4"), typed[int64]("i8"),
	typed[uint8]("u1"), typed[uint16]("u2"), typed[uint32]("u4"), typed[uint64]("u8"),
	typed[array.Float16]("f2"), typed[float32]("f4"), typed[float64]("f8"), typed[array.BFloat16]("bf16"),
}

// Files NumPy wrote (testdata/gen.py), every type, C and Fortran order:
// NumPy's (2, 3, 4) is the Array of extents (4, 3, 2); Fortran order keeps
// the bytes where they are and says so in the strides.
func TestReadNumPyFiles(t *testing.T) {
	shape := []int{2, 3, 4}
	for _, tc := range types {
		t.Run("C/"+tc.name, func(t *testing.T) {
			tc.check(t, "testdata/c_"+tc.name+".npy", shape, []array.Dim{d(0, 4, 1), d(0, 3, 4), d(0, 2, 12)})
		})
		t.Run("Fortran/"+tc.name, func(t *testing.T) {
			tc.check(t, "testdata/f_"+tc.name+".npy", shape, []array.Dim{d(0, 4, 6), d(0, 3, 2), d(0, 2, 1)})
		})
	}
	t.Run("big-endian", func(t *testing.T) {
		typed[float64]("").check(t, "testdata/be_f8.npy", shape, []array.Dim{d(0, 4, 1), d(0, 3, 4), d(0, 2, 12)})
	})
	t.Run("big-endian Fortran", func(t *testing.T) {
		typed[int32]("").check(t, "testdata/be_i4_f.npy", []int{3, 5}, []array.Dim{d(0, 5, 3), d(0, 3, 1)})
	})
	t.Run("0-D", func(t *testing.T) {
		typed[float32]("").check(t, "testdata/scalar_f4.npy", []int{}, []array.Dim{})
	})
	t.Run("1-D", func(t *testing.T) {
		typed[uint16]("").check(t, "testdata/vec_u2.npy", []int{7}, []array.Dim{d(0, 7, 1)})
	})
	t.Run("empty", func(t *testing.T) {
		a, err := npy.ReadFile[int16]("testdata/empty_i2.npy")
		if err != nil {
			t.Fatal(err)
		}
		if a.Len() != 0 || a.Rank() != 2 || a.Dim(0).Extent != 3 {
			t.Fatalf("dims %v, want extents (3, 0)", a.Dims())
		}
	})
	t.Run("version 2.0", func(t *testing.T) {
		typed[uint8]("").check(t, "testdata/v2_u1.npy", []int{3, 2}, []array.Dim{d(0, 2, 1), d(0, 3, 2)})
	})
}

// Write produces NumPy's bytes exactly, header padding included: a dense
// Array in C order, its reversal in Fortran order.
func TestWriteMatchesNumPy(t *testing.T) {
	check := func(t *testing.T, b *array.Array[float64], file string) {
		t.Helper()
		var buf bytes.Buffer
		if err := npy.Write(&buf, b); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("Write differs from NumPy's %s:\n got %q\nwant %q", file, buf.Bytes()[:128], want[:128])
		}
	}
	a := patterned[float64](2, 3, 4)
	check(t, a, "testdata/c_f8.npy")
	// The same values in Fortran order.
	check(t, fortranPatterned[float64](2, 3, 4), "testdata/f_f8.npy")

	for _, tc := range []struct {
		name string
		a    *array.Array[uint16]
		file string
	}{
		{"1-D", patterned[uint16](7), "testdata/vec_u2.npy"},
	} {
		var buf bytes.Buffer
		if err := npy.Write(&buf, tc.a); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(tc.file)
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: Write differs from NumPy's %s", tc.name, tc.file)
		}
	}
}

// Layouts → header: which order Write picks, and what reading gives back.
func TestWriteLayouts(t *testing.T) {
	base := patterned[int32](5, 6, 7) // extents (7, 6, 5)
	for _, tc := range []struct {
		name      string
		a         *array.Array[int32]
		wantShape []int
		fortran   bool
	}{
		{"dense", base, []int{5, 6, 7}, false},
		{"reversed", base.Permute(2, 1, 0), []int{7, 6, 5}, true},
		{"crop", base.Crop(0, 1, 3).Crop(2, 2, 2), []int{2, 6, 3}, false},
		{"slice", base.Slice(1, 4), []int{5, 7}, false},
		{"other permutation", base.Permute(1, 0, 2), []int{5, 7, 6}, false},
		{"extent-1 dimension", base.Crop(1, 2, 1), []int{5, 1, 7}, false},
		{"mins", array.NewWithMins[int32]([]int{-3, 4}, []int{2, 3}), []int{3, 2}, false},
		{"0-D", base.Slice(0, 1).Slice(0, 2).Slice(0, 3), []int{}, false},
		{"empty", base.Crop(1, 0, 0), []int{5, 0, 7}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := npy.Write(&buf, tc.a); err != nil {
				t.Fatal(err)
			}
			h, err := npy.ReadHeader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if h.Descr != "<i4" || h.Fortran != tc.fortran || !slices.Equal(h.Shape, tc.wantShape) {
				t.Fatalf("header %+v, want <i4 fortran=%v shape %v", h, tc.fortran, tc.wantShape)
			}
			if n := buf.Len() - tc.a.Len()*4; n%64 != 0 {
				t.Errorf("header of %d bytes, want a multiple of 64", n)
			}
			back, err := npy.Read[int32](&buf)
			if err != nil {
				t.Fatal(err)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes left after the data", buf.Len())
			}
			same, err := sameElems(back, tc.a)
			if err != nil || !same {
				t.Errorf("read back %v, wrote %v (%v)", back.Dims(), tc.a.Dims(), err)
			}
		})
	}
}

// sameElems compares extents and elements, ignoring mins and strides.
func sameElems[T array.Elem](a, b *array.Array[T]) (bool, error) {
	if a.Rank() != b.Rank() || a.Len() != b.Len() {
		return false, nil
	}
	for i := range a.Rank() {
		if a.Dim(i).Extent != b.Dim(i).Extent {
			return false, nil
		}
	}
	if a.Len() == 0 {
		return true, nil
	}
	va, err := a.HostReadOnly()
	if err != nil {
		return false, err
	}
	vb, err := b.HostReadOnly()
	if err != nil {
		return false, err
	}
	ca, cb := make([]int, a.Rank()), make([]int, a.Rank())
	for k := range a.Len() {
		r := k
		for i := range ca {
			ca[i] = a.Dim(i).Min + r%a.Dim(i).Extent
			cb[i] = b.Dim(i).Min + r%a.Dim(i).Extent
			r /= a.Dim(i).Extent
		}
		if va.At(ca...) != vb.At(cb...) {
			return false, nil
		}
	}
	return true, nil
}

// Every element type survives Write then Read, dense and strided.
func TestRoundTripTypes(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"int8", roundTrip[int8]}, {"int16", roundTrip[int16]}, {"int32", roundTrip[int32]}, {"int64", roundTrip[int64]},
		{"uint8", roundTrip[uint8]}, {"uint16", roundTrip[uint16]}, {"uint32", roundTrip[uint32]}, {"uint64", roundTrip[uint64]},
		{"float16", roundTrip[array.Float16]}, {"bfloat16", roundTrip[array.BFloat16]}, {"float32", roundTrip[float32]}, {"float64", roundTrip[float64]},
	} {
		t.Run(tc.name, tc.run)
	}
}

func roundTrip[T array.Elem](t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.npy")
	for _, a := range []*array.Array[T]{patterned[T](3, 4), patterned[T](3, 4).Transpose(0, 1), patterned[T](3, 4).Crop(0, 1, 2)} {
		if err := npy.WriteFile(file, a); err != nil {
			t.Fatal(err)
		}
		back, err := npy.ReadFile[T](file)
		if err != nil {
			t.Fatal(err)
		}
		if same, err := sameElems(back, a); err != nil || !same {
			t.Fatalf("%v: read back differs (%v)", a.Dims(), err)
		}
	}
}

// A truncated file, a bad header or an unsupported dtype is an error that
// names the problem.
func TestReadErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/c_f8.npy")
	if err != nil {
		t.Fatal(err)
	}
	header := func(dict string) []byte {
		b := []byte("\x93NUMPY\x01\x00\x00\x00" + dict)
		b[8] = byte(len(dict))
		return b
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		target error
		says   string
	}{
		{"empty file", nil, npy.ErrFormat, "too short"},
		{"not npy", []byte("PK\x03\x04 a zip file"), npy.ErrFormat, "not an .npy file"},
		{"version 4", append([]byte("\x93NUMPY\x04\x00"), good[8:]...), npy.ErrFormat, "version 4.0"},
		{"truncated header", good[:50], npy.ErrFormat, "truncated"},
		{"truncated data", good[:len(good)-1], npy.ErrFormat, "needs 192 data bytes, the file has 191"},
		{"no data", good[:128], npy.ErrFormat, "the file has 0"},
		{"not a dict", header("[1, 2]"), npy.ErrFormat, "not a dict"},
		{"missing shape", header("{'descr': '<f8', 'fortran_order': False}"), npy.ErrFormat, `lacks "shape"`},
		{"unknown key", header("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'x': 1}"), npy.ErrFormat, `unknown header key "x"`},
		{"negative shape", header("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}"), npy.ErrFormat, "non-negative"},
		{"shape is a list", header("{'descr': '<f8', 'fortran_order': False, 'shape': [2]}"), npy.ErrFormat, "want a tuple"},
		{"bad order", header("{'descr': '<f8', 'fortran_order': 1, 'shape': ()}"), npy.ErrFormat, "True or False"},
		{"unterminated", header("{'descr': '<f8"), npy.ErrFormat, "unterminated string"},
		{"huge shape", header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"), npy.ErrFormat, "overflows"},
		{"huge data, short file", header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,)}"), npy.ErrFormat, "truncated"},
		{"complex", mustRead(t, "testdata/bad_c16.npy"), array.ErrType, "complex of 16 bytes"},
		{"unicode", mustRead(t, "testdata/bad_U3.npy"), array.ErrType, "unicode string"},
		{"structured", mustRead(t, "testdata/bad_struct.npy"), array.ErrType, "structured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := npy.ReadAny(bytes.NewReader(tc.data))
			if !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want %v saying %q", err, tc.target, tc.says)
			}
		})
	}
	_, err = npy.Read[float32](bytes.NewReader(good))
	if !errors.Is(err, array.ErrType) || !strings.Contains(err.Error(), "call Read[float64]") {
		t.Errorf("Read[float32] of a <f8 file: err = %v", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func Example() {
	// NumPy's np.arange(6).reshape(2, 3) is the Array of extents (3, 2).
	a := array.FromSlice([]int64{0, 1, 2, 3, 4, 5}, 3, 2)
	var buf bytes.Buffer
	npy.Write(&buf, a)
	fmt.Printf("%q\n", buf.Bytes()[10:69])

	// A transposed Array is written in Fortran order, without reordering.
	buf.Reset()
	npy.Write(&buf, a.Transpose(0, 1))
	h, _ := npy.ReadHeader(bytes.NewReader(buf.Bytes()))
	fmt.Println(h.Shape, h.Fortran)

	b, _ := npy.Read[int64](&buf)
	v, _ := b.HostReadOnly()
	fmt.Println(b.Dims(), v.At(1, 2)) // NumPy's b[2, 1]
	// Output:
	// "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }"
	// [3 2] true
	// [{0 2 3} {0 3 1}] 5
}
