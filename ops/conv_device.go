package ops

import (
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
)

//go:embed cl/conv.cl
var clConv string

// The convolution family's kernels, in conv.cl.
const (
	convIm2Col = iota
	convCol2Im
	convMaxPool
	convMaxPoolBack
)

var convNames = [...]string{"Im2Col", "Col2Im", "MaxPool2D", "MaxPool2DBackward"}
var convKernels = [...]string{"conv_im2col", "conv_col2im", "conv_maxpool", "conv_maxpool_back"}

func (g *convGeom) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(g)), unsafe.Sizeof(*g))
}

// deviceConv runs op where placement puts it: on a simulated device, the
// host kernel on its memory; on an OpenCL (or CUDA) device, conv.cl. ok
// is false for the host. idx is MaxPool2D's second output, or
// MaxPool2DBackward's third input; nil for the others.
func deviceConv[T Float](op int, g convGeom, dst, a *array.Array[T], idx *array.Array[int32]) (bool, error) {
	name := convNames[op]
	outs := []*array.Raw{dst.Raw()}
	ins := []*array.Raw{a.Raw()}
	if idx != nil && op == convMaxPool {
		outs = append(outs, idx.Raw())
	} else if idx != nil {
		ins = append(ins, idx.Raw())
	}
	k, m, err := targetOuts(name, array.TypeOf[T](), outs, ins...)
	if m != nil {
		if len(outs) == 2 {
			if err := res().Alloc(outs[1], m); err != nil {
				return true, fmt.Errorf("ops.%s: %w", name, err)
			}
		}
		ok, err := onHostMem(m, name, outs[0], ins, func(mem memFn) error {
			vd, err := viewOn(mem, dst)
			if err != nil {
				return err
			}
			va, err := viewOn(mem, a)
			if err != nil {
				return err
			}
			vi, err := viewOn(mem, idx)
			if err != nil {
				return err
			}
			switch op {
			case convIm2Col:
				im2colHost(g, stridesOf(vd), stridesOf(va), hostOut(vd), hostData(va))
			case convCol2Im:
				col2imHost(g, stridesOf(vd), stridesOf(va), hostOut(vd), hostData(va))
			case convMaxPool:
				maxPoolHost(g, stridesOf(vd), stridesOf(va), stridesOf(vi), hostOut(vd), hostData(va), hostOut(vi))
			case convMaxPoolBack:
				return poolBackHost(g, vd, va, vi)
			}
			return nil
		})
		if err == nil && len(outs) == 2 {
			err = res().WroteDevice(outs[1], nil)
		}
		return ok, err
	}
	if k == nil {
		return err != nil, err
	}
	s := stateOf(k)
	var zero T
	p, err := s.program(progKey{kind: "conv", t: array.TypeOf[T]()}, func() string {
		if _, f32 := any(zero).(float32); f32 {
			return "#define T float\n" + clConv
		}
		return "#define T double\n" + clConv
	})
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, name, dst, a)
	if err != nil {
		return true, err
	}
	g.st[0], g.st[1] = stridesOf(dst), stridesOf(a)
	g.off[0], g.off[1] = int64(offs[0]), int64(offs[1])
	args := []any{mems[0], mems[1]}
	if idx != nil {
		imem, ioff, err := s.operandMem(name, idx.Raw(), op != convMaxPool)
		if err != nil {
			return true, err
		}
		g.st[2], g.off[2] = stridesOf(idx), int64(ioff)
		args = append(args, imem)
	}
	if op == convMaxPool {
		args = append(args, lowest[T]())
	}
	switch op {
	case convIm2Col, convMaxPool:
		g.total = g.n * g.oh * g.ow
		if op == convIm2Col {
			g.total *= g.c * g.kh * g.kw
		} else {
			g.total *= g.c
		}
	default:
		g.total = g.n * g.c * g.h * g.w
	}
	if g.total == 0 {
		return true, nil
	}
	args = append(args, g.bytes())
	if err := s.launch(p, convKernels[op], []int{s.items(int(g.total))}, s.local, args...); err != nil {
		return true, err
	}
	werr := res().WroteDevice(dst.Raw(), nil)
	if op == convMaxPool {
		if e := res().WroteDevice(idx.Raw(), nil); werr == nil {
			werr = e
		}
	}
	return true, werr
}

// hostData is the elements of a host-only view from its min corner.
func hostData[T array.Elem](a *array.Array[T]) []T {
	if a == nil || a.Len() == 0 {
		return nil
	}
	v, err := a.HostReadOnly()
	if err != nil {
		panic(err) // a view of device memory is host-only: no sync to fail
	}
	return v.Data()
}

func poolBackHost[T Float](g convGeom, dx, dy *array.Array[T], idx *array.Array[int32]) error {
	sd, sy, si := stridesOf(dx), stridesOf(dy), stridesOf(idx)
	d, y, ix := hostOut(dx), hostData(dy), hostData(idx)
	for b := int64(0); b < g.n; b++ {
		for ch := int64(0); ch < g.c; ch++ {
			for ih := int64(0); ih < g.h; ih++ {
				for iw := int64(0); iw < g.w; iw++ {
					d[b*sd[3]+ch*sd[2]+ih*sd[1]+iw*sd[0]] = poolBackAt(g, sy, si, y, ix, b, ch, ih, iw)
				}
			}
		}
	}
	return nil
}

// hostOut is the writable elements of a host-only view from its min
// corner.
func hostOut[T array.Elem](a *array.Array[T]) []T {
	if a == nil || a.Len() == 0 {
		return nil
	}
	v, err := a.Host()
	if err != nil {
		panic(err)
	}
	return v.Data()
}
