package cuda_test

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/internal/devkit"
	"github.com/resident-go/resident/ops"
)

// Benchmarks for the H200 (bench/h200.sh runs them from bin/cuda.test):
//
//	bin/cuda.test -test.run '^$' -test.bench . -test.benchtime 20x
//
// Transfers: a ladder of 64 KiB … 256 MiB (-bench.max, bytes or with
// KiB/MiB/GiB, moves the top) from pinned memory (AllocHost), Go memory
// through staging ("go"), and Go memory handed to the driver
// ("go-direct", the baseline staging must beat). GEMM: 4096³
// (-bench.gemm for another size) in fp32, TF32, fp16, bf16 and fp64,
// reported in TFLOP/s. Tiny: a 4-byte memset and a Sync, the floor of one
// op. Ops: package ops' kernels (NVRTC) against NVIDIA's OpenCL, see
// BenchmarkOps (-bench.ops elements, -reduce the reductions' tuning).
var (
	benchMax    = flag.String("bench.max", "", "top of the transfer ladder, bytes or with KiB/MiB/GiB (default 256MiB)")
	benchGemmN  = flag.Int("bench.gemm", 4096, "GEMM benchmarks' n")
	benchOpsN   = flag.Int("bench.ops", 1<<24, "BenchmarkOps' elements")
	benchReduce = flag.String("reduce", "", "BenchmarkOps' ops.Tuning.Reduce as ONEPASS,GROUPS,WG,UNROLL (0 for a default; ONEPASS 0: two passes)")
)

func init() {
	flag.Func("staging.split", "batches a transfer under two staging chunks is cut into, 1…64 (default 2)", devkit.SetSplit)
}

// reduceTuning parses -reduce into t's Reduce.
func reduceTuning() (t ops.Tuning, _ error) {
	var v [4]int
	if *benchReduce == "" {
		return t, nil
	}
	f := strings.Split(*benchReduce, ",")
	if len(f) != 4 {
		return t, fmt.Errorf("-reduce=%q: want ONEPASS,GROUPS,WG,UNROLL", *benchReduce)
	}
	for i := range f {
		n, err := strconv.Atoi(f[i])
		if err != nil {
			return t, fmt.Errorf("-reduce=%q: %v", *benchReduce, err)
		}
		v[i] = n
	}
	r := &t.Reduce
	r.TwoPass, r.GroupsPerUnit, r.WorkGroup, r.Unroll = v[0] == 0, v[1], v[2], v[3]
	return t, nil
}

func benchDevice(b *testing.B, o cuda.Options) *cuda.Device {
	d, err := cuda.Open(o)
	if err != nil {
		b.Skipf("no CUDA here: %v", err)
	}
	b.Cleanup(func() { d.Close() })
	return d
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// parseSize reads "1073741824", "256MiB", "1GiB".
func parseSize(s string) (int, error) {
	mult := 1
	for suf, m := range map[string]int{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suf) {
			s, mult = strings.TrimSuffix(s, suf), m
		}
	}
	n, err := strconv.Atoi(s)
	return n * mult, err
}

func transferLadder() []int {
	top := 256 << 20
	if testing.Short() {
		top = 16 << 20
	}
	if n, err := parseSize(*benchMax); err == nil && n > 0 {
		top = n
	}
	var sizes []int
	for n := 64 << 10; n <= top; n *= 4 {
		sizes = append(sizes, n)
	}
	return sizes
}

func benchCopies(b *testing.B, h2d bool) {
	staged := benchDevice(b, cuda.Options{})
	direct := benchDevice(b, cuda.Options{NoStaging: true})
	for _, kind := range []string{"pinned", "go", "go-direct"} {
		d := staged
		if kind == "go-direct" {
			d = direct
		}
		for _, n := range transferLadder() {
			a, err := d.Malloc(n)
			if err != nil {
				b.Fatal(err)
			}
			var host []byte
			var blk device.HostBlock
			if kind == "pinned" {
				if blk, err = d.AllocHost(n); err != nil {
					b.Fatal(err)
				}
				host = blk.Bytes()
			} else {
				host = make([]byte, n)
			}
			r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
			move := func() error {
				if h2d {
					return d.CopyIn(a, 0, host, r)
				}
				return d.CopyOut(host, a, 0, r)
			}
			for range 3 { // fault pages in, warm the allocation
				if err := move(); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(kind+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					if err := move(); err != nil {
						b.Fatal(err)
					}
				}
			})
			if blk != nil {
				blk.Free()
			}
			d.Free(a)
		}
	}
}

