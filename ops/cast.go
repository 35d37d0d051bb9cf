package ops

import (
	"math"
	"unsafe"

	"github.com/resident-go/resident/array"
)

// CastWrap converts src into dst (src broadcasts to dst's shape), any
// element type to any other, wrapping where a value does not fit:
//   - integer → integer keeps the low bits (Go's conversion);
//   - float → integer truncates toward zero, then wraps modulo 2^bits;
//     NaN and ±Inf become 0;
//   - → float rounds to nearest; values beyond the range become ±Inf.
//
// Float16 and BFloat16 convert through float32.
func CastWrap[D, S array.Elem](dst *array.Array[D], src *array.Array[S]) error {
	return cast(dst, src, false)
}

// CastSaturate converts src into dst like CastWrap, but clamps values that
// do not fit to the nearest representable one: values clamp to the
// destination's range (finite floats to its largest finite values; ±Inf
// stays ±Inf in float types), NaN becomes 0 in integer types and stays NaN
// in float types.
func CastSaturate[D, S array.Elem](dst *array.Array[D], src *array.Array[S]) error {
	return cast(dst, src, true)
}

func castName(sat bool) string {
	if sat {
		return "CastSaturate"
	}
	return "CastWrap"
}

func cast[D, S array.Elem](dst *array.Array[D], src *array.Array[S], sat bool) error {
	if ok, err := deviceCast(dst, src, sat); ok {
		return err
	}
	j := getJob()
	defer putJob(j)
	if empty, err := hostJob1(j, "Cast", dst, src); empty || err != nil {
		return err
	}
	if sat {
		j.mode = 1
	}
	j.row = cachedRow[D, S](kCast, func() rowFunc { return castRow[D, S] })
	j.body = rows
	j.parallel(j.total(), 1<<14)
	return nil
}

// castRow converts a row block by block (castVec).
func castRow[D, S array.Elem](j *job, n int, off *[maxOps]int) {
	sd, ss := j.str[0][0], j.str[1][0]
	sat := j.mode == 1
	nt := j.total()*(sizeOf[D]()+sizeOf[S]()) >= ntBytes
	if useAsm && sd == 1 && ss == 1 && castDense(unsafe.Slice(ptr[D](j.base[0], off[0]), n), unsafe.Slice(ptr[S](j.base[1], off[1]), n), sat, nt) {
		return
	}
	var sb [blk]S
	var db [blk]D
	var w castBuf
	for i := 0; i < n; i += blk {
		m := min(blk, n-i)
		x := load(sb[:], j.base[1], off[1]+i*ss, ss, m)
		d := db[:m]
		castVec(d, x, sat, &w)
		store(d, j.base[0], off[0]+i*sd, sd)
	}
}

// castBuf is castVec's scratch, kept by its caller across blocks.
type castBuf struct {
	f [blk]float64
	u [blk]uint64
}

// castVec converts up to blk elements: it widens x to float64 (floats)
// or 64-bit integers, then narrows them to D in d.
func castVec[D, S array.Elem](d []D, x []S, sat bool, w *castBuf) {
	sk, dk := kindOf[S](), kindOf[D]()
	f, u := &w.f, &w.u
	m := len(d)
	x = x[:m]
	switch sk {
	case kFloat:
		for q, v := range x {
			f[q] = float64(v)
		}
	case kHalf:
		for q, v := range x {
			f[q] = float64(toF32(v))
		}
	case kSigned:
		for q, v := range x {
			u[q] = uint64(int64(v))
		}
	default:
		for q, v := range x {
			u[q] = uint64(v)
		}
	}
	if sk == kFloat || sk == kHalf {
		narrowFloat(d, f[:m], dk, sat)
	} else {
		narrowInt(d, u[:m], sk == kSigned, dk, sat)
	}
}

