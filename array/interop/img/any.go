package img

import (
	"fmt"
	"image"
	"image/color"

	"github.com/resident-go/resident/array"
)

// maxPixels bounds the images FromImage and FromImage16 copy: an image
// whose bounds hold more (image.Uniform's are ±1e9) is an error, not an
// allocation.
const maxPixels = 1 << 36

// grayLike reports whether m's color model has one channel: such images
// convert to 2-D Arrays.
func grayLike(m image.Image) bool {
	switch m.(type) {
	case *image.Gray, *image.Gray16, *image.Alpha, *image.Alpha16:
		return true
	}
	return false
}

// bounds checks that m has bounds worth copying and returns them.
func bounds(m image.Image, channels int) (image.Rectangle, error) {
	if m == nil {
		return image.Rectangle{}, fmt.Errorf("%w: a nil image.Image", array.ErrLayout)
	}
	r := m.Bounds()
	w, h := r.Dx(), r.Dy()
	if w < 0 || h < 0 || r.Max.X < r.Min.X || r.Max.Y < r.Min.Y {
		return r, fmt.Errorf("%w: %T has bounds %v: want Min ≤ Max", array.ErrLayout, m, r)
	}
	if h > 0 && w > maxPixels/h/channels {
		return r, fmt.Errorf("%w: %T has bounds %v, more than %d pixels: copy a SubImage of the part you need", array.ErrShape, m, r, maxPixels)
	}
	return r, nil
}

// FromImage returns the pixels of any image.Image as an Array[uint8]
// whose mins are m.Bounds().Min:
//
//   - *image.Gray and *image.Alpha: the 2-D Array (x, y) over m's Pix,
//     sharing memory, without copying;
//   - *image.RGBA and *image.NRGBA: the 3-D Array (x, y, c) over m's Pix,
//     sharing memory, c = R, G, B, A innermost (an RGBA's values stay
//     alpha-premultiplied, as m holds them);
//   - *image.Gray16 and *image.Alpha16: a new 2-D Array of the high bytes
//     (color.GrayModel's or color.AlphaModel's 8-bit value);
//   - every other type (Paletted, YCbCr, NYCbCrA, CMYK, RGBA64, NRGBA64,
//     the caller's own): a new 3-D Array (x, y, c), c = R, G, B, A
//     innermost, non-premultiplied 8-bit as color.NRGBAModel converts
//     m.At(x, y) (Paletted and YCbCr take faster paths that give the same
//     values; a Paletted pixel past its palette, where At would panic,
//     is an error wrapping array.ErrLayout).
//
// Every result is a host-only Array (array.Wrap), over m's memory or over
// new memory; ops.Clone makes a device-resident copy. An image of more than
// 2³⁶ pixels to copy (image.Uniform's bounds) is an error wrapping
// array.ErrShape; one whose pixel data does not cover its bounds (its At
// panics: image.NewYCbCr's planes for negative mins at 4:1:0 are short)
// is an error wrapping array.ErrLayout. FromImage16 keeps 16 bits.
func FromImage(m image.Image) (_ *array.Array[uint8], err error) {
	switch m := m.(type) {
	case *image.Gray:
		if m == nil {
			return nil, fmt.Errorf("%w: nil *image.Gray", array.ErrLayout)
		}
		return wrap("image.Gray", m.Pix, m.Stride, m.Rect, 0)
	case *image.Alpha:
		if m == nil {
			return nil, fmt.Errorf("%w: nil *image.Alpha", array.ErrLayout)
		}
		return wrap("image.Alpha", m.Pix, m.Stride, m.Rect, 0)
	case *image.RGBA:
		if m == nil {
			return nil, fmt.Errorf("%w: nil *image.RGBA", array.ErrLayout)
		}
		return wrap("image.RGBA", m.Pix, m.Stride, m.Rect, 4)
	case *image.NRGBA:
		if m == nil {
			return nil, fmt.Errorf("%w: nil *image.NRGBA", array.ErrLayout)
		}
		return wrap("image.NRGBA", m.Pix, m.Stride, m.Rect, 4)
	}
	a, d, r, ch, err := newCopy[uint8](m)
	if err != nil {
		return nil, err
	}
	w, h := r.Dx(), r.Dy()
	if ch == 1 {
		defer atPanicked(m, &err)
		model := color.GrayModel
		if _, ok := m.(*image.Alpha16); ok {
			model = color.AlphaModel
		}
		for y := range h {
			for x := range w {
				c := model.Convert(m.At(r.Min.X+x, r.Min.Y+y))
				switch c := c.(type) {
				case color.Gray:
					d[y*w+x] = c.Y
				case color.Alpha:
					d[y*w+x] = c.A
				}
			}
		}
		return a, nil
	}
	if err := copyNRGBA(d, m, r); err != nil {
		return nil, err
	}
	return a, nil
}

