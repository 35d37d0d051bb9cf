package img

import (
	"fmt"
	"image"
	"strings"

	"github.com/resident-go/resident/array"
)

// wrap makes the Array (x, y) when channels is 0, else (x, y, c) with c
// innermost, over pix whose element 0 is the pixel at r.Min.
func wrap(kind string, pix []uint8, stride int, r image.Rectangle, channels int) (*array.Array[uint8], error) {
	w, h := r.Dx(), r.Dy()
	if w < 0 || h < 0 {
		return nil, fmt.Errorf("%w: %s has bounds %v: want Min ≤ Max (use image.Rect, which canonicalizes)", array.ErrLayout, kind, r)
	}
	px := max(channels, 1)
	if h > 1 && stride < w*px {
		return nil, fmt.Errorf("%w: %s is %d pixels wide but its Stride is %d bytes: rows overlap", array.ErrLayout, kind, w, stride)
	}
	dims := []array.Dim{
		{Min: r.Min.X, Extent: w, Stride: px},
		{Min: r.Min.Y, Extent: h, Stride: stride},
	}
	if channels > 0 {
		dims = append(dims, array.Dim{Extent: channels, Stride: 1})
	}
	if w == 0 || h == 0 {
		pix = nil // an empty image's Pix may be anything
	}
	a, err := array.Wrap(pix, dims)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %v with Stride %d over %d bytes of Pix: %v", array.ErrLayout, kind, r, stride, len(pix), err)
	}
	return a, nil
}

// FromGray16 wraps m's pixel bytes as the 3-D Array[uint8] (x, y, b)
// without copying: b = 0 is the high byte of the big-endian 16-bit value,
// b = 1 the low byte. Use CopyFromGray16 for the values as uint16.
func FromGray16(m *image.Gray16) (*array.Array[uint8], error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil *image.Gray16", array.ErrLayout)
	}
	return wrap("image.Gray16", m.Pix, m.Stride, m.Rect, 2)
}

// view checks a's layout for an image with the given bytes per pixel
// (channels 0 for a 2-D Gray) and returns its bounds, row stride and pixels.
func view(kind string, a *array.Array[uint8], channels int) (image.Rectangle, int, []uint8, error) {
	rank, px := 2, 1
	if channels > 0 {
		rank, px = 3, channels
	}
	if a.Rank() != rank {
		var hint string
		switch {
		case a.Rank() == 3 && rank == 2:
			hint = "a 3-D (x, y, c) Array with 4 channels maps to ToRGBA or ToNRGBA, with 2 to ToGray16; a.Slice(2, c) is channel c"
		case a.Rank() == 2 && rank == 3:
			hint = "a 2-D Array is one channel: use ToGray"
		case a.Rank() > rank:
			hint = "Slice away the extra dimensions"
		default:
			hint = "an image needs x and y dimensions"
		}
		return image.Rectangle{}, 0, nil, fmt.Errorf("%w: %s wants a %d-D Array, got %d-D: %s", array.ErrLayout, kind, rank, a.Rank(), hint)
	}
	x, y := a.Dim(0), a.Dim(1)
	if channels > 0 {
		c := a.Dim(2)
		if c.Extent != channels && kind == "image.Gray16" {
			return image.Rectangle{}, 0, nil, fmt.Errorf("%w: image.Gray16 wants the 2 big-endian bytes of each pixel in dimension 2, got extent %d (for 16-bit values in an Array[uint16], use CopyToGray16)", array.ErrLayout, c.Extent)
		}
		if c.Extent != channels {
			return image.Rectangle{}, 0, nil, fmt.Errorf("%w: %s wants %d channels in dimension 2, got %d (Go has no image type for that many: copy into a %d-channel Array)", array.ErrLayout, kind, channels, c.Extent, channels)
		}
		if c.Stride != 1 {
			return image.Rectangle{}, 0, nil, fmt.Errorf("%w: %s wants channels innermost (dimension 2 stride 1), got stride %d: a planar Array needs a copy: d := array.NewInterleaved[uint8](w, h, %d); ops.Copy(d, a) (with a's mins set through SetMin)", array.ErrLayout, kind, c.Stride, channels)
		}
	}
	r := image.Rect(x.Min, y.Min, x.Min+x.Extent, y.Min+y.Extent)
	if x.Extent == 0 || y.Extent == 0 {
		return r, 0, nil, nil
	}
	if x.Extent > 1 && x.Stride != px {
		return image.Rectangle{}, 0, nil, fmt.Errorf("%w: %s wants dimension 0 (x) with stride %d, got %d: pixels must be packed along a row (a transposed Array or one channel of an interleaved image needs a copy: d := %s; ops.Copy(d, a))", array.ErrLayout, kind, px, x.Stride, newLike(a))
	}
	stride := y.Stride
	if y.Extent == 1 {
		stride = x.Extent * px
	}
	if stride < x.Extent*px {
		return image.Rectangle{}, 0, nil, fmt.Errorf("%w: %s: dimension 1 (y) has stride %d, shorter than a row of %d bytes", array.ErrLayout, kind, y.Stride, x.Extent*px)
	}
	h, err := a.Host()
	if err != nil {
		return image.Rectangle{}, 0, nil, err
	}
	return r, stride, h.Data(), nil
}

