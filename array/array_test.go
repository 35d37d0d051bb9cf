package array

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// mustPanic runs f and checks it panics with an error wrapping want.
func mustPanic(t *testing.T, want error, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, want) {
			t.Fatalf("panic %v, want %v", r, want)
		}
	}()
	f()
}

func TestConstructors(t *testing.T) {
	tests := []struct {
		name string
		a    *Array[float32]
		dims []Dim
		host bool
	}{
		{"scalar", New[float32](), []Dim{}, false},
		{"1d", New[float32](5), []Dim{{0, 5, 1}}, false},
		{"3d", New[float32](4, 3, 2), []Dim{{0, 4, 1}, {0, 3, 4}, {0, 2, 12}}, false},
		{"mins", NewWithMins[float32]([]int{-1, 10}, []int{3, 2}), []Dim{{-1, 3, 1}, {10, 2, 3}}, false},
		{"interleaved", NewInterleaved[float32](4, 2, 3), []Dim{{0, 4, 3}, {0, 2, 12}, {0, 3, 1}}, false},
		{"fromslice", FromSlice(make([]float32, 6), 2, 3), []Dim{{0, 2, 1}, {0, 3, 2}}, true},
		{"fromslice1d", FromSlice(make([]float32, 7)), []Dim{{0, 7, 1}}, true},
		{"like", Like(NewWithMins[float32]([]int{2}, []int{3}).Transpose(0, 0)), []Dim{{2, 3, 1}}, false},
		{"empty", New[float32](0, 3), []Dim{{0, 0, 1}, {0, 3, 1}}, false},
		{"5d", New[float32](1, 2, 1, 2, 2), []Dim{{0, 1, 1}, {0, 2, 1}, {0, 1, 2}, {0, 2, 2}, {0, 2, 4}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Dims()
			if fmt.Sprint(got) != fmt.Sprint(tt.dims) {
				t.Errorf("dims %v, want %v", got, tt.dims)
			}
			if tt.a.HostOnly() != tt.host {
				t.Errorf("HostOnly %v", tt.a.HostOnly())
			}
			if tt.a.Type() != (Type{Float, 32, 1}) {
				t.Errorf("type %v", tt.a.Type())
			}
			if p := tt.a.raw.HostPtr(); p != nil && !tt.host && uintptr(p)%alignment != 0 {
				t.Errorf("host storage at %p is not %d-byte aligned", p, alignment)
			}
		})
	}
}

func TestScalarAndSlice(t *testing.T) {
	s := Scalar[int16](-7)
	v, _ := s.HostReadOnly()
	if v.At() != -7 || s.Rank() != 0 || s.Len() != 1 {
		t.Fatalf("scalar %v rank %d", v.At(), s.Rank())
	}
	data := []uint8{1, 2, 3, 4, 5, 6}
	a := FromSlice(data, 3, 2)
	h, _ := a.Host()
	h.Set(9, 2, 1)
	if data[5] != 9 {
		t.Fatal("FromSlice copied its data")
	}
	if h.At(1, 1) != 5 {
		t.Fatalf("At(1,1) = %d", h.At(1, 1))
	}
}

func TestTypes(t *testing.T) {
	tests := []struct {
		got  Type
		want string
		size int
	}{
		{TypeOf[int8](), "int8", 1}, {TypeOf[int64](), "int64", 8},
		{TypeOf[uint16](), "uint16", 2}, {TypeOf[uint32](), "uint32", 4},
		{TypeOf[float64](), "float64", 8}, {TypeOf[Float16](), "float16", 2},
		{TypeOf[BFloat16](), "bfloat16", 2}, {Type{UInt, 1, 1}, "bool", 1},
		{Type{Float, 32, 4}, "float32x4", 16}, {Type{Handle, 64, 1}, "handle64", 8},
	}
	for _, tt := range tests {
		if tt.got.String() != tt.want || tt.got.Bytes() != tt.size {
			t.Errorf("%v: %q size %d, want %q size %d", tt.got, tt.got, tt.got.Bytes(), tt.want, tt.size)
		}
	}
}

