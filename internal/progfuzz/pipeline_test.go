package progfuzz

import (
	"errors"
	"math"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/blur"
	"github.com/resident-go/resident/halide/examples/brighter"
	"github.com/resident-go/resident/halide/examples/params"
	"github.com/resident-go/resident/halide/examples/scale3d"
	"github.com/resident-go/resident/ops/engine"
)

type pipe struct {
	p      *halide.Pipeline
	cl     bool
	k      kind
	rank   int
	margin int
}

var pipes = []pipe{
	{brighter.BrighterPipeline, true, kU8, 2, 0},
	{brighter.BrighterHostPipeline, false, kU8, 2, 0},
	{blur.BlurOpenclPipeline, true, kU16, 2, 1},
	{blur.BlurPipeline, false, kU16, 2, 1},
	{scale3d.Scale3dOpenclPipeline, true, kF32, 3, 0},
	{scale3d.Scale3dPipeline, false, kF32, 3, 0},
	{params.ParamsOpenclPipeline, true, kU8, 2, 0},
	{params.ParamsPipeline, false, kU8, 2, 0},
}

func (m *machine) pipeline() {
	pi := m.next() % len(pipes)
	if clDev == nil && pipes[pi].cl {
		pi++
	}
	pp := pipes[pi]
	out := m.pick(m.next(), func(s *slot) bool { return s.r.k == pp.k && s.a.Rank() == pp.rank && s.a.Len() > 0 })
	if out == nil {
		ext := make([]int, pp.rank)
		for i := range ext {
			ext[i] = 1 + m.next()%4
		}
		out = m.dstFor(m.next(), pp.k, ext)
	}
	od := out.a.Dims()
	in := m.pick(m.next(), func(s *slot) bool {
		return s.r.k == pp.k && s.a.Rank() == pp.rank && s.a.Len() > 0 && s.r != out.r
	})
	if in == nil {
		ext := make([]int, pp.rank)
		for i := range ext {
			ext[i] = od[i].Extent + 2*pp.margin
		}
		in = m.dstFor(m.next()+1, pp.k, ext, out)
		if in.r == out.r {
			return
		}
	}
	if m.next()%4 != 0 { // line the input up with the output
		mins := make([]int, pp.rank)
		for i := range mins {
			mins[i] = od[i].Min - pp.margin
		}
		if pp.p == params.ParamsPipeline || pp.p == params.ParamsOpenclPipeline {
			mins[0] = 0
		}
		in = m.addView(in, in.a.setMin(mins), sprintf("SetMin(%v...)", mins))
	}
	id := in.a.Dims()
	ok := true
	for i := range od {
		if id[i].Min > od[i].Min-pp.margin || id[i].Max() < od[i].Max()+pp.margin {
			ok = false
		}
	}
	args := []any{in.a.buf()}
	bufs := []*slot{in}
	var f func(c []int) float64
	inv := func(c ...int) float64 { return in.r.model[m.index(in, c)] }
	switch pp.k {
	case kU8:
		if pp.p == brighter.BrighterPipeline || pp.p == brighter.BrighterHostPipeline {
			k := uint8(m.next())
			args = append(args, k)
			f = func(c []int) float64 { return math.Min(inv(c...)+float64(k), 255) }
			break
		}
		gain := [...]float32{0.5, 1, 2, 3}[m.next()%4]
		bias := int16(m.next()%41 - 20)
		invert := m.next()%2 == 0
		args = append(args, gain, bias, invert)
		ok = ok && id[0].Min == 0
		f = func(c []int) float64 {
			v := float32(inv(c...))*gain + float32(bias)
			v = min(max(v, 0), 255)
			if invert {
				v = 255 - v
			}
			return float64(uint8(v))
		}
	case kU16:
		f = func(c []int) float64 {
			bx := func(x, y int) float64 { return math.Floor((inv(x-1, y) + inv(x, y) + inv(x+1, y)) / 3) }
			x, y := c[0], c[1]
			return math.Floor((bx(x, y-1) + bx(x, y) + bx(x, y+1)) / 3)
		}
	case kF32:
		bias := m.pick(m.next(), func(s *slot) bool {
			return s.r.k == kF32 && s.a.Rank() == 1 && s.a.Dim(0).Extent >= od[2].Extent && m.disjoint(s, out) && s.r != out.r
		})
		if bias == nil {
			bias = m.dstFor(m.next()+2, kF32, []int{od[2].Extent}, out)
			if bias.r == out.r {
				return
			}
		}
		bias = m.addView(bias, bias.a.setMin([]int{od[2].Min}), sprintf("SetMin(%d)", od[2].Min))
		gain := float32(value(kF32, m.next()))
		args = append(args, bias.a.buf(), gain)
		bufs = append(bufs, bias)
		f = func(c []int) float64 {
			return float64(float32(inv(c...))*gain + float32(bias.r.model[m.index(bias, c[2:])]))
		}
	}
	hostOut := m.next()%5 == 0
	if hostOut {
		hv, err := out.a.hostBuf()
		if err != nil {
			m.failf("%s.Host(): %v", out.name, err)
		}
		args = append(args, hv)
	} else {
		args = append(args, out.a.buf())
		bufs = append(bufs, out)
	}
	// Which device: the Arrays' one device (OpenCL), else refused.
	var dev device.Device
	foreign, resident := false, pp.cl && !hostOut
	for i, s := range bufs {
		if s.a.HostOnly() {
			resident = false
			continue
		}
		d := s.a.Device()
		if d == nil {
			resident = false
			continue
		}
		if dev != nil && d != dev {
			foreign = true
		}
		if _, isCL := d.(*opencl.Device); !isCL {
			foreign = true
		}
		dev = d
		if i < len(bufs)-1 && s.a.HostDirty() || i == len(bufs)-1 && hostOut {
			resident = false
		}
	}
	// Halide's default constraint, stride 1 in dimension 0, on every
	// buffer (a host-view output too); the bridge gives a one-element
	// dimension of stride 0 the dense stride.
	for _, s := range append(bufs[:len(bufs):len(bufs)], out) {
		if d := s.a.Dim(0); d.Stride != 1 && !(d.Extent == 1 && d.Stride == 0) {
			ok = false
		}
	}
	foreign = foreign && pp.cl
	resident = resident && !foreign && dev != nil
	vals := []float64{}
	if ok {
		each(od, func(c []int) { vals = append(vals, f(c)) })
	}
	m.logf("err = %sPipeline.Call(%s, %v, %s) // host view out %v, fits %v, foreign %v", pp.p.Name(), in.name, args[1:len(args)-1], out.name, hostOut, ok, foreign)
	before := m.stats()
	err := pp.p.Call(args...)
	var he *halide.Error
	switch {
	case foreign:
		if !errors.As(err, &he) || he.Code != int(halide.ErrForeignDevice) {
			m.failf("%s on Arrays of two devices (or a non-OpenCL one): got %v, want ErrForeignDevice\nstate: %s", pp.p.Name(), err, m.state())
		}
		return
	case !ok:
		if err == nil {
			m.failf("%s with input %v for output %v succeeded, want an error", pp.p.Name(), id, od)
		}
		return
	case err != nil:
		m.failf("%s(%v → %v): %v\nstate: %s", pp.p.Name(), id, od, err, m.state())
	}
	if resident {
		after := m.stats()
		for i, d := range m.devs {
			if d == dev {
				if dl := after[i].Sub(before[i]); dl.H2DCalls != 0 || dl.D2HCalls != 0 {
					m.failf("%s on resident data moved %v", pp.p.Name(), dl)
				}
			}
		}
	}
	if !pp.cl && out.a.DeviceDirty() {
		m.failf("%s (host) left %s device-dirty", pp.p.Name(), out.name)
	}
	if pp.cl && !hostOut && !out.a.HostOnly() && !out.a.DeviceDirty() {
		m.failf("%s (OpenCL) left %s not device-dirty", pp.p.Name(), out.name)
	}
	i := 0
	each(od, func(c []int) { out.r.model[m.index(out, c)] = vals[i]; i++ })
}

