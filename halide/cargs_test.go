package halide_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// A device-dirty halide_buffer_t that C got from an OpenCL pipeline,
// wrapped with each Ownership, as Runtime::Buffer's BufferDeviceOwnership:
// the Array's device copy is C's allocation (no copy: the next OpenCL
// pipeline reads it there, no upload), its host view comes home counted,
// and Close frees exactly what the Array owned: TakeDevice's allocation,
// ShareDevice's reference (C's allocation still works after). A cl_mem of
// another context is refused with nothing changed.
func TestWrapCBufferDeviceOwnership(t *testing.T) {
	const x0, y0, w, h = 4, 6, 31, 15
	for _, own := range []halide.Ownership{halide.TakeDevice, halide.ShareDevice} {
		t.Run([]string{"", "take", "share"}[own], func(t *testing.T) {
			dev := freshCL(t)
			// A first call makes dev the runtime's device for C's calls
			// (the most recently used live device).
			warm := array.New[uint8](4, 4)
			defer warm.Close()
			if err := brighter.BrighterPipeline.CallWith(halide.Options{Device: dev}, warm, uint8(1), warm); err != nil {
				t.Fatal(err)
			}
			cin := blur.CNewUint16(x0, y0, w, h, w)
			defer blur.CFree(cin)
			cmid := blur.CNewUint16(x0+1, y0+1, w-2, h-2, w-2)
			defer blur.CFree(cmid)
			for y := y0 + 1; y < y0+h-1; y++ {
				for x := x0 + 1; x < x0+w-1; x++ {
					blur.CSet(cmid, x, y, 0xEEEE) // only the device copy is right
				}
			}
			if rc := blur.COpenCLBlurKeep(cin, cmid); rc != 0 {
				t.Fatalf("blur_opencl from C: %d", rc)
			}
			if hd, dirty := blur.CDevice(cmid); hd == 0 || !dirty {
				t.Fatalf("C's output: device %#x, device-dirty %v; want a device-dirty allocation", hd, dirty)
			}

			// Another context's device: refused, nothing changed.
			other := clDevice(t)
			o0 := other.Stats()
			if _, err := halide.WrapCBuffer[uint16](cmid, halide.WrapOptions{Ownership: own, Device: other}); !errors.Is(err, halide.ErrForeignDevice) {
				t.Fatalf("a cl_mem of another context: %v, want ErrForeignDevice", err)
			}
			if hd, dirty := blur.CDevice(cmid); hd == 0 || !dirty || other.Stats().AllocsLive != o0.AllocsLive {
				t.Fatalf("the refusal changed C's buffer (device %#x, dirty %v) or allocated", hd, dirty)
			}

			s0 := dev.Stats()
			mid, err := halide.WrapCBuffer[uint16](cmid, halide.WrapOptions{Ownership: own, Device: dev})
			if err != nil {
				t.Fatal(err)
			}
			hd, dirty := blur.CDevice(cmid)
			if own == halide.TakeDevice && (hd != 0 || dirty) || own == halide.ShareDevice && (hd == 0 || !dirty) {
				t.Errorf("after the wrap C's buffer has device %#x, device-dirty %v", hd, dirty)
			}
			if mid.Device() != device.Device(dev) || !mid.DeviceDirty() {
				t.Fatalf("wrapped: on %v, device-dirty %v; want device-dirty on %s", mid.Device(), mid.DeviceDirty(), dev.Name())
			}
			out := array.NewWithMins[uint16]([]int{x0 + 2, y0 + 2}, []int{w - 4, h - 4})
			s1 := dev.Stats()
			if err := blur.BlurOpenclPipeline.CallWith(halide.Options{Device: dev}, mid, out); err != nil {
				t.Fatal(err)
			}
			if d := dev.Stats().Sub(s1); d.H2DCalls != 0 {
				t.Errorf("the wrapped device-dirty input was uploaded: %+v", d)
			}
			mv, err := mid.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			once := func(x, y int) uint16 { return blurRef(blurInput, x, y) }
			checkBlur(t, func(x, y int) uint16 { return mv.At(x, y) }, x0+1, y0+1, w-2, h-2)
			ov, err := out.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			for y := y0 + 2; y < y0+h-2; y++ {
				for x := x0 + 2; x < x0+w-2; x++ {
					if got, want := ov.At(x, y), blurRef(once, x, y); got != want {
						t.Fatalf("blur twice (%d, %d) = %d, want %d", x, y, got, want)
					}
				}
			}
			mid.Close()
			out.Close()
			if s := dev.Stats(); s.AllocsLive != s0.AllocsLive {
				t.Errorf("after Close: %d allocations live, %d before the wrap", s.AllocsLive, s0.AllocsLive)
			}
			if own == halide.ShareDevice {
				// C's allocation outlived the Array's reference.
				if rc := blur.CCopyToHost(cmid); rc != 0 {
					t.Errorf("C's copy to host after the Array closed: %d", rc)
				}
			}
			if rc := blur.CDeviceFree(cmid); rc != 0 {
				t.Errorf("C's device_free: %d", rc)
			}
			if rc := blur.CDeviceFree(cin); rc != 0 {
				t.Errorf("C's device_free of the input: %d", rc)
			}
		})
	}
}

