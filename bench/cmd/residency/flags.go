package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/resident-go/resident/bench"
	"github.com/resident-go/resident/device/opencl"
)

// options are the command's flags, checked.
type options struct {
	device        string // "opencl", "cuda" or "sim"
	platform      string // OpenCL platform name substring
	devType       string // OpenCL device type
	width, height int
	chain         string // "brighter" or "mixed"
	stages        int
	k             int
	scale         float64 // the mixed chain's scale
	fuse          bool    // the mixed chain's ops stages as one fused stage
	modes         []bench.Mode
	memories      []bench.Memory // nil: the device's default
	sync          []int          // nil: bench's default
	reps, warmup  int            // reps 0: by device type
	ladder        bool
	all           bool
	out, name     string
	torch         string
	quiet         bool
	devices       int     // > 1: the chain split over that many devices
	bands         int     // streamed mode's bands of rows
	first, last   float64 // streamed mode's first and last bands' height relative to the others
	trace         string  // file for the streamed runs' timelines
}

const maxStages = 64

// mixedStages is the length of the mixed chain: brighter, cast, scale, sum.
const mixedStages = 4

// fusedStages is the length of the fused mixed chain: brighter,
// cast_scale_sum.
const fusedStages = 2

// parseFlags reads args (without the program name). A bad flag is an
// error that says what is allowed; -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("residency", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.device, "device", "opencl", "where the chain runs: opencl (chosen by -platform and -type, like Halide), cuda (the brighter_cuda pipeline and ops through NVRTC on the CUDA device $RESIDENT_CUDA_DEVICE, default 0) or sim (a simulated device, no OpenCL)")
	fs.StringVar(&o.platform, "platform", "", "OpenCL platform name substring, e.g. NVIDIA or Portable (default $HL_OCL_PLATFORM_NAME, else any)")
	fs.StringVar(&o.devType, "type", "", "OpenCL device type: gpu, cpu, acc, all (default $HL_OCL_DEVICE_TYPE, else the first GPU, else the first CPU)")
	size := fs.String("size", "4096", "image size: N (N×N) or WxH")
	fs.StringVar(&o.chain, "chain", "brighter", "the chain: brighter (-stages × the Halide brighter stage, uint8) or mixed (brighter → cast to float32 → scale → sum: a Halide stage, then ops)")
	fs.IntVar(&o.stages, "stages", 8, fmt.Sprintf("stages in the brighter chain, 1…%d (the mixed chain has %d)", maxStages, mixedStages))
	fs.IntVar(&o.k, "k", 1, "what each brighter stage adds (saturating), 0…255")
	fs.BoolVar(&o.fuse, "fuse", false, "with -chain mixed: cast → scale → sum as one fused stage (ops.EvalSum of an ops.Expr: one kernel reading the image once)")
	fs.Float64Var(&o.scale, "scale", bench.DefaultScale, "what the mixed chain's scale stage multiplies by (as a float32)")
	elem := fs.String("elem", "uint8", "element type; only uint8 (the brighter pipeline's type)")
	modes := fs.String("modes", "", "comma-separated modes: resident, roundtrip, explicit, streamed (default all four on OpenCL and CUDA; streamed only there, so the other three elsewhere)")
	fs.StringVar(&o.trace, "trace", "", "streamed mode: write the timeline of a few more runs (per band: host queueing, and the device's upload, compute and download times where the device has timed events, as CUDA does) to this file")
	fs.Float64Var(&o.first, "first", 0, "streamed mode: the first band's height relative to the others, in (0, 1) (a thin first band shortens the start, where only it uploads); 0: equal bands")
	fs.Float64Var(&o.last, "last", 0, "streamed mode: the last band's height relative to the others, in (0, 1) (a thin last band shortens the end, where only it computes and downloads); 0: equal bands")
	fs.IntVar(&o.bands, "bands", 2, "streamed mode: bands of rows the image is cut into (upload, stages and download of successive bands overlap)")
	mems := fs.String("memory", "", "comma-separated host memory kinds: go, pinned (default both where the device has pinned memory)")
	sync := fs.String("sync", "", "explicit mode's sync points: comma-separated 0-based stage indices after which the chain copies to host (default the middle stage)")
	fs.IntVar(&o.reps, "iters", 0, "timed repetitions per measurement (default 30 on GPUs, 7 on CPU devices and sim)")
	fs.IntVar(&o.warmup, "warmup", 1, "untimed warm-up iterations per measurement (≥ 1: the first builds kernels)")
	fs.BoolVar(&o.ladder, "ladder", true, "also run every shorter chain (1…stages) for the plot")
	fs.BoolVar(&o.all, "all", false, "print every chain length in the table, not only the full chain")
	fs.StringVar(&o.out, "out", "out", "folder for NAME.md, NAME.csv, NAME.json and NAME.png; empty: print only")
	fs.StringVar(&o.name, "name", "residency", "base name of the output files")
	fs.StringVar(&o.torch, "torch", "", "JSON written by bench/torch_chain.py -json: adds a comparison with PyTorch")
	fs.BoolVar(&o.quiet, "q", false, "no progress on stderr")
	fs.IntVar(&o.devices, "devices", 1, "split the image in bands of rows over this many OpenCL devices of one context (several GPUs, else the device split, as PoCL's CPU can be), all at once, against the whole image on the first (resident mode, each -memory); writes NAME-split.md and .json")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: every setting is a flag (-h lists them)", fs.Args())
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch o.chain {
	case "brighter":
		if set["scale"] {
			bad("-scale is the mixed chain's: use it with -chain mixed")
		}
		if o.fuse {
			bad("-fuse fuses the mixed chain's ops stages: use it with -chain mixed")
		}
	case "mixed":
		if set["stages"] && o.stages != mixedStages {
			bad("-stages %d: the mixed chain has %d stages (brighter, cast_f32, scale, sum); leave -stages out", o.stages, mixedStages)
		}
		o.stages = mixedStages
		if o.fuse {
			o.stages = fusedStages
		}
		if s := float32(o.scale); math.IsInf(float64(s), 0) || math.IsNaN(o.scale) {
			bad("-scale %g: want a finite float32", o.scale)
		}
	default:
		bad("-chain %q: want brighter or mixed", o.chain)
	}
	switch o.device {
	case "opencl":
		if o.devType != "" {
			if _, err := opencl.ParseDeviceType(o.devType); err != nil {
				bad("-type %q: want gpu, cpu, acc, custom, default or all", o.devType)
			}
		}
	case "sim", "cuda":
		if o.platform != "" || o.devType != "" {
			bad("-platform and -type choose an OpenCL device: not with -device %s", o.device)
		}
	default:
		bad("-device %q: want opencl, cuda or sim", o.device)
	}
	w, h, err := parseSize(*size)
	if err != nil {
		bad("-size %q: %v", *size, err)
	}
	o.width, o.height = w, h
	if o.stages < 1 || o.stages > maxStages {
		bad("-stages %d: want 1…%d", o.stages, maxStages)
	}
	if o.k < 0 || o.k > 255 {
		bad("-k %d: want 0…255 (a uint8)", o.k)
	}
	if *elem != "uint8" {
		bad("-elem %q: only uint8 is supported (the brighter pipeline is uint8; there is no pipeline for other types yet; -chain mixed goes on to float32)", *elem)
	}
	for _, s := range splitList(*modes) {
		m, err := bench.ParseMode(s)
		if err != nil {
			bad("-modes: %v", err)
			continue
		}
		o.modes = append(o.modes, m)
	}
	streams := o.device == "opencl" || o.device == "cuda"
	switch {
	case !set["modes"]:
		o.modes = slices.Clone(bench.Modes)
		if streams {
			o.modes = append(o.modes, bench.Streamed)
		}
	case len(o.modes) == 0:
		bad("-modes is empty: want some of resident, roundtrip, explicit, streamed")
	case slices.Contains(o.modes, bench.Streamed) && !streams:
		bad("-modes streamed: the streamed mode cuts the chain in bands on an OpenCL or CUDA device (-device opencl or cuda)")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"first", o.first}, {"last", o.last}} {
		if !(f.v == 0 || f.v > 0 && f.v < 1) {
			bad("-%s %v: want 0 (equal bands) or a fraction in (0, 1)", f.name, f.v)
		}
	}
	if o.bands < 1 || o.bands > 1<<16 {
		bad("-bands %d: want 1…65536", o.bands)
	}
	for _, s := range splitList(*mems) {
		m, err := bench.ParseMemory(s)
		if err != nil {
			bad("-memory: %v", err)
			continue
		}
		o.memories = append(o.memories, m)
	}
	for _, s := range splitList(*sync) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= max(o.stages, 1) {
			bad("-sync %q: want stage indices 0…%d", s, o.stages-1)
			continue
		}
		o.sync = append(o.sync, i)
	}
	if o.reps < 0 {
		bad("-iters %d: want ≥ 1, or 0 for the default", o.reps)
	}
	if o.warmup < 1 {
		bad("-warmup %d: want ≥ 1 (the first iteration builds kernels)", o.warmup)
	}
	if o.devices < 1 || o.devices > 64 {
		bad("-devices %d: want 1…64", o.devices)
	}
	if o.devices > 1 && o.device != "opencl" {
		bad("-devices %d: the split runs on OpenCL devices: use -device opencl", o.devices)
	}
	if o.devices > 1 && o.torch != "" {
		bad("-torch compares one-device runs: leave it out with -devices %d", o.devices)
	}
	if o.devices > o.height {
		bad("-devices %d: a %d-row image cannot be cut into %d bands", o.devices, o.height, o.devices)
	}
	if o.name == "" || strings.ContainsAny(o.name, `/\`) {
		bad("-name %q: want a plain file name without slashes", o.name)
	}
	return o, errors.Join(errs...)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseSize reads "N" or "WxH".
func parseSize(s string) (w, h int, err error) {
	ws, hs, two := strings.Cut(strings.ToLower(s), "x")
	if w, err = strconv.Atoi(ws); err == nil && two {
		h, err = strconv.Atoi(hs)
	} else {
		h = w
	}
	const most = 1 << 16
	if err != nil || w < 1 || h < 1 || w > most || h > most {
		return 0, 0, fmt.Errorf("want N or WxH with 1 ≤ W, H ≤ %d", most)
	}
	return w, h, nil
}
