package ops

import (
	"fmt"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/plumb"
)

// Device implementations of the entry points. Each returns ok = false
// when the op has no device form for these operands (the caller then runs
// the host path, whose automatic copies are counted and guarded).

// ready makes the inputs current on s's device and gives dst an
// allocation; the guard is asked about every upload before anything
// moves. mems and offs are operand 0 (dst) first; nil inputs get dst's.
func ready[T array.Elem](s devRef, op string, dst *array.Array[T], ins ...*array.Array[T]) (mems [3]device.Buffer, offs [3]int, err error) {
	for _, x := range ins {
		if x != nil && res().NeedsUpload(x.Raw(), s.dev()) {
			if err = plumb.CheckAutomatic(s.dev(), fmt.Sprintf("upload of a host-newer operand of ops.%s on %s", op, s.dev().Name())); err != nil {
				return
			}
		}
	}
	for i, x := range ins {
		if x == nil {
			continue
		}
		if mems[i+1], offs[i+1], err = s.operandMem(op, x.Raw(), true); err != nil {
			return
		}
	}
	if dst != nil {
		if mems[0], offs[0], err = s.operandMem(op, dst.Raw(), false); err != nil {
			return
		}
	}
	for i, x := range ins {
		if x == nil {
			mems[i+1] = mems[0]
		}
	}
	return
}

// elementwise runs kernel kname ("bin_add", "un_copy", …) over the
// simplified nest n: the dense vector form when every operand is dense
// and 16-byte aligned, else the strided form.
func elementwise[T array.Elem](d device.Kernels, op, kname string, n *nest, vec bool, dst *array.Array[T], ins []*array.Array[T], sc []T, fl int) (bool, error) {
	var nd ndArg
	if !nd.fromNest(n) {
		return false, nil
	}
	s := stateOf(d)
	p, err := s.typeProgram("ew", array.TypeOf[T]())
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, op, dst, ins...)
	if err != nil {
		return true, err
	}
	total := n.total()
	vw := 16 / sizeOf[T]()
	if vec && denseNest(n) {
		for k := 0; k < 1+len(ins); k++ {
			if n.str[k][0] == 1 && offs[k]%vw != 0 {
				vec = false
			}
		}
	} else {
		vec = false
	}
	if vec {
		fl = vecFlags(n, fl)
	}
	binary := len(ins) == 2
	args := []any{mems[0], mems[1]}
	if binary {
		args = append(args, mems[2])
	}
	for _, x := range sc {
		args = append(args, scalarArg(x))
	}
	args = append(args, int32(fl))
	if vec {
		args = append(args, int64(total), int64(offs[0]), int64(offs[1]))
		if binary {
			args = append(args, int64(offs[2]))
		}
		err = s.launch(p, kname+"_vec", []int{s.items((total + vw - 1) / vw)}, s.local, args...)
	} else {
		for k := range 3 {
			nd.off[k] = int64(offs[k])
		}
		err = s.launch(p, kname+"_nd", []int{s.items(total)}, s.local, append(args, nd.bytes())...)
	}
	return wroteOnDevice(dst.Raw(), err)
}

func binaryDevice[T array.Elem](d device.Kernels, op BinaryOp, dst, a, b *array.Array[T], sa, sb T) (bool, error) {
	if err := binaryCheck[T](op); err != nil {
		return true, err
	}
	k := kindOf[T]()
	var n nest
	name := op.String()
	n.init(name, dst)
	fl := 0
	for i, x := range [2]*array.Array[T]{a, b} {
		if x != nil {
			n.add(name, dst, x)
		} else {
			n.addScalar()
			fl |= 1 << i
		}
	}
	n.simplify()
	vec := k != kHalf && (k == kFloat && binVecFloat[op] || k != kFloat && binVecInt[op])
	return elementwise(d, name, "bin_"+binCL[op], &n, vec, dst, []*array.Array[T]{a, b}, []T{sa, sb}, fl)
}

// unaryDevice runs a planned Unary (planUnary checked op) on d.
func unaryDevice[T array.Elem](d device.Kernels, op UnaryOp, dst, a *array.Array[T]) (bool, error) {
	var n nest
	n.init(op.String(), dst)
	n.add(op.String(), dst, a)
	n.simplify()
	var z T
	return elementwise(d, op.String(), "un_"+unCL[op], &n, false, dst, []*array.Array[T]{a}, []T{z}, 0)
}

