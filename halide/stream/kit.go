package stream

import (
	"runtime"
	"sync"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/internal/devkit"
)

// kit is what the stream does to buffers whose element type it learns at
// run time (a pipeline's metadata, the source's type): the typed Array
// calls, instantiated for every element type (array.Instances).
type kit struct {
	// root makes a 1-D buffer of n elements, allocated on d, whose
	// band views (view) share its device memory.
	root func(d device.Device, n int) (array.Buffer, error)
	// over makes a 1-D buffer of n elements over the pinned block blk.
	over func(blk device.HostBlock, n int) (array.Buffer, error)
	// view is the dense view of root's first elements that covers dims
	// (their Min and Extent; strides dense in dimension order).
	view func(root array.Buffer, dims []array.Dim) (array.Buffer, error)
	// crop is the view of b that covers dims.
	crop func(b array.Buffer, dims []array.Dim) array.Buffer
	// copy copies src's elements to dst's (host views, coordinates
	// matching), in pieces on up to GOMAXPROCS goroutines.
	copy func(dst, src array.Buffer) error
	// close closes an Array the stream made.
	close func(b array.Buffer) error
	// is reports whether b is an *array.Array of the kit's type.
	is func(b array.Buffer) bool
}

var kits = array.Instances(kitOf[int8](), kitOf[int16](), kitOf[int32](), kitOf[int64](),
	kitOf[uint8](), kitOf[uint16](), kitOf[uint32](), kitOf[uint64](),
	kitOf[array.Float16](), kitOf[array.BFloat16](), kitOf[float32](), kitOf[float64]())

func kitOf[T array.Elem]() kit {
	return kit{
		root: func(d device.Device, n int) (array.Buffer, error) {
			a := array.New[T](n)
			if err := a.DeviceMalloc(d); err != nil {
				return nil, err
			}
			// Neither copy holds data yet: a fresh allocation counts as
			// current, so nothing is ever uploaded from the host side.
			a.SetHostDirty(false)
			return a, nil
		},
		over: func(blk device.HostBlock, n int) (array.Buffer, error) {
			return array.NewOver[T](blk, n)
		},
		view: func(root array.Buffer, dims []array.Dim) (array.Buffer, error) {
			return root.(*array.Array[T]).View(0, dense(dims))
		},
		crop: func(b array.Buffer, dims []array.Dim) array.Buffer {
			a := b.(*array.Array[T])
			for i, d := range dims {
				a = a.Crop(i, d.Min, d.Extent)
			}
			return a
		},
		copy: func(dst, src array.Buffer) error {
			return copyParallel(dst.(*array.Array[T]), src.(*array.Array[T]))
		},
		close: func(b array.Buffer) error { return b.(*array.Array[T]).Close() },
		is:    func(b array.Buffer) bool { _, ok := b.(*array.Array[T]); return ok },
	}
}

// dense returns dims' Min and Extent with dense strides, dimension 0
// innermost.
func dense(dims []array.Dim) []array.Dim {
	out := make([]array.Dim, len(dims))
	s := 1
	for i, d := range dims {
		out[i] = array.Dim{Min: d.Min, Extent: d.Extent, Stride: s}
		s *= d.Extent
	}
	return out
}

// contiguous reports whether dims lay their elements out as dense does:
// then the buffer's bytes are one run, in the device buffer's order.
func contiguous(dims []array.Dim) bool {
	s := 1
	for _, d := range dims {
		if d.Extent > 1 && d.Stride != s {
			return false
		}
		s *= d.Extent
	}
	return true
}

// copyParallel copies src to dst (Halide's copy_from, on host views),
// split along the outermost dimension over up to GOMAXPROCS goroutines:
// staging copies compete with nothing else for the cores, and one core
// moves about half what two do.
func copyParallel[T array.Elem](dst, src *array.Array[T]) error {
	w, err := dst.Host()
	if err != nil {
		return err
	}
	r, err := src.HostReadOnly()
	if err != nil {
		return err
	}
	n := dst.Rank() - 1
	rows := 1
	if n >= 0 {
		rows = dst.Dim(n).Extent
	}
	bytes := dst.Len() * dst.Type().Bytes()
	// devkit.CopyPiece, as the devices' staging copies: a 4 MiB band
	// took 1 MiB pieces on 4 of the H200 machine's 16 cores, and 4 bands
	// of Go memory ran 1.5× slower than 2.
	k := min(runtime.GOMAXPROCS(0), bytes/devkit.CopyPiece, rows)
	if k <= 1 {
		w.CopyFrom(r)
		return nil
	}
	var wg sync.WaitGroup
	per, lo := (rows+k-1)/k, dst.Dim(n).Min
	for y := lo; y < lo+rows; y += per {
		h := min(per, lo+rows-y)
		pw, err := dst.Crop(n, y, h).Host()
		if err != nil {
			return err
		}
		pr, err := src.Crop(n, y, h).HostReadOnly()
		if err != nil {
			return err
		}
		wg.Go(func() { pw.CopyFrom(pr) })
	}
	wg.Wait()
	return nil
}
