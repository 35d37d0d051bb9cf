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
		if err := ops.BinaryScalar(x, x, 1, ops.OpAdd); err != nil {
			return err
		}
		return ops.BinaryScalar(x, x, 1, ops.OpAdd)
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

// A new input each replay: the capture records the upload of x (host-newer
// when recorded, ops.On moves it), so each replay uploads what x's memory
// holds then.
func Example_input() {
	dev := sim.NewCompute("input", 0)
	defer dev.Close()
	x, _ := array.NewIn[float32](dev, 3) // pinned memory: a CUDA graph moves it directly, with no staging
	y := array.New[float32](3)
	defer x.Close()
	defer y.Close()
	write := func(v float32) {
		h, _ := x.Host()
		for i := range 3 {
			h.Set(v+float32(i), i)
		}
	}
	ops.On(dev, x, y)
	write(0)
	g, err := capture.Record(dev, func() error {
		if err := ops.On(dev, x); err != nil { // the upload, recorded
			return err
		}
		return ops.BinaryScalar(y, x, 10, ops.OpMul)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	for _, v := range []float32{1, 2} {
		dev.Sync() // the last replay is done with x's memory
		write(v)
		g.Replay()
		r, _ := y.HostReadOnly()
		fmt.Println(r.At(0), r.At(1), r.At(2))
	}
	// Output:
	// 10 20 30
	// 20 30 40
}
