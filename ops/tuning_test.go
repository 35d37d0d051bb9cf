package ops

import "github.com/resident-go/resident/device"

// setGemm sets d's Tuning.Gemm to g, keeping its Reduce.
func setGemm(d device.Device, g gemmTuning) {
	t := TuningOf(d)
	t.Gemm = g
	SetTuning(d, t)
}

// setReduce sets d's Tuning.Reduce to r, keeping its Gemm.
func setReduce(d device.Device, r reduceTuning) {
	t := TuningOf(d)
	t.Reduce = r
	SetTuning(d, t)
}
