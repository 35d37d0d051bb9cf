package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
)

// result is one measured figure; Higher says which way is better.
type result struct {
	Key, Name, Unit string
	Value           float64
	Higher          bool
	Target          float64 // minimum ours/PyTorch speed ratio, 0 if none
	Note            string
}

type bench struct {
	d       *opencl.Device
	minTime time.Duration
	out     io.Writer
	results []result
	ptx     string          // -ptx
	nvlog   bool            // -nvlog
	logged  map[[6]int]bool // tilings whose ptxas figures were printed
}

func main() {
	torchFile := flag.String("torch", "", "PyTorch figures written by bench/torch_ops.py, compared in the table")
	logN := flag.Int("n", 28, "log2 of the elements of the bandwidth benchmarks")
	gemmN := flag.Int("gemm", 4096, "matrix size of SGEMM and DGEMM")
	tune := flag.Bool("tune", true, "measure the SGEMM/DGEMM tilings and keep the best")
	ptx := flag.String("ptx", "auto", "the inline-PTX float64 GEMM (NVIDIA): auto (tune over it and the portable kernels, report both), on (only it), off (portable only)")
	shapes := flag.Bool("shapes", true, "also measure SGEMM/DGEMM at 1000³, 4096×4096×64 and 64×4096×4096 (M×N×K), each tuned too")
	nvlog := flag.Bool("nvlog", true, "on NVIDIA, print ptxas's register and spill counts of each GEMM tiling (-cl-nv-verbose)")
	minTime := flag.Duration("time", 300*time.Millisecond, "minimum timed duration of each benchmark")
	jsonOut := flag.String("json", "", "also write our figures as JSON to this file")
	flag.Parse()

	d, err := opencl.Default()
	if err != nil {
		fail(err)
	}
	b := &bench{d: d, minTime: *minTime, out: os.Stderr, ptx: *ptx, nvlog: *nvlog && strings.Contains(d.Caps().Vendor, "NVIDIA")}
	fmt.Fprintf(os.Stderr, "device: %s\n", d.Name())
	b.try("ptx-probe", b.ptxProbe)
	b.try("bandwidth", func() { b.bandwidth(1 << *logN) })
	b.try("sgemm", func() { b.gemm32(*gemmN, *tune) })
	b.try("dgemm", func() { b.gemm64(*gemmN, *tune) })
	if *shapes {
		b.try("gemm-shapes", func() { b.gemmShapes(*tune) })
	}
	b.try("launch", func() { b.launch() })

	var torch map[string]float64
	var torchInfo map[string]any
	if *torchFile != "" {
		raw, err := os.ReadFile(*torchFile)
		if err != nil {
			fail(err)
		}
		if err := json.Unmarshal(raw, &torchInfo); err != nil {
			fail(fmt.Errorf("%s: %w", *torchFile, err))
		}
		torch = map[string]float64{}
		for k, v := range torchInfo {
			if f, ok := v.(float64); ok {
				torch[k] = f
			}
		}
	}
	b.table(os.Stdout, torch, torchInfo)
	if *jsonOut != "" {
		m := map[string]float64{}
		for _, r := range b.results {
			m[r.Key] = r.Value
		}
		raw, _ := json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(*jsonOut, raw, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "opsbench:", err)
	os.Exit(1)
}

// check ends the current section (see try) on an error.
func check(err error) {
	if err != nil {
		panic(exit{err})
	}
}

// timeIt runs fn (which enqueues work) until minTime has passed, with a
// device sync before the clock starts and after it stops; it returns the
// mean seconds per call. A failure ends the program (see try).
func (b *bench) timeIt(fn func() error) float64 {
	t, err := b.tryTime(fn)
	check(err)
	return t
}

// tryTime is timeIt returning the error.
func (b *bench) tryTime(fn func() error) (float64, error) {
	for range 3 {
		if err := fn(); err != nil {
			return 0, err
		}
	}
	if err := b.d.Sync(); err != nil {
		return 0, err
	}
	n := 1
	for {
		t0 := time.Now()
		for range n {
			if err := fn(); err != nil {
				return 0, err
			}
		}
		if err := b.d.Sync(); err != nil {
			return 0, err
		}
		el := time.Since(t0)
		if el >= b.minTime || n >= 1<<20 {
			return el.Seconds() / float64(n), nil
		}
		n *= 2
		if el > 0 {
			n = max(n, int(float64(n)*float64(b.minTime)/float64(el)/2))
		}
	}
}

// try runs one benchmark section; a failure is reported and the others
// still run.
func (b *bench) try(name string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(exit); ok {
				fmt.Fprintf(os.Stderr, "opsbench: %s failed: %v\n", name, e.err)
				b.results = append(b.results, result{Key: name, Name: name + " FAILED: " + e.err.Error()})
				return
			}
			panic(r)
		}
	}()
	fn()
}

type exit struct{ err error }

func (b *bench) add(r result) {
	b.results = append(b.results, r)
	fmt.Fprintf(b.out, "%-34s %10.4g %s %s\n", r.Name, r.Value, r.Unit, r.Note)
}

