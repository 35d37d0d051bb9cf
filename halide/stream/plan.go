package stream

import (
	"fmt"
	"slices"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
)

// plan is how the chain covers one output in bands: every band's regions
// and the largest of each, for the buffers. Region i is what step i reads
// (0: the source's band) and step i−1 writes (n: the output's band).
type plan struct {
	dev      device.Device
	dst, src []array.Dim // the shapes it was made for
	types    []array.Type
	bands    [][][]array.Dim // bands[k][i]: band k's region i
	most     []int           // most[i]: region i's elements, largest over bands
}

// fits reports whether p was made for these operands.
func (p *plan) fits(dev device.Device, dst, src *array.Raw) bool {
	same := func(a, b []array.Dim) bool {
		return slices.EqualFunc(a, b, func(x, y array.Dim) bool { return x.Min == y.Min && x.Extent == y.Extent })
	}
	return p != nil && p.dev == dev && p.types[0] == src.Type() && p.types[len(p.types)-1] == dst.Type() &&
		same(p.dst, dst.Dims()) && same(p.src, src.Dims())
}

// makePlan cuts dst's outermost dimension into bands (c, at most one band
// a row) and walks each band's region back through the steps' Needs to
// the source.
func makePlan(dev device.Device, steps []Step, c Cut, dst, src *array.Raw) (*plan, error) {
	n := len(steps)
	p := &plan{dev: dev, dst: dst.Dims(), src: src.Dims(), types: make([]array.Type, n+1), most: make([]int, n+1)}
	p.types[0] = src.Type()
	for i, s := range steps {
		if s.In != (array.Type{}) && s.In != p.types[i] {
			return nil, fmt.Errorf("%w: step %d (%s) reads %v but is given %v", ErrChain, i, s.Name, s.In, p.types[i])
		}
		p.types[i+1] = p.types[i]
		if s.Out != (array.Type{}) {
			p.types[i+1] = s.Out
		}
	}
	if t := p.types[n]; t != dst.Type() {
		return nil, fmt.Errorf("%w: the chain writes %v, the destination holds %v", ErrChain, t, dst.Type())
	}
	outer := len(p.dst) - 1
	rows := 1
	if outer >= 0 {
		rows = p.dst[outer].Extent
	}
	c.Bands = min(max(c.Bands, 1), rows)
	for k := range c.Bands {
		regs := make([][]array.Dim, n+1)
		regs[n] = c.Band(p.dst, k)
		for i := n - 1; i >= 0; i-- {
			if steps[i].Needs == nil {
				regs[i] = slices.Clone(regs[i+1])
				continue
			}
			r, err := steps[i].Needs(slices.Clone(regs[i+1]))
			if err != nil {
				return nil, fmt.Errorf("stream: band %d, step %d (%s): %w", k, i, steps[i].Name, err)
			}
			regs[i] = r
		}
		if err := within(regs[0], p.src); err != nil {
			return nil, fmt.Errorf("%w: band %d: %v", ErrChain, k, err)
		}
		for i, r := range regs {
			e := 1
			for _, d := range r {
				e *= d.Extent
			}
			p.most[i] = max(p.most[i], e)
		}
		p.bands = append(p.bands, regs)
	}
	return p, nil
}

// within checks that the region r lies inside the source's dims.
func within(r, src []array.Dim) error {
	if len(r) != len(src) {
		return fmt.Errorf("the chain reads a %d-D input, the source is %d-D", len(r), len(src))
	}
	for i, d := range r {
		s := src[i]
		if d.Extent < 1 || d.Min < s.Min || d.Min+d.Extent > s.Min+s.Extent {
			return fmt.Errorf("the chain reads %d…%d of dimension %d, the source covers %d…%d: give the source the halo (array.NewWithMins, or a pipeline's NewInputs for the whole output)",
				d.Min, d.Min+d.Extent-1, i, s.Min, s.Max())
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
