//go:build cgo

package opencl_test

import (
	"fmt"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
)

// A round trip through the default device: the host box is copied to the
// device and read back.
func ExampleDevice_CopyIn() {
	d, err := opencl.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	data := []byte{1, 2, 3, 4, 5, 6}
	r := device.Region{ElemSize: 2, Shape: []device.Span{{Extent: 3, Stride: 1}}}
	a, err := d.Malloc(len(data))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Free(a)
	if err := d.CopyIn(a, 0, data, r); err != nil {
		fmt.Println(err)
		return
	}
	back := make([]byte, len(data))
	if err := d.CopyOut(back, a, 0, r); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back)
	// Output: [1 2 3 4 5 6]
}
