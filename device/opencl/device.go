package opencl

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/cl"
	"github.com/resident-go/resident/internal/devkit"
)

// Options choose and tune a Device. The zero value picks the device the way
// Halide does and turns on the caching allocator and automatic staging.
type Options struct {
	// Platform is a substring of the platform name, case-insensitive
	// ("NVIDIA", "Portable"); empty: $HL_OCL_PLATFORM_NAME, then any.
	Platform string
	// Type is the device type; 0: $HL_OCL_DEVICE_TYPE, then the first GPU,
	// else the first CPU.
	Type DeviceType
	// Verbose logs the platforms found and the device chosen.
	Verbose bool
	// NoCommandBuffers makes captures (package device/capture) replay
	// their recorded steps even where the device has command buffers, to
	// compare the two.
	NoCommandBuffers bool
	// NoCache turns the caching allocator off: Free releases at once.
	NoCache bool
	// CacheLimit caps the bytes the cache holds; 0: half the device's
	// global memory.
	CacheLimit int64
	// Staging says how ordinary Go memory is moved; see StagingMode.
	Staging StagingMode
	// StagingChunk is the size of each of the two pinned staging chunks;
	// 0: 16 MiB.
	StagingChunk int
	// StagingMin is the smallest upload of Go memory that is staged;
	// smaller ones go directly (the driver's pageable path). 0: 2 MiB.
	// StagingMinD2H is the same for downloads; 0: 256 KiB. On the H200
	// (bench/results/h200-transfers.md) direct uploads beat staged ones
	// at 256 KiB in two jobs of two (29 against 32 µs, 32 against 34) and
	// at 1 MiB in one (98 against 133 µs; 95 against 90 in the other),
	// staged ones won from 4 MiB; staged downloads won from 256 KiB (30
	// against 40 µs).
	StagingMin, StagingMinD2H int
	// CopyThreads is how many goroutines copy a chunk between Go memory and
	// staging; 0: GOMAXPROCS, at most 8.
	CopyThreads int
}

// StagingMode says whether transfers from ordinary Go memory go through
// pinned staging buffers.
type StagingMode int

const (
	// StagingAuto stages unless the device shares memory with the host
	// (CL_DEVICE_HOST_UNIFIED_MEMORY, e.g. PoCL), where it would only add a
	// copy.
	StagingAuto StagingMode = iota
	StagingOn
	StagingOff
)

// Device is one OpenCL device with its context and in-order queue; it
// implements device.Device and device.HostAllocator. Safe for concurrent
// use, Close included: a call racing Close either completes before the
// device releases anything or returns an error wrapping ErrClosed (the
// device's gate, devkit.Gate).
type Device struct {
	devkit.Face[*Device] // Name, Close, Malloc, Free, CopyIn, ... (the skeleton's)
	s                    *state
}

var _ device.Device = (*Device)(nil)

var _ device.CloseNotifier = (*Device)(nil)

// state is what Close and the cleanup backstop free; it must not point
// back to the Device, or the cleanup would never run.
type state struct {
	devkit.Core // gate, hooks, pool, counters, values, pins, shutdown

	opts     Options
	platform cl.Platform
	id       cl.DeviceID
	ctx      *cl.Context
	queue    *cl.CommandQueue
	align    int // sub-buffer origin alignment in bytes
	maxAlloc int
	stage    bool
	subID    bool // id is a sub-device this state releases (Split, Several)

	stageMu  sync.Mutex
	stager   *stager
	pace     pacer
	capsOnce sync.Once
	caps     device.Caps
	streams  streamQueues
	capture  devkit.Capturing // the Recording its entries add to (capture.go)
	cmdbuf   cmdBufs          // command buffers (cmdbuf.go)
}

// Open opens the device o selects, with its own context and queue.
func Open(o Options) (*Device, error) {
	o.defaults()
	p, id, err := choose(&o)
	if err != nil {
		return nil, err
	}
	ctx, err := cl.CreateContext(id)
	if err != nil {
		return nil, err
	}
	q, err := ctx.CreateQueue(id, 0)
	if err != nil {
		ctx.Release()
		return nil, err
	}
	return newDevice(o, p, id, ctx, q), nil
}

