package halide_test

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"github.com/resident-go/resident/internal/plumb"
	"os"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/scale3d"
)

func TestMain(m *testing.M) {
	// PoCL compiles each kernel once per cache; keep the cache between runs.
	if os.Getenv("POCL_CACHE_DIR") == "" {
		os.Setenv("POCL_CACHE_DIR", os.TempDir()+"/resident-pocl-cache")
	}
	os.Exit(m.Run())
}

func clDevice(t testing.TB) *opencl.Device {
	t.Helper()
	d, err := halide.DefaultDevice("OpenCL")
	if err != nil {
		t.Skip("no OpenCL device:", err)
	}
	return d.(*opencl.Device)
}

// pattern is a w×h image with every byte value, 255 included.
func pattern(w, h int) []uint8 {
	s := make([]uint8, w*h)
	for i := range s {
		s[i] = uint8(i*7 + i/w)
	}
	return s
}

func satAdd(x, k uint8) uint8 { return uint8(min(int(x)+int(k), 255)) }

// checkBrightened reports (as what) the first element of a that is not
// src's element brightened by k, saturating.
func checkBrightened(t *testing.T, what string, a *array.Array[uint8], src []uint8, k uint8) {
	t.Helper()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Error(err)
		return
	}
	for j, x := range src {
		if want := satAdd(x, k); v.Data()[j] != want {
			t.Errorf("%s: element %d = %d, want %d", what, j, v.Data()[j], want)
			return
		}
	}
}

