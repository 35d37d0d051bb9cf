// Package checked is overflow-checked int arithmetic for layout and Region
// math, shared by array and device.
package checked

// MaxInt is the largest int.
const MaxInt = int(^uint(0) >> 1)

// MinInt is the smallest int.
const MinInt = -MaxInt - 1

// Mul is a·b for a, b ≥ 0, and false when it overflows.
func Mul(a, b int) (int, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > MaxInt/b {
		return 0, false
	}
	return a * b, true
}

// Add is a+b, and false when it overflows.
func Add(a, b int) (int, bool) {
	if (b > 0 && a > MaxInt-b) || (b < 0 && a < MinInt-b) {
		return 0, false
	}
	return a + b, true
}
