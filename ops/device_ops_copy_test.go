package ops

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/cuda"
	"github.com/resident-go/resident/device/cuda/cudatest"
)

// TestCopyDeviceDriverMock runs TestCopyDeviceDriver against the CUDA
// mock in a child process, which makes driver copies and refuses ops'
// copy kernel: that tells the two paths apart.
func TestCopyDeviceDriverMock(t *testing.T) {
	cudatest.InMock(t, true, []string{"TestCopyDeviceDriver"}, nil)
}

// contiguous is the model of a copy the driver can make: the elements of
// every dimension longer than one follow each other in dimension order.
func contiguous(a *array.Array[int32]) bool {
	want := 1
	for _, d := range a.Dims() {
		if d.Extent == 1 {
			continue
		}
		if d.Stride != want {
			return false
		}
		want *= d.Extent
	}
	return true
}

// A device Copy between two contiguous layouts is the driver's buffer
// copy, anything else the copy kernel, one launch either way; drawn
// shapes (one element among them, in any rank), crops along any
// dimension and transposes, on the OpenCL device and the CUDA one where
// it has kernels: the result equals the source and is newest on the
// device. On the CUDA mock (TestCopyDeviceDriverMock), which makes
// driver copies but knows no macro-made kernel, the contiguous layouts
// must copy and the others must reach for the copy kernel.
func TestCopyDeviceDriver(t *testing.T) {
	onKernelDevices(t, func(t *testing.T, d oneDevice, _, _ int) {
		_, isCUDA := d.(*cuda.Device)
		mock := isCUDA && cudatest.InChild()
		r := rand.New(rand.NewPCG(24, 13))
		view := func(ext []int) *array.Array[int32] {
			big := append([]int(nil), ext...)
			k := r.IntN(len(ext))
			pad := r.IntN(3) // a crop along dimension k when pad > 0
			big[k] += pad
			a := array.New[int32](big...)
			v, _ := a.Host()
			for i := range v.Data() {
				v.Data()[i] = r.Int32()
			}
			t.Cleanup(func() { a.Close() })
			a = a.Crop(k, pad/2, ext[k]).SetMin(make([]int, len(ext))...)
			if len(ext) == 2 && ext[0] == ext[1] && r.IntN(3) == 0 {
				a = a.Transpose(0, 1)
			}
			return a
		}
		for i := range 60 {
			rank := 1 + r.IntN(3)
			ext := make([]int, rank)
			for k := range ext {
				ext[k] = []int{1, 1 + r.IntN(9), 16 + r.IntN(40)}[r.IntN(3)]
			}
			src, dst := view(ext), view(ext)
			if err := On(d, src, dst); err != nil {
				t.Fatal(err)
			}
			driver := contiguous(src) && contiguous(dst)
			name := fmt.Sprintf("case %d: %v, src %v, dst %v", i, ext, src.Dims(), dst.Dims())
			before := d.Stats()
			err := Copy(dst, src)
			if mock && !driver {
				// the mock knows no macro-made kernel: reaching for one
				// is the kernel path
				if err == nil || !strings.Contains(err.Error(), "un_copy") {
					t.Errorf("%s: %v, want the mock's refusal of the copy kernel", name, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := d.Stats().Sub(before).Launches; got != 1 {
				t.Errorf("%s: %d launches, want 1 (driver copy %v)", name, got, driver)
			}
			if dst.Device() != d || !dst.DeviceDirty() {
				t.Errorf("%s: the copy is not newest on %s", name, d.Name())
			}
			sv, _ := src.HostReadOnly()
			dv, _ := dst.HostReadOnly()
			var differ []bool
			forEachPos(ext, func(p []int) {
				c := coordsOf(src, p)
				differ = append(differ, sv.At(c...) != dv.At(c...))
			})
			if slices.Contains(differ, true) {
				t.Errorf("%s: the destination differs from the source (driver copy %v)", name, driver)
			}
		}
	})
}