func (m *machine) engineStep() {
	if m.eng == nil {
		m.eng = engine.New(clDev)
		m.logf("e := engine.New(cl)")
	}
	switch m.next() % 3 {
	case 0:
		if len(m.slots) >= maxSlots {
			return
		}
		r, c := 1+m.next()%4, 1+m.next()%4
		seed := m.next()
		if m.next()%2 == 0 {
			m.addDense(engNew[float32](m, r, c, seed))
		} else {
			m.addDense(engNew[float64](m, r, c, seed))
		}
	case 1:
		a := m.pick(m.next(), func(s *slot) bool { return s.r.dense != nil && s == m.rootSlot(s.r) })
		if a == nil || len(m.slots) >= maxSlots {
			return
		}
		b := m.pick(m.next(), func(s *slot) bool {
			return s.r.dense != nil && s == m.rootSlot(s.r) && s.r.k == a.r.k && sameDims(s.a.Dims(), a.a.Dims())
		})
		op := m.next() % 3
		var res tensor.Tensor
		var err error
		switch op {
		case 0:
			res, err = a.r.dense.Add(b.r.dense)
		case 1:
			res, err = a.r.dense.Sub(b.r.dense)
		default:
			res, err = a.r.dense.Mul(b.r.dense)
		}
		name := [...]string{"Add", "Sub", "Mul"}[op]
		m.logf("d, err := %s.%s(%s) // Denses of e", a.name, name, b.name)
		if err != nil {
			m.failf("Dense.%s: %v", name, err)
		}
		d := res.(*tensor.Dense)
		var s *slot
		if a.r.k == kF32 {
			s = m.addDense(engArr[float32](m, d))
		} else {
			s = m.addDense(engArr[float64](m, d))
		}
		for i := range s.r.model {
			s.r.model[i] = arith(a.r.k, [...]int{opAdd, opSub, opMul}[op], a.r.model[i], b.r.model[i])
		}
	default:
		a := m.pick(m.next(), func(s *slot) bool { return s.r.dense != nil })
		if a == nil {
			return
		}
		m.logf("h, err := engine.Host(%s.Dense) // compared with the model", a.r.name)
		h, err := engine.Host(a.r.dense)
		if err != nil {
			m.failf("engine.Host: %v", err)
		}
		var got []float64
		switch x := h.Data().(type) {
		case []float32:
			for _, v := range x {
				got = append(got, float64(v))
			}
		case []float64:
			got = x
		}
		for i, w := range a.r.model {
			if !near(a.r.k, got[i], w, 1) {
				m.failf("engine.Host(%s).Data()[%d] = %v, model says %v\nstate: %s", a.r.name, i, got[i], w, m.state())
			}
		}
	}
}