func copyDevice[T array.Elem](d device.Kernels, dst, src *array.Array[T]) (bool, error) {
	var n nest
	n.init("Copy", dst)
	n.add("Copy", dst, src)
	n.simplify()
	// One element is dense too (its nest keeps one dimension of stride 0).
	if n.rank == 1 && (n.ext[0] == 1 || n.str[0][0] == 1 && n.str[1][0] == 1) {
		return copyDense(d, dst, src, n.ext[0])
	}
	var z T
	return elementwise(d, "Copy", "un_copy", &n, kindOf[T]() != kHalf, dst, []*array.Array[T]{src}, []T{z}, 0)
}

// copyDense copies n contiguous elements with the driver's buffer copy
// (clEnqueueCopyBuffer, the fastest device-to-device copy NVIDIA's OpenCL
// has: 4219 GB/s on the H200 from C). It is the op itself, not a residency
// transfer: Stats count it as a launch, as the kernel would be
// (TestCopyDeviceDriver). Overlapping ranges (an in-place copy) take the
// kernel.
func copyDense[T array.Elem](d device.Kernels, dst, src *array.Array[T], n int) (bool, error) {
	s := stateOf(d)
	mems, offs, err := ready(s, "Copy", dst, src)
	if err != nil {
		return true, err
	}
	es := sizeOf[T]()
	if mems[0] == mems[1] && offs[0] < offs[1]+n && offs[1] < offs[0]+n {
		if offs[0] != offs[1] {
			var nest1 nest
			nest1.init("Copy", dst)
			nest1.add("Copy", dst, src)
			nest1.simplify()
			var z T
			return elementwise(d, "Copy", "un_copy", &nest1, kindOf[T]() != kHalf, dst, []*array.Array[T]{src}, []T{z}, 0)
		}
		return true, res().WroteDevice(dst.Raw(), nil) // a copy onto itself
	}
	if err := d.CopyBytes(mems[0], offs[0]*es, mems[1], offs[1]*es, n*es); err != nil {
		return true, fmt.Errorf("ops.Copy on %s: %w", d.Name(), err)
	}
	return true, res().WroteDevice(dst.Raw(), nil)
}

func fillDevice[T array.Elem](d device.Kernels, dst *array.Array[T], x T) (bool, error) {
	var n nest
	n.init("Fill", dst)
	n.addScalar()
	n.simplify()
	return elementwise(d, "Fill", "un_copy", &n, kindOf[T]() != kHalf, dst, []*array.Array[T]{nil}, []T{x}, 1)
}

func iotaDevice[T array.Elem](d device.Kernels, dst *array.Array[T], dim int) (bool, error) {
	if dim < 0 || dim >= dst.Rank() {
		panic(errOutOfRange("Iota", dim, dst))
	}
	r := dst.Rank()
	if r > clMaxDims {
		return false, nil
	}
	nd := ndArg{n: int64(dst.Len()), rank: int64(max(r, 1)), ext: [clMaxDims]int64{1}}
	for i := 0; i < r; i++ {
		dd := dst.Dim(i)
		nd.ext[i], nd.st[0][i] = int64(dd.Extent), int64(dd.Stride)
	}
	nd.st[1][dim] = 1
	nd.off[1] = int64(dst.Dim(dim).Min)
	s := stateOf(d)
	p, err := s.typeProgram("ew", array.TypeOf[T]())
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, "Iota", dst)
	if err != nil {
		return true, err
	}
	nd.off[0] = int64(offs[0])
	return wroteOnDevice(dst.Raw(), s.launch(p, "iota_nd", []int{s.items(dst.Len())}, s.local, mems[0], nd.bytes()))
}

// castDevice converts on the device with the host's rules (clCast), for
// every pair of element types.
func castDevice[D, S array.Elem](d device.Kernels, dst *array.Array[D], src *array.Array[S], sat bool) (bool, error) {
	var n nest
	n.init("Cast", dst)
	n.add("Cast", dst, src)
	n.simplify()
	var nd ndArg
	if !nd.fromNest(&n) {
		return false, nil
	}
	s := stateOf(d)
	dt, st := array.TypeOf[D](), array.TypeOf[S]()
	p, err := s.program(progKey{kind: "cast", t: dt, u: st}, func() string { return castSource(dt, st, s.fp64) })
	if err != nil {
		return true, err
	}
	var mems [3]device.Buffer
	var offs [3]int
	if mems[1], offs[1], err = s.prepIn("Cast", src.Raw()); err != nil {
		return true, err
	}
	if mems[0], offs[0], err = s.operandMem("Cast", dst.Raw(), false); err != nil {
		return true, err
	}
	nd.off[0], nd.off[1] = int64(offs[0]), int64(offs[1])
	isSat := int32(0)
	if sat {
		isSat = 1
	}
	return wroteOnDevice(dst.Raw(), s.launch(p, "cast_nd", []int{s.items(n.total())}, s.local, mems[0], mems[1], isSat, nd.bytes()))
}

