package ops

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
)

// TestReduceTuning: SetReduceTuning changes how reductions run on one
// device only (two launches under TwoPass, the work-group and unroll
// asked for) and not their value, ReduceTuningOf reads it back, the zero
// value restores the defaults, a device without ops' kernels ignores it,
// and a field out of range panics naming the ranges.
func TestReduceTuning(t *testing.T) {
	testDev(t)
	d, err := opencl.Open(opencl.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer d.Close()
	const n = 1 << 16
	a := array.New[int32](n)
	defer a.Close()
	h, err := a.Host()
	must(t, err)
	want := int32(0)
	for i := range n {
		h.Set(int32(i%7), i)
		want += int32(i % 7)
	}
	must(t, On(d, a))
	s := stateOf(d)
	sum := func(what string, launches int64) {
		t.Helper()
		before := d.Stats()
		got, err := Value(Sum, a)
		must(t, err)
		if got != want {
			t.Errorf("%s: SumAll = %d, want %d", what, got, want)
		}
		if l := d.Stats().Sub(before).Launches; launches > 0 && l != launches {
			t.Errorf("%s: %d launches, want %d", what, l, launches)
		}
	}
	sum("default", 0) // builds; the counters' first clear
	if TuningOf(d).Reduce != (reduceTuning{}) {
		t.Errorf("ReduceTuningOf a fresh device = %+v, want the zero value", TuningOf(d).Reduce)
	}
	one := s.onePass()
	tw := reduceTuning{TwoPass: true, GroupsPerUnit: 2, WorkGroup: 64, Unroll: 2}
	setReduce(d, tw)
	if got := TuningOf(d).Reduce; got != tw {
		t.Errorf("ReduceTuningOf = %+v, want %+v", got, tw)
	}
	if s.onePass() || s.redUnroll() != 2 || s.redGroups() != 2 || (s.maxGroup >= 64 && s.redWG() != 64) {
		t.Errorf("under %+v: one-pass %v, unroll %d, groups %d, wg %d", tw, s.onePass(), s.redUnroll(), s.redGroups(), s.redWG())
	}
	sum("two passes", 2)
	if other := stateOf(testDev(t)); other.redUnroll() != redUnrollDefault() || !other.onePass() && other.fenceErr == nil {
		t.Errorf("the shared device's tuning changed too: unroll %d, one-pass %v", other.redUnroll(), other.onePass())
	}
	setReduce(d, reduceTuning{})
	if s.onePass() != one || s.redUnroll() != redUnrollDefault() {
		t.Errorf("the zero value: one-pass %v, unroll %d, want %v, %d", s.onePass(), s.redUnroll(), one, redUnrollDefault())
	}
	sum("default again", 0)
	sd := sim.NewCompute("tune", 0)
	defer sd.Close()
	setReduce(sd, tw)
	if TuningOf(sd).Reduce != (reduceTuning{}) {
		t.Errorf("a device without ops' kernels kept %+v", TuningOf(sd).Reduce)
	}
	func() {
		defer func() {
			err, _ := recover().(error)
			if !errors.Is(err, device.ErrOutOfRange) {
				t.Errorf("Unroll 9: recovered %v, want a panic wrapping device.ErrOutOfRange", err)
			}
		}()
		setReduce(d, reduceTuning{Unroll: 9})
	}()
}

// redUnrollDefault is the unroll of a device with the zero tuning.
func redUnrollDefault() int {
	u := 1
	for u*2 <= reduceUnroll && u < 8 {
		u *= 2
	}
	return u
}
