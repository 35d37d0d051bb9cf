package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/clcuda"
	"github.com/resident-go/resident/internal/cu"
)

// The device.Kernels side: package ops' OpenCL C kernels, translated to
// CUDA C++ (internal/clcuda), compiled by NVRTC for the device's
// architecture and launched on the Device's stream.

var (
	_ device.Kernels = (*Device)(nil)
	_ device.Program = (*program)(nil)
	_ device.Kernel  = (*kernel)(nil)
)

// ErrNoNVRTC is wrapped by Compile's error where NVRTC cannot be loaded
// (or Options.NoKernels turned kernels off); the Device still holds
// memory and runs GEMMs, and Caps().OpenCLC is false, so package ops runs
// other ops on the host.
var ErrNoNVRTC = cu.ErrNoNVRTC

// BuildError is a program NVRTC did not compile, with its log.
type BuildError struct {
	Log string
	Err error // the NVRTC call's *Error
}

func (e *BuildError) Error() string { return fmt.Sprintf("%v; NVRTC's log:\n%s", e.Err, e.Log) }
func (e *BuildError) Unwrap() error { return e.Err }

var keepN atomic.Int64

// keepFailed writes a rejected program and its log under dir; errors are
// ignored (it is a debugging aid).
func keepFailed(dir, src, log string) {
	n := keepN.Add(1)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.cu", n)), []byte(src), 0o644)
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.log", n)), []byte(log), 0o644)
}

// program is a loaded module; its kernels are released with it.
type program struct {
	d *Device
	m cu.Module
}

// kernel is one function of a program. sizes are its parameters' sizes
// (cuFuncGetParamInfo; nil where the driver lacks it); shared, blob and
// offs are Enqueue's, under the Device's kmu: the dynamic shared memory
// the kernel may use once raised past the default, and the argument
// buffer, reused.
type kernel struct {
	p      *program
	name   string
	f      cu.Function
	sizes  []int
	shared int
	packed
}

// packed is a launch's argument values: parameter i's at
// blob[offs[i]:], lens[i] bytes.
type packed struct {
	blob       []byte
	offs, lens []int32
}

func (k *kernel) Name() string   { return k.name }
func (k *kernel) Release() error { return nil } // the module holds it

// defaultShared is the dynamic shared memory a launch may use without
// cuFuncSetAttribute.
const defaultShared = 48 << 10

// Compile translates OpenCL C source (options: -D, -U; -cl-* ignored) to
// CUDA C++, compiles it with NVRTC to a CUBIN for the device's
// architecture (--gpu-architecture=sm_XY; --fmad=false for a program that
// turns FP_CONTRACT off) and loads it. A program NVRTC rejects is a
// *BuildError with the log.
func (d *Device) Compile(src, options string) (device.Program, error) {
	s := d.s
	if err := s.Enter(); err != nil {
		return nil, err
	}
	defer s.Gate.Leave()
	if s.kernelsErr != nil {
		return nil, fmt.Errorf("cuda: Compile on %s: %w", s.Name, s.kernelsErr)
	}
	p, err := clcuda.Translate(src, options)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	opts := append(p.Options, s.arch)
	image, nvlog, err := cu.Compile(p.Source, "opencl.cu", opts)
	if err != nil {
		be := &BuildError{Log: nvlog, Err: fmt.Errorf("cuda: building a program for %s: %w", s.Name, err)}
		if dir := s.opts.KeepRejected; dir != "" {
			keepFailed(dir, p.Source, strings.Join(opts, " ")+"\n"+nvlog)
		}
		return nil, be
	}
	if s.opts.Verbose {
		log.Printf("cuda: NVRTC built a program (%d bytes of OpenCL C) for %s in %v", len(src), s.Name, time.Since(t0).Round(time.Millisecond))
	}
	s.kmu.Lock()
	defer s.kmu.Unlock()
	if d.Closed() {
		return nil, ErrClosed
	}
	m, err := cu.ModuleLoad(s.ctx, image)
	if err != nil {
		return nil, fmt.Errorf("cuda: loading a program on %s: %w", s.Name, err)
	}
	s.mods[m] = struct{}{}
	return &program{d: d, m: m}, nil
}

// Kernel finds the kernel name (device.Program).
func (p *program) Kernel(name string) (device.Kernel, error) {
	s := p.d.s
	if err := s.Enter(); err != nil {
		return nil, err
	}
	defer s.Gate.Leave()
	s.kmu.Lock()
	defer s.kmu.Unlock()
	if _, ok := s.mods[p.m]; !ok {
		return nil, fmt.Errorf("cuda: kernel %s of a released program: %w", name, ErrClosed)
	}
	f, err := cu.ModuleFunction(s.ctx, p.m, name)
	if err != nil {
		return nil, fmt.Errorf("cuda: kernel %s on %s: %w", name, s.Name, err)
	}
	sizes := []int{}
	for i := 0; i < 4096; i++ {
		_, size, ok, err := cu.ParamInfo(s.ctx, f, i)
		if err != nil { // no cuFuncGetParamInfo: sizes unchecked
			sizes = nil
			break
		}
		if !ok {
			break
		}
		sizes = append(sizes, size)
	}
	k := &kernel{p: p, name: name, f: f, sizes: sizes}
	return k, nil
}

