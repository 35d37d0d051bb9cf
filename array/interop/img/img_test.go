package img_test

import (
	"errors"
	"image"
	"image/color"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/img"
)

func d(min, extent, stride int) array.Dim { return array.Dim{Min: min, Extent: extent, Stride: stride} }

func fill(pix []uint8) {
	for i := range pix {
		pix[i] = uint8(i * 7)
	}
}

// Image type and bounds ↔ Array dims, SubImages included.
func TestFromLayouts(t *testing.T) {
	gray := image.NewGray(image.Rect(0, 0, 5, 3))
	rgba := image.NewRGBA(image.Rect(-2, 1, 4, 5)) // 6×4, Stride 24
	nrgba := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	g16 := image.NewGray16(image.Rect(0, 0, 4, 2))
	for _, m := range [][]uint8{gray.Pix, rgba.Pix, nrgba.Pix, g16.Pix} {
		fill(m)
	}
	type conv func() (*array.Array[uint8], error)
	for _, tc := range []struct {
		name  string
		conv  conv
		dims  []array.Dim
		at    []int // an Array coordinate …
		pixel uint8 // … and the byte the image holds there
	}{
		{"Gray", func() (*array.Array[uint8], error) { return img.FromImage(gray) }, []array.Dim{d(0, 5, 1), d(0, 3, 5)}, []int{3, 2}, gray.GrayAt(3, 2).Y},
		{"Gray sub", func() (*array.Array[uint8], error) {
			return img.FromImage(gray.SubImage(image.Rect(1, 1, 4, 3)).(*image.Gray))
		}, []array.Dim{d(1, 3, 1), d(1, 2, 5)}, []int{3, 2}, gray.GrayAt(3, 2).Y},
		{"Gray empty sub", func() (*array.Array[uint8], error) {
			return img.FromImage(gray.SubImage(image.Rect(9, 9, 10, 10)).(*image.Gray))
		}, []array.Dim{d(0, 0, 1), d(0, 0, 0)}, nil, 0},
		{"RGBA", func() (*array.Array[uint8], error) { return img.FromImage(rgba) }, []array.Dim{d(-2, 6, 4), d(1, 4, 24), d(0, 4, 1)}, []int{-1, 3, 2}, rgba.RGBAAt(-1, 3).B},
		{"RGBA sub", func() (*array.Array[uint8], error) {
			return img.FromImage(rgba.SubImage(image.Rect(0, 2, 2, 4)).(*image.RGBA))
		}, []array.Dim{d(0, 2, 4), d(2, 2, 24), d(0, 4, 1)}, []int{1, 3, 3}, rgba.RGBAAt(1, 3).A},
		{"NRGBA", func() (*array.Array[uint8], error) { return img.FromImage(nrgba) }, []array.Dim{d(0, 3, 4), d(0, 2, 12), d(0, 4, 1)}, []int{2, 1, 0}, nrgba.NRGBAAt(2, 1).R},
		{"Gray16 high byte", func() (*array.Array[uint8], error) { return img.FromGray16(g16) }, []array.Dim{d(0, 4, 2), d(0, 2, 8), d(0, 2, 1)}, []int{3, 1, 0}, uint8(g16.Gray16At(3, 1).Y >> 8)},
		{"Gray16 low byte", func() (*array.Array[uint8], error) { return img.FromGray16(g16) }, []array.Dim{d(0, 4, 2), d(0, 2, 8), d(0, 2, 1)}, []int{3, 1, 1}, uint8(g16.Gray16At(3, 1).Y)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.conv()
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Dims(); !slices.Equal(got, tc.dims) {
				t.Fatalf("dims %v, want %v", got, tc.dims)
			}
			if tc.at == nil {
				return
			}
			v, err := a.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			if got := v.At(tc.at...); got != tc.pixel {
				t.Errorf("At%v = %d, image holds %d", tc.at, got, tc.pixel)
			}
		})
	}
}

