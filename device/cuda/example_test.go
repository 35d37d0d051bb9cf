package cuda_test

import (
	"fmt"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/ops"
)

// A matrix product on the GPU where there is one: the operands go to the
// CUDA device with On, MatMul runs cuBLAS there (float32, no TF32), and
// the host view brings the result home. Without CUDA, Default's error
// wraps ErrNoCUDA and the same calls run on the host.
func Example() {
	var dev device.Device
	if d, err := cuda.Default(); err == nil {
		dev = d
	}
	a := array.FromSlice([]float32{1, 2, 3, 4}, 2, 2) // (K, M): rows [1 2], [3 4]
	b := array.FromSlice([]float32{5, 6, 7, 8}, 2, 2) // (N, K): rows [5 6], [7 8]
	ad, bd := array.New[float32](2, 2), array.New[float32](2, 2)
	defer ad.Close()
	defer bd.Close()
	ops.Copy(ad, a) // device-aware copies: FromSlice Arrays stay on the host
	ops.Copy(bd, b)
	if dev != nil {
		if err := ops.On(dev, ad, bd); err != nil {
			fmt.Println(err)
			return
		}
	}
	c := array.New[float32](2, 2)
	defer c.Close()
	if err := ops.MatMul(c, ad, bd); err != nil {
		fmt.Println(err)
		return
	}
	v, _ := c.HostReadOnly()
	fmt.Println(v.Data())
	// Output: [19 22 43 50]
}