// Release unloads the program once the stream has finished its work
// (device.Program); Release after the Device's Close does nothing.
func (p *program) Release() error {
	s := p.d.s
	s.kmu.Lock()
	defer s.kmu.Unlock()
	if _, ok := s.mods[p.m]; !ok {
		return nil
	}
	delete(s.mods, p.m)
	return errors.Join(cu.StreamSync(s.ctx, s.stream), cu.ModuleUnload(s.ctx, p.m))
}

// Enqueue queues k over g on the stream (device.Kernels). Arguments:
// device.Buffer (a root's CUdeviceptr), device.Local (n bytes of the
// launch's dynamic shared memory: the kernel's __local parameter at that
// position receives its offset), fixed-size integers and floats, and
// []byte (a struct's bytes). Where the driver reports parameter sizes
// (12.4 and later) the arguments are checked against them. A launch
// covers g exactly: explicit Local sizes must divide Global; with Local
// all zero the Device picks blocks that divide it (up to 256 items).
func (d *Device) Enqueue(k device.Kernel, g device.Grid, args []any) error {
	kk, ok := k.(*kernel)
	if !ok || kk == nil || kk.p.d != d {
		return fmt.Errorf("cuda: Enqueue of a %T on %s: %w", k, d.Name(), device.ErrForeign)
	}
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	s := d.s
	grid, block, err := launchShape(g, s.caps.MaxGroup)
	if err != nil {
		return fmt.Errorf("cuda: kernel %s on %s: %w", kk.name, s.Name, err)
	}
	// under kmu: the module stays loaded until the launch is queued, and
	// k's argument buffer is reused
	s.kmu.Lock()
	defer s.kmu.Unlock()
	if _, live := s.mods[kk.p.m]; !live {
		return fmt.Errorf("cuda: kernel %s of a released program: %w", kk.name, ErrClosed)
	}
	shared, err := kk.pack(kk.sizes, args)
	if err != nil {
		return fmt.Errorf("cuda: kernel %s on %s: %w", kk.name, s.Name, err)
	}
	if shared > defaultShared && shared > kk.shared {
		if err := cu.FuncSetAttr(s.ctx, kk.f, cu.FuncAttrMaxDynamicShared, shared); err != nil {
			return fmt.Errorf("cuda: kernel %s on %s: %d bytes of local memory: %w", kk.name, s.Name, shared, err)
		}
		kk.shared = shared
	}
	if err := cu.Launch(s.ctx, kk.f, grid, block, shared, s.stream, kk.blob, kk.offs); err != nil {
		return fmt.Errorf("cuda: kernel %s on %s: %w", kk.name, s.Name, err)
	}
	s.Counters.Launch()
	if s.recording() != nil {
		d.record(kk.name, args, &cudaStep{k: kk, f: kk.f, blob: slices.Clone(kk.blob), offs: slices.Clone(kk.offs), lens: slices.Clone(kk.lens)})
	}
	return nil
}

// errArgs is wrapped by Enqueue's errors about arguments and grids.
var errArgs = fmt.Errorf("cuda: bad kernel launch: %w", device.ErrOutOfRange)

// pack lays args out in k.blob, one 16-byte-aligned slot each (k.offs,
// k.lens), checked against the parameters' sizes (nil: unknown), and
// returns the dynamic shared memory the Local arguments add up to; a
// kernel's own is used under the Device's kmu.
func (k *packed) pack(sizes []int, args []any) (shared int, err error) {
	if sizes != nil && len(args) != len(sizes) {
		return 0, fmt.Errorf("%d arguments for %d parameters: %w", len(args), len(sizes), errArgs)
	}
	k.blob, k.offs, k.lens = k.blob[:0], k.offs[:0], k.lens[:0]
	var v [8]byte
	for i, a := range args {
		var b []byte
		switch a := a.(type) {
		case device.Buffer:
			binary.LittleEndian.PutUint64(v[:], uint64(a))
			b = v[:8]
		case device.Local:
			if a < 0 {
				return 0, fmt.Errorf("argument %d: Local(%d): %w", i, a, errArgs)
			}
			off := (shared + 15) &^ 15
			shared = off + int(a)
			binary.LittleEndian.PutUint64(v[:], uint64(off))
			b = v[:8]
		case int8:
			v[0], b = byte(a), v[:1]
		case uint8:
			v[0], b = a, v[:1]
		case int16:
			binary.LittleEndian.PutUint16(v[:], uint16(a))
			b = v[:2]
		case uint16:
			binary.LittleEndian.PutUint16(v[:], a)
			b = v[:2]
		case int32:
			binary.LittleEndian.PutUint32(v[:], uint32(a))
			b = v[:4]
		case uint32:
			binary.LittleEndian.PutUint32(v[:], a)
			b = v[:4]
		case float32:
			binary.LittleEndian.PutUint32(v[:], math.Float32bits(a))
			b = v[:4]
		case int64:
			binary.LittleEndian.PutUint64(v[:], uint64(a))
			b = v[:8]
		case uint64:
			binary.LittleEndian.PutUint64(v[:], a)
			b = v[:8]
		case float64:
			binary.LittleEndian.PutUint64(v[:], math.Float64bits(a))
			b = v[:8]
		case []byte:
			if len(a) == 0 {
				return 0, fmt.Errorf("argument %d: empty []byte: %w", i, errArgs)
			}
			b = a
		default:
			return 0, fmt.Errorf("argument %d: a %T (fixed-size integers and floats, Buffer, Local and []byte are taken): %w", i, a, errArgs)
		}
		if sizes != nil && len(b) != sizes[i] {
			return 0, fmt.Errorf("argument %d: %d bytes (%T) for a %d-byte parameter: %w", i, len(b), a, sizes[i], errArgs)
		}
		off := (len(k.blob) + 15) &^ 15
		for len(k.blob) < off {
			k.blob = append(k.blob, 0)
		}
		k.offs = append(k.offs, int32(off))
		k.lens = append(k.lens, int32(len(b)))
		k.blob = append(k.blob, b...)
	}
	return shared, nil
}

