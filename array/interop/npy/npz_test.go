package npy_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// boolPattern is element k (C order) of the bool test arrays.
func boolPattern(k int) uint8 {
	if k%3 == 0 {
		return 1
	}
	return 0
}

// checkBools is checkPattern for bool arrays read as uint8.
func checkBools(t *testing.T, a *array.Array[uint8], shape []int) {
	t.Helper()
	if got := a.Extents(); fmt.Sprint(got) != fmt.Sprint(reversed(shape)) {
		t.Fatalf("extents %v, want the reverse of NumPy's %v", got, shape)
	}
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	coords := make([]int, len(shape))
	for k := range a.Len() {
		r := k
		for i := range coords {
			coords[i] = r % shape[len(shape)-1-i]
			r /= shape[len(shape)-1-i]
		}
		if got, want := v.At(coords...), boolPattern(k); got != want {
			t.Fatalf("element %d (Array %v) = %v, want %v", k, coords, got, want)
		}
	}
}

// checkMembers checks the members gen_npz.py and the NumPy round trip
// write.
func checkMembers(t *testing.T, m map[string]array.Buffer) {
	t.Helper()
	want := []string{"bf16", "empty", "f4", "i8_fortran", "mask", "mask_fortran", "scalar"}
	for _, k := range want {
		if m[k] == nil {
			t.Fatalf("members %v: no %q", keys(m), k)
		}
	}
	if len(m) != len(want) {
		t.Fatalf("members %v, want %v", keys(m), want)
	}
	checkPattern(t, m["f4"].(*array.Array[float32]), []int{2, 3, 4})
	checkPattern(t, m["i8_fortran"].(*array.Array[int64]), []int{3, 5})
	checkPattern(t, m["scalar"].(*array.Array[float64]), []int{})
	checkPattern(t, m["empty"].(*array.Array[uint16]), []int{0, 3})
	checkPattern(t, m["bf16"].(*array.Array[array.BFloat16]), []int{2, 3})
	checkBools(t, m["mask"].(*array.Array[uint8]), []int{3, 5})
	checkBools(t, m["mask_fortran"].(*array.Array[uint8]), []int{4, 2, 3})
}

func keys(m map[string]array.Buffer) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestReadNumPyArchives reads what np.savez and np.savez_compressed
// wrote (testdata/gen_npz.py): stored and deflated members, zip64 records
// as NumPy writes them, bool, Fortran order, 0-D and empty members.
func TestReadNumPyArchives(t *testing.T) {
	for _, name := range []string{"testdata/savez.npz", "testdata/savez_compressed.npz"} {
		t.Run(name, func(t *testing.T) {
			m, err := npy.ReadArchiveFile(name)
			if err != nil {
				t.Fatal(err)
			}
			checkMembers(t, m)
		})
	}
}

