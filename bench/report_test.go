package bench

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/resident-go/resident/device/sim"
)

func simReport(t *testing.T) *Report {
	t.Helper()
	d := sim.New("test", 0)
	t.Cleanup(func() { d.Close() })
	rep, err := Run(Config{Device: d, Stages: Repeat(SimBrighter(d, 1), 3), Width: 32, Height: 16, Ladder: true, Reps: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep.Command = "test"
	return rep
}

func TestOutputs(t *testing.T) {
	rep := simReport(t)
	dir := t.TempDir()

	var table bytes.Buffer
	if err := WriteTable(&table, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sim:test", "| resident | go | 3 |", "| roundtrip | pinned | 3 |", "| explicit (sync 0) | go | 3 |", "D2D GB/s", "Command: `test`"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if strings.Contains(table.String(), "| resident | go | 1 |") {
		t.Error("table without all shows a shorter chain")
	}

	var c bytes.Buffer
	if err := WriteCSV(&c, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows), 1+3*len(Modes)*len(Memories); got != want {
		t.Errorf("CSV has %d rows, want %d", got, want)
	}

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
	    {"mode": "resident", "memory": "pinned", "stages": 3, "median_ms": 1},
	    {"mode": "roundtrip", "memory": "pageable", "stages": 3, "median_ms": 10}]}`
	tr, err := ReadTorch(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	gs := Goals(rep, tr)
	if len(gs) != 2 || !gs[0].Met || gs[0].Ratio < 0.49 || gs[0].Ratio > 0.51 {
		t.Fatalf("goals %+v: want Go memory at 0.5×, met", gs)
	}
	if want := float64(pin.Time.Median) / float64(gs[1].Torch); gs[1].Ratio != want {
		t.Errorf("pinned goal ratio %g, want %g", gs[1].Ratio, want)
	}
	var b bytes.Buffer
	if err := WriteComparison(&b, rep, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fake GPU", "| resident | go / pageable |", "| roundtrip | go / pageable |", "goal ≤ 1.0×): met", "goal ≤ 0.5×"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