func TestFloat16(t *testing.T) {
	tests := []struct {
		in   float32
		bits uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00}, {5.960464477539063e-08, 0x0001},
		{6.097555160522461e-05, 0x03ff}, {1.0009765625, 0x3c01},
		{1.00048828125, 0x3c00},      // tie rounds to even
		{1.00146484375, 0x3c02},      // tie rounds to even (up)
		{2.98023223876953125e-08, 0}, // half of the smallest subnormal: tie to 0
		{1e-10, 0},
	}
	for _, tt := range tests {
		if got := F16(tt.in); uint16(got) != tt.bits {
			t.Errorf("F16(%g) = %#04x, want %#04x", tt.in, uint16(got), tt.bits)
		}
	}
	if !math.IsNaN(float64(F16(float32(math.NaN())).Float32())) {
		t.Error("NaN lost")
	}
	// Every finite half converts to float32 and back exactly.
	for b := 0; b < 1<<16; b++ {
		h := Float16(b)
		f := h.Float32()
		if math.IsNaN(float64(f)) {
			continue
		}
		if F16(f) != h {
			t.Fatalf("half %#04x → %g → %#04x", b, f, uint16(F16(f)))
		}
	}
	for b := 0; b < 1<<16; b++ {
		x := BFloat16(b)
		f := x.Float32()
		if math.IsNaN(float64(f)) {
			if !math.IsNaN(float64(BF16(f).Float32())) {
				t.Fatalf("bf16 NaN %#04x lost", b)
			}
			continue
		}
		if BF16(f) != x {
			t.Fatalf("bf16 %#04x → %g → %#04x", b, f, uint16(BF16(f)))
		}
	}
	if BF16(1+1.0/256) != BF16(1) || BF16(1+3.0/256) != 0x3f82 {
		t.Errorf("bf16 ties: %#x %#x", BF16(1+1.0/256), BF16(1+3.0/256))
	}
}

func iota3(x, y, z int) *Array[int32] {
	a := New[int32](x, y, z)
	h, _ := a.Host()
	a.raw.forEach(func(c []int) { h.Set(int32(c[0]+100*c[1]+10000*c[2]), c...) })
	return a
}

func TestViews(t *testing.T) {
	a := iota3(4, 3, 2)
	tests := []struct {
		name string
		v    *Array[int32]
		dims []Dim
		at   []int
		want int32
	}{
		{"crop", a.Crop(0, 1, 2), []Dim{{1, 2, 1}, {0, 3, 4}, {0, 2, 12}}, []int{2, 1, 1}, 10102},
		{"crop2", a.Crop(1, 2, 1).Crop(2, 1, 1), []Dim{{0, 4, 1}, {2, 1, 4}, {1, 1, 12}}, []int{3, 2, 1}, 10203},
		{"slice", a.Slice(1, 2), []Dim{{0, 4, 1}, {0, 2, 12}}, []int{3, 1}, 10203},
		{"transpose", a.Transpose(0, 2), []Dim{{0, 2, 12}, {0, 3, 4}, {0, 4, 1}}, []int{1, 2, 3}, 10203},
		{"permute", a.Permute(2, 0, 1), []Dim{{0, 2, 12}, {0, 4, 1}, {0, 3, 4}}, []int{1, 3, 2}, 10203},
		{"translate", a.Translate(1, -5), []Dim{{0, 4, 1}, {-5, 3, 4}, {0, 2, 12}}, []int{3, -3, 1}, 10203},
		{"setmin", a.SetMin(1, 1, 1), []Dim{{1, 4, 1}, {1, 3, 4}, {1, 2, 12}}, []int{4, 3, 2}, 10203},
		{"embed", a.Slice(2, 1).Embed(2, 7), []Dim{{0, 4, 1}, {0, 3, 4}, {7, 1, 12}}, []int{3, 2, 7}, 10203},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fmt.Sprint(tt.v.Dims()) != fmt.Sprint(tt.dims) {
				t.Errorf("dims %v, want %v", tt.v.Dims(), tt.dims)
			}
			h, _ := tt.v.HostReadOnly()
			if got := h.At(tt.at...); got != tt.want {
				t.Errorf("At%v = %d, want %d", tt.at, got, tt.want)
			}
		})
	}
}

func TestViewsShareMemory(t *testing.T) {
	a := iota3(4, 3, 2)
	c := a.Crop(1, 1, 2).Transpose(0, 1)
	h, _ := c.Host()
	h.Set(-1, 2, 3, 1)
	ha, _ := a.HostReadOnly()
	if ha.At(3, 2, 1) != -1 {
		t.Fatal("write through a view did not reach the parent")
	}
}

// addr returns the storage index of every element, in coordinate order.
func addr[T Elem](a *Array[T]) []int {
	var out []int
	a.raw.forEach(func(c []int) { out = append(out, a.raw.index(c)) })
	return out
}