func (o *Options) defaults() {
	devkit.StagingDefaults(&o.StagingChunk, &o.StagingMin, &o.StagingMinD2H, defaultChunk, defaultStagingMin, defaultStagingMinD2H)
}

// newDevice builds a Device over ctx and q, which it releases on Close.
func newDevice(o Options, p cl.Platform, id cl.DeviceID, ctx *cl.Context, q *cl.CommandQueue) *Device {
	s := &state{
		opts: o, platform: p, id: id, ctx: ctx, queue: q,
		align:    max(id.MemBaseAddrAlign()/8, 1),
		maxAlloc: int(min(id.MaxMemAllocSize(), int64(^uint(0)>>1))),
	}
	s.Init("opencl", fmt.Sprintf("opencl:%s (%s)", id.Name(), p.Name()), ErrClosed, ErrForeign, s)
	switch o.Staging {
	case StagingOn:
		s.stage = true
	case StagingAuto:
		s.stage = !id.HostUnifiedMemory()
	}
	limit := int(o.CacheLimit)
	if o.CacheLimit == 0 {
		limit = int(min(id.GlobalMemSize()/2, int64(^uint(0)>>1)))
	}
	if o.NoCache {
		limit = 0
	}
	s.Pool.SetCacheLimit(limit)
	if o.Verbose {
		log.Printf("opencl: using %s: %s, driver %s, max alloc %d B, global %d B, staging %v (2 × %d B, %d copy goroutines)",
			s.Name, id.Version(), id.DriverVersion(), s.maxAlloc, id.GlobalMemSize(), s.stage, o.StagingChunk, s.threads())
	}
	d := &Device{s: s}
	d.InitFace(&s.Core, d, runtime.AddCleanup(d, func(s *state) { s.Close() }, s), devkit.FaceHooks[*Device]{
		NoCache: o.NoCache, Fit: s.fit, Move: d.moveHost, Begin: d.beginCapture, End: d.endCapture, Foreign: d.recording})
	return d
}

// defaultDev is Default's device.
var defaultDev devkit.Shared[*Device]

// Default returns the process-wide shared device, opened on first use with
// Options{} (so chosen by HL_OCL_PLATFORM_NAME and HL_OCL_DEVICE_TYPE).
// Don't Close it; if someone did, the next call opens it again.
func Default() (*Device, error) {
	return defaultDev.Get((*Device).isClosed, func() (*Device, error) { return Open(Options{}) })
}

func (d *Device) isClosed() bool { return d.s.Closed() }

// The device's OpenCL objects, for this module's code that calls the
// binding (internal/cl) itself; cl.Raw gives them to other packages of the
// module. The Device owns them: don't Release them. Outside the module,
// Handles gives the raw cl_context and cl_command_queue.

func (d *Device) clContext() *cl.Context    { return d.s.ctx }
func (d *Device) clQueue() *cl.CommandQueue { return d.s.queue }
func (d *Device) clDeviceID() cl.DeviceID   { return d.s.id }
func (d *Device) clPlatform() cl.Platform   { return d.s.platform }

func init() {
	cl.Raw = func(d any) (cl.Platform, cl.DeviceID, *cl.Context, *cl.CommandQueue, bool) {
		od, ok := d.(*Device)
		if !ok {
			return cl.Platform{}, cl.DeviceID{}, nil, nil, false
		}
		return od.s.platform, od.s.id, od.s.ctx, od.s.queue, true
	}
}

// Type is the device's kind (CPU, GPU, accelerator).
func (d *Device) Type() DeviceType { return d.s.id.Type() }

// PlatformName is the name of the device's OpenCL platform.
func (d *Device) PlatformName() string { return d.s.platform.Name() }

// BuildLog builds src with options for this device and returns the
// compiler's log (for tuners reading what a driver says of a kernel, such
// as NVIDIA's -cl-nv-verbose register counts); a failed build is a
// *BuildError holding the log.
func (d *Device) BuildLog(src, options string) (string, error) {
	if err := d.s.Enter(); err != nil {
		return "", err
	}
	defer d.s.Gate.Leave()
	p, err := d.build(src, options)
	if err != nil {
		return "", err
	}
	defer p.Release()
	return p.BuildLog(d.s.id)
}

