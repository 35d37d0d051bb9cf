package ops_test

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/ops"
)

// poison fills the recycled-storage pool with blocks of NaN (the sizes
// of the results below) and returns their addresses.
func poison(t *testing.T) map[uintptr]bool {
	t.Helper()
	at := map[uintptr]bool{}
	for range 2 { // earlier garbage into the pool: the poisoned Arrays take it
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
	}
	func() {
		for _, n := range []int{300 * 257, 300, 300 * 257 * 2} {
			for range 8 {
				a := array.Empty[float32](n)
				v, err := a.Host()
				if err != nil {
					t.Fatal(err)
				}
				v.Fill(float32(math.NaN()))
				at[uintptr(a.Raw().HostPtr())] = true
			}
		}
	}()
	// One collection brings them back (the finalizers run); a block
	// unused over two more leaves the pool.
	runtime.GC()
	time.Sleep(5 * time.Millisecond)
	return at
}

// TestAllocFormsRecycled: the allocating forms whose dst starts
// unspecified (recycled storage, not cleared) equal their dst-first op
// into a zeroed dst, on the host and on a computing device, with the
// pool full of NaN blocks; and New/Zeros/Like of recycled storage read
// zeros. Some result must have reused a poisoned block.
func TestAllocFormsRecycled(t *testing.T) {
	type form struct {
		name  string
		alloc func(a, b *array.Array[float32], c *array.Array[uint8]) (*array.Array[float32], error)
		first func(dst, a, b *array.Array[float32], c *array.Array[uint8]) error
		shape func(a *array.Array[float32]) []int
	}
	same := func(a *array.Array[float32]) []int { return a.Shape() }
	forms := []form{
		{"New2(Add)", func(a, b *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.New2Op(ops.Binary, a, b, ops.OpAdd)
		}, func(d, a, b *array.Array[float32], _ *array.Array[uint8]) error {
			return ops.Binary(d, a, b, ops.OpAdd)
		}, same},
		{"New2(Add) broadcast", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.New2Op(ops.Binary, a, a.Crop(1, 0, 1), ops.OpAdd)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error {
			return ops.Binary(d, a, a.Crop(1, 0, 1), ops.OpAdd)
		}, same},
		{"New1(Neg)", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.New1Op(ops.Unary, a, ops.OpNeg)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error { return ops.Unary(d, a, ops.OpNeg) }, same},
		{"NewScalarOp(BinaryScalar)", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.NewScalarOp(ops.BinaryScalar, a, 3, ops.OpMul)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error {
			return ops.BinaryScalar(d, a, 3, ops.OpMul)
		}, same},
		{"NewWhere", func(a, b *array.Array[float32], c *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.NewWhere(c, a, b)
		}, func(d, a, b *array.Array[float32], c *array.Array[uint8]) error { return ops.Where(d, c, a, b) }, same},
		{"NewReduce(Sum)", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.NewReduce(ops.Sum, a, 0)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error { return ops.Sum(d, a, -2) },
			func(a *array.Array[float32]) []int { return a.Shape()[1:] }},
		{"NewReduce(Sum) of an empty axis", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.NewReduce(ops.Sum, a.Crop(1, 0, 0), 0)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error {
			return ops.Sum(d, a.Crop(1, 0, 0), -2)
		},
			func(a *array.Array[float32]) []int { return a.Shape()[1:] }},
		{"NewAlong(CumSum)", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.NewAlong(ops.CumSum, a, -1)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error { return ops.CumSum(d, a, -1) }, same},
		{"NewAlong(Sort)", func(a, _ *array.Array[float32], _ *array.Array[uint8]) (*array.Array[float32], error) {
			return ops.NewAlong(ops.Sort, a, -1)
		}, func(d, a, _ *array.Array[float32], _ *array.Array[uint8]) error { return ops.Sort(d, a, -1) }, same},
	}
	// Blocks reach the pool through the collector's finalizers, which a
	// loaded machine or the race detector can delay, and tests running
	// beside this one can take them: try again until a result reuses one.
	reused := false
	for attempt := 0; attempt < 6 && !reused; attempt++ {
		for _, d := range []device.Device{nil, sim.NewCompute("recycle", 0)} {
			at := poison(t)
			a, b := array.Zeros[float32](300, 257), array.Zeros[float32](300, 257)
			c := array.Zeros[uint8](300, 257)
			for i, v := range []*array.Array[float32]{a, b} {
				h, _ := v.Host()
				for k, x := range h.Data() {
					h.Data()[k] = float32((k*7+i*3)%11) - 5 + float32(x)
				}
			}
			ch, _ := c.Host()
			for k := range ch.Data() {
				ch.Data()[k] = uint8(k % 3 % 2)
			}
			if d != nil {
				if err := ops.On(d, a, b, c); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range forms {
				got, err := f.alloc(a, b, c)
				if err != nil {
					t.Fatalf("%s on %s: %v", f.name, devName(d), err)
				}
				reused = reused || at[uintptr(got.Raw().HostPtr())]
				want := array.Zeros[float32](f.shape(a)...)
				if err := f.first(want, a, b, c); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(vals(t, got), vals(t, want)) {
					t.Errorf("%s on %s differs from its dst-first op", f.name, devName(d))
				}
			}
		}
	}
	if !reused {
		t.Error("no result reused a poisoned block in 6 tries: the test did not reach recycled storage")
	}
	at := poison(t)
	for _, z := range []*array.Array[float32]{array.New[float32](300 * 257), array.Zeros[float32](300, 257), array.Like(array.Empty[float32](300, 257))} {
		for i, x := range vals(t, z) {
			if x != 0 {
				t.Fatalf("a zeroed Array of %v over recycled storage (%v): element %d is %v", z.Shape(), at[uintptr(unsafe.Pointer(z.Raw().HostPtr()))], i, x)
			}
		}
	}
}
