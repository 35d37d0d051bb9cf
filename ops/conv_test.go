package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/clcuda"
)

// nchwArr is a 4-D operand in a drawn layout (layoutOf) with NCHW shape
// s, read and written by NCHW position.
type nchwArr[T array.Elem] struct {
	a *array.Array[T]
	s [4]int
}

func newNCHW[T array.Elem](g *dgen, s [4]int) nchwArr[T] {
	return nchwArr[T]{layoutOf[T](g, []int{s[3], s[2], s[1], s[0]}), s}
}

func (o nchwArr[T]) coords(i [4]int) []int {
	return []int{o.a.Dim(0).Min + i[3], o.a.Dim(1).Min + i[2], o.a.Dim(2).Min + i[1], o.a.Dim(3).Min + i[0]}
}

func (o nchwArr[T]) fill(t *testing.T, f func(i [4]int) T) {
	v, err := o.a.Host()
	if err != nil {
		t.Fatal(err)
	}
	each4(o.s, func(i [4]int) { v.Set(f(i), o.coords(i)...) })
}

func (o nchwArr[T]) get(t *testing.T) map[[4]int]T {
	v, err := o.a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	m := map[[4]int]T{}
	each4(o.s, func(i [4]int) { m[i] = v.At(o.coords(i)...) })
	return m
}

func each4(s [4]int, f func(i [4]int)) {
	for a := 0; a < s[0]; a++ {
		for b := 0; b < s[1]; b++ {
			for c := 0; c < s[2]; c++ {
				for d := 0; d < s[3]; d++ {
					f([4]int{a, b, c, d})
				}
			}
		}
	}
}

// The host model: gorgonia v0.9.18's loops (op_nn.go), scatter form.

func modelIm2Col[T Float](x map[[4]int]T, s [4]int, g Conv2D) map[[4]int]T {
	g = g.norm()
	oh, ow := g.Out(s[2], s[3])
	out := map[[4]int]T{}
	for b := 0; b < s[0]; b++ {
		for r := 0; r < oh; r++ {
			for c := 0; c < ow; c++ {
				q := 0
				for ch := 0; ch < s[1]; ch++ {
					for kr := 0; kr < g.Kernel[0]; kr++ {
						for kc := 0; kc < g.Kernel[1]; kc++ {
							ih, iw := -g.Pad[0]+kr*g.Dilation[0]+r*g.Stride[0], -g.Pad[1]+kc*g.Dilation[1]+c*g.Stride[1]
							var v T
							if ih >= 0 && ih < s[2] && iw >= 0 && iw < s[3] {
								v = x[[4]int{b, ch, ih, iw}]
							}
							out[[4]int{b, r, c, q}] = v
							q++
						}
					}
				}
			}
		}
	}
	return out
}

func modelCol2Im[T Float](col map[[4]int]T, s [4]int, g Conv2D) map[[4]int]T {
	g = g.norm()
	oh, ow := g.Out(s[2], s[3])
	im := map[[4]int]T{}
	each4(s, func(i [4]int) { im[i] = 0 })
	for b := 0; b < s[0]; b++ {
		for r := 0; r < oh; r++ {
			for c := 0; c < ow; c++ {
				q := 0
				for ch := 0; ch < s[1]; ch++ {
					for kr := 0; kr < g.Kernel[0]; kr++ {
						for kc := 0; kc < g.Kernel[1]; kc++ {
							ih, iw := -g.Pad[0]+kr*g.Dilation[0]+r*g.Stride[0], -g.Pad[1]+kc*g.Dilation[1]+c*g.Stride[1]
							if ih >= 0 && ih < s[2] && iw >= 0 && iw < s[3] {
								im[[4]int{b, ch, ih, iw}] += col[[4]int{b, r, c, q}]
							}
							q++
						}
					}
				}
			}
		}
	}
	return im
}

