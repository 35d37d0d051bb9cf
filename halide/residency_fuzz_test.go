package halide_test

import (
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// FuzzPipelineResidency runs the brighter pipelines, OpenCL and host, on
// random crops of two memories — aligned and unaligned, made before and
// after uploads, overlapping siblings — with host writes, host views as
// outputs, failed calls and DeviceFree in between, and checks every read
// against a host-only model of the latest write.
func FuzzPipelineResidency(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 0, 0, 1, 4, 0, 2, 1, 1, 2, 3, 4, 1})
	f.Add([]byte{1, 0, 5, 2, 0, 3, 17, 1, 5, 3, 1, 4, 0, 0, 2, 1, 2, 9, 0, 3, 4, 0})
	f.Add([]byte{2, 1, 40, 5, 1, 2, 6, 0, 7, 1, 3, 9, 2, 2, 5, 0, 2, 0, 6, 1, 4, 1})
	f.Add([]byte{0, 0, 7, 1, 2, 0, 33, 2, 1, 4, 3, 0, 2, 1, 0, 4, 1, 5, 6, 1, 4, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		clDevice(t)
		const w, h = 96, 6
		roots := [2]*array.Array[uint8]{array.New[uint8](w, h), array.New[uint8](w, h)}
		var model [2][w * h]uint8
		defer roots[0].Close()
		defer roots[1].Close()
		next := func() int {
			if len(ops) == 0 {
				return 0
			}
			b := int(ops[0])
			ops = ops[1:]
			return b
		}
		stamp := uint8(0)
		crop := func(a *array.Array[uint8]) (*array.Array[uint8], int, int, int, int) {
			x0 := next() % w
			xn := 1 + next()%(w-x0)
			y0 := next() % h
			yn := 1 + next()%(h-y0)
			return a.Crop(0, x0, xn).Crop(1, y0, yn), x0, xn, y0, yn
		}
		check := func(what string, i int, v *array.Array[uint8]) {
			hv, err := v.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			d0, d1 := v.Dim(0), v.Dim(1)
			for y := d1.Min; y <= d1.Max(); y++ {
				for x := d0.Min; x <= d0.Max(); x++ {
					if g, want := hv.At(x, y), model[i][y*w+x]; g != want {
						t.Fatalf("%s of root %d at (%d, %d): got %d, want %d", what, i, x, y, g, want)
					}
				}
			}
		}
		for len(ops) > 0 {
			i := next() % 2
			switch next() % 6 {
			case 0: // host write to a crop
				v, x0, xn, y0, yn := crop(roots[i])
				stamp++
				hv, err := v.Host()
				if err != nil {
					t.Fatal(err)
				}
				hv.Fill(stamp)
				for y := y0; y < y0+yn; y++ {
					for x := x0; x < x0+xn; x++ {
						model[i][y*w+x] = stamp
					}
				}
			case 1, 2: // a pipeline call from root i's crop to root 1-i's same crop
				in, x0, xn, y0, yn := crop(roots[i])
				out := roots[1-i].Crop(0, x0, xn).Crop(1, y0, yn)
				if next()%3 == 0 {
					in = roots[i] // an input larger than the output
				}
				k := uint8(next() % 7)
				p := brighter.BrighterPipeline
				if next()%3 == 0 {
					p = brighter.BrighterHostPipeline
				}
				var outArg array.Buffer = out
				if next()%4 == 0 {
					hv, err := out.Host() // a host view as output: host-only
					if err != nil {
						t.Fatal(err)
					}
					outArg = hv
				}
				if err := p.Call(in, k, outArg); err != nil {
					t.Fatalf("%s(%v → %v): %v", p.Name(), in.Dims(), out.Dims(), err)
				}
				for y := y0; y < y0+yn; y++ {
					for x := x0; x < x0+xn; x++ {
						model[1-i][y*w+x] = satAdd(model[i][y*w+x], k)
					}
				}
			case 3: // a failed call changes nothing
				small := array.FromSlice(make([]uint8, 4), 2, 2)
				out, _, _, _, _ := crop(roots[i])
				if out.Dim(0).Max() < 2 && out.Dim(1).Max() < 2 {
					continue
				}
				if err := brighter.Brighter(small, 1, out); err == nil {
					t.Fatalf("a 2×2 input for output %v succeeded", out.Dims())
				}
			case 4:
				v, _, _, _, _ := crop(roots[i])
				check("host read", i, v)
			case 5:
				if err := roots[i].DeviceFree(); err != nil {
					t.Fatal(err)
				}
			}
		}
		check("final read", 0, roots[0])
		check("final read", 1, roots[1])
	})
}
