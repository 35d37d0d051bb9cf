package ops_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops"
)

// On places the first operands of a chain on a device; the ops that
// follow run there because their operands' freshest copy is there, and
// the result stays there until the host reads it.
func ExampleOn() {
	d, err := opencl.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	a := array.New[float32](4)
	h, _ := a.Host()
	copy(h.Data(), []float32{1, 2, 3, 4})
	if err := ops.On(d, a); err != nil { // one explicit upload
		fmt.Println(err)
		return
	}
	b := array.New[float32](4)
	_ = ops.MulScalar(b, a, 10) // a is current on d: runs on d
	_ = ops.Add(b, b, a)        // b is device-dirty: runs on d
	fmt.Println(b.DeviceDirty())
	v, _ := b.HostReadOnly() // the one copy home
	fmt.Println(v.Data())
	// Output:
	// true
	// [11 22 33 44]
}
