package ops

import (
	"math"
	"unsafe"
)

// Float32 Log and Log1p in float64 lanes: logF32 and log1pF32
// (log_amd64.s) compute log32's and log1p32's operations eight elements a
// step, so the Go loop and the kernel give
// the same bits (TestLogKernels). x = m·2^e with m in [√½, √2), then
// log m = 2s + 2s·R(s²), s = (m−1)/(m+1), R the series of atanh to s¹²
// (its error below 1e-12 relative): the float32 result is the correctly
// rounded log nearly always, as float32(math.Log) is (TestMath32Accuracy
// bounds it at one ulp).

// log32 is Log of one float32 as logF32 computes it; zero, negatives,
// +Inf and NaN take math.Log.
func log32(x float32) float32 {
	if !(x > 0 && x <= math.MaxFloat32) {
		return float32(math.Log(float64(x)))
	}
	return float32(logCore(float64(x)))
}

// log1p32 is Log1p of one float32 as log1pF32 computes it: log(1+x),
// where 1+x is exact in float64 for 2^−29 ≤ |x| ≤ 2^29 (x has 24 bits)
// and rounded by less than 2^−53 relative above; x itself where |x| <
// 2^−29, for log1p x = x·(1 − x/2 + …) rounds to x in float32 there.
// −1 and below, +Inf and NaN take math.Log1p.
func log1p32(x float32) float32 {
	if !(x > -1 && x <= math.MaxFloat32) {
		return float32(math.Log1p(float64(x)))
	}
	if math.Abs(float64(x)) < 0x1p-29 {
		return x
	}
	return float32(logCore(float64(x) + 1))
}

// logCore is the natural log of a positive normal float64, to about
// 1e-12 relative, with LOG4's operations (log_amd64.s).
func logCore(x float64) float64 {
	b := math.Float64bits(x)
	e := float64(int64(b>>52) - 1023)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	f := m - 1
	s := f / (2 + f)
	z := s * s
	p := math.FMA(1.0/13, z, 1.0/11)
	p = math.FMA(p, z, 1.0/9)
	p = math.FMA(p, z, 1.0/7)
	p = math.FMA(p, z, 1.0/5)
	p = math.FMA(p, z, 1.0/3)
	t := s + s
	return math.FMA(e, math.Ln2, math.FMA(t, p*z, t))
}

// softplus32 is Softplus of one float32 as softplusF32 computes it, in
// float64: max(x, 0) + log1p(e) with e = e^−|x| in (0, 1], log1p(e) as
// logCore(1+e) (1+e rounded by at most 2^−53, against log1p(e) ≥ 2^−11
// there) or, for e < 2^−10, e·(1 − e/2 + e²/3) (truncation below 3e-10
// relative). No cancellation: both terms are ≥ 0.
func softplus32(x float32) float32 {
	xd := float64(x)
	e := expNonPos(-math.Abs(xd))
	var l float64
	if e < 0x1p-10 {
		l = e * math.FMA(e, math.FMA(e, 1.0/3, -0.5), 1)
	} else {
		l = logCore(1 + e)
	}
	return float32(max(xd, 0) + l)
}

// expNonPos is e^t for t ≤ 0, clamped at −110 (e^−110 is 0 in float32):
// t = k·ln2 + r, |r| ≤ ln2/2, and e^r by Horner's Taylor series to
// r¹⁰/10! (truncation below 3e-13 relative).
func expNonPos(t float64) float64 {
	if t < -110 { // a comparison: NaN passes it
		t = -110
	}
	kk, _, r := expReduce(t)
	return horner(r, expTaylor[:]) * pow2(kk, 0)
}

// expTaylor is e^r's Taylor series to r¹⁰, highest first.
var expTaylor = [...]float64{1.0 / 3628800, 1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2, 1, 1}

// logLanes stores log32 of a in d: eight-element steps in the kernels up
// to a step with a lane log32 hands to math.Log, which the Go loop takes.
func logLanes(d, a []float32) { lanesUntil(d, a, logK, log32) }

// log1pLanes is logLanes for Log1p.
func log1pLanes(d, a []float32) { lanesUntil(d, a, log1pK, log1p32) }

func logK(d, a unsafe.Pointer, n int) int   { return until512(logF32AVX512, logF32, d, a, n) }
func log1pK(d, a unsafe.Pointer, n int) int { return until512(log1pF32AVX512, log1pF32, d, a, n) }

// until512 runs a stopping kernel pair over n elements (a multiple of
// 8): the AVX-512 one over the steps of 16 where there is AVX-512, the
// AVX2 one over the rest, and reports the elements done.
func until512(k512, k2 func(d, a unsafe.Pointer, n int) int, d, a unsafe.Pointer, n int) int {
	i := 0
	if w := n &^ 15; useAVX512 && w > 0 {
		if i = k512(d, a, w); i < w || i == n {
			return i
		}
	}
	return i + k2(unsafe.Add(d, 4*i), unsafe.Add(a, 4*i), n-i)
}

// avx512Or is k512 where the CPU has AVX-512, else k2: the pick of a
// kernel pair for lanesUntil.
func avx512Or[K any](k512, k2 K) K {
	if useAVX512 {
		return k512
	}
	return k2
}

// lanesUntil runs k over eight-element steps of a, which stops before a
// step with a lane it leaves to one (and reports the elements done); the
// Go loop takes that step, and the tail.
func lanesUntil[T float32 | float64](d, a []T, k func(d, a unsafe.Pointer, n int) int, one func(T) T) {
	a = a[:len(d)]
	i := 0
	for useAsm && len(d)-i >= 8 {
		kernelRuns.Add(1)
		i += k(unsafe.Pointer(&d[i]), unsafe.Pointer(&a[i]), (len(d)-i)&^7)
		if len(d)-i >= 8 {
			for j := i; j < i+8; j++ {
				d[j] = one(a[j])
			}
			i += 8
		}
	}
	for ; i < len(d); i++ {
		d[i] = one(a[i])
	}
}
