package bench

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		in   []time.Duration
		want Timing
	}{
		{nil, Timing{}},
		{[]time.Duration{5 * ms}, Timing{N: 1, Median: 5 * ms, Min: 5 * ms, Max: 5 * ms, P10: 5 * ms, P90: 5 * ms}},
		{[]time.Duration{3 * ms, 1 * ms, 2 * ms}, Timing{N: 3, Median: 2 * ms, Min: ms, Max: 3 * ms, P10: 1200 * time.Microsecond, P90: 2800 * time.Microsecond}},
		{[]time.Duration{4 * ms, 1 * ms, 3 * ms, 2 * ms}, Timing{N: 4, Median: 2500 * time.Microsecond, Min: ms, Max: 4 * ms, P10: 1300 * time.Microsecond, P90: 3700 * time.Microsecond}},
	} {
		if got := Summarize(c.in); got != c.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
