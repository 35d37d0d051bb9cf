package opencl

import (
	"bytes"
	"errors"
	"testing"

	"github.com/resident-go/resident/device"
)

// Adopt makes another owner's cl_mem an allocation: it reads and writes
// the same memory, holds a reference of its own (retain) so either side
// may free first, is counted while live, never goes to the cache, and
// refuses a cl_mem of another context or too few bytes.
func TestAdopt(t *testing.T) {
	d := open(t, Options{})
	const n = 256
	r := device.Region{ElemSize: 1, Shape: []device.Span{{Extent: n, Stride: 1}}}
	mine, err := d.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	mem := mine.Native()
	s0 := d.Stats()
	a, err := d.Adopt(mem, n, true)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.AllocsLive != s0.AllocsLive+1 {
		t.Errorf("the adopted allocation is not counted: %d live, %d before", s.AllocsLive, s0.AllocsLive)
	}
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 13)
	}
	if err := d.CopyIn(a, 0, src, r); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(mine); err != nil { // the owner frees first
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := d.CopyOut(got, a, 0, r); err != nil || !bytes.Equal(got, src) {
		t.Fatalf("reading the adopted cl_mem after its owner freed it: %v", err)
	}
	hits := d.Stats().CacheHits
	if err := d.Free(a); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.AllocsLive != s0.AllocsLive-1 {
		t.Errorf("after both frees: %d live, want %d", s.AllocsLive, s0.AllocsLive-1)
	}
	// The adopted memory did not go to the cache: a new Malloc of n
	// bytes may hit only the owner's block.
	b, _ := d.Malloc(n)
	c, _ := d.Malloc(n)
	if h := d.Stats().CacheHits - hits; h > 1 {
		t.Errorf("%d cache hits after freeing one owned and one adopted block, want at most 1", h)
	}
	mb := b.Native()
	if _, err := d.Adopt(mb, 1<<30, true); !errors.Is(err, device.ErrOutOfRange) { // Malloc rounds up, not this far
		t.Errorf("adopting more bytes than the cl_mem holds: %v", err)
	}
	other := open(t, Options{})
	if _, err := other.Adopt(mb, n, true); !errors.Is(err, ErrForeign) {
		t.Errorf("adopting a cl_mem of another context: %v", err)
	}
	d.Free(b)
	d.Free(c)
}
