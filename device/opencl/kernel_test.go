package opencl

import (
	"encoding/binary"
	"errors"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"math"
	"strings"
	"testing"
)

const saxpySrc = `
__kernel void saxpy(float a, __global const float *x, __global float *y, int n) {
	int i = get_global_id(0);
	if (i < n) y[i] = a * x[i] + y[i];
}`

func f32s(b []byte) []float32 {
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

func f32bytes(f []float32) []byte {
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func TestSaxpy(t *testing.T) {
	d := open(t, Options{})
	p, err := d.clContext().BuildProgram(d.clDeviceID(), "", saxpySrc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	k, err := p.CreateKernel("saxpy")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if n, err := k.NumArgs(); err != nil || n != 4 {
		t.Errorf("NumArgs = %d, %v", n, err)
	}
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), float32(2*i)
	}
	r := dense(4, n)
	xa, _ := d.Malloc(4 * n)
	ya, _ := d.Malloc(4 * n)
	defer d.Free(xa)
	defer d.Free(ya)
	if err := d.CopyIn(xa, 0, f32bytes(x), r); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyIn(ya, 0, f32bytes(y), r); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgs(float32(3), xa, ya, int32(n)); err != nil {
		t.Fatal(err)
	}
	if err := d.clQueue().EnqueueKernel(k, nil, []int{1024}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 4*n)
	if err := d.CopyOut(out, ya, 0, r); err != nil {
		t.Fatal(err)
	}
	for i, v := range f32s(out) {
		if want := 3*x[i] + y[i]; v != want {
			t.Fatalf("y[%d] = %v, want %v", i, v, want)
		}
	}
	if _, err := p.CreateKernel("nope"); !errors.Is(err, &cl.Error{Code: cl.CodeInvalidKernelName}) {
		t.Errorf("CreateKernel(nope): %v", err)
	}
	if err := k.SetArg(9, int32(1)); err == nil {
		t.Error("SetArg(9) on a 4-argument kernel succeeded")
	}
	func() {
		defer func() {
			if e, _ := recover().(error); !errors.Is(e, cl.ErrArgType) {
				t.Errorf("SetArg(int) panicked with %v, want cl.ErrArgType", e)
			}
		}()
		k.SetArg(3, n)
	}()
}

func TestBuildError(t *testing.T) {
	d := open(t, Options{})
	_, err := d.clContext().BuildProgram(d.clDeviceID(), "", "__kernel void broken(__global float *x) { x[0] = 1.0f +; }")
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a *BuildError", err)
	}
	if !errors.Is(err, &cl.Error{Code: cl.CodeBuildProgramFailure}) {
		t.Errorf("code %d, want CL_BUILD_PROGRAM_FAILURE", be.Err.Code)
	}
	if len(be.Logs) != 1 || be.Logs[0].Log == "" || be.Logs[0].Name == "" {
		t.Fatalf("logs %+v", be.Logs)
	}
	if !strings.Contains(err.Error(), "build log for") || !strings.Contains(err.Error(), "CL_BUILD_PROGRAM_FAILURE") {
		t.Errorf("message %q", err)
	}
	// Through the binding, with no device list: every device's log.
	p, err := d.clContext().CreateProgram("__kernel void k() { undefined_fn(); }")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Build(nil, ""); !errors.As(err, &be) || len(be.Logs) == 0 || be.Log() == "" {
		t.Errorf("Build(nil): %v", err)
	}
}