// build creates and builds a program for this device; a failed build
// returns a *BuildError with the log.
func (d *Device) build(src, options string) (*cl.Program, error) {
	return d.s.ctx.BuildProgram(d.s.id, options, src)
}

// Sync waits for all work queued on the device.
func (d *Device) Sync() error {
	if err := d.s.Enter(); err != nil {
		return err
	}
	defer d.s.Gate.Leave()
	return errors.Join(d.s.queue.Finish(), d.s.streams.finish())
}

// enter passes the device's gate: ErrClosed once Close has shut it. Pair
// a nil error with s.Gate.Leave().
func (s *state) enter() error {
	if !s.Gate.Enter() {
		return ErrClosed
	}
	return nil
}

var _ devkit.Driver = (*state)(nil)

// Finish waits for the queues and releases the command buffers
// (devkit.Driver, at shutdown).
func (s *state) Finish() error {
	return errors.Join(s.queue.Finish(), s.streams.finish(), s.cmdbuf.releaseAll())
}

// FreeBlock releases a cl_mem (devkit.Driver).
func (s *state) FreeBlock(h uintptr) error { return cl.Release(cl.KindMem, h) }

// Drop waits for the paced work and frees the staging buffers
// (devkit.Driver, after the memory).
func (s *state) Drop() error {
	err := s.pace.drain()
	s.stageMu.Lock()
	if s.stager != nil {
		err = errors.Join(err, s.stager.release(s))
		s.stager = nil
	}
	s.stageMu.Unlock()
	return err
}

// Release drops the queue, the context and an owned sub-device, last
// (devkit.Driver).
//
// A sub-device goes only once the driver holds no more references to the
// device's queues. PoCL's worker thread signals a command complete (so
// Finish, Wait and blocking calls return) and only then releases its own
// reference to the command's event, which holds the queue; freeing that
// event reads event->queue->device. PoCL 3.1 (Debian 12) retains neither
// the sub-devices a context is made for (it retains their parent: issue
// #1229, fixed in PoCL 4.0) nor a queue's device, so our reference is the
// sub-device's last, and dropping it right after Close's Finish freed the
// device under that late release: SIGSEGV in POclReleaseEvent on a PoCL
// thread (TestGroupCopiesDirectly, about one run of the package's tests
// in six). A queue still referenced when the wait gives up (events the
// caller never released) keeps the sub-device: a small leak, not a
// use-after-free.
func (s *state) Release() error {
	keep := s.subID && !s.driverDone()
	err := errors.Join(s.streams.release(), s.queue.Release(), s.ctx.Release())
	if s.subID && !keep {
		err = errors.Join(err, cl.ReleaseDevice(s.id))
	}
	return err
}

// driverWait bounds driverDone's wait; the driver's late releases take
// microseconds.
const driverWait = time.Second

// driverDone waits until the device's queues are referenced only by this
// state (see release) and reports whether they were within driverWait.
func (s *state) driverDone() bool {
	qs := []*cl.CommandQueue{s.queue}
	s.streams.Mu.Lock()
	if s.streams.Up != nil {
		qs = append(qs, s.streams.Up, s.streams.Down)
	}
	s.streams.Mu.Unlock()
	deadline := time.Now().Add(driverWait)
	pause := 20 * time.Microsecond
	for _, q := range qs {
		for {
			n, err := q.ReferenceCount()
			if err != nil {
				return false
			}
			if n <= 1 {
				break
			}
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(pause)
			pause = min(2*pause, time.Millisecond)
		}
	}
	return true
}

var _ device.Compute = (*Device)(nil)

// Caps reports the device's capabilities (device.Compute): it builds
// kernels from OpenCL C.
func (d *Device) Caps() device.Caps {
	d.s.capsOnce.Do(func() {
		id := d.s.id
		d.s.caps = device.Caps{Lang: "OpenCL C", FP64: strings.Contains(id.Extensions(), "cl_khr_fp64"),
			LocalMem: id.LocalMemSize(), Units: max(1, id.MaxComputeUnits()), MaxGroup: id.MaxWorkGroupSize(),
			Vendor: d.s.platform.Name()}
	})
	return d.s.caps
}