func TestProperties(t *testing.T) {
	a := iota3(6, 5, 4)
	// crop∘crop = one crop
	cc := a.Crop(0, 1, 4).Crop(0, 2, 2)
	one := a.Crop(0, 2, 2)
	if fmt.Sprint(addr(cc)) != fmt.Sprint(addr(one)) {
		t.Error("crop of a crop differs from one crop")
	}
	// transpose twice = identity
	if fmt.Sprint(addr(a.Transpose(0, 2).Transpose(0, 2))) != fmt.Sprint(addr(a)) {
		t.Error("transpose twice is not the identity")
	}
	// slice then embed restores the addressing of the crop at that position
	se := a.Slice(1, 3).Embed(1, 3)
	if fmt.Sprint(addr(se)) != fmt.Sprint(addr(a.Crop(1, 3, 1))) || fmt.Sprint(se.Dims()[1].Min) != "3" {
		t.Error("slice then embed does not restore the addressing")
	}
	// permute then inverse permute = identity
	if fmt.Sprint(addr(a.Permute(1, 2, 0).Permute(2, 0, 1))) != fmt.Sprint(addr(a)) {
		t.Error("permutation and its inverse are not the identity")
	}
}

func TestBadInput(t *testing.T) {
	a := New[uint8](4, 3)
	h, _ := a.Host()
	tests := []struct {
		name string
		want error
		f    func()
	}{
		{"negative extent", ErrShape, func() { New[uint8](3, -1) }},
		{"slice length", ErrShape, func() { FromSlice(make([]uint8, 5), 2, 3) }},
		{"mins count", ErrShape, func() { NewWithMins[uint8]([]int{1}, []int{2, 2}) }},
		{"crop outside", ErrOutOfRange, func() { a.Crop(0, 2, 3) }},
		{"crop below", ErrOutOfRange, func() { a.Crop(1, -1, 1) }},
		{"slice outside", ErrOutOfRange, func() { a.Slice(1, 3) }},
		{"unknown dim", ErrShape, func() { a.Crop(2, 0, 1) }},
		{"transpose dim", ErrShape, func() { a.Transpose(0, 5) }},
		{"permutation", ErrShape, func() { a.Permute(0, 0) }},
		{"embed dim", ErrShape, func() { a.Embed(3, 0) }},
		{"setmin count", ErrShape, func() { a.SetMin(1) }},
		{"coords count", ErrShape, func() { h.At(1) }},
		{"coord range", ErrOutOfRange, func() { h.Set(1, 4, 0) }},
		{"rank mismatch", ErrShape, func() { h.CopyFrom(mustRO(New[uint8](2))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { mustPanic(t, tt.want, tt.f) })
	}
	// The message names the values and the fix.
	defer func() {
		msg := fmt.Sprint(recover())
		if msg != "array: out of range: crop [2, 4] of dimension 0 (axis 1), which spans [0, 3]: crop inside the Array" {
			t.Errorf("message %q", msg)
		}
	}()
	a.Crop(0, 2, 3)
}

func mustRO[T Elem](a *Array[T]) ReadView[T] {
	v, err := a.HostReadOnly()
	if err != nil {
		panic(err)
	}
	return v
}

func TestUseAfterClose(t *testing.T) {
	a := New[float64](3)
	h, _ := a.Host()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	mustPanic(t, ErrClosed, func() { h.At(0) }) // no error to return: a panic
	// Calls that return an error return ErrClosed; a view of a closed Array
	// is closed too.
	v := a.Crop(0, 0, 1)
	for name, err := range map[string]error{
		"Host":                second(a.Host()),
		"HostReadOnly":        second(a.HostReadOnly()),
		"view's Host":         second(v.Host()),
		"view's Transpose":    second(a.Transpose(0, 0).HostReadOnly()),
		"CopyToHost":          a.CopyToHost(),
		"DeviceFree":          a.DeviceFree(),
		"View":                second(a.View(0, []Dim{{Extent: 1, Stride: 1}})),
		"MoveTo":              second(a.MoveTo(nil)),
		"CopyToDevice(nil)":   a.CopyToDevice(nil),
		"DeviceMalloc(nil)":   a.DeviceMalloc(nil),
		"DeviceWrap(nil,nil)": a.DeviceWrap(nil, nil),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want an error wrapping ErrClosed", name, err)
		}
	}
}

func second[A any](_ A, err error) error { return err }

// TestClosedErrorCalls is generated from the method set: every method of
// *Array with an error result (Close aside, which is idempotent), called on
// a closed Array or a view of one, returns an error wrapping ErrClosed and
// does not panic (doc.go's lifetime rule). Arguments are zero values, or a
// sim device and one of its allocations.
func TestClosedErrorCalls(t *testing.T) {
	errType := reflect.TypeFor[error]()
	dev := sim.New("closed", 0)
	a := New[float64](2, 3)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	args := map[string]func(reflect.Type) reflect.Value{
		"zero": reflect.Zero,
		"sim": func(typ reflect.Type) reflect.Value {
			switch typ {
			case reflect.TypeFor[device.Device]():
				return reflect.ValueOf(&dev).Elem()
			case reflect.TypeFor[device.Allocation]():
				al, err := dev.Malloc(64)
				if err != nil {
					t.Fatal(err)
				}
				return reflect.ValueOf(&al).Elem()
			}
			return reflect.Zero(typ)
		},
	}
	for _, recv := range []struct {
		name string
		a    *Array[float64]
	}{{"root", a}, {"view", a.Crop(0, 0, 1)}} {
		v := reflect.ValueOf(recv.a)
		typ := v.Type()
		n := 0
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			ft := m.Type // receiver first
			if m.Name == "Close" || ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != errType {
				continue
			}
			n++
			for argName, arg := range args {
				t.Run(recv.name+"/"+m.Name+"/"+argName, func(t *testing.T) {
					in := []reflect.Value{}
					last := ft.NumIn()
					if ft.IsVariadic() {
						last-- // no variadic arguments
					}
					for k := 1; k < last; k++ {
						in = append(in, arg(ft.In(k)))
					}
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s after Close panicked: %v; want an error wrapping ErrClosed", m.Name, r)
						}
					}()
					out := v.Method(i).Call(in)
					err, _ := out[len(out)-1].Interface().(error)
					if !errors.Is(err, ErrClosed) {
						t.Fatalf("%s after Close: %v, want an error wrapping ErrClosed", m.Name, err)
					}
				})
			}
		}
		if n < 10 {
			t.Fatalf("%d methods with an error result: the method set was not read", n)
		}
	}
	if _, err := Equal(a, a); !errors.Is(err, ErrClosed) {
		t.Fatalf("Equal after Close: %v, want an error wrapping ErrClosed", err)
	}
}

