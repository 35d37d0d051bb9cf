package checked

import "testing"

func TestOverflow(t *testing.T) {
	for _, c := range []struct {
		a, b int
		mul  bool
		add  bool
	}{
		{0, MaxInt, true, true},
		{2, MaxInt / 2, true, true},
		{2, MaxInt/2 + 1, false, true},
		{MaxInt, 1, true, false},
		{MinInt, -1, true, false},
		{MinInt, 1, false, true},
		{1 << 31, 1 << 31, true, true},
		{1 << 32, 1 << 31, false, true},
	} {
		if _, ok := Add(c.a, c.b); ok != c.add {
			t.Errorf("Add(%d, %d) ok = %v", c.a, c.b, ok)
		}
		if c.a < 0 || c.b < 0 {
			continue
		}
		if _, ok := Mul(c.a, c.b); ok != c.mul {
			t.Errorf("Mul(%d, %d) ok = %v", c.a, c.b, ok)
		}
	}
}
