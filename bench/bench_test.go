package bench

import (
	"fmt"
	"testing"
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
					c := *cfg
					c.Stages, c.Width, c.Height = Repeat(s, n), side, side
					t, err := (&runner{cfg: c}).newTrial(mode, GoMemory, n)
					if err != nil {
						b.Fatal(err)
					}
					defer t.close()
					if err := t.iter(); err != nil { // builds the kernel
						b.Fatal(err)
					}
					b.SetBytes(int64(2 * side * side * n))
					b.ReportAllocs()
					for b.Loop() {
						if err := t.iter(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkMixedChain runs the mixed chain (brighter → cast_f32 → scale →
// sum) on the default OpenCL device over image sizes and modes. SetBytes
// counts what the stages read and write, as EffectiveGBps does.
func BenchmarkMixedChain(b *testing.B) {
	_, cfg := brighterOrSkip(b)
	stages, _, err := Mixed(1, DefaultScale)
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []int{256, 1024, 4096} {
		for _, mode := range []Mode{Resident, RoundTrip} {
			b.Run(fmt.Sprintf("size=%d/%s", side, mode), func(b *testing.B) {
				c := *cfg
				c.Stages, c.Width, c.Height = stages, side, side
				r := newRunner(c)
				t, err := r.newTrial(mode, GoMemory, len(stages))
				if err != nil {
					b.Fatal(err)
				}
				defer t.close()
				if err := t.iter(); err != nil { // builds the kernels
					b.Fatal(err)
				}
				b.SetBytes(int64(r.stageBytes(len(stages))))
				b.ReportAllocs()
				for b.Loop() {
					if err := t.iter(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
