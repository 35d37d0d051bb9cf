package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/resident-go/resident/internal/draw"
	"github.com/resident-go/resident/ops/engine"
)

// TestConcurrentCallsSettle: goroutines run ops on one engine at once,
// each on its own Dense of a drawn kind (Alloc's memory, adopted Go
// memory) and size, so calls overlap and the blocks are settled only when
// the last one leaves (doc.go: "while goroutines keep calls running at
// once"). Every op ran on the device (one launch each; one upload per
// Dense, its first use; without userfaultfd, each Dense came home at
// least once). Once every call has returned, each Dense's Data() holds
// the model's values with no engine call, with or without userfaultfd
// (make test-unprivileged), and a write through Data() reaches the next
// op.
func TestConcurrentCallsSettle(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 43))
	e, dev := simEngine(t)
	for round := range 4 {
		type lane struct {
			d     *tensor.Dense
			model []float32
			ks    []float32
			what  string
		}
		lanes := make([]*lane, 2+r.IntN(6))
		for i := range lanes {
			l := &lane{}
			l.d, l.model, l.what = drawDense(r, e)
			for range 5 + r.IntN(30) {
				l.ks = append(l.ks, float32(1+r.IntN(4)))
			}
			lanes[i] = l
		}
		var wg sync.WaitGroup
		errs := make([]error, len(lanes))
		st, w0, ops := dev.Stats(), e.HostWork(), 0
		for _, l := range lanes {
			ops += len(l.ks)
		}
		for i, l := range lanes {
			wg.Go(func() {
				for _, k := range l.ks {
					if _, err := e.AddScalar(l.d, k, true, tensor.UseUnsafe()); err != nil {
						errs[i] = err
						return
					}
				}
			})
		}
		wg.Wait()
		m, homed := dev.Stats().Sub(st), e.HostWork().Sub(w0).Homed
		if m.Launches != int64(ops) || m.H2DCalls != int64(len(lanes)) || !resident() && homed < int64(len(lanes)) {
			t.Fatalf("round %d: %d ops on %d Denses moved %v, %d homed; want a launch each, one upload a Dense, and without userfaultfd a copy home of each", round, ops, len(lanes), m, homed)
		}
		for i, l := range lanes {
			if errs[i] != nil {
				t.Fatalf("round %d, %s: %v", round, l.what, errs[i])
			}
			for _, k := range l.ks {
				for j := range l.model {
					l.model[j] += k
				}
			}
			if got := slices.Clone(l.d.Data().([]float32)); !slices.Equal(got, l.model) { // no engine call
				t.Fatalf("round %d, %s: Data() after the calls reads stale values", round, l.what)
			}
			j := r.IntN(len(l.model))
			l.d.Data().([]float32)[j] = 99
			l.model[j] = 99
		}
		for _, l := range lanes {
			if _, err := e.AddScalar(l.d, float32(1), true, tensor.UseUnsafe()); err != nil {
				t.Fatalf("round %d, %s: %v", round, l.what, err)
			}
			for j := range l.model {
				l.model[j]++
			}
			if got := hostVals[float32](t, l.d); !slices.Equal(got, l.model) {
				t.Fatalf("round %d, %s: the write through Data() was lost", round, l.what)
			}
		}
	}
}

