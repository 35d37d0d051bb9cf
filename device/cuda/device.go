package cuda

import (
	"errors"
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cu"
	"github.com/resident-go/resident/internal/devkit"
)

// EnvDevice is the environment variable Default reads: the device ordinal
// (as CUDA_VISIBLE_DEVICES numbers what is left visible); default 0.
const EnvDevice = "RESIDENT_CUDA_DEVICE"

// Options choose and tune a Device. The zero value opens device 0 with
// the caching allocator and staging on.
type Options struct {
	// Ordinal is the device number, 0 the first (Default reads
	// $RESIDENT_CUDA_DEVICE).
	Ordinal int
	// Verbose logs the device chosen and each NVRTC build.
	Verbose bool
	// KeepRejected names a folder where Compile writes each program NVRTC
	// rejects (N.cu, the CUDA C++ it was given, and N.log, the options and
	// NVRTC's log), for reading after a run on a machine one cannot debug
	// on; "": none kept.
	KeepRejected string
	// NoCache turns the caching allocator off: Free releases at once.
	NoCache bool
	// CacheLimit caps the bytes the cache holds; 0: half the device's
	// memory.
	CacheLimit int64
	// NoStaging moves ordinary Go memory directly (the driver's pageable
	// path) instead of through pinned staging chunks.
	NoStaging bool
	// StagingChunk is the size of each of the two pinned staging chunks;
	// 0: 16 MiB.
	StagingChunk int
	// StagingMin is the smallest dense upload of Go memory that is
	// staged; smaller ones take the driver's pageable path. 0: 8 MiB.
	// StagingMinD2H is the same for downloads; 0: 8 MiB. On the H200
	// (bench/results/h200-cuda.txt) the pageable path was faster up to
	// 4 MiB (up 16.7 GB/s against 11.2 staged), staging from 16 MiB (the
	// brighter chain's 16 MiB uploads from Go memory took twice as long
	// on the pageable path: h200-cuda-halide.txt).
	StagingMin, StagingMinD2H int
	// CopyThreads is how many goroutines copy a chunk between Go memory
	// and staging; 0: GOMAXPROCS, at most 8.
	CopyThreads int
	// NoKernels leaves NVRTC unloaded: Compile fails with ErrNoNVRTC
	// and Caps().OpenCLC is false, so package ops runs everything but
	// GEMMs on the host, as on a machine without NVRTC.
	NoKernels bool
}

const (
	defaultChunk         = 16 << 20
	defaultStagingMin    = 8 << 20
	defaultStagingMinD2H = 8 << 20
)

// Device is one CUDA device: its primary context (shared with the CUDA
// runtime, cuBLAS and other libraries in the process) and a stream of its
// own, on which every transfer, copy, kernel and GEMM is queued in order.
// It implements device.Device, device.HostAllocator, device.CloseNotifier,
// device.Compute, device.Kernels and device.Gemmer. Safe for concurrent
// use, Close included: a call racing Close either completes before the
// device releases anything or returns an error wrapping ErrClosed (the
// device's gate, devkit.Gate).
type Device struct {
	devkit.Face[*Device] // Name, Close, Malloc, Free, CopyIn, ... (the skeleton's)
	s                    *state
}

var (
	_ device.Device  = (*Device)(nil)
	_ device.Compute = (*Device)(nil)
	_ device.Native  = (*Device)(nil)
)

// state is what Close and the cleanup backstop free; it must not point
// back to the Device, or the cleanup would never run.
type state struct {
	devkit.Core // gate, hooks, pool, counters, values, pins, shutdown

	opts     Options
	dev      cu.Device
	ctx      cu.Context
	life     uint64 // the primary context's life ctx belongs to (primaries)
	stream   cu.Stream
	total    int64
	maxPitch int
	caps     device.Caps

	streams streamSet // streamed execution's extra streams
	stageMu sync.Mutex
	stager  *stager
	blasMu  sync.Mutex
	blas    cu.BLAS

	// kernels: why Compile cannot run (nil: NVRTC is there), the
	// architecture option, and the loaded modules (under kmu).
	kernelsErr error
	arch       string
	kmu        sync.Mutex
	mods       map[cu.Module]struct{}

	capture capState // stream capture (capture.go)
}

