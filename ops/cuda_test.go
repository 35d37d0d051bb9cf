package ops

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
)

// Flags for runs on a GPU (bench/h200.sh): the CUDA device the tests use
// is then opened with them instead of being cuda.Default.
var (
	cudaVerbose = flag.Bool("cuda.verbose", false, "open the CUDA test device with cuda.Options.Verbose")
	cudaKeep    = flag.String("cuda.keep", "", "folder where the CUDA test device keeps the programs NVRTC rejects (cuda.Options.KeepRejected)")
	cudaOnce    sync.Once
	cudaDev     *cuda.Device
	cudaErr     error
)

// cudaDefault is cuda.Default, or the device the flags ask for.
func cudaDefault() (*cuda.Device, error) {
	if !*cudaVerbose && *cudaKeep == "" {
		return cuda.Default()
	}
	cudaOnce.Do(func() {
		n, _ := strconv.Atoi(os.Getenv(cuda.EnvDevice)) // cuda.Default's device
		cudaDev, cudaErr = cuda.Open(cuda.Options{Ordinal: max(n, 0), Verbose: *cudaVerbose, KeepRejected: *cudaKeep})
	})
	return cudaDev, cudaErr
}

// cudaKernels is device/cuda's shared Device where it runs ops' kernels
// (a GPU and NVRTC), else an error saying what is missing.
func cudaKernels() (*cuda.Device, error) {
	d, err := cudaDefault()
	if err != nil {
		return nil, fmt.Errorf("no CUDA device: %v", err)
	}
	if !device.BuildsOpenCLC(d.Caps()) {
		_, err := d.Compile("", "")
		return nil, fmt.Errorf("CUDA device without kernels: %v", err)
	}
	return d, nil
}

// TestCUDAOps runs one op of each device family on Arrays resident on the
// CUDA Device and asserts where it ran: launches counted on the Device,
// no transfer either way, the result device-dirty there; then compares
// with the same op on the host. Needs a GPU and NVRTC (the H200).
//
// The same table runs on a computing sim device and on the OpenCL
// device (PoCL in CI), which check the table itself where there is no
// GPU.
func TestCUDAOps(t *testing.T) {
	t.Run("sim", func(t *testing.T) {
		sd := sim.NewCompute("cudaops", 0)
		defer sd.Close()
		opsWhere(t, sd)
		gemmKernelWhere(t, sd)
	})
	t.Run("opencl", func(t *testing.T) {
		d, err := opencl.Default()
		if err != nil {
			t.Skip(err)
		}
		opsWhere(t, d)
		gemmKernelWhere(t, d)
	})
	t.Run("cuda", func(t *testing.T) {
		d, err := cudaKernels()
		if err != nil {
			t.Skip(err)
		}
		opsWhere(t, d)
		gemmKernelWhere(t, d)
	})
}