func (m *machine) rootSlot(r *root) *slot {
	for _, s := range m.slots {
		if s.r == r {
			return s
		}
	}
	return nil
}

type denseRoot struct {
	d     *tensor.Dense
	a     arr
	k     kind
	model []float64
}

func (m *machine) addDense(dr denseRoot) *slot {
	r := &root{name: m.name("g"), a: dr.a, k: dr.k, model: dr.model, dense: dr.d}
	if dr.a.Len() > 0 {
		r.base = uintptr(dr.a.Raw().HostPtr())
	}
	m.logf("%s, _ := engine.Array[%s](e, dense) // %v", r.name, dr.k, dr.a.Dims())
	m.roots = append(m.roots, r)
	s := &slot{name: r.name, r: r, a: dr.a}
	m.slots = append(m.slots, s)
	return s
}

func engNew[T float32 | float64](m *machine, rows, cols, seed int) denseRoot {
	dt := tensor.Float32
	if kindOf[T]() == kF64 {
		dt = tensor.Float64
	}
	d := tensor.New(tensor.Of(dt), tensor.WithShape(rows, cols), tensor.WithEngine(m.eng))
	h, err := engine.Host(d)
	if err != nil {
		m.failf("engine.Host: %v", err)
	}
	data := h.Data().([]T)
	model := make([]float64, len(data))
	for i := range data {
		model[i] = value(kindOf[T](), seed+3*i)
		data[i] = T(model[i])
	}
	m.logf("dense := tensor.New(Of(%s), WithShape(%d, %d), WithEngine(e)); engine.Host(dense).Data() = pattern(%d)", dt, rows, cols, seed)
	dr := engArr[T](m, d)
	dr.model = model
	return dr
}

func engArr[T float32 | float64](m *machine, d *tensor.Dense) denseRoot {
	a, err := engine.Array[T](m.eng, d)
	if err != nil {
		m.failf("engine.Array: %v", err)
	}
	return denseRoot{d: d, a: tv[T]{a}, k: kindOf[T](), model: make([]float64, a.Len())}
}

var _ = array.ErrClosed