// ordinalFromEnv is $RESIDENT_CUDA_DEVICE as a number, 0 when unset or
// not a number.
func ordinalFromEnv() int {
	n, err := strconv.Atoi(os.Getenv(EnvDevice))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Open opens CUDA device o.Ordinal: it retains the device's primary
// context and creates a non-blocking stream. Where there is no CUDA the
// error wraps ErrNoCUDA and says what is missing.
func Open(o Options) (*Device, error) {
	if err := cu.Load(); err != nil {
		return nil, err
	}
	n, err := cu.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCUDA, err)
	}
	if o.Ordinal < 0 {
		o.Ordinal = 0
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the driver lists no CUDA device", ErrNoCUDA)
	}
	if o.Ordinal >= n {
		return nil, fmt.Errorf("%w: device %d asked for, the driver lists %d", ErrNoCUDA, o.Ordinal, n)
	}
	devkit.StagingDefaults(&o.StagingChunk, &o.StagingMin, &o.StagingMinD2H, defaultChunk, defaultStagingMin, defaultStagingMinD2H)
	dev, err := cu.DeviceGet(o.Ordinal)
	if err != nil {
		return nil, err
	}
	ctx, life, err := retainPrimary(dev)
	if err != nil {
		return nil, err
	}
	st, err := cu.StreamCreate(ctx, cu.StreamNonBlocking)
	if err != nil {
		releasePrimary(dev)
		return nil, err
	}
	s := &state{opts: o, dev: dev, ctx: ctx, life: life, stream: st}
	s.describe()
	s.mods = map[cu.Module]struct{}{}
	if o.NoKernels {
		s.kernelsErr = fmt.Errorf("%w: turned off by Options.NoKernels", ErrNoNVRTC)
	} else {
		s.kernelsErr = cu.LoadNVRTC()
	}
	s.caps.OpenCLC = s.kernelsErr == nil
	limit := int(min(s.total/2, int64(^uint(0)>>1)))
	if o.CacheLimit > 0 {
		limit = int(min(o.CacheLimit, int64(^uint(0)>>1)))
	}
	if o.NoCache {
		limit = 0
	}
	s.Pool.SetCacheLimit(limit)
	if o.Verbose {
		v, _ := cu.DriverVersion()
		kern := "kernels from OpenCL C through NVRTC"
		if s.kernelsErr != nil {
			kern = fmt.Sprintf("no kernels (%v)", s.kernelsErr)
		}
		log.Printf("cuda: using %s: compute capability %s, %d SMs, %d B, driver CUDA %d.%d, staging %v (2 × %d B), %s",
			s.Name, s.caps.Vendor, s.caps.Units, s.total, v/1000, v%1000/10, !o.NoStaging, o.StagingChunk, kern)
	}
	d := &Device{s: s}
	d.InitFace(&s.Core, d, runtime.AddCleanup(d, func(s *state) { s.Close() }, s), devkit.FaceHooks[*Device]{
		NoCache: o.NoCache, Move: d.moveHost, Begin: d.beginCapture, End: d.endCapture, Foreign: d.recording})
	return d, nil
}

// describe reads the device's name and limits.
func (s *state) describe() {
	name, _ := s.dev.Name()
	s.Init("cuda", fmt.Sprintf("cuda:%d %s", s.opts.Ordinal, name), ErrClosed, ErrForeign, s)
	s.total, _ = s.dev.TotalMem()
	attr := func(a cu.Attribute) int { v, _ := s.dev.Attr(a); return v }
	s.maxPitch = attr(cu.AttrMaxPitch)
	if s.maxPitch <= 0 {
		s.maxPitch = 1<<31 - 1
	}
	s.caps = device.Caps{Lang: Lang, FP64: true, LocalMem: int64(attr(cu.AttrMaxSharedPerBlock)),
		Units: max(1, attr(cu.AttrMultiprocessorCount)), MaxGroup: attr(cu.AttrMaxThreadsPerBlock),
		Vendor: fmt.Sprintf("NVIDIA CUDA sm_%d%d", attr(cu.AttrComputeCapabilityMaj), attr(cu.AttrComputeCapabilityMin))}
	s.arch = fmt.Sprintf("--gpu-architecture=sm_%d%d", attr(cu.AttrComputeCapabilityMaj), attr(cu.AttrComputeCapabilityMin))
}