// castSource is the cast program from st to dt.
func castSource(dt, st array.Type, fp64 bool) string {
	dc, _ := clTypeOf(dt)
	sc, _ := clTypeOf(st)
	conv := "convert_" + dc.s + "_sat"
	if sc.float {
		conv += "_rtz"
	}
	// Saturating clamps only where the value may exceed D's finite range.
	maxf := "INFINITY"
	switch {
	case dc.half == 1:
		maxf = "65504.0f"
	case dc.half == 2:
		maxf = "0x1.fep127f" // BFloat16 0x7f7f
	case dt == array.TypeOf[float32]() && st == array.TypeOf[float64]():
		maxf = "FLT_MAX"
	}
	return dc.defines("D", fp64) + sc.defines("S", fp64) +
		"#define CONVSAT(x) " + conv + "(x)\n#define DMAXF " + maxf + "\n" + clCommon + clCast
}

// wroteOnDevice ends a kernel device op: dst is device-newest unless err
// (the launch's) is set.
func wroteOnDevice(dst *array.Raw, err error) (bool, error) {
	if err != nil {
		return true, err
	}
	return true, res().WroteDevice(dst, nil)
}

// readyMixed is ready for an input and a dst of another element type.
func readyMixed[D, T array.Elem](s devRef, op string, dst *array.Array[D], a *array.Array[T]) (mems [3]device.Buffer, offs [3]int, err error) {
	if res().NeedsUpload(a.Raw(), s.dev()) {
		if err = plumb.CheckAutomatic(s.dev(), fmt.Sprintf("upload of a host-newer operand of ops.%s on %s", op, s.dev().Name())); err != nil {
			return
		}
	}
	if mems[1], offs[1], err = s.operandMem(op, a.Raw(), true); err != nil {
		return
	}
	mems[0], offs[0], err = s.operandMem(op, dst.Raw(), false)
	return
}

// prepIn is operandMem for an input, asking the guard first.
func (s devRef) prepIn(op string, r *array.Raw) (device.Buffer, int, error) {
	return s.operandMem(op, r, true)
}

// reduction kernels by reduceOp ("" where the host does it).
var redCL = [...]string{"sum", "prod", "min", "max", "mean", "argmin", "argmax"}

// reducePlan picks the kernels of a reduction with m outputs of L
// elements each: one work-item per output when outputs are many or
// short, else G work-groups per output and a join of their partials.
func (s devRef) reducePlan(m, L int) (G int, rows bool) {
	if L <= 32 || m >= s.cus*256 {
		return 1, true
	}
	wg := s.redWG()
	G = max(1, min((L+wg-1)/wg, (s.cus*s.redGroups()+m-1)/m))
	return G, false
}

// runReduce enqueues a reduction: outputs so (st[0] dst, st[1] input),
// reduced elements sr (st[1] input strides); dmem receives the results.
func runReduce[T array.Elem](s devRef, op reduceOp, dmem, amem device.Buffer, so, sr *ndArg) error {
	p, err := s.typeProgram("red", array.TypeOf[T]())
	if err != nil {
		return err
	}
	name := redCL[op]
	m, L := int(so.n), int(sr.n)
	G, rows := s.reducePlan(m, L)
	if rows {
		return s.launch(p, "red_"+name+"_rows", []int{s.items(m)}, s.local, dmem, amem, so.bytes(), sr.bytes())
	}
	wg := s.redWG()
	part, err := s.scratchFor(0, m*G*8)
	if err != nil {
		return err
	}
	if s.onePass() {
		// the last work-group of each output joins its partials: a launch
		// fewer (part + fing: a Sum of 2^24 float32 took 24.8 µs on the
		// H200, 0.92× PyTorch's one-kernel sum)
		cnt, err := s.countersFor(p, m)
		if err != nil {
			return err
		}
		return s.launch(p, "red_"+name+"_one", []int{m * G * wg}, []int{wg}, dmem, amem, so.bytes(), sr.bytes(), int64(G), int64(L), part, cnt, device.Local(wg*8))
	}
	if err := s.launch(p, "red_"+name+"_part", []int{m * G * wg}, []int{wg}, amem, so.bytes(), sr.bytes(), int64(G), part, device.Local(wg*8)); err != nil {
		return err
	}
	if G >= finGroup {
		// one work-group per output joins its partials: a lone work-item
		// reading a thousand of them in turn cost more than the part pass
		// on the H200 (Sum of 2^24 float32 at 0.43× PyTorch's speed)
		return s.launch(p, "red_"+name+"_fing", []int{m * wg}, []int{wg}, dmem, so.bytes(), part, int64(G), int64(L), device.Local(wg*8))
	}
	return s.launch(p, "red_"+name+"_fin", []int{s.items(m)}, s.local, dmem, so.bytes(), part, int64(G), int64(L))
}

