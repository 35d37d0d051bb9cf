package ops

import (
	"errors"
	"fmt"
	"github.com/resident-go/resident/internal/guard"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
)

// Random123's known-answer vectors for philox4x32_10 (its kat_vectors
// file): counter and key all zeros, all ones, and the digits of π.
func TestPhiloxKAT(t *testing.T) {
	for _, c := range []struct {
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{[4]uint32{}, [2]uint32{}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		if got := Philox4x32(c.ctr, c.key); got != c.want {
			t.Errorf("Philox4x32(%08x, %08x) = %08x, want %08x", c.ctr, c.key, got, c.want)
		}
	}
}

// refWord is word n of seed's stream, from the package documentation's
// definition: block n/4, lane n%4.
func refWord(seed, block uint64, lane int) uint32 {
	return Philox4x32([4]uint32{uint32(block), uint32(block >> 32), 0, 0}, [2]uint32{uint32(seed), uint32(seed >> 32)})[lane]
}

// refUniform is stream element e of T by the documentation's table,
// computed in float64 and by plain integer arithmetic.
func refUniform[T array.Elem](seed, e uint64) T {
	k := 1
	if sizeOf[T]() == 8 {
		k = 2
	}
	epb := uint64(4 / k)
	b, l := e/epb, int(e%epb)*k
	w := refWord(seed, b, l)
	var x uint64
	if k == 2 {
		x = uint64(refWord(seed, b, l+1))<<32 | uint64(w)
	}
	var z T
	switch any(z).(type) {
	case float32:
		return T(float32(float64(w>>8) / (1 << 24)))
	case float64:
		return T(float64(x>>11) / (1 << 53))
	case array.Float16:
		return T(array.F16(float32(float64(w>>21) / 2048)))
	case array.BFloat16:
		return T(array.BF16(float32(float64(w>>24) / 256)))
	case int64, uint64:
		return T(x)
	}
	return T(w)
}

// refNormal is stream element e of a normal fill of T by Box–Muller with
// the math package's functions, in float64.
func refNormal[T array.Elem](seed, e uint64) float64 {
	var u1, turn float64
	if sizeOf[T]() == 8 {
		b := e / 2
		x := uint64(refWord(seed, b, 1))<<32 | uint64(refWord(seed, b, 0))
		y := uint64(refWord(seed, b, 3))<<32 | uint64(refWord(seed, b, 2))
		u1 = float64(x>>11+1) / (1 << 53)
		turn = float64(y) / (1 << 64)
	} else {
		p := e / 2
		b, l := p/2, int(p%2)*2
		u1 = (float64(refWord(seed, b, l)) + 1) / (1 << 32)
		turn = float64(refWord(seed, b, l+1)) / (1 << 32)
	}
	r := math.Sqrt(-2 * math.Log(u1))
	s, c := math.Sincos(2 * math.Pi * turn)
	if e%2 == 1 {
		return r * s
	}
	return r * c
}

// normalTol is how far an element of T may be from the float64 reference:
// its rounding to T (relative, and absolute among Float16's subnormals)
// plus the math's error: for float64 a few ulps of r ≤ 8.6 (the
// reference's angle rounds too), for float32 the float32 math's few ulps
// (TestRandMath32) and its angle's rounding.
func normalTol[T array.Elem](want float64) float64 {
	eps, abs := 1e-14, 4e-15
	switch any(*new(T)).(type) {
	case float32:
		eps = 0x1p-21
	case array.Float16:
		eps, abs = 0x1p-10, 0x1p-24
	case array.BFloat16:
		eps = 0x1p-7
	}
	return eps*math.Abs(want) + abs
}

func randF64[T array.Elem](x T) float64 {
	if kindOf[T]() == kHalf {
		return float64(toF32(x))
	}
	return drefF(x)
}

// bitsOf is x's bit pattern, for bit-for-bit comparisons.
func bitsOf[T array.Elem](x T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = x
	return u
}

// rowVals reads a's elements in row order (dimension 0 fastest).
func rowVals[T array.Elem](t testing.TB, a *array.Array[T]) []T {
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	forEachPos(a.Extents(), func(pos []int) { out = append(out, v.At(coordsOf(a, pos)...)) })
	return out
}

// drawOffset draws a stream offset: small, anywhere, or just below 2⁶⁴
// so that the fill wraps.
func drawOffset(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return uint64(r.IntN(9))
	case 1:
		return -uint64(1 + r.IntN(20))
	}
	return r.Uint64()
}