// checkImage compares v with f applied to src, element for element.
func checkImage(t *testing.T, got []uint8, src []uint8, k int) {
	t.Helper()
	if len(got) != len(src) {
		t.Fatalf("got %d elements, want %d", len(got), len(src))
	}
	bad := 0
	for i, x := range src {
		want := uint8(min(int(x)+k, 255))
		if got[i] != want {
			if bad++; bad < 5 {
				t.Errorf("element %d: got %d, want %d (input %d + %d saturating)", i, got[i], want, x, k)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d elements wrong", bad, len(src))
	}
}

func TestLookup(t *testing.T) {
	p, err := halide.Lookup("brighter")
	if err != nil {
		t.Fatal(err)
	}
	if !(p.API() == "OpenCL") || !strings.Contains(p.Target(), "user_context") || !strings.HasPrefix(p.Target(), "x86-64-linux") {
		t.Errorf("brighter: OpenCL %v target %s", p.API() == "OpenCL", p.Target())
	}
	// Every committed pipeline: the portable CPU features (Halide prints
	// them sorted), no AVX-512, user_context and no_runtime.
	for _, name := range halide.Pipelines() {
		q, _ := halide.Lookup(name)
		feats := map[string]bool{}
		for _, f := range strings.Split(q.Target(), "-")[3:] {
			feats[f] = true
		}
		for _, f := range append(strings.Split(halide.PortableTarget, "-")[3:], "user_context", "no_runtime") {
			if f == "user_context" && (name == "inner" || name == "relay") {
				continue // built with -user_context=false on purpose (examples/callbacks)
			}
			if !feats[f] {
				t.Errorf("%s: target %s lacks %s", name, q.Target(), f)
			}
		}
		if strings.Contains(q.Target(), "avx512") || !strings.HasPrefix(q.Target(), "x86-64-linux-") {
			t.Errorf("%s: committed target %s is not portable", name, q.Target())
		}
	}
	want := "brighter(input 2-D uint8 buffer, k uint8 scalar, brighter 2-D uint8 buffer) "
	if got := p.String(); !strings.HasPrefix(got, want) {
		t.Errorf("String() = %q, want prefix %q", got, want)
	}
	if _, err := halide.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "brighter_host") {
		t.Errorf("Lookup(nope) = %v, want an error listing the registered pipelines", err)
	}
	if ht := halide.HostTarget(); !strings.HasPrefix(ht, "x86-64-linux-") {
		t.Errorf("HostTarget() = %q", ht)
	}
}

// Lesson 10: an OpenCL pipeline writing into host-only values must leave
// the correct image on the host, and give its temporary device
// allocations back.
func TestLesson10HostOnly(t *testing.T) {
	dev := clDevice(t)
	const w, h, k = 67, 35, 77
	src := pattern(w, h)
	for _, tc := range []struct {
		name string
		out  func() (array.Buffer, func() []uint8)
	}{
		{"FromSlice", func() (array.Buffer, func() []uint8) {
			s := make([]uint8, w*h)
			return array.FromSlice(s, w, h), func() []uint8 { return s }
		}},
		{"in-place", nil},
		{"HostView", func() (array.Buffer, func() []uint8) {
			v, err := array.New[uint8](w, h).Host()
			if err != nil {
				t.Fatal(err)
			}
			return v, v.Data
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := dev.Stats()
			in := array.Buffer(array.FromSlice(src, w, h))
			var out array.Buffer
			var data func() []uint8
			if tc.out == nil { // the same host-only value in and out
				s := append([]uint8(nil), src...)
				in = array.FromSlice(s, w, h)
				out, data = in, func() []uint8 { return s }
			} else {
				out, data = tc.out()
			}
			if err := brighter.Brighter(in, k, out); err != nil {
				t.Fatal(err)
			}
			checkImage(t, data(), src, k)
			d := dev.Stats().Sub(before)
			if d.AllocsLive != before.AllocsLive || d.H2DCalls != 1 || d.D2HCalls != 1 {
				t.Errorf("stats: %v; want live allocations back to %d, one upload, one download", d, before.AllocsLive)
			}
			if r := out.Raw(); r.DeviceDirty() || allocOf(r) != nil {
				t.Errorf("host-only output left device-dirty %v allocation %v", r.DeviceDirty(), allocOf(r))
			}
		})
	}
}

// Eight chained OpenCL calls on device-aware Arrays: one upload, one
// download, and the runtime never copies by itself.
func TestResidentChain(t *testing.T) {
	dev := clDevice(t)
	const w, h, stages, k = 64, 48, 8, 9
	src := pattern(w, h)
	a, b, c := array.New[uint8](w, h), array.New[uint8](w, h), array.New[uint8](w, h)
	defer a.Close()
	defer b.Close()
	defer c.Close()
	v, _ := a.Host()
	copy(v.Data(), src)

	before := dev.Stats()
	acq := halide.ContextAcquires()
	in, out := a, b
	for i := 0; i < stages; i++ {
		if err := brighter.Brighter(in, k, out); err != nil {
			t.Fatal(err)
		}
		if !out.DeviceDirty() || out.HostDirty() {
			t.Fatalf("stage %d: output device-dirty %v host-dirty %v, want resident", i, out.DeviceDirty(), out.HostDirty())
		}
		if i == 0 {
			// From now on the source's host copy is garbage: if the runtime
			// re-uploaded it by itself, the result would show it.
			hb := unsafe.Slice((*byte)(a.Raw().HostPtr()), a.Len())
			for j := range hb {
				hb[j] = 0xEE
			}
			in, out = b, c
		} else {
			in, out = out, in
		}
	}
	res, err := in.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	checkImage(t, res.Data(), src, stages*k)
	d := dev.Stats().Sub(before)
	if d.H2DCalls != 1 || d.D2HCalls != 1 || d.D2DCalls != 0 {
		t.Errorf("stats %v: want exactly one upload and one download", d)
	}
	if halide.ContextAcquires() == acq {
		t.Error("the Halide runtime never acquired our OpenCL context")
	}
}

// 10 000 calls leave no live device allocation behind. Other tests'
// Arrays may be collected meanwhile, so this counts its own: live
// allocations never grow, and the Arrays' own are freed by Close.
func TestNoLeak(t *testing.T) {
	dev := clDevice(t)
	n := 10000
	if testing.Short() {
		n = 1000
	}
	const w, h = 8, 8
	src := array.FromSlice(pattern(w, h), w, h)
	t.Run("host-only", func(t *testing.T) {
		out := array.FromSlice(make([]uint8, w*h), w, h)
		before := dev.Stats()
		for i := 0; i < n; i++ {
			if err := brighter.Brighter(src, 1, out); err != nil {
				t.Fatal(err)
			}
		}
		if s := dev.Stats(); s.AllocsLive > before.AllocsLive || s.AllocsTotal-before.AllocsTotal != int64(2*n) {
			t.Errorf("live allocations %d → %d after %d temporaries (want %d)", before.AllocsLive, s.AllocsLive, s.AllocsTotal-before.AllocsTotal, 2*n)
		}
	})
	t.Run("device-aware", func(t *testing.T) {
		in, out := array.New[uint8](w, h), array.New[uint8](w, h)
		before := dev.Stats()
		for i := 0; i < n; i++ {
			if err := brighter.Brighter(in, 1, out); err != nil {
				t.Fatal(err)
			}
		}
		if s := dev.Stats(); s.AllocsTotal-before.AllocsTotal != 2 || allocOf(in.Raw()) == nil || allocOf(out.Raw()) == nil {
			t.Errorf("%d allocations for %d calls, want the two Arrays' own", s.AllocsTotal-before.AllocsTotal, n)
		}
		live := dev.Stats().AllocsLive
		in.Close()
		out.Close()
		if s := dev.Stats(); s.AllocsLive > live-2 {
			t.Errorf("after Close: live allocations %d → %d, want 2 fewer", live, s.AllocsLive)
		}
	})
}

func allocOf(r *array.Raw) device.Allocation {
	a, _ := r.Allocation()
	return a
}

// A crop as output: the pipeline writes only the crop, at the crop's
// coordinates; on OpenCL the crop shares its parent's device allocation.
func TestCropOutput(t *testing.T) {
	const w, k = 128, 40
	// OpenCL crops must start at a multiple of the device's sub-buffer
	// alignment (128 bytes on PoCL, 512 or more on GPUs): start whole rows in.
	align := 128
	if d, err := halide.DefaultDevice("OpenCL"); err == nil {
		align = plumb.OpenCL.SubBufferAlign(d)
	}
	clRow := max(2, (align+w-1)/w)
	h := clRow + 12
	src := pattern(w, h)
	for _, tc := range []struct {
		name       string
		p          *halide.Pipeline
		resident   bool
		x0, xn     int
		y0, yn     int
		parentOnly bool // read only the parent: it must pick up the crop's device write
	}{
		{"host", brighter.BrighterHostPipeline, false, 5, 21, 3, 7, false},
		{"opencl", brighter.BrighterPipeline, true, 0, 64, clRow, 9, false},
		{"opencl-parent-only", brighter.BrighterPipeline, true, 0, 64, clRow, 9, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := array.New[uint8](w, h)
			defer parent.Close()
			pv, _ := parent.Host()
			pv.Fill(7)
			if tc.resident {
				dev := clDevice(t)
				if err := parent.CopyToDevice(dev); err != nil {
					t.Fatal(err)
				}
			}
			crop := parent.Crop(1, tc.y0, tc.yn).Crop(0, tc.x0, tc.xn)
			if tc.resident && (allocOf(crop.Raw()) == nil || allocOf(crop.Raw()) != allocOf(parent.Raw())) {
				t.Fatal("the crop does not share the parent's cl_mem")
			}
			if err := tc.p.Call(array.FromSlice(src, w, h), uint8(k), crop); err != nil {
				t.Fatal(err)
			}
			if tc.resident && !crop.DeviceDirty() {
				t.Error("the OpenCL crop output is not device-dirty")
			}
			if !tc.parentOnly {
				if _, err := crop.HostReadOnly(); err != nil { // copies only the crop
					t.Fatal(err)
				}
			}
			all, err := parent.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					want := uint8(7)
					if x >= tc.x0 && x < tc.x0+tc.xn && y >= tc.y0 && y < tc.y0+tc.yn {
						want = satAdd(src[y*w+x], k)
					}
					if got := all.At(x, y); got != want {
						t.Fatalf("(%d, %d) = %d, want %d", x, y, got, want)
					}
				}
			}
		})
	}
	t.Run("opencl-misaligned", func(t *testing.T) {
		// Halide 14 needs sub-buffer origins aligned: the bridge runs the
		// pipeline on an aligned temporary, copied on the device.
		dev := clDevice(t)
		parent := array.New[uint8](w, h)
		defer parent.Close()
		pv, _ := parent.Host()
		pv.Fill(7)
		if err := parent.CopyToDevice(dev); err != nil {
			t.Fatal(err)
		}
		before := dev.Stats()
		crop := parent.Crop(0, 3, 10).Crop(1, 1, 5)
		if err := brighter.Brighter(array.FromSlice(src, w, h), 1, crop); err != nil {
			t.Fatal(err)
		}
		if plumb.OpenCL.SubBufferAlign(dev) > 1 {
			if s := dev.Stats().Sub(before); s.D2DCalls != 1 || s.D2HCalls != 0 {
				t.Errorf("misaligned output: %v, want one device copy back and no download", s)
			}
		}
		all, _ := parent.HostReadOnly()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				want := uint8(7)
				if x >= 3 && x < 13 && y >= 1 && y < 6 {
					want = satAdd(src[y*w+x], 1)
				}
				if got := all.At(x, y); got != want {
					t.Fatalf("(%d, %d) = %d, want %d", x, y, got, want)
				}
			}
		}
	})
}

