package array

import (
	"errors"
	"testing"
)

func typeName[T Elem]() string { return TypeOf[T]().String() }

// Every Elem's Type finds its own instance, and nothing else finds one.
func TestGenericFor(t *testing.T) {
	g := Instances(typeName[int8], typeName[int16], typeName[int32], typeName[int64],
		typeName[uint8], typeName[uint16], typeName[uint32], typeName[uint64],
		typeName[Float16], typeName[BFloat16], typeName[float32], typeName[float64])
	found := 0
	for code := range Code(8) {
		for bits := range 80 {
			for _, lanes := range []uint16{1, 4} {
				typ := Type{code, uint8(bits), lanes}
				f, err := g.For(typ)
				if err != nil {
					if !errors.Is(err, ErrType) {
						t.Fatalf("For(%v): %v, want ErrType", typ, err)
					}
					continue
				}
				found++
				if got := f(); got != typ.String() {
					t.Errorf("For(%v) is the instance for %s", typ, got)
				}
			}
		}
	}
	if found != nElem {
		t.Errorf("%d types found an instance, want %d", found, nElem)
	}
	var none func() string
	h := Instances(none, none, none, none, none, none, none, none, none, none, typeName[float32], none)
	if _, err := h.For(TypeOf[int8]()); !errors.Is(err, ErrType) {
		t.Errorf("a nil instance: %v, want ErrType", err)
	}
	if f, err := h.For(TypeOf[float32]()); err != nil || f() != "float32" {
		t.Errorf("For(float32): %v", err)
	}
}

func TestNewOf(t *testing.T) {
	b, err := NewOf(TypeOf[uint16](), []int{2, -1}, []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := b.(*Array[uint16])
	if !ok || a.Dim(0).Min != 2 || a.Dim(1).Min != -1 || a.Dim(1).Extent != 4 || a.Dim(1).Stride != 3 {
		t.Fatalf("NewOf: %T %v", b, b)
	}
	if _, err := NewOf(Type{Float, 8, 1}, nil, nil); !errors.Is(err, ErrType) {
		t.Fatalf("NewOf(float8): %v, want ErrType", err)
	}
}

// BenchmarkGenericFor is the lookup on the engine's per-op path.
func BenchmarkGenericFor(b *testing.B) {
	g := Instances(typeName[int8], typeName[int16], typeName[int32], typeName[int64],
		typeName[uint8], typeName[uint16], typeName[uint32], typeName[uint64],
		typeName[Float16], typeName[BFloat16], typeName[float32], typeName[float64])
	t := TypeOf[int32]()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.For(t); err != nil {
			b.Fatal(err)
		}
	}
}
