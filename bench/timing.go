package bench

import (
	"slices"
	"time"
)

// Timing summarises repeated measurements of one thing. The median is the
// figure to compare; P10/P90 show the spread without the outliers that Min
// and Max keep.
type Timing struct {
	N                          int
	Median, Min, Max, P10, P90 time.Duration
}

// Summarize returns the Timing of ds (which it sorts).
func Summarize(ds []time.Duration) Timing {
	if len(ds) == 0 {
		return Timing{}
	}
	slices.Sort(ds)
	return Timing{
		N: len(ds), Median: quantile(ds, 0.5), Min: ds[0], Max: ds[len(ds)-1],
		P10: quantile(ds, 0.1), P90: quantile(ds, 0.9),
	}
}

// quantile interpolates linearly between the sorted samples around q.
func quantile(sorted []time.Duration, q float64) time.Duration {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i] + time.Duration(f*float64(sorted[i+1]-sorted[i]))
}

// measure runs fn warmup times untimed, then reps times timed.
func measure(warmup, reps int, fn func() error) ([]time.Duration, error) {
	for range warmup {
		if err := fn(); err != nil {
			return nil, err
		}
	}
	ds := make([]time.Duration, reps)
	for i := range ds {
		t := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		ds[i] = time.Since(t)
	}
	return ds, nil
}

// gbps is bytes per nanosecond, which is GB/s (10⁹ bytes per second).
func gbps(bytes float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return bytes / float64(d.Nanoseconds())
}