// Non-zero mins reach Halide: bias is indexed by the channel coordinate.
func TestNonZeroMins(t *testing.T) {
	mins, ext := []int{-2, 3, 1}, []int{19, 5, 3}
	for _, tc := range []struct {
		name string
		p    *halide.Pipeline
	}{{"host", scale3d.Scale3dPipeline}, {"opencl", scale3d.Scale3dOpenclPipeline}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.p.API() == "OpenCL" {
				clDevice(t)
			}
			in := array.NewWithMins[float32](mins, ext)
			iv, _ := in.Host()
			for z := mins[2]; z < mins[2]+ext[2]; z++ {
				for y := mins[1]; y < mins[1]+ext[1]; y++ {
					for x := mins[0]; x < mins[0]+ext[0]; x++ {
						iv.Set(float32(x*100+y*10+z), x, y, z)
					}
				}
			}
			bias := array.NewWithMins[float32]([]int{1}, []int{3})
			bv, _ := bias.Host()
			bv.Set(0.5, 1)
			bv.Set(0.25, 2)
			bv.Set(0.125, 3)
			out := array.NewWithMins[float32](mins, ext)
			if err := tc.p.Call(in, bias, float32(2), out); err != nil {
				t.Fatal(err)
			}
			ov, err := out.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			for z := mins[2]; z < mins[2]+ext[2]; z++ {
				for y := mins[1]; y < mins[1]+ext[1]; y++ {
					for x := mins[0]; x < mins[0]+ext[0]; x++ {
						want := float32(x*100+y*10+z)*2 + []float32{0.5, 0.25, 0.125}[z-1]
						if got := ov.At(x, y, z); got != want {
							t.Fatalf("(%d, %d, %d) = %v, want %v", x, y, z, got, want)
						}
					}
				}
			}
			// The bias must cover the channels: min 0 leaves channel 3 out.
			short := array.NewWithMins[float32]([]int{0}, []int{3})
			err = tc.p.Call(in, short, float32(2), out)
			var he *halide.Error
			if !errors.As(err, &he) || he.Code != -4 || !strings.Contains(he.Msg, "bias") {
				t.Errorf("bias not covering the channels: %v, want access_out_of_bounds on bias", err)
			}
		})
	}
}