// launchShape maps an OpenCL grid to CUDA's blocks and threads: exactly
// Global work items in every dimension (see Enqueue).
func launchShape(g device.Grid, maxGroup int) (grid, block [3]int, err error) {
	if g.Dims < 1 || g.Dims > 3 {
		return grid, block, fmt.Errorf("a %d-dimensional grid: %w", g.Dims, errArgs)
	}
	maxGroup = max(1, maxGroup)
	explicit := g.Local != [3]int{}
	threads := 1
	for i := range 3 {
		G, L := 1, 1
		if i < g.Dims {
			G, L = g.Global[i], g.Local[i]
		}
		if G < 1 {
			return grid, block, fmt.Errorf("global size %v: %w", g.Global[:g.Dims], errArgs)
		}
		switch {
		case !explicit && i == 0:
			L = 1
			for c := min(G, 256, maxGroup); c > 1; c-- {
				if G%c == 0 {
					L = c
					break
				}
			}
		case !explicit:
			L = 1
		case L < 1 || G%L != 0:
			return grid, block, fmt.Errorf("local size %v does not divide global size %v: %w", g.Local[:g.Dims], g.Global[:g.Dims], errArgs)
		}
		threads *= L
		grid[i], block[i] = G/L, L
	}
	lim := [3]int{math.MaxInt32, 65535, 65535}
	if threads > maxGroup || block[2] > 64 || grid[0] > lim[0] || grid[1] > lim[1] || grid[2] > lim[2] {
		return grid, block, fmt.Errorf("%v blocks of %v threads is past CUDA's limits (%d threads a block): %w", grid, block, maxGroup, errArgs)
	}
	return grid, block, nil
}

// CopyBytes queues a copy of n bytes between two of d's buffers (roots'
// CUdeviceptrs) on the stream: an op's own copy, counted as a launch,
// not as a transfer (device.Kernels).
func (d *Device) CopyBytes(dst device.Buffer, dstOff int, src device.Buffer, srcOff, n int) error {
	if dstOff < 0 || srcOff < 0 || n < 0 {
		return fmt.Errorf("cuda: CopyBytes(%d, %d, %d): %w", dstOff, srcOff, n, device.ErrOutOfRange)
	}
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	if n == 0 {
		return nil
	}
	s := d.s
	if err := cu.DtoD(s.ctx, cu.DevicePtr(dst)+cu.DevicePtr(dstOff), cu.DevicePtr(src)+cu.DevicePtr(srcOff), n, s.stream); err != nil {
		return fmt.Errorf("cuda: copy on %s: %w", s.Name, err)
	}
	s.Counters.Launch()
	d.record("copy", nil, nil, uintptr(dst), uintptr(src))
	return nil
}

// ReadBytes reads len(dst) bytes at off in src, after the work queued on
// the stream: a result read back, not a transfer (device.Kernels).
func (d *Device) ReadBytes(dst []byte, src device.Buffer, off int) error {
	if off < 0 {
		return fmt.Errorf("cuda: ReadBytes at %d: %w", off, device.ErrOutOfRange)
	}
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	if len(dst) == 0 {
		return nil
	}
	s := d.s
	if err := s.refuse("ReadBytes (reading a result back to the host: a replay would not read it again; keep the result in an Array, with the reductions into an Array rather than the *All forms)"); err != nil {
		return err
	}
	err := cu.DtoH(s.ctx, unsafe.Pointer(&dst[0]), cu.DevicePtr(src)+cu.DevicePtr(off), len(dst), s.stream)
	if e := cu.StreamSync(s.ctx, s.stream); err == nil {
		err = e
	}
	runtime.KeepAlive(dst)
	if err != nil {
		return fmt.Errorf("cuda: reading a result on %s: %w", s.Name, err)
	}
	return nil
}