// checkStream checks a host fill of generated layouts of T against the
// references: uniforms exactly, normals within normalTol.
func checkStream[T array.Elem](t *testing.T, normal bool, cases int) {
	t.Run(fmt.Sprint(array.TypeOf[T](), " normal=", normal), func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, uint64(typeIndex[T]())))
		for c := range cases {
			g := &dgen{tb: t, r: r}
			ext := drawExt(g, 4)
			for elems(ext) > 1<<14 {
				ext = drawExt(g, 4)
			}
			a := layoutOf[T](g, ext)
			seed, off := r.Uint64(), drawOffset(r)
			var err error
			if normal {
				err = RandNormal(a, seed, off)
			} else {
				err = RandUniform(a, seed, off)
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range rowVals(t, a) {
				e := off + uint64(i)
				if !normal {
					if want := refUniform[T](seed, e); bitsOf(got) != bitsOf(want) {
						t.Fatalf("case %d %v seed %#x offset %d: element %d = %v, want %v", c, g.log, seed, off, i, got, want)
					}
					continue
				}
				want := refNormal[T](seed, e)
				if d := math.Abs(randF64(got) - want); !(d <= normalTol[T](want)) {
					t.Fatalf("case %d %v seed %#x offset %d: element %d = %v, want %v (off by %g)", c, g.log, seed, off, i, randF64(got), want, d)
				}
			}
		}
	})
}

// TestRandStream: element i of dst in row order is stream element
// offset+i, over generated layouts (crops, steps, permutations, mins,
// reshapes, 0-D, empty) and offsets that wrap past 2⁶⁴.
func TestRandStream(t *testing.T) {
	const n = 12
	checkStream[int8](t, false, n)
	checkStream[int16](t, false, n)
	checkStream[int32](t, false, n)
	checkStream[int64](t, false, n)
	checkStream[uint8](t, false, n)
	checkStream[uint16](t, false, n)
	checkStream[uint32](t, false, n)
	checkStream[uint64](t, false, n)
	checkStream[array.Float16](t, false, n)
	checkStream[array.BFloat16](t, false, n)
	checkStream[float32](t, false, n)
	checkStream[float64](t, false, n)
	checkStream[float32](t, true, n)
	checkStream[float64](t, true, n)
	checkStream[array.Float16](t, true, n)
	checkStream[array.BFloat16](t, true, n)
}

// TestRandOffsetsCompose: a fill of 2n is a fill of n followed by a fill
// of n at offset n, bit for bit, for odd n (normals split their pairs)
// and at offsets that wrap.
func TestRandOffsetsCompose(t *testing.T) {
	compose[float32](t)
	compose[float64](t)
	compose[uint64](t)
	compose[int8](t)
	compose[array.Float16](t)
}

func compose[T array.Elem](t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for range 20 {
		n := 1 + r.IntN(40)
		seed, off := r.Uint64(), drawOffset(r)
		for _, normal := range []bool{false, true} {
			if normal && kindOf[T]() != kFloat && kindOf[T]() != kHalf {
				continue
			}
			fill := RandUniform[T]
			if normal {
				fill = RandNormal[T]
			}
			whole := array.New[T](2 * n)
			halves := array.New[T](2 * n)
			if err := fill(whole, seed, off); err != nil {
				t.Fatal(err)
			}
			if err := fill(halves.Crop(0, 0, n), seed, off); err != nil {
				t.Fatal(err)
			}
			if err := fill(halves.Crop(0, n, n), seed, off+uint64(n)); err != nil {
				t.Fatal(err)
			}
			w, h := rowVals(t, whole), rowVals(t, halves)
			for i := range w {
				if bitsOf(w[i]) != bitsOf(h[i]) {
					t.Fatalf("%v normal=%v n=%d offset %d: element %d of the whole fill %v, of the halves %v", array.TypeOf[T](), normal, n, off, i, w[i], h[i])
				}
			}
		}
	}
}