func modelMaxPool[T Float](x map[[4]int]T, s [4]int, g Pool2D) (map[[4]int]T, map[[4]int]int32) {
	g = g.norm()
	oh, ow := g.Out(s[2], s[3])
	out, idx := map[[4]int]T{}, map[[4]int]int32{}
	each4([4]int{s[0], s[1], oh, ow}, func(o [4]int) {
		m, at := lowest[T](), -1
		h0, w0 := o[2]*g.Stride[0]-g.Pad[0], o[3]*g.Stride[1]-g.Pad[1]
		for ih := max(h0, 0); ih < min(h0+g.Kernel[0], s[2]); ih++ {
			for iw := max(w0, 0); iw < min(w0+g.Kernel[1], s[3]); iw++ {
				if v := x[[4]int{o[0], o[1], ih, iw}]; v > m {
					m, at = v, ih*s[3]+iw
				}
			}
		}
		out[o], idx[o] = m, int32(at)
	})
	return out, idx
}

func modelPoolBack[T Float](dy map[[4]int]T, idx map[[4]int]int32, s [4]int, g Pool2D) map[[4]int]T {
	g = g.norm()
	oh, ow := g.Out(s[2], s[3])
	dx := map[[4]int]T{}
	each4(s, func(i [4]int) { dx[i] = 0 })
	each4([4]int{s[0], s[1], oh, ow}, func(o [4]int) {
		if k := idx[o]; k >= 0 {
			dx[[4]int{o[0], o[1], int(k) / s[3], int(k) % s[3]}] += dy[o]
		}
	})
	return dx
}

func convDevices(t *testing.T) []device.Device {
	devs := []device.Device{nil, sim.NewCompute("conv", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	} else {
		t.Logf("no OpenCL device: %v", err)
	}
	if d, err := cuda.Default(); err == nil && device.BuildsOpenCLC(d.Caps()) {
		devs = append(devs, d)
	}
	return devs
}

// TestConvFamily: Im2Col, Col2Im, MaxPool2D and MaxPool2DBackward over
// drawn shapes, windows and layouts give the host model's values bit for
// bit, on the host (no device) and, with operands resident on a device,
// there: one launch each, no transfer. Seeded by the clock (logged).
func TestConvFamily(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, d := range convDevices(t) {
		name := "host"
		if d != nil {
			name = d.Name()
		}
		t.Run(name, func(t *testing.T) {
			convCases[float32](t, d, seed)
			if k, ok := d.(device.Kernels); !ok || k.Caps().FP64 {
				convCases[float64](t, d, seed+1)
			}
		})
	}
}

func convCases[T Float](t *testing.T, d device.Device, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 33))
	ran := 0
	defer func() {
		if ran == 0 {
			t.Errorf("%T: no case ran", T(0))
		}
		t.Logf("%T: %d cases", T(0), ran)
	}()
	for c := range 6 {
		g := &dgen{tb: t, r: r, d: d}
		s := [4]int{1 + r.IntN(2), 1 + r.IntN(3), 1 + r.IntN(7), 1 + r.IntN(7)}
		cw := Conv2D{Kernel: [2]int{1 + r.IntN(3), 1 + r.IntN(3)}, Pad: [2]int{r.IntN(3), r.IntN(3)},
			Stride: [2]int{r.IntN(4), 1 + r.IntN(3)}, Dilation: [2]int{1 + r.IntN(2), r.IntN(3)}}
		pw := Pool2D{Kernel: [2]int{1 + r.IntN(3), 1 + r.IntN(3)}, Pad: [2]int{r.IntN(2), r.IntN(2)}, Stride: [2]int{r.IntN(3), 1 + r.IntN(3)}}
		pw.Pad[0], pw.Pad[1] = min(pw.Pad[0], pw.Kernel[0]-1), min(pw.Pad[1], pw.Kernel[1]-1)
		oh, ow := cw.Out(s[2], s[3])
		ph, pww := pw.Out(s[2], s[3])
		if oh < 1 || ow < 1 || ph < 1 || pww < 1 {
			continue
		}
		ran++
		what := fmt.Sprintf("case %d %T x%v conv %+v pool %+v", c, T(0), s, cw, pw)
		vals := func(i [4]int) T { return T(r.IntN(9)-4) + T(r.IntN(4))/4 } // small: exact sums, ties
		x := newNCHW[T](g, s)
		x.fill(t, vals)
		K := s[1] * cw.Kernel[0] * cw.Kernel[1]
		col := newNCHW[T](g, [4]int{s[0], oh, ow, K})
		col.fill(t, vals)
		dy := newNCHW[T](g, [4]int{s[0], s[1], ph, pww})
		dy.fill(t, vals)
		xm, colm, dym := x.get(t), col.get(t), dy.get(t)
		outs := []nchwArr[T]{newNCHW[T](g, [4]int{s[0], oh, ow, K}), newNCHW[T](g, s), newNCHW[T](g, [4]int{s[0], s[1], ph, pww}), newNCHW[T](g, s)}
		idx := newNCHW[int32](g, [4]int{s[0], s[1], ph, pww})
		if d != nil {
			for _, a := range []*array.Array[T]{x.a, col.a, dy.a, outs[0].a, outs[1].a, outs[2].a, outs[3].a} {
				setResT(g, resDevDirty, a)
			}
			if err := On(d, idx.a); err != nil {
				t.Fatal(err)
			}
		}
		run := func(op string, f func() error) {
			var before device.Stats
			if d != nil {
				before = d.Stats()
			}
			if err := f(); err != nil {
				t.Fatalf("%s %s: %v", what, op, err)
			}
			if d != nil {
				st := d.Stats().Sub(before)
				if st.Launches != 1 || st.H2DCalls != 0 || st.D2HCalls != 0 {
					t.Fatalf("%s %s on %s: %d launches, %d H2D, %d D2H; want 1 launch, no transfer", what, op, d.Name(), st.Launches, st.H2DCalls, st.D2HCalls)
				}
				if !outs[0].a.DeviceDirty() && op == "Im2Col" {
					t.Fatalf("%s: Im2Col's result is not device-dirty", what)
				}
			}
		}
		run("Im2Col", func() error { return Im2Col(outs[0].a, x.a, cw) })
		run("Col2Im", func() error { return Col2Im(outs[1].a, col.a, cw) })
		run("MaxPool2D", func() error { return MaxPool2D(outs[2].a, idx.a, x.a, pw) })
		run("MaxPool2DBackward", func() error { return MaxPool2DBackward(outs[3].a, dy.a, idx.a, pw) })
		pm, im := modelMaxPool(xm, s, pw)
		wants := []map[[4]int]T{modelIm2Col(xm, s, cw), modelCol2Im(colm, s, cw), pm, modelPoolBack(dym, im, s, pw)}
		for k, o := range outs {
			got := o.get(t)
			for i, w := range wants[k] {
				if math.Float64bits(float64(got[i])) != math.Float64bits(float64(w)) {
					t.Fatalf("%s %s at %v: %v, want %v (layouts %v)", what, []string{"Im2Col", "Col2Im", "MaxPool2D", "MaxPool2DBackward"}[k], i, got[i], w, g.log)
				}
			}
		}
		gi := idx.get(t)
		for i, w := range im {
			if gi[i] != w {
				t.Fatalf("%s MaxPool2D index at %v: %d, want %d", what, i, gi[i], w)
			}
		}
	}
}

