package main

import (
	"testing"

	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

// Device memory stays flat over the steps (garbage collected after each):
// the machine drops its registers and results every run, and the engine
// reclaims what it made for them (the adopted registers' device copies,
// its own result Denses) once they are collected.
func TestLiveMemory(t *testing.T) {
	dev, err := opencl.Default()
	if err != nil {
		t.Skip(err)
	}
	e := engine.New(dev)
	defer e.Close()
	got, err := Train(Config{Sizes: []int{64, 32, 32, 10}, Batch: 16, Steps: 6, LearnRate: 0.05, Seed: 1, trackLive: true}, e)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("live allocations, bytes after each step: %v", got.Live)
	if first, last := got.Live[1], got.Live[len(got.Live)-1]; last[0] > first[0] || last[1] > first[1] {
		t.Fatalf("device memory grew from %v after step 2 to %v after step %d", first, last, len(got.Live))
	}
}