// finGroup is the partials per output from which a work-group joins them
// in the two-pass path (a variable for the tests: PoCL's few units never
// make 32).
var finGroup = 32

// runArgReduce is runReduce for ArgMin and ArgMax: dmem holds int64
// coordinates, base is the reduced dimension's Min.
func runArgReduce[T array.Elem](s devRef, op reduceOp, dmem, amem device.Buffer, so, sr *ndArg, base int) error {
	p, err := s.typeProgram("red", array.TypeOf[T]())
	if err != nil {
		return err
	}
	name := redCL[op]
	m, L := int(so.n), int(sr.n)
	G, rows := s.reducePlan(m, L)
	if rows {
		return s.launch(p, "red_"+name+"_rows", []int{s.items(m)}, s.local, dmem, amem, so.bytes(), sr.bytes(), int64(base))
	}
	part, err := s.scratchFor(0, m*G*8)
	if err != nil {
		return err
	}
	idx, err := s.scratchFor(1, m*G*8)
	if err != nil {
		return err
	}
	wg := s.redWG()
	if err := s.launch(p, "red_"+name+"_part", []int{m * G * wg}, []int{wg}, amem, so.bytes(), sr.bytes(), int64(G), part, idx, device.Local(wg*8), device.Local(wg*8)); err != nil {
		return err
	}
	return s.launch(p, "red_"+name+"_fin", []int{s.items(m)}, s.local, dmem, so.bytes(), part, idx, int64(G), int64(base))
}

// reduceInto enqueues the reduction op; the caller holds s.scratchMu,
// since the partials pass through the device's scratch buffers.
func reduceInto[T array.Elem](s devRef, op reduceOp, dmem, amem device.Buffer, so, sr *ndArg, base int) error {
	if op == redArgMin || op == redArgMax {
		return runArgReduce[T](s, op, dmem, amem, so, sr, base)
	}
	return runReduce[T](s, op, dmem, amem, so, sr)
}

func reduceDevice[D, T array.Elem](d device.Kernels, op reduceOp, dst0 *array.Array[D], a *array.Array[T], dim int) (bool, error) {
	if op == redArgMin || op == redArgMax {
		di, ok := any(dst0).(*array.Array[int64])
		if !ok {
			return false, nil
		}
		return reduceDim(d, op, di, a, dim)
	}
	dst, same := any(dst0).(*array.Array[T])
	if !same {
		return false, nil
	}
	return reduceDim(d, op, dst, a, dim)
}

// reduceDim reduces a along dim into dst (D is T, or int64 for the
// argument reductions).
func reduceDim[D, T array.Elem](d device.Kernels, op reduceOp, dst *array.Array[D], a *array.Array[T], dim int) (bool, error) {
	name := reduceNames[op]
	ra := a.Rank()
	if dim < 0 || dim >= ra {
		return false, nil // the host path panics with the message
	}
	keep := dst.Rank() == ra
	if (!keep && dst.Rank() != ra-1) || (keep && dst.Dim(dim).Extent != 1) {
		return false, nil
	}
	var n nest
	n.nops = 2
	for i := 0; i < ra; i++ {
		if i == dim {
			continue
		}
		di := i
		if !keep && i > dim {
			di = i - 1
		}
		ad, dd := a.Dim(i), dst.Dim(di)
		if ad.Extent != dd.Extent || n.rank == maxDims {
			return false, nil
		}
		n.ext[n.rank], n.str[0][n.rank], n.str[1][n.rank] = ad.Extent, dd.Stride, ad.Stride
		n.rank++
	}
	rd := a.Dim(dim)
	if rd.Extent == 0 {
		if op != redSum && op != redProd && op != redMean {
			return false, nil // unreachable: reduce returned the ErrShape error first
		}
		// every output is the host's value over no elements (0, 1, or a
		// float mean's 0/0); D is T here
		var r acc
		reduceRun[T](op, kindOf[T](), &r, true, nil, 0, 0, 0, 0, 0)
		v := result[T](op, kindOf[T](), &r, 0)
		return fillDevice(d, dst, *(*D)(unsafe.Pointer(&v)))
	}
	n.simplify()
	var so ndArg
	if !so.fromNest(&n) {
		return false, nil
	}
	sr := ndArg{n: int64(rd.Extent), rank: 1}
	sr.ext[0], sr.st[1][0] = int64(rd.Extent), int64(rd.Stride)
	s := stateOf(d)
	mems, offs, err := readyMixed(s, name, dst, a)
	if err != nil {
		return true, err
	}
	so.off[0], so.off[1] = int64(offs[0]), int64(offs[1])
	s.scratchMu.Lock()
	err = reduceInto[T](s, op, mems[0], mems[1], &so, &sr, rd.Min)
	s.scratchMu.Unlock()
	return wroteOnDevice(dst.Raw(), err)
}