// opsWhere runs TestCUDAOps's table on d.
func opsWhere(t *testing.T, d interface {
	device.Compute
	Sync() error
}) {
	const n = 3000
	mk := func(f func(i int) float32, dims ...int) (dev, host *array.Array[float32]) {
		dev, host = array.New[float32](dims...), array.New[float32](dims...)
		dv, _ := dev.Host()
		hv, _ := host.Host()
		for i := range dev.Len() {
			dv.Data()[i], hv.Data()[i] = f(i), f(i)
		}
		if err := On(d, dev); err != nil {
			t.Fatal(err)
		}
		return dev, host
	}
	x, hx := mk(func(i int) float32 { return float32(i%17) - 8 }, n)
	y, hy := mk(func(i int) float32 { return float32(i%5) * 0.25 }, n)
	m, hm := mk(func(i int) float32 { return float32(i%11) * 0.1 }, 30, 100)
	defer closeAll(x, hx, y, hy, m, hm)
	for _, c := range []struct {
		name string
		dims []int
		run  func(dst, x, y, m *array.Array[float32]) error
	}{
		{"Add", []int{n}, func(dst, x, y, _ *array.Array[float32]) error { return Binary(dst, x, y, OpAdd) }},
		{"Copy", []int{n}, func(dst, x, _, _ *array.Array[float32]) error { return Copy(dst, x) }},
		{"CopyStrided", []int{100, 30}, func(dst, _, _, m *array.Array[float32]) error { return Copy(dst, m.Transpose(0, 1)) }},
		{"Exp", []int{n}, func(dst, x, _, _ *array.Array[float32]) error { return Unary(dst, x, OpExp) }},
		{"Sum", []int{30}, func(dst, _, _, m *array.Array[float32]) error { return Sum(dst, m, -2) }},
		{"SumAll", []int{1}, func(dst, x, _, _ *array.Array[float32]) error {
			v, err := Value(Sum, x)
			if err == nil {
				err = Fill(dst, v)
			}
			return err
		}},
		{"Eval", []int{n}, func(dst, x, y, _ *array.Array[float32]) error {
			return Eval(dst, In(x).Binary(OpMul, In(y)).Binary(OpAdd, Const[float32](1)).Unary(OpTanh))
		}},
		{"Softmax", []int{30, 100}, func(dst, _, _, m *array.Array[float32]) error { return Softmax(dst, m, -2) }},
		{"Var", []int{30}, func(dst, _, _, m *array.Array[float32]) error { return Var(dst, m, -2, 0) }},
		{"Iota", []int{n}, func(dst, _, _, _ *array.Array[float32]) error { return Iota(dst, -1) }},
		{"MatMul", []int{100, 100}, func(dst, _, _, m *array.Array[float32]) error { return MatMul(dst, m, m.Transpose(0, 1)) }},
		// dst with no unit stride: cuBLAS declines, ops' GEMM kernel runs
		{"MatMulKernel", []int{2, 100, 100}, func(dst, _, _, m *array.Array[float32]) error {
			return MatMul(dst.Slice(0, 1), m, m.Transpose(0, 1))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst, want := array.New[float32](c.dims...), array.New[float32](c.dims...)
			defer closeAll(dst, want)
			if err := On(d, dst); err != nil {
				t.Fatal(err)
			}
			before := d.Stats()
			if err := c.run(dst, x, y, m); err != nil {
				t.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			s := d.Stats().Sub(before)
			if s.Launches == 0 || s.H2DCalls != 0 || s.D2HCalls != 0 {
				t.Errorf("%s on Arrays resident on %s: %v: want launches there and no transfer", c.name, d.Name(), s)
			}
			if c.name != "SumAll" && c.name != "MatMulKernel" && (!dst.DeviceDirty() || dst.Device() != device.Device(d)) {
				t.Errorf("%s: dst not device-dirty on %s", c.name, d.Name())
			}
			if err := c.run(want, hx, hy, hm); err != nil {
				t.Fatal(err)
			}
			got, err := dst.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			wv, _ := want.HostReadOnly()
			g, w := got.Data(), wv.Data()
			for i := range w {
				if diff := math.Abs(float64(g[i] - w[i])); diff > 1e-4*(1+math.Abs(float64(w[i]))) || math.IsNaN(float64(g[i])) != math.IsNaN(float64(w[i])) {
					t.Fatalf("%s element %d: %v on %s, %v on the host", c.name, i, g[i], d.Name(), w[i])
				}
			}
		})
	}
}

// gemmKernelWhere multiplies float64 matrices into a dst with no unit
// stride on d, so that ops' own GEMM kernel runs (on NVIDIA, the
// inline-PTX tensor-core one), and compares with the host.
func gemmKernelWhere(t *testing.T, d interface {
	device.Compute
	Sync() error
}) {
	a, b := array.New[float64](70, 90), array.New[float64](50, 70)
	dst, want := array.New[float64](2, 50, 90), array.New[float64](2, 50, 90)
	for _, x := range []*array.Array[float64]{a, b, dst, want} {
		defer x.Close()
	}
	for k, x := range []*array.Array[float64]{a, b} {
		v, _ := x.Host()
		for i := range v.Data() {
			v.Data()[i] = float64((i*7+k)%13) - 6
		}
	}
	if err := On(d, a, b, dst); err != nil {
		t.Fatal(err)
	}
	before := d.Stats()
	if err := MatMul(dst.Slice(0, 1), a, b); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(before); s.Launches == 0 || s.H2DCalls != 0 || s.D2HCalls != 0 {
		t.Errorf("float64 MatMul into a strided dst on %s: %v", d.Name(), s)
	}
	ha, _ := a.HostReadOnly()
	hb, _ := b.HostReadOnly()
	if err := MatMul(want.Slice(0, 1), ha.Array(), hb.Array()); err != nil {
		t.Fatal(err)
	}
	g, _ := dst.HostReadOnly()
	w, _ := want.HostReadOnly()
	for i, x := range w.Data() {
		if g.Data()[i] != x { // small integers: exact in any order
			t.Fatalf("element %d: %v on %s, %v on the host", i, g.Data()[i], d.Name(), x)
		}
	}
}

func closeAll(xs ...*array.Array[float32]) {
	for _, x := range xs {
		x.Close()
	}
}

// TestCUDAKernelErrors: a kernel that does not build on the CUDA Device
// is an error wrapping *cuda.BuildError with NVRTC's log, not cached, and
// the Device goes on working.
func TestCUDAKernelErrors(t *testing.T) {
	d, err := cudaKernels()
	if err != nil {
		t.Skip(err)
	}
	s := stateOf(d)
	_, err = s.program(progKey{kind: "broken"}, func() string { return "__kernel void k(__global int *a) { a[0] = undefined_name; }" })
	var be *cuda.BuildError
	if !errors.As(err, &be) || be.Log == "" {
		t.Fatalf("a broken program: %v", err)
	}
	t.Logf("%v", err)
	a := array.New[float32](10)
	defer a.Close()
	if err := On(d, a); err != nil {
		t.Fatal(err)
	}
	if err := Fill(a, 3); err != nil || !a.DeviceDirty() {
		t.Fatalf("Fill after a failed build: %v", err)
	}
}
