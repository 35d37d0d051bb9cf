package bench

import (
	"fmt"

	"github.com/resident-go/resident/array"
)

// expected returns what the first n stages' references make of the input
// pattern that every trial starts from, or nil when one of those stages has
// no reference. It is computed once per chain length, not once per trial;
// Run asks for increasing n, so each call continues from the last.
func (r *runner) expected(n int) []uint8 {
	for _, s := range r.cfg.Stages[:n] {
		if s.Ref == nil {
			return nil
		}
	}
	if r.want == nil || r.wantN > n {
		r.want, r.spare, r.wantN = make([]uint8, r.bytes), make([]uint8, r.bytes), 0
		pattern(r.want)
	}
	for ; r.wantN < n; r.wantN++ {
		r.cfg.Stages[r.wantN].Ref(r.spare, r.want)
		r.want, r.spare = r.spare, r.want
	}
	return r.want
}

// checkOutput compares the output of a chain of n stages with want; a nil
// want (a stage without a reference) checks nothing.
func checkOutput(out *array.Array[uint8], want []uint8, n int) error {
	if want == nil {
		return nil
	}
	v, err := out.HostReadOnly()
	if err != nil {
		return err
	}
	got := v.Data()
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("wrong output after %d stages: element %d is %d, want %d", n, i, got[i], want[i])
		}
	}
	return nil
}
