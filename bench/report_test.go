package bench

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resident-go/resident/device/sim"
)

// simReport runs 3 × sim_brighter on a sim device, simMixedReport the
// mixed chain: 32×16, every length, 2 repetitions.
func simReport(t *testing.T) *Report {
	return simReportOf(t, func(d *sim.Device) []Stage { return Repeat(SimBrighter(d, 1), 3) })
}

func simMixedReport(t *testing.T) *Report {
	return simReportOf(t, func(d *sim.Device) []Stage { return SimMixed(d, 1, DefaultScale) })
}

func simReportOf(t *testing.T, stages func(*sim.Device) []Stage) *Report {
	t.Helper()
	d := sim.New("test", 0)
	t.Cleanup(func() { d.Close() })
	rep, err := Run(Config{Device: d, Stages: stages(d), Width: 32, Height: 16, Ladder: true, Reps: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep.Command = "test"
	return rep
}

func TestOutputs(t *testing.T) {
	rep := simReport(t)
	dir := t.TempDir()

	table := checkTable(t, rep, false, "**sim:test** — 3 × sim_brighter on a 32×16 uint8 image (0.0 MiB)", "| resident | go | 3 |", "| roundtrip | pinned | 3 |", "| explicit (sync 0) | go | 3 |", "D2D GB/s", "Command: `test`")
	if strings.Contains(table, "| resident | go | 1 |") {
		t.Error("table without all shows a shorter chain")
	}
	checkCSV(t, rep, 3)

	png := filepath.Join(dir, "plot.png")
	f, err := os.Create(png)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePlot(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := os.ReadFile(png)
	if err != nil || len(b) < 1000 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("plot is not a PNG (%d bytes, %v)", len(b), err)
	}

	var j bytes.Buffer
	if err := WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"Mode": "roundtrip"`) {
		t.Error("JSON does not name modes")
	}
	back, err := ReadJSON(&j)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Results) != len(rep.Results) || back.Results[4].Time != rep.Results[4].Time || back.Results[4].Mode != rep.Results[4].Mode {
		t.Error("JSON round trip changed the results")
	}
}

func TestComparison(t *testing.T) {
	rep := simReport(t)
	res, _ := rep.Find(Resident, GoMemory, 3)
	pin, _ := rep.Find(Resident, Pinned, 3)
	ms := func(d int64) float64 { return float64(d) / 1e6 }
	js := `{"device": "fake GPU", "torch": "2.11", "width": 32, "height": 16, "stages": 3, "reps": 5,
	  "results": [
	    {"mode": "resident", "memory": "pageable", "stages": 3, "median_ms": ` + ftoa(ms(int64(res.Time.Median))*2) + `},
	    {"mode": "resident", "memory": "pinned", "stages": 3, "median_ms": ` + ftoa(ms(int64(pin.Time.Median))*4) + `},
	    {"mode": "compiled", "memory": "pinned", "stages": 3, "median_ms": ` + ftoa(ms(int64(pin.Time.Median))/2) + `},
	    {"mode": "roundtrip", "memory": "pageable", "stages": 3, "median_ms": 10}]}`
	tr, err := ReadTorch(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	// Like with like: Go memory against eager pageable (0.5×, met at 0.8),
	// pinned against torch.compile pinned (2×, not met at 1.0), never the
	// eager pinned figure that would flatter us.
	gs := Goals(rep, tr)
	if len(gs) != 2 || !gs[0].Met || gs[0].Ratio < 0.49 || gs[0].Ratio > 0.51 || gs[0].Peer != "eager pageable" {
		t.Fatalf("goals %+v: want Go memory at 0.5× eager pageable, met", gs)
	}
	if gs[1].Peer != "torch.compile pinned" || gs[1].Met || gs[1].Ratio < 1.99 || gs[1].Ratio > 2.01 {
		t.Errorf("pinned goal %+v: want 2× torch.compile pinned, not met", gs[1])
	}
	var b bytes.Buffer
	if err := WriteComparison(&b, rep, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fake GPU", "| resident | go / pageable |", "| roundtrip | go / pageable |", "(PyTorch eager pageable) = 0.50× (goal ≤ 0.8×): met",
		"(PyTorch torch.compile pinned) = 2.00× (goal ≤ 1.0×): NOT met", "| torch.compile ms |", "| 2.00 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
	// A streamed run faster than the resident one is the goal's figure,
	// and has its row beside PyTorch's resident chain.
	fast := pin
	fast.Mode, fast.Bands, fast.Last, fast.Time.Median = Streamed, 4, 0.25, pin.Time.Median/4
	rep.Results = append(rep.Results, fast)
	gs = Goals(rep, tr)
	if len(gs) != 2 || gs[1].Mode != Streamed || !gs[1].Met || gs[1].Ratio < 0.49 || gs[1].Ratio > 0.51 {
		t.Errorf("pinned goal with a streamed run at a quarter of resident's time %+v: want streamed at 0.5× torch.compile, met", gs[1])
	}
	b.Reset()
	if err := WriteComparison(&b, rep, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| streamed (4 bands, last 0.25) | pinned / pinned |", "- pinned memory, streamed (4 bands, last 0.25): ", "| 0.50 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
	rep.Results = rep.Results[:len(rep.Results)-1]

	// Without a torch.compile figure the pinned goal falls back to eager
	// pinned, and says so.
	tr.Results = slices.DeleteFunc(tr.Results, func(x TorchResult) bool { return x.Mode == Compiled })
	if gs := Goals(rep, tr); len(gs) != 2 || gs[1].Peer != "eager pinned" || gs[1].Ratio < 0.24 || gs[1].Ratio > 0.26 {
		t.Errorf("goals without torch.compile %+v: want pinned at 0.25× eager pinned", gs)
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// The mixed chain gets the same table, CSV, JSON and plot, its header
// naming the stages in order.
func TestOutputsMixed(t *testing.T) {
	rep := simMixedReport(t)
	checkTable(t, rep, false,
		"**sim:test** — sim_brighter → sim_cast_f32 → sim_scale → sim_sum (4 stages) on a 32×16 uint8 image (0.0 MiB)",
		"explicit mode syncs after stage 1.", "| resident | go | 4 |", "| roundtrip | pinned | 4 | ", "| explicit (sync 1) | go | 4 |", "D2D GB/s")
	checkTable(t, rep, true, "| resident | go | 1 |", "| resident | go | 3 |")
	checkCSV(t, rep, 4)
	var png bytes.Buffer
	if err := WritePlot(&png, rep); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Errorf("plot: %v", err)
	}
}

func TestComparisonMixed(t *testing.T) {
	rep := simMixedReport(t)
	js := `{"device": "fake GPU", "torch": "2.11", "chain": "mixed", "width": 32, "height": 16, "stages": 4, "reps": 5,
	  "results": [
	    {"mode": "resident", "memory": "pageable", "stages": 4, "median_ms": 1},
	    {"mode": "roundtrip", "memory": "pageable", "stages": 4, "median_ms": 3}]}`
	tr, err := ReadTorch(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteComparison(&b, rep, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"same chain: saturating +k → float32 → × scale → sum, 32×16 uint8, upload included, only the sum comes back",
		"| resident | go / pageable |", "| roundtrip | go / pageable |", "goal ≤ 0.8×"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "Warning") {
		t.Errorf("like-for-like comparison warns:\n%s", b.String())
	}
	// PyTorch's brighter chain against our mixed one (and the reverse) is
	// not like for like: say so.
	for _, c := range []struct {
		rep   *Report
		chain string
		want  string
	}{
		{rep, "", "PyTorch ran the brighter chain, we ran sim_brighter → sim_cast_f32 → sim_scale → sim_sum (4 stages)"},
		{simReport(t), "mixed", "PyTorch ran the mixed chain, we ran 3 × sim_brighter"},
	} {
		tr.Chain = c.chain
		b.Reset()
		if err := WriteComparison(&b, c.rep, tr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("comparison lacks %q:\n%s", c.want, b.String())
		}
	}
}

// checkTable writes rep's table (every length when all) and fails for each
// of wants it lacks; it returns the table.
func checkTable(t *testing.T, rep *Report, all bool, wants ...string) string {
	t.Helper()
	var table bytes.Buffer
	if err := WriteTable(&table, rep, all); err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table (all %v) lacks %q:\n%s", all, want, table.String())
		}
	}
	return table.String()
}

// checkCSV writes rep's CSV and checks it has a header and a row per mode,
// memory and length (1…stages).
func checkCSV(t *testing.T, rep *Report, stages int) {
	t.Helper()
	var c bytes.Buffer
	if err := WriteCSV(&c, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows), 1+stages*len(Modes)*len(Memories); got != want {
		t.Errorf("CSV has %d rows, want %d", got, want)
	}
}

// TestPlotSeries: each line of the plot has, per point, the median and
// bars down to p10 and up to p90, grouped by mode and memory in the
// report's order.
func TestPlotSeries(t *testing.T) {
	ms := func(x float64) time.Duration { return time.Duration(x * 1e6) }
	r := &Report{Results: []Result{
		{Mode: Resident, Memory: GoMemory, Stages: 1, Time: Timing{Median: ms(2), P10: ms(1.5), P90: ms(3)}},
		{Mode: Resident, Memory: Pinned, Stages: 1, Time: Timing{Median: ms(1), P10: ms(1), P90: ms(1.25)}},
		{Mode: Resident, Memory: GoMemory, Stages: 2, Time: Timing{Median: ms(4), P10: ms(3), P90: ms(6)}},
	}}
	keys, pts := plotSeries(r)
	if len(keys) != 2 || keys[0] != (seriesKey{Resident, GoMemory}) || keys[1] != (seriesKey{Resident, Pinned}) {
		t.Fatalf("keys %v", keys)
	}
	g := pts[keys[0]]
	want := []struct{ x, y, lo, hi float64 }{{1, 2, 0.5, 1}, {2, 4, 1, 2}}
	if g.Len() != len(want) {
		t.Fatalf("%d points, want %d", g.Len(), len(want))
	}
	for i, w := range want {
		x, y := g.XY(i)
		lo, hi := g.YError(i)
		if x != w.x || math.Abs(y-w.y) > 1e-12 || math.Abs(lo-w.lo) > 1e-12 || math.Abs(hi-w.hi) > 1e-12 {
			t.Errorf("point %d: (%v, %v) −%v +%v, want %+v", i, x, y, lo, hi, w)
		}
	}
	if lo, hi := pts[keys[1]].YError(0); lo != 0 || math.Abs(hi-0.25) > 1e-12 {
		t.Errorf("pinned bar −%v +%v, want −0 +0.25", lo, hi)
	}
}
