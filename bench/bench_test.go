package bench

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
)

// BenchmarkChain runs the brighter chain on the default OpenCL device, with
// b.Run ladders over image size, mode and chain length. SetBytes counts the
// stages' traffic (each reads and writes the image), as EffectiveGBps does.
func BenchmarkChain(b *testing.B) {
	s, cfg := brighterOrSkip(b)
	for _, side := range []int{256, 1024, 4096} {
		for _, mode := range []Mode{Resident, RoundTrip} {
			for _, n := range []int{1, 4, 8} {
				b.Run(fmt.Sprintf("size=%d/%s/stages=%d", side, mode, n), func(b *testing.B) {
					imgs := [3]*array.Array[uint8]{array.New[uint8](side, side), array.New[uint8](side, side), array.New[uint8](side, side)}
					defer func() {
						for _, a := range imgs {
							a.Close()
						}
					}()
					r, stages := &runner{cfg: *cfg}, Repeat(s, n)
					iter := func() error { return r.resident(stages, imgs, nil) }
					if mode == RoundTrip {
						iter = func() error { return r.roundTrip(stages, imgs) }
					}
					if err := iter(); err != nil { // builds the kernel
						b.Fatal(err)
					}
					b.SetBytes(int64(2 * side * side * n))
					b.ReportAllocs()
					for b.Loop() {
						if err := iter(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
