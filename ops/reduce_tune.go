package ops

import (
	"os"
	"strconv"

	"github.com/resident-go/resident/device"
)

// How device reductions are cut up, read once at start-up from the
// environment so that one build can compare the variants on a GPU (the
// tests set the variables directly). A value out of range keeps the
// default.
var (
	// reduceOnePass: a reduction that gives each output G work-groups
	// joins their partials in the last of them to finish (red_*_one, one
	// launch) instead of in a second kernel (red_*_fin or _fing); so
	// does a fused reduction (fuse_one, else fuse_part and fuse_fin).
	// RESIDENT_REDUCE_ONEPASS=0 turns both off.
	reduceOnePass = envInt("RESIDENT_REDUCE_ONEPASS", 1, 0, 1) == 1
	// reduceGroupsPerUnit is the part pass's work-groups per compute unit,
	// shared among the outputs (G = units × this ÷ outputs, at least 1):
	// RESIDENT_REDUCE_GROUPS. On the H200 a one-pass Sum of 2^24 float32
	// ran at 3071 GB/s with 4, 2847 with 8 and 2522 with 16 (CUDA; NVIDIA
	// OpenCL 3036, 2779, 2497; bench/results/h200-reduce.txt).
	reduceGroupsPerUnit = envInt("RESIDENT_REDUCE_GROUPS", 4, 1, 1024)
	// reduceWG is the part pass's work-group size, a power of two no
	// larger than the device's largest work-group; 0 (the default) or
	// another value: 256, or the device's largest if smaller.
	// RESIDENT_REDUCE_WG.
	reduceWG = envInt("RESIDENT_REDUCE_WG", 0, 0, 1<<16)
	// reduceUnroll is how many 16-byte vectors a work-item of the part pass
	// loads before it adds them, over a dense input: 1, 2, 4 or 8
	// (RESIDENT_REDUCE_UNROLL). The adds keep their order, so results do
	// not change with it.
	reduceUnroll = envInt("RESIDENT_REDUCE_UNROLL", 4, 1, 8)
)

// envInt is the integer in environment variable name, or def when it is
// unset, not an integer or outside [lo, hi].
func envInt(name string, def, lo, hi int) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil || v < lo || v > hi {
		return def
	}
	return v
}

// redWG is the work-group size of the reductions' part pass on s.
func (s devRef) redWG() int {
	if w := reduceWG; w > 0 && w&(w-1) == 0 && w <= s.maxGroup {
		return w
	}
	return s.wg
}

// redUnroll is reduceUnroll rounded down to 1, 2, 4 or 8.
func redUnroll() int {
	u := 1
	for u*2 <= reduceUnroll && u < 8 {
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
	if !reduceOnePass {
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
