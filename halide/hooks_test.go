package halide_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/callbacks"
	"github.com/resident-go/resident/halide/examples/tiny"
)

// A pipeline with a Go extern called through the fast entry point (no
// WithCallbacks) fails with a message that names the fix, instead of
// killing the process.
func TestExternOnFastEntryPoint(t *testing.T) {
	p := callbacks.GostagePipeline
	halide.SetCallbacks(p, false)
	defer halide.SetCallbacks(p, true)
	halide.RegisterExtern("go_offset", func(*halide.ExternCall) error { return nil })
	in, out := array.New[int32](4, 4), array.New[int32](4, 4)
	err := p.Call(in, int32(1), out)
	var he *halide.Error
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "WithCallbacks") {
		t.Fatalf("got %v, want an error naming WithCallbacks", err)
	}
}

// Hooks belong to their call: a call with Hooks gets its print and
// trace; a later call without them, on the fast entry point, goes to the
// runtime's defaults and reaches none of the earlier call's hooks.
func TestHooksOnFastEntryPoint(t *testing.T) {
	p := callbacks.PrinterPipeline
	halide.SetCallbacks(p, false)
	defer halide.SetCallbacks(p, true)
	var buf bytes.Buffer
	traced := 0
	hooks := &halide.Hooks{
		Print: func(_ any, msg []byte) { buf.Write(msg) },
		Trace: func(*halide.TraceEvent) { traced++ },
	}
	src, dst := []int32{1, 2, 3, 4}, make([]int32, 4)
	if err := p.CallWith(halide.Options{Hooks: hooks}, array.FromSlice(src, 4), array.FromSlice(dst, 4)); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 || traced == 0 {
		t.Fatalf("a call with Hooks: printed %q, traced %d: want both", buf.String(), traced)
	}
	printed, n := buf.Len(), traced
	if err := p.Call(array.FromSlice(src, 4), array.FromSlice(dst, 4)); err != nil {
		t.Fatal(err)
	}
	if dst[3] != 12 || buf.Len() != printed || traced != n {
		t.Fatalf("output %v, printed %q, traced %d more: want [3 6 9 12], nothing more, 0", dst, buf.String(), traced-n)
	}
}

// WithCallbacks returns another Pipeline: the looked-up one keeps the
// fast entry point, so its Go extern stage still fails.
func TestWithCallbacksCopies(t *testing.T) {
	p := halide.MustLookup("gostage")
	q := p.WithCallbacks()
	if q == p || !q.Callbacks() || p.Callbacks() || q == halide.MustLookup("gostage") {
		t.Fatalf("WithCallbacks: copy %v, its callbacks %v, the shared one's %v: want a new Pipeline with callbacks, the shared one without", q != p, q.Callbacks(), p.Callbacks())
	}
	if q.Name() != p.Name() || q.String() != p.String() {
		t.Fatalf("the copy is %s, want %s", q, p)
	}
	halide.RegisterExtern("go_offset", func(*halide.ExternCall) error { return nil })
	in, out := array.New[int32](4, 4), array.New[int32](4, 4)
	if err := p.Call(in, int32(1), out); err == nil {
		t.Fatal("the shared pipeline called its Go extern stage: WithCallbacks changed it")
	}
}

// BenchmarkEntryPoints is the tiny pipeline through each entry point:
// "fast" is what pipelines without callbacks take (BenchmarkCallOverhead/go),
// "callbacks" the one that may call Go.
func BenchmarkEntryPoints(b *testing.B) {
	in := array.FromSlice([]int32{41}, 1)
	out := array.FromSlice([]int32{0}, 1)
	p := tiny.TinyPipeline
	for _, cb := range []bool{false, true} {
		name := "fast"
		if cb {
			name = "callbacks"
		}
		b.Run(name, func(b *testing.B) {
			halide.SetCallbacks(p, cb)
			defer halide.SetCallbacks(p, false)
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Call(in, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
