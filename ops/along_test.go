package ops

import (
	"flag"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
)

var alongN = flag.Int("along.n", 10, "cases per side of TestAlongDiff")

// TestAlongDiff runs only TestDiff's Along family (its case numbers
// i·nFam + famAlong, so a failure reproduces in TestDiff with
// -diff.case), more of them than TestDiff's share:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run AlongDiff ./ops -along.n 2000
func TestAlongDiff(t *testing.T) {
	seed := seedOf(t)
	var cl device.Device
	if d, err := opencl.Default(); err == nil {
		cl = d
	}
	sd := sim.NewCompute("along", 0)
	defer sd.Close()
	eachSide(t, cl, sd, func(t *testing.T, dev device.Device) {
		var where [2]int
		for k := range *alongN {
			runDiffCase(t, dev, seed, k*nFam+famAlong, &where)
		}
		t.Logf("%d of %d cases on the device (by the rule)", where[1], where[0]+where[1])
		// A share needs a sample: 10 drawn cases put 1 on the device on
		// some days (TestDiff checks the generator's share over 200).
		if dev != nil && *alongN >= 100 && where[1] < (where[0]+where[1])/4 {
			t.Errorf("only %d of %d cases ran on the device", where[1], where[0]+where[1])
		}
	})
}
