package resident_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
)

// A device-aware Array stays on its device; its host view is the one place
// that copies back, and only when the device copy is newer.
func Example() {
	gpu := sim.New("gpu", 0) // a simulated device that counts transfers

	img := array.New[uint8](4, 2)
	h, _ := img.Host()
	h.Fill(10)

	img.CopyToDevice(gpu)    // one upload
	img.SetDeviceDirty(true) // as a pipeline writing it on the device would
	v, _ := img.HostReadOnly()
	fmt.Println(v.At(3, 1), gpu.Stats().H2DCalls, gpu.Stats().D2HCalls)
	// Output: 10 1 1
}