// intRange is D's integer range as float64 bounds: values ≤ lo clamp to
// the minimum and values ≥ hiExcl (a power of two) to the maximum.
func intRange[D array.Elem](k kind) (lo, hiExcl float64) {
	bits := sizeOf[D]() * 8
	if k == kSigned {
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
	}
	return 0, math.Ldexp(1, bits)
}

// intMax returns D's largest and smallest values.
func intMinMax[D array.Elem](k kind) (lo, hi D) {
	bits := sizeOf[D]() * 8
	if k == kSigned {
		return D(int64(-1) << (bits - 1)), D(uint64(1)<<(bits-1) - 1)
	}
	all := ^uint64(0)
	return 0, D(all)
}

func narrowFloat[D array.Elem](d []D, f []float64, dk kind, sat bool) {
	f = f[:len(d)]
	switch dk {
	case kFloat:
		if sat && sizeOf[D]() == 4 {
			for i, x := range f {
				if !math.IsInf(x, 0) {
					x = max(-math.MaxFloat32, min(x, math.MaxFloat32))
				}
				d[i] = D(x)
			}
			return
		}
		for i, x := range f {
			d[i] = D(x)
		}
	case kHalf:
		limit := halfLimit[D]()
		for i, x := range f {
			if sat && !math.IsInf(x, 0) {
				x = max(-limit, min(x, limit))
			}
			d[i] = fromF32[D](float32(x))
		}
	default:
		lo, hiExcl := intRange[D](dk)
		mn, mx := intMinMax[D](dk)
		for i, x := range f {
			switch {
			case x != x:
				d[i] = 0
			case sat && x <= lo:
				d[i] = mn
			case sat && x >= hiExcl:
				d[i] = mx
			case x > -9.2e18 && x < 9.2e18:
				d[i] = D(int64(x))
			case math.IsInf(x, 0):
				d[i] = 0
			default:
				m := math.Mod(math.Trunc(x), 0x1p64)
				if m < 0 {
					m += 0x1p64
				}
				if m >= 0x1p64 {
					m = 0
				}
				d[i] = D(uint64(m))
			}
		}
	}
}

func narrowInt[D array.Elem](d []D, u []uint64, signed bool, dk kind, sat bool) {
	u = u[:len(d)]
	switch dk {
	case kFloat:
		for i, x := range u {
			if signed {
				d[i] = D(int64(x))
			} else {
				d[i] = D(x)
			}
		}
	case kHalf:
		limit := float32(math.Inf(1))
		if sat {
			limit = float32(halfLimit[D]())
		}
		for i, x := range u {
			v := float32(x)
			if signed {
				v = float32(int64(x))
			}
			d[i] = fromF32[D](max(-limit, min(v, limit)))
		}
	default:
		if !sat {
			for i, x := range u {
				d[i] = D(x)
			}
			return
		}
		bits := sizeOf[D]() * 8
		mn, mx := intMinMax[D](dk)
		for i, x := range u {
			switch {
			case signed && dk == kSigned:
				v := int64(x)
				lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
				d[i] = D(max(lo, min(v, hi)))
			case signed: // → unsigned
				v := int64(x)
				if v < 0 {
					d[i] = 0
				} else if bits < 64 && uint64(v) > uint64(1)<<bits-1 {
					d[i] = mx
				} else {
					d[i] = D(uint64(v))
				}
			case dk == kSigned: // unsigned → signed
				if x > uint64(1)<<(bits-1)-1 {
					d[i] = mx
				} else {
					d[i] = D(x)
				}
			default: // unsigned → unsigned
				if bits < 64 && x > uint64(1)<<bits-1 {
					d[i] = mx
				} else {
					d[i] = D(x)
				}
			}
		}
		_ = mn
	}
}

// halfLimit is the largest finite Float16 or BFloat16 (as D).
func halfLimit[D array.Elem]() float64 {
	var z D
	if _, bf := any(z).(array.BFloat16); bf {
		return float64(array.BFloat16(0x7f7f).Float32())
	}
	return 65504
}
