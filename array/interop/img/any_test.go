package img_test

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/img"
)

// funcImage is an image.Image type the package has never heard of.
type funcImage struct {
	r image.Rectangle
	f func(x, y int) color.Color
}

func (m funcImage) ColorModel() color.Model { return color.RGBA64Model }
func (m funcImage) Bounds() image.Rectangle { return m.r }
func (m funcImage) At(x, y int) color.Color { return m.f(x, y) }
func (m funcImage) String() string          { return fmt.Sprintf("funcImage %v", m.r) }
func randBytes(r *rand.Rand, b []uint8) {
	for i := range b {
		b[i] = uint8(r.Uint32())
	}
}
func randRect(r *rand.Rand) image.Rectangle {
	x, y := r.IntN(11)-5, r.IntN(11)-5
	return image.Rect(x, y, x+r.IntN(9), y+r.IntN(7))
}

// genImages draws one image of every type the standard library has (and
// one of its own), with random bounds, random pixels and, half the time,
// as a SubImage.
func genImages(r *rand.Rand) []image.Image {
	rect := randRect(r)
	// image.NewYCbCr makes planes too short for negative mins at 4:1:0 and
	// 4:1:1 (its chroma width rounds toward zero); TestFromImageErrors has
	// one.
	yrect := rect.Add(image.Pt(5, 5))
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
		image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410}
	ycc := image.NewYCbCr(yrect, ratios[r.IntN(len(ratios))])
	randBytes(r, ycc.Y)
	randBytes(r, ycc.Cb)
	randBytes(r, ycc.Cr)
	nycc := image.NewNYCbCrA(yrect, ratios[r.IntN(len(ratios))])
	for _, b := range [][]uint8{nycc.Y, nycc.Cb, nycc.Cr, nycc.A} {
		randBytes(r, b)
	}
	pal := make(color.Palette, 1+r.IntN(256))
	for i := range pal {
		pal[i] = color.NRGBA{uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32())}
	}
	p := image.NewPaletted(rect, pal)
	for i := range p.Pix {
		p.Pix[i] = uint8(r.IntN(len(pal)))
	}
	gray, gray16 := image.NewGray(rect), image.NewGray16(rect)
	alpha, alpha16 := image.NewAlpha(rect), image.NewAlpha16(rect)
	rgba, rgba64 := image.NewRGBA(rect), image.NewRGBA64(rect)
	nrgba, nrgba64 := image.NewNRGBA(rect), image.NewNRGBA64(rect)
	cmyk := image.NewCMYK(rect)
	for _, b := range [][]uint8{gray.Pix, gray16.Pix, alpha.Pix, alpha16.Pix, rgba.Pix, rgba64.Pix, nrgba.Pix, nrgba64.Pix, cmyk.Pix} {
		randBytes(r, b)
	}
	seed := r.Uint64()
	fn := funcImage{rect, func(x, y int) color.Color {
		h := uint64(x)*0x9E3779B97F4A7C15 ^ uint64(y)*0xBF58476D1CE4E5B9 ^ seed
		return color.RGBA64{uint16(h), uint16(h >> 16), uint16(h >> 32), uint16(h >> 48)}
	}}
	ms := []image.Image{gray, gray16, alpha, alpha16, rgba, rgba64, nrgba, nrgba64, cmyk, ycc, nycc, p, fn}
	for i, m := range ms {
		if s, ok := m.(interface {
			SubImage(image.Rectangle) image.Image
		}); ok && r.IntN(2) == 0 && !rect.Empty() {
			b := m.Bounds()
			x0, y0 := b.Min.X+r.IntN(b.Dx()), b.Min.Y+r.IntN(b.Dy())
			ms[i] = s.SubImage(image.Rect(x0, y0, x0+r.IntN(b.Max.X-x0+1), y0+r.IntN(b.Max.Y-y0+1)))
		}
	}
	return ms
}

// want8 is the model of FromImage at a pixel: the bytes the image holds
// for the types shared in place, else the color models' conversion.
func want8(m image.Image, x, y int) []uint8 {
	switch m := m.(type) {
	case *image.Gray:
		return []uint8{m.GrayAt(x, y).Y}
	case *image.Alpha:
		return []uint8{m.AlphaAt(x, y).A}
	case *image.RGBA:
		c := m.RGBAAt(x, y)
		return []uint8{c.R, c.G, c.B, c.A}
	case *image.NRGBA:
		c := m.NRGBAAt(x, y)
		return []uint8{c.R, c.G, c.B, c.A}
	case *image.Gray16:
		return []uint8{color.GrayModel.Convert(m.At(x, y)).(color.Gray).Y}
	case *image.Alpha16:
		return []uint8{color.AlphaModel.Convert(m.At(x, y)).(color.Alpha).A}
	}
	c := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
	return []uint8{c.R, c.G, c.B, c.A}
}

