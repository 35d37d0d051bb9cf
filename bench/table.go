package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/resident-go/resident/halide/stream"
)

// WriteTable writes the report as markdown: a header naming the device and
// workload, the ceilings, and one row per Result of the full chain (every
// chain length when all is true).
func WriteTable(w io.Writer, r *Report, all bool) error {
	p := &errWriter{w: w}
	p.printf("**%s** — %s on a %d×%d uint8 image (%.1f MiB); median of %d repetitions after %d warm-up",
		r.Device, chainLabel(r), r.Width, r.Height, float64(r.Bytes)/(1<<20), r.Reps, r.Warmup)
	if len(r.Sync) > 0 {
		p.printf("; explicit mode syncs after stage %s", joinInts(r.Sync))
	}
	p.printf(".\n")
	if r.Command != "" {
		p.printf("Command: `%s`\n", r.Command)
	}
	p.printf("\n| host memory | H2D GB/s | D2H GB/s | H2D+D2H GB/s | D2D GB/s (read+write) |\n|---|---:|---:|---:|---:|\n")
	for _, c := range r.Ceilings {
		p.printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", c.Memory, c.H2DGBps, c.D2HGBps, c.HostDeviceGBps, c.D2DGBps)
	}
	p.printf("\n| mode | host memory | stages | median ms | p10–p90 ms | H2D/iter | D2H/iter | MB moved/iter | effective GB/s | of ideal | × resident |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Results {
		if !all && x.Stages != r.Stages {
			continue
		}
		vs := "–"
		if x.VsResident > 0 {
			vs = fmt.Sprintf("%.2f", x.VsResident)
		}
		p.printf("| %s | %s | %d | %s | %s–%s | %g | %g | %.1f | %.1f | %.0f%% | %s |\n",
			modeLabel(x), x.Memory, x.Stages, ms(x.Time.Median), ms(x.Time.P10), ms(x.Time.P90),
			x.H2DCalls, x.D2HCalls, (x.H2DBytes+x.D2HBytes)/1e6, x.EffectiveGBps, 100*x.OfIdeal, vs)
	}
	return p.err
}

// chainLabel names the chain: "8 × brighter" for a chain of one stage,
// "brighter → cast_f32 → scale → sum (4 stages)" for a mixed one.
func chainLabel(r *Report) string {
	if !r.stagesDiffer() {
		return fmt.Sprintf("%d × %s", r.Stages, r.Stage)
	}
	return fmt.Sprintf("%s (%d stages)", stageList(r), r.Stages)
}

// stagesDiffer reports whether the chain has stages of more than one kind
// (Report.Stage joins their names then).
func (r *Report) stagesDiffer() bool { return strings.Contains(r.Stage, ",") }

// stageList is the report's stage names joined by arrows.
func stageList(r *Report) string { return strings.ReplaceAll(r.Stage, ",", " → ") }

// modeLabel names the mode, with Explicit's sync points.
func modeLabel(x Result) string {
	switch x.Mode {
	case Explicit:
		return fmt.Sprintf("explicit (sync %s)", joinInts(x.Sync))
	case Streamed:
		return "streamed (" + stream.Cut{Bands: x.Bands, First: x.First, Last: x.Last}.String() + ")"
	}
	return x.Mode.String()
}

func joinInts(xs []int) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(x)
	}
	if s == "" {
		return "none"
	}
	return s
}

// ms formats d in milliseconds with three significant-ish decimals.
func ms(d time.Duration) string {
	v := float64(d) / 1e6
	switch {
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	case v >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// errWriter keeps the first write error so formatting code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
