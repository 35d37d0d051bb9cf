package array_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"math"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
)

func ExampleArray_Format() {
	// Extents (3, 2): 3 columns (dimension 0), 2 rows, NumPy's shape (2, 3).
	a := array.FromSlice([]float32{1, 2.5, 3, -4, 5, 6}, 3, 2)
	fmt.Println(a)
	fmt.Printf("%.1f\n", a)
	fmt.Printf("%s\n", a)
	// Output:
	// [[ 1.   2.5  3. ]
	//  [-4.   5.   6. ]]
	// [[ 1.0  2.5  3.0]
	//  [-4.0  5.0  6.0]]
	// Array[float32(2, 3) (host dirty false, device dirty false)]
}

// printCase is one Array printed by us and by NumPy.
type printCase struct {
	dtype string
	ext   []int // ours, dimension 0 innermost
	raw   []byte
	text  string
}

// genPrintCase draws a shape (sometimes past NumPy's summarization
// threshold) and values of one magnitude class for one element type.
func genPrintCase[T array.Elem](rng *rand.Rand, dtype string, val func(*rand.Rand, float64) T) printCase {
	rank := rng.IntN(4)
	ext := make([]int, rank)
	for k := range ext {
		ext[k] = 1 + rng.IntN(5)
		if rng.IntN(5) == 0 {
			ext[k] = 1 + rng.IntN(30) // long rows wrap
		}
	}
	if rank > 0 && rng.IntN(4) == 0 {
		ext[rng.IntN(rank)] = 200 + rng.IntN(900) // summarized
	}
	if rank > 0 && rng.IntN(10) == 0 {
		ext[rng.IntN(rank)] = 0
	}
	scale := []float64{1, 1e-6, 1e5, 1e9, 0.01}[rng.IntN(5)]
	a := array.New[T](ext...)
	h, _ := a.Host()
	data := h.Data()
	for i := range data {
		data[i] = val(rng, scale)
	}
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, data)
	return printCase{dtype: dtype, ext: ext, raw: buf.Bytes(), text: fmt.Sprint(a)}
}

func floatVal[T float32 | float64](rng *rand.Rand, scale float64) T {
	switch rng.IntN(12) {
	case 0:
		return T(math.NaN())
	case 1:
		return T(math.Inf(1 - 2*rng.IntN(2)))
	case 2:
		return T(rng.IntN(7) - 3) // whole numbers
	}
	return T((rng.Float64()*2 - 1) * scale)
}

func intVal[T int8 | int32 | int64 | uint16](rng *rand.Rand, scale float64) T {
	return T(rng.Uint64() >> uint(rng.IntN(64)))
}

// TestFormatNumPy prints generated Arrays and compares the text with
// NumPy's str() of the same values, byte for byte.
func TestFormatNumPy(t *testing.T) {
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("python3 with numpy not found (make test installs python3-numpy): %v", err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var cases []printCase
	for range 60 {
		cases = append(cases,
			genPrintCase(rng, "<f8", floatVal[float64]),
			genPrintCase(rng, "<f4", floatVal[float32]),
			genPrintCase(rng, "<i8", intVal[int64]),
			genPrintCase(rng, "<i1", intVal[int8]),
			genPrintCase(rng, "<u2", intVal[uint16]),
			genPrintCase(rng, "<f2", func(rng *rand.Rand, s float64) array.Float16 {
				return array.F16(floatVal[float32](rng, min(s, 1e4)))
			}),
		)
	}
	var in strings.Builder
	for _, c := range cases {
		shape := slices.Clone(c.ext)
		slices.Reverse(shape)
		fmt.Fprintf(&in, "%s %s %s\n", c.dtype, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(shape)), ","), "[]"), base64.StdEncoding.EncodeToString(c.raw))
	}
	py := `
import sys, base64, numpy as np
for line in sys.stdin:
    parts = line.split(" ")
    dt, shape, data = parts[0], parts[1], parts[2].strip()
    shape = tuple(int(s) for s in shape.split(",") if s)
    a = np.frombuffer(base64.b64decode(data), dtype=dt).reshape(shape)
    sys.stdout.write(str(a) + "\n\x00\n")
`
	cmd := exec.Command(python, "-c", py)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	want := strings.Split(string(out), "\n\x00\n")
	if len(want) != len(cases)+1 {
		t.Fatalf("numpy printed %d arrays for %d", len(want)-1, len(cases))
	}
	bad := 0
	for i, c := range cases {
		if c.text != want[i] {
			bad++
			if bad <= 5 {
				t.Errorf("%s extents %v:\nours:\n%s\nnumpy:\n%s", c.dtype, c.ext, c.text, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d differ from NumPy", bad, len(cases))
	}
}

// TestFormatDevice: printing a device-dirty Array is a counted copy to
// host, and under the transfer guard the refusal is printed instead.
func TestFormatDevice(t *testing.T) {
	d := sim.New("print", 1<<20)
	defer d.Close()
	a := array.FromSlice([]int32{1, 2, 3})
	b := array.New[int32](3)
	h, _ := b.Host()
	h.Set(9, 1)
	if err := b.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	b.SetDeviceDirty(true)
	guard.Set(true)
	got := fmt.Sprint(b)
	guard.Set(false)
	if !strings.HasPrefix(got, "%!v(array: ") || !strings.Contains(got, "guard") {
		t.Errorf("guarded print = %q, want the guard's refusal", got)
	}
	before := d.Stats().D2HCalls
	if got := fmt.Sprint(b); got != "[0 9 0]" {
		t.Errorf("print = %q, want [0 9 0]", got)
	}
	if d.Stats().D2HCalls != before+1 {
		t.Errorf("D2H %d → %d: printing a device-dirty Array must make one counted copy", before, d.Stats().D2HCalls)
	}
	if got := fmt.Sprint(a); got != "[1 2 3]" {
		t.Errorf("print = %q", got)
	}
	b.Close()
	if got := fmt.Sprint(b); got != "%!v(array: closed)" {
		t.Errorf("closed print = %q", got)
	}
	tr := array.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 3, 2).Transpose(0, 1).Crop(1, 1, 2)
	if got := fmt.Sprint(tr); got != "[[2 5]\n [3 6]]" {
		t.Errorf("transposed crop print = %q", got)
	}
	var zero array.ReadView[int32]
	if got := fmt.Sprint(zero); got != "%!v(array: zero view)" {
		t.Errorf("zero view print = %q", got)
	}
}

// python is Debian's interpreter, where make test installs python3-numpy
// (a python3 earlier on PATH may lack it).
const python = "/usr/bin/python3"