// newCopy makes the host Array a copy of m's pixels goes into: one
// channel (x, y) for the gray-like types, else four (x, y, c); d is its
// memory, r m's bounds, ch its channel count.
func newCopy[T uint8 | uint16](m image.Image) (a *array.Array[T], d []T, r image.Rectangle, ch int, err error) {
	ch = 4
	if grayLike(m) {
		ch = 1
	}
	if r, err = bounds(m, ch); err != nil {
		return nil, nil, r, 0, err
	}
	d = make([]T, r.Dx()*r.Dy()*ch)
	if a, err = array.Wrap(d, copyDims(r, ch)); err != nil {
		return nil, nil, r, 0, fmt.Errorf("%w: %T with bounds %v: %v", array.ErrShape, m, r, err)
	}
	return a, d, r, ch, nil
}

// copyDims is the layout of a copy of the pixels in r: (x, y) for one
// channel, else (x, y, c) with c innermost; mins r.Min.
func copyDims(r image.Rectangle, ch int) []array.Dim {
	w, h := r.Dx(), r.Dy()
	if ch == 1 {
		return []array.Dim{{Min: r.Min.X, Extent: w, Stride: 1}, {Min: r.Min.Y, Extent: h, Stride: max(w, 1)}}
	}
	return []array.Dim{{Min: r.Min.X, Extent: w, Stride: ch}, {Min: r.Min.Y, Extent: h, Stride: max(w, 1) * ch}, {Extent: ch, Stride: 1}}
}

// atPanicked turns a panic of an image's own code (its At, or a plane
// shorter than its bounds need, as image.NewYCbCr makes for negative mins
// at 4:1:0) into an error; the copy is dropped.
func atPanicked(m image.Image, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: reading %T %v panicked (%v): its pixel data does not cover its bounds", array.ErrLayout, m, m.Bounds(), p)
	}
}

// copyNRGBA writes m's pixels in r as non-premultiplied 8-bit RGBA, row
// by row, into d (4 bytes a pixel, rows of 4·Dx bytes).
func copyNRGBA(d []uint8, m image.Image, r image.Rectangle) (err error) {
	defer atPanicked(m, &err)
	w := r.Dx()
	switch m := m.(type) {
	case *image.Paletted:
		if err := checkPalette(m); err != nil {
			return err
		}
		pal := make([][4]uint8, len(m.Palette))
		for i, c := range m.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			pal[i] = [4]uint8{n.R, n.G, n.B, n.A}
		}
		for y := range r.Dy() {
			row := m.Pix[(y+r.Min.Y-m.Rect.Min.Y)*m.Stride+(r.Min.X-m.Rect.Min.X):]
			out := d[4*w*y : 4*w*(y+1)]
			for x := range w {
				copy(out[4*x:4*x+4], pal[row[x]][:])
			}
		}
	case *image.YCbCr:
		for y := range r.Dy() {
			out := d[4*w*y : 4*w*(y+1)]
			for x := range w {
				px, py := r.Min.X+x, r.Min.Y+y
				yi, ci := m.YOffset(px, py), m.COffset(px, py)
				R, G, B := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = R, G, B, 0xff
			}
		}
	default:
		for y := range r.Dy() {
			out := d[4*w*y : 4*w*(y+1)]
			for x := range w {
				n := color.NRGBAModel.Convert(m.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA)
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = n.R, n.G, n.B, n.A
			}
		}
	}
	return nil
}