// TestConvShapes: wrong shapes and windows panic with array.ErrShape
// naming the operand.
func TestConvShapes(t *testing.T) {
	x := array.Zeros[float32](1, 2, 5, 5)
	mustPanicShape(t, func() { _ = Im2Col(array.Zeros[float32](1, 3, 3, 17), x, Conv2D{Kernel: [2]int{3, 3}}) }, "(1, 3, 3, 18)")
	mustPanicShape(t, func() {
		_ = Im2Col(array.Zeros[float32](1, 3, 3, 18), array.Zeros[float32](2, 5, 5), Conv2D{Kernel: [2]int{3, 3}})
	}, "4-D")
	mustPanicShape(t, func() { _ = Im2Col(array.Zeros[float32](1, 3, 3, 18), x, Conv2D{}) }, "Kernel ≥ 1")
	mustPanicShape(t, func() {
		_ = MaxPool2D(array.Zeros[float32](1, 2, 2, 2), array.Zeros[int32](1, 2, 2, 3), x, Pool2D{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}})
	}, "idx")
}

// TestConvCUDATranslation: conv.cl translates for device/cuda
// (internal/clcuda) into C++ that g++ parses, for float32 and float64 —
// TestCUDATranslation's check for this program.
func TestConvCUDATranslation(t *testing.T) {
	if clcuda.GCC() == "" {
		t.Skip("no g++ to parse the translations")
	}
	for _, ty := range []string{"float", "double"} {
		p, err := clcuda.Translate("#define T "+ty+"\n"+clConv, "-DFP64")
		if err == nil {
			err = clcuda.CheckWithGCC(p)
		}
		if err != nil {
			t.Errorf("conv %s: %v", ty, err)
		}
	}
}

