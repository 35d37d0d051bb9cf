package callbacks_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/callbacks"
)

// failOffset makes go_offset fail, for the error-path test.
var failOffset struct {
	sync.Mutex
	on bool
}

// goOffset is the Go side of gostage's extern stage:
// out(x, y) = in(x, y) + k·(x − y), over the region Halide asks for.
func goOffset(x *halide.ExternCall) error {
	noteContext(x, "go_offset")
	failOffset.Lock()
	fail := failOffset.on
	failOffset.Unlock()
	if fail {
		return &halide.Error{Code: -27, Msg: "go_offset refuses on purpose"}
	}
	if x.NumArgs() != 4 || x.IsBuffer(0) || !x.IsBuffer(1) || x.IsBuffer(2) || !x.IsBuffer(3) {
		return fmt.Errorf("go_offset: unexpected arguments")
	}
	k := int32(x.Int(2))
	in, out := x.Buffer(1), x.Output()
	src, err := halide.ExternSlice[int32](in)
	if err != nil {
		return err
	}
	dst, err := halide.ExternSlice[int32](out)
	if err != nil {
		return err
	}
	id0, id1, od0, od1 := in.Dim(0), in.Dim(1), out.Dim(0), out.Dim(1)
	for yy := od1.Min; yy < od1.Min+od1.Extent; yy++ {
		for xx := od0.Min; xx < od0.Min+od0.Extent; xx++ {
			v := src[(xx-id0.Min)*id0.Stride+(yy-id1.Min)*id1.Stride]
			dst[(xx-od0.Min)*od0.Stride+(yy-od1.Min)*od1.Stride] = v + k*int32(xx-yy)
		}
	}
	return nil
}

func init() { halide.RegisterExtern("go_offset", goOffset) }

func gostageRef(x, y, in, k int32) int32 { return 2*in + k*(x-y) + 1 }

func checkGostage(t *testing.T, run func(in, out array.Buffer, k int32) error) {
	t.Helper()
	const w, h, k = 37, 11, 5
	// Mins off zero: the extern must honour them.
	in := array.NewWithMins[int32]([]int{3, -2}, []int{w, h})
	out := array.NewWithMins[int32]([]int{3, -2}, []int{w, h})
	defer in.Close()
	defer out.Close()
	hv, err := in.Host()
	if err != nil {
		t.Fatal(err)
	}
	for y := -2; y < h-2; y++ {
		for x := 3; x < w+3; x++ {
			hv.Set(int32(x*7-y*3), x, y)
		}
	}
	if err := run(in, out, k); err != nil {
		t.Fatal(err)
	}
	ov, err := out.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	for y := -2; y < h-2; y++ {
		for x := 3; x < w+3; x++ {
			want := gostageRef(int32(x), int32(y), int32(x*7-y*3), k)
			if got := ov.At(x, y); got != want {
				t.Fatalf("output(%d, %d) = %d, want %d", x, y, got, want)
			}
		}
	}
}

func TestGoExternHost(t *testing.T) {
	if !callbacks.GostagePipeline.Callbacks() {
		t.Fatal("halide-gen's wrapper did not set WithCallbacks on a pipeline with a Go extern")
	}
	checkGostage(t, func(in, out array.Buffer, k int32) error { return callbacks.Gostage(in, k, out) })
}

// Under a C++ namespace the extern's symbol is C++-mangled too; its stub
// (go_offset.extern.cpp) dispatches to the same Go function.
func TestGoExternNamespaced(t *testing.T) {
	checkGostage(t, func(in, out array.Buffer, k int32) error { return callbacks.GostageNs(in, k, out) })
}

func TestGoExternOpenCL(t *testing.T) {
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
		t.Skip("no OpenCL device:", err)
	}
	r0, w0 := halide.RuntimeTransfers()
	checkGostage(t, func(in, out array.Buffer, k int32) error { return callbacks.GostageOpencl(in, k, out) })
	// A host stage in a GPU pipeline: the runtime copies its input home and
	// its output back up, outside device.Stats but counted here.
	if r, w := halide.RuntimeTransfers(); r == r0 || w == w0 {
		t.Errorf("the host stage's copies were not counted: %d reads, %d writes", r-r0, w-w0)
	}
}

func TestGoExternConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			checkGostage(t, func(in, out array.Buffer, k int32) error { return callbacks.Gostage(in, k, out) })
		})
	}
	wg.Wait()
}