// A write through either side is seen by the other, and To∘From gives back
// the same image over the same memory.
func TestSharesMemory(t *testing.T) {
	t.Run("Gray", func(t *testing.T) {
		m := image.NewGray(image.Rect(0, 0, 6, 4))
		sub := m.SubImage(image.Rect(2, 1, 5, 3)).(*image.Gray)
		a, err := img.FromImage(sub)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := a.Host()
		h.Set(200, 4, 2)
		if m.GrayAt(4, 2).Y != 200 {
			t.Errorf("image does not see the Array write")
		}
		m.SetGray(2, 1, color.Gray{9})
		if h.At(2, 1) != 9 {
			t.Errorf("Array does not see the image write")
		}
		back, err := img.ToGray(a)
		if err != nil {
			t.Fatal(err)
		}
		if back.Rect != sub.Rect || back.Stride != sub.Stride || &back.Pix[0] != &sub.Pix[0] {
			t.Errorf("ToGray(FromImage(sub)) = %v stride %d, want %v stride %d over the same Pix", back.Rect, back.Stride, sub.Rect, sub.Stride)
		}
	})
	t.Run("RGBA", func(t *testing.T) {
		a := array.New[uint8](3, 2, 4) // not interleaved: c outermost
		if _, err := img.ToRGBA(a); !errors.Is(err, array.ErrLayout) {
			t.Fatalf("planar Array: err = %v, want array.ErrLayout", err)
		}
		il := a.Permute(2, 0, 1) // wrong too: that is (c, x, y)
		if _, err := img.ToRGBA(il); !errors.Is(err, array.ErrLayout) {
			t.Fatalf("(c, x, y) Array: err = %v, want array.ErrLayout", err)
		}
		m := image.NewRGBA(image.Rect(0, 0, 3, 2))
		b, _ := img.FromImage(m)
		back, err := img.ToRGBA(b)
		if err != nil {
			t.Fatal(err)
		}
		back.SetRGBA(1, 1, color.RGBA{1, 2, 3, 4})
		v, _ := b.HostReadOnly()
		if got := []uint8{v.At(1, 1, 0), v.At(1, 1, 1), v.At(1, 1, 2), v.At(1, 1, 3)}; !slices.Equal(got, []uint8{1, 2, 3, 4}) {
			t.Errorf("channels %v, want [1 2 3 4]", got)
		}
		// One channel is a 2-D view of the same memory.
		g, _ := b.Slice(2, 2).Host()
		g.Set(77, 2, 0)
		if m.RGBAAt(2, 0).B != 77 {
			t.Errorf("write through the blue Slice not seen")
		}
	})
	t.Run("NRGBA from a device-aware Array", func(t *testing.T) {
		a := array.New[uint8](4, 2, 3).Permute(1, 2, 0) // (x, y, c), c stride 1
		m, err := img.ToNRGBA(a)
		if err != nil {
			t.Fatal(err)
		}
		if m.Rect != image.Rect(0, 0, 2, 3) || m.Stride != 8 {
			t.Fatalf("bounds %v stride %d", m.Rect, m.Stride)
		}
		m.SetNRGBA(1, 2, color.NRGBA{5, 6, 7, 8})
		v, _ := a.HostReadOnly()
		if v.At(1, 2, 3) != 8 {
			t.Errorf("Array does not see the image write")
		}
	})
	t.Run("Gray16 bytes", func(t *testing.T) {
		m := image.NewGray16(image.Rect(0, 0, 3, 2))
		a, _ := img.FromGray16(m)
		m.SetGray16(2, 1, color.Gray16{0x1234})
		v, _ := a.HostReadOnly()
		if v.At(2, 1, 0) != 0x12 || v.At(2, 1, 1) != 0x34 {
			t.Errorf("bytes %#x %#x, want 0x12 0x34", v.At(2, 1, 0), v.At(2, 1, 1))
		}
		back, err := img.ToGray16(a)
		if err != nil {
			t.Fatal(err)
		}
		if back.Gray16At(2, 1).Y != 0x1234 || &back.Pix[0] != &m.Pix[0] {
			t.Errorf("ToGray16 does not share memory")
		}
	})
}