// reduceAllDevice reduces every element of a on the device, over the
// nest n that the host's reduceAll walks, and reads the one result back
// into out (a T, or for the argument reductions the int64 index of the
// point in n): a blocking read, not an Array transfer, so not counted in
// Stats.
func reduceAllDevice[T array.Elem](d device.Kernels, op reduceOp, a *array.Array[T], n *nest, out []byte) (bool, error) {
	if a.Len() == 0 {
		return false, nil
	}
	n.init(reduceNames[op], a)
	n.simplify()
	var sr ndArg
	if !sr.fromNest(n) {
		return false, nil
	}
	sr.st[1] = sr.st[0]
	sr.st[0] = [clMaxDims]int64{}
	so := ndArg{n: 1, rank: 1}
	so.ext[0] = 1
	s := stateOf(d)
	mems, offs, err := ready(s, reduceNames[op], (*array.Array[T])(nil), a)
	if err != nil {
		return true, err
	}
	so.off[1] = int64(offs[1])
	G, _ := s.reducePlan(1, int(sr.n))
	resOff := (G*8 + 127) / 128 * 128
	s.scratchMu.Lock() // until the result is read: the scratch holds it
	defer s.scratchMu.Unlock()
	scr, err := s.scratchFor(0, resOff+128)
	if err != nil {
		return true, err
	}
	so.off[0] = int64(resOff / len(out)) // after the partials
	if err := reduceInto[T](s, op, scr, mems[1], &so, &sr, 0); err != nil {
		return true, err
	}
	if err := d.ReadBytes(out, scr, resOff); err != nil {
		return true, fmt.Errorf("ops.%sAll: reading the result: %w", reduceNames[op], err)
	}
	return true, nil
}

// The entry points' hooks: each asks placement and, when it names a
// device, runs the op there (ok) or reports that the host must (not ok).

// target is placement, then what the device computes with: a kernel
// device whose language ops has kernels in and whose types fit (k), a
// device whose memory the host addresses (m), or neither: the host (with
// the error when placement refused the operands). ts are the element
// types involved (a zero Type for none).
func target(op string, ts [2]array.Type, dst *array.Raw, ins ...*array.Raw) (k device.Kernels, m device.HostMemory, err error) {
	d, err := placement(op, dst, ins...)
	if err != nil || d == nil {
		return nil, nil, err
	}
	if m, ok := d.(device.HostMemory); ok && m.Caps().Lang == "Go" {
		return nil, m, nil
	}
	if k, ok := d.(device.Kernels); ok && device.BuildsOpenCLC(k.Caps()) && fits(stateOf(k).fp64, ts[:]...) {
		return k, nil, nil
	}
	return nil, nil, nil
}

// fits reports whether a device computes in the element types ts:
// float64 needs fp64 (cl_khr_fp64); without it the op runs on the host
// (the package documentation's rule: counted, guarded copies of
// device-dirty inputs).
func fits(fp64 bool, ts ...array.Type) bool {
	for _, t := range ts {
		if t.Code == array.Float && t.Bits == 64 {
			return fp64
		}
	}
	return true
}

// memFn reaches a HostMemory device's allocation.
type memFn = func(device.Allocation) ([]byte, error)

// onHostMem runs an op on a device whose memory the host addresses: the
// inputs are made current there (host-newer parts uploaded: counted, and
// asked of the guard first) and dst gets an allocation, exactly as for a
// kernel device; then fn runs ops' host kernels on views of the device's
// memory (viewOn) as one launch, and dst is left device-newest.
func onHostMem(m device.HostMemory, op string, dst *array.Raw, ins []*array.Raw, fn func(mem memFn) error) (bool, error) {
	for _, r := range ins {
		if r != nil && r.Len() > 0 && res().NeedsUpload(r, m) {
			if err := plumb.CheckAutomatic(m, fmt.Sprintf("upload of a host-newer operand of ops.%s on %s", op, m.Name())); err != nil {
				return true, err
			}
		}
	}
	for _, r := range ins {
		if r != nil && r.Len() > 0 {
			if err := res().SyncDevice(r, m); err != nil {
				return true, fmt.Errorf("ops.%s: %w", op, err)
			}
		}
	}
	if dst != nil && dst.Len() > 0 {
		if err := res().Alloc(dst, m); err != nil {
			return true, fmt.Errorf("ops.%s: %w", op, err)
		}
	}
	if err := m.Run(op, fn); err != nil {
		return true, fmt.Errorf("ops.%s on %s: %w", op, m.Name(), err)
	}
	if dst != nil && dst.Len() > 0 {
		return true, res().WroteDevice(dst, nil)
	}
	return true, nil
}