// A Go extern's error fails the call with its text, routed through
// user_context to the call that caused it.
func TestGoExternError(t *testing.T) {
	failOffset.Lock()
	failOffset.on = true
	failOffset.Unlock()
	defer func() {
		failOffset.Lock()
		failOffset.on = false
		failOffset.Unlock()
	}()
	in, out := array.New[int32](8, 8), array.New[int32](8, 8)
	err := callbacks.Gostage(in, 1, out)
	var he *halide.Error
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "go_offset refuses on purpose") {
		t.Fatalf("got %v, want a *halide.Error with the extern's message", err)
	}
	t.Log(err)
}

func TestPrintAndTrace(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	print := func(_ any, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		buf.Write(p)
	}
	stores := map[int32]int32{}
	var tags []string
	trace := func(e *halide.TraceEvent) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Event {
		case halide.TraceStore:
			lanes := int(e.Type.Lanes)
			for l := 0; l < lanes; l++ {
				v := int32(uint32(e.Value[4*l]) | uint32(e.Value[4*l+1])<<8 | uint32(e.Value[4*l+2])<<16 | uint32(e.Value[4*l+3])<<24)
				stores[e.Coordinates[l]] = v
			}
		case halide.TraceTag:
			tags = append(tags, e.Tag)
		}
	}

	const n = 10
	src := make([]int32, n)
	for i := range src {
		src[i] = int32(i*i - 4)
	}
	dst := make([]int32, n)
	o := halide.Options{Hooks: &halide.Hooks{Print: print, Trace: trace}}
	if err := callbacks.PrinterPipeline.CallWith(o, array.FromSlice(src, n), array.FromSlice(dst, n)); err != nil {
		t.Fatal(err)
	}
	for i := range dst {
		if dst[i] != 3*src[i] {
			t.Fatalf("output[%d] = %d, want %d", i, dst[i], 3*src[i])
		}
		if stores[int32(i)] != 3*src[i] {
			t.Fatalf("traced store at %d = %d, want %d (stores %v)", i, stores[int32(i)], 3*src[i], stores)
		}
	}
	if want := fmt.Sprintf("%d <- printer at x = 3", 3*src[3]); !strings.Contains(buf.String(), want) {
		t.Fatalf("printed %q, want %q", buf.String(), want)
	}
	// Halide tags every traced Func with its type and dimensions.
	if !slices.ContainsFunc(tags, func(s string) bool { return strings.HasPrefix(s, "func_type_and_dim:") }) {
		t.Fatalf("trace tags %q, want func_type_and_dim", tags)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestMultiTargetNamespaced(t *testing.T) {
	p := callbacks.MtblurPipeline
	if p.Name() != "mtblur" {
		t.Fatalf("name %q", p.Name())
	}
	const n = 1000
	src := make([]uint16, n)
	for i := range src {
		src[i] = uint16(i*7919) ^ uint16(i>>3)
	}
	dst := make([]uint16, n)
	if err := callbacks.Mtblur(array.FromSlice(src, n), array.FromSlice(dst, n)); err != nil {
		t.Fatal(err)
	}
	at := func(i int) uint32 { return uint32(src[max(0, min(n-1, i))]) }
	for i := range dst {
		if want := uint16((at(i-1) + at(i) + at(i+1)) / 3); dst[i] != want {
			t.Fatalf("output[%d] = %d, want %d", i, dst[i], want)
		}
	}
}

func TestWithoutUserContext(t *testing.T) {
	p := callbacks.InnerPipeline
	if len(p.Args()) != 2 {
		t.Fatalf("inner takes %d arguments, want 2: %s", len(p.Args()), p)
	}
	src := []int32{-3, 0, 2, 7, 46340}
	dst := make([]int32, len(src))
	if err := callbacks.Inner(array.FromSlice(src, len(src)), array.FromSlice(dst, len(dst))); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if dst[i] != src[i]*src[i] {
			t.Fatalf("inner[%d] = %d, want %d", i, dst[i], src[i]*src[i])
		}
	}
	// Errors of a pipeline without user_context still reach its call.
	err := callbacks.Inner(array.FromSlice(src, len(src)), array.FromSlice(make([]int32, 9), 9))
	var he *halide.Error
	if !errors.As(err, &he) || he.Code != -4 || !strings.Contains(he.Msg, "input") {
		t.Fatalf("got %v, want an access_out_of_bounds error about input", err)
	}
}

