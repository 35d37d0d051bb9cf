package halide

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/halide/internal/rt"
	"slices"
	"sort"
	"strings"
)

// Halide's runtime setters and what the library does with each. The
// library replaces some runtime functions (halide_error, halide_print,
// halide_trace, halide_can_use_target_features, the OpenCL context and
// symbol hooks), so it replaces their setters too, and calls what C set:
// no setter is silently ignored.
//
//	Halide setter                               resident
//	halide_set_error_handler                    honoured: the handler C set hears every runtime message (with Halide's user_context) and the call still returns it as an *Error; Go: Hooks.Error per call
//	halide_set_custom_print                     honoured for calls without a Go print hook; Go: Options.Hooks.Print (it wins)
//	halide_set_custom_trace                     honoured for calls without a Go trace hook; Go: Options.Hooks.Trace (it wins)
//	halide_set_custom_malloc, _free             honoured as in Halide (the library does not replace halide_malloc); no Go hook: the runtime may allocate where Go cannot be called
//	halide_set_custom_can_use_target_features   honoured; Go: Options.RefuseTargetFeatures per call (applied after C's answer); Pipeline.Target names the target chosen
//	halide_opencl_set_build_options             honoured ($HL_OCL_BUILD_OPTIONS likewise); Go: Options.OpenCLBuildOptions, fixed per device by its first call, appended after them
//	halide_set_custom_do_task, _do_par_for, _do_loop_task, halide_set_custom_parallel_runtime, halide_set_num_threads
//	                                            honoured as in Halide (not replaced)
//	halide_set_trace_file, halide_memoization_cache_set_size, halide_reuse_device_allocations
//	                                            honoured as in Halide (the library turns device-allocation reuse on at the first OpenCL call)
//	halide_opencl_set_platform_name, _set_device_type
//	                                            honoured: DefaultDevice("OpenCL"), the placement rule's default device, is the one they name (Options.Device and the Arrays' device come first, as always)
//	halide_set_gpu_device                       no effect: the runtime gets the call's device; pick one with opencl.Split or Several, or by index (cuda.Open's Ordinal) and pass it (Options.Device)
//	halide_set_cuda_acquire_context, _release_context, _get_stream
//	                                            honoured for CUDA calls that are not the library's (a C caller's, the runtime's exit-time cleanup); the library's calls run on their Device's primary context and stream (cuda.go)
//	halide_set_custom_get_symbol, _load_library, _get_library_symbol
//	                                            honoured for what the runtime loads, except OpenCL's and CUDA's entry points, which come from the libOpenCL.so.1 and libcuda.so.1 packages device/opencl and device/cuda loaded (halide_opencl_get_symbol and halide_cuda_get_symbol are the library's)

// ErrBuildOptionsLate is wrapped by the error of a call whose
// Options.OpenCLBuildOptions come too late: its device has built kernels,
// or has other options from an earlier call.
var ErrBuildOptionsLate = errors.New("halide: OpenCL build options set after the device built kernels")

// checkBuildOptions refuses Options.OpenCLBuildOptions the runtime
// cannot take.
func (p *Pipeline) checkBuildOptions(opts string) error {
	if len(opts) > 511 || strings.IndexByte(opts, 0) >= 0 {
		return &Error{Pipeline: p.name, Code: int(ErrGeneric), Msg: fmt.Sprintf("Options.OpenCLBuildOptions of %d bytes (at most 511, no NUL)", len(opts))}
	}
	return nil
}

// setBuildOptions makes opts the OpenCL build options of the call's
// device dev, whose state is e (Options.OpenCLBuildOptions), before the
// first build there.
func (p *Pipeline) setBuildOptions(dev gpuDevice, e *clEntry, opts string) error {
	clMu.Lock()
	defer clMu.Unlock()
	if e.cl == nil {
		return closedErr("OpenCL")
	}
	if !e.cl.SetBuildOptions(opts) {
		return &Error{Pipeline: p.name, Code: int(ErrGeneric), err: ErrBuildOptionsLate, Msg: fmt.Sprintf(
			"%v: %s built kernels or has other options (%q) already; give them in its first call, or open another device (opencl.Open)", ErrBuildOptionsLate, dev.Name(), e.cl.BuildOptions())}
	}
	return nil
}

