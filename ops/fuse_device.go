package ops

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// fuseMaxLeaves is the most distinct Arrays a fused pass reads: the
// host's loop nest carries maxOps operands, dst first.
const fuseMaxLeaves = maxOps - 1

// fuseRun runs the compiled plan p where the placement rule puts it, as
// one fused pass; ok false: no fused form applies (too many Arrays), and
// the caller evaluates op by op. dst is nil for the *All reductions.
func fuseRun[T array.Elem](p *fusePlan, dstRaw *array.Raw, dst *array.Array[T]) (bool, error) {
	ins := make([]*array.Raw, len(p.leaves))
	for k, l := range p.leaves {
		ins[k] = l.raw()
	}
	if err := closedOperand(p.name, dstRaw, ins...); err != nil {
		return true, err
	}
	if len(p.leaves) > fuseMaxLeaves {
		return false, nil
	}
	if rs, isReduce := p.out.(*reduceSink[T]); isReduce {
		n := 1
		for _, e := range p.shape {
			n *= e
		}
		if n == 0 { // Min and Max over no elements: an error before anything moves
			if err := reduceEmpty(rs.op, p.name, denseShape(p.shape)); err != nil || dst == nil {
				return true, err // the *All forms: 0 with nothing moved, as Value(Sum) of an empty Array
			}
		}
	}
	d, err := placement(p.name, dstRaw, ins...)
	if err != nil {
		return true, err
	}
	if m, ok := d.(device.HostMemory); ok && m.Caps().Lang == "Go" {
		return onHostMem(m, p.name, dstRaw, ins, func(mem memFn) error { return fuseHost(p, dst, mem) })
	}
	if k, ok := d.(device.Kernels); ok && device.BuildsOpenCLC(k.Caps()) {
		// the device pass: the signature and arguments; the source only to build
		if g := p.kernel(nil); fits(stateOf(k).fp64, g.types...) {
			if ok, err := fuseDevice(k, p, g, dst); ok {
				return true, err
			}
		}
	}
	return true, fuseHost(p, dst, nil)
}

// fuseDevice runs p, of device form g, on an OpenCL device: kernel
// fuse_ew into dst, or for a reduction fuse_one (fuse_part and fuse_fin
// where one-pass is off: onePass), into dst or read back into the sink. ok false: more than clMaxDims dimensions
// after merging.
func fuseDevice[T array.Elem](k device.Kernels, p *fusePlan, g *fuseKernel, dst *array.Array[T]) (bool, error) {
	var n nest
	rs, isReduce := layOut(&n, p, dst)
	if n.rank > clMaxDims {
		return false, nil
	}
	total := n.total()
	s := stateOf(k)
	kind := "fuse " + g.sig.String()
	red := reduceOp(0)
	if isReduce {
		red = rs.op
		kind = reduceNames[red] + " of " + kind
	}
	var prog *clProgram
	var err error
	if isReduce { // fuse_one's fence, as the reductions' (fencedProgram)
		prog, err = s.fencedProgram(progKey{kind: kind}, func(fence bool) string { return p.source(red, true, s.fp64, fence) })
	} else {
		prog, err = s.program(progKey{kind: kind}, func() string { return p.source(red, false, s.fp64, false) })
	}
	if err != nil {
		return true, err
	}
	// the guard sees every upload before anything moves
	for _, l := range p.leaves {
		if res().NeedsUpload(l.raw(), k) {
			if err := plumb.CheckAutomatic(k, fmt.Sprintf("upload of a host-newer operand of ops.%s on %s", p.name, k.Name())); err != nil {
				return true, err
			}
		}
	}
	K := len(p.leaves) + 1
	mems := make([]device.Buffer, K)
	nd := make([]int64, 2+clMaxDims+K*clMaxDims+K)
	nd[0], nd[1] = int64(total), int64(n.rank)
	for i := 0; i < n.rank; i++ {
		nd[2+i] = int64(n.ext[i])
		for q := 0; q < K; q++ {
			nd[2+clMaxDims+q*clMaxDims+i] = int64(n.str[q][i])
		}
	}
	offAt := 2 + clMaxDims + K*clMaxDims
	for q, l := range p.leaves {
		m, off, err := s.operandMem(p.name, l.raw(), true)
		if err != nil {
			return true, err
		}
		mems[q+1], nd[offAt+q+1] = m, int64(off)
	}
	var dmem device.Buffer
	doff := 0
	if dst != nil {
		if dmem, doff, err = s.operandMem(p.name, dst.Raw(), false); err != nil {
			return true, err
		}
	}
	var args []any
	if !isReduce {
		nd[offAt] = int64(doff)
		args = append(args, dmem)
	}
	for _, a := range g.args {
		if a.leaf >= 0 {
			args = append(args, mems[a.leaf+1])
		} else {
			args = append(args, a.b)
		}
	}
	args = append(args, unsafe.Slice((*byte)(unsafe.Pointer(&nd[0])), len(nd)*8))
	if !isReduce {
		return wroteOnDevice(dst.Raw(), s.launch(prog, "fuse_ew", []int{s.items(total)}, s.local, args...))
	}
	G := s.items(total) / s.wg
	resOff := (G*8 + 127) / 128 * 128
	s.scratchMu.Lock() // until the result is read: the scratch holds the partials
	defer s.scratchMu.Unlock()
	scr, err := s.scratchFor(0, resOff+128)
	if err != nil {
		return true, err
	}
	// the result: dst's element, or the scratch after the partials
	es := sizeOf[T]()
	rmem, roff := scr, int64(resOff/es)
	if dst != nil {
		rmem, roff = dmem, int64(doff)
	}
	s = fuseEnd(s)
	if s.onePass() {
		// the last work-group to finish joins the partials (fuse_one): a
		// launch fewer, as the reductions' red_*_one
		var cnt device.Buffer
		if cnt, err = s.countersFor(prog, 1); err != nil {
			return true, err
		}
		one := append([]any{rmem, roff}, args...)
		one = append(one, int64(G), scr, cnt, device.Local(s.wg*8))
		err = s.launch(prog, "fuse_one", []int{G * s.wg}, s.local, one...)
	} else {
		args = append(args, scr, device.Local(s.wg*8))
		if err = s.launch(prog, "fuse_part", []int{G * s.wg}, s.local, args...); err == nil {
			err = s.launch(prog, "fuse_fin", []int{1}, nil, rmem, roff, scr, int64(G))
		}
	}
	if dst != nil {
		return wroteOnDevice(dst.Raw(), err)
	}
	if err != nil {
		return true, err
	}
	if err := k.ReadBytes(unsafe.Slice((*byte)(unsafe.Pointer(&rs.v)), es), scr, resOff); err != nil {
		return true, fmt.Errorf("ops.%s: reading the result: %w", p.name, err)
	}
	return true, nil
}

// fuseEnd is the device a fused reduction's launches and counters go
// through: s itself; TestFuseOnePassFailure wraps it to inject failures.
var fuseEnd = func(s devRef) devRef { return s }

// frames are pooled per slot count class, so a fused pass allocates
// nothing per block.
var framePool sync.Pool

func getFrame(nslots int) *frame {
	f, _ := framePool.Get().(*frame)
	if f == nil {
		f = new(frame)
	}
	if cap(f.vals) < nslots {
		f.vals = make([]unsafe.Pointer, nslots)
		f.buf = make([]uint64, nslots*blk)
	}
	f.vals = f.vals[:nslots]
	f.r, f.more = acc{}, false
	return f
}

func putFrame(f *frame) {
	f.j, f.off = nil, nil
	clear(f.vals)
	framePool.Put(f)
}