func BenchmarkH2D(b *testing.B) { benchCopies(b, true) }
func BenchmarkD2H(b *testing.B) { benchCopies(b, false) }

// BenchmarkTiny is one 4-byte memset and a Sync: the floor of an op that
// is waited for.
func BenchmarkTiny(b *testing.B) {
	d := benchDevice(b, cuda.Options{})
	a, err := d.Malloc(4)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Memset(a, 0, 1, 4); err != nil {
			b.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMallocFree is the caching allocator's hit path.
func BenchmarkMallocFree(b *testing.B) {
	d := benchDevice(b, cuda.Options{})
	b.ReportAllocs()
	for b.Loop() {
		a, err := d.Malloc(1 << 20)
		if err != nil {
			b.Fatal(err)
		}
		d.Free(a)
	}
}

func gemmSize() int {
	return max(1, *benchGemmN)
}

// benchGemm times ops.MatMulWith of an m×k by k×n product on resident
// operands, queued back to back and waited for once (cuBLAS queues them
// all), in TFLOP/s.
func benchGemm[T ops.MatElem](b *testing.B, d *cuda.Device, p device.Precision, one T, m, n, k int) {
	a, x, c := array.New[T](k, m), array.New[T](n, k), array.New[T](n, m)
	defer a.Close()
	defer x.Close()
	defer c.Close()
	for _, v := range []*array.Array[T]{a, x} {
		h, _ := v.Host()
		h.Fill(one)
	}
	if err := ops.On(d, a, x, c); err != nil {
		b.Fatal(err)
	}
	for range 2 { // cuBLAS picks and loads its kernels on the first call
		if err := ops.MatMulWith(c, a, x, p); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := ops.MatMulWith(c, a, x, p); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e12, "TFLOP/s")
}

func BenchmarkGemm(b *testing.B) {
	d := benchDevice(b, cuda.Options{})
	n := gemmSize()
	s := strconv.Itoa(n)
	b.Run("fp32/"+s, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, float32(1), n, n, n) })
	b.Run("tf32/"+s, func(b *testing.B) { benchGemm(b, d, device.PrecisionTF32, float32(1), n, n, n) })
	b.Run("fp16/"+s, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, array.F16(1), n, n, n) })
	b.Run("bf16/"+s, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, array.BF16(1), n, n, n) })
	b.Run("fp64/"+s, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, float64(1), n, n, n) })
}

// BenchmarkGemmShapes: cuBLAS through ops.MatMul at issue 35's shapes
// (M×N×K), exact fp32 and fp64, for bench/torch_ops.py's same shapes.
func BenchmarkGemmShapes(b *testing.B) {
	d := benchDevice(b, cuda.Options{})
	for _, sh := range [][3]int{{1000, 1000, 1000}, {4096, 4096, 64}, {64, 4096, 4096}, {1024, 784, 1024}, {4096, 4096, 4096}} {
		name := fmt.Sprintf("%dx%dx%d", sh[0], sh[1], sh[2])
		b.Run("fp32/"+name, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, float32(1), sh[0], sh[1], sh[2]) })
		b.Run("fp64/"+name, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, float64(1), sh[0], sh[1], sh[2]) })
	}
}