// TestReadsWhileACallRuns: one goroutine's call stays under way (a Map of
// a Go function, which runs on the host, blocked until the others end)
// while goroutines run ops on their own Denses of drawn kinds and sizes.
// After each op returns, its goroutine reads the result through Data()
// with no engine call and sees the model's values, and a write through
// Data() to a drawn element reaches the next op: a call's blocks are
// settled when the calls that used them have returned, not only when no
// call is under way. Every op ran on the device (one launch each, one
// upload per Dense: its first use); without userfaultfd each op's result
// came home once.
func TestReadsWhileACallRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(draw.Seed(t), 44))
	e, dev := simEngine(t)
	for round := range 4 {
		started, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		blocker := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(2), tensor.WithEngine(e))
		blocked := make(chan error, 1)
		go func() {
			_, err := blocker.Apply(func(v float32) float32 {
				once.Do(func() { close(started); <-release })
				return v + 1
			})
			blocked <- err
		}()
		<-started
		type lane struct {
			d     *tensor.Dense
			model []float32
			steps int
			homes bool // each op's result comes home
			wrote int  // writes through Data() an op used
			what  string
		}
		lanes := make([]*lane, 1+r.IntN(4))
		ops := 0
		for i := range lanes {
			l := &lane{steps: 3 + r.IntN(12)}
			l.d, l.model, l.what = drawDense(r, e)
			// Go memory that is not whole pages comes home even with
			// userfaultfd: its host copy cannot be let go (doc.go).
			p, size := l.d.Uintptr(), uintptr(len(l.model)*4)
			l.homes = !resident() || strings.HasPrefix(l.what, "adopted") && (p%4096 != 0 || size%4096 != 0)
			ops += l.steps
			lanes[i] = l
		}
		st, w0 := dev.Stats(), e.HostWork()
		errs := make([]error, len(lanes))
		var wg sync.WaitGroup
		for i, l := range lanes {
			seed := r.Uint64()
			wg.Go(func() {
				r := rand.New(rand.NewPCG(seed, 45))
				for step := range l.steps {
					k := float32(1 + r.IntN(4))
					if _, err := e.AddScalar(l.d, k, true, tensor.UseUnsafe()); err != nil {
						errs[i] = err
						return
					}
					for j := range l.model {
						l.model[j] += k
					}
					if got := l.d.Data().([]float32); !slices.Equal(got, l.model) { // no engine call
						bad := 0
						for bad < len(got) && got[bad] == l.model[bad] {
							bad++
						}
						errs[i] = fmt.Errorf("step %d: Data() read stale values while another call was under way: [%d] = %v, want %v", step, bad, got[bad], l.model[bad])
						return
					}
					if r.IntN(2) == 0 {
						j := r.IntN(len(l.model))
						l.d.Data().([]float32)[j] = -0.5 // no value the adds give
						l.model[j] = -0.5
						if step < l.steps-1 {
							l.wrote++
						}
					}
				}
			})
		}
		wg.Wait()
		m, homed := dev.Stats().Sub(st), e.HostWork().Sub(w0).Homed
		close(release)
		if err := <-blocked; err != nil {
			t.Fatalf("round %d: the blocked Map: %v", round, err)
		}
		for i, l := range lanes {
			if errs[i] != nil {
				t.Fatalf("round %d, %s: %v", round, l.what, errs[i])
			}
			if got := hostVals[float32](t, l.d); !slices.Equal(got, l.model) {
				t.Fatalf("round %d, %s: a write through Data() was lost", round, l.what)
			}
		}
		wantHomed, wantUp := int64(0), int64(len(lanes))
		for _, l := range lanes {
			if l.homes {
				wantHomed += int64(l.steps)
			}
			wantUp += int64(l.wrote)
		}
		if m.Launches != int64(ops) || homed != wantHomed || m.H2DCalls != wantUp {
			var whats []string
			for _, l := range lanes {
				whats = append(whats, l.what)
			}
			t.Fatalf("round %d: %d ops on %v moved %v, %d homed; want a launch each, %d copies home and %d uploads (a first use or a write each)", round, ops, whats, m, homed, wantHomed, wantUp)
		}
	}
}

// drawDense is a float32 Dense of e of a drawn kind (Alloc's memory, or
// adopted Go memory) and size (2 to 100 elements, as a one-element Dense
// runs on the host as a scalar, or past 16 KiB), its drawn values, and
// what it is.
func drawDense(r *rand.Rand, e *engine.Engine) (*tensor.Dense, []float32, string) {
	n := 2 + r.IntN(99)
	if r.IntN(2) == 0 {
		n = 1<<12 + r.IntN(1<<15)
	}
	model := make([]float32, n)
	for j := range model {
		model[j] = float32(r.IntN(20))
	}
	if r.IntN(2) == 0 {
		d := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(n), tensor.WithEngine(e))
		copy(d.Data().([]float32), model)
		return d, model, fmt.Sprintf("Alloc's %d floats", n)
	}
	d := tensor.New(tensor.WithBacking(slices.Clone(model)), tensor.WithShape(n))
	tensor.WithEngine(e)(d)
	return d, model, fmt.Sprintf("adopted %d floats", n)
}
