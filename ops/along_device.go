package ops

import (
	_ "embed"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/place"
)

// clAlong is the program of the ops along a dimension (cl/along.cl).
//
//go:embed cl/along.cl
var clAlong string

// alongProgram is clAlong for element type T on s's device.
func alongProgram[T array.Elem](s devRef) (*clProgram, error) {
	t := array.TypeOf[T]()
	ct, ok := clTypeOf(t)
	if !ok {
		return nil, unsupported("device", t, "a scalar element type")
	}
	return s.program(progKey{kind: "along", t: t}, func() string {
		return ct.defines("T", s.fp64) + clCommon + clAlong
	})
}

// groupSize is the work-group size of a line of L elements: a power of
// two, at most the device's reduction size.
func (s devRef) groupSize(L int) int {
	if L <= 1 {
		return 1
	}
	return min(s.wg, 1<<bits.Len(uint(L-1)))
}

// lineArg is the nd_t of the lines' starts: operand 0 dst, 1 a, 2 a
// second dst (their element offsets are the caller's to set).
func lineArg(ls *lineSet) (so ndArg, ok bool) {
	ok = so.fromNest(&ls.n)
	return so, ok
}

// lineReady readies dst and a on s for a kernel over ls's lines: their
// buffers, and so, the lines' starts at their offsets. ok is false, with
// nothing moved, when the lines do not fit an nd_t.
func lineReady[D, T array.Elem](s devRef, op string, ls *lineSet, dst *array.Array[D], a *array.Array[T]) (mems [3]device.Buffer, so ndArg, ok bool, err error) {
	if so, ok = lineArg(ls); !ok {
		return
	}
	var offs [3]int
	if mems, offs, err = readyMixed(s, op, dst, a); err != nil {
		return
	}
	so.off[0], so.off[1] = int64(offs[0]), int64(offs[1])
	return
}

// lineOf is the nd_t of one line of ls (sr in along.cl).
func lineOf(ls *lineSet) ndArg {
	sr := ndArg{n: int64(ls.L), rank: 1}
	sr.ext[0], sr.st[1][0] = int64(ls.L), int64(ls.st[1])
	return sr
}

func deviceStat[D, T array.Elem](op statOp, ls *lineSet, dim int, dst *array.Array[D], a *array.Array[T], ddof int) (bool, error) {
	name := statNames[op]
	k, m, err := target(name, [2]array.Type{array.TypeOf[D](), array.TypeOf[T]()}, rawOf(dst), rawOf(a))
	if m != nil {
		return onHost1(m, name, dst, a, func(vd *array.Array[D], va *array.Array[T]) error {
			return statDim(op, vd, va, dim, ddof)
		})
	}
	if k == nil {
		return err != nil, err
	}
	if ls.lines() == 0 {
		return true, nil
	}
	s := stateOf(k)
	mems, so, ok, err := lineReady(s, name, ls, dst, a)
	if !ok || err != nil {
		return ok, err
	}
	sr := lineOf(ls)
	return wroteOnDevice(dst.Raw(), statLaunch[T](s, op, mems[0], mems[1], &so, &sr, ddof))
}

// statLaunch enqueues the stat or count kernel: one work-group per
// output of so, over the elements sr.
func statLaunch[T array.Elem](s devRef, op statOp, dmem, amem device.Buffer, so, sr *ndArg, ddof int) error {
	p, err := alongProgram[T](s)
	if err != nil {
		return err
	}
	ls := s.groupSize(int(sr.n))
	global := []int{int(so.n) * ls}
	if op >= stCount {
		return s.launch(p, "count", global, []int{ls}, dmem, dmem, amem, so.bytes(), sr.bytes(), int32(op-stCount), device.Local(ls*8))
	}
	return s.launch(p, "stat", global, []int{ls}, dmem, amem, so.bytes(), sr.bytes(), int32(op), int64(ddof), device.Local(ls*8))
}