// BenchmarkOps times package ops' kernels on resident float32 Arrays of
// 2^24 elements (-bench.ops for another count) on the CUDA Device
// and, in the same run, on NVIDIA's OpenCL (opencl.Default) as the peer:
// Add (bytes: two reads and a write), Copy (a read and a write: the
// driver's copy), Sum (a read, into a 0-D Array that stays on the
// device), SumAll (the same, its result read back, so each one waits),
// Softmax along rows of 4096, Fill, RandUniform and RandNormal (a write);
// Tiny is a 1-element Add and a Sync, the
// floor of one op that is waited for. The others queue b.N ops and wait
// once.
func BenchmarkOps(b *testing.B) {
	n := max(1, *benchOpsN)
	rt, err := reduceTuning()
	if err != nil {
		b.Fatal(err)
	}
	devs := map[string]func() (benchSyncer, error){
		"cuda": func() (benchSyncer, error) {
			d, err := cuda.Default()
			if err == nil && !d.Caps().OpenCLC {
				_, err = d.Compile("", "")
			}
			return d, err
		},
		"opencl": func() (benchSyncer, error) { return opencl.Default() },
	}
	for _, name := range []string{"cuda", "opencl"} {
		b.Run(name, func(b *testing.B) {
			d, err := devs[name]()
			if err != nil {
				b.Skip(err)
			}
			was := ops.TuningOf(d)
			t := was
			t.Reduce = rt.Reduce
			ops.SetTuning(d, t)
			defer ops.SetTuning(d, was)
			benchOps(b, d, n)
		})
	}
}

// benchSyncer is a device ops run on that can wait for its queue.
type benchSyncer interface {
	device.Device
	Sync() error
}

func benchOps(b *testing.B, d benchSyncer, n int) {
	x, y, z := array.New[float32](n), array.New[float32](n), array.New[float32](n)
	t1, t2, s0 := array.New[float32](1), array.New[float32](1), array.New[float32]()
	rows := array.New[float32](4096, max(1, n/4096))
	sm := array.New[float32](4096, max(1, n/4096))
	defer closeBench(x, y, z, t1, t2, s0, rows, sm)
	for _, a := range []*array.Array[float32]{x, y, rows} {
		v, _ := a.Host()
		v.Fill(0.5)
	}
	if err := ops.On(d, x, y, z, t1, t2, s0, rows, sm); err != nil {
		b.Fatal(err)
	}
	queued := func(bytes int, op func() error) func(b *testing.B) {
		return func(b *testing.B) {
			if err := op(); err != nil { // builds the kernels
				b.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := op(); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		}
	}
	before := d.Stats()
	b.Run(fmt.Sprintf("Add/%d", n), queued(12*n, func() error { return ops.Binary(z, x, y, ops.OpAdd) }))
	b.Run(fmt.Sprintf("Copy/%d", n), queued(8*n, func() error { return ops.Copy(z, x) }))
	b.Run(fmt.Sprintf("Sum/%d", n), queued(4*n, func() error { return ops.Sum(s0, x, -1) }))
	b.Run(fmt.Sprintf("SumAll/%d", n), queued(4*n, func() error { _, err := ops.Value(ops.Sum, x); return err }))
	b.Run(fmt.Sprintf("Softmax/%d", rows.Len()), queued(8*rows.Len(), func() error { return ops.Softmax(sm, rows, -1) }))
	// RNG fills write only (issue 36: against the Copy above, and Fill,
	// the device's write-only floor).
	b.Run(fmt.Sprintf("Fill/%d", n), queued(4*n, func() error { return ops.Fill(z, 1) }))
	b.Run(fmt.Sprintf("RandUniform/%d", n), queued(4*n, func() error { return ops.RandUniform(z, 7, 0) }))
	b.Run(fmt.Sprintf("RandNormal/%d", n), queued(4*n, func() error { return ops.RandNormal(z, 7, 0) }))
	b.Run("Tiny", queued(4, func() error {
		if err := ops.Binary(t2, t1, t1, ops.OpAdd); err != nil {
			return err
		}
		return d.Sync()
	}))
	if s := d.Stats().Sub(before); s.H2DCalls != 0 || s.D2HCalls != 0 {
		b.Fatalf("ops on resident Arrays moved data: %v", s)
	}
}

func closeBench(xs ...*array.Array[float32]) {
	for _, x := range xs {
		x.Close()
	}
}