// Errors are values and the process lives.
func TestErrors(t *testing.T) {
	img := func(w, h int) *array.Array[uint8] { return array.FromSlice(make([]uint8, w*h), w, h) }
	closed := array.New[uint8](4, 4)
	closed.Close()
	for _, p := range []*halide.Pipeline{brighter.BrighterHostPipeline, brighter.BrighterPipeline} {
		for _, tc := range []struct {
			name string
			args []any
			code int
			msg  string
		}{
			{"element type", []any{array.New[float32](4, 4), uint8(1), img(4, 4)}, -3,
				`argument "input" wants a 2-D uint8 buffer, got a 2-D float32 Array`},
			{"dimensions", []any{img(4, 4), uint8(1), array.New[uint8](4, 4, 3)}, -43,
				`argument "brighter" wants a 2-D uint8 buffer, got a 3-D uint8 Array`},
			{"scalar type", []any{img(4, 4), 1, img(4, 4)}, -3,
				`argument "k" wants a uint8 scalar, got a Go int`},
			{"scalar for buffer", []any{uint8(1), uint8(1), img(4, 4)}, -3,
				`argument "input" wants a 2-D uint8 buffer, got a Go uint8`},
			{"nil", []any{nil, uint8(1), img(4, 4)}, -12, `argument "input" wants a 2-D uint8 buffer, got nil`},
			{"closed", []any{closed, uint8(1), img(4, 4)}, -12, "got a closed Array"},
			{"count", []any{img(4, 4), uint8(1)}, int(halide.ErrArgCount), "takes 3 arguments, got 2"},
			{"input too small", []any{img(20, 10), uint8(1), img(20, 12)}, -4,
				"Input buffer input is accessed at 11, which is beyond the max (9) in dimension 1"},
		} {
			t.Run(p.Name()+"/"+tc.name, func(t *testing.T) {
				if p.API() == "OpenCL" {
					clDevice(t)
				}
				err := p.Call(tc.args...)
				var he *halide.Error
				if !errors.As(err, &he) {
					t.Fatalf("got %v (%T), want a *halide.Error", err, err)
				}
				if he.Pipeline != p.Name() || he.Code != tc.code || !strings.Contains(he.Msg, tc.msg) {
					t.Errorf("got {%s %d %q}, want {%s %d …%q…}", he.Pipeline, he.Code, he.Msg, p.Name(), tc.code, tc.msg)
				}
			})
		}
		// And the process still works.
		out := img(4, 4)
		if err := p.Call(array.FromSlice(pattern(4, 4), 4, 4), uint8(3), out); err != nil {
			t.Fatalf("%s after errors: %v", p.Name(), err)
		}
	}
}