// TestRandStats: moments of large fills are within 6 standard errors of
// the distributions'.
func TestRandStats(t *testing.T) {
	const n = 1 << 16
	check := func(name string, xs []float64, mean, variance, fourth float64) {
		t.Helper()
		var m, v float64
		for _, x := range xs {
			m += x
		}
		m /= n
		for _, x := range xs {
			v += (x - m) * (x - m)
		}
		v /= n - 1
		if se := math.Sqrt(variance / n); math.Abs(m-mean) > 6*se {
			t.Errorf("%s: mean %g, want %g ± %g", name, m, mean, 6*se)
		}
		if se := math.Sqrt((fourth - variance*variance) / n); math.Abs(v-variance) > 6*se {
			t.Errorf("%s: variance %g, want %g ± %g", name, v, variance, 6*se)
		}
	}
	f32 := array.New[float32](n)
	f64 := array.New[float64](n)
	u8 := array.New[uint8](n)
	// dense 1-D Arrays: Data is row order
	rowVals := func(t *testing.T, a interface{ Raw() *array.Raw }) []float64 {
		switch a := a.(type) {
		case *array.Array[float32]:
			v, _ := a.HostReadOnly()
			return randF64s(v.Data())
		case *array.Array[float64]:
			v, _ := a.HostReadOnly()
			return randF64s(v.Data())
		case *array.Array[uint8]:
			v, _ := a.HostReadOnly()
			return randF64s(v.Data())
		}
		t.Fatalf("%T", a)
		return nil
	}
	for seed := range uint64(2) {
		if err := RandUniform(f32, seed, 0); err != nil {
			t.Fatal(err)
		}
		check("uniform float32", rowVals(t, f32), 0.5, 1.0/12, 1.0/80)
		if err := RandUniform(f64, seed, 5); err != nil {
			t.Fatal(err)
		}
		check("uniform float64", rowVals(t, f64), 0.5, 1.0/12, 1.0/80)
		if err := RandUniform(u8, seed, 0); err != nil {
			t.Fatal(err)
		}
		// discrete uniform on 0…255: variance (256²−1)/12, fourth moment (N²−1)(3N²−7)/240
		check("uniform uint8", rowVals(t, u8), 127.5, (256*256-1)/12.0, (256*256-1)*(3*256*256-7)/240.0)
		if err := RandNormal(f32, seed, 1); err != nil {
			t.Fatal(err)
		}
		check("normal float32", rowVals(t, f32), 0, 1, 3)
		if err := RandNormal(f64, seed, 0); err != nil {
			t.Fatal(err)
		}
		xs := rowVals(t, f64)
		check("normal float64", xs, 0, 1, 3)
		inside := 0
		for _, x := range xs {
			if math.Abs(x) < 1 {
				inside++
			}
		}
		if p, se := float64(inside)/n, math.Sqrt(0.6827*0.3173/n); math.Abs(p-0.6827) > 6*se {
			t.Errorf("normal float64: P(|z| < 1) = %g, want 0.6827 ± %g", p, 6*se)
		}
		// Neighbours (the two of a Box–Muller pair, and across pairs) are
		// uncorrelated.
		var c0, c1 float64
		for i := 0; i+2 < n; i += 2 {
			c0 += xs[i] * xs[i+1]
			c1 += xs[i+1] * xs[i+2]
		}
		if lim := 6 / math.Sqrt(n/2); math.Abs(c0/(n/2)) > lim || math.Abs(c1/(n/2)) > lim {
			t.Errorf("normal float64: neighbour correlations %g, %g, want within ±%g", c0/(n/2), c1/(n/2), lim)
		}
	}
}

func elems(ext []int) int {
	n := 1
	for _, e := range ext {
		n *= e
	}
	return n
}

func randF64s[T array.Elem](xs []T) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = randF64(x)
	}
	return out
}

// TestRandMath: the float64 ln, sin and cos behind RandNormal are within
// 2 ulps of the math package's, over their whole input ranges.
func TestRandMath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ulp := func(x float64) float64 { return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x) }
	xs := []float64{0x1p-53, 0x1p-32, 0.5, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0), 1 - 0x1p-53, 1}
	for range 30000 {
		xs = append(xs, float64(r.Uint64()>>11+1)*0x1p-53, float64(r.Uint32())*0x1p-32+0x1p-32)
	}
	worst := 0.0
	for _, x := range xs {
		got, want := randLog(x), math.Log(x)
		if want == 0 {
			if got != 0 {
				t.Fatalf("randLog(1) = %g", got)
			}
			continue
		}
		worst = max(worst, math.Abs(got-want)/ulp(want))
	}
	if worst > 2 {
		t.Errorf("randLog is %g ulps from math.Log", worst)
	}
	as := []uint64{0, 1 << 61, 1<<61 - 1, 1 << 62, 3 << 62, 1<<64 - 1}
	for range 30000 {
		as = append(as, r.Uint64())
	}
	worstS, worstC := worstSinCos(as, func(a uint64) (s, c float64, q uint64, th float64) {
		s, c = randSinCos(a)
		return s, c, (a + 1<<61) >> 62, float64(int64((a+1<<61)&(1<<62-1)-1<<61)>>9) * angle
	}, ulp)
	if worstS > 2 || worstC > 2 {
		t.Errorf("randSinCos is %g (sin) and %g (cos) ulps from math.Sincos", worstS, worstC)
	}
	t.Logf("worst: ln %.2f ulp, sin %.2f, cos %.2f", worst, worstS, worstC)
}