func TestGray16Copies(t *testing.T) {
	m := image.NewGray16(image.Rect(0, 0, 5, 4))
	for y := range 4 {
		for x := range 5 {
			m.SetGray16(x, y, color.Gray16{uint16(x*1000 + y*7 + 0x100)})
		}
	}
	sub := m.SubImage(image.Rect(1, 1, 4, 3)).(*image.Gray16)
	a := img.CopyFromGray16(sub)
	if got, want := a.Dims(), []array.Dim{d(1, 3, 1), d(1, 2, 3)}; !slices.Equal(got, want) {
		t.Fatalf("dims %v, want %v", got, want)
	}
	v, _ := a.HostReadOnly()
	if v.At(3, 2) != m.Gray16At(3, 2).Y {
		t.Errorf("At(3, 2) = %d, want %d", v.At(3, 2), m.Gray16At(3, 2).Y)
	}
	back, err := img.CopyToGray16(a.Transpose(0, 1).Transpose(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	for y := 1; y < 3; y++ {
		for x := 1; x < 4; x++ {
			if back.Gray16At(x, y) != m.Gray16At(x, y) {
				t.Fatalf("(%d, %d): %v, want %v", x, y, back.Gray16At(x, y), m.Gray16At(x, y))
			}
		}
	}
	// A transposed Array copies too: its x is the image's y.
	tr, err := img.CopyToGray16(a.Transpose(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Bounds() != image.Rect(1, 1, 3, 4) || tr.Gray16At(2, 3) != m.Gray16At(3, 2) {
		t.Errorf("transposed copy: bounds %v, (2, 3) = %v want %v", tr.Bounds(), tr.Gray16At(2, 3), m.Gray16At(3, 2))
	}
	if _, err := img.CopyToGray16(array.New[uint16](2)); !errors.Is(err, array.ErrLayout) {
		t.Errorf("1-D: err = %v", err)
	}
}

func TestToErrors(t *testing.T) {
	rgba := array.New[uint8](4, 3, 2).Permute(1, 2, 0) // (x, y, c) interleaved
	for _, tc := range []struct {
		name string
		to   func() error
	}{
		{"Gray from 3-D", func() error { _, err := img.ToGray(rgba); return err }},
		{"Gray from 1-D", func() error { _, err := img.ToGray(array.New[uint8](3)); return err }},
		{"Gray transposed", func() error { _, err := img.ToGray(array.New[uint8](3, 2).Transpose(0, 1)); return err }},
		{"Gray one channel", func() error { _, err := img.ToGray(rgba.Slice(2, 0)); return err }},
		{"RGBA three channels", func() error {
			_, err := img.ToRGBA(array.New[uint8](3, 2, 4).Permute(1, 2, 0).Crop(2, 0, 3))
			return err
		}},
		{"Gray16 from 4 channels", func() error { _, err := img.ToGray16(rgba); return err }},
		{"NRGBA from 2-D", func() error { _, err := img.ToNRGBA(array.New[uint8](4, 4)); return err }},
	} {
		err := tc.to()
		if !errors.Is(err, array.ErrLayout) {
			t.Errorf("%s: err = %v, want array.ErrLayout", tc.name, err)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
	}
	for _, tc := range []struct {
		name string
		from func() error
	}{
		{"nil", func() error { _, err := img.FromImage((*image.Gray)(nil)); return err }},
		{"short Pix", func() error {
			_, err := img.FromImage(&image.RGBA{Pix: make([]uint8, 10), Stride: 8, Rect: image.Rect(0, 0, 2, 2)})
			return err
		}},
		{"overlapping rows", func() error {
			_, err := img.FromImage(&image.Gray{Pix: make([]uint8, 10), Stride: 2, Rect: image.Rect(0, 0, 3, 3)})
			return err
		}},
		{"inverted bounds", func() error {
			_, err := img.FromImage(&image.Gray{Rect: image.Rectangle{Min: image.Pt(3, 3), Max: image.Pt(0, 0)}})
			return err
		}},
	} {
		if err := tc.from(); !errors.Is(err, array.ErrLayout) {
			t.Errorf("%s: err = %v, want array.ErrLayout", tc.name, err)
		}
	}
}

// An empty Array is an empty image, and the other way round.
func TestEmpty(t *testing.T) {
	a, err := img.FromImage(image.NewRGBA(image.Rect(2, 3, 7, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Dims(), []array.Dim{d(2, 5, 4), d(3, 0, 20), d(0, 4, 1)}; !slices.Equal(got, want) {
		t.Errorf("5×0 RGBA: dims %v, want %v", got, want)
	}
	m, err := img.ToGray(array.New[uint8](0, 5))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Bounds().Empty() {
		t.Errorf("bounds %v, want empty", m.Bounds())
	}
}
