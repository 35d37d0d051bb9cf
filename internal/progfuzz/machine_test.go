package progfuzz

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/ops/engine"
)

// recLen is the length of one step's record in the fuzz input: a kind byte
// and parameter bytes (0 past the end), so seeds compose by concatenation.
const recLen = 12

// maxSteps bounds a program, so one execution stays fast.
const maxSteps = 48

// Step kinds.
const (
	sNewRoot = iota
	sView
	sHostWrite
	sHostRead
	sBinary
	sScalar
	sUnary
	sCopyFill
	sCast
	sReduce
	sMatMul
	sPipeline
	sEngine
	sOn
	sMoveTo
	sSync
	sClose
	sGC
	nSteps
)

var stepNames = [...]string{"NewRoot", "View", "HostWrite", "HostRead", "Binary", "Scalar", "Unary", "CopyFill", "Cast", "Reduce", "MatMul", "Pipeline", "Engine", "On", "MoveTo", "Sync", "Close", "GC"}

// masked step kinds are skipped (a found bug's kind, while it is open).
var masked = map[int]bool{}

// shared devices, opened once per process.
var (
	devOnce sync.Once
	clDev   *opencl.Device   // nil without OpenCL
	halves  []*opencl.Device // nil where the device cannot be split
	devErr  error
)

func openDevices() {
	devOnce.Do(func() {
		d, err := halide.DefaultDevice("OpenCL")
		if err != nil {
			devErr = err
			return
		}
		clDev = d.(*opencl.Device)
		if hs, err := opencl.Split(opencl.Options{Type: opencl.DeviceCPU}, 2); err == nil {
			halves = hs
		}
	})
}

// root is a memory of the pool with its model: model[i] is the latest
// write to the element at storage index i from the root's min corner.
type root struct {
	name   string
	a      arr
	k      kind
	model  []float64
	base   uintptr
	closed bool
	dense  *tensor.Dense // set for Denses of the engine (never Closed or moved by the program)
}

// slot is an Array of the pool: a root or a view of one.
type slot struct {
	name string
	r    *root
	a    arr
}

type machine struct {
	t     testing.TB
	log   []string
	roots []*root
	slots []*slot
	devs  []device.Device // clDev, halves…, sim: MoveTo targets
	sim   *sim.Device
	eng   *engine.Engine
	rec   []byte
	n     int // names
}

func (m *machine) next() int {
	if len(m.rec) == 0 {
		return 0
	}
	b := int(m.rec[0])
	m.rec = m.rec[1:]
	return b
}

func (m *machine) logf(format string, args ...any) {
	m.log = append(m.log, fmt.Sprintf(format, args...))
}

// failf stops the program, printing it as Go.
func (m *machine) failf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("%s\n\nprogram (%d steps):\n\t%s", fmt.Sprintf(format, args...), len(m.log), strings.Join(m.log, "\n\t"))
}

func (m *machine) name(prefix string) string {
	m.n++
	return fmt.Sprintf("%s%d", prefix, m.n)
}

func (m *machine) devName(d device.Device) string {
	if d == nil {
		return "nil"
	}
	for i, x := range m.devs {
		if x == d {
			return [...]string{"cl", "half0", "half1", "simDev"}[devIndex(m, i)]
		}
	}
	return d.Name()
}

func devIndex(m *machine, i int) int {
	if m.devs[i] == device.Device(m.sim) {
		return 3
	}
	if i == 0 {
		return 0
	}
	return i
}

// run executes one program.
func run(t testing.TB, data []byte) {
	openDevices()
	m := &machine{t: t, sim: sim.New("sim", 0)}
	if clDev != nil {
		m.devs = append(m.devs, clDev)
		for _, h := range halves {
			m.devs = append(m.devs, h)
		}
	}
	m.devs = append(m.devs, m.sim)
	m.logf("simDev := sim.New(\"sim\", 0); cl, _ := halide.DefaultDevice(\"OpenCL\"); half0, half1 := opencl.Split(…, 2)")
	defer m.cleanup()
	// The starting pool: a float32 and a uint8 root with non-zero mins.
	m.addRoot(kF32, false, []int{1, -2}, []int{4, 3})
	m.addRoot(kU8, false, []int{0, 0}, []int{6, 4})
	for step := 0; len(data) > 0 && step < maxSteps; step++ {
		n := min(recLen, len(data))
		k := int(data[0]) % nSteps
		m.rec, data = data[1:n], data[n:]
		if masked[k] || (clDev == nil && (k == sEngine || k == sOn)) {
			continue
		}
		m.step(k)
		m.checkAll(stepNames[k])
	}
}