// clNote is what a failed OpenCL call adds to its message: the build
// options of dev, where any are set.
func clNote(dev gpuDevice) string {
	if o := buildOptions(dev); o != "" {
		return fmt.Sprintf(" (OpenCL build options on %s: %q; set with Options.OpenCLBuildOptions, halide_opencl_set_build_options or $HL_OCL_BUILD_OPTIONS)", dev.Name(), o)
	}
	return ""
}

// buildOptions are the options a kernel build on dev gets: the
// process-wide ones, then dev's ("" for none).
func buildOptions(dev gpuDevice) string {
	e, _ := dev.Value(clKey{}, nil).(*clEntry)
	if e == nil {
		return ""
	}
	clMu.Lock()
	defer clMu.Unlock()
	if e.cl == nil {
		return ""
	}
	return e.cl.BuildOptions()
}

// targetFeatures are Halide 14's halide_target_feature_t, in enum order,
// as target strings spell them.
var targetFeatures = strings.Fields(`jit debug no_asserts no_bounds_query sse41 avx avx2 fma fma4 f16c
	armv7s no_neon vsx power_arch_2_07 cuda cuda_capability_30 cuda_capability_32 cuda_capability_35
	cuda_capability_50 cuda_capability_61 cuda_capability_70 cuda_capability_75 cuda_capability_80
	cuda_capability_86 opencl cl_doubles cl_atomic64 openglcompute user_context matlab profile
	no_runtime metal c_plus_plus_name_mangling large_buffers hvx_128 hvx_v62 fuzz_float_stores
	soft_float_abi msan avx512 avx512_knl avx512_skylake avx512_cannonlake avx512_sapphirerapids
	hvx_use_shared_object trace_loads trace_stores trace_realizations trace_pipeline hvx_v65 hvx_v66
	cl_half strict_float tsan asan d3d12compute check_unsafe_promises hexagon_dma embed_bitcode
	enable_llvm_loop_opt disable_llvm_loop_opt wasm_simd128 wasm_signext wasm_sat_float_to_int
	wasm_threads wasm_bulk_memory sve sve2 egl arm_dot_prod arm_fp16 rvv armv81a sanitizer_coverage
	profile_by_timer`)

// refusedFeatures is features (Halide's names) as bits of
// halide_target_feature_t, for the call's ctx.
func (p *Pipeline) refusedFeatures(features []string) (bits [rt.FeatureWords]uint64, err error) {
	for _, f := range features {
		i := slices.Index(targetFeatures, f)
		if i < 0 {
			return bits, &Error{Pipeline: p.name, Code: int(ErrGeneric), Msg: fmt.Sprintf("Options.RefuseTargetFeatures: no Halide 14 target feature %q (features: %s)", f, strings.Join(targetFeatures, " "))}
		}
		bits[i/64] |= 1 << (i % 64)
	}
	return bits, nil
}

// noteTarget records the target a multi-target call chose.
func (p *Pipeline) noteTarget(ctx *rt.Ctx) {
	if ctx.TargetAsked == 0 {
		return // not multi-target, or its choice made by an earlier call
	}
	var feats [rt.FeatureWords]uint64
	for i, w := range ctx.TargetFeatures {
		feats[i] = uint64(w)
	}
	if t := chosenTarget(p.target, ctx.TargetChosen != 0, feats[:]); t != "" {
		p.ran.Store(&t)
	}
}

// chosenTarget is the target string of what a multi-target wrapper
// (whose own target is wrapper) ran: the features of the target
// halide_can_use_target_features accepted (chosen), else, all refused,
// the fallback, whose features are the wrapper's but no_bounds_query.
// Features are sorted, as Halide prints a target.
func chosenTarget(wrapper string, chosen bool, features []uint64) string {
	fields := strings.Split(wrapper, "-")
	if len(fields) < 3 {
		return ""
	}
	var names []string
	if chosen {
		for w, bits := range features {
			for b := range 64 {
				if i := w*64 + b; bits&(1<<b) != 0 && i < len(targetFeatures) {
					names = append(names, targetFeatures[i])
				}
			}
		}
	} else {
		for _, f := range fields[3:] {
			if f != "no_bounds_query" {
				names = append(names, f)
			}
		}
	}
	sort.Strings(names)
	return strings.Join(append(fields[:3:3], names...), "-")
}