// Layouts an Array cannot hold, in the style of Halide's aottests: WrapCBuffer
// refuses each naming PassCBuffer, and PassCBuffer hands C's struct to the
// pipeline as it is: a broadcast (stride 0) and an aliasing input are read
// as Halide addresses them, on the host and on OpenCL; a negative extent
// is the pipeline's own -28, leaving the output as it was.
func TestPassCBuffer(t *testing.T) {
	const w, h = 20, 9
	for _, p := range []*halide.Pipeline{blur.BlurPipeline, blur.BlurOpenclPipeline} {
		t.Run(p.Name(), func(t *testing.T) {
			var dev device.Device
			if p.API() == "OpenCL" {
				dev = clDevice(t)
			}
			for _, c := range []struct {
				name   string
				dims   [2][3]int // min, extent, stride of C's input
				at     func(x, y int) uint16
				refuse error
			}{
				{"broadcast", [2][3]int{{0, w, 1}, {0, h, 0}}, func(x, y int) uint16 { return blurInput(x, 0) }, halide.ErrBadDimensions},
				{"aliasing", [2][3]int{{0, w, 1}, {0, h, 1}}, func(x, y int) uint16 { return blurInput(x+y, 0) }, halide.ErrBadDimensions},
				{"negative extent", [2][3]int{{0, -1, 1}, {0, h, w + h}}, nil, halide.ErrBufferExtentsNegative},
			} {
				t.Run(c.name, func(t *testing.T) {
					cin := blur.CNewUint16(0, 0, w+h, 1, w+h) // one row: blurInput(x, 0)
					defer blur.CFree(cin)
					for i, d := range c.dims {
						blur.CSetDim(cin, i, d[0], d[1], d[2])
					}
					if _, err := halide.WrapCBuffer[uint16](cin, halide.WrapOptions{}); !errors.Is(err, c.refuse) || !strings.Contains(err.Error(), "PassCBuffer") {
						t.Errorf("WrapCBuffer: %v, want %v naming PassCBuffer", err, c.refuse)
					}
					out := array.NewWithMins[uint16]([]int{1, 1}, []int{w - 2, h - 2})
					defer out.Close()
					ov, _ := out.Host()
					for i := range ov.Data() {
						ov.Data()[i] = 0xEEEE
					}
					var s0 device.Stats
					if dev != nil {
						s0 = dev.Stats()
					}
					blur.CMarkHostDirty(cin)
					err := p.Call(halide.PassCBuffer(cin), out)
					if p.API() == "OpenCL" {
						defer blur.CDeviceFree(cin) // the runtime's allocation is C's, as after a C call
					}
					if c.at == nil {
						// Halide checks the input's bounds first: the
						// pipeline's own -4, as for a C caller.
						if !errors.Is(err, halide.ErrAccessOutOfBounds) {
							t.Fatalf("an input of negative extent: %v, want the pipeline's -4", err)
						}
						if out.DeviceDirty() {
							t.Error("the failed call marked the output")
						}
						v, _ := out.HostReadOnly()
						for i, x := range v.Data() {
							if x != 0xEEEE {
								t.Fatalf("the failed call wrote output element %d", i)
							}
						}
						if dev != nil {
							out.DeviceFree()
							if s := dev.Stats(); s.AllocsLive != s0.AllocsLive {
								t.Errorf("after the failed call: %d allocations live, %d before", s.AllocsLive, s0.AllocsLive)
							}
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if dev != nil && (out.Device() != dev || !out.DeviceDirty()) {
						t.Errorf("the output is on %v (device-dirty %v), want resident on the call's device", out.Device(), out.DeviceDirty())
					}
					v, err := out.HostReadOnly()
					if err != nil {
						t.Fatal(err)
					}
					for y := 1; y < h-1; y++ {
						for x := 1; x < w-1; x++ {
							if got, want := v.At(x, y), blurRef(c.at, x, y); got != want {
								t.Fatalf("(%d, %d) = %d, want %d", x, y, got, want)
							}
						}
					}
				})
			}
		})
	}
	// An output of negative extent is the pipeline's -28.
	in := array.New[uint16](w, h)
	defer in.Close()
	cout := blur.CNewUint16(1, 1, w-2, h-2, w-2)
	defer blur.CFree(cout)
	blur.CSetDim(cout, 1, 1, -3, w-2)
	if _, err := halide.WrapCBuffer[uint16](cout, halide.WrapOptions{}); !errors.Is(err, halide.ErrBufferExtentsNegative) {
		t.Errorf("WrapCBuffer of a negative extent: %v", err)
	}
	if err := blur.BlurPipeline.Call(in, halide.PassCBuffer(cout)); !errors.Is(err, halide.ErrBufferExtentsNegative) {
		t.Errorf("an output of negative extent: %v, want the pipeline's -28", err)
	}
	// A C output, written where C reads it.
	blur.CSetDim(cout, 1, 1, h-2, w-2)
	iv, _ := in.Host()
	for y := range h {
		for x := range w {
			iv.Set(blurInput(x, y), x, y)
		}
	}
	if err := blur.BlurPipeline.Call(in, halide.PassCBuffer(cout)); err != nil {
		t.Fatal(err)
	}
	checkBlur(t, func(x, y int) uint16 { return blur.CAt(cout, x, y) }, 1, 1, w-2, h-2)
	// A NULL struct is the -12 of a NULL buffer argument.
	out := array.New[uint16](4, 4)
	defer out.Close()
	if err := blur.BlurPipeline.Call(halide.PassCBuffer(nil), out); !errors.Is(err, halide.ErrBufferArgumentIsNull) {
		t.Errorf("PassCBuffer(nil): %v", err)
	}
}

// Drawn layouts over one C row of memory (strides 0 to 3 in each
// dimension, so broadcasts, aliasing and ordinary ones, any mins): the
// host blur reads a PassCBuffer input exactly where Halide's address_of
// says (the model), or, for an inner stride other than 1, returns its own
// -8 (its generator keeps Halide's stride-1 constraint); where an Array
// can hold the layout, WrapCBuffer's Array gives the same output; where it
// cannot, WrapCBuffer refuses with ErrBadDimensions.
func TestPassCBufferLayouts(t *testing.T) {
	const mem = 400
	rng := rand.New(rand.NewPCG(21, 3))
	seen := map[string]int{}
	defer func() {
		for _, k := range []string{"constraint", "broadcast", "aliasing", "array"} {
			if seen[k] == 0 {
				t.Errorf("no %s layout drawn: %v", k, seen)
			}
		}
	}()
	for i := range 60 {
		w, h := 3+rng.IntN(9), 3+rng.IntN(6)
		s0 := []int{1, 1, 1, 0, 2}[rng.IntN(5)]
		s1 := []int{0, 1, 2, w, w + 1 + rng.IntN(3)}[rng.IntN(5)]
		if (w-1)*s0+(h-1)*s1 >= mem {
			continue
		}
		m0, m1 := rng.IntN(21)-10, rng.IntN(21)-10
		cin := blur.CNewUint16(0, 0, mem, 1, mem) // element i is blurInput(i, 0)
		blur.CSetDim(cin, 0, m0, w, s0)
		blur.CSetDim(cin, 1, m1, h, s1)
		at := func(x, y int) uint16 { return blurInput((x-m0)*s0+(y-m1)*s1, 0) }
		out := array.NewWithMins[uint16]([]int{m0 + 1, m1 + 1}, []int{w - 2, h - 2})
		err := blur.BlurPipeline.Call(halide.PassCBuffer(cin), out)
		if s0 != 1 {
			// Halide's default constraint input.dim(0).stride == 1: the
			// pipeline's own -8.
			if !errors.Is(err, halide.ErrConstraintViolated) {
				t.Fatalf("layout %d (strides %d, %d): %v, want the pipeline's -8", i, s0, s1, err)
			}
			seen["constraint"]++
			out.Close()
			blur.CFree(cin)
			continue
		}
		if err != nil {
			t.Fatalf("layout %d (%d×%d, strides %d, %d): %v", i, w, h, s0, s1, err)
		}
		ov, _ := out.HostReadOnly()
		check := func(what string) {
			for y := m1 + 1; y < m1+h-1; y++ {
				for x := m0 + 1; x < m0+w-1; x++ {
					if got, want := ov.At(x, y), blurRef(at, x, y); got != want {
						t.Fatalf("%s, layout %d (%d×%d at (%d, %d), strides %d, %d): (%d, %d) = %d, want %d", what, i, w, h, m0, m1, s0, s1, x, y, got, want)
					}
				}
			}
		}
		check("PassCBuffer")
		a, err := halide.WrapCBuffer[uint16](cin, halide.WrapOptions{})
		holds := s0 >= 1 && s1 >= w*s0 || s1 >= 1 && s0 >= h*s1
		switch {
		case holds:
			seen["array"]++
		case s1 == 0:
			seen["broadcast"]++
		default:
			seen["aliasing"]++
		}
		switch {
		case holds && err != nil:
			t.Fatalf("layout %d (%d×%d, strides %d, %d): WrapCBuffer refused an Array layout: %v", i, w, h, s0, s1, err)
		case !holds && !errors.Is(err, halide.ErrBadDimensions):
			t.Fatalf("layout %d (%d×%d, strides %d, %d): WrapCBuffer: %v, want ErrBadDimensions", i, w, h, s0, s1, err)
		case holds:
			ow, _ := out.Host()
			clear(ow.Data())
			if err := blur.BlurPipeline.Call(a, out); err != nil {
				t.Fatal(err)
			}
			ov, _ = out.HostReadOnly()
			check("WrapCBuffer")
			a.Close()
		}
		out.Close()
		blur.CFree(cin)
	}
}
