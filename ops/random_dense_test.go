package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/draw"
)

// TestRandDense: the dense float32 path (whole Philox blocks straight into
// dst) gives the stream's bits — element by element through philox.block
// and philox.normal — at any length and offset, wrapping ones included.
// Cases are drawn from a seed that changes per run and is printed.
func TestRandDense(t *testing.T) {
	s := rand.Uint64()
	r := rand.New(rand.NewPCG(s, 7))
	for k := range 24 {
		n, seed, off := 1+r.IntN(70), r.Uint64(), drawOffset(r)
		if k == 0 { // a 16-element group that wraps the stream
			n, off = 64, math.MaxUint64-5
		}
		for _, normal := range []bool{false, true} {
			a := array.New[float32](n)
			fill := RandUniform[float32]
			if normal {
				fill = RandNormal[float32]
			}
			if err := fill(a, seed, off); err != nil {
				t.Fatal(err)
			}
			h, _ := a.Host()
			p := philox{key: [2]uint32{uint32(seed), uint32(seed >> 32)}}
			for i, got := range h.Data() {
				e := off + uint64(i)
				want := float32(p.block(e / 4)[e%4]>>8) * 0x1p-24
				if normal {
					want = float32(p.normal(e, false))
				}
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("draw seed %d: normal=%v n=%d seed %d offset %d: element %d is %v, the stream's %v", s, normal, n, seed, off, i, got, want)
				}
			}
			a.Close()
		}
	}
}

// refBlockOut is block b of key in philoxBlocks' format mode, from
// Philox4x32 one block at a time.
func refBlockOut(b uint64, key [2]uint32, mode int) [16]byte {
	var o [16]byte
	w := Philox4x32([4]uint32{uint32(b), uint32(b >> 32), 0, 0}, key)
	putBlock(unsafe.Pointer(&o), &w, mode)
	return o
}

// withAsm runs f with the assembly kernels on (where the CPU has them)
// and off.
func withAsm(t *testing.T, f func(t *testing.T)) {
	save := useAsm
	defer func() { useAsm = save }()
	for _, on := range []bool{true, false} {
		if on && !hasAVX2 {
			continue
		}
		useAsm = on
		t.Run(fmt.Sprintf("asm=%v", on), f)
	}
}

// TestPhiloxBlocks: philoxBlocks (the AVX2 kernel, eight blocks a step,
// and the portable four-block loop) writes Philox4x32's blocks in each
// format, at block counters whose low word carries into the high one and
// at the end of the counter range, for counts that are not multiples of
// the lane counts, with plain and non-temporal stores at any alignment.
func TestPhiloxBlocks(t *testing.T) {
	withAsm(t, func(t *testing.T) {
		s := rand.Uint64()
		r := rand.New(rand.NewPCG(s, 5))
		for c := range 60 {
			nb := r.IntN(41)
			var b uint64
			switch c % 4 {
			case 0:
				b = r.Uint64() >> r.IntN(64)
			case 1: // the counter's low word carries mid-call
				b = 1<<32 - uint64(r.IntN(nb+1))
			case 2: // the high word carries too
				b = 1<<63 + 1<<32 - uint64(r.IntN(nb+1))
			default: // the last blocks of the counter range
				b = -uint64(nb)
			}
			seed := r.Uint64()
			key := [2]uint32{uint32(seed), uint32(seed >> 32)}
			var keys philoxKeys
			keys.set(key)
			for mode := range 3 {
				for _, nt := range []bool{false, true} {
					// dst at 0, 4 or 16 bytes past a 32-byte boundary:
					// non-temporal stores need 32, and take it by a block
					buf := make([]byte, 16*nb+64+16)
					at := -int(uintptr(unsafe.Pointer(&buf[0]))%32)&31 + []int{0, 4, 16}[r.IntN(3)]
					guard := [16]byte{0xa5, 1, 2, 3}
					copy(buf[at+16*nb:], guard[:])
					philoxBlocks(unsafe.Pointer(&buf[at]), b, nb, key, &keys, mode, nt)
					for k := range nb {
						if want := refBlockOut(b+uint64(k), key, mode); [16]byte(buf[at+16*k:]) != want {
							t.Fatalf("draw seed %d: mode %d nt %v, %d blocks from %#x at %d, key %08x: block %d is % x, want % x", s, mode, nt, nb, b, at%32, key, k, buf[at+16*k:at+16*k+16], want)
						}
					}
					if [16]byte(buf[at+16*nb:]) != guard {
						t.Fatalf("draw seed %d: mode %d, %d blocks from %#x: wrote past the end", s, mode, nb, b)
					}
				}
			}
		}
	})
}