// bandwidth: float32 add (12 B/element), sum (4 B/element) and a
// device-to-device copy (8 B/element) on n elements resident on the device.
func (b *bench) bandwidth(n int) {
	a, x, c := array.New[float32](n), array.New[float32](n), array.New[float32](n)
	s := array.New[float32](1)
	check(ops.On(b.d, a, x, c, s))
	check(ops.Iota(a, -1))
	check(ops.BinaryScalar(a, a, 1/float32(n), ops.OpMul))
	check(ops.Fill(x, 1))
	t := b.timeIt(func() error { return ops.Binary(c, a, x, ops.OpAdd) })
	b.add(result{Key: "add_gbs", Name: fmt.Sprintf("add float32 2^%d", log2(n)), Unit: "GB/s", Value: 12 * float64(n) / t / 1e9, Higher: true, Target: 0.9})
	t = b.timeIt(func() error { return ops.Sum(s.Slice(0, 0), a, -1) })
	b.add(result{Key: "sum_gbs", Name: fmt.Sprintf("sum float32 2^%d", log2(n)), Unit: "GB/s", Value: 4 * float64(n) / t / 1e9, Higher: true, Target: 0.85})
	t = b.timeIt(func() error { return ops.Copy(c, a) })
	b.add(result{Key: "copy_gbs", Name: fmt.Sprintf("D2D copy float32 2^%d", log2(n)), Unit: "GB/s", Value: 8 * float64(n) / t / 1e9, Higher: true, Target: 0.95})
	// correctness of what was timed: sum of i/n over i < n is (n-1)/2
	v, err := ops.Value(ops.Sum, a)
	check(err)
	if want := float64(n-1) / 2; math.Abs(float64(v)-want) > 1e-3*want {
		check(fmt.Errorf("sum check: got %v, want %v", v, want))
	}
	for _, z := range []*array.Array[float32]{a, x, c, s} {
		z.Close()
	}
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// launch: a tiny op (BinaryScalar OpAdd on 256 float32, then Sync) against a bare
// kernel enqueue of the same size on the same queue through the device's
// own Enqueue (then Sync): the floor the op's planning adds to.
func (b *bench) launch() {
	x := array.New[float32](256)
	check(ops.On(b.d, x))
	p, err := b.d.Compile(`__kernel void one(__global float *x) { x[get_global_id(0)] += 1.0f; }`, "")
	check(err)
	k, err := p.Kernel("one")
	check(err)
	mem, err := b.d.Malloc(4 * 256)
	check(err)
	args := []any{mem}
	grid := device.Grid{Dims: 1, Global: [3]int{256, 1, 1}}
	sync := func(err error) error {
		if err != nil {
			return err
		}
		return b.d.Sync()
	}
	// Interleave the two so that clock and driver states are alike.
	var op, bare []float64
	for range 5 {
		bare = append(bare, b.timeIt(func() error { return sync(b.d.Enqueue(k, grid, args)) }))
		op = append(op, b.timeIt(func() error { return sync(ops.BinaryScalar(x, x, 1, ops.OpAdd)) }))
	}
	sort.Float64s(op)
	sort.Float64s(bare)
	mo, mb := op[len(op)/2]*1e6, bare[len(bare)/2]*1e6
	b.add(result{Key: "tiny_op_us", Name: "tiny op (AddScalar 256) + sync", Unit: "µs", Value: mo})
	b.add(result{Key: "bare_us", Name: "bare kernel enqueue + sync", Unit: "µs", Value: mb})
	b.add(result{Key: "tiny_over_bare", Name: "tiny op / bare enqueue", Unit: "×", Value: mo / mb, Note: "target ≤ 1.5"})
	b.d.Free(mem)
	k.Release()
	p.Release()
	x.Close()
}

// table prints our figures, PyTorch's and the ratio of speeds (ours /
// PyTorch: above 1 is faster than PyTorch).
func (b *bench) table(w io.Writer, torch map[string]float64, info map[string]any) {
	fmt.Fprintf(w, "ops on %s", b.d.Name())
	if info != nil {
		fmt.Fprintf(w, " vs PyTorch %v on %v", info["torch"], info["device"])
	}
	fmt.Fprintf(w, "\n\n| op | ours | PyTorch | speed ratio | target | torch.compile | ratio to it |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range b.results {
		// torch_ops.py writes KEY_compiled for ops it also ran compiled.
		cs, cr := "–", "–"
		if cv, ok := torch[r.Key+"_compiled"]; ok && cv > 0 {
			cs, cr = fmt.Sprintf("%.4g %s", cv, r.Unit), fmt.Sprintf("%.2f×", speedRatio(r, cv))
		}
		tv, ok := torch[r.Key]
		ts, ratio, target := "–", "–", "–"
		if ok && tv > 0 {
			ts = fmt.Sprintf("%.4g %s", tv, r.Unit)
			ratio = fmt.Sprintf("%.2f×", speedRatio(r, tv))
		}
		if r.Target > 0 {
			target = fmt.Sprintf("≥ %.2f×", r.Target)
			if ok && tv > 0 {
				q := r.Value / tv
				if q < r.Target {
					target += " (missed)"
				}
			}
		}
		if strings.HasPrefix(r.Note, "target") {
			target = r.Note[len("target "):]
		}
		note := ""
		if r.Note != "" && !strings.HasPrefix(r.Note, "target") {
			note = " " + r.Note
		}
		fmt.Fprintf(w, "| %s%s | %.4g %s | %s | %s | %s | %s | %s |\n", r.Name, note, r.Value, r.Unit, ts, ratio, target, cs, cr)
	}
}

// speedRatio is ours over PyTorch's figure tv as a speed: above 1 is faster.
func speedRatio(r result, tv float64) float64 {
	if !r.Higher {
		return tv / r.Value
	}
	return r.Value / tv
}