// deviceStatAll is statAll on a's device: one work-group over every
// element, its result read back (a blocking read of the scratch, not an
// Array transfer, so not counted in Stats).
func deviceStatAll[T array.Elem](op statOp, a *array.Array[T], ddof int) (float64, bool, error) {
	name := statNames[op] + " over AllDims"
	k, m, err := target(name, [2]array.Type{array.TypeOf[T]()}, nil, rawOf(a))
	if m != nil {
		var v float64
		ok, err := onHostMem(m, name, nil, []*array.Raw{rawOf(a)}, func(mem memFn) error {
			va, err := viewOn(mem, a)
			if err == nil {
				v, err = statAll(op, va, ddof)
			}
			return err
		})
		return v, ok, err
	}
	if k == nil || a.Len() == 0 {
		return 0, err != nil, err
	}
	var n nest
	n.init(name, a)
	n.simplify()
	var sr ndArg
	if !sr.fromNest(&n) {
		return 0, false, nil
	}
	sr.st[1], sr.st[0] = sr.st[0], [clMaxDims]int64{}
	so := ndArg{n: 1, rank: 1}
	so.ext[0] = 1
	s := stateOf(k)
	mems, offs, err := ready(s, name, (*array.Array[T])(nil), a)
	if err != nil {
		return 0, true, err
	}
	so.off[1] = int64(offs[1])
	s.scratchMu.Lock() // until the result is read
	defer s.scratchMu.Unlock()
	scr, err := s.scratchFor(0, 128)
	if err != nil {
		return 0, true, err
	}
	if err := statLaunch[T](s, op, scr, mems[1], &so, &sr, ddof); err != nil {
		return 0, true, err
	}
	var out [8]byte
	if err := k.ReadBytes(out[:], scr, 0); err != nil {
		return 0, true, fmt.Errorf("ops.%s: reading the result: %w", name, err)
	}
	switch op {
	case stCount:
		return float64(*(*int64)(unsafe.Pointer(&out[0]))), true, nil
	case stAny, stAll:
		return float64(out[0]), true, nil
	}
	return f64Of(*(*T)(unsafe.Pointer(&out[0]))), true, nil
}

func deviceScan[T array.Elem](prod bool, ls *lineSet, dim int, dst, a *array.Array[T]) (bool, error) {
	name := "CumSum"
	if prod {
		name = "CumProd"
	}
	k, m, err := target(name, [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a))
	if m != nil {
		return onHost1(m, name, dst, a, func(vd, va *array.Array[T]) error {
			return scan(prod, vd, va, dim)
		})
	}
	if k == nil {
		return err != nil, err
	}
	if ls.lines() == 0 || ls.L == 0 {
		return true, nil
	}
	s := stateOf(k)
	mems, so, ok, err := lineReady(s, name, ls, dst, a)
	if !ok || err != nil {
		return ok, err
	}
	p, err := alongProgram[T](s)
	if err != nil {
		return true, err
	}
	return wroteOnDevice(dst.Raw(), s.launch(p, "scan", []int{s.items(ls.lines())}, s.local, mems[0], mems[1], so.bytes(),
		int64(ls.L), int64(ls.st[1]), int64(ls.st[0]), int32(b2f(prod))))
}

func deviceSoftmax[T array.Elem](ls *lineSet, dim int, dst, a *array.Array[T]) (bool, error) {
	k, m, err := target("Softmax", [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a))
	if m != nil {
		return onHost1(m, "Softmax", dst, a, func(vd, va *array.Array[T]) error {
			return Softmax(vd, va, axisOf(dim))
		})
	}
	if k == nil {
		return err != nil, err
	}
	if ls.lines() == 0 || ls.L == 0 {
		return true, nil
	}
	s := stateOf(k)
	mems, so, ok, err := lineReady(s, "Softmax", ls, dst, a)
	if !ok || err != nil {
		return ok, err
	}
	p, err := alongProgram[T](s)
	if err != nil {
		return true, err
	}
	g := s.groupSize(ls.L)
	return wroteOnDevice(dst.Raw(), s.launch(p, "softmax", []int{ls.lines() * g}, []int{g}, mems[0], mems[1], so.bytes(),
		int64(ls.L), int64(ls.st[1]), int64(ls.st[0]), device.Local(g*8)))
}

