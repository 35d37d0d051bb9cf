package array_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
)

func ExampleNew() {
	a := array.New[float32](4, 3) // 4 wide, 3 high: dimension 0 innermost
	defer a.Close()
	fmt.Println(a.Type(), a.Dims())
	// Output: float32 [{0 4 1} {0 3 4}]
}

func ExampleArray_Crop() {
	a := array.FromSlice([]uint8{
		0, 1, 2, 3,
		4, 5, 6, 7,
		8, 9, 10, 11,
	}, 4, 3)
	c := a.Crop(0, 1, 2).Crop(1, 1, 2) // shares memory: no copy
	v, _ := c.HostReadOnly()
	fmt.Println(c.Dims(), v.At(1, 1), v.At(2, 2))
	// Output: [{1 2 1} {1 2 4}] 5 10
}

func ExampleArray_Host() {
	dev := sim.New("gpu", 0)
	a := array.New[int32](3)
	a.CopyToDevice(dev) // resident on the (simulated) device
	a.SetDeviceDirty(true)

	v, _ := a.HostReadOnly() // the one automatic copy to host
	_, _ = a.HostReadOnly()  // already current: copies nothing
	fmt.Println(v.At(2), dev.Stats().D2HCalls)
	// Output: 0 1
}
