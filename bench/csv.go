package bench

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"
)

// WriteCSV writes one row per Result (every chain length), times in
// milliseconds, with the ceilings of the Result's host memory alongside.
func WriteCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"device", "mode", "memory", "stages", "sync", "width", "height", "bytes", "reps",
		"median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms",
		"h2d_calls", "d2h_calls", "h2d_bytes", "d2h_bytes",
		"effective_gbps", "ideal_ms", "of_ideal", "vs_resident",
		"ceiling_h2d_gbps", "ceiling_d2h_gbps", "ceiling_d2d_gbps"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	d := func(t time.Duration) string { return f(float64(t) / 1e6) }
	for _, x := range r.Results {
		c, _ := r.Ceiling(x.Memory)
		cw.Write([]string{r.Device, x.Mode.String(), x.Memory.String(), strconv.Itoa(x.Stages), joinInts(x.Sync),
			strconv.Itoa(r.Width), strconv.Itoa(r.Height), strconv.Itoa(r.Bytes), strconv.Itoa(x.Time.N),
			d(x.Time.Median), d(x.Time.Min), d(x.Time.Max), d(x.Time.P10), d(x.Time.P90),
			f(x.H2DCalls), f(x.D2HCalls), f(x.H2DBytes), f(x.D2HBytes),
			f(x.EffectiveGBps), d(x.Ideal), f(x.OfIdeal), f(x.VsResident),
			f(c.H2DGBps), f(c.D2HGBps), f(c.D2DGBps)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the whole Report, durations in nanoseconds.
func WriteJSON(w io.Writer, r *Report) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// ReadJSON reads a Report written by WriteJSON.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}