// TestBool: NumPy bool files read as uint8 0/1 (C and Fortran order);
// WriteBool writes non-zero as 1; a file's non-zero bytes other than 1
// read as 1, as NumPy reads them.
func TestBool(t *testing.T) {
	for _, name := range []string{"testdata/c_bool.npy", "testdata/f_bool.npy"} {
		a, err := npy.ReadFile[uint8](name)
		if err != nil {
			t.Fatal(err)
		}
		checkBools(t, a, []int{2, 3, 4})
	}
	a := array.FromSlice([]uint8{0, 5, 255, 1, 0, 2}, 3, 2)
	for _, c := range []struct {
		name    string
		a       *array.Array[uint8]
		fortran bool
		shape   string
		data    []byte
	}{
		{"dense", a, false, "[2 3]", []byte{0, 1, 1, 1, 0, 1}},
		{"transposed: Fortran order", a.Transpose(0, 1), true, "[3 2]", []byte{0, 1, 1, 1, 0, 1}},
		{"crop: C order element by element", a.Crop(0, 1, 2), false, "[2 2]", []byte{1, 1, 0, 1}},
	} {
		var buf bytes.Buffer
		if err := npy.WriteBool(&buf, c.a); err != nil {
			t.Fatal(err)
		}
		h, err := npy.ReadHeader(bytes.NewReader(buf.Bytes()))
		if err != nil || h.Descr != "|b1" || fmt.Sprint(h.Shape) != c.shape || h.Fortran != c.fortran {
			t.Fatalf("%s: header %+v, %v; want |b1 of shape %s, Fortran %v", c.name, h, err, c.shape, c.fortran)
		}
		raw := buf.Bytes()
		if data := raw[len(raw)-len(c.data):]; !bytes.Equal(data, c.data) {
			t.Fatalf("%s: data %v, want %v", c.name, data, c.data)
		}
		raw[len(raw)-2] = 7 // not a byte NumPy writes, but one it reads as True
		back, err := npy.Read[uint8](bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Clone(c.data)
		want[len(want)-2] = 1
		if v, _ := back.HostReadOnly(); !bytes.Equal(v.Data(), want) {
			t.Fatalf("%s: read back %v, want %v", c.name, v.Data(), want)
		}
	}
}

// goArchive writes the members checkMembers wants, as Go holds them.
func goArchive(t testing.TB, w io.Writer, compressed bool) {
	aw := npy.NewArchiveWriter(w, compressed)
	mask := func(shape ...int) *array.Array[uint8] {
		a := patterned[uint8](shape...)
		h, _ := a.Host()
		for k := range h.Data() {
			h.Data()[k] = boolPattern(k) * uint8(1+k%4) // non-zero values other than 1 too
		}
		return a
	}
	mf := fortranPatterned[uint8](4, 2, 3)
	hf, _ := mf.Host()
	for k := range hf.Data() {
		hf.Data()[k] = 0
	}
	mfDense, err := mask(4, 2, 3).HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	hf.CopyFrom(mfDense)
	steps := []struct {
		name string
		err  error
	}{
		{"f4", aw.Add("f4", patterned[float32](2, 3, 4))},
		{"i8_fortran", aw.Add("i8_fortran", fortranPatterned[int64](3, 5))},
		{"mask", aw.AddBool("mask", mask(3, 5))},
		{"mask_fortran", aw.AddBool("mask_fortran", mf)},
		{"scalar", aw.Add("scalar", array.Scalar(pattern[float64](0)))},
		{"empty", aw.Add("empty", patterned[uint16](0, 3))},
		{"bf16", aw.Add("bf16", patterned[array.BFloat16](3, 4).Crop(0, 0, 3).Crop(1, 0, 2))},
	}
	for _, s := range steps {
		if s.err != nil {
			t.Fatalf("%s: %v", s.name, s.err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestArchiveRoundTrip: what ArchiveWriter writes, stored and deflated,
// reads back.
func TestArchiveRoundTrip(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		var buf bytes.Buffer
		goArchive(t, &buf, compressed)
		m, err := npy.ReadArchive(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		// bf16 was a crop of a (3, 4) pattern: rows of 3 of the 4
		b := m["bf16"].(*array.Array[array.BFloat16])
		m["bf16"] = cropPattern(t, b)
		checkMembers(t, m)
		zr, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		want := map[bool]uint16{false: zip.Store, true: zip.Deflate}[compressed]
		for _, f := range zr.File {
			if f.Method != want || !strings.HasSuffix(f.Name, ".npy") {
				t.Errorf("member %s method %d, want %d", f.Name, f.Method, want)
			}
		}
	}
}

// cropPattern maps the Go side's bf16 member (elements (0…2, 0…1) of a
// NumPy (3, 4) pattern) to what checkMembers wants, a (2, 3) pattern,
// after checking it.
func cropPattern(t *testing.T, b *array.Array[array.BFloat16]) *array.Array[array.BFloat16] {
	t.Helper()
	v, err := b.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	for y := range 2 {
		for x := range 3 {
			if got, want := v.At(x, y), pattern[array.BFloat16](y*4+x); got != want {
				t.Fatalf("bf16 crop (%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	return patterned[array.BFloat16](2, 3)
}

// The Python half of the archive round trip: it checks the archives Go
// wrote (argv[2:]) with np.load, then writes its own with np.savez and
// np.savez_compressed (gen_npz.py's members, crop of bf16 included).
const npzScript = `
import os, sys
import numpy as np
d = sys.argv[1]
` + pyPattern + `
def mask(shape):
    return (np.arange(int(np.prod(shape))) % 3 == 0).reshape(shape)

want = {
    'f4': pattern('<f4', (2, 3, 4)),
    'i8_fortran': pattern('<i8', (3, 5)),
    'mask': mask((3, 5)),
    'mask_fortran': mask((4, 2, 3)),
    'scalar': pattern('<f8', ()),
    'empty': pattern('<u2', (0, 3)),
    'bf16': pattern('bf16', (3, 4))[:2, :3],
}
for name in sys.argv[2:]:
    z = np.load(os.path.join(d, name))
    if sorted(z.files) != sorted(want):
        sys.exit('%s: members %s' % (name, z.files))
    for k, w in want.items():
        a = z[k]
        if a.dtype != w.dtype or a.shape != w.shape:
            sys.exit('%s[%s]: %s %s, want %s %s' % (name, k, a.dtype.str, a.shape, w.dtype.str, w.shape))
        if a.dtype.kind == 'V':
            a, w = a.view('<u2'), w.view('<u2')
        if not np.array_equal(a, w):
            sys.exit('%s[%s]: %r, want %r' % (name, k, a, w))
    if not z['i8_fortran'].flags['F_CONTIGUOUS'] or not z['mask_fortran'].flags['F_CONTIGUOUS']:
        sys.exit('%s: the Fortran members are not Fortran order' % name)

out = dict(want)
out['i8_fortran'] = np.asfortranarray(out['i8_fortran'])
out['mask_fortran'] = np.asfortranarray(out['mask_fortran'])
out['bf16'] = np.ascontiguousarray(out['bf16'])
np.savez(os.path.join(d, 'py.npz'), **out)
np.savez_compressed(os.path.join(d, 'py_compressed.npz'), **out)
np.save(os.path.join(d, 'py_bool.npy'), mask((2, 3, 4)))
`

// TestNumPyArchiveRoundTrip: NumPy loads the archives Go writes (stored
// and deflated, bool and Fortran members), and Go reads those NumPy
// writes, with the values checked on both sides.
func TestNumPyArchiveRoundTrip(t *testing.T) {
	py := findNumPy(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name       string
		compressed bool
	}{{"go.npz", false}, {"go_compressed.npz", true}} {
		f, err := os.Create(filepath.Join(dir, c.name))
		if err != nil {
			t.Fatal(err)
		}
		goArchive(t, f, c.compressed)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(py, "-c", npzScript, dir, "go.npz", "go_compressed.npz").CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	for _, name := range []string{"py.npz", "py_compressed.npz"} {
		m, err := npy.ReadArchiveFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		m["bf16"] = cropPattern(t, m["bf16"].(*array.Array[array.BFloat16]))
		checkMembers(t, m)
	}
	b, err := npy.ReadFile[uint8](filepath.Join(dir, "py_bool.npy"))
	if err != nil {
		t.Fatal(err)
	}
	checkBools(t, b, []int{2, 3, 4})
}

// zipOf builds an archive of members; a non-zero claim overrides the
// uncompressed size in the archive's records.
func zipOf(t *testing.T, members ...zipMember) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		if m.claim == 0 {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: m.method})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(m.data)
			continue
		}
		data := m.data
		if m.method == zip.Deflate {
			var c bytes.Buffer
			fw, _ := flate.NewWriter(&c, flate.BestCompression)
			fw.Write(m.data)
			fw.Close()
			data = c.Bytes()
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: m.name, Method: m.method,
			CompressedSize64: uint64(len(data)), UncompressedSize64: m.claim, CRC32: crc32.ChecksumIEEE(m.data)})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type zipMember struct {
	name   string
	method uint16
	data   []byte
	claim  uint64
}

// pastTheEnd is an archive of one stored member, a header claiming 1 TiB
// over 2 bytes of data, whose directory claims 2 TiB of compressed (and
// uncompressed) bytes: only the archive's size refutes it.
func pastTheEnd(t *testing.T) []byte {
	data := append(header("<u1", "(1099511627776,)"), 1, 2)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "a.npy", Method: zip.Store,
		CompressedSize64: 1 << 41, UncompressedSize64: 1 << 41, CRC32: crc32.ChecksumIEEE(data)})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArchiveErrors: bad archives and bad members are errors wrapping
// ErrFormat (or array.ErrType for a dtype) that name the member, before
// their claimed sizes are allocated.
func TestArchiveErrors(t *testing.T) {
	good := func() []byte {
		var b bytes.Buffer
		npy.Write(&b, patterned[float64](4, 6))
		return b.Bytes()
	}()
	for _, tc := range []struct {
		name   string
		data   []byte
		target error
		says   string
	}{
		{"not a zip", good, npy.ErrFormat, "not a zip"},
		{"not npy", zipOf(t, zipMember{name: "a.txt", data: []byte("hello")}), npy.ErrFormat, `member "a.txt"`},
		{"twice", zipOf(t, zipMember{name: "a.npy", data: good}, zipMember{name: "a", data: good}), npy.ErrFormat, "twice"},
		{"truncated member", zipOf(t, zipMember{name: "a.npy", data: good[:len(good)-8]}), npy.ErrFormat, "the member holds 184"},
		{"header claims 8 TiB", zipOf(t, zipMember{name: "a.npy", data: append(header("<f8", "(1099511627776,)"), 1, 2)}), npy.ErrFormat, "needs 8796093022208 data bytes"},
		{"stored size lies", zipOf(t, zipMember{name: "a.npy", data: good, claim: 1 << 40}), npy.ErrFormat, "claims 1099511627776"},
		{"deflated size lies", zipOf(t, zipMember{name: "a.npy", method: zip.Deflate, data: good, claim: 1 << 40}), npy.ErrFormat, "cannot make"},
		{"compressed size past the end", pastTheEnd(t), npy.ErrFormat, "run past the archive's end"},
		{"complex", zipOf(t, zipMember{name: "c.npy", data: mustRead(t, "testdata/bad_c16.npy")}), array.ErrType, "complex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]array.Buffer
			var err error
			n := allocated(func() { m, err = npy.ReadArchive(bytes.NewReader(tc.data), int64(len(tc.data))) })
			if !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want %v saying %q", err, tc.target, tc.says)
			}
			if m != nil {
				t.Fatalf("a map with the error: %v", keys(m))
			}
			if n > 1<<20 {
				t.Fatalf("allocated %d bytes for a %d-byte archive", n, len(tc.data))
			}
		})
	}
	aw := npy.NewArchiveWriter(io.Discard, false)
	x := patterned[int8](2)
	if err := aw.Add("a", x); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "", "b/c"} {
		if err := aw.Add(name, x); err == nil || !strings.Contains(err.Error(), "want a new name") {
			t.Errorf("Add(%q): %v", name, err)
		}
	}
	if err := aw.Add("d", array.Buffer(nil)); !errors.Is(err, array.ErrType) {
		t.Errorf("Add of a nil Buffer: %v", err)
	}
}

// FuzzReadArchive: arbitrary bytes as an archive never panic, errors wrap
// ErrFormat or array.ErrType, memory stays in proportion to the input
// (twice deflate's ratio at most), and what reads writes back and reads again
// to the same members.
func FuzzReadArchive(f *testing.F) {
	for _, name := range []string{"testdata/savez.npz", "testdata/savez_compressed.npz"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	var buf bytes.Buffer
	goArchive(f, &buf, true)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]array.Buffer
		var err error
		n := allocatedOnce(func() { m, err = npy.ReadArchive(bytes.NewReader(data), int64(len(data))) })
		// a deflated member may hold 1040× its bytes, read once into the
		// Array's storage
		if n > 1040*uint64(len(data))+1<<20 {
			t.Fatalf("reading a %d-byte archive allocated %d", len(data), n)
		}
		if err != nil {
			if !errors.Is(err, npy.ErrFormat) && !errors.Is(err, array.ErrType) {
				t.Fatalf("error wraps neither ErrFormat nor array.ErrType: %v", err)
			}
			return
		}
		var out bytes.Buffer
		aw := npy.NewArchiveWriter(&out, true)
		for _, k := range keys(m) {
			if err := aw.Add(k, m[k]); err != nil {
				t.Fatalf("writing member %q back: %v", k, err)
			}
		}
		aw.Close()
		back, err := npy.ReadArchive(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("reading what ArchiveWriter wrote: %v", err)
		}
		for k, a := range m {
			if !bytes.Equal(write(t, a), write(t, back[k])) {
				t.Fatalf("member %q changed in a round trip", k)
			}
		}
	})
}