// ToGray returns an image.Gray over a's host memory, without copying: a must
// be 2-D (x, y) with x contiguous (stride 1). Its bounds are a's mins and
// extents. It takes a's writable host view (see the package documentation).
func ToGray(a *array.Array[uint8]) (*image.Gray, error) {
	r, stride, pix, err := view("image.Gray", a, 0)
	if err != nil {
		return nil, err
	}
	return &image.Gray{Pix: pix, Stride: stride, Rect: r}, nil
}

// ToRGBA returns an image.RGBA over a's host memory, without copying: a must
// be 3-D (x, y, c) with 4 channels, c innermost (stride 1) and x stride 4.
// The values must be alpha-premultiplied for the image to mean what they
// say; use ToNRGBA otherwise.
func ToRGBA(a *array.Array[uint8]) (*image.RGBA, error) {
	r, stride, pix, err := view("image.RGBA", a, 4)
	if err != nil {
		return nil, err
	}
	return &image.RGBA{Pix: pix, Stride: stride, Rect: r}, nil
}

// ToNRGBA is ToRGBA for non-premultiplied image.NRGBA.
func ToNRGBA(a *array.Array[uint8]) (*image.NRGBA, error) {
	r, stride, pix, err := view("image.NRGBA", a, 4)
	if err != nil {
		return nil, err
	}
	return &image.NRGBA{Pix: pix, Stride: stride, Rect: r}, nil
}

// ToGray16 returns an image.Gray16 over a's host memory, without copying:
// a must be the byte layout FromGray16 makes, 3-D (x, y, b) with b of extent
// 2 innermost, b = 0 the high byte. Use CopyToGray16 for an Array[uint16].
func ToGray16(a *array.Array[uint8]) (*image.Gray16, error) {
	r, stride, pix, err := view("image.Gray16", a, 2)
	if err != nil {
		return nil, err
	}
	return &image.Gray16{Pix: pix, Stride: stride, Rect: r}, nil
}

// CopyFromGray16 copies m's 16-bit values into a new dense Array[uint16]
// (x, y) whose mins are m.Bounds().Min: an explicit copy, because the
// big-endian bytes of image.Gray16 are not uint16s on this machine.
func CopyFromGray16(m *image.Gray16) *array.Array[uint16] {
	r := m.Bounds()
	a := array.NewWithMins[uint16]([]int{r.Min.X, r.Min.Y}, []int{r.Dx(), r.Dy()})
	if r.Empty() {
		return a
	}
	h, err := a.Host()
	if err != nil {
		panic(err) // a new Array has no device copy
	}
	d := h.Data()
	w := r.Dx()
	for y := range r.Dy() {
		row := m.Pix[y*m.Stride : y*m.Stride+2*w]
		out := d[y*w : (y+1)*w]
		for x := range out {
			out[x] = uint16(row[2*x])<<8 | uint16(row[2*x+1])
		}
	}
	return a
}

// CopyToGray16 copies a 2-D Array[uint16] (x, y), any strides, into a new
// image.Gray16 whose bounds are a's mins and extents: an explicit copy (see
// CopyFromGray16). It reads a through its host view.
func CopyToGray16(a *array.Array[uint16]) (*image.Gray16, error) {
	if a.Rank() != 2 {
		return nil, fmt.Errorf("%w: image.Gray16 wants a 2-D Array (x, y), got %d-D", array.ErrLayout, a.Rank())
	}
	x, y := a.Dim(0), a.Dim(1)
	m := image.NewGray16(image.Rect(x.Min, y.Min, x.Min+x.Extent, y.Min+y.Extent))
	if a.Len() == 0 {
		return m, nil
	}
	v, err := a.HostReadOnly()
	if err != nil {
		return nil, err
	}
	d := v.Data()
	for j := range y.Extent {
		row := m.Pix[j*m.Stride:]
		for i := range x.Extent {
			p := d[i*x.Stride+j*y.Stride]
			row[2*i], row[2*i+1] = uint8(p>>8), uint8(p)
		}
	}
	return m, nil
}

// newLike spells the constructor of a dense Array with a's mins and extents,
// for error messages that suggest a copy (CopyFrom matches coordinates).
func newLike(a *array.Array[uint8]) string {
	var mins, extents []int
	zero := true
	for _, d := range a.Dims() {
		mins, extents = append(mins, d.Min), append(extents, d.Extent)
		zero = zero && d.Min == 0
	}
	if zero {
		return fmt.Sprintf("array.New[uint8](%s)", strings.ReplaceAll(strings.Trim(fmt.Sprint(extents), "[]"), " ", ", "))
	}
	return fmt.Sprintf("array.NewWithMins[uint8]([]int{%s}, []int{%s})",
		strings.ReplaceAll(strings.Trim(fmt.Sprint(mins), "[]"), " ", ", "),
		strings.ReplaceAll(strings.Trim(fmt.Sprint(extents), "[]"), " ", ", "))
}
