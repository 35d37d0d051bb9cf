package rt

import "testing"

// A frame's Buf array: rank-sized Bufs whose Dim points at their own
// dims, freed with the array, for any count including none.
func TestBufs(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		bs := NewBufs(n)
		if bs == nil || len(bs) != n || cap(bs) < 1 {
			t.Fatalf("NewBufs(%d): len %d cap %d", n, len(bs), cap(bs))
		}
		for i := range bs {
			if bs[i] = NewBuf(i + 1); bs[i] == nil || len(bs[i].B.Dims()) != i+1 || bs[i].Kind != DevNone {
				t.Fatalf("NewBuf(%d): %+v", i+1, bs[i])
			}
			bs[i].B.Dims()[i].Extent = 7
		}
		FreeBufs(bs)
	}
}
