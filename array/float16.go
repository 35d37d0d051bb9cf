package array

import "math"

// Float16 is an IEEE 754 binary16 value, stored as its bits.
type Float16 uint16

// BFloat16 is a bfloat16 value (the top half of a float32), stored as its bits.
type BFloat16 uint16

// F16 converts f to Float16, rounding to nearest even; NaN stays NaN and
// values beyond the range become ±Inf.
func F16(f float32) Float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if man != 0 {
			return Float16(sign | 0x7e00 | uint16(man>>13))
		}
		return Float16(sign | 0x7c00)
	case exp-127 > 15:
		return Float16(sign | 0x7c00)
	case exp-127 >= -14: // normal in half
		h := uint32(exp-127+15)<<10 | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, up to Inf: still correct
		}
		return Float16(sign | uint16(h))
	case exp-127 >= -25: // subnormal in half
		m := man | 0x800000
		shift := uint(-14-(exp-127)) + 13
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && h&1 == 1) {
			h++
		}
		return Float16(sign | uint16(h))
	default:
		return Float16(sign)
	}
}

// Float32 converts h exactly.
func (h Float16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(man) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// BF16 converts f to BFloat16, rounding to nearest even; NaN stays NaN.
func BF16(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return BFloat16(b>>16 | 0x40) // keep it a quiet NaN
	}
	b += 0x7fff + (b>>16)&1
	return BFloat16(b >> 16)
}

// Float32 converts b exactly.
func (b BFloat16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }
