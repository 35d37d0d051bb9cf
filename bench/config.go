package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/resident-go/resident/device"
)

// Config describes a benchmark run. Device, Stages, Width and Height are
// required; the rest have defaults.
type Config struct {
	// Device is where the stages run: transfers are counted by its Stats
	// and the ceilings measured on it.
	Device device.Device
	// Stages is the chain, over a Width × Height uint8 image: stage 0
	// reads it, each later stage the output of the one before.
	Stages        []Stage
	Width, Height int
	// Modes to run; default Resident, RoundTrip, Explicit (Modes).
	Modes []Mode
	// Bands is how many bands of rows Streamed cuts the image into; 0: 2
	// (halide/stream's default).
	Bands int
	// First and Last are Streamed's first and last bands' height
	// relative to the others (stream.Cut's; 0: equal bands).
	First, Last float64
	// Memories to run; default GoMemory, plus Pinned when Device is a
	// device.HostAllocator.
	Memories []Memory
	// Sync lists Explicit's sync points: 0-based stage indices after which
	// the chain copies to host. Default: the middle stage, len(Stages)/2−1.
	Sync []int
	// Ladder also runs every shorter prefix of the chain (1…N stages), for
	// a plot of time against stages; otherwise only the full chain runs.
	Ladder bool
	// Warmup iterations (untimed; the first builds kernels) and timed
	// repetitions per Result; defaults 1 and 10. CeilingReps defaults to Reps.
	Warmup, Reps, CeilingReps int
	// Progress, when set, is called before each measurement.
	Progress func(done, total int, what string)
	// Trace, when set, gets the timeline (stream.Trace) of TraceRuns more
	// iterations of each streamed trial, run after the timed ones.
	Trace io.Writer
}

// TraceRuns is how many traced iterations Config.Trace gets per streamed
// trial: several, since one can be an outlier.
const TraceRuns = 3

// normalize fills in defaults and checks what Run cannot work with.
func (c Config) normalize() (Config, error) {
	if c.Device == nil {
		return c, errors.New("bench: Config.Device is nil")
	}
	if len(c.Stages) == 0 {
		return c, errors.New("bench: Config.Stages is empty: give at least one stage")
	}
	for i, s := range c.Stages {
		if s.Run == nil {
			return c, fmt.Errorf("bench: stage %d (%q) has no Run function", i, s.Name)
		}
	}
	if c.Width <= 0 || c.Height <= 0 {
		return c, fmt.Errorf("bench: image %d×%d: width and height must be > 0", c.Width, c.Height)
	}
	if len(c.Modes) == 0 {
		c.Modes = slices.Clone(Modes)
	}
	_, pinnable := c.Device.(device.HostAllocator)
	if len(c.Memories) == 0 {
		c.Memories = []Memory{GoMemory}
		if pinnable {
			c.Memories = append(c.Memories, Pinned)
		}
	}
	if slices.Contains(c.Memories, Pinned) && !pinnable {
		return c, fmt.Errorf("bench: device %s has no pinned host memory (not a device.HostAllocator): use Memories {GoMemory}", c.Device.Name())
	}
	n := len(c.Stages)
	if c.Sync == nil && slices.Contains(c.Modes, Explicit) {
		c.Sync = []int{max(n/2-1, 0)}
	}
	for _, s := range c.Sync {
		if s < 0 || s >= n {
			return c, fmt.Errorf("bench: sync point %d: want a stage index in 0…%d", s, n-1)
		}
	}
	c.Sync = slices.Compact(slices.Sorted(slices.Values(c.Sync)))
	if slices.Contains(c.Modes, Streamed) {
		if !streams(c.Device) {
			return c, fmt.Errorf("bench: streamed mode runs on a device/opencl or device/cuda Device; %s is neither: leave streamed out of Modes", c.Device.Name())
		}
		for i, s := range c.Stages {
			if s.Out.Scalar() && i < n-1 {
				return c, fmt.Errorf("bench: streamed mode cuts the image in bands of rows; stage %d (%q) reduces it to a scalar before the last stage: leave streamed out of Modes", i, s.Name)
			}
		}
	}
	if c.Bands <= 0 {
		c.Bands = 2
	}
	if c.Warmup <= 0 {
		c.Warmup = 1
	}
	if c.Reps <= 0 {
		c.Reps = 10
	}
	if c.CeilingReps <= 0 {
		c.CeilingReps = c.Reps
	}
	return c, nil
}

// lengths are the chain lengths Run measures.
func (c Config) lengths() []int {
	if !c.Ladder {
		return []int{len(c.Stages)}
	}
	ls := make([]int, len(c.Stages))
	for i := range ls {
		ls[i] = i + 1
	}
	return ls
}

// streams reports whether d is a device package stream runs on: one
// whose native API is OpenCL's or CUDA's (device/opencl, device/cuda).
func streams(d device.Device) bool {
	n, ok := d.(device.Native)
	return ok && (n.API() == "OpenCL" || n.API() == "CUDA")
}
