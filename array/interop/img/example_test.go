package img_test

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/resident-go/resident/array/interop/img"
	"github.com/resident-go/resident/halide"
	"github.com/resident-go/resident/halide/examples/brighter"
)

// Halide lesson 10 on a PNG: load a grayscale image, brighten it with the
// brighter pipeline, and save the result. The pipeline reads the decoded
// image's pixels and writes the output image's pixels in place: the
// conversions copy nothing. It is the OpenCL build where there is an
// OpenCL driver, else the host build: the pixels are the same.
func Example() {
	brighten := brighter.Brighter
	if _, err := halide.DefaultDevice("OpenCL"); err != nil {
		brighten = brighter.BrighterHost
	}
	f, err := os.Open("testdata/gray.png")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	decoded, err := png.Decode(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := decoded.(*image.Gray)
	out := image.NewGray(in.Bounds())

	a, _ := img.FromImage(in) // 2-D (x, y) over in.Pix
	b, _ := img.FromImage(out)
	fmt.Println(a.Dims())
	if err := brighten(a, 60, b); err != nil {
		fmt.Println(err)
		return
	}
	// A SubImage is a view with its own bounds: brighten its lower-left corner again,
	// in place.
	corner := out.SubImage(image.Rect(0, 16, 8, 24)).(*image.Gray)
	c, _ := img.FromImage(corner)
	fmt.Println(c.Dims())
	if err := brighten(c, 100, c); err != nil {
		fmt.Println(err)
		return
	}

	dir, _ := os.MkdirTemp("", "brighter")
	defer os.RemoveAll(dir)
	g, _ := os.Create(filepath.Join(dir, "brighter.png"))
	defer g.Close()
	if err := png.Encode(g, out); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range []image.Point{{10, 5}, {31, 0}, {2, 17}} {
		fmt.Println(p, in.GrayAt(p.X, p.Y).Y, "→", out.GrayAt(p.X, p.Y).Y)
	}
	// Output:
	// [{0 32 1} {0 24 32}]
	// [{0 8 1} {16 8 32}]
	// (10,5) 90 → 150
	// (31,0) 248 → 255
	// (2,17) 50 → 210
}
