package ops

import (
	"fmt"
	"math"

	"github.com/resident-go/resident/array"
)

// Conv2D is the window of a 2-D convolution over NCHW images, in
// gorgonia's conventions (gorgonia.Im2Col, Conv2d): index 0 is the height,
// 1 the width. A window at output (oh, ow) reads input row
// oh·Stride[0] − Pad[0] + kr·Dilation[0] for kr in [0, Kernel[0]), and
// likewise for columns; rows and columns outside the image read 0. A zero
// Stride or Dilation means 1.
type Conv2D struct {
	Kernel, Pad, Stride, Dilation [2]int
}

// Out is the output height and width of images of h rows and w columns.
func (g Conv2D) Out(h, w int) (oh, ow int) {
	g = g.norm()
	oh = (h+2*g.Pad[0]-(g.Dilation[0]*(g.Kernel[0]-1)+1))/g.Stride[0] + 1
	ow = (w+2*g.Pad[1]-(g.Dilation[1]*(g.Kernel[1]-1)+1))/g.Stride[1] + 1
	return
}

func (g Conv2D) norm() Conv2D {
	for i := range 2 {
		if g.Stride[i] == 0 {
			g.Stride[i] = 1
		}
		if g.Dilation[i] == 0 {
			g.Dilation[i] = 1
		}
	}
	return g
}

func (g Conv2D) check(op string) Conv2D {
	g = g.norm()
	for i := range 2 {
		if g.Kernel[i] < 1 || g.Pad[i] < 0 || g.Stride[i] < 0 || g.Dilation[i] < 0 {
			panic(fmt.Errorf("%w: ops.%s: window %+v: want Kernel ≥ 1, Pad ≥ 0, Stride and Dilation ≥ 0 (0 means 1)", array.ErrShape, op, g))
		}
	}
	return g
}

// Pool2D is the window of a 2-D pooling over NCHW images, in gorgonia's
// conventions (gorgonia.MaxPool2D with a 2-element pad): index 0 is the
// height, 1 the width; the window at output (oh, ow) covers input rows
// [oh·Stride[0] − Pad[0], … + Kernel[0]) clipped to the image. A zero
// Stride means 1.
type Pool2D struct {
	Kernel, Pad, Stride [2]int
}

// Out is the output height and width of images of h rows and w columns.
func (g Pool2D) Out(h, w int) (oh, ow int) {
	g = g.norm()
	return (h+2*g.Pad[0]-g.Kernel[0])/g.Stride[0] + 1, (w+2*g.Pad[1]-g.Kernel[1])/g.Stride[1] + 1
}

func (g Pool2D) norm() Pool2D {
	for i := range 2 {
		if g.Stride[i] == 0 {
			g.Stride[i] = 1
		}
	}
	return g
}

func (g Pool2D) check(op string) Pool2D {
	g = g.norm()
	for i := range 2 {
		if g.Kernel[i] < 1 || g.Pad[i] < 0 || g.Stride[i] < 0 {
			panic(fmt.Errorf("%w: ops.%s: window %+v: want Kernel ≥ 1, Pad ≥ 0, Stride ≥ 0 (0 means 1)", array.ErrShape, op, g))
		}
	}
	return g
}

// convGeom is what the kernels read: NCHW extents, window, output size and
// the operands' strides (Halide order: W, H, C, N) and element offsets.
// All int64, so Go and OpenCL agree on its layout (conv_t in cl/conv.cl).
type convGeom struct {
	n, c, h, w int64
	kh, kw     int64
	ph, pw     int64
	sh, sw     int64
	dh, dw     int64
	oh, ow     int64
	st         [3][4]int64 // per operand: dst, then inputs
	off        [3]int64
	total      int64 // work items
}

// convOperands checks the family's operands in its order, before any
// shape panics: closed ones (dst, the other outputs, the inputs) are an
// error wrapping device.ErrClosed, a read-only output one wrapping
// array.ErrReadOnly.
func convOperands(op string, dst *array.Raw, outs []*array.Raw, ins ...*array.Raw) error {
	if err := closedOperand(op, dst, outs...); err != nil {
		return err
	}
	if err := closedOperand(op, nil, ins...); err != nil {
		return err
	}
	if err := writable(op, dst); err != nil {
		return err
	}
	for _, o := range outs {
		if err := writable(op, o); err != nil {
			return err
		}
	}
	return nil
}

