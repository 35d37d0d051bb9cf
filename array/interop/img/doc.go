// Package img converts between Go's image types and Arrays without copying:
// image.Gray, image.RGBA and image.NRGBA (and their SubImages) share their
// Pix with an Array[uint8], both ways. FromImage takes any image.Image
// (what image.Decode returns: Paletted, YCbCr, CMYK, RGBA64, NRGBA64, …),
// sharing memory where the type's Pix is an Array layout and copying to
// 8-bit RGBA (or gray) otherwise; FromImage16 copies at 16 bits; Channels
// views a packed image's planes in place.
//
// Layout. A Gray image is the 2-D Array (x, y); an RGBA or NRGBA image is the
// 3-D Array (x, y, c) with c innermost in memory (strides 4, Stride, 1) —
// Halide's interleaved layout — and c = 0, 1, 2, 3 for R, G, B, A. The
// Array's mins are the image's Bounds().Min, so a SubImage keeps its
// coordinates: pixel (x, y) of the image is Array element (x, y) (or
// (x, y, c)). a.Slice(2, c) is channel c as a 2-D view of the same memory
// (x stride 4). A 2-D pipeline reads and writes such a view in place only if
// it was generated without Halide's default constraint that dimension 0 of
// a buffer has stride 1; lesson 10's brighter keeps that constraint and
// refuses it ("Constraint violated: brighter.stride.0 (4) == 1"), so run it
// on a Gray image (see the Example) or copy the channel into a dense Array.
//
// Gray16. image.Gray16 stores each pixel as two big-endian bytes, which no
// Array[uint16] can address on a little-endian machine. FromGray16 and
// ToGray16 therefore share memory as an Array[uint8] (x, y, b) with the two
// bytes as an innermost dimension of extent 2: b = 0 is the high byte,
// b = 1 the low byte (a.Slice(2, 0) is the 8-bit image of the high bytes).
// For the 16-bit values themselves, CopyFromGray16 and CopyToGray16 make an
// explicit copy to and from Array[uint16].
//
// Sharing. The To* functions take the Array's writable host view
// (Array.Host): device data is copied to host first when it is newer and the
// Array is marked host dirty, so the next device consumer uploads what was
// drawn into the image. A later device write to the Array is not seen by the
// image until the Array's host view is taken again. Arrays made by the From*
// functions are host-only (array.Wrap): a pipeline that writes one leaves the
// image's pixels current when it returns.
//
// Layouts an image type cannot express (wrong rank, channel count or
// strides, such as a transposed Array or a single channel of an RGBA image
// given to ToGray) are errors wrapping array.ErrLayout that name the fix.
package img
