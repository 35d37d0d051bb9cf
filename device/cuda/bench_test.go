package cuda_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/ops"
)

// Benchmarks for the H200 (bench/h200.sh runs them from bin/cuda.test):
//
//	bin/cuda.test -test.run '^$' -test.bench . -test.benchtime 20x
//
// Transfers: a ladder of 64 KiB … 256 MiB (RESIDENT_BENCH_MAX, bytes or
// with KiB/MiB/GiB, moves the top) from pinned memory (AllocHost), Go memory through
// staging ("go"), and Go memory handed to the driver ("go-direct", the
// baseline staging must beat). GEMM: 4096³ (RESIDENT_BENCH_GEMM for
// another size) in fp32, TF32, fp16, bf16 and fp64, reported in TFLOP/s.
// Tiny: a 4-byte memset and a Sync, the floor of one op.

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
	if n, err := parseSize(os.Getenv("RESIDENT_BENCH_MAX")); err == nil && n > 0 {
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
	if n, err := strconv.Atoi(os.Getenv("RESIDENT_BENCH_GEMM")); err == nil && n > 0 {
		return n
	}
	return 4096
}

// benchGemm times ops.MatMulWith on n×n resident operands, each
// iteration waiting for the device.
func benchGemm[T ops.MatElem](b *testing.B, d *cuda.Device, p device.Precision, one T) {
	n := gemmSize()
	a, x, c := array.New[T](n, n), array.New[T](n, n), array.New[T](n, n)
	defer a.Close()
	defer x.Close()
	defer c.Close()
	for _, m := range []*array.Array[T]{a, x} {
		v, _ := m.Host()
		v.Fill(one)
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
		if err := d.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e12, "TFLOP/s")
}

func BenchmarkGemm(b *testing.B) {
	d := benchDevice(b, cuda.Options{})
	n := strconv.Itoa(gemmSize())
	b.Run("fp32/"+n, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, float32(1)) })
	b.Run("tf32/"+n, func(b *testing.B) { benchGemm(b, d, device.PrecisionTF32, float32(1)) })
	b.Run("fp16/"+n, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, array.F16(1)) })
	b.Run("bf16/"+n, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, array.BF16(1)) })
	b.Run("fp64/"+n, func(b *testing.B) { benchGemm(b, d, device.PrecisionExact, float64(1)) })
}