// onHost1 is onHostMem for a dst and one input: fn gets their views
// (viewOn) of the device's memory.
func onHost1[D, T array.Elem](m device.HostMemory, op string, dst *array.Array[D], a *array.Array[T], fn func(vd *array.Array[D], va *array.Array[T]) error) (bool, error) {
	return onHostMem(m, op, rawOf(dst), []*array.Raw{rawOf(a)}, func(mem memFn) error {
		vd, err := viewOn(mem, dst)
		if err != nil {
			return err
		}
		va, err := viewOn(mem, a)
		if err != nil {
			return err
		}
		return fn(vd, va)
	})
}

// viewOn is a host-only Array over a's elements in device memory: the
// same layout, so ops' host kernels compute on the device's copy.
func viewOn[T array.Elem](mem memFn, a *array.Array[T]) (*array.Array[T], error) {
	if a == nil || a.Len() == 0 {
		return a, nil
	}
	r := a.Raw()
	alloc, off := r.Allocation()
	if alloc == nil {
		return nil, fmt.Errorf("ops: %v has no device allocation: its device closed meanwhile: %w", r, device.ErrClosed)
	}
	b, err := mem(alloc)
	if err != nil {
		return nil, err
	}
	es := sizeOf[T]()
	n := len(r.HostBytes()) / es
	if off < 0 || off+n*es > len(b) || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(es) != 0 || off%es != 0 {
		return nil, fmt.Errorf("ops: %v at byte offset %d of a %d-byte allocation: %w", r, off, len(b), errUnaligned)
	}
	data := unsafe.Slice((*T)(unsafe.Pointer(&b[off])), n)
	if r.Writable() {
		return array.Wrap(data, r.Dims())
	}
	// A read-only input (a broadcast): Wrap its source's layout (each
	// stride-0 dimension one element), then broadcast that again.
	dims := r.Dims()
	mins := make([]int, len(dims))
	for i := range dims {
		if mins[i] = dims[i].Min; dims[i].Stride == 0 {
			dims[i].Extent = min(dims[i].Extent, 1)
		}
	}
	w, err := array.Wrap(data, dims)
	if err != nil {
		return nil, err
	}
	if w, err = w.BroadcastTo(a.Shape()...); err != nil {
		return nil, err
	}
	return w.SetMin(mins...), nil
}

