package progfuzz

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// addRoot makes a root and its slot; its model is zero (New zeroes).
func (m *machine) addRoot(k kind, hostOnly bool, mins, ext []int) *slot {
	a, err := makeRoot(k, hostOnly, mins, ext)
	if err != nil {
		m.failf("making a root: %v", err)
	}
	n := 1
	for _, e := range ext {
		n *= e
	}
	r := &root{name: m.name("r"), a: a, k: k, model: make([]float64, n)}
	if n > 0 {
		r.base = uintptr(a.Raw().HostPtr())
	}
	if hostOnly {
		m.logf("%s, _ := array.Wrap(make([]%s, %d), dims(mins %v, extents %v)) // host-only", r.name, k, n, mins, ext)
	} else {
		m.logf("%s := array.NewWithMins[%s](%#v, %#v)", r.name, k, mins, ext)
	}
	m.roots = append(m.roots, r)
	s := &slot{name: r.name, r: r, a: a}
	m.slots = append(m.slots, s)
	return s
}

func (m *machine) addView(s *slot, a arr, expr string) *slot {
	v := &slot{name: m.name("v"), r: s.r, a: a}
	m.logf("%s := %s.%s // %v", v.name, s.name, expr, a.Dims())
	m.slots = append(m.slots, v)
	return v
}

// index is the model index (storage index from the root's min corner) of
// coordinate c of s.
func (m *machine) index(s *slot, c []int) int {
	i := int(uintptr(s.a.Raw().HostPtr())-s.r.base) / s.r.k.size()
	for k, d := range s.a.Dims() {
		i += (c[k] - d.Min) * d.Stride
	}
	return i
}

// positions is the set of model indexes of s.
func (m *machine) positions(s *slot) map[int]bool {
	p := map[int]bool{}
	each(s.a.Dims(), func(c []int) { p[m.index(s, c)] = true })
	return p
}

// disjoint says whether a and b share no element, or are the same
// elements in the same layout (in place).
func (m *machine) disjoint(a, b *slot) bool {
	if a.r != b.r || a.a.Len() == 0 || b.a.Len() == 0 {
		return true
	}
	if a.a.Raw().HostPtr() == b.a.Raw().HostPtr() && sameDims(a.a.Dims(), b.a.Dims()) {
		return true
	}
	pa := m.positions(a)
	for i := range m.positions(b) {
		if pa[i] {
			return false
		}
	}
	return true
}

func sameDims(a, b []array.Dim) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// close reports whether got is want up to kind k's tolerance (floats: a
// few ulps, as a device's division may differ); NaNs match NaNs.
func near(k kind, got, want, scale float64) bool {
	if got == want || (math.IsNaN(got) && math.IsNaN(want)) {
		return true
	}
	if !k.float() || math.IsInf(want, 0) || math.IsNaN(want) {
		return false
	}
	tol := 1e-12
	if k == kF32 {
		tol = 1e-5
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), scale)+1e-300
}

// checkAll checks every live root against its model without changing any
// state: host bytes directly, device-newer elements from the device; and
// the residency invariants of every element.
func (m *machine) checkAll(after string) {
	m.t.Helper()
	for _, r := range m.roots {
		if r.closed || len(r.model) == 0 {
			continue
		}
		raw := r.a.Raw()
		host := append([]byte(nil), raw.HostBytes()...)
		var dev []byte
		d := r.a.Device()
		if d == nil && r.a.DeviceDirty() {
			m.failf("after %s: %s is device-dirty with no device", after, r.name)
		}
		if d != nil && r.a.DeviceDirty() {
			dev = make([]byte, len(host))
			alloc, off := raw.Allocation()
			if err := d.CopyOut(dev, alloc, off, raw.Region()); err != nil {
				m.failf("after %s: reading %s's device copy: %v", after, r.name, err)
			}
		}
		anyHD, anyDD := false, false
		sz := r.k.size()
		rs := &slot{r: r, a: r.a}
		each(r.a.Dims(), func(c []int) {
			e := r.a
			for k := range c {
				e = e.crop(k, c[k], 1)
			}
			hd, dd := e.HostDirty(), e.DeviceDirty()
			anyHD, anyDD = anyHD || hd, anyDD || dd
			if hd && dd {
				m.failf("after %s: element %v of %s is both host- and device-dirty", after, c, r.name)
			}
			i := m.index(rs, c)
			src, side := host, "host"
			if dd {
				src, side = dev, "device"
			}
			got := decode(r.k, src[i*sz:])
			if !near(r.k, got, r.model[i], 1) {
				m.failf("after %s: %s%v (%s copy) = %v, model says %v\nstate: %s", after, r.name, c, side, got, r.model[i], m.state())
			}
			r.model[i] = got // adopt a float within tolerance, so errors do not accumulate
		})
		if anyHD != r.a.HostDirty() || anyDD != r.a.DeviceDirty() {
			m.failf("after %s: %s says HostDirty %v DeviceDirty %v, its elements %v %v", after, r.name, r.a.HostDirty(), r.a.DeviceDirty(), anyHD, anyDD)
		}
	}
}

// state describes the live roots, for failure messages.
func (m *machine) state() string {
	var b strings.Builder
	for _, r := range m.roots {
		if r.closed {
			fmt.Fprintf(&b, "\n\t%s: closed", r.name)
			continue
		}
		fmt.Fprintf(&b, "\n\t%s %s %v on %s host-dirty %v device-dirty %v host-only %v model %v", r.name, r.k, r.a.Dims(), m.devName(r.a.Device()), r.a.HostDirty(), r.a.DeviceDirty(), r.a.HostOnly(), r.model)
	}
	return b.String()
}

// stats snapshots every device's counters.
func (m *machine) stats() []device.Stats {
	s := make([]device.Stats, len(m.devs))
	for i, d := range m.devs {
		s[i] = d.Stats()
	}
	return s
}

// mustClosed runs f, which uses a closed Array, and fails unless it returns
// an error wrapping array.ErrClosed or panics with one.
func (m *machine) mustClosed(what string, f func() error) {
	m.t.Helper()
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				e, ok := p.(error)
				if !ok {
					m.failf("%s after Close panicked with %v (%T), not an error wrapping array.ErrClosed", what, p, p)
				}
				err = e
			}
		}()
		err = f()
	}()
	if !errors.Is(err, array.ErrClosed) {
		m.failf("%s after Close: got %v, want an error (or panic) wrapping array.ErrClosed", what, err)
	}
}

// cleanup closes what the program made and checks the simulator let go of
// everything.
func (m *machine) cleanup() {
	for _, r := range m.roots {
		if r.dense == nil && !r.closed {
			r.a.Close()
		}
	}
	if m.eng != nil {
		m.eng.Close()
	}
	if s := m.sim.Stats(); s.AllocsLive != 0 {
		m.t.Errorf("after closing every root the simulator holds %v", s)
	}
	m.sim.Close()
}
