package callbacks_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/callbacks"
)

// ucRec is one goroutine's user context: it counts what reached it, by
// hook, as Halide's user_context aottest checks that its pointer arrives
// in every hook.
type ucRec struct {
	id   int
	mu   sync.Mutex
	hits map[string]int
}

func (r *ucRec) hit(what string) {
	r.mu.Lock()
	r.hits[what]++
	r.mu.Unlock()
}

func (r *ucRec) counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.hits {
		out[k] = v
	}
	return out
}

// noContext counts extern stages that ran with no user context while
// ucActive is set.
var noContext, ucActive atomic.Int32

// noteContext records the extern stage in the call's user context.
func noteContext(x *halide.ExternCall, name string) {
	if r, ok := x.Context().(*ucRec); ok {
		r.hit(name)
	} else if ucActive.Load() != 0 {
		noContext.Add(1)
	}
}

var ucHooks = &halide.Hooks{
	Print: func(ctx any, msg []byte) { ctx.(*ucRec).hit("print") },
	Trace: func(e *halide.TraceEvent) { e.Context.(*ucRec).hit("trace") },
	Error: func(ctx any, err error) { ctx.(*ucRec).hit("error") },
}

// ucCalls makes one call of every pipeline of the package that has a Go
// hook or extern, with r as the user context.
func ucCalls(t *testing.T, r *ucRec, opencl bool) {
	o := halide.Options{Context: r, Hooks: ucHooks}
	const w, h = 19, 7
	in, out := array.New[int32](w, h), array.New[int32](w, h)
	defer in.Close()
	defer out.Close()
	if err := callbacks.GostagePipeline.CallWith(o, in, int32(r.id), out); err != nil {
		t.Error(err)
	}
	if err := callbacks.GostageNsPipeline.CallWith(o, in, int32(r.id), out); err != nil {
		t.Error(err)
	}
	if opencl {
		if err := callbacks.GostageOpenclPipeline.CallWith(o, in, int32(r.id), out); err != nil {
			t.Error(err)
		}
	}
	a, b := array.New[int32](8), array.New[int32](8)
	defer a.Close()
	defer b.Close()
	if err := callbacks.PrinterPipeline.CallWith(o, a, b); err != nil {
		t.Error(err)
	}
	if err := callbacks.RelayPipeline.CallWith(o, a, b); err != nil { // no user_context: the thread's call
		t.Error(err)
	}
	if err := callbacks.GostagePipeline.CallWith(o, in, uint8(1), out); err == nil { // wrong scalar type
		t.Error("gostage with a uint8 k succeeded")
	}
	// The runtime's own error (an input too small), through Error too.
	small := array.New[int32](2)
	defer small.Close()
	if err := callbacks.PrinterPipeline.CallWith(o, small, b); err == nil {
		t.Error("printer with too small an input succeeded")
	}
}

// The user context (Options.Context) arrives in every hook (print, trace,
// error) and every Go extern stage of the package's pipelines, host and
// OpenCL, with and without user_context, from several goroutines at once
// with different contexts; the library's own routing (errors to their
// call, the OpenCL device) keeps working beside it.
func TestUserContextReachesHooks(t *testing.T) {
	opencl := true
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
		opencl = false
		t.Log("no OpenCL device, OpenCL pipeline skipped:", err)
	}
	ucActive.Add(1)
	defer ucActive.Add(-1)
	solo := &ucRec{id: 1, hits: map[string]int{}}
	ucCalls(t, solo, opencl)
	want := solo.counts()
	for _, k := range []string{"go_offset", "go_relay", "print", "trace", "error"} {
		if want[k] == 0 {
			t.Errorf("nothing reached the user context through %s: %v", k, want)
		}
	}
	const goroutines, iters = 4, 5
	recs := make([]*ucRec, goroutines)
	var wg sync.WaitGroup
	for g := range recs {
		recs[g] = &ucRec{id: g + 2, hits: map[string]int{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range iters {
				ucCalls(t, recs[g], opencl)
			}
		}()
	}
	wg.Wait()
	for _, r := range recs {
		got := r.counts()
		for k, n := range want {
			if got[k] != n*iters {
				t.Errorf("context %d: %s reached it %d times, want %d (%v)", r.id, k, got[k], n*iters, got)
			}
		}
	}
	if n := noContext.Load(); n != 0 {
		t.Errorf("%d extern stages ran without their call's context", n)
	}
	// Calls without Options keep the process-wide hooks.
	if err := callbacks.Printer(array.New[int32](8), array.New[int32](8)); err != nil {
		t.Error(err)
	}
}

// ExamplePipeline_CallWith: a call's own user context and hooks.
func ExamplePipeline_CallWith() {
	type job struct {
		name   string
		stores int
	}
	var printed []string
	hooks := &halide.Hooks{
		Print: func(ctx any, msg []byte) {
			printed = append(printed, fmt.Sprintf("%s: %s", ctx.(*job).name, msg))
		},
		Trace: func(e *halide.TraceEvent) {
			if e.Event == halide.TraceStore {
				e.Context.(*job).stores++
			}
		},
	}
	in, out := array.FromSlice([]int32{1, 2, 3, 4, 5}, 5), array.New[int32](5)
	j := &job{name: "first"}
	err := callbacks.PrinterPipeline.CallWith(halide.Options{Context: j, Hooks: hooks}, in, out)
	fmt.Println(err, j.stores, printed)
	// Output: <nil> 5 [first: 12 <- printer at x = 3
	// ]
}
