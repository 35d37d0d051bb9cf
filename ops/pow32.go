package ops

import (
	"math"
	"unsafe"
)

// float32 Pow as 2^(b·log2 a) in float64: log2 a from a table of 16
// subintervals and a degree-7 polynomial, 2^t from a table of 2^(j/16)
// and a degree-4 polynomial. The relative errors (log2: 2^-40 of the
// logarithm near 1, which b scales up to |t| ≤ 150; 2^t: 2^-36) keep the
// result within 2^-33 of a^b, far under float32's half ulp, so it is
// correctly rounded or (rarely) its neighbour. The steps are the AVX-512
// instructions' (VGETMANTPD, VGETEXPPD, VREDUCEPD, VSCALEFPD).

// powLogC is log2(1+r)/r on [−1/32, 1/16] (a minimax fit of relative
// error 2^-40.0), powExpC (2^r−1)/r on [0, 1/16] (2^-32.0, which r's
// factor takes to 2^-36 of 2^r).
var (
	powLogC = [7]float64{0x1.71547652b92c9p+0, -0x1.715476517e9edp-1, 0x1.ec709cf7e290fp-2,
		-0x1.715496f018153p-2, 0x1.277e13d52de84p-2, -0x1.ec129c3e71aa0p-3, 0x1.811b0c5c1918ap-3}
	powExpC = [4]float64{0x1.62e42fee438f6p-1, 0x1.ebfbeb00eaf08p-3, 0x1.c6a2c01213070p-5, 0x1.40ad87d7b782cp-7}
)

const (
	powShift = 0x1.8p48 // rounding t+powShift to a float64 leaves 16t in the low bits
	powTMax  = 200      // 2^±200 is Inf or 0 in float32 and a normal float64
)

// powTable holds pow32's tables and constants at the offsets
// pow_amd64.s names.
type powTable struct {
	invc, logc [16]float64 // subinterval i's 1/c and log2 c (+1 for i ≥ 8)
	exp2       [16]float64 // 2^(j/16 − 1/32)
	exp2s      [16]uint64  // exp2[j]'s bits less j<<48, for adding n<<48
	k          [27][4]uint64
}

// powConsts is the one source of the bits of pow32Go and the kernels.
var powConsts = func() (t powTable) {
	for i := range 16 {
		// a = 2^e·m, m in [1, 2) with i its top four fraction bits, is
		// 2^e·z for m < 1.5 (z = m) and 2^(e+1)·z otherwise (z = m/2):
		// the subintervals of z in [3/4, 3/2) take 1/16 above 1 and 1/32
		// below; 1 is at the edge of two, where c is 1, so log2 1 is 0
		lo, w := 1+float64(i)/16, 1.0/16
		if i >= 8 {
			lo, w = 0.5+float64(i)/32, 1.0/32
		}
		c := lo + w/2
		if i == 0 || i == 15 {
			c = 1
		}
		t.invc[i] = 1 / c
		t.logc[i] = -math.Log2(t.invc[i]) + float64(i>>3)
		t.exp2[i] = math.Exp2(float64(i)/16 - 1.0/32)
		t.exp2s[i] = math.Float64bits(t.exp2[i]) - uint64(i)<<48
	}
	d := func(v uint32) uint64 { return uint64(v)<<32 | uint64(v) } // a dword constant
	f := math.Float64bits
	k := []uint64{
		d(127), 15, 1<<52 - 1, 8,
		d(0x7f800000), d(0xfeffffff), d(0x7fffffff), d(0x7f7fffff),
		f(1),
	}
	for _, c := range powLogC {
		k = append(k, f(c))
	}
	for _, c := range powExpC {
		k = append(k, f(c))
	}
	k = append(k, f(powShift), f(-powTMax), f(powTMax), f(1.0/32), f(16), f(-1.0/16), f(0x1.8p52))
	for i, v := range k {
		t.k[i] = [4]uint64{v, v, v, v}
	}
	return
}()

