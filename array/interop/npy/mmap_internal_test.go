package npy

import (
	"os"
	"testing"

	"github.com/resident-go/resident/array"
)

// TestReadMappedFallback: the fallback of systems without mmap reads what
// MapFile maps, in the same layout.
func TestReadMappedFallback(t *testing.T) {
	for _, name := range []string{"testdata/c_f8.npy", "testdata/f_f8.npy", "testdata/scalar_f4.npy", "testdata/empty_i2.npy"} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "testdata/scalar_f4.npy":
			checkFallback[float32](t, f, name)
		case "testdata/empty_i2.npy":
			checkFallback[int16](t, f, name)
		default:
			checkFallback[float64](t, f, name)
		}
		f.Close()
	}
}

func checkFallback[T array.Elem](t *testing.T, f *os.File, name string) {
	r, err := readMapped[T](f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m, err := MapFile[T](name, CopyOnWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if eq, err := array.Equal(r, m); err != nil || !eq {
		t.Fatalf("%s: the fallback reads %v, the map %v (%v)", name, r, m, err)
	}
}
