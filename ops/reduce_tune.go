package ops

import (
	"github.com/resident-go/resident/device"
)

// reduceTuning is Tuning's Reduce field.
type reduceTuning = struct {
	TwoPass       bool
	GroupsPerUnit int
	WorkGroup     int
	Unroll        int
}

// Package defaults of Tuning.Reduce's zero fields (tests change them).
var (
	reduceOnePass       = true
	reduceGroupsPerUnit = 4
	reduceWG            = 0
	reduceUnroll        = 4
)

// redTuning is s's Tuning.Reduce with the defaults filled in.
func (s devRef) redTuning() reduceTuning {
	s.mu.Lock()
	t := s.tuning.Reduce
	s.mu.Unlock()
	if !reduceOnePass {
		t.TwoPass = true
	}
	if t.GroupsPerUnit == 0 {
		t.GroupsPerUnit = reduceGroupsPerUnit
	}
	if t.WorkGroup == 0 {
		t.WorkGroup = reduceWG
	}
	if t.Unroll == 0 {
		t.Unroll = reduceUnroll
	}
	return t
}

// redGroups is the part pass's work-groups per compute unit on s.
func (s devRef) redGroups() int { return s.redTuning().GroupsPerUnit }

// redWG is the work-group size of the reductions' part pass on s.
func (s devRef) redWG() int {
	if w := s.redTuning().WorkGroup; w > 0 && w&(w-1) == 0 && w <= s.maxGroup {
		return w
	}
	return s.wg
}

// redUnroll is s's unroll rounded down to 1, 2, 4 or 8.
func (s devRef) redUnroll() int {
	r, u := s.redTuning().Unroll, 1
	for u*2 <= r && u < 8 {
		u *= 2
	}
	return u
}

// redFence says whether the reduction program for d needs PTX's membar.gl
// for its one-pass kernels (NVIDIA's OpenCL: see GLOBAL_FENCE in
// cl/reduce.cl), and redFenceInject is put before such a program's
// source: the tests force the fence on PoCL with an #error, to see the
// fallback when a build refuses it.
var (
	redFence       = func(d device.Kernels) bool { return d.Caps().Lang == "OpenCL C" && isNVIDIA(d) }
	redFenceInject = ""
)

// onePass says whether runReduce and fuseDevice join partials in one
// launch on s: on,
// unless the fence that the one-pass kernels need on this device did not
// build (then the program was built without it, and the two-pass path
// runs).
func (s devRef) onePass() bool {
	if s.redTuning().TwoPass {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fenceErr == nil
}

// countersFor returns the one-pass kernels' counters, at least m int32s:
// zeroed (by red_clear in p) when allocated, then set back to zero by
// each launch that uses them. The caller holds s.scratchMu.
func (s devRef) countersFor(p *clProgram, m int) (device.Buffer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.countersN >= m {
		return device.Buffer(s.counters.Native()), nil
	}
	if s.counters != nil {
		s.dev().Free(s.counters)
		s.counters, s.countersN = nil, 0
	}
	n := max(m, 1024)
	a, err := s.dev().Malloc(4 * n)
	if err != nil {
		return 0, err
	}
	buf := device.Buffer(a.Native())
	if err := s.launch(p, "red_clear", []int{s.items(n)}, s.local, buf, int64(n)); err != nil {
		s.dev().Free(a)
		return 0, err
	}
	s.counters, s.countersN = a, n
	return buf, nil
}