func TestPipelineAsExtern(t *testing.T) {
	src := make([]int32, 100)
	for i := range src {
		src[i] = int32(i - 50)
	}
	dst := make([]int32, len(src))
	if err := callbacks.Outer(array.FromSlice(src, len(src)), array.FromSlice(dst, len(dst))); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if want := (src[i]+1)*(src[i]+1) - 1; dst[i] != want {
			t.Fatalf("outer[%d] = %d, want %d", i, dst[i], want)
		}
	}
}

var failRelay struct {
	sync.Mutex
	on bool
}

// goRelay is relay's extern stage: it squares its input through the Inner
// pipeline, a pipeline call inside another's, then fails when asked.
func goRelay(x *halide.ExternCall) error {
	noteContext(x, "go_relay")
	in, out := x.Buffer(0), x.Output()
	src, err := halide.ExternSlice[int32](in)
	if err != nil {
		return err
	}
	dst, err := halide.ExternSlice[int32](out)
	if err != nil {
		return err
	}
	o := out.Dim(0)
	off := o.Min - in.Dim(0).Min
	// The same memory as an Array, with the buffer's mins.
	a, err := halide.ExternArray[int32](in)
	if err != nil {
		return err
	}
	if v, err := a.HostReadOnly(); err != nil || v.At(o.Min) != src[off] {
		return fmt.Errorf("ExternArray disagrees with ExternSlice at %d (%v)", o.Min, err)
	}
	tmp := make([]int32, o.Extent)
	if err := callbacks.Inner(array.FromSlice(src[off:off+o.Extent], o.Extent), array.FromSlice(tmp, o.Extent)); err != nil {
		return err
	}
	copy(dst, tmp)
	failRelay.Lock()
	defer failRelay.Unlock()
	if failRelay.on {
		return errors.New("go_relay refuses after its nested call")
	}
	return nil
}

func init() { halide.RegisterExtern("go_relay", goRelay) }

// A pipeline without user_context with a Go extern that calls a pipeline:
// the result is right, and an error after the nested call still reaches
// the outer call (the calling thread's ctx is restored, not cleared).
func TestNestedCallWithoutUserContext(t *testing.T) {
	src := []int32{-4, 1, 2, 300}
	dst := make([]int32, len(src))
	if err := callbacks.Relay(array.FromSlice(src, 4), array.FromSlice(dst, 4)); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if want := src[i]*src[i] + 1; dst[i] != want {
			t.Fatalf("relay[%d] = %d, want %d", i, dst[i], want)
		}
	}
	failRelay.Lock()
	failRelay.on = true
	failRelay.Unlock()
	defer func() {
		failRelay.Lock()
		failRelay.on = false
		failRelay.Unlock()
	}()
	err := callbacks.Relay(array.FromSlice(src, 4), array.FromSlice(dst, 4))
	var he *halide.Error
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "go_relay refuses after its nested call") {
		t.Fatalf("got %v, want the extern's message", err)
	}
}

// RegisterExternBounds replaces the pointwise answer to bounds queries.
func TestExternBounds(t *testing.T) {
	var mu sync.Mutex
	queries := 0
	halide.RegisterExternBounds("go_offset", func(x *halide.ExternCall) error {
		mu.Lock()
		queries++
		mu.Unlock()
		in, out := x.Buffer(1), x.Output()
		if !x.BoundsQuery() || !in.BoundsQuery() {
			return errors.New("bounds function called outside a bounds query")
		}
		for d := 0; d < out.Rank(); d++ {
			in.SetBounds(d, out.Dim(d).Min, out.Dim(d).Extent)
		}
		return nil
	})
	defer halide.RegisterExternBounds("go_offset", nil)
	checkGostage(t, func(in, out array.Buffer, k int32) error { return callbacks.Gostage(in, k, out) })
	if queries == 0 {
		t.Fatal("the bounds function was never asked")
	}
}

// Pipeline.Bounds goes through the entry point that can call Go when the
// pipeline has callbacks: a Go extern stage answers the query.
func TestExternPipelineBounds(t *testing.T) {
	out := array.NewWithMins[int32]([]int{2, 3}, []int{8, 4})
	b, err := callbacks.GostagePipeline.Bounds(nil, int32(1), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(b[0]) != 2 || b[0][0].Extent < 8 || b[0][1].Extent < 4 {
		t.Fatalf("input region %v, want one covering the 8×4 output", b[0])
	}
}