// TestBinding drives the raw objects: info, buffers, rects, fill, map,
// events and sub-buffers.
func TestBinding(t *testing.T) {
	d := open(t, Options{})
	ps, err := cl.Platforms()
	if err != nil || len(ps) == 0 {
		t.Fatalf("Platforms: %v, %v", ps, err)
	}
	if d.PlatformName() != d.clPlatform().Name() || d.Type() != d.clDeviceID().Type() {
		t.Errorf("PlatformName %q Type %v, binding %q %v", d.PlatformName(), d.Type(), d.clPlatform().Name(), d.clDeviceID().Type())
	}
	if log, err := d.BuildLog(saxpySrc, ""); err != nil {
		t.Errorf("BuildLog of a good program: %v (log %q)", err, log)
	}
	var be *BuildError
	if _, err := d.BuildLog("__kernel void broken(__global float *x) { x[0] = 1.0f +; }", ""); !errors.As(err, &be) || len(be.Logs) == 0 || be.Logs[0].Log == "" {
		t.Errorf("BuildLog of a broken program: %v, want a *BuildError with its log", err)
	}
	if d.clPlatform().Name() == "" || d.clDeviceID().Name() == "" || d.clDeviceID().MaxMemAllocSize() <= 0 || d.clDeviceID().MemBaseAddrAlign() <= 0 {
		t.Errorf("info: %q %q %d %d", d.clPlatform().Name(), d.clDeviceID().Name(), d.clDeviceID().MaxMemAllocSize(), d.clDeviceID().MemBaseAddrAlign())
	}
	if d.clContext().Handle() == 0 || d.clQueue().Handle() == 0 || d.clDeviceID().Handle() == 0 || !strings.HasPrefix(d.Name(), "opencl:") {
		t.Errorf("handles %#x %#x %#x, name %q", d.clContext().Handle(), d.clQueue().Handle(), d.clDeviceID().Handle(), d.Name())
	}
	ctx, err := cl.CreateContext(d.clDeviceID())
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.CreateQueue(d.clDeviceID(), cl.QueueProfiling)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	if _, err := ctx.CreateBuffer(cl.MemReadWrite, 0); !errors.Is(err, &cl.Error{Code: cl.CodeInvalidBufferSize}) {
		t.Errorf("CreateBuffer(0): %v", err)
	}
	b, err := ctx.CreateBuffer(cl.MemReadWrite, 256)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	var ev cl.Event
	if err := q.FillBuffer(b, []byte{1, 2, 3, 4}, 0, 256, nil, &ev); err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitForEvents(ev); err != nil {
		t.Fatal(err)
	}
	if st, err := ev.Status(); err != nil || st != cl.Complete {
		t.Errorf("status %d, %v", st, err)
	}
	if ns, err := ev.Elapsed(); err != nil || ns < 0 {
		t.Errorf("elapsed %d, %v", ns, err)
	}
	ev.Release()
	if err := cl.WaitForEvents(); err != nil {
		t.Errorf("WaitForEvents(): %v", err)
	}
	// A 16×16 byte image; write a 4×3 box at (2, 5) from a 4-wide host box.
	host := []byte("abcdefghijkl")
	r := cl.Rect{BufferOrigin: [3]int{2, 5, 0}, Region: [3]int{4, 3, 1}, BufferRowPitch: 16}
	if err := q.WriteBufferRect(b, host, r, nil); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, 12)
	if err := q.ReadBufferRect(back, b, r, []cl.Event{{}}); err != nil || string(back) != string(host) {
		t.Fatalf("rect round trip %q, %v", back, err)
	}
	all := make([]byte, 256)
	if err := q.ReadBuffer(all, b, 0, nil); err != nil {
		t.Fatal(err)
	}
	if string(all[5*16+2:5*16+6]) != "abcd" || all[5*16+1] != 2 || all[5*16+6] != 3 {
		t.Errorf("row 5: %v", all[5*16:6*16])
	}
	if err := q.ReadBufferRect(make([]byte, 5), b, r, nil); !errors.Is(err, device.ErrOutOfRange) {
		t.Errorf("short host rect: %v", err)
	}
	c, _ := ctx.CreateBuffer(cl.MemReadWrite, 256)
	defer c.Release()
	if err := q.CopyBufferRect(c, b, cl.CopyRect{SrcOrigin: [3]int{2, 5, 0}, Region: [3]int{4, 3, 1}, SrcRowPitch: 16}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := q.CopyBuffer(c, 100, b, 0, 4, nil, nil); err != nil {
		t.Fatal(err)
	}
	m, err := q.MapBuffer(c, cl.MapRead, 0, 104, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(m[:12]) != "abcdefghijkl" || string(m[100:104]) != "\x01\x02\x03\x04" {
		t.Errorf("mapped %q", m)
	}
	if err := q.UnmapBuffer(c, m, nil, nil); err != nil {
		t.Fatal(err)
	}
	sub, err := b.SubBuffer(cl.MemReadWrite, 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Release(); err != nil || sub.Release() != nil {
		t.Error("sub-buffer release")
	}
	if _, err := b.SubBuffer(cl.MemReadWrite, 200, 100); !errors.Is(err, device.ErrOutOfRange) {
		t.Errorf("sub-buffer past the end: %v", err)
	}
	if err := q.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
}

func TestDefault(t *testing.T) {
	d, err := Default()
	if errors.Is(err, ErrNoOpenCL) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if d2, _ := Default(); d2 != d {
		t.Error("Default returned two devices")
	}
	t.Setenv(EnvPlatformName, "no such platform")
	if _, err := Open(Options{}); !errors.Is(err, &cl.Error{Code: cl.CodeDeviceNotFound}) {
		t.Errorf("Open with an unknown platform: %v", err)
	}
	t.Setenv(EnvPlatformName, "")
	t.Setenv(EnvDeviceType, "cpu")
	if dd, err := Open(Options{}); err != nil || dd.clDeviceID().Type()&DeviceCPU == 0 {
		t.Errorf("Open(cpu): %v", err)
	} else {
		dd.Close()
	}
}