// mustShape panics unless a has shape want (NumPy order).
func mustShape[T array.Elem](op, name string, a *array.Array[T], want ...int) {
	s := a.Shape()
	ok := len(s) == len(want)
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] == want[i]
	}
	if !ok {
		panic(fmt.Errorf("%w: ops.%s: %s has shape %s, want %s", array.ErrShape, op, name, pyShape(s), pyShape(want)))
	}
}

func nchw[T array.Elem](op, name string, a *array.Array[T]) (n, c, h, w int) {
	s := a.Shape()
	if len(s) != 4 {
		panic(fmt.Errorf("%w: ops.%s: %s has shape %s; want 4-D (N, C, H, W)", array.ErrShape, op, name, pyShape(s)))
	}
	return s[0], s[1], s[2], s[3]
}

func stridesOf[T array.Elem](a *array.Array[T]) (st [4]int64) {
	for i := range 4 {
		st[i] = int64(a.Dim(i).Stride)
	}
	return
}

func convGeomOf(g Conv2D, n, c, h, w int) convGeom {
	oh, ow := g.Out(h, w)
	return convGeom{n: int64(n), c: int64(c), h: int64(h), w: int64(w), kh: int64(g.Kernel[0]), kw: int64(g.Kernel[1]),
		ph: int64(g.Pad[0]), pw: int64(g.Pad[1]), sh: int64(g.Stride[0]), sw: int64(g.Stride[1]),
		dh: int64(g.Dilation[0]), dw: int64(g.Dilation[1]), oh: int64(oh), ow: int64(ow)}
}

func poolGeomOf(g Pool2D, n, c, h, w int) convGeom {
	oh, ow := g.Out(h, w)
	return convGeom{n: int64(n), c: int64(c), h: int64(h), w: int64(w), kh: int64(g.Kernel[0]), kw: int64(g.Kernel[1]),
		ph: int64(g.Pad[0]), pw: int64(g.Pad[1]), sh: int64(g.Stride[0]), sw: int64(g.Stride[1]),
		dh: 1, dw: 1, oh: int64(oh), ow: int64(ow)}
}

// Im2Col stores in dst the windows of x (N, C, H, W) that a convolution
// with window g reads, one row per output position: dst has shape
// (N, OH, OW, C·Kernel[0]·Kernel[1]) (OH, OW = g.Out(H, W)), and column
// (ch·Kernel[0] + kr)·Kernel[1] + kc of row (b, oh, ow) holds
// x(b, ch, oh·Stride[0] − Pad[0] + kr·Dilation[0], ow·Stride[1] − Pad[1] +
// kc·Dilation[1]), 0 outside the image — gorgonia's im2col, so a
// convolution is this times the filter reshaped to (F, C·KH·KW)
// transposed. float32 and float64; any views. It runs where the package's
// placement rule puts an op with these operands; a wrong shape panics
// with array.ErrShape.
func Im2Col[T Float](dst, x *array.Array[T], g Conv2D) error {
	if err := convOperands("Im2Col", rawOf(dst), nil, rawOf(x)); err != nil {
		return err
	}
	g = g.check("Im2Col")
	n, c, h, w := nchw("Im2Col", "x", x)
	cg := convGeomOf(g, n, c, h, w)
	mustShape("Im2Col", "dst", dst, n, int(cg.oh), int(cg.ow), c*g.Kernel[0]*g.Kernel[1])
	if ok, err := deviceConv(convIm2Col, cg, dst, x, nil); ok {
		return err
	}
	if dst.Len() == 0 {
		return nil
	}
	xv, err := x.HostReadOnly()
	if err != nil {
		return err
	}
	dv, err := outHost(dst)
	if err != nil {
		return err
	}
	im2colHost(cg, stridesOf(dst), stridesOf(x), dv, xv.Data())
	return nil
}

func im2colHost[T Float](g convGeom, sd, sx [4]int64, d, x []T) {
	kk := g.kh * g.kw
	for b := int64(0); b < g.n; b++ {
		for oh := int64(0); oh < g.oh; oh++ {
			for ow := int64(0); ow < g.ow; ow++ {
				row := b*sd[3] + oh*sd[2] + ow*sd[1]
				for ch := int64(0); ch < g.c; ch++ {
					for kr := int64(0); kr < g.kh; kr++ {
						ih := oh*g.sh - g.ph + kr*g.dh
						for kc := int64(0); kc < g.kw; kc++ {
							iw := ow*g.sw - g.pw + kc*g.dw
							var v T
							if ih >= 0 && ih < g.h && iw >= 0 && iw < g.w {
								v = x[b*sx[3]+ch*sx[2]+ih*sx[1]+iw*sx[0]]
							}
							d[row+(ch*kk+kr*g.kw+kc)*sd[0]] = v
						}
					}
				}
			}
		}
	}
}

