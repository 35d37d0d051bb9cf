package capture_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/capture"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// Record a chain once, then replay it: each replay adds 2 to x again,
// without planning the ops anew.
func Example() {
	dev := sim.NewCompute("example", 0)
	defer dev.Close()
	x := array.New[float32](3)
	defer x.Close()
	h, _ := x.Host()
	for i := range 3 {
		h.Set(float32(i+1), i)
	}
	ops.On(dev, x)
	g, err := capture.Record(dev, func() error {
		if err := ops.AddScalar(x, x, 1); err != nil {
			return err
		}
		return ops.AddScalar(x, x, 1)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	for range 3 {
		g.Replay()
	}
	r, _ := x.HostReadOnly()
	fmt.Println(r.At(0), r.At(1), r.At(2), "launches a replay:", g.Nodes())
	// Output: 9 10 11 launches a replay: 2
}
