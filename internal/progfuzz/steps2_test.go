package progfuzz

import (
	"errors"
	"fmt"
	"math"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// dstFor finds a live slot of kind k with extents ext that does not overlap
// the avoid slots, or makes a new root (mins from b).
func (m *machine) dstFor(b int, k kind, ext []int, avoid ...*slot) *slot {
	s := m.pick(b, func(s *slot) bool {
		if s.r.k != k || s.a.Rank() != len(ext) {
			return false
		}
		for i, e := range ext {
			if s.a.Dim(i).Extent != e {
				return false
			}
		}
		for _, a := range avoid {
			if !m.disjoint(s, a) || (s.r == a.r && s.a.Raw().HostPtr() == a.a.Raw().HostPtr() && s.a.Len() > 0) {
				return false
			}
		}
		return true
	})
	if s != nil {
		return s
	}
	mins := make([]int, len(ext))
	for i := range mins {
		mins[i] = (b+i)%5 - 2
	}
	return m.addRoot(k, b%5 == 0, mins, ext)
}

func (m *machine) reduce() {
	a := m.pick(m.next(), nil)
	if a == nil {
		return
	}
	k := a.r.k
	sumOf := func(get func(yield func(float64))) (s, abs float64) {
		get(func(v float64) { s += v; abs += math.Abs(v) })
		if !k.float() {
			return wrapTo(k, s), abs
		}
		return s, abs
	}
	switch op := m.next() % 3; {
	case op == 0 && a.a.Rank() > 0: // Sum along a dimension
		d := m.next() % a.a.Rank()
		var ext []int
		for i, x := range a.a.Dims() {
			if i != d {
				ext = append(ext, x.Extent)
			}
		}
		dst := m.dstFor(m.next(), k, ext, a)
		f := func(c []int) float64 {
			s, abs := sumOf(func(yield func(float64)) {
				ac := make([]int, 0, a.a.Rank())
				ac = append(ac, c[:d]...)
				ac = append(ac, 0)
				ac = append(ac, c[d:]...)
				dd := a.a.Dim(d)
				for x := dd.Min; x <= dd.Max(); x++ {
					ac[d] = x
					full := make([]int, len(ac))
					for i := range ac {
						if i == d {
							full[i] = ac[i]
						} else {
							full[i] = a.a.Dim(i).Min + ac[i] - dst.a.Dim(idxSkip(i, d)).Min
						}
					}
					yield(a.r.model[m.index(a, full)])
				}
			})
			_ = abs
			return wrapTo(k, s)
		}
		m.run(sprintf("ops.Sum(%s, %s, %d)", dst.name, a.name, d), dst, []*slot{a}, f, func() error { return dst.a.sum(a.a, d) })
	default: // SumAll / MaxAll
		if a.a.Len() == 0 {
			return
		}
		dev, foreign, upload, download := where(nil, a)
		before := m.stats()
		var got, want, abs float64
		var err error
		if op == 1 {
			got, err = a.a.sumAll()
			want, abs = sumOf(func(yield func(float64)) {
				each(a.a.Dims(), func(c []int) { yield(a.r.model[m.index(a, c)]) })
			})
			want = wrapTo(k, want)
		} else {
			got, err = a.a.maxAll()
			want = math.Inf(-1)
			each(a.a.Dims(), func(c []int) { want = math.Max(want, a.r.model[m.index(a, c)]) })
		}
		what := sprintf("%s(%s)", [...]string{"", "ops.SumAll", "ops.MaxAll"}[max(op, 1)], a.name)
		m.logf("x, err := %s // predicted on %s", what, m.devName(dev))
		if m.checkWhere(what, err, nil, before, dev, foreign, upload, download) && !near(k, got, want, abs) {
			m.failf("%s = %v, model says %v\nstate: %s", what, got, want, m.state())
		}
	}
}

// idxSkip maps a's dimension i (≠ d) to dst's dimension.
func idxSkip(i, d int) int {
	if i > d {
		return i - 1
	}
	return i
}

func (m *machine) matmul() {
	a := m.pick(m.next(), func(s *slot) bool { return s.r.k.float() && s.a.Rank() == 2 })
	if a == nil {
		return
	}
	K, M := a.a.Dim(0).Extent, a.a.Dim(1).Extent
	b := m.pick(m.next(), func(s *slot) bool { return s.r.k == a.r.k && s.a.Rank() == 2 && s.a.Dim(1).Extent == K })
	if b == nil {
		b = m.dstFor(m.next(), a.r.k, []int{1 + m.next()%3, K})
	}
	N := b.a.Dim(0).Extent
	dst := m.dstFor(m.next(), a.r.k, []int{N, M}, a, b)
	if dst == a || dst == b {
		return
	}
	k := a.r.k
	vals := []float64{}
	each(dst.a.Dims(), func(c []int) {
		j, i := c[0]-dst.a.Dim(0).Min, c[1]-dst.a.Dim(1).Min
		s := 0.0
		for p := 0; p < K; p++ {
			s += a.r.model[m.index(a, []int{a.a.Dim(0).Min + p, a.a.Dim(1).Min + i})] *
				b.r.model[m.index(b, []int{b.a.Dim(0).Min + j, b.a.Dim(1).Min + p})]
		}
		vals = append(vals, wrapTo(k, s))
	})
	_, foreign, _, _ := where(dst, a, b)
	what := sprintf("ops.MatMul(%s, %s, %s)", dst.name, a.name, b.name)
	m.logf("err = %s", what)
	_, err := dst.a.matmul(a.a, b.a)
	if foreign {
		if !errors.Is(err, device.ErrForeign) {
			m.failf("%s with operands on two devices: got %v, want an error wrapping device.ErrForeign", what, err)
		}
		return
	}
	if err != nil {
		m.failf("%s: %v", what, err)
	}
	i := 0
	each(dst.a.Dims(), func(c []int) { dst.r.model[m.index(dst, c)] = vals[i]; i++ })
}

func (m *machine) on() {
	s := m.pick(m.next(), func(s *slot) bool { return s.r.dense == nil && !s.a.HostOnly() })
	if s == nil {
		return
	}
	d := clDev
	if n := m.next() % 3; n > 0 && len(halves) == 2 {
		d = halves[n-1]
	}
	cur := s.a.Device()
	m.logf("err = ops.On(%s, %s)", m.devName(d), s.name)
	err := ops.On(d, s.a.buf())
	if cur != nil && cur != device.Device(d) && s.a.Len() > 0 {
		if !errors.Is(err, device.ErrForeign) {
			m.failf("ops.On(%s, %s) of an Array on %s: got %v, want an error wrapping device.ErrForeign", m.devName(d), s.name, m.devName(cur), err)
		}
		return
	}
	if err != nil {
		m.failf("ops.On: %v", err)
	}
	if s.a.Len() > 0 && (s.a.Device() != device.Device(d) || s.a.HostDirty()) {
		m.failf("after ops.On(%s, %s): on %s, host-dirty %v", m.devName(d), s.name, m.devName(s.a.Device()), s.a.HostDirty())
	}
}

func (m *machine) moveTo() {
	s := m.pick(m.next(), func(s *slot) bool { return s.r.dense == nil && !s.a.HostOnly() })
	if s == nil {
		return
	}
	d := m.devs[m.next()%len(m.devs)]
	dirty := s.r.a.DeviceDirty()
	from := s.a.Device()
	m.logf("path, err := %s.MoveTo(%s) // from %s, root device-dirty %v", s.name, m.devName(d), m.devName(from), dirty)
	p, err := s.a.MoveTo(d)
	if err != nil {
		m.failf("%s.MoveTo(%s): %v", s.name, m.devName(d), err)
	}
	if want := dirty && from != d; (p != device.PathNone) != want {
		m.failf("%s.MoveTo(%s) from %s with device-dirty %v: path %v", s.name, m.devName(d), m.devName(from), dirty, p)
	}
	if s.r.a.Device() != d || s.a.Device() != d {
		m.failf("after %s.MoveTo(%s): root on %s, view on %s", s.name, m.devName(d), m.devName(s.r.a.Device()), m.devName(s.a.Device()))
	}
}

func (m *machine) sync() {
	s := m.pick(m.next(), nil)
	if s == nil {
		return
	}
	switch m.next() % 3 {
	case 0:
		m.logf("err = %s.CopyToHost()", s.name)
		if err := s.a.CopyToHost(); err != nil {
			m.failf("%s.CopyToHost(): %v", s.name, err)
		}
		if s.a.DeviceDirty() {
			m.failf("%s is device-dirty after CopyToHost", s.name)
		}
	case 1:
		if s.a.HostOnly() || s.r.dense != nil {
			return
		}
		d := s.a.Device()
		if d == nil {
			d = m.devs[m.next()%len(m.devs)]
		}
		m.logf("err = %s.CopyToDevice(%s)", s.name, m.devName(d))
		if err := s.a.CopyToDevice(d); err != nil {
			m.failf("%s.CopyToDevice(%s): %v", s.name, m.devName(d), err)
		}
		if s.a.HostDirty() || (s.a.Len() > 0 && s.a.Device() != d) {
			m.failf("after %s.CopyToDevice(%s): host-dirty %v, on %s", s.name, m.devName(d), s.a.HostDirty(), m.devName(s.a.Device()))
		}
	default:
		if s.r.dense != nil {
			return
		}
		m.logf("err = %s.DeviceFree()", s.name)
		if err := s.a.DeviceFree(); err != nil {
			m.failf("%s.DeviceFree(): %v", s.name, err)
		}
	}
}

func (m *machine) closeRoot() {
	s := m.pick(m.next(), func(s *slot) bool { return s.r.dense == nil })
	if s == nil {
		return
	}
	r := s.r
	m.logf("err = %s.Close()", r.name)
	if err := r.a.Close(); err != nil {
		m.failf("%s.Close(): %v", r.name, err)
	}
	if err := r.a.Close(); err != nil {
		m.failf("%s.Close() a second time: %v (Close is idempotent)", r.name, err)
	}
	r.closed = true
	// Use after Close: every slot of r, one way each.
	for _, v := range m.slots {
		if v.r != r {
			continue
		}
		a := v.a
		switch m.next() % 5 {
		case 0:
			m.logf("_, err = %s.HostReadOnly() // after Close", v.name)
			m.mustClosed(v.name+".HostReadOnly()", func() error { return a.hostRead(func([]int, float64) {}) })
		case 1:
			m.logf("err = ops.Fill(%s, 1) // after Close", v.name)
			m.mustClosed("ops.Fill("+v.name+")", func() error { return a.fill(1) })
		case 2:
			m.logf("_, err = %s.MoveTo(simDev) // after Close", v.name)
			m.mustClosed(v.name+".MoveTo", func() error { _, err := a.MoveTo(m.sim); return err })
		case 3:
			if clDev == nil {
				continue
			}
			m.logf("err = ops.On(cl, %s) // after Close", v.name)
			m.mustClosed("ops.On(cl, "+v.name+")", func() error { return ops.On(clDev, a.buf()) })
		default:
			m.logf("err = %s.CopyToHost() // after Close", v.name)
			m.mustClosed(v.name+".CopyToHost()", func() error { return a.CopyToHost() })
		}
	}
}

var _ = opencl.Default
