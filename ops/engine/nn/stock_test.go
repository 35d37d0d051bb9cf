package nn

import (
	"testing"

	"github.com/resident-go/resident/internal/uffd"
	"github.com/resident-go/resident/ops/engine"
)

// TestGorgoniaConvOpsOnEngine documents gorgonia v0.9.18's own Conv2d
// and MaxPool2D on the engine (the doc's table): they compute on the host
// through Dense.Data(), which no engine sees.
//
//   - gorgonia.MaxPool2D after a device op (here Rectify): at the first
//     step Rectify's result is an op's result, whose dropped host copy a
//     read fills from the device, and the loss is right; from the second
//     the tape machine reuses its own registers (Go memory) and it reads
//     stale host memory: NaN, then gorgonia's backward indexes by -1 and
//     panics. Fix: nn.MaxPool2D.
//   - gorgonia.Conv2d on the network's input (host-current: written
//     through engine.Host) is right, but its im2col runs on the host and
//     its result is uploaded every step (the im2col matrix, 18 KB here).
//   - gorgonia.Conv2d after a device op (x+x, an op's result, whose
//     dropped host copy its im2col's read fills from the device) is right,
//     with the im2col matrix uploaded each step; nn.Conv2d keeps it all on
//     the device (the next case).
//   - gorgonia.BatchNorm after a device op (the convolution) reads stale
//     host memory: silently wrong (NaN loss). Fix: nn.BatchNorm
//     (TestConvNetMatchesStdEngine).
func TestGorgoniaConvOpsOnEngine(t *testing.T) {
	const colBytes = nBatch * nSide * nSide * nChan * 3 * 3 * 4
	cases := []struct {
		name  string
		cfg   netCfg
		right bool
		steps int // compared (gorgonia panics after)
	}{
		{"gorgonia.MaxPool2D", netCfg{stockPool: true}, true, 100},
		{"gorgonia.Conv2d on the input", netCfg{stockConv: true}, true, 3},
		{"gorgonia.Conv2d after a device op", netCfg{stockConv: true, deep: true}, true, 3},
		{"nn.Conv2d after a device op", netCfg{deep: true}, true, 3},
		{"gorgonia.BatchNorm", netCfg{bn: true}, true, 100},
	}
	for name, mk := range netDevices(t) {
		t.Run(name, func(t *testing.T) {
			dev, err := mk()
			if err != nil {
				t.Skip(err)
			}
			e := engine.New(dev)
			defer e.Close()
			for _, c := range cases {
				ref := newNetOf(t, nil, netCfg{stockConv: true, stockPool: true, deep: c.cfg.deep, bn: c.cfg.bn}, 1)
				got := newNetOf(t, e, c.cfg, 1)
				for s := range c.steps {
					wl, err := ref.step()
					if err != nil {
						t.Fatal(err)
					}
					before := dev.Stats()
					l, err := got.step()
					if err != nil {
						t.Fatalf("%s step %d: %v (the table says it runs)", c.name, s, err)
					}
					moved := dev.Stats().Sub(before)
					if c.right != relNear(l, wl) {
						t.Fatalf("%s step %d: loss %v, standard engine %v; want right=%v", c.name, s, l, wl, c.right)
					}
					if c.right && c.cfg.stockConv && s > 0 && uffd.Available() && (moved.H2DCalls != 2 || moved.H2DBytes != 16+colBytes) {
						t.Fatalf("%s step %d: %d uploads (%d B), want the seed and the im2col matrix (%d B)", c.name, s, moved.H2DCalls, moved.H2DBytes, 16+colBytes)
					}
					if s == 2 {
						t.Logf("%s, step %d: loss %v, standard engine %v; moved %d up (%d B)", c.name, s, l, wl, moved.H2DCalls, moved.H2DBytes)
					}
				}
				ref.vm.Close()
				got.vm.Close()
			}
		})
	}
}
