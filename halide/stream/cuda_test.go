package stream_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda/cudatest"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/stream"
	"github.com/resident-go/resident/internal/plumb"
	"github.com/resident-go/resident/ops"
)

// TestCUDAMock runs TestCUDAStreamed against the mock driver in a child
// process, where there is no GPU.
func TestCUDAMock(t *testing.T) {
	cudatest.InMock(t, true, []string{"TestCUDAStreamed", "TestStepPanicsCUDA"}, nil)
	cudatest.InMock(t, true, []string{"TestCUDATraceFails"}, nil, "MOCKCUDA_FAIL=cuEventElapsedTime:1+")
}

// A traced Run whose device times cannot be read (the mock refuses every
// cuEventElapsedTime) fails naming the timing, after its chain ran: the
// output is right, no event stays live, the next untraced Run works, and
// closing the device leaves nothing behind.
func TestCUDATraceFails(t *testing.T) {
	if !cudatest.InChild() {
		t.Skip("runs in TestCUDAMock's child, whose mock refuses event timing")
	}
	d, err := halide.DefaultDevice("CUDA")
	if err != nil {
		t.Fatal(err)
	}
	hd := d.(device.HostAllocator) // a *cuda.Device
	st, _, err := plumb.StreamsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	// Checked last, once src's pinned root is closed too (newArray's
	// cleanup; the mock counts pinned blocks as held memory).
	t.Cleanup(func() { cudatest.NoLeak(t, "a stream, an event, device memory or a pinned block") })
	r := rand.New(rand.NewPCG(24, 9))
	steps := copies.steps(t)
	src := newArray(t, u8, hd, []int{0, 0}, []int{33, 17}, r)
	dst := newArray(t, u8, nil, []int{0, 0}, []int{33, 17}, r)
	s, err := stream.New(stream.Options{Device: d, Bands: 3}, steps...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunContext(context.Background(), stream.RunOptions{Trace: &stream.Trace{}}, dst, src); err == nil || !strings.Contains(err.Error(), "timing events") {
		t.Fatalf("traced Run with timing refused: %v, want the timing error", err)
	}
	if !bytes.Equal(hostBytes(t, dst), hostBytes(t, src)) {
		t.Error("the traced Run's output differs from its input (a copy chain)")
	}
	if n := st.Live(); n != 0 {
		t.Errorf("%d events live after the failed trace", n)
	}
	if err := errors.Join(s.Run(dst, src), s.Close()); err != nil {
		t.Fatalf("untraced Run after it: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStepPanicsCUDA is TestStepPanics on a CUDA device.
func TestStepPanicsCUDA(t *testing.T) {
	d, err := halide.DefaultDevice("CUDA")
	if err != nil {
		t.Skip("no CUDA device (runs on a GPU, and on the mock: TestCUDAMock):", err)
	}
	stepPanics(t, d)
}

// copies is the chain the mock can run: device copies (ops.Copy of dense
// bands is the driver's device-to-device copy), no kernel.
var copies = chain{"copy×2", func(t testing.TB) []stream.Step {
	c := stream.Op("copy", ops.Copy[uint8])
	return []stream.Step{c, c}
}, u8, u8, 0}

// cudaChains launch kernels: Halide host-cuda pipelines and ops through
// NVRTC, on a GPU.
var cudaChains = []chain{
	{"brighter_cuda×3", func(t testing.TB) []stream.Step {
		b := must(t, brighter.BrighterCudaPipeline, uint8(3))
		return []stream.Step{b, b, b}
	}, u8, u8, 0},
	{"brighter_cuda→f32→×0.5→u16", func(t testing.TB) []stream.Step {
		return []stream.Step{
			must(t, brighter.BrighterCudaPipeline, uint8(5)),
			stream.Op("f32", ops.CastWrap[float32, uint8]),
			stream.Op("half", func(out, in *array.Array[float32]) error { return ops.BinaryScalar(out, in, 0.5, ops.OpMul) }),
			stream.Op("u16", ops.CastWrap[uint16, float32]),
		}
	}, u8, u16, 0},
	copies,
}

// Streamed chains on a CUDA device equal the unstreamed chain, move each
// band once each way on the upload and download streams, and leave no
// event live; on the mock only the copy chain runs (it launches nothing),
// and closing the device leaves no stream, event or memory behind.
func TestCUDAStreamed(t *testing.T) {
	d, err := halide.DefaultDevice("CUDA")
	if err != nil {
		t.Skip("no CUDA device (runs on a GPU, and on the mock: TestCUDAMock):", err)
	}
	cs := cudaChains
	if strings.Contains(strings.ToLower(d.Name()), "mock") {
		cs = []chain{copies}
	}
	matches(t, d, cs, 24, 7)
	if !cudatest.InChild() {
		return
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	cudatest.NoLeak(t, "a stream, an event or device memory")
}
