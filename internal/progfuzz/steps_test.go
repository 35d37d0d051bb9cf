package progfuzz

import (
	"errors"
	"math"
	"runtime"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
)

const maxSlots = 14

// live returns the b-th live slot (cyclically) that ok accepts, or nil.
func (m *machine) pick(b int, ok func(*slot) bool) *slot {
	n := len(m.slots)
	for i := 0; i < n; i++ {
		s := m.slots[(b+i)%n]
		if !s.r.closed && (ok == nil || ok(s)) {
			return s
		}
	}
	return nil
}

func (m *machine) step(k int) {
	switch k {
	case sNewRoot:
		m.newRoot()
	case sView:
		m.view()
	case sHostWrite:
		m.hostWrite()
	case sHostRead:
		m.hostRead()
	case sBinary, sScalar, sUnary, sCopyFill, sCast:
		m.elementwise(k)
	case sReduce:
		m.reduce()
	case sMatMul:
		m.matmul()
	case sPipeline:
		m.pipeline()
	case sEngine:
		m.engineStep()
	case sOn:
		m.on()
	case sMoveTo:
		m.moveTo()
	case sSync:
		m.sync()
	case sClose:
		m.closeRoot()
	case sGC:
		m.logf("runtime.GC()")
		runtime.GC()
	}
}

func (m *machine) newRoot() {
	if len(m.slots) >= maxSlots {
		return
	}
	k := kind(m.next() % int(nKinds))
	rank := m.next() % 4
	mins, ext := make([]int, rank), make([]int, rank)
	for i := range ext {
		ext[i] = m.next() % 5 // 0…4, empty included
		mins[i] = m.next()%7 - 3
	}
	m.addRoot(k, m.next()%4 == 0, mins, ext)
}

func (m *machine) view() {
	s := m.pick(m.next(), nil)
	if s == nil || len(m.slots) >= maxSlots {
		return
	}
	a := s.a
	r := a.Rank()
	op := m.next() % 8
	if r == 0 && op != 6 {
		op = 7
	}
	switch op {
	case 0: // crop
		k := m.next() % r
		d := a.Dim(k)
		lo := d.Min + m.next()%max(d.Extent, 1)
		n := m.next() % (d.Max() - lo + 2)
		m.addView(s, a.crop(k, lo, n), sprintf("Crop(%d, %d, %d)", k, lo, n))
	case 1: // slice
		k := m.next() % r
		d := a.Dim(k)
		if d.Extent == 0 {
			return
		}
		p := d.Min + m.next()%d.Extent
		m.addView(s, a.slice(k, p), sprintf("Slice(%d, %d)", k, p))
	case 2: // transpose
		i, j := m.next()%r, m.next()%r
		m.addView(s, a.transpose(i, j), sprintf("Transpose(%d, %d)", i, j))
	case 3: // permute
		order := make([]int, r)
		for i := range order {
			order[i] = i
		}
		for i := r - 1; i > 0; i-- {
			j := m.next() % (i + 1)
			order[i], order[j] = order[j], order[i]
		}
		m.addView(s, a.permute(order), sprintf("Permute(%v...)", order))
	case 4: // new mins
		mins := make([]int, r)
		for i := range mins {
			mins[i] = m.next()%9 - 4
		}
		m.addView(s, a.setMin(mins), sprintf("SetMin(%v...)", mins))
	case 5: // steps via View: every second element of dimension k (refused unless a box)
		k := m.next() % r
		dims := a.Dims()
		dims[k].Stride *= 2
		dims[k].Extent = (dims[k].Extent + 1) / 2
		m.tryView(s, 0, dims)
	case 6: // a broadcast: a stride-0 dimension of extent 1 in front
		dims := append([]array.Dim{{Min: m.next()%5 - 2, Extent: 1, Stride: 0}}, a.Dims()...)
		m.tryView(s, 0, dims)
	default: // reshape dense data, or a 1-element view
		if a.Raw().Dense() && a.Len() > 0 {
			n := a.Len()
			w := 1 + m.next()%n
			for n%w != 0 {
				w--
			}
			m.tryView(s, 0, []array.Dim{{Min: m.next()%5 - 2, Extent: w, Stride: 1}, {Min: 1, Extent: n / w, Stride: w}})
			return
		}
		m.tryView(s, 0, nil)
	}
}

