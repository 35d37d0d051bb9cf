package capture_test

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/capture"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/opencl"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// benchDevices are CUDA and OpenCL where they open, and a computing sim.
func benchDevices(b *testing.B) []device.Device {
	var ds []device.Device
	if d, err := cuda.Open(cuda.Options{}); err == nil {
		ds = append(ds, d)
	}
	if d, err := opencl.Open(opencl.Options{}); err == nil {
		ds = append(ds, d)
	}
	ds = append(ds, sim.NewCompute("bench", 0))
	b.Cleanup(func() {
		for _, d := range ds {
			d.Close()
		}
	})
	return ds
}

// BenchmarkReplay compares eager runs with replays of the same work,
// each followed by a sync: a chain of tiny ops (1, 4 stages on 256
// float32) and a chain of 8 elementwise ops on a 4096² image (uint8,
// float32; SetBytes: the image once per chain).
//
//	go test -run '^$' -bench Replay ./device/capture
func BenchmarkReplay(b *testing.B) {
	for _, d := range benchDevices(b) {
		b.Run(d.Name(), func(b *testing.B) {
			for _, stages := range []int{1, 4} {
				b.Run(fmt.Sprintf("tiny-%d", stages), func(b *testing.B) { benchChain[float32](b, d, stages, 256) })
			}
			b.Run("chain8-uint8-4096²", func(b *testing.B) { benchChain[uint8](b, d, 8, 4096) })
			b.Run("chain8-float32-4096²", func(b *testing.B) { benchChain[float32](b, d, 8, 4096) })
		})
	}
}

func benchChain[T array.Elem](b *testing.B, d device.Device, stages, n int) {
	var x, y *array.Array[T]
	if n == 256 {
		x, y = array.New[T](n), array.New[T](n)
	} else {
		x, y = array.New[T](n, n), array.New[T](n, n)
	}
	defer x.Close()
	defer y.Close()
	if err := ops.On(d, x, y); err != nil {
		b.Fatal(err)
	}
	chain := func() error {
		src := x
		for i := range stages {
			dst := y
			if i%2 == 1 {
				dst = x
			}
			if err := ops.BinaryScalar(dst, src, T(1), ops.OpAdd); err != nil {
				return err
			}
			src = dst
		}
		return nil
	}
	if err := chain(); err != nil { // programs built, memory placed
		b.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		b.Fatal(err)
	}
	b.Run("eager", func(b *testing.B) {
		b.SetBytes(int64(x.Len()) * int64(x.Type().Bytes()))
		b.ReportAllocs()
		for b.Loop() {
			if err := chain(); err != nil {
				b.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
	g, err := capture.Record(d, chain)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	b.Run("replay", func(b *testing.B) {
		b.SetBytes(int64(x.Len()) * int64(x.Type().Bytes()))
		b.ReportAllocs()
		for b.Loop() {
			if err := g.Replay(); err != nil {
				b.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
