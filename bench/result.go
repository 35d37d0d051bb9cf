package bench

import "time"

// Report is everything one Run measured.
type Report struct {
	Device  string
	Stage   string // the chain's stage names, joined when they differ
	Width   int
	Height  int
	Bytes   int // of the uint8 input image
	Stages  int // length of the full chain
	Sync    []int
	Warmup  int
	Reps    int
	Command string // what made the report, set by the caller
	Started time.Time
	Took    time.Duration

	Ceilings []Ceiling
	Results  []Result
}

// Ceiling is what the device moves without any stage in the way, measured
// on the chain's image: H2D and D2H copy it between host memory of the
// given kind and the device; D2D copies it within the device.
type Ceiling struct {
	Memory        Memory
	H2D, D2H, D2D Timing
	// H2DGBps and D2HGBps are bytes over the median time; HostDeviceGBps
	// is both directions' bytes over the sum of the medians; D2DGBps counts
	// the bytes read plus those written, as EffectiveGBps does.
	H2DGBps, D2HGBps, HostDeviceGBps, D2DGBps float64
}

// Result is one chain length run in one mode with one kind of host memory.
type Result struct {
	Mode   Mode
	Memory Memory
	Stages int
	Sync   []int   // Explicit's sync points within this chain
	Bands  int     // Streamed's bands of rows
	First  float64 // Streamed's first band's height relative to the others (0: equal)
	Last   float64 // and its last band's

	Time Timing // per iteration: upload, stages, download

	// Device counters per iteration (device.Stats delta / repetitions).
	H2DCalls, D2HCalls float64
	H2DBytes, D2HBytes float64

	// EffectiveGBps is the stages' traffic over the median time: each
	// stage reads its input and writes its output, so a chain of uint8
	// images moves 2·bytes·stages.
	EffectiveGBps float64
	// Ideal is the time the same transfers and stages would take at the
	// ceilings: transfer bytes at H2D/D2H speed plus the stages' traffic
	// at D2D speed (one D2D copy of the image per uint8 → uint8 stage).
	// OfIdeal is Ideal over the median: 1 is the ceiling.
	Ideal   time.Duration
	OfIdeal float64
	// VsResident is this median over Resident's with the same memory and
	// chain length (0 when Resident was not run).
	VsResident float64
}

// Find returns the Result for mode, memory and chain length, if any.
func (r *Report) Find(mode Mode, mem Memory, stages int) (Result, bool) {
	for _, x := range r.Results {
		if x.Mode == mode && x.Memory == mem && x.Stages == stages {
			return x, true
		}
	}
	return Result{}, false
}

// Ceiling returns the Ceiling measured with mem, if any.
func (r *Report) Ceiling(mem Memory) (Ceiling, bool) {
	for _, c := range r.Ceilings {
		if c.Memory == mem {
			return c, true
		}
	}
	return Ceiling{}, false
}