func (m *machine) tryView(s *slot, off int, dims []array.Dim) {
	v, err := s.a.view(off, dims)
	if err != nil {
		if !errors.Is(err, array.ErrShape) && !errors.Is(err, array.ErrOutOfRange) {
			m.failf("%s.View(%d, %v): %v, want an error wrapping ErrShape or ErrOutOfRange", s.name, off, dims, err)
		}
		m.logf("_, err = %s.View(%d, %v) // refused: %v", s.name, off, dims, err)
		return
	}
	m.addView(s, v, sprintf("View(%d, %v)", off, dims))
}

// value is a small test value of kind k: exact in every kind, so host and
// device agree bit for bit on integer-valued arithmetic.
func value(k kind, b int) float64 {
	v := float64(b%17 - 8)
	if !k.signed() {
		v = float64(b % 16)
	} else if k.float() && b%5 == 0 {
		v += 0.5
	}
	return v
}

func (m *machine) hostWrite() {
	s := m.pick(m.next(), nil)
	if s == nil {
		return
	}
	seed, fill := m.next(), m.next()%3 == 0
	f := func(c []int) float64 {
		if fill {
			return value(s.r.k, seed)
		}
		h := seed
		for i, x := range c {
			h += (x + 7) * (3 + 2*i)
		}
		return value(s.r.k, h)
	}
	m.logf("h, _ := %s.Host(); for each c: h.Set(pattern(%d, fill=%v)(c), c...)", s.name, seed, fill)
	if err := s.a.hostWrite(f); err != nil {
		m.failf("%s.Host(): %v", s.name, err)
	}
	each(s.a.Dims(), func(c []int) { s.r.model[m.index(s, c)] = f(c) })
	if s.a.Len() > 0 && s.a.Device() != nil && s.a.DeviceDirty() {
		m.failf("%s is device-dirty after a write through its host view", s.name)
	}
}

func (m *machine) hostRead() {
	s := m.pick(m.next(), nil)
	if s == nil {
		return
	}
	m.logf("h, _ := %s.HostReadOnly() // compared with the model", s.name)
	err := s.a.hostRead(func(c []int, v float64) {
		i := m.index(s, c)
		if !near(s.r.k, v, s.r.model[i], 1) {
			m.failf("%s.HostReadOnly().At(%v) = %v, model says %v\nstate: %s", s.name, c, v, s.r.model[i], m.state())
		}
	})
	if err != nil {
		m.failf("%s.HostReadOnly(): %v", s.name, err)
	}
	if s.a.DeviceDirty() {
		m.failf("%s is device-dirty after HostReadOnly", s.name)
	}
}

// fits says whether in broadcasts to dst's shape (ops' rule).
func fits(in, dst arr) bool {
	if in.Rank() > dst.Rank() {
		return false
	}
	for k := 0; k < in.Rank(); k++ {
		if e := in.Dim(k).Extent; e != 1 && e != dst.Dim(k).Extent {
			return false
		}
	}
	return true
}

// inCoord maps dst coordinate c to in's coordinate under broadcasting.
func inCoord(in arr, dstDims []array.Dim, c []int) []int {
	ic := make([]int, in.Rank())
	for k := range ic {
		d := in.Dim(k)
		if d.Extent == 1 {
			ic[k] = d.Min
		} else {
			ic[k] = d.Min + c[k] - dstDims[k].Min
		}
	}
	return ic
}

// input picks an input for dst of kind k (any kind when k < 0) that
// broadcasts to it and does not overlap it (or is it): dst itself if none.
func (m *machine) input(b int, dst *slot, k kind) *slot {
	s := m.pick(b, func(s *slot) bool {
		return (k < 0 || s.r.k == k) && fits(s.a, dst.a) && m.disjoint(s, dst)
	})
	if s == nil && (k < 0 || k == dst.r.k) {
		s = dst
	}
	return s
}