// checkPalette returns an error for a pixel of m past its palette, where
// Paletted.At would panic.
func checkPalette(m *image.Paletted) error {
	r := m.Rect
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if i := m.ColorIndexAt(x, y); int(i) >= len(m.Palette) {
				return fmt.Errorf("%w: image.Paletted pixel (%d, %d) is index %d of a %d-color palette (Paletted.At would panic): fix the palette", array.ErrLayout, x, y, i, len(m.Palette))
			}
		}
	}
	return nil
}

// FromImage16 copies the pixels of any image.Image into a new
// Array[uint16] whose mins are m.Bounds().Min: the 2-D Array (x, y) of
// color.Gray16Model's (or, for Alpha and Alpha16, color.Alpha16Model's)
// value for the one-channel types (Gray, Gray16, Alpha, Alpha16), else
// the 3-D Array (x, y, c), c = R, G, B, A innermost, non-premultiplied as
// color.NRGBA64Model converts m.At(x, y). Bounds are checked as in
// FromImage.
func FromImage16(m image.Image) (_ *array.Array[uint16], err error) {
	defer atPanicked(m, &err)
	if p, ok := m.(*image.Paletted); ok && p != nil {
		if err := checkPalette(p); err != nil {
			return nil, err
		}
	}
	a, d, r, ch, err := newCopy[uint16](m)
	if err != nil {
		return nil, err
	}
	w, h := r.Dx(), r.Dy()
	{
		alpha := false
		switch m.(type) {
		case *image.Alpha, *image.Alpha16:
			alpha = true
		}
		for y := range h {
			for x := range w {
				c := m.At(r.Min.X+x, r.Min.Y+y)
				switch {
				case ch == 1 && alpha:
					d[y*w+x] = color.Alpha16Model.Convert(c).(color.Alpha16).A
				case ch == 1:
					d[y*w+x] = color.Gray16Model.Convert(c).(color.Gray16).Y
				default:
					n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
					o := 4 * (y*w + x)
					d[o], d[o+1], d[o+2], d[o+3] = n.R, n.G, n.B, n.A
				}
			}
		}
	}
	return a, nil
}

// Channels returns the planes of a packed image as 2-D (x, y) views of
// its Pix, sharing memory: for an *image.RGBA or *image.NRGBA, four views
// (R, G, B, A) with x stride 4 and y stride m.Stride; for an *image.Gray
// or *image.Alpha, one. Writing through a view changes m. The views are
// host-only Arrays, like FromImage's (each is FromImage(m)'s Slice(2, c)).
// Other types are an error wrapping array.ErrLayout: copy them with
// FromImage, whose 3-D result's Slice(2, c) is channel c.
func Channels(m image.Image) ([]*array.Array[uint8], error) {
	var a *array.Array[uint8]
	var err error
	switch m.(type) {
	case *image.RGBA, *image.NRGBA:
		a, err = FromImage(m)
	case *image.Gray, *image.Alpha:
		a, err = FromImage(m)
		if err != nil {
			return nil, err
		}
		return []*array.Array[uint8]{a}, nil
	default:
		return nil, fmt.Errorf("%w: %T has no packed 8-bit channels to view: copy it with img.FromImage and take a.Slice(2, c)", array.ErrLayout, m)
	}
	if err != nil {
		return nil, err
	}
	out := make([]*array.Array[uint8], 4)
	for c := range out {
		out[c] = a.Slice(2, c)
	}
	return out, nil
}
