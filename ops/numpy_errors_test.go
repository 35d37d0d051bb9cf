package ops_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/ops"
)

// npShape is shape (NumPy's order) as NumPy prints it: (2, 3), (3,), ().
func npShape(shape []int) string {
	s := make([]string, len(shape))
	for i, e := range shape {
		s[i] = fmt.Sprint(e)
	}
	if len(s) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// failure is what a call did with bad shapes: its panic's or its error's
// value.
func failure(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(error)
			if err == nil {
				err = fmt.Errorf("a panic with a %T: %v", r, r)
			}
		}
	}()
	return f()
}

// drawShape is a NumPy shape of rank lo…hi with extents 2…5.
func drawShape(r *rand.Rand, lo, hi int) []int {
	s := make([]int, lo+r.IntN(hi-lo+1))
	for i := range s {
		s[i] = 2 + r.IntN(4)
	}
	return s
}

// spoil returns s with one axis's extent changed to another ≥ 2 (so it
// neither matches nor broadcasts), and that axis.
func spoil(r *rand.Rand, s []int) ([]int, int) {
	out := slices.Clone(s)
	k := r.IntN(len(s))
	out[k] = s[k] + 1 + r.IntN(3)
	return out, k
}

func zeros(shape []int) *array.Array[float32] { return array.Zeros[float32](shape...) }

// TestNumPyOrderErrors is generated: for each NumPy-order function of ops
// (the allocating forms and the copying shape operations) it draws shapes
// that do not fit and checks what the call says: an error (or panic)
// wrapping array.ErrShape whose message prints every operand's shape as
// NumPy does, (rows, cols), outermost first, never in the library's order
// (dimension 0 first), and names no dst, which these calls do not take.
func TestNumPyOrderErrors(t *testing.T) {
	type draw struct {
		call   func() error
		shapes [][]int // the operands', NumPy's order
	}
	gens := map[string]func(r *rand.Rand) draw{
		"New2": func(r *rand.Rand) draw {
			a := drawShape(r, 1, 3)
			b, _ := spoil(r, a)
			return draw{func() error { _, err := ops.New2Op(ops.Binary, zeros(a), zeros(b), ops.OpAdd); return err }, [][]int{a, b}}
		},
		"New2Op": func(r *rand.Rand) draw {
			a := drawShape(r, 1, 3)
			b, _ := spoil(r, a)
			b = append(drawShape(r, 0, 1), b...) // ranks may differ
			return draw{func() error {
				_, err := ops.New2Op(ops.Compare, zeros(a), zeros(b), ops.LT)
				return err
			}, [][]int{a, b}}
		},
		"NewWhere": func(r *rand.Rand) draw {
			a := drawShape(r, 1, 3)
			b, _ := spoil(r, a)
			c := array.Zeros[uint8](a...)
			return draw{func() error { _, err := ops.NewWhere(c, zeros(a), zeros(b)); return err }, [][]int{a, a, b}}
		},
		"NewMatMul/inner": func(r *rand.Rand) draw {
			m, k, n := 2+r.IntN(4), 2+r.IntN(4), 2+r.IntN(4)
			a, b := []int{m, k}, []int{k + 1 + r.IntN(3), n}
			if r.IntN(2) == 0 {
				a = append([]int{2 + r.IntN(3)}, a...)
			}
			return draw{func() error { _, err := ops.NewMatMul(zeros(a), zeros(b)); return err }, [][]int{a, b}}
		},
		"NewMatMul/batch": func(r *rand.Rand) draw {
			m, k, n, nb := 2+r.IntN(4), 2+r.IntN(4), 2+r.IntN(4), 2+r.IntN(3)
			a, b := []int{nb, m, k}, []int{nb + 1 + r.IntN(2), k, n}
			return draw{func() error { _, err := ops.NewMatMul(zeros(a), zeros(b)); return err }, [][]int{a, b}}
		},
		"NewMatMul/rank": func(r *rand.Rand) draw {
			a, b := drawShape(r, 4, 4), drawShape(r, 2, 2)
			if r.IntN(2) == 0 {
				a, b = b, drawShape(r, 1, 1)
			}
			return draw{func() error { _, err := ops.NewMatMul(zeros(a), zeros(b)); return err }, [][]int{a, b}}
		},
		"NewReduce/empty": func(r *rand.Rand) draw {
			a := drawShape(r, 2, 3)
			ax := r.IntN(len(a))
			a[ax] = 0
			return draw{func() error {
				_, err := ops.NewReduce(ops.ArgMax[float32], zeros(a), array.Axis(ax))
				return err
			}, [][]int{a}}
		},
		"Concatenate": func(r *rand.Rand) draw {
			a := drawShape(r, 2, 3)
			ax := r.IntN(len(a))
			b, k := spoil(r, a)
			if k == ax {
				ax = (ax + 1) % len(a)
			}
			return draw{func() error { _, err := ops.Concatenate(array.Axis(ax), zeros(a), zeros(b)); return err }, [][]int{a, b}}
		},
		"Stack": func(r *rand.Rand) draw {
			a := drawShape(r, 1, 3)
			b, _ := spoil(r, a)
			return draw{func() error { _, err := ops.Stack(0, zeros(a), zeros(b)); return err }, [][]int{a, b}}
		},
		"BroadcastTo": func(r *rand.Rand) draw {
			a := drawShape(r, 1, 3)
			to, _ := spoil(r, a)
			return draw{func() error { _, err := ops.BroadcastTo(zeros(a), to...); return err }, [][]int{a, to}}
		},
		"Reshape": func(r *rand.Rand) draw {
			a := drawShape(r, 1, 3)
			to, _ := spoil(r, a)
			return draw{func() error { _, err := ops.Reshape(zeros(a), to...); return err }, [][]int{a, to}}
		},
	}
	for name, gen := range gens {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(name))))
			for range 50 {
				d := gen(r)
				err := failure(d.call)
				if !errors.Is(err, array.ErrShape) {
					t.Fatalf("shapes %v: %v, want an error wrapping array.ErrShape", d.shapes, err)
				}
				msg := err.Error()
				for _, s := range d.shapes {
					if !strings.Contains(msg, npShape(s)) {
						t.Fatalf("%q does not print shape %s as NumPy does", msg, npShape(s))
					}
					rev := slices.Clone(s)
					slices.Reverse(rev)
					isOperand := slices.ContainsFunc(d.shapes, func(x []int) bool { return slices.Equal(x, rev) })
					if !isOperand && (strings.Contains(msg, fmt.Sprint(rev)) || strings.Contains(msg, npShape(rev))) {
						t.Fatalf("%q prints shape %s in the library's order, %v", msg, npShape(s), rev)
					}
				}
				if strings.Contains(msg, "dst") || strings.Contains(msg, "destination") {
					t.Fatalf("%q names a dst the call does not take", msg)
				}
			}
		})
	}
}

// TestArangeNegative: np.arange(n) of n ≤ 0 is empty, and so is Arange's
// (it panicked with a message about "dimension 0", in the library's words).
func TestArangeNegative(t *testing.T) {
	for _, n := range []int{0, -1, -3, math.MinInt} {
		a, err := ops.Arange[int32](n)
		if err != nil || !slices.Equal(a.Shape(), []int{0}) {
			t.Fatalf("Arange(%d): %v, %v; want shape (0,)", n, a, err)
		}
		a.Close()
	}
}