// Col2Im is Im2Col's adjoint (its gradient): it stores in dst (N, C, H,
// W) the sum, for every element of the image, of the elements of col
// (N, OH, OW, C·Kernel[0]·Kernel[1]) that Im2Col would copy from it,
// overwriting dst (gorgonia's col2im). Each element gathers its terms
// (no atomics on a device) in the order gorgonia's loop adds them.
// float32 and float64; any views.
func Col2Im[T Float](dst, col *array.Array[T], g Conv2D) error {
	if err := convOperands("Col2Im", rawOf(dst), nil, rawOf(col)); err != nil {
		return err
	}
	g = g.check("Col2Im")
	n, c, h, w := nchw("Col2Im", "dst", dst)
	cg := convGeomOf(g, n, c, h, w)
	mustShape("Col2Im", "col", col, n, int(cg.oh), int(cg.ow), c*g.Kernel[0]*g.Kernel[1])
	if ok, err := deviceConv(convCol2Im, cg, dst, col, nil); ok {
		return err
	}
	if dst.Len() == 0 {
		return nil
	}
	cv, err := col.HostReadOnly()
	if err != nil {
		return err
	}
	dv, err := outHost(dst)
	if err != nil {
		return err
	}
	col2imHost(cg, stridesOf(dst), stridesOf(col), dv, cv.Data())
	return nil
}

// col2imHost gathers: for image element (b, ch, ih, iw), rows kr from the
// last down (output rows ascending), then columns likewise.
func col2imHost[T Float](g convGeom, sd, sc [4]int64, d, col []T) {
	for b := int64(0); b < g.n; b++ {
		for ch := int64(0); ch < g.c; ch++ {
			for ih := int64(0); ih < g.h; ih++ {
				for iw := int64(0); iw < g.w; iw++ {
					d[b*sd[3]+ch*sd[2]+ih*sd[1]+iw*sd[0]] = col2imAt(g, sc, col, b, ch, ih, iw)
				}
			}
		}
	}
}

func col2imAt[T Float](g convGeom, sc [4]int64, col []T, b, ch, ih, iw int64) T {
	var s T
	for kr := g.kh - 1; kr >= 0; kr-- {
		th := ih + g.ph - kr*g.dh
		if th < 0 || th%g.sh != 0 || th/g.sh >= g.oh {
			continue
		}
		oh := th / g.sh
		for kc := g.kw - 1; kc >= 0; kc-- {
			tw := iw + g.pw - kc*g.dw
			if tw < 0 || tw%g.sw != 0 || tw/g.sw >= g.ow {
				continue
			}
			ow := tw / g.sw
			s += col[b*sc[3]+oh*sc[2]+ow*sc[1]+((ch*g.kh+kr)*g.kw+kc)*sc[0]]
		}
	}
	return s
}

// MaxPool2D stores in dst (N, C, OH, OW), OH, OW = g.Out(H, W), the
// largest element of each window of x (N, C, H, W) and in idx the
// position of the first such element in its image plane (row·W + column),
// as gorgonia's MaxPool2D does: a window starts at −MaxFloat and index −1
// and takes an element only when it is larger, so a window of NaNs or
// −Inf keeps those. MaxPool2DBackward uses idx. float32 and float64; any
// views.
func MaxPool2D[T Float](dst *array.Array[T], idx *array.Array[int32], x *array.Array[T], g Pool2D) error {
	if err := convOperands("MaxPool2D", nil, []*array.Raw{rawOf(dst), rawOf(idx)}, rawOf(x)); err != nil {
		return err
	}
	g = g.check("MaxPool2D")
	n, c, h, w := nchw("MaxPool2D", "x", x)
	pg := poolGeomOf(g, n, c, h, w)
	mustShape("MaxPool2D", "dst", dst, n, c, int(pg.oh), int(pg.ow))
	mustShape("MaxPool2D", "idx", idx, n, c, int(pg.oh), int(pg.ow))
	if ok, err := deviceConv(convMaxPool, pg, dst, x, idx); ok {
		return err
	}
	if dst.Len() == 0 {
		return nil
	}
	xv, err := x.HostReadOnly()
	if err != nil {
		return err
	}
	dv, err := outHost(dst)
	if err != nil {
		return err
	}
	iv, err := outHost(idx)
	if err != nil {
		return err
	}
	maxPoolHost(pg, stridesOf(dst), stridesOf(x), stridesOf(idx), dv, xv.Data(), iv)
	return nil
}

