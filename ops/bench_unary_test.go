package ops_test

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// BenchmarkUnary is ops.Unary op by op, float32, on the host and resident
// on each device (PoCL in CI): a small Array, where the call path is the
// cost, and a large one, where the kernel is. Device calls are timed to
// their completion (Sync). The op-table step measured itself with it:
//
//	POCL_CACHE_DIR=$PWD/.cache/pocl go test -run '^$' -bench Unary -count 3 ./ops
//
// MB/s counts bytes read plus written.
func BenchmarkUnary(b *testing.B) {
	for _, pl := range benchPlaces() {
		for _, n := range []int{1 << 10, 1 << 20} {
			x, d := array.New[float32](n), array.New[float32](n)
			xh, _ := x.Host()
			for i := range xh.Data() {
				xh.Data()[i] = float32(i%1000)/250 - 2
			}
			if pl.d != nil {
				if err := ops.On(pl.d, x, d); err != nil {
					b.Fatal(err)
				}
			}
			for _, op := range []ops.UnaryOp{ops.OpExp, ops.OpSqrt, ops.OpRelu, ops.OpTanh} {
				if err := ops.Unary(d, x, op); err != nil { // builds the program, outside the timing
					b.Fatal(err)
				}
				b.Run(fmt.Sprintf("%s/%v/n=%d", pl.name, op, n), func(b *testing.B) {
					b.SetBytes(int64(8 * n))
					b.ReportAllocs()
					for b.Loop() {
						if err := ops.Unary(d, x, op); err != nil {
							b.Fatal(err)
						}
						if pl.d != nil {
							if err := pl.d.Sync(); err != nil {
								b.Fatal(err)
							}
						}
					}
				})
			}
			x.Close()
			d.Close()
		}
	}
}
