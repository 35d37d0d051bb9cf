package halide_test

import (
	"os"
	"strconv"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/tiny"
)

// BenchmarkCallOverhead runs a 1-element host pipeline: its time is the
// cost of a call. "go" is Call from Go; "c-loop" the same pipeline and
// buffers called from a C loop, the floor. Goal: go ≤ 1.5× c-loop,
// ≤ 1 µs, 0 allocs/op.
func BenchmarkCallOverhead(b *testing.B) {
	in := array.FromSlice([]int32{41}, 1)
	out := array.FromSlice([]int32{0}, 1)
	p := tiny.TinyPipeline
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Call(in, out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-wrapper", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := tiny.Tiny(in, out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-with", func(b *testing.B) {
		// Per-call options: a guard and a user context, allocation-free.
		b.ReportAllocs()
		o := halide.Options{Guard: true, Context: p}
		for b.Loop() {
			if err := p.CallWith(o, in, out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("c-loop", func(b *testing.B) {
		b.ReportAllocs()
		if err := halide.LoopInC(p, b.N, in, out); err != nil {
			b.Fatal(err)
		}
	})
	if v, _ := out.HostReadOnly(); v.Data()[0] != 42 {
		b.Fatal("tiny computed", v.Data()[0])
	}
}

// BenchmarkBrighterChain is lesson 10's stage applied 8 times to a square
// uint8 image (HALIDE_BENCH_SIZE, default 4096; use e.g. 1024 on PoCL),
// including the upload of the source and the download of the result.
// "resident" keeps the intermediates on the device; "host-round-trip"
// passes host-only values, so every stage uploads and downloads.
func BenchmarkBrighterChain(b *testing.B) {
	clDevice(b)
	n := benchSize()
	const stages = 8
	src := pattern(n, n)
	b.Run("resident/"+strconv.Itoa(n), func(b *testing.B) { residentChain(b, n, stages, brighter.Brighter) })
	b.Run("host-round-trip/"+strconv.Itoa(n), func(b *testing.B) {
		x := array.FromSlice(make([]uint8, n*n), n, n)
		y := array.FromSlice(make([]uint8, n*n), n, n)
		b.SetBytes(int64(n * n))
		b.ReportAllocs()
		for b.Loop() {
			copy(unsafe.Slice((*byte)(x.Raw().HostPtr()), n*n), src)
			in, out := x, y
			for i := 0; i < stages; i++ {
				if err := brighter.Brighter(in, 1, out); err != nil {
					b.Fatal(err)
				}
				in, out = out, in
			}
		}
	})
}

// BenchmarkBrighterChainCUDA is BenchmarkBrighterChain's resident chain
// with brighter_cuda on the default CUDA device.
func BenchmarkBrighterChainCUDA(b *testing.B) {
	cuDevice(b)
	n := benchSize()
	b.Run("resident/"+strconv.Itoa(n), func(b *testing.B) { residentChain(b, n, 8, brighter.BrighterCuda) })
}

func benchSize() int {
	if s, err := strconv.Atoi(os.Getenv("HALIDE_BENCH_SIZE")); err == nil && s > 0 {
		return s
	}
	return 4096
}

// residentChain runs stages × stage on n×n device-aware Arrays per
// iteration, uploading the source and downloading the result once.
func residentChain(b *testing.B, n, stages int, stage func(in array.Buffer, k uint8, out array.Buffer) error) {
	src := pattern(n, n)
	a, x, y := array.New[uint8](n, n), array.New[uint8](n, n), array.New[uint8](n, n)
	defer a.Close()
	defer x.Close()
	defer y.Close()
	b.SetBytes(int64(n * n))
	b.ReportAllocs()
	for b.Loop() {
		av, _ := a.Host() // the source is new on the host: upload it once
		copy(av.Data(), src)
		in, out := a, x
		for i := 0; i < stages; i++ {
			if err := stage(in, 1, out); err != nil {
				b.Fatal(err)
			}
			// a → x → y → x → …: the source stays as it was.
			in, out = out, y
			if in == y {
				out = x
			}
		}
		if _, err := in.HostReadOnly(); err != nil {
			b.Fatal(err)
		}
	}
}