func lowest[T Float]() T {
	var z T
	switch p := any(&z).(type) {
	case *float32:
		*p = -math.MaxFloat32
	case *float64:
		*p = -math.MaxFloat64
	}
	return z
}

func maxPoolHost[T Float](g convGeom, sd, sx, si [4]int64, d, x []T, idx []int32) {
	lo := lowest[T]()
	for b := int64(0); b < g.n; b++ {
		for ch := int64(0); ch < g.c; ch++ {
			for oh := int64(0); oh < g.oh; oh++ {
				for ow := int64(0); ow < g.ow; ow++ {
					m, at := lo, int64(-1)
					h0, w0 := oh*g.sh-g.ph, ow*g.sw-g.pw
					for ih := max(h0, 0); ih < min(h0+g.kh, g.h); ih++ {
						for iw := max(w0, 0); iw < min(w0+g.kw, g.w); iw++ {
							if v := x[b*sx[3]+ch*sx[2]+ih*sx[1]+iw*sx[0]]; v > m {
								m, at = v, ih*g.w+iw
							}
						}
					}
					d[b*sd[3]+ch*sd[2]+oh*sd[1]+ow*sd[0]] = m
					idx[b*si[3]+ch*si[2]+oh*si[1]+ow*si[0]] = int32(at)
				}
			}
		}
	}
}

// MaxPool2DBackward stores in dx (N, C, H, W) the gradient of MaxPool2D:
// each element of dy (N, C, OH, OW) added at the position idx (from
// MaxPool2D with the same g) names in its image plane, every other element
// 0, overwriting dx (gorgonia's maxPoolDiffOp). Each element of dx
// gathers its terms (no atomics on a device) in output order, as
// gorgonia's scatter adds them; an index of −1 adds nothing.
func MaxPool2DBackward[T Float](dx, dy *array.Array[T], idx *array.Array[int32], g Pool2D) error {
	if err := convOperands("MaxPool2DBackward", rawOf(dx), nil, rawOf(dy), rawOf(idx)); err != nil {
		return err
	}
	g = g.check("MaxPool2DBackward")
	n, c, h, w := nchw("MaxPool2DBackward", "dx", dx)
	pg := poolGeomOf(g, n, c, h, w)
	mustShape("MaxPool2DBackward", "dy", dy, n, c, int(pg.oh), int(pg.ow))
	mustShape("MaxPool2DBackward", "idx", idx, n, c, int(pg.oh), int(pg.ow))
	if ok, err := deviceConv(convMaxPoolBack, pg, dx, dy, idx); ok {
		return err
	}
	if dx.Len() == 0 {
		return nil
	}
	yv, err := dy.HostReadOnly()
	if err != nil {
		return err
	}
	iv, err := idx.HostReadOnly()
	if err != nil {
		return err
	}
	dv, err := outHost(dx)
	if err != nil {
		return err
	}
	sd, sy, si := stridesOf(dx), stridesOf(dy), stridesOf(idx)
	y, ix, d := yv.Data(), iv.Data(), dv
	for b := int64(0); b < pg.n; b++ {
		for ch := int64(0); ch < pg.c; ch++ {
			for ih := int64(0); ih < pg.h; ih++ {
				for iw := int64(0); iw < pg.w; iw++ {
					d[b*sd[3]+ch*sd[2]+ih*sd[1]+iw*sd[0]] = poolBackAt(pg, sy, si, y, ix, b, ch, ih, iw)
				}
			}
		}
	}
	return nil
}

// poolBackAt sums dy over the windows that hold (ih, iw) and chose it, in
// output order.
func poolBackAt[T Float](g convGeom, sy, si [4]int64, y []T, idx []int32, b, ch, ih, iw int64) T {
	var s T
	want := int32(ih*g.w + iw)
	// windows whose rows [oh·sh − ph, … + kh) hold ih
	oh0 := max(0, (ih+g.ph-g.kh)/g.sh)
	ow0 := max(0, (iw+g.pw-g.kw)/g.sw)
	for oh := oh0; oh < g.oh && oh*g.sh-g.ph <= ih; oh++ {
		if oh*g.sh-g.ph+g.kh <= ih {
			continue
		}
		for ow := ow0; ow < g.ow && ow*g.sw-g.pw <= iw; ow++ {
			if ow*g.sw-g.pw+g.kw <= iw {
				continue
			}
			if idx[b*si[3]+ch*si[2]+oh*si[1]+ow*si[0]] == want {
				s += y[b*sy[3]+ch*sy[2]+oh*sy[1]+ow*sy[0]]
			}
		}
	}
	return s
}
