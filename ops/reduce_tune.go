package ops

import (
	"fmt"

	"github.com/resident-go/resident/device"
)

// ReduceTuning is how device reductions are cut up on one device
// (SetReduceTuning): a reduction with few outputs gives each of them G
// work-groups (the part pass) and joins their partials. Which way it is
// cut changes only the order of the float additions, never which values
// are added. The zero value is the default.
type ReduceTuning struct {
	// TwoPass joins the partials in a second kernel (red_*_fin or _fing;
	// fused reductions: fuse_part then fuse_fin) instead of in the last
	// work-group to finish (red_*_one, fuse_one: one launch, the default).
	TwoPass bool
	// GroupsPerUnit is the part pass's work-groups per compute unit,
	// shared among the outputs (G = units × this ÷ outputs, at least 1);
	// 0: 4, at most 1024. On the H200 a one-pass Sum of 2^24 float32 ran
	// at 3071 GB/s with 4, 2847 with 8 and 2522 with 16 (CUDA; NVIDIA
	// OpenCL 3036, 2779, 2497; bench/results/h200-reduce.txt).
	GroupsPerUnit int
	// WorkGroup is the part pass's work-group size where it is a power of
	// two no larger than the device's largest work-group; 0 or another
	// value: 256, or the device's largest if smaller.
	WorkGroup int
	// Unroll is how many 16-byte vectors a work-item of the part pass loads
	// before it adds them, over a dense input: 1, 2, 4 or 8, rounded down
	// to one of them; 0: 4. The adds keep their order.
	Unroll int
}

// Package defaults of ReduceTuning's zero fields (tests change them).
var (
	reduceOnePass       = true
	reduceGroupsPerUnit = 4
	reduceWG            = 0
	reduceUnroll        = 4
)

// SetReduceTuning sets how device reductions are cut up on d, from its
// next reduction on (the unroll is part of the program: a new one builds
// the reduction program again). A device that runs no kernels of package
// ops ignores it. A field out of range panics with an error wrapping
// device.ErrOutOfRange.
func SetReduceTuning(d device.Device, t ReduceTuning) {
	if t.GroupsPerUnit < 0 || t.GroupsPerUnit > 1024 || t.WorkGroup < 0 || t.WorkGroup > 1<<16 || t.Unroll < 0 || t.Unroll > 8 {
		panic(fmt.Errorf("%w: ops.ReduceTuning%+v: GroupsPerUnit wants 0…1024, WorkGroup 0…65536, Unroll 0…8", device.ErrOutOfRange, t))
	}
	k, ok := d.(device.Kernels)
	if !ok {
		return
	}
	s := stateOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reduceTuning = t
}

// ReduceTuningOf returns the tuning set on d (the zero value where none
// was, or d runs no kernels of package ops).
func ReduceTuningOf(d device.Device) ReduceTuning {
	k, ok := d.(device.Kernels)
	if !ok {
		return ReduceTuning{}
	}
	s := stateOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reduceTuning
}

// redTuning is s's ReduceTuning with the defaults filled in.
func (s devRef) redTuning() ReduceTuning {
	s.mu.Lock()
	t := s.reduceTuning
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