func want16(m image.Image, x, y int) []uint16 {
	switch m.(type) {
	case *image.Gray, *image.Gray16:
		return []uint16{color.Gray16Model.Convert(m.At(x, y)).(color.Gray16).Y}
	case *image.Alpha, *image.Alpha16:
		return []uint16{color.Alpha16Model.Convert(m.At(x, y)).(color.Alpha16).A}
	}
	c := color.NRGBA64Model.Convert(m.At(x, y)).(color.NRGBA64)
	return []uint16{c.R, c.G, c.B, c.A}
}

// checkAt compares a (2-D, or 3-D with channels innermost in the last
// dimension) with the model at every pixel of b.
func checkAt[T uint8 | uint16](t *testing.T, m image.Image, a *array.Array[T], want func(image.Image, int, int) []T) {
	t.Helper()
	b := m.Bounds()
	ch := len(want(m, b.Min.X, b.Min.Y))
	if b.Empty() {
		if a.Len() != 0 {
			t.Fatalf("%T %v: an empty image made %d elements", m, b, a.Len())
		}
		return
	}
	wantRank := 3
	if ch == 1 {
		wantRank = 2
	}
	if a.Rank() != wantRank || a.Dim(0).Min != b.Min.X || a.Dim(1).Min != b.Min.Y || a.Dim(0).Extent != b.Dx() || a.Dim(1).Extent != b.Dy() {
		t.Fatalf("%T %v: Array dims %v", m, b, a.Dims())
	}
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			w := want(m, x, y)
			for c, wc := range w {
				var got T
				if ch == 1 {
					got = v.At(x, y)
				} else {
					got = v.At(x, y, c)
				}
				if got != wc {
					t.Fatalf("%T %v: pixel (%d, %d) channel %d = %d, want %d", m, b, x, y, c, got, wc)
				}
			}
		}
	}
}

// TestFromImageEveryType: FromImage and FromImage16 of generated images of
// every type match the color models pixel by pixel; the four packed types
// share memory, the others are copies.
func TestFromImageEveryType(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	seen := map[string]int{}
	for range 40 {
		for _, m := range genImages(r) {
			seen[fmt.Sprintf("%T", m)]++
			a, err := img.FromImage(m)
			if err != nil {
				t.Fatalf("FromImage(%T %v): %v", m, m.Bounds(), err)
			}
			checkAt(t, m, a, want8)
			a16, err := img.FromImage16(m)
			if err != nil {
				t.Fatalf("FromImage16(%T %v): %v", m, m.Bounds(), err)
			}
			checkAt(t, m, a16, want16)
			if !a.HostOnly() || !a16.HostOnly() {
				t.Errorf("%T: FromImage results are host-only", m)
			}
			if b := m.Bounds(); !b.Empty() {
				// Writing the Array changes the image exactly for the shared types.
				before := fmt.Sprint(want8(m, b.Min.X, b.Min.Y))
				h, _ := a.Host()
				c := append([]int{b.Min.X, b.Min.Y}, make([]int, a.Rank()-2)...)
				h.Set(h.At(c...)+1, c...)
				changed := fmt.Sprint(want8(m, b.Min.X, b.Min.Y)) != before
				switch m.(type) {
				case *image.Gray, *image.Alpha, *image.RGBA, *image.NRGBA:
					if !changed {
						t.Fatalf("%T: a write to FromImage's Array did not reach the image", m)
					}
				default:
					if changed {
						t.Fatalf("%T: FromImage's copy shares the image's memory", m)
					}
				}
			}
		}
	}
	if len(seen) != 13 {
		t.Errorf("image types drawn: %v", seen)
	}
}