// TestRandFast: dense fills of every type randDense takes, uniform and
// normal, are the stream's elements element by element (philox.block and
// philox.normal over Philox4x32) bit for bit, with the assembly on and
// off: drawn seeds, offsets anywhere (near the block counter's 2³²
// carry, near the stream's wrap at 2⁶⁴), lengths 0, 1 and not multiples
// of the lane counts, and dsts that are views (a crop at an odd start,
// which is dense) or strided (a step, which takes randRow's loop).
func TestRandFast(t *testing.T) {
	withAsm(t, func(t *testing.T) {
		s := rand.Uint64()
		r := rand.New(rand.NewPCG(s, 9))
		checkFast[float32](t, r, s, true)
		checkFast[float64](t, r, s, true)
		checkFast[int32](t, r, s, false)
		checkFast[uint32](t, r, s, false)
		checkFast[int64](t, r, s, false)
		checkFast[uint64](t, r, s, false)
	})
}

func checkFast[T array.Elem](t *testing.T, r *rand.Rand, s uint64, floats bool) {
	lens := []int{0, 1, 2, 3, 5, 7, 8, 9, 15, 31, 33, 63, 65, 100, 257, 1001}
	epb := 4 / randWords[T]()
	for c := range 40 {
		n := lens[c%len(lens)]
		if c >= len(lens) {
			n = r.IntN(3000)
		}
		seed := r.Uint64()
		var off uint64
		switch c % 5 {
		case 0:
			off = drawOffset(r)
		case 1: // block counter 2³² − few: its low word carries
			off = (1<<32-uint64(r.IntN(40)))*epb + uint64(r.IntN(4))
		case 2:
			off = r.Uint64()
		case 3: // the stream wraps mid-fill
			off = -uint64(r.IntN(n + 1))
		default:
			off = uint64(r.IntN(100))
		}
		for _, normal := range []bool{false, true} {
			if normal && !floats {
				continue
			}
			for _, view := range []string{"dense", "crop", "step"} {
				base := array.New[T](n + 3)
				dst := base.Crop(0, 0, n)
				switch view {
				case "crop":
					dst = base.Crop(0, 1+r.IntN(3), n)
				case "step": // a column of a 2×(n+1): stride 2
					base.Close()
					base = array.New[T](2, n+1)
					dst = base.Crop(0, r.IntN(2), 1).Crop(1, 1, n)
				}
				fill := RandUniform[T]
				if normal {
					fill = RandNormal[T]
				}
				if err := fill(dst, seed, off); err != nil {
					t.Fatal(err)
				}
				p := philox{key: [2]uint32{uint32(seed), uint32(seed >> 32)}}
				for i, got := range rowVals(t, dst) {
					want := randOne[T](&p, off+uint64(i), normal)
					if bitsOf(got) != bitsOf(want) {
						t.Fatalf("draw seed %d: %v normal=%v %s n=%d seed %#x offset %#x: element %d is %v (%#x), the stream's %v (%#x)",
							s, array.TypeOf[T](), normal, view, n, seed, off, i, got, bitsOf(got), want, bitsOf(want))
					}
				}
				base.Close()
			}
		}
	}
}

// FuzzRandDense: randDense against the element-by-element stream
// (philox.block, philox.normal), any seed, offset and length, each type
// it takes.
//
//	go test -run '^$' -fuzz FuzzRandDense ./ops
func FuzzRandDense(f *testing.F) {
	f.Add(uint64(1), uint64(0), uint16(100), uint8(0), false)
	f.Add(uint64(7), uint64(1<<34-5), uint16(77), uint8(1), true)
	f.Add(uint64(3), uint64(math.MaxUint64-9), uint16(40), uint8(2), false)
	f.Fuzz(func(t *testing.T, seed, off uint64, n uint16, typ uint8, normal bool) {
		switch typ % 4 {
		case 0:
			fuzzDense[float32](t, seed, off, int(n), normal)
		case 1:
			fuzzDense[float64](t, seed, off, int(n), normal)
		case 2:
			fuzzDense[uint32](t, seed, off, int(n), false)
		default:
			fuzzDense[int64](t, seed, off, int(n), false)
		}
	})
}

func fuzzDense[T array.Elem](t *testing.T, seed, off uint64, n int, normal bool) {
	key := [2]uint32{uint32(seed), uint32(seed >> 32)}
	d := make([]T, n)
	if !randDense(d, key, off, normal, false) {
		t.Fatalf("randDense does not take %v", array.TypeOf[T]())
	}
	p := philox{key: key}
	for i, got := range d {
		if want := randOne[T](&p, off+uint64(i), normal); bitsOf(got) != bitsOf(want) {
			t.Fatalf("%v normal=%v n=%d seed %#x offset %#x: element %d is %v, the stream's %v", array.TypeOf[T](), normal, n, seed, off, i, got, want)
		}
	}
}

