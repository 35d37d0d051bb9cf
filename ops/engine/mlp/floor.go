package main

import (
	"reflect"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A register is one of the values gorgonia's tape machine allocates anew
// on every run: its code generator gives an alloc instruction to each
// register first written by an op that "calls an extern" (MatMul, Repeat,
// Slice in a build without cuda), and Reset drops them all, so each run
// makes them again with tensor.New on the Go heap, zeroed by Go's
// allocator. No engine sees that allocation.
type register struct {
	dt    tensor.Dtype
	shape tensor.Shape
}

// registers lists the machine's preallocated registers, one per register
// (LocMap maps nodes to registers; nodes may share one).
func (t *trainer) registers() []register {
	lm := reflect.ValueOf(t.vm).MethodByName("LocMap")
	if !lm.IsValid() {
		return nil
	}
	seen := map[any]bool{}
	var regs []register
	it := lm.Call(nil)[0].MapRange()
	for it.Next() {
		n := it.Key().Interface().(*gorgonia.Node)
		if n.Op() == nil || !n.Op().CallsExtern() || n.IsScalar() {
			continue
		}
		r := it.Value().Interface()
		if seen[r] {
			continue
		}
		seen[r] = true
		regs = append(regs, register{n.Dtype(), n.Shape().Clone()})
	}
	return regs
}

// allocFloor times, per step, what the machine's alloc instructions do
// every run — tensor.New of each register, the previous step's dropped —
// with no engine and no device: the part of a step that is gorgonia's
// own and that no engine can take away.
func allocFloor(regs []register, steps int) (times []time.Duration, bytes int64) {
	for _, r := range regs {
		bytes += int64(r.shape.TotalSize()) * int64(r.dt.Size())
	}
	keep := make([]*tensor.Dense, len(regs))
	for range steps {
		t0 := time.Now()
		for i, r := range regs {
			keep[i] = tensor.New(tensor.Of(r.dt), tensor.WithShape(r.shape...))
		}
		times = append(times, time.Since(t0))
	}
	return times, bytes
}