// TestChannels: the planes of a packed RGBA or NRGBA image (SubImages
// too) are 2-D views with x stride 4 over its Pix: a write through plane
// c lands in byte c of the pixel.
func TestChannels(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for range 20 {
		rect := randRect(r)
		if rect.Empty() {
			continue
		}
		m := image.NewRGBA(image.Rect(rect.Min.X-2, rect.Min.Y-1, rect.Max.X+3, rect.Max.Y+2))
		randBytes(r, m.Pix)
		sm := m.SubImage(rect).(*image.RGBA)
		for _, im := range []image.Image{sm, (*image.NRGBA)(sm)} {
			planes, err := img.Channels(im)
			if err != nil || len(planes) != 4 {
				t.Fatalf("Channels(%T): %d planes, %v", im, len(planes), err)
			}
			for c, p := range planes {
				if p.Rank() != 2 || p.Dim(0).Stride != 4 || p.Dim(1).Stride != m.Stride || p.Dim(0).Min != rect.Min.X || p.Dim(1).Min != rect.Min.Y {
					t.Fatalf("plane %d dims %v, want x stride 4, y stride %d, mins %v", c, p.Dims(), m.Stride, rect.Min)
				}
				x, y := rect.Min.X+r.IntN(rect.Dx()), rect.Min.Y+r.IntN(rect.Dy())
				h, _ := p.Host()
				if h.At(x, y) != m.Pix[m.PixOffset(x, y)+c] {
					t.Fatalf("plane %d at (%d, %d) = %d, the image holds %d", c, x, y, h.At(x, y), m.Pix[m.PixOffset(x, y)+c])
				}
				h.Set(uint8(c*50+7), x, y)
				if got := m.Pix[m.PixOffset(x, y)+c]; got != uint8(c*50+7) {
					t.Fatalf("a write to plane %d at (%d, %d) left the image's byte at %d", c, x, y, got)
				}
			}
		}
	}
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	if p, err := img.Channels(g); err != nil || len(p) != 1 || p[0].Dim(0).Stride != 1 {
		t.Errorf("Channels(Gray): %v, %v", p, err)
	}
	if _, err := img.Channels(image.NewYCbCr(image.Rect(0, 0, 2, 2), image.YCbCrSubsampleRatio420)); !errors.Is(err, array.ErrLayout) {
		t.Errorf("Channels(YCbCr): %v, want ErrLayout", err)
	}
}

// TestFromImageErrors: an unbounded image, a nil one and a palette index
// past the palette are errors, never an allocation or a panic.
func TestFromImageErrors(t *testing.T) {
	p := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.Black, color.White})
	p.Pix[3] = 5
	for _, c := range []struct {
		name   string
		m      image.Image
		target error
		says   string
	}{
		{"uniform", image.NewUniform(color.White), array.ErrShape, "SubImage"},
		{"nil", nil, array.ErrLayout, "nil"},
		{"palette", p, array.ErrLayout, "index 5 of a 2-color palette"},
		{"nil *Alpha", (*image.Alpha)(nil), array.ErrLayout, "nil"},
		{"short YCbCr planes", image.NewYCbCr(image.Rect(-3, 3, 0, 6), image.YCbCrSubsampleRatio410), array.ErrLayout, "panicked"},
		{"short NYCbCrA planes", image.NewNYCbCrA(image.Rect(-3, 3, 0, 6), image.YCbCrSubsampleRatio410), array.ErrLayout, "panicked"},
	} {
		_, err := img.FromImage(c.m)
		if !errors.Is(err, c.target) || !contains(err, c.says) {
			t.Errorf("FromImage(%s): %v, want %v saying %q", c.name, err, c.target, c.says)
		}
		if c.name == "nil *Alpha" {
			continue
		}
		_, err = img.FromImage16(c.m)
		if !errors.Is(err, c.target) || !contains(err, c.says) {
			t.Errorf("FromImage16(%s): %v, want %v saying %q", c.name, err, c.target, c.says)
		}
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// ExampleFromImage: whatever image.Decode returns becomes an Array; a
// Paletted image (a GIF's, a palette PNG's) is copied to 8-bit RGBA.
func ExampleFromImage() {
	m := image.NewPaletted(image.Rect(10, 20, 13, 22), color.Palette{color.Black, color.NRGBA{255, 0, 0, 128}})
	m.SetColorIndex(11, 21, 1)
	a, _ := img.FromImage(m)
	v, _ := a.HostReadOnly()
	fmt.Println(a.Extents(), a.Dim(0).Min, a.Dim(1).Min)
	fmt.Println(v.At(11, 21, 0), v.At(11, 21, 1), v.At(11, 21, 3)) // R, G, A
	// Output:
	// [3 2 4] 10 20
	// 255 0 128
}

// ExampleChannels: the planes of an RGBA image are views of its Pix with
// x stride 4; filling the alpha plane makes the image opaque in place.
func ExampleChannels() {
	m := image.NewRGBA(image.Rect(0, 0, 2, 2))
	planes, _ := img.Channels(m)
	a, _ := planes[3].Host()
	for y := range 2 {
		for x := range 2 {
			a.Set(255, x, y)
		}
	}
	fmt.Println(planes[3].Dim(0).Stride, m.Pix[:8])
	// Output:
	// 4 [0 0 0 255 0 0 0 255]
}
