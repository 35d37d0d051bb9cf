package array_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/plumb"
)

// bcastModel is np.broadcast_to's value at pos (NumPy's order) of the
// source with values vals (row-major) and shape src.
func bcastModel(src []int, vals []int32, pos []int) int32 {
	lead := len(pos) - len(src)
	i := 0
	for k, e := range src {
		p := pos[lead+k]
		if e == 1 {
			p = 0
		}
		i = i*e + p
	}
	return vals[i]
}

// eachNP calls fn with every position of shape (NumPy's order), the last
// axis fastest.
func eachNP(shape []int, fn func(pos []int)) {
	for _, e := range shape {
		if e == 0 {
			return
		}
	}
	pos := make([]int, len(shape))
	for {
		fn(pos)
		k := len(shape) - 1
		for ; k >= 0; k-- {
			if pos[k]++; pos[k] < shape[k] {
				break
			}
			pos[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// TestBroadcastTo: the view's layout (stride 0 where it repeats), its
// values against NumPy's rule, the shapes refused with ErrShape, and that
// every view is read-only while its source stays writable.
func TestBroadcastTo(t *testing.T) {
	cases := []struct {
		src, shape []int
		bad        bool
	}{
		{[]int{3}, []int{2, 3}, false},
		{[]int{2, 1}, []int{2, 3}, false},
		{[]int{1, 3}, []int{4, 3}, false},
		{[]int{}, []int{2, 2}, false},
		{[]int{}, []int{}, false},
		{[]int{3}, []int{3}, false},
		{[]int{1}, []int{5}, false},
		{[]int{2, 1, 3}, []int{4, 2, 5, 3}, false},
		{[]int{3}, []int{0, 3}, false},
		{[]int{1}, []int{0}, false},
		{[]int{1, 1, 1, 1, 2}, []int{2, 3, 1, 4, 5, 2}, false}, // rank > 4: dims off the inline array
		{[]int{3}, []int{2, 4}, true},
		{[]int{2, 3}, []int{3}, true},
		{[]int{2, 3}, []int{3, 3}, true},
		{[]int{3}, []int{-1, 3}, true},
		{[]int{0}, []int{2}, true},
		{[]int{}, []int{1 << 40, 1 << 40}, true},
		{[]int{3}, []int{}, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.src, "→", c.shape), func(t *testing.T) {
			n := 1
			for _, e := range c.src {
				n *= e
			}
			vals := make([]int32, n)
			for i := range vals {
				vals[i] = int32(10 + i)
			}
			a := array.FromValues(vals, c.src...)
			if len(c.src) == 0 {
				a = array.Scalar(vals[0])
			}
			if c.bad { // a shape mistake: a panic, not an error
				mustPanicWith(t, array.ErrShape, func() { _, _ = a.BroadcastTo(c.shape...) })
				return
			}
			b, err := a.BroadcastTo(c.shape...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.Shape(), c.shape) || b.Raw().Writable() || !a.Raw().Writable() {
				t.Fatalf("shape %v (want %v), view writable %v, source writable %v", b.Shape(), c.shape, b.Raw().Writable(), a.Raw().Writable())
			}
			for i, d := range b.Dims() {
				lead := len(c.shape) - len(c.src)
				ax := len(c.shape) - 1 - i
				repeats := ax < lead || c.src[ax-lead] == 1 && c.shape[ax] != 1
				if d.Min != 0 || repeats && b.Len() > 0 && d.Extent > 1 && d.Stride != 0 || !repeats && b.Len() > 0 && d.Extent > 1 && d.Stride == 0 {
					t.Errorf("dimension %d: %+v (repeats %v)", i, d, repeats)
				}
			}
			h, err := b.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			c2, err := b.Compact() // the allocating copy: broadcast values, writable
			if err != nil {
				t.Fatal(err)
			}
			hc, _ := c2.HostReadOnly()
			eachNP(c.shape, func(pos []int) {
				co := slices.Clone(pos)
				slices.Reverse(co)
				want := bcastModel(c.src, vals, pos)
				if got := h.At(co...); got != want {
					t.Errorf("at %v: %d, want %d", pos, got, want)
				}
				if got := hc.At(co...); got != want {
					t.Errorf("Compact at %v: %d, want %d", pos, got, want)
				}
			})
			if !c2.Raw().Writable() || !c2.Dense() {
				t.Errorf("Compact of a broadcast: writable %v, dense %v", c2.Raw().Writable(), c2.Dense())
			}
		})
	}
}

// TestBroadcastViews: views of a broadcast keep its stride-0 dimensions
// and stay read-only; their values follow NumPy's; Reshape is a view where
// the repeated axes split or stay, and ErrNotView where they would merge
// with a stepped one.
func TestBroadcastViews(t *testing.T) {
	a := array.FromValues([]int32{1, 2, 3}, 3, 1)
	b, err := a.BroadcastTo(2, 3, 4) // b[i, j, k] = a[j, 0]
	if err != nil {
		t.Fatal(err)
	}
	at := func(v *array.Array[int32], c ...int) int32 {
		h, err := v.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		return h.At(c...)
	}
	r64, err := b.Reshape(2, 3, 2, 2) // the repeated innermost axis splits
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]*array.Array[int32]{
		"Crop":       b.Crop(0, 1, 2),
		"Slice":      b.Slice(0, 3),
		"Transpose":  b.Transpose(0, 2),
		"Index":      b.Index(array.I(1), array.R(1, 3)),
		"Squeeze":    b.ExpandDims(0).Squeeze(),
		"ExpandDims": b.ExpandDims(1),
		"SetMin":     b.SetMin(5, 6, 7),
		"Translate":  b.Translate(1, -4),
		"Embed":      b.Embed(3, 9),
		"Permute":    b.Permute(2, 0, 1),
		"Reshape":    r64,
		"Split":      b.Split(2, 0)[1],
	}
	for name, v := range views {
		if v.Raw().Writable() {
			t.Errorf("%s of a broadcast is writable", name)
		}
		if _, err := v.Host(); !errors.Is(err, array.ErrReadOnly) {
			t.Errorf("%s: Host gave %v, want ErrReadOnly", name, err)
		}
		// Every element is one of a's, at NumPy's position.
		h, _ := v.HostReadOnly()
		for c, x := range h.All() {
			if x < 1 || x > 3 {
				t.Fatalf("%s at %v: %d, not one of a's", name, c, x)
			}
		}
	}
	if got := at(views["Index"], 0, 0); got != 2 { // b[1, 1, 0] = a[1, 0]
		t.Errorf("Index: %d, want 2", got)
	}
	if got := at(views["Transpose"], 1, 2, 3); got != 3 {
		t.Errorf("Transpose: %d, want 3", got)
	}
	if got := at(r64, 1, 1, 2, 0); got != 3 {
		t.Errorf("Reshape(2, 3, 2, 2)[0, 2, 1, 1]: %d, want 3", got)
	}
	if _, err := b.Reshape(24); !errors.Is(err, array.ErrNotView) {
		t.Errorf("Reshape(24) of a broadcast: %v, want ErrNotView (ops.Reshape copies)", err)
	}
	// View takes stride 0 only on a read-only Array.
	dims := []array.Dim{{Extent: 4, Stride: 0}, {Extent: 3, Stride: 1}}
	if v, err := b.Slice(2, 0).View(0, dims); err != nil || v.Raw().Writable() {
		t.Errorf("View with stride 0 of a read-only view: %v (writable %v)", err, v != nil && v.Raw().Writable())
	}
	if _, err := a.View(0, dims); !errors.Is(err, array.ErrShape) {
		t.Errorf("View with stride 0 of a writable Array: %v, want ErrShape", err)
	}
	// A broadcast of a broadcast.
	bb, err := b.Slice(2, 0).BroadcastTo(5, 3, 4)
	if err != nil || at(bb, 3, 2, 4) != 3 {
		t.Errorf("broadcast of a broadcast: %v", err)
	}
}

// regexpFix finds the fix that ErrReadOnly's messages name.
var regexpFix = regexp.MustCompile(`ops\.BroadcastTo|Compact`)

// TestReadOnly: every write path through a broadcast view refuses with
// ErrReadOnly — an error where the API returns one, a panic where not —
// and leaves data, dirty state and the device untouched.
func TestReadOnly(t *testing.T) {
	d := sim.New("ro", 0)
	defer d.Close()
	root := array.New[uint16](4, 3)
	defer root.Close()
	h, _ := root.Host()
	for i := range 12 {
		h.Set(uint16(i), i%4, i/4)
	}
	if err := root.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	src := root.Slice(1, 2) // row 2: 8 9 10 11
	root.SetDeviceDirty(true)
	b, err := src.BroadcastTo(5, 4)
	if err != nil {
		t.Fatal(err)
	}
	before, s0 := fmt.Sprint(root.HostDirty(), root.DeviceDirty()), d.Stats()
	r := b.Raw()
	refuse := map[string]func() error{
		"Host": func() error { _, err := b.Host(); return err },
		"Host of a Crop": func() error {
			_, err := b.Crop(1, 1, 2).Host()
			return err
		},
		"DeviceWrap": func() error {
			alloc, _ := r.Allocation()
			return b.DeviceWrap(d, alloc)
		},
		"plumb.Alloc":       func() error { return plumb.Array.Alloc(r, d) },
		"plumb.WroteDevice": func() error { alloc, _ := r.Allocation(); return plumb.Array.WroteDevice(r, alloc) },
	}
	for name, fn := range refuse {
		if err := fn(); !errors.Is(err, array.ErrReadOnly) {
			t.Errorf("%s: %v, want ErrReadOnly", name, err)
		} else if !regexpFix.MatchString(err.Error()) {
			t.Errorf("%s: %q does not name the fix", name, err)
		}
	}
	panics := map[string]func(){
		"SetHostDirty(true)":    func() { b.SetHostDirty(true) },
		"SetHostDirty(false)":   func() { b.SetHostDirty(false) },
		"SetDeviceDirty(true)":  func() { b.SetDeviceDirty(true) },
		"SetDeviceDirty(false)": func() { b.SetDeviceDirty(false) },
		"plumb.Wrote(Host)":     func() { plumb.Array.Wrote(r, plumb.Host) },
		"plumb.Wrote(Device)":   func() { plumb.Array.Wrote(r, plumb.Device) },
		"Transpose's SetHost":   func() { b.Transpose(0, 1).SetHostDirty(true) },
	}
	for name, fn := range panics {
		t.Run(name, func(t *testing.T) { mustPanicWith(t, array.ErrReadOnly, fn) })
	}
	if got := fmt.Sprint(root.HostDirty(), root.DeviceDirty()); got != before {
		t.Errorf("dirty state %s after refused writes, was %s", got, before)
	}
	if s := d.Stats().Sub(s0); s.H2DCalls+s.D2HCalls+s.AllocsTotal != 0 {
		t.Errorf("refused writes moved or allocated: %+v", s)
	}
	// Reads work and move only the source's elements: one row of 4.
	v, err := b.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(s0); s.D2HBytes != 4*2 {
		t.Errorf("host view of a broadcast row moved %d bytes, want %d (the source's)", s.D2HBytes, 8)
	}
	if v.At(3, 4) != 11 || v.At(0, 0) != 8 {
		t.Errorf("values %d %d, want 11 8", v.At(3, 4), v.At(0, 0))
	}
	if !root.DeviceDirty() || src.DeviceDirty() || b.DeviceDirty() {
		t.Errorf("after reading the broadcast: root device-dirty %v (want true: other rows untouched), source %v, view %v", root.DeviceDirty(), src.DeviceDirty(), b.DeviceDirty())
	}
	// A host write to the source reaches the device through the view,
	// moving the source's elements only.
	hs, _ := src.Host()
	hs.Set(99, 2)
	s1 := d.Stats()
	got, err := deviceRead(t, d, b.Crop(1, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Stats().Sub(s1); s.H2DBytes != 4*2 {
		t.Errorf("device read of the broadcast uploaded %d bytes, want 8", s.H2DBytes)
	}
	if fmt.Sprint(got) != "[8 9 99 11]" {
		t.Errorf("device read %v, want [8 9 99 11]", got)
	}
}

// FuzzBroadcastTo: any int64 arguments (the source's extents 0…3 from the
// low bits of a, b and c; the target from x, y, z and the rank from k)
// give a view or a panic wrapping ErrShape (a shape mistake), never an
// error or another panic; a view has
// NumPy's shape, is read-only, repeats with stride 0 and keeps the
// source's strides elsewhere, and (when small) holds np.broadcast_to's
// values.
func FuzzBroadcastTo(f *testing.F) {
	f.Add(int64(3), int64(1), int64(0), int64(2), int64(3), int64(4), uint8(3))
	f.Add(int64(1), int64(1), int64(1), int64(-1), int64(1<<40), int64(1<<40), uint8(5))
	f.Add(int64(0), int64(2), int64(1), int64(0), int64(2), int64(7), uint8(2))
	f.Fuzz(func(t *testing.T, a, b, c, x, y, z int64, k uint8) {
		src := []int{int(a & 3), int(b & 3), int(c & 3)}[:int(a>>2&3)%4]
		shape := []int{int(x), int(y), int(z), int(x >> 8), int(y >> 8)}[:int(k)%6]
		n := 1
		for _, e := range src {
			n *= e
		}
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = int32(i + 1)
		}
		arr := array.Scalar[int32](1)
		if len(src) > 0 {
			arr = array.FromValues(vals, src...)
		}
		mistake := false
		v, err := func() (v *array.Array[int32], err error) {
			defer func() {
				if r := recover(); r != nil {
					if e, _ := r.(error); !errors.Is(e, array.ErrShape) {
						t.Fatalf("BroadcastTo%v of %v panicked with %v, want ErrShape", shape, src, r)
					}
					mistake = true
				}
			}()
			return arr.BroadcastTo(shape...)
		}()
		if mistake {
			return
		}
		if err != nil {
			t.Fatalf("BroadcastTo%v of %v: %v; want a view or a panic", shape, src, err)
		}
		if !slices.Equal(v.Shape(), shape) || v.Raw().Writable() {
			t.Fatalf("BroadcastTo%v of %v: shape %v, writable %v", shape, src, v.Shape(), v.Raw().Writable())
		}
		lead := len(shape) - len(src)
		total := 1
		for i, d := range v.Dims() {
			total *= d.Extent
			ax := len(shape) - 1 - i
			if v.Len() == 0 || d.Extent <= 1 {
				continue
			}
			want := 0
			if ax >= lead && src[ax-lead] != 1 {
				want = arr.Dim(len(src) - 1 - (ax - lead)).Stride
			}
			if d.Stride != want {
				t.Fatalf("BroadcastTo%v of %v: dimension %d %+v, want stride %d", shape, src, i, d, want)
			}
		}
		if total != v.Len() || total > 1<<12 {
			return
		}
		h, err := v.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		if len(src) == 0 {
			src, vals = []int{}, []int32{1}
		}
		eachNP(shape, func(pos []int) {
			co := slices.Clone(pos)
			slices.Reverse(co)
			if got, want := h.At(co...), bcastModel(src, vals, pos); got != want {
				t.Fatalf("BroadcastTo%v of %v at %v: %d, want %d", shape, src, pos, got, want)
			}
		})
	})
}
