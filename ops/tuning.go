package ops

import (
	"fmt"
	"time"

	"github.com/resident-go/resident/device"
)

// Tuning is how ops' kernels run on one device (SetTuning): how MatMul
// picks its kernel (Gemm) and how reductions are cut up (Reduce). It
// changes speed and the order of float additions (the last bits), never
// which values are added. The zero value is the default. A device that
// runs no kernels of package ops (the host, device/sim, cuBLAS's
// products on device/cuda) ignores it.
type Tuning struct {
	// Gemm is how MatMul picks its kernel on a kernel device (OpenCL, or
	// CUDA where the product is not cuBLAS's): a tiling (the work-group's
	// tile of dst and its depth per step) and, for thin products (few
	// tiles of dst, long K), a split-K factor: K is cut into slices
	// computed side by side and summed by a second kernel, in order.
	//
	// The choice is made once per shape class (element type; M, N, K and
	// the batch each rounded up to a power of two; whether a's and b's
	// rows are contiguous) and kept in the device's state. By default it
	// is measured: the first product of a class times each candidate a
	// few times on its own operands (dst is written by each, and holds
	// the product after), within Budget, and keeps the fastest. Products
	// under MinFlops, and classes whose first launch alone takes a third
	// of the budget, take the model's choice instead: the device's
	// default tiling, or a smaller one where it leaves compute units
	// idle, split-K where even that does.
	Gemm struct {
		// ModelOnly turns measuring off: every product takes the model's
		// choice, the same on every run (deterministic).
		ModelOnly bool
		// Budget bounds the launches timed for one shape class (0: 100
		// ms). Building a candidate's program (once per device) is not
		// counted.
		Budget time.Duration
		// MinFlops: products of fewer floating-point operations (2·M·N·K
		// per batch) are not measured (0: 1e8).
		MinFlops float64
	}
	// Reduce is how device reductions are cut up: a reduction with few
	// outputs gives each of them G work-groups (the part pass) and joins
	// their partials.
	Reduce struct {
		// TwoPass joins the partials in a second kernel (red_*_fin or
		// _fing; fused reductions: fuse_part then fuse_fin) instead of in
		// the last work-group to finish (red_*_one, fuse_one: one launch,
		// the default).
		TwoPass bool
		// GroupsPerUnit is the part pass's work-groups per compute unit,
		// shared among the outputs (G = units × this ÷ outputs, at least
		// 1); 0: 4, at most 1024. On the H200 a one-pass Sum of 2^24
		// float32 ran at 3071 GB/s with 4, 2847 with 8 and 2522 with 16
		// (CUDA; NVIDIA OpenCL 3036, 2779, 2497;
		// bench/results/h200-reduce.txt).
		GroupsPerUnit int
		// WorkGroup is the part pass's work-group size where it is a
		// power of two no larger than the device's largest work-group; 0
		// or another value: 256, or the device's largest if smaller.
		WorkGroup int
		// Unroll is how many 16-byte vectors a work-item of the part pass
		// loads before it adds them, over a dense input: 1, 2, 4 or 8,
		// rounded down to one of them; 0: 4. The adds keep their order.
		Unroll int
	}
}

// SetTuning sets t on d, from d's next op on (a new Reduce.Unroll builds
// the reduction program again). Where t.Gemm differs from d's, MatMul's
// choices made so far on d are forgotten. A Reduce field out of range
// panics with an error wrapping device.ErrOutOfRange.
func SetTuning(d device.Device, t Tuning) {
	r := t.Reduce
	if r.GroupsPerUnit < 0 || r.GroupsPerUnit > 1024 || r.WorkGroup < 0 || r.WorkGroup > 1<<16 || r.Unroll < 0 || r.Unroll > 8 {
		panic(fmt.Errorf("%w: ops.Tuning.Reduce%+v: GroupsPerUnit wants 0…1024, WorkGroup 0…65536, Unroll 0…8", device.ErrOutOfRange, r))
	}
	k, ok := d.(device.Kernels)
	if !ok {
		return
	}
	s := stateOf(k)
	s.tuneMu.Lock() // not during an autotune
	defer s.tuneMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tuning.Gemm != t.Gemm {
		clear(s.gemmChosen)
	}
	s.tuning = t
}

// TuningOf returns the tuning set on d (the zero value where none was,
// or d runs no kernels of package ops).
func TuningOf(d device.Device) Tuning {
	k, ok := d.(device.Kernels)
	if !ok {
		return Tuning{}
	}
	s := stateOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tuning
}
