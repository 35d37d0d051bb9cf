package ops

import (
	"math"
	"unsafe"
)

// Float32 Log in float64 lanes: logF32 (log_amd64.s) computes log32's
// operations eight elements a step, so the Go loop and the kernel give
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
	b := math.Float64bits(float64(x))
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
	return float32(math.FMA(e, math.Ln2, math.FMA(t, p*z, t)))
}

// logLanes stores log32 of a in d: eight-element steps in logF32 up to a
// step with a lane log32 hands to math.Log, which the Go loop takes.
func logLanes(d, a []float32) {
	a = a[:len(d)]
	i := 0
	for useAsm && len(d)-i >= 8 {
		i += logF32(unsafe.Pointer(&d[i]), unsafe.Pointer(&a[i]), (len(d)-i)&^7)
		if len(d)-i >= 8 {
			for k := i; k < i+8; k++ {
				d[k] = log32(a[k])
			}
			i += 8
		}
	}
	for ; i < len(d); i++ {
		d[i] = log32(a[i])
	}
}
