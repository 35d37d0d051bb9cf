package array

import (
	"fmt"
	"testing"

	"github.com/resident-go/resident/device/sim"
)

var sizes = []int{1 << 10, 1 << 16, 1 << 20, 1 << 24}

func BenchmarkAt(b *testing.B) {
	a := New[float32](1024, 1024)
	h, _ := a.Host()
	b.ReportAllocs()
	b.SetBytes(4)
	var s float32
	for i := 0; b.Loop(); i++ {
		s += h.At(i&1023, (i>>10)&1023)
	}
	_ = s
}

func BenchmarkSet(b *testing.B) {
	a := New[float32](1024, 1024)
	h, _ := a.Host()
	b.ReportAllocs()
	b.SetBytes(4)
	for i := 0; b.Loop(); i++ {
		h.Set(1, i&1023, (i>>10)&1023)
	}
}

// BenchmarkHostView times taking host views that copy nothing, of an
// Array with no device copy and of one with a clean device copy, and
// DeviceDirty: the fast checks every host access makes first.
func BenchmarkHostView(b *testing.B) {
	for _, dev := range []bool{false, true} {
		a := New[float32](256, 256)
		if dev {
			if err := a.CopyToDevice(sim.New("bench", 0)); err != nil {
				b.Fatal(err)
			}
		}
		c := a.Crop(1, 8, 8)
		b.Run(fmt.Sprintf("HostReadOnly/device=%v", dev), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.HostReadOnly(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Host/device=%v", dev), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Host(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("DeviceDirty/device=%v", dev), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c.DeviceDirty() {
					b.Fatal("dirty")
				}
			}
		})
		a.Close()
	}
}

// BenchmarkCopyDense compares CopyFrom of dense Arrays with Go's copy of
// the same bytes, in the same run.
func BenchmarkCopyDense(b *testing.B) {
	for _, n := range sizes {
		src, dst := New[float32](n), New[float32](n)
		hs, _ := src.HostReadOnly()
		hd, _ := dst.Host()
		hd.CopyFrom(hs) // touch the pages before timing
		b.Run(fmt.Sprintf("CopyFrom/%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			b.ReportAllocs()
			for b.Loop() {
				hd.CopyFrom(hs)
			}
		})
		b.Run(fmt.Sprintf("copy/%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			b.ReportAllocs()
			x, y := hd.Data(), hs.Data()
			for b.Loop() {
				copy(x, y)
			}
		})
	}
}

// BenchmarkCopyStrided copies a transposed square (element by element) and
// a crop (row by row).
func BenchmarkCopyStrided(b *testing.B) {
	for _, n := range []int{64, 512, 2048} {
		src := New[float32](n, n)
		hs, _ := src.Transpose(0, 1).HostReadOnly()
		dst := New[float32](n, n)
		hd, _ := dst.Host()
		b.Run(fmt.Sprintf("transpose/%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n * n))
			b.ReportAllocs()
			for b.Loop() {
				hd.CopyFrom(hs)
			}
		})
		big := New[float32](2*n, n)
		hc, _ := big.Crop(0, n/2, n).HostReadOnly()
		b.Run(fmt.Sprintf("crop/%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n * n))
			b.ReportAllocs()
			for b.Loop() {
				hd.CopyFrom(hc)
			}
		})
	}
}

var sink *Array[float32]

func BenchmarkView(b *testing.B) {
	a := New[float32](64, 64, 3)
	b.Run("Crop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := a.Crop(0, 8, 16)
			if v.Rank() != 3 {
				b.Fatal()
			}
		}
	})
	b.Run("CropCrop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v := a.Crop(0, 8, 16).Crop(1, 1, 2); v.Len() == 0 {
				b.Fatal()
			}
		}
	})
	b.Run("Transpose", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v := a.Transpose(0, 2); v.Rank() != 3 {
				b.Fatal()
			}
		}
	})
	b.Run("Slice", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v := a.Slice(2, 1); v.Rank() != 2 {
				b.Fatal()
			}
		}
	})
	b.Run("CropEscaping", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = a.Crop(0, 8, 16)
		}
	})
}

// BenchmarkCompact: the copy of an interleaved RGBA image in its own
// order (KeepOrder: one memmove) and planar (COrder: a transposing copy).
//
//	go test -run '^$' -bench Compact ./array
func BenchmarkCompact(b *testing.B) {
	img := NewInterleaved[uint8](1024, 768, 4)
	for _, o := range []Order{KeepOrder, COrder} {
		b.Run(o.String(), func(b *testing.B) {
			b.SetBytes(int64(2 * img.Len()))
			b.ReportAllocs()
			for b.Loop() {
				c, err := img.Compact(o)
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}