// Concurrent failing calls each get their own message.
func TestConcurrentErrors(t *testing.T) {
	const goroutines, iters = 8, 25
	for _, p := range []*halide.Pipeline{brighter.BrighterHostPipeline, brighter.BrighterPipeline} {
		t.Run(p.Name(), func(t *testing.T) {
			if p.API() == "OpenCL" {
				clDevice(t)
			}
			var wg sync.WaitGroup
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					h := 10 + 3*g
					in := array.FromSlice(make([]uint8, 16*h), 16, h)
					bad := array.FromSlice(make([]uint8, 16*(h+1)), 16, h+1)
					good := array.FromSlice(make([]uint8, 16*h), 16, h)
					want := fmt.Sprintf("accessed at %d, which is beyond the max (%d) in dimension 1", h, h-1)
					for i := 0; i < iters; i++ {
						err := p.Call(in, uint8(g), bad)
						var he *halide.Error
						if !errors.As(err, &he) || !strings.HasSuffix(he.Msg, want) || he.Code != -4 {
							t.Errorf("goroutine %d: got %v, want …%s", g, err, want)
							return
						}
						if err := p.Call(in, uint8(g), good); err != nil {
							t.Errorf("goroutine %d: %v", g, err)
							return
						}
						if got := *(*uint8)(good.Raw().HostPtr()); got != uint8(g) {
							t.Errorf("goroutine %d: output %d, want %d", g, got, g)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// Host and OpenCL pipelines on the same Arrays: a device-dirty input to a
// host pipeline is synced first; a host pipeline's output with a device
// copy becomes host-dirty, so the next OpenCL pipeline uploads it.
func TestMixedTargets(t *testing.T) {
	dev := clDevice(t)
	const w, h = 32, 8
	src := pattern(w, h)
	a, b, c := array.New[uint8](w, h), array.New[uint8](w, h), array.New[uint8](w, h)
	defer a.Close()
	defer b.Close()
	defer c.Close()
	av, _ := a.Host()
	copy(av.Data(), src)
	if err := brighter.Brighter(a, 1, b); err != nil { // b device-dirty
		t.Fatal(err)
	}
	if err := b.CopyToDevice(dev); err != nil {
		t.Fatal(err)
	}
	if err := brighter.BrighterHost(b, 2, c); err != nil { // syncs b to host first
		t.Fatal(err)
	}
	if err := c.CopyToDevice(dev); err != nil { // c gets a device copy
		t.Fatal(err)
	}
	if err := brighter.BrighterHost(a, 5, c); err != nil { // host write: c host-dirty
		t.Fatal(err)
	}
	if !c.HostDirty() || c.DeviceDirty() {
		t.Fatalf("host pipeline output with a device copy: host-dirty %v device-dirty %v", c.HostDirty(), c.DeviceDirty())
	}
	if err := brighter.Brighter(c, 4, b); err != nil { // uploads c
		t.Fatal(err)
	}
	bv, _ := b.HostReadOnly()
	checkImage(t, bv.Data(), src, 9)
}

// Under the transfer guard a call that would copy is refused before
// anything moves; a resident chain runs.
func TestTransferGuard(t *testing.T) {
	clDevice(t)
	const w, h = 16, 16
	a, b := array.New[uint8](w, h), array.New[uint8](w, h)
	defer a.Close()
	defer b.Close()
	if err := brighter.Brighter(a, 1, b); err != nil {
		t.Fatal(err)
	}
	was := guard.Set(true)
	defer guard.Set(was)
	if err := brighter.Brighter(b, 1, a); err != nil {
		t.Fatalf("resident call under the guard: %v", err)
	}
	out := array.FromSlice(make([]uint8, w*h), w, h)
	if err := brighter.Brighter(a, 1, out); !errors.Is(err, device.ErrTransferGuard) {
		t.Errorf("host-only output under the guard: %v, want ErrTransferGuard", err)
	}
	if err := brighter.BrighterHost(a, 1, out); !errors.Is(err, device.ErrTransferGuard) {
		t.Errorf("device-dirty input to a host pipeline under the guard: %v, want ErrTransferGuard", err)
	}
}

// An Array resident on another device (device/sim) is an error naming the
// fix, before anything moves; a failed call keeps every host write.
func TestOtherDevice(t *testing.T) {
	clDevice(t)
	const w, h = 16, 16
	src := pattern(w, h)
	onSim := func(sd *sim.Device) *array.Array[uint8] {
		a := array.New[uint8](w, h)
		hv, _ := a.Host()
		copy(hv.Data(), src)
		if err := a.CopyToDevice(sd); err != nil {
			t.Fatal(err)
		}
		a.SetDeviceDirty(true)
		return a
	}
	for _, crop := range []bool{false, true} {
		sd := sim.New("other", 0)
		in, out := onSim(sd), array.New[uint8](w, h)
		arg := in
		if crop {
			arg = in.Crop(1, 0, h/2) // its root lives on sim
		}
		err := brighter.Brighter(arg, 3, out)
		if !errors.Is(err, device.ErrForeign) || !strings.Contains(err.Error(), "DeviceFree") {
			t.Fatalf("input on sim (crop %v): %v, want ErrForeign naming the fix", crop, err)
		}
		if s := sd.Stats(); s.D2HCalls != 0 || in.Device() != device.Device(sd) {
			t.Errorf("a refused call moved data: %v", s)
		}
		if err := in.DeviceFree(); err != nil {
			t.Fatal(err)
		}
		if err := brighter.Brighter(in, 3, out); err != nil {
			t.Fatal(err)
		}
		v, _ := out.HostReadOnly()
		checkImage(t, v.Data(), src, 3)
	}
	t.Run("failed call keeps host writes", func(t *testing.T) {
		a, c := array.New[uint8](w, h), array.New[uint8](w, h)
		if err := brighter.Brighter(a, 1, c); err != nil { // c resident
			t.Fatal(err)
		}
		hv, _ := c.Host()
		hv.Fill(42)
		small := array.FromSlice(make([]uint8, 64), 8, 8)
		if err := brighter.Brighter(small, 1, c); err == nil {
			t.Fatal("an 8×8 input for a 16×16 output succeeded")
		}
		d := array.New[uint8](w, h)
		if err := brighter.Brighter(c, 1, d); err != nil {
			t.Fatal(err)
		}
		if v, _ := d.HostReadOnly(); v.At(5, 5) != 43 {
			t.Fatalf("after a failed call: %d, want 43 (the host write kept)", v.At(5, 5))
		}
	})
}

func TestReuseDeviceAllocations(t *testing.T) {
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
		t.Skip(err)
	}
	if !halide.ReusesDeviceAllocations() {
		t.Fatal("halide_reuse_device_allocations is off")
	}
}