// deviceSort runs Sort, ArgSort or TopK on the operands' device: vals and
// idx are operands 0 and 2 of ls (either may be nil).
func deviceSort[T array.Elem](mode sortMode, ls *lineSet, dim int, vals *array.Array[T], idx *array.Array[int64], a *array.Array[T]) (bool, error) {
	name := sortNames[mode]
	var outs []*array.Raw
	if vals != nil {
		outs = append(outs, vals.Raw())
	}
	if idx != nil {
		outs = append(outs, idx.Raw())
	}
	k, m, err := targetOuts(name, array.TypeOf[T](), outs, a.Raw())
	if m != nil {
		// onHostMem readies the first output; a second one gets its
		// allocation here and is marked written after
		if len(outs) == 2 && outs[1].Len() > 0 {
			if err := res().Alloc(outs[1], m); err != nil {
				return true, fmt.Errorf("ops.%s: %w", name, err)
			}
		}
		ok, err := onHostMem(m, name, outs[0], []*array.Raw{a.Raw()}, func(mem memFn) error {
			va, err := viewOn(mem, a)
			if err != nil {
				return err
			}
			vv, err := viewOn(mem, vals)
			if err != nil {
				return err
			}
			vi, err := viewOn(mem, idx)
			if err != nil {
				return err
			}
			switch mode {
			case sortValues:
				return Sort(vv, va, axisOf(dim))
			case sortArgs:
				return ArgSort(vi, va, axisOf(dim))
			}
			return TopK(vv, vi, va, axisOf(dim))
		})
		if err == nil && len(outs) == 2 && outs[1].Len() > 0 {
			err = res().WroteDevice(outs[1], nil)
		}
		return ok, err
	}
	if k == nil {
		return err != nil, err
	}
	if ls.lines() == 0 || ls.k == 0 {
		return true, nil
	}
	s := stateOf(k)
	so, ok := lineArg(ls)
	if !ok {
		return false, nil
	}
	amem, aoff, err := s.prepIn(name, a.Raw())
	if err != nil {
		return true, err
	}
	var vmem, imem device.Buffer
	if vals != nil {
		if vmem, so.off[0], err = outMem(s, name, vals.Raw()); err != nil {
			return true, err
		}
	}
	if idx != nil {
		if imem, so.off[2], err = outMem(s, name, idx.Raw()); err != nil {
			return true, err
		}
	}
	if vmem == 0 {
		vmem = imem
	}
	if imem == 0 {
		imem = vmem
	}
	so.off[1] = int64(aoff)
	p, err := alongProgram[T](s)
	if err != nil {
		return true, err
	}
	L, lines := ls.L, ls.lines()
	P := 1 << bits.Len(uint(L-1))
	if L == 1 {
		P = 1
	}
	slots := lines * P
	s.scratchMu.Lock()
	defer s.scratchMu.Unlock()
	kx, err := s.scratchFor(0, slots*16)
	if err != nil {
		return true, err
	}
	raw, err := s.scratchFor(1, slots*sizeOf[T]())
	if err != nil {
		return true, err
	}
	// keys and indices share scratch 0: the indices from slot lines·P on
	items := []int{s.items(slots)}
	if err := s.launch(p, "sort_load", items, s.local, kx, raw, amem, so.bytes(),
		int64(L), int64(ls.st[1]), int64(P), int32(b2f(mode == sortTop))); err != nil {
		return true, err
	}
	for kk := 2; kk <= P; kk <<= 1 {
		for j := kk >> 1; j > 0; j >>= 1 {
			if err := s.launch(p, "sort_step", items, s.local, kx, int64(lines), int64(P), int64(j), int64(kk)); err != nil {
				return true, err
			}
		}
	}
	fl := 0
	if vals != nil {
		fl |= 1
	}
	if idx != nil {
		fl |= 2
	}
	if err := s.launch(p, "sort_store", []int{s.items(lines * ls.k)}, s.local, vmem, imem, kx, raw, so.bytes(),
		int64(P), int64(ls.k), int64(ls.st[0]), int64(ls.st[2]), int64(ls.min), int32(fl)); err != nil {
		return true, err
	}
	var werr error
	if vals != nil {
		werr = res().WroteDevice(vals.Raw(), nil)
	}
	if idx != nil {
		if e := res().WroteDevice(idx.Raw(), nil); werr == nil {
			werr = e
		}
	}
	return true, werr
}

// targetOuts is target for an op with several outputs (TopK): the same
// rule over all of them.
func targetOuts(op string, t array.Type, outs []*array.Raw, ins ...*array.Raw) (device.Kernels, device.HostMemory, error) {
	if err := closedOperand(op, nil, append(outs, ins...)...); err != nil {
		return nil, nil, err
	}
	for _, o := range outs {
		if err := writable(op, o); err != nil {
			return nil, nil, err
		}
	}
	for _, o := range outs {
		if o.Len() == 0 {
			return nil, nil, nil
		}
	}
	d, err := place.Where(nil, place.Work{Pkg: "ops", Op: op, Outputs: outs, Inputs: ins})
	if err != nil || d == nil {
		return nil, nil, err
	}
	if m, ok := d.(device.HostMemory); ok && m.Caps().Lang == "Go" {
		return nil, m, nil
	}
	if k, ok := d.(device.Kernels); ok && device.BuildsOpenCLC(k.Caps()) && fits(stateOf(k).fp64, t) {
		return k, nil, nil
	}
	return nil, nil, nil
}

// outMem gives a destination an allocation on s's device.
func outMem(s devRef, op string, r *array.Raw) (device.Buffer, int64, error) {
	mem, off, err := s.operandMem(op, r, false)
	return mem, int64(off), err
}