// where predicts an op's device by ops' documented rule: nil for the
// host; foreign when allocated operands live on two devices. upload says
// an input must be uploaded if it runs on the device; download that a
// device-dirty operand must come home if it runs on the host.
func where(dst *slot, ins ...*slot) (dev device.Device, foreign, upload, download bool) {
	hostOnly, dirty, current, inputs := false, false, true, false
	if dst != nil && dst.a.Len() == 0 {
		return nil, false, false, false
	}
	all := append([]*slot{dst}, ins...)
	for i, s := range all {
		if s == nil || s.a.Len() == 0 {
			continue
		}
		if s.a.HostOnly() {
			hostOnly = true
			continue
		}
		inputs = inputs || i > 0
		d := s.a.Device()
		if d == nil {
			if i > 0 {
				current, upload = false, true
			}
			continue
		}
		if dev != nil && d != dev {
			return nil, true, false, false
		}
		dev = d
		if s.a.DeviceDirty() {
			dirty, download = true, true
		}
		if i > 0 && s.a.HostDirty() {
			current, upload = false, true
		}
	}
	if !inputs && dst != nil && dst.a.HostDirty() {
		current = false
	}
	if _, ok := dev.(*opencl.Device); !ok || hostOnly || !(dirty || current) {
		return nil, false, false, download
	}
	return dev, false, upload, false
}

// checkWhere checks an op's outcome against where's prediction: the
// device result, which counters moved, dst's state.
func (m *machine) checkWhere(what string, err error, dst *slot, before []device.Stats, dev device.Device, foreign, upload, download bool) bool {
	m.t.Helper()
	if foreign {
		if !errors.Is(err, device.ErrForeign) {
			m.failf("%s with operands on two devices: got %v, want an error wrapping device.ErrForeign", what, err)
		}
		return false
	}
	if err != nil {
		m.failf("%s: %v", what, err)
	}
	after := m.stats()
	for i, d := range m.devs {
		dl := after[i].Sub(before[i])
		if d == dev {
			if dl.D2HCalls != 0 || (!upload && dl.H2DCalls != 0) {
				m.failf("%s ran on %s: transfers %v (upload needed %v)\nstate: %s", what, m.devName(d), dl, upload, m.state())
			}
			continue
		}
		if dl.H2DCalls != 0 || (!download && dl.D2HCalls != 0) {
			m.failf("%s predicted on %s: %s moved %v (download needed %v)\nstate: %s", what, m.devName(dev), m.devName(d), dl, download, m.state())
		}
	}
	if dst != nil && dst.a.Len() > 0 {
		if dev != nil && (dst.a.Device() != dev || !dst.a.DeviceDirty()) {
			m.failf("%s ran on %s: dst %s is on %s, device-dirty %v", what, m.devName(dev), dst.name, m.devName(dst.a.Device()), dst.a.DeviceDirty())
		}
		if dev == nil && dst.a.DeviceDirty() {
			m.failf("%s ran on the host: dst %s is device-dirty", what, dst.name)
		}
	}
	return true
}

// arith computes a binary op in kind k, as the library documents it.
func arith(k kind, op int, a, b float64) float64 {
	if !k.float() {
		x, y := int64(a), int64(b)
		var r int64
		switch op {
		case opAdd:
			r = x + y
		case opSub:
			r = x - y
		case opMul:
			r = x * y
		case opDiv:
			if y != 0 {
				r = x / y
			}
		case opMax:
			r = max(x, y)
		default:
			r = min(x, y)
		}
		return wrapTo(k, float64(r))
	}
	var r float64
	switch op {
	case opAdd:
		r = a + b
	case opSub:
		r = a - b
	case opMul:
		r = a * b
	case opDiv:
		r = a / b
	case opMax:
		r = math.Max(a, b)
	default:
		r = math.Min(a, b)
	}
	return wrapTo(k, r)
}