// TestRandDenseDevice: dense device fills (rand_dense: whole blocks
// stored as vectors where dst is aligned for them, lanes one by one at
// the ends) give the host's bits, uniform and normal (each pair's two
// normals from one log and sine-cosine), at drawn lengths, starts within
// a root (so both the vector and the lane paths run) and stream offsets,
// wrapping ones included; each fill is one launch.
func TestRandDenseDevice(t *testing.T) {
	for _, d := range randDevices(t) {
		if k, ok := d.(device.Kernels); !ok || !k.Caps().FP64 {
			continue // normals need float64 kernels
		}
		t.Run(d.Name(), func(t *testing.T) {
			denseDeviceCases[float32](t, d)
			denseDeviceCases[float64](t, d)
			denseDeviceCases[array.BFloat16](t, d)
			denseDeviceCases[int32](t, d)
		})
	}
}

func denseDeviceCases[T array.Elem](t *testing.T, d device.Device) {
	r := rand.New(rand.NewPCG(draw.Seed(t), uint64(typeIndex[T]())))
	for c := range 16 {
		n, skip := 1+r.IntN(300), r.IntN(4)
		seed, off := r.Uint64(), drawOffset(r)
		for _, normal := range []bool{false, true} {
			if normal && kindOf[T]() != kFloat {
				continue
			}
			fill := RandUniform[T]
			if normal {
				fill = RandNormal[T]
			}
			root := array.New[T](n + skip)
			if err := On(d, root); err != nil {
				t.Fatal(err)
			}
			a := root.Crop(0, skip, n)
			before := d.Stats()
			if err := fill(a, seed, off); err != nil {
				t.Fatal(err)
			}
			if s := d.Stats().Sub(before); s.Launches != 1 || s.H2DCalls+s.D2HCalls != 0 {
				t.Fatalf("case %d: %d launches, %d H2D, %d D2H; want one launch", c, s.Launches, s.H2DCalls, s.D2HCalls)
			}
			if i, got, want := hostFillDiffers(t, a, fill, seed, off); i >= 0 {
				t.Fatalf("case %d %v normal=%v n=%d start %d seed %#x offset %d: element %d on %s is %v, on the host %v",
					c, array.TypeOf[T](), normal, n, skip, seed, off, i, d.Name(), got, want)
			}
			root.Close()
		}
	}
}

// TestNormals32: normals32 (the AVX2 kernel, eight pairs a step, and the
// Go loop) gives boxMuller32's bits for the words at the edges of its
// reductions — u+1 at 2³², at and beside powers of two and √2's
// multiples; turns at and beside the quarter turns — and drawn ones, at
// pair counts that are not multiples of eight.
func TestNormals32(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var us, as []uint32
	for k := range 33 {
		p := uint64(1) << k
		for _, v := range []uint64{p - 1, p, p + 1, uint64(math.Sqrt2 * float64(p)), uint64(math.Sqrt2*float64(p)) + 1} {
			us = append(us, uint32(v-1)) // u = v − 1 (v = 2³² is u = 2³² − 1)
		}
	}
	for q := range uint64(4) {
		for _, d := range []int64{-1, 0, 1, 1 << 29, 1<<29 - 1} {
			as = append(as, uint32(int64(q<<30)+d))
		}
	}
	for len(us) < 1000 {
		us = append(us, r.Uint32())
	}
	for len(as) < len(us) {
		as = append(as, r.Uint32())
	}
	withAsm(t, func(t *testing.T) {
		for _, n := range []int{len(us), 8, 15, 1} {
			w := make([]uint32, 2*n)
			for i := range n {
				w[2*i], w[2*i+1] = us[i], as[(i*7)%len(as)]
			}
			d := make([]float32, 2*n)
			normals32(d, w)
			for i := range n {
				c, s := boxMuller32(w[2*i], w[2*i+1])
				if math.Float32bits(d[2*i]) != math.Float32bits(c) || math.Float32bits(d[2*i+1]) != math.Float32bits(s) {
					t.Fatalf("n=%d pair %d (u %#x, a %#x): %v, %v; boxMuller32 gives %v, %v", n, i, w[2*i], w[2*i+1], d[2*i], d[2*i+1], c, s)
				}
			}
		}
	})
}