// TestRandMath32: the float32 ln, √, sin and cos behind RandNormal of
// float32, Float16 and BFloat16 are within a few ulps of the math
// package's, over their whole input ranges and at their edges.
func TestRandMath32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ulp := func(x float64) float64 {
		f := float32(math.Abs(x))
		return float64(math.Nextafter32(f, math.MaxFloat32) - f)
	}
	us := []uint32{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1<<32 - 2, 1<<32 - 256, 0xb504f333, 0xb504f332, 0x6a09e666}
	for k := range 32 {
		us = append(us, 1<<k-1, 1<<k, uint32(math.Sqrt2*float64(uint64(1)<<k)))
	}
	for range 200000 {
		us = append(us, r.Uint32(), ^uint32(r.IntN(1<<16)))
	}
	worst := 0.0
	for _, u := range us {
		got, want := float64(randLog32(u)), math.Log((float64(u)+1)*0x1p-32)
		if want == 0 {
			if got != 0 {
				t.Fatalf("randLog32(%#x) = %g, want 0", u, got)
			}
			continue
		}
		worst = max(worst, math.Abs(got-want)/ulp(want))
	}
	worstR := 0.0
	xs := []float32{0, 0x1p-31, 1, 2, 44.36142}
	for range 200000 {
		xs = append(xs, float32(r.Float64()*45), float32(r.Float64()*1e-3))
	}
	for _, x := range xs {
		got, want := float64(randSqrt32(x)), math.Sqrt(float64(x))
		if want == 0 {
			if got != 0 {
				t.Fatalf("randSqrt32(0) = %g", got)
			}
			continue
		}
		worstR = max(worstR, math.Abs(got-want)/ulp(want))
	}
	as := []uint32{0, 1 << 29, 1<<29 - 1, 1 << 30, 3 << 30, 1<<32 - 1}
	for range 200000 {
		as = append(as, r.Uint32())
	}
	worstS, worstC := worstSinCos(as, func(a uint32) (s, c float64, q uint64, th float64) {
		s32, c32 := randSinCos32(a)
		return float64(s32), float64(c32), uint64((a + 1<<29) >> 30), float64(float32(int32((a+1<<29)&(1<<30-1))-1<<29) * angle32)
	}, ulp)
	if worst > 1.5 || worstR > 3 || worstS > 1.5 || worstC > 1.5 {
		t.Errorf("ulps from the math package: ln %g (want ≤ 1.5), √ %g (≤ 3), sin %g, cos %g (≤ 1.5)", worst, worstR, worstS, worstC)
	}
	t.Logf("worst: ln %.2f ulp, √ %.2f, sin %.2f, cos %.2f", worst, worstR, worstS, worstC)
}

// worstSinCos is the largest error in ulps (ulp(x) for a value x) of the
// sines and cosines that at gives for the turns as, against math.Sincos
// of the angle the function reduces each turn to (quarter q, rest θ, as
// it rounds θ), so that the polynomials alone are measured.
func worstSinCos[U uint32 | uint64](as []U, at func(U) (s, c float64, q uint64, th float64), ulp func(float64) float64) (worstS, worstC float64) {
	for _, a := range as {
		s, c, q, th := at(a)
		ws, wc := math.Sincos(th)
		ws, wc = quarterTurn(q, ws, wc)
		worstS = max(worstS, math.Abs(s-ws)/ulp(max(math.Abs(ws), 0x1p-60)))
		worstC = max(worstC, math.Abs(c-wc)/ulp(max(math.Abs(wc), 0x1p-60)))
	}
	return worstS, worstC
}