// views is viewOn for several operands of one type.
func views[T array.Elem](mem memFn, xs ...*array.Array[T]) ([]*array.Array[T], error) {
	vs := make([]*array.Array[T], len(xs))
	for i, x := range xs {
		v, err := viewOn(mem, x)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

func deviceBinary[T array.Elem](op BinaryOp, dst, a, b *array.Array[T], sa, sb T) (bool, error) {
	k, m, err := target(op.String(), [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a), rawOf(b))
	if m != nil {
		return onHostMem(m, op.String(), rawOf(dst), []*array.Raw{rawOf(a), rawOf(b)}, func(mem memFn) error {
			v, err := views(mem, dst, a, b)
			if err != nil {
				return err
			}
			return binary(op, v[0], v[1], v[2], sa, sb)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return binaryDevice(k, op, dst, a, b, sa, sb)
}

func deviceCopy[T array.Elem](dst, src *array.Array[T]) (bool, error) {
	k, m, err := target("Copy", [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(src))
	if m != nil {
		return onHost1(m, "Copy", dst, src, func(vd, va *array.Array[T]) error {
			return Copy(vd, va)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return copyDevice(k, dst, src)
}

func deviceFill[T array.Elem](dst *array.Array[T], x T) (bool, error) {
	k, m, err := target("Fill", [2]array.Type{array.TypeOf[T]()}, rawOf(dst))
	if m != nil {
		return onHostMem(m, "Fill", rawOf(dst), nil, func(mem memFn) error {
			v, err := viewOn(mem, dst)
			if err != nil {
				return err
			}
			return Fill(v, x)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return fillDevice(k, dst, x)
}

func deviceIota[T array.Elem](dst *array.Array[T], dim int) (bool, error) {
	k, m, err := target("Iota", [2]array.Type{array.TypeOf[T]()}, rawOf(dst))
	if m != nil {
		return onHostMem(m, "Iota", rawOf(dst), nil, func(mem memFn) error {
			v, err := viewOn(mem, dst)
			if err != nil {
				return err
			}
			return Iota(v, axisOf(dim))
		})
	}
	if k == nil {
		return err != nil, err
	}
	return iotaDevice(k, dst, dim)
}

func deviceCast[D, S array.Elem](dst *array.Array[D], src *array.Array[S], sat bool) (bool, error) {
	k, m, err := target(castName(sat), [2]array.Type{array.TypeOf[D](), array.TypeOf[S]()}, rawOf(dst), rawOf(src))
	if m != nil {
		return onHost1(m, castName(sat), dst, src, func(vd *array.Array[D], vs *array.Array[S]) error {
			return cast(vd, vs, sat)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return castDevice(k, dst, src, sat)
}

func deviceReduce[D, T array.Elem](op reduceOp, dst *array.Array[D], a *array.Array[T], dim int) (bool, error) {
	k, m, err := target(reduceNames[op], [2]array.Type{array.TypeOf[D](), array.TypeOf[T]()}, rawOf(dst), rawOf(a))
	if m != nil {
		return onHost1(m, reduceNames[op], dst, a, func(vd *array.Array[D], va *array.Array[T]) error {
			return reduce(op, vd, va, dim)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return reduceDevice(k, op, dst, a, dim)
}

func deviceReduceAll[T array.Elem](op reduceOp, a *array.Array[T]) (T, bool, error) {
	k, m, err := target(reduceAllNames[op], [2]array.Type{array.TypeOf[T]()}, nil, rawOf(a))
	if m != nil {
		var v T
		ok, err := onHostMem(m, reduceAllNames[op], nil, []*array.Raw{rawOf(a)}, func(mem memFn) error {
			va, err := viewOn(mem, a)
			if err == nil {
				v, err = reduceAllValue(op, va)
			}
			return err
		})
		return v, ok, err
	}
	if k == nil {
		var z T
		return z, err != nil, err
	}
	var n nest
	var v T // escapes into the read: declared here, so the host path allocates nothing
	ok, err := reduceAllDevice(k, op, a, &n, unsafe.Slice((*byte)(unsafe.Pointer(&v)), sizeOf[T]()))
	return v, ok, err
}

// deviceArgAll is deviceReduceAll for ArgMinAll and ArgMaxAll: it returns
// the element offset of the result from a's min corner, like the host's
// reduceAll. The kernels keep the first extreme (NaN first) in the order
// of the host's nest, so both pick the same element.
func deviceArgAll[T array.Elem](op reduceOp, a *array.Array[T]) (int, bool, error) {
	k, m, err := target(reduceAllNames[op], [2]array.Type{array.TypeOf[T]()}, nil, rawOf(a))
	if m != nil {
		off := 0
		ok, err := onHostMem(m, reduceAllNames[op], nil, []*array.Raw{rawOf(a)}, func(mem memFn) error {
			va, err := viewOn(mem, a)
			if err != nil {
				return err
			}
			r, _, err := reduceAll(op, va)
			off = r.idx
			return err
		})
		return off, ok, err
	}
	if k == nil {
		return 0, err != nil, err
	}
	var n nest
	var i int64
	ok, err := reduceAllDevice(k, op, a, &n, unsafe.Slice((*byte)(unsafe.Pointer(&i)), 8))
	if !ok || err != nil {
		return 0, ok, err
	}
	return n.offsetOf(int(i)), true, nil
}

func deviceMatMul[T Float](dst, a, b *array.Array[T]) (bool, error) {
	if ok, err := gemmPlaced(dst, a, b, device.PrecisionExact); ok {
		return true, err
	}
	k, m, err := target("MatMul", [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a), rawOf(b))
	if m != nil {
		return onHostMem(m, "MatMul", rawOf(dst), []*array.Raw{rawOf(a), rawOf(b)}, func(mem memFn) error {
			v, err := views(mem, dst, a, b)
			if err != nil {
				return err
			}
			return MatMul(v[0], v[1], v[2])
		})
	}
	if k == nil {
		return err != nil, err
	}
	return matmulDevice(k, dst, a, b)
}

var cmpCL = [...]string{"eq", "ne", "lt", "le", "gt", "ge"}

// compareDevice stores the mask a op b (or a op sb when b is nil) in dst.
func compareDevice[T array.Elem](d device.Kernels, op CmpOp, dst *array.Array[uint8], a, b *array.Array[T], sb T) (bool, error) {
	var n nest
	n.init("Compare", dst)
	n.add("Compare", dst, a)
	fl := int32(0)
	if b != nil {
		n.add("Compare", dst, b)
	} else {
		n.addScalar()
		fl = 2
	}
	n.simplify()
	var nd ndArg
	if !nd.fromNest(&n) {
		return false, nil
	}
	s := stateOf(d)
	p, err := s.typeProgram("ew", array.TypeOf[T]())
	if err != nil {
		return true, err
	}
	mems, offs, err := ready(s, "Compare", (*array.Array[T])(nil), a, b)
	if err != nil {
		return true, err
	}
	if mems[0], offs[0], err = s.operandMem("Compare", dst.Raw(), false); err != nil {
		return true, err
	}
	if b == nil {
		mems[2] = mems[1]
	}
	for k := range 3 {
		nd.off[k] = int64(offs[k])
	}
	return wroteOnDevice(dst.Raw(), s.launch(p, "cmp_"+cmpCL[op]+"_nd", []int{s.items(n.total())}, s.local, mems[0], mems[1], mems[2], scalarArg(sb), fl, nd.bytes()))
}

func deviceCompare[T array.Elem](op CmpOp, dst *array.Array[uint8], a, b *array.Array[T], sb T) (bool, error) {
	k, m, err := target(op.String(), [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(a), rawOf(b))
	if m != nil {
		return onHostMem(m, op.String(), rawOf(dst), []*array.Raw{rawOf(a), rawOf(b)}, func(mem memFn) error {
			vd, err := viewOn(mem, dst)
			if err != nil {
				return err
			}
			v, err := views(mem, a, b)
			if err != nil {
				return err
			}
			return compare(op, vd, v[0], v[1], sb)
		})
	}
	if k == nil {
		return err != nil, err
	}
	return compareDevice(k, op, dst, a, b, sb)
}

// ndArg4 is an nd4_t: ndArg with a fourth operand.
type ndArg4 struct {
	n, rank int64
	ext     [clMaxDims]int64
	st      [4][clMaxDims]int64
	off     [4]int64
}

func whereDevice[T array.Elem](d device.Kernels, dst *array.Array[T], cond *array.Array[uint8], a, b *array.Array[T]) (bool, error) {
	var n nest
	n.init("Where", dst)
	n.add("Where", dst, cond)
	n.add("Where", dst, a)
	n.add("Where", dst, b)
	n.simplify()
	if n.rank > clMaxDims {
		return false, nil
	}
	nd := ndArg4{n: int64(n.total()), rank: int64(n.rank)}
	for i := 0; i < n.rank; i++ {
		nd.ext[i] = int64(n.ext[i])
		for k := range 4 {
			nd.st[k][i] = int64(n.str[k][i])
		}
	}
	s := stateOf(d)
	p, err := s.typeProgram("ew", array.TypeOf[T]())
	if err != nil {
		return true, err
	}
	if res().NeedsUpload(cond.Raw(), s.dev()) {
		if err := plumb.CheckAutomatic(s.dev(), fmt.Sprintf("upload of a host-newer operand of ops.Where on %s", s.dev().Name())); err != nil {
			return true, err
		}
	}
	mems, offs, err := ready(s, "Where", dst, a, b)
	if err != nil {
		return true, err
	}
	cm, co, err := s.operandMem("Where", cond.Raw(), true)
	if err != nil {
		return true, err
	}
	nd.off = [4]int64{int64(offs[0]), int64(co), int64(offs[1]), int64(offs[2])}
	ndb := unsafe.Slice((*byte)(unsafe.Pointer(&nd)), unsafe.Sizeof(nd))
	return wroteOnDevice(dst.Raw(), s.launch(p, "where_nd", []int{s.items(n.total())}, s.local, mems[0], cm, mems[1], mems[2], ndb))
}

func deviceWhere[T array.Elem](dst *array.Array[T], cond *array.Array[uint8], a, b *array.Array[T]) (bool, error) {
	k, m, err := target("Where", [2]array.Type{array.TypeOf[T]()}, rawOf(dst), rawOf(cond), rawOf(a), rawOf(b))
	if m != nil {
		return onHostMem(m, "Where", rawOf(dst), []*array.Raw{rawOf(cond), rawOf(a), rawOf(b)}, func(mem memFn) error {
			vc, err := viewOn(mem, cond)
			if err != nil {
				return err
			}
			v, err := views(mem, dst, a, b)
			if err != nil {
				return err
			}
			return Where(v[0], vc, v[1], v[2])
		})
	}
	if k == nil {
		return err != nil, err
	}
	return whereDevice(k, dst, cond, a, b)
}
