package halide_test

import (
	"flag"
	"github.com/resident-go/resident/internal/plumb"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// rssKB is the process's resident set size (VmRSS), in KiB.
func rssKB(t testing.TB) int { return statusKB(t, "VmRSS:") }

// statusKB is a field of /proc/self/status in KiB (VmRSS:, RssAnon:).
func statusKB(t testing.TB, field string) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// An unsynced resident loop is paced: the commands in flight stay bounded,
// and so does memory. -inflight.calls=100000 repeats the issue's
// measurement (go test -run BoundedInFlight -v ./halide -args
// -inflight.calls=100000).
var inflightCalls = flag.Int("inflight.calls", 3000, "TestBoundedInFlight's calls")

func TestBoundedInFlight(t *testing.T) {
	dev := clDevice(t)
	n := *inflightCalls
	a, b := array.New[uint8](16, 16), array.New[uint8](16, 16)
	defer a.Close()
	defer b.Close()
	if err := brighter.Brighter(a, 0, b); err != nil {
		t.Fatal(err)
	}
	before := rssKB(t)
	peak := 0
	for i := range n {
		if err := brighter.Brighter(b, 0, a); err != nil {
			t.Fatal(err)
		}
		a, b = b, a
		if m := plumb.OpenCL.InFlight(dev); m > 8 {
			t.Fatalf("call %d: %d pacing markers in flight, want at most 8", i, m)
		}
		if i%1000 == 0 {
			peak = max(peak, rssKB(t))
		}
	}
	if err := dev.Sync(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d unsynced calls: RSS %d KiB before, peak %d KiB, %d KiB after", n, before, peak, rssKB(t))
}