func TestCopyFrom(t *testing.T) {
	src := NewWithMins[int32]([]int{2, 0}, []int{4, 3})
	hs, _ := src.Host()
	src.raw.forEach(func(c []int) { hs.Set(int32(10*c[0]+c[1]), c...) })
	tests := []struct {
		name string
		dst  *Array[int32]
	}{
		{"same", NewWithMins[int32]([]int{2, 0}, []int{4, 3})},
		{"overlap", New[int32](4, 2)},
		{"transposed", New[int32](3, 8).Transpose(0, 1)},
		{"interleaved", NewInterleaved[int32](6, 3, 1).Slice(2, 0)},
		{"none", NewWithMins[int32]([]int{20, 0}, []int{2, 2})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hd, err := tt.dst.Host()
			if err != nil {
				t.Fatal(err)
			}
			hs, err := src.HostReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			hd.CopyFrom(hs)
			tt.dst.raw.forEach(func(c []int) {
				want := int32(0)
				if c[0] >= 2 && c[0] <= 5 && c[1] <= 2 {
					want = int32(10*c[0] + c[1])
				}
				if got := hd.At(c...); got != want {
					t.Fatalf("at %v: %d, want %d", c, got, want)
				}
			})
		})
	}
}

func TestCompactEqualFill(t *testing.T) {
	a := iota3(5, 4, 3)
	v := a.Transpose(0, 2).Crop(1, 1, 2)
	c, err := v.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if !c.Dense() || v.Dense() {
		t.Fatal("compact is not dense")
	}
	if eq, _ := Equal(c, v); !eq {
		t.Fatal("compact differs from its source")
	}
	h, _ := c.Host()
	h.Set(0, 0, 1, 0)
	if eq, _ := Equal(c, v); eq {
		t.Fatal("Equal missed a difference")
	}
	hv, _ := v.Host()
	hv.Fill(-5)
	n := 0
	for x := range hv.Values() {
		if x != -5 {
			t.Fatal("Fill missed an element")
		}
		n++
	}
	if n != v.Len() {
		t.Fatalf("Values yielded %d of %d", n, v.Len())
	}
	full, _ := a.Host()
	count := 0
	for _, x := range full.All() {
		if x == -5 {
			count++
		}
	}
	if count != v.Len() {
		t.Fatalf("Fill of a view wrote %d elements, want %d", count, v.Len())
	}
}

func TestAlignment(t *testing.T) {
	for _, n := range []int{1, 3, 17, 1000} {
		p := unsafe.Pointer(unsafe.SliceData(alignedSlice[int8](n)))
		q := unsafe.Pointer(unsafe.SliceData(alignedSlice[float64](n)))
		if uintptr(p)%alignment != 0 || uintptr(q)%alignment != 0 {
			t.Fatalf("n=%d: %p %p not aligned", n, p, q)
		}
	}
}