// log2Pow is log2 x for a positive normal x: x = 2^k·z, z in [3/4, 3/2)
// (VGETMANTPD's), z's subinterval i has centre c (or 1), and log2 x = k +
// log2 c + log2(1+r), r = z/c − 1 in [−1/32, 1/16].
func log2Pow(x float32) float64 {
	b := math.Float64bits(float64(x))
	i := b >> 48 & 15
	z := math.Float64frombits(b&(1<<52-1) | (1023-i>>3)<<52)
	r := math.FMA(z, powConsts.invc[i], -1)
	c := &powLogC
	q := c[6]
	for j := 5; j >= 0; j-- {
		q = math.FMA(q, r, c[j])
	}
	return math.FMA(r, q, float64(int(b>>52)-1023)+powConsts.logc[i])
}

// exp2Pow is 2^(t−1/32) for finite t, clamped to ±powTMax: t = n/16 + r,
// r in [0, 1/16), 2^(t−1/32) = 2^(n>>4)·2^((n&15)/16 − 1/32)·2^r. (The
// 1/32 is added in the fused multiply-add that makes t, so that the
// rounding down here is rounding to nearest of the product.)
func exp2Pow(t float64) float64 {
	if t < -powTMax {
		t = -powTMax
	}
	if t > powTMax {
		t = powTMax
	}
	n := math.Floor(t * 16)
	r := t - n/16
	nb := uint64(int64(n))
	scale := math.Float64frombits(powConsts.exp2s[nb&15] + nb<<48)
	c := &powExpC
	q := math.FMA(math.FMA(math.FMA(c[3], r, c[2]), r, c[1]), r, c[0])
	return math.FMA(float64(scale*r), q, scale)
}

// pow32 computes d = a^b: 2^(b·log2 a) where a is a positive normal
// float32 and b finite, math.Pow elsewhere (zero, subnormal, negative
// or non-finite bases, non-finite exponents).
func pow32(d, a, b []float32) {
	a, b = a[:len(d)], b[:len(d)]
	if useAsm {
		// the assembly kernels (lanes512), in blocks of 1024 lanes, mark
		// the lanes off their fast path and keep those lanes' operand
		// where d is a or b, so only they are redone, from a and b
		keepb := 0
		if len(d) > 0 && &d[0] == &b[0] {
			keepb = 1
		}
		var masks [256]byte
		for lo := 0; lo < len(d); lo += 1024 {
			hi := min(lo+1024, len(d))
			w, m := lanes512(hi-lo, 4)
			slow := 0
			if w > 0 {
				slow = powF32AVX512(unsafe.Pointer(&d[lo]), unsafe.Pointer(&a[lo]), unsafe.Pointer(&b[lo]), w, unsafe.Pointer(&masks[0]), keepb, &powConsts)
			}
			if i := lo + w; m > w {
				slow |= powF32(unsafe.Pointer(&d[i]), unsafe.Pointer(&a[i]), unsafe.Pointer(&b[i]), m-w, unsafe.Pointer(&masks[w/4]), keepb, &powConsts)
			}
			if slow != 0 {
				for v, mk := range masks[:m/4] {
					for l := range 4 {
						if i := lo + 4*v + l; mk>>l&1 != 0 {
							pow32Go(d[i:i+1], a[i:i+1], b[i:i+1])
						}
					}
				}
			}
			pow32Go(d[lo+m:hi], a[lo+m:hi], b[lo+m:hi])
		}
		return
	}
	pow32Go(d, a, b)
}

func pow32Go(d, a, b []float32) {
	for i := range d {
		ix, y := math.Float32bits(a[i]), float64(b[i])
		if ix-0x00800000 < 0x7f000000 && math.Abs(y) <= math.MaxFloat32 {
			d[i] = float32(exp2Pow(math.FMA(y, log2Pow(a[i]), 1.0/32)))
		} else {
			d[i] = float32(math.Pow(float64(a[i]), y))
		}
	}
}