// randDevices are the devices the device tests run on: the simulator and,
// when there are, the default OpenCL device (PoCL here) and a CUDA
// device that builds kernels (on a GPU machine).
func randDevices(t *testing.T) []device.Device {
	devs := []device.Device{sim.NewCompute("rand", 0)}
	if d, err := opencl.Default(); err == nil {
		devs = append(devs, d)
	} else {
		t.Logf("no OpenCL device: %v", err)
	}
	if d, err := cudaKernels(); err == nil {
		devs = append(devs, d)
	}
	return devs
}

// TestRandDevice: fills of generated layouts in generated residency
// states run where the placement rule says (one launch on the device,
// none on the host, no transfer either way) and give the host's bits.
func TestRandDevice(t *testing.T) {
	for _, d := range randDevices(t) {
		t.Run(d.Name(), func(t *testing.T) {
			fp64 := true
			if k, ok := d.(device.Kernels); ok {
				fp64 = k.Caps().FP64
			}
			deviceCases[float32](t, d, false, fp64)
			deviceCases[float32](t, d, true, fp64)
			deviceCases[float64](t, d, false, fp64)
			deviceCases[float64](t, d, true, fp64)
			deviceCases[array.Float16](t, d, false, fp64)
			deviceCases[array.BFloat16](t, d, true, fp64)
			deviceCases[int8](t, d, false, fp64)
			deviceCases[uint64](t, d, false, fp64)
		})
	}
}

func deviceCases[T array.Elem](t *testing.T, d device.Device, normal, fp64 bool) {
	r := rand.New(rand.NewPCG(11, uint64(typeIndex[T]())))
	fill := RandUniform[T]
	if normal {
		fill = RandNormal[T]
	}
	where := [2]int{}
	for c := range 12 {
		g := &dgen{tb: t, r: r, d: d}
		ext := drawExt(g, 4)
		for elems(ext) > 1<<14 {
			ext = drawExt(g, 4)
		}
		a := layoutOf[T](g, ext)
		st := g.n(nRes)
		if st == resHostOnly {
			st = resHostNew
		}
		setResT(g, st, a)
		onDev := a.Len() > 0 && a.Device() == d && (a.DeviceDirty() || !a.HostDirty())
		if _, ok := d.(device.Kernels); ok && sizeOf[T]() == 8 && kindOf[T]() == kFloat && !fp64 {
			onDev = false
		}
		seed, off := r.Uint64(), drawOffset(r)
		before := d.Stats()
		if err := fill(a, seed, off); err != nil {
			t.Fatalf("case %d %v: %v", c, g.log, err)
		}
		s := d.Stats().Sub(before)
		wantL := int64(0)
		if onDev {
			wantL = 1
			where[1]++
		} else {
			where[0]++
		}
		if s.Launches != wantL || s.H2DCalls != 0 || s.D2HCalls != 0 {
			t.Fatalf("case %d %v: %d launches, %d H2D, %d D2H; want %d launches and no transfer", c, g.log, s.Launches, s.H2DCalls, s.D2HCalls, wantL)
		}
		if onDev && (!a.DeviceDirty() || a.Device() != d) {
			t.Fatalf("case %d %v: the result is not device-dirty on %s", c, g.log, d.Name())
		}
		if i, got, want := hostFillDiffers(t, a, fill, seed, off); i >= 0 {
			t.Fatalf("case %d %v seed %#x offset %d: element %d on %s is %v (%#x), on the host %v (%#x)",
				c, g.log, seed, off, i, d.Name(), got, bitsOf(got), want, bitsOf(want))
		}
	}
	if where[1] == 0 {
		t.Errorf("%v normal=%v: no case ran on %s", array.TypeOf[T](), normal, d.Name())
	}
}

// TestRandDeviceManyDims: a layout of more than 8 dimensions that do not
// merge runs on the host (counted copies only; here none, dst being
// current), with the same stream.
func TestRandDeviceManyDims(t *testing.T) {
	for _, d := range randDevices(t) {
		ext := []int{2, 3, 2, 3, 2, 3, 2, 3, 2}
		// neighbours swapped: no two dimensions merge
		a := array.New[float32](ext...).Permute(1, 0, 3, 2, 5, 4, 7, 6, 8)
		if err := On(d, a); err != nil {
			t.Fatal(err)
		}
		before := d.Stats()
		if err := RandUniform(a, 5, 7); err != nil {
			t.Fatal(err)
		}
		_, isCL := d.(device.Kernels)
		if s := d.Stats().Sub(before); isCL && s.Launches != 0 || !isCL && s.Launches != 1 {
			t.Errorf("%s: %d launches for a 9-D fill", d.Name(), s.Launches)
		}
		for i, x := range rowVals(t, a) {
			if want := refUniform[float32](5, 7+uint64(i)); x != want {
				t.Fatalf("%s: element %d = %v, want %v", d.Name(), i, x, want)
			}
		}
	}
}

