package npy_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// findNumPy returns a Python interpreter that imports numpy: $NPY_PYTHON,
// python3 on PATH, or Debian's /usr/bin/python3 (python3-numpy).
func findNumPy(t *testing.T) string {
	candidates := []string{os.Getenv("NPY_PYTHON"), "python3", "/usr/bin/python3"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if exec.Command(c, "-c", "import numpy").Run() == nil {
			return c
		}
	}
	t.Skip("skipping the NumPy round trip: no python3 that imports numpy (tried $NPY_PYTHON, python3, /usr/bin/python3); on Debian: apt-get install python3-numpy")
	return ""
}

// pyPattern is the Python twin of patterned (bf16 as raw '|V2' bits):
// numpyScript and npzScript check Go's files with it and fill their own.
const pyPattern = `
def pattern(descr, shape):
    k = np.arange(int(np.prod(shape)), dtype=np.int64)
    if descr == 'bf16':
        f = ((k * 3 - 5) / 4).astype('<f4')
        return (f.view('<u4') >> 16).astype('<u2').view('|V2').reshape(shape)
    dt = np.dtype(descr)
    v = k * 3 + 1 if dt.kind == 'u' else k * 3 - 5
    if dt.kind == 'f':
        v = v / 4
    return v.astype(dt).reshape(shape)
`

// The Python half of the round trip. argv: a directory and a JSON manifest
// of the files Go wrote; it checks them, then writes its own files (listed
// in the directory's numpy.json) for Go to check.
const numpyScript = `
import json, os, sys
import numpy as np
` + pyPattern + `
d, manifest = sys.argv[1], json.loads(sys.argv[2])
for e in manifest:
    a = np.load(os.path.join(d, e['file']))
    want = pattern(e['descr'], tuple(e['shape']))
    if e.get('last'):
        want = want[..., :e['last']]
    if a.dtype != want.dtype or a.shape != want.shape:
        sys.exit('%s: numpy reads %s %s, want %s %s' % (e['file'], a.dtype.str, a.shape, want.dtype.str, want.shape))
    if a.dtype.kind == 'V':
        a, want = a.view('<u2'), want.view('<u2')
    if not np.array_equal(a, want):
        sys.exit('%s: numpy reads %r, want %r' % (e['file'], a, want))
    if a.flags['F_CONTIGUOUS'] != e['fortran'] and a.ndim > 1:
        sys.exit('%s: F_CONTIGUOUS is %s, want %s' % (e['file'], a.flags['F_CONTIGUOUS'], e['fortran']))

out = []
for descr in ['|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8', 'bf16']:
    a = pattern(descr, (3, 4, 5))
    for order, b in [('c', a), ('f', np.asfortranarray(a))]:
        name = 'py_%s_%s.npy' % (order, descr.strip('<|'))
        np.save(os.path.join(d, name), b)
        out.append({'file': name, 'descr': descr, 'shape': [3, 4, 5], 'fortran': order == 'f'})
json.dump(out, open(os.path.join(d, 'numpy.json'), 'w'))
`

type entry struct {
	File    string `json:"file"`
	Descr   string `json:"descr"`
	Shape   []int  `json:"shape"`
	Fortran bool   `json:"fortran"`
	Last    int    `json:"last,omitempty"` // NumPy checks want[..., :Last]
}

// goSide writes T's files for NumPy to check and reads NumPy's files of T.
type goSide struct {
	descr string
	write func(t *testing.T, dir string) []entry
	read  func(t *testing.T, dir string, e entry)
}

func side[T array.Elem](descr string) goSide {
	return goSide{
		descr: descr,
		write: func(t *testing.T, dir string) []entry {
			name := array.TypeOf[T]().String()
			a := patterned[T](2, 3, 4)
			f := fortranPatterned[T](2, 3, 4)
			// A strided crop, NumPy's [..., :2]: written element by element.
			crop := patterned[T](2, 3, 4).Crop(0, 0, 2)
			var es []entry
			for _, c := range []struct {
				suffix  string
				a       *array.Array[T]
				fortran bool
				last    int
			}{{"c", a, false, 0}, {"f", f, true, 0}, {"crop", crop, false, 2}} {
				file := "go_" + c.suffix + "_" + name + ".npy"
				if err := npy.WriteFile(filepath.Join(dir, file), c.a); err != nil {
					t.Fatal(err)
				}
				es = append(es, entry{File: file, Descr: descr, Shape: []int{2, 3, 4}, Fortran: c.fortran, Last: c.last})
			}
			return es
		},
		read: func(t *testing.T, dir string, e entry) {
			a, err := npy.ReadFile[T](filepath.Join(dir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Dim(0).Stride == 1; got == e.Fortran {
				t.Errorf("%s: dims %v for fortran=%v", e.File, a.Dims(), e.Fortran)
			}
			checkPattern(t, a, e.Shape)
		},
	}
}

// Go writes every type in C order, Fortran order and a strided crop; NumPy
// reads and checks them, then writes every type in both orders for Go to
// read and check.
func TestNumPyRoundTrip(t *testing.T) {
	python := findNumPy(t)
	dir := t.TempDir()
	sides := []goSide{
		side[int8]("|i1"), side[int16]("<i2"), side[int32]("<i4"), side[int64]("<i8"),
		side[uint8]("|u1"), side[uint16]("<u2"), side[uint32]("<u4"), side[uint64]("<u8"),
		side[array.Float16]("<f2"), side[float32]("<f4"), side[float64]("<f8"), side[array.BFloat16]("bf16"),
	}
	var manifest []entry
	for _, s := range sides {
		manifest = append(manifest, s.write(t, dir)...)
	}
	m, _ := json.Marshal(manifest)
	if out, err := exec.Command(python, "-c", numpyScript, dir, string(m)).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "numpy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var written []entry
	if err := json.Unmarshal(b, &written); err != nil {
		t.Fatal(err)
	}
	if len(written) != 2*len(sides) {
		t.Fatalf("numpy wrote %d files, want %d", len(written), 2*len(sides))
	}
	for _, e := range written {
		for _, s := range sides {
			if s.descr == e.Descr {
				s.read(t, dir, e)
			}
		}
	}
	t.Logf("%s: %d files checked by NumPy, %d NumPy files checked here", python, len(manifest), len(written))
}
