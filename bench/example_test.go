package bench_test

import (
	"fmt"
	_ "github.com/resident-go/resident/halide/examples/brighter" // registers "brighter"

	"github.com/resident-go/resident/bench"
	"github.com/resident-go/resident/device/sim"
)

// Transfers per iteration of a 4-stage chain in each mode, from the
// device's counters: resident moves the image once each way, the round
// trip once each way per stage, explicit adds one download per sync point.
func Example() {
	dev := sim.New("example", 0)
	defer dev.Close()
	rep, err := bench.Run(bench.Config{
		Device: dev, Stages: bench.Repeat(bench.SimBrighter(dev, 1), 4),
		Width: 64, Height: 64, Memories: []bench.Memory{bench.GoMemory}, Sync: []int{0, 1}, Reps: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range rep.Results {
		fmt.Printf("%-9s %d stages: %g up, %g down, %.0f KiB moved\n", x.Mode, x.Stages, x.H2DCalls, x.D2HCalls, (x.H2DBytes+x.D2HBytes)/1024)
	}
	// Output:
	// resident  4 stages: 1 up, 1 down, 8 KiB moved
	// roundtrip 4 stages: 4 up, 4 down, 32 KiB moved
	// explicit  4 stages: 1 up, 3 down, 16 KiB moved
}