// TestRandErrors: a closed dst, a type RandNormal does not take and a
// failing device launch are errors, and dst keeps what it held.
func TestRandErrors(t *testing.T) {
	a := array.New[float32](4)
	v := a.Crop(0, 1, 2)
	a.Close()
	if err := RandUniform(a, 1, 0); !errors.Is(err, device.ErrClosed) {
		t.Errorf("RandUniform of a closed Array: %v", err)
	}
	if err := RandNormal(v, 1, 0); !errors.Is(err, device.ErrClosed) {
		t.Errorf("RandNormal of a view of a closed Array: %v", err)
	}
	i := array.FromSlice([]int32{1, 2, 3}, 3)
	if err := RandNormal(i, 1, 0); !errors.Is(err, ErrUnsupported) {
		t.Errorf("RandNormal of int32: %v", err)
	}
	if got := rowVals(t, i); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("RandNormal of int32 wrote %v", got)
	}

	d := sim.NewCompute("rand", 0)
	defer d.Close()
	b := array.New[float64](6)
	h, _ := b.Host()
	copy(h.Data(), []float64{1, 2, 3, 4, 5, 6})
	if err := On(d, b); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	d.FailNext("Run", boom)
	if err := RandNormal(b, 1, 0); !errors.Is(err, boom) {
		t.Fatalf("RandNormal with a failing launch: %v", err)
	}
	if got := rowVals(t, b); fmt.Sprint(got) != "[1 2 3 4 5 6]" {
		t.Errorf("after a failed launch dst holds %v", got)
	}
	// Under the transfer guard a fill of a device-current dst runs there.
	guard.Set(true)
	defer guard.Set(false)
	if err := RandNormal(b, 1, 0); err != nil {
		t.Fatalf("RandNormal under the guard: %v", err)
	}
	guard.Set(false)
	if d.Runs() != 1 || !b.DeviceDirty() {
		t.Errorf("%d runs, device-dirty %v; want 1 run and a device-dirty result", d.Runs(), b.DeviceDirty())
	}
}

// BenchmarkRand: the host fills, a ladder of sizes for float32 and
// float64, uniform and normal, the peer of bench/numpy_rng.py (NumPy's
// Generator.random and standard_normal with out=); bench/rng-numpy.sh
// runs both and prints the ratios. MB/s counts the bytes written;
// best-ns/op is the fastest call, the statistic NumPy's side reports.
func BenchmarkRand(b *testing.B) {
	for _, kind := range []string{"uniform", "normal"} {
		benchRand[float32](b, kind)
		benchRand[float64](b, kind)
	}
}

func benchRand[T array.Elem](b *testing.B, kind string) {
	for _, n := range []int{1 << 10, 1 << 16, 1 << 20, 1 << 24} {
		b.Run(fmt.Sprintf("%s/%v/n=%d", kind, array.TypeOf[T](), n), func(b *testing.B) {
			a := array.New[T](n)
			defer a.Close()
			fill := RandUniform[T]
			if kind == "normal" {
				fill = RandNormal[T]
			}
			if err := fill(a, 1, 0); err != nil { // touch the pages first, as NumPy's side does
				b.Fatal(err)
			}
			b.SetBytes(int64(sizeOf[T]() * n))
			b.ReportAllocs()
			best := time.Duration(math.MaxInt64)
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				if err := fill(a, 1, uint64(i*n)); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns/op")
		})
	}
}

// hostFillDiffers fills a new host Array shaped as a with fill(seed,
// off) and returns the first row-order element where a differs from it
// in bits, and both values; -1 when none does.
func hostFillDiffers[T array.Elem](t *testing.T, a *array.Array[T], fill func(*array.Array[T], uint64, uint64) error, seed, off uint64) (int, T, T) {
	t.Helper()
	host := array.New[T](a.Extents()...)
	defer host.Close()
	if err := fill(host, seed, off); err != nil {
		t.Fatal(err)
	}
	got, want := rowVals(t, a), rowVals(t, host)
	for i := range want {
		if bitsOf(got[i]) != bitsOf(want[i]) {
			return i, got[i], want[i]
		}
	}
	var z T
	return -1, z, z
}
