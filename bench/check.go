package bench

import "fmt"

// expected returns what the first n stages' references make of the input
// pattern that every trial starts from, in float64, or nil when one of
// those stages has no reference. It is computed once per chain length, not
// once per trial; Run asks for increasing n, so each call continues from
// the last.
func (r *runner) expected(n int) []float64 {
	for _, s := range r.cfg.Stages[:n] {
		if s.Ref == nil {
			return nil
		}
	}
	if r.want == nil || r.wantN > n {
		img := make([]uint8, r.bytes)
		pattern(img)
		r.want, r.spare, r.wantN = make([]float64, r.bytes), make([]float64, r.bytes), 0
		for i, x := range img {
			r.want[i] = float64(x)
		}
	}
	// want and spare share no memory and each has the image's capacity;
	// a stage's output (a scalar, say) may be shorter than its input.
	for ; r.wantN < n; r.wantN++ {
		s := r.cfg.Stages[r.wantN]
		dst := r.spare[:s.Out.len(r.cfg.Width, r.cfg.Height)]
		s.Ref(dst, r.want)
		r.want, r.spare = dst, r.want[:cap(r.want)]
	}
	return r.want
}

// checkOutput compares the output of a chain of n stages with want, within
// the last stage's tolerance tol; a nil want (a stage without a reference)
// checks nothing.
func checkOutput(out buffer, want []float64, tol float64, n int) error {
	if want == nil {
		return nil
	}
	if err := out.check(want, tol); err != nil {
		return fmt.Errorf("wrong output after %d stages: %w", n, err)
	}
	return nil
}