// Lang is a CUDA Device's Caps().Lang.
const Lang = "CUDA"

// defaultDev is Default's device.
var defaultDev devkit.Shared[*Device]

// Default returns the process-wide shared device, opened on first use with
// Options{Ordinal: N} with N from EnvDevice. Don't Close it; if someone did, the
// next call opens it again.
func Default() (*Device, error) {
	return defaultDev.Get((*Device).Closed, func() (*Device, error) { return Open(Options{Ordinal: ordinalFromEnv()}) })
}

// enter passes the device's gate: ErrClosed once Close has shut it. Pair
// a nil error with s.Gate.Leave().
func (s *state) enter() error {
	if !s.Gate.Enter() {
		return ErrClosed
	}
	return nil
}

// Caps reports the device's capabilities (device.Compute). Lang is
// "CUDA"; OpenCLC is true where NVRTC loaded: Compile takes OpenCL C
// (device.BuildsOpenCLC), so package ops runs its kernels here, and
// MatMul through cuBLAS (device.Gemmer). Without NVRTC, ops other than
// MatMul run on the host under ops' rule.
func (d *Device) Caps() device.Caps { return d.s.caps }

// API names the native handles' API (device.Native).
func (d *Device) API() string { return "CUDA" }

// Handles returns the CUcontext (the device's primary context) and the
// Device's CUstream (device.Native).
func (d *Device) Handles() (ctx, queue uintptr) { return uintptr(d.s.ctx), uintptr(d.s.stream) }

// cu.Raw gives this module's packages the primary CUcontext (the Device
// owns its retain) and the Device's stream; the public package hands out
// no binding types (Handles gives the raw handles).
func init() {
	cu.Raw = func(d any) (cu.Context, cu.Stream, bool) {
		cd, ok := d.(*Device)
		if !ok {
			return 0, 0, false
		}
		return cd.s.ctx, cd.s.stream, true
	}
}

var _ device.CloseNotifier = (*Device)(nil)

// Sync waits for all work queued on the device's stream.
func (d *Device) Sync() error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	if err := d.s.refuse("Sync (waiting for work a capture only records)"); err != nil {
		return err
	}
	return cu.StreamSync(d.s.ctx, d.s.stream)
}

// MemInfo returns the device's free and total memory in bytes.
func (d *Device) MemInfo() (free, total int64, err error) {
	if err := d.s.Enter(); err != nil {
		return 0, 0, err
	}
	defer d.s.Gate.Leave()
	return cu.MemInfo(d.s.ctx)
}

var _ devkit.Driver = (*state)(nil)

// Finish waits for the stream, destroys the graphs and the extra
// streams (devkit.Driver, at shutdown).
func (s *state) Finish() error {
	return errors.Join(cu.StreamSync(s.ctx, s.stream), s.releaseGraphs(), s.streams.release(s.ctx))
}

// FreeBlock frees a CUdeviceptr (devkit.Driver).
func (s *state) FreeBlock(h uintptr) error { return cu.MemFree(s.ctx, cu.DevicePtr(h)) }

// Drop unloads the modules, frees the staging chunks and the cuBLAS
// handle and destroys the stream (devkit.Driver, after the memory).
func (s *state) Drop() error {
	var errs []error
	s.kmu.Lock()
	for m := range s.mods {
		errs = append(errs, cu.ModuleUnload(s.ctx, m))
	}
	clear(s.mods)
	s.kmu.Unlock()
	s.stageMu.Lock()
	if s.stager != nil {
		errs = append(errs, s.stager.release(s))
		s.stager = nil
	}
	s.stageMu.Unlock()
	s.blasMu.Lock()
	if s.blas != 0 {
		errs = append(errs, cu.BLASDestroy(s.ctx, s.blas))
		s.blas = 0
	}
	s.blasMu.Unlock()
	errs = append(errs, cu.StreamDestroy(s.ctx, s.stream))
	return errors.Join(errs...)
}

// Release drops the primary context retain, last (devkit.Driver).
func (s *state) Release() error { return releasePrimary(s.dev) }