func (m *machine) elementwise(kindOfStep int) {
	dst := m.pick(m.next(), nil)
	if dst == nil {
		return
	}
	k := dst.r.k
	var (
		a, b *slot
		err  error
		f    func(c []int) float64
		what string
	)
	val := func(s *slot, c []int) float64 {
		return s.r.model[m.index(s, inCoord(s.a, dst.a.Dims(), c))]
	}
	dims := dst.a.Dims()
	switch kindOfStep {
	case sBinary:
		op := m.next() % nBinary
		a, b = m.input(m.next(), dst, k), m.input(m.next(), dst, k)
		if op == opDiv && k.float() {
			zero := false
			each(dims, func(c []int) { zero = zero || val(b, c) == 0 })
			if zero {
				op = opAdd // keep NaN and Inf out of the model
			}
		}
		what = sprintf("ops.%s(%s, %s, %s)", binaryNames[op], dst.name, a.name, b.name)
		f = func(c []int) float64 { return arith(k, op, val(a, c), val(b, c)) }
		defer func() {}()
		m.run(what, dst, []*slot{a, b}, f, func() error { return dst.a.binary(op, a.a, b.a) })
		return
	case sScalar:
		op := m.next() % 4
		a = m.input(m.next(), dst, k)
		s := value(k, m.next())
		if op == opDiv && s == 0 {
			s = 2
		}
		what = sprintf("ops.%sScalar(%s, %s, %v)", binaryNames[op], dst.name, a.name, s)
		f = func(c []int) float64 { return arith(k, op, val(a, c), s) }
		m.run(what, dst, []*slot{a}, f, func() error { return dst.a.scalar(op, a.a, s) })
		return
	case sUnary:
		op := m.next() % 2
		a = m.input(m.next(), dst, k)
		what = sprintf("ops.%s(%s, %s)", [...]string{"Neg", "Abs"}[op], dst.name, a.name)
		if !k.signed() {
			_, foreign, _, _ := where(dst, a)
			err = dst.a.unary(op, a.a)
			m.logf("err = %s // %v", what, err)
			switch {
			case foreign: // either refusal may come first
				if !errors.Is(err, device.ErrForeign) && !(op == 0 && errors.Is(err, ops.ErrUnsupported)) {
					m.failf("%s of unsigned on two devices: got %v, want ErrForeign or ErrUnsupported", what, err)
				}
				return
			case op == 0 && !errors.Is(err, ops.ErrUnsupported):
				m.failf("%s of unsigned: got %v, want ErrUnsupported", what, err)
			}
			if err == nil { // Abs of unsigned: the identity
				each(dims, func(c []int) { dst.r.model[m.index(dst, c)] = val(a, c) })
			}
			return
		}
		f = func(c []int) float64 {
			v := val(a, c)
			if op == 0 || v < 0 {
				v = -v
			}
			return wrapTo(k, v)
		}
		m.run(what, dst, []*slot{a}, f, func() error { return dst.a.unary(op, a.a) })
		return
	case sCopyFill:
		if m.next()%2 == 0 {
			x := value(k, m.next())
			what = sprintf("ops.Fill(%s, %v)", dst.name, x)
			m.run(what, dst, nil, func([]int) float64 { return x }, func() error { return dst.a.fill(x) })
			return
		}
		a = m.input(m.next(), dst, k)
		what = sprintf("ops.Copy(%s, %s)", dst.name, a.name)
		m.run(what, dst, []*slot{a}, func(c []int) float64 { return val(a, c) }, func() error { return dst.a.copyFrom(a.a) })
		return
	case sCast:
		a = m.input(m.next(), dst, -1)
		if a == nil {
			return
		}
		sat := m.next()%2 == 0
		what = sprintf("ops.Cast%s(%s, %s) // %s ← %s", map[bool]string{true: "Saturate", false: "Wrap"}[sat], dst.name, a.name, k, a.r.k)
		f = func(c []int) float64 {
			if sat {
				return satTo(k, val(a, c))
			}
			return wrapTo(k, val(a, c))
		}
		m.run(what, dst, []*slot{a}, f, func() error { return dst.a.castFrom(a.a, sat) })
	}
}

// run runs an op writing dst, checks where it ran, and updates the model
// (computed before the op, so in-place ops read the old values).
func (m *machine) run(what string, dst *slot, ins []*slot, f func(c []int) float64, op func() error) {
	m.t.Helper()
	dev, foreign, upload, download := where(dst, ins...)
	vals := []float64{}
	each(dst.a.Dims(), func(c []int) { vals = append(vals, f(c)) })
	m.logf("err = %s // predicted on %s", what, m.devName(dev))
	before := m.stats()
	if !m.checkWhere(what, op(), dst, before, dev, foreign, upload, download) {
		return
	}
	i := 0
	each(dst.a.Dims(), func(c []int) { dst.r.model[m.index(dst, c)] = vals[i]; i++ })
}