// FuzzConvAdjoint: for drawn shapes and windows, Col2Im is Im2Col's
// adjoint (⟨Im2Col(x), c⟩ = ⟨x, Col2Im(c)⟩, exact on small integers) and
// MaxPool2DBackward of ones counts how often each element is a window's
// argmax (their sum is the number of windows that chose one).
func FuzzConvAdjoint(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(5), uint8(7))
	f.Add(uint64(2), uint8(1), uint8(1), uint8(1))
	f.Add(uint64(3), uint8(2), uint8(9), uint8(4))
	f.Fuzz(func(t *testing.T, seed uint64, c, h, w uint8) {
		r := rand.New(rand.NewPCG(seed, 5))
		s := [4]int{1 + r.IntN(2), 1 + int(c)%3, 1 + int(h)%9, 1 + int(w)%9}
		cw := Conv2D{Kernel: [2]int{1 + r.IntN(3), 1 + r.IntN(3)}, Pad: [2]int{r.IntN(3), r.IntN(3)},
			Stride: [2]int{1 + r.IntN(3), 1 + r.IntN(3)}, Dilation: [2]int{1 + r.IntN(2), 1 + r.IntN(2)}}
		oh, ow := cw.Out(s[2], s[3])
		if oh < 1 || ow < 1 {
			return
		}
		K := s[1] * cw.Kernel[0] * cw.Kernel[1]
		draw := func(shape ...int) *array.Array[float64] {
			a := array.Zeros[float64](shape...)
			v, _ := a.Host()
			for i := range v.Data() {
				v.Data()[i] = float64(r.IntN(7) - 3)
			}
			return a
		}
		x, cc := draw(s[0], s[1], s[2], s[3]), draw(s[0], oh, ow, K)
		col, im := array.Zeros[float64](s[0], oh, ow, K), array.Zeros[float64](s[0], s[1], s[2], s[3])
		if err := Im2Col(col, x, cw); err != nil {
			t.Fatal(err)
		}
		if err := Col2Im(im, cc, cw); err != nil {
			t.Fatal(err)
		}
		dot := func(a, b *array.Array[float64]) float64 {
			av, _ := a.HostReadOnly()
			bv, _ := b.HostReadOnly()
			var d float64
			for i, x := range av.Data() {
				d += x * bv.Data()[i]
			}
			return d
		}
		if l, rr := dot(col, cc), dot(x, im); l != rr {
			t.Fatalf("x%v %+v: ⟨Im2Col(x), c⟩ = %v, ⟨x, Col2Im(c)⟩ = %v", s, cw, l, rr)
		}
		pw := Pool2D{Kernel: cw.Kernel, Pad: [2]int{min(cw.Pad[0], cw.Kernel[0]-1), min(cw.Pad[1], cw.Kernel[1]-1)}, Stride: cw.Stride}
		ph, pww := pw.Out(s[2], s[3])
		y, idx := array.Zeros[float64](s[0], s[1], ph, pww), array.Zeros[int32](s[0], s[1], ph, pww)
		if err := MaxPool2D(y, idx, x, pw); err != nil {
			t.Fatal(err)
		}
		dx := array.Zeros[float64](s[0], s[1], s[2], s[3])
		if err := MaxPool2DBackward(dx, array.Full[float64](1, s[0], s[1], ph, pww), idx, pw); err != nil {
			t.Fatal(err)
		}
		iv, _ := idx.HostReadOnly()
		chosen := 0
		for _, k := range iv.Data() {
			if k >= 0 {
				chosen++
			}
		}
		if sum := dot(dx, array.Full[float64](1, s[0], s[1], s[2], s[3])); sum != float64(chosen) {
			t.Fatalf("x%v %+v: the pooled gradient of ones sums to %v, want %d windows", s, pw, sum, chosen)
		}
	})
}
