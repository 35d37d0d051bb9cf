package main

import (
	"testing"

	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/ops/engine"
)

func TestDbg2(t *testing.T) {
	cfg := Config{Sizes: []int{16, 8, 4}, Batch: 4, Steps: 3, LearnRate: 0.05, Seed: 1}
	dev, _ := opencl.Default()
	e := engine.New(dev)
	got, err := Train(cfg, e)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Train(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(got.Losses, want.Losses)
	t.Log(got.Weights[0][:6], want.Weights[0][:6], got.Weights[1][:6], want.Weights[1][:6], Weights(cfg, 1)[:6])
}
