package main

import (
	"slices"
	"testing"
)

// TestStdSpread: the standard engine against itself with every initial
// weight one ulp away. Within 12 steps of the stock recipe at batch 64 one
// of four draws drifts past the 1e-4 that TestStockSolversMatchStdEngine
// holds sim and PoCL to (they sum in the standard engine's order): a ReLU
// input within rounding of zero takes the other branch. NVIDIA OpenCL's
// autotuned split-K meets the same flip (mlp -stock -std -std-spread 4).
func TestStdSpread(t *testing.T) {
	if testing.Short() {
		t.Skip("five runs of the standard engine")
	}
	cfg := Config{Sizes: []int{784, 1024, 1024, 10}, Batch: 64, Steps: 12, LearnRate: 0.05, Seed: 1, Stock: true}
	ls, ws, err := StdSpread(cfg, 1, 2, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("losses %.3g, weights %.3g", ls, ws)
	if slices.Max(ws) <= 1e-4 || slices.Min(ws) > 1e-6 {
		t.Errorf("weights %.3g: want one draw past 1e-4 and one within 1e-6", ws)
	}
}
