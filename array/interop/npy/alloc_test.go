package npy_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/array/interop/npy"
)

// header is a version 1.0 .npy header for descr and shape (a Python tuple),
// padded to 16 bytes as NumPy before 1.22 wrote it.
func header(descr, shape string) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s}", descr, shape)
	for (10+len(dict)+1)%16 != 0 {
		dict += " "
	}
	dict += "\n"
	return append([]byte{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, byte(len(dict)), byte(len(dict) >> 8)}, dict...)
}

// allocated is the bytes f allocates on the heap, the least of 3 runs (a
// background allocation only adds).
func allocated(f func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// streamOnly hides a reader's Len, as a network stream or pipe would.
type streamOnly struct{ io.Reader }

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestHostileShapeCostsWhatItHolds: a header that claims a huge shape over
// little data costs memory in proportion to the bytes that arrive, not to
// the claim: a 96-byte file allocated 16 MiB up front, a stream of 64 MiB
// claiming 8 GiB allocated 280 MiB.
func TestHostileShapeCostsWhatItHolds(t *testing.T) {
	small := header("<f8", "(1099511627776,)") // 2^40 float64s
	small = append(small, make([]byte, 96-len(small))...)
	if len(small) != 96 {
		t.Fatalf("the small file has %d bytes, want 96", len(small))
	}
	for name, r := range map[string]func() io.Reader{
		"bytes.Reader": func() io.Reader { return bytes.NewReader(small) },
		"stream":       func() io.Reader { return streamOnly{bytes.NewReader(small)} },
	} {
		var err error
		n := allocated(func() { _, err = npy.ReadAny(r()) })
		if !errors.Is(err, npy.ErrFormat) {
			t.Errorf("%s: %v, want a truncation error", name, err)
		}
		if n > 64<<10 {
			t.Errorf("%s: a 96-byte file claiming 8 TiB allocated %d bytes, want ≤ 64 KiB", name, n)
		}
	}

	// A version 2.0 header may claim up to 1 MiB of header text.
	long := []byte{0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0, 0, 0x10, 0, '{'}
	var err error
	if n := allocated(func() { _, err = npy.ReadAny(streamOnly{bytes.NewReader(long)}) }); n > 64<<10 || !errors.Is(err, npy.ErrFormat) {
		t.Errorf("a 13-byte file claiming a 1 MiB header: %v, allocated %d bytes, want ≤ 64 KiB", err, n)
	}

	const data = 64 << 20
	stream := func() io.Reader {
		return io.MultiReader(bytes.NewReader(header("<u1", "(8589934592,)")), io.LimitReader(zeros{}, data))
	}
	n := allocated(func() { _, err = npy.Read[uint8](stream()) })
	if !errors.Is(err, npy.ErrFormat) {
		t.Errorf("%d MiB claiming 8 GiB: %v, want a truncation error", data>>20, err)
	}
	if n > data+data/2 {
		t.Errorf("a stream of %d MiB claiming 8 GiB allocated %d MiB, want ≤ %d MiB", data>>20, n>>20, (data+data/2)>>20)
	}

	// Honest data through a stream costs about twice its size (the pieces,
	// then the Array); from a reader that holds it all, once.
	honest := append(header("<u1", "(16777216,)"), make([]byte, 16<<20)...)
	for name, c := range map[string]struct {
		r   func() io.Reader
		max uint64
	}{
		"stream":       {func() io.Reader { return streamOnly{bytes.NewReader(honest)} }, 2*16<<20 + 1<<20},
		"bytes.Reader": {func() io.Reader { return bytes.NewReader(honest) }, 16<<20 + 1<<20},
	} {
		var a *array.Array[uint8]
		n := allocated(func() { a, err = npy.Read[uint8](c.r()) })
		if err != nil || a.Len() != 16<<20 {
			t.Fatalf("%s: honest 16 MiB: %v", name, err)
		}
		if n > c.max {
			t.Errorf("%s: honest 16 MiB allocated %d MiB, want ≤ %d MiB", name, n>>20, c.max>>20)
		}
	}
}

// TestReadFileAllocatesOnce: ReadFile knows the file's size, so a complete
// file's data is allocated once; a truncated one still fails cleanly.
func TestReadFileAllocatesOnce(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.npy")
	body := make([]byte, 8<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	if err := os.WriteFile(whole, append(header("<u1", "(8388608,)"), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	var a *array.Array[uint8]
	var err error
	n := allocated(func() { a, err = npy.ReadFile[uint8](whole) })
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := a.HostReadOnly(); !bytes.Equal(v.Data(), body) {
		t.Fatal("ReadFile changed the data")
	}
	if n > 8<<20+1<<20 {
		t.Errorf("ReadFile of 8 MiB allocated %d MiB, want ≤ 9 MiB", n>>20)
	}
	short := filepath.Join(dir, "short.npy")
	if err := os.WriteFile(short, append(header("<u1", "(8388608,)"), body[:1000]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := npy.ReadFile[uint8](short); !errors.Is(err, npy.ErrFormat) {
		t.Errorf("truncated file: %v", err)
	}
}

// TestArchiveAllocatesOnce: an honest .npz member is allocated once, at
// its size: 64 MiB of zeros deflate to about 64 KiB, and reading them
// allocated twice their size (pieces as the bytes arrived, then the
// Array) when deflate's bound on the member's claim already backs it.
func TestArchiveAllocatesOnce(t *testing.T) {
	const size = 16 << 20 // well above the bound's slack; 64 MiB took 46 s under -race
	dir := t.TempDir()
	for _, compressed := range []bool{true, false} {
		name := filepath.Join(dir, fmt.Sprintf("zeros-%v.npz", compressed))
		z := array.New[float32](size/4/1024, 1024)
		if err := npy.WriteArchiveFile(name, compressed, map[string]array.Buffer{"z": z}); err != nil {
			t.Fatal(err)
		}
		z.Close()
		var m map[string]array.Buffer
		var err error
		n := allocated(func() { m, err = npy.ReadArchiveFile(name) })
		if err != nil {
			t.Fatal(err)
		}
		a, ok := m["z"].(*array.Array[float32])
		if !ok || a.Len() != size/4 {
			t.Fatalf("compressed %v: read %T, want %d float32s", compressed, m["z"], size/4)
		}
		if n > size+size/10 {
			t.Errorf("compressed %v: a member of %d MiB allocated %d MiB, want ≤ 1.1× its size", compressed, size>>20, n>>20)
		}
	}
}
