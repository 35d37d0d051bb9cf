package devkit

import "testing"

func TestBinSize(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{1, 512}, {512, 512}, {513, 1024}, {1 << 20, 1 << 20},
		{1<<20 + 1, 1<<20 + 1<<18}, {3 << 20, 3 << 20}, {1 << 30, 1 << 30}, {1<<30 + 1, 1<<30 + 1<<28},
	} {
		if got := BinSize(tc.n); got != tc.want {
			t.Errorf("BinSize(%d) = %d, want %d", tc.n, got, tc.want)
		}
		if got := BinSize(tc.n); got < tc.n || float64(got) > 1.25*float64(tc.n)+512 {
			t.Errorf("BinSize(%d) = %d wastes too much", tc.n, got)
		}
	}
}

func TestBlockCache(t *testing.T) {
	c := BlockCache{Limit: 1024}
	if _, ok := c.Get(512); ok {
		t.Fatal("Get from an empty cache")
	}
	if !c.Put(1, 512) || !c.Put(2, 512) || c.Put(3, 512) {
		t.Fatal("Put must keep two 512-byte blocks under a 1024-byte limit, not three")
	}
	if h, ok := c.Get(512); !ok || h != 2 {
		t.Fatalf("Get = %d, %v; want the last one put (2)", h, ok)
	}
	hs, n := c.Drain()
	if len(hs) != 1 || hs[0] != 1 || n != 512 {
		t.Fatalf("Drain = %v, %d", hs, n)
	}
	if _, ok := c.Get(512); ok {
		t.Fatal("Get after Drain")
	}
}

type blk struct{ s, n int }

func (b *blk) Range() (uintptr, int) { return uintptr(b.s), b.n }

func TestPinnedSet(t *testing.T) {
	var p PinnedSet[*blk]
	a, b := &blk{1000, 100}, &blk{100, 50}
	if !p.Add(a) || !p.Add(b) {
		t.Fatal("Add")
	}
	for _, tc := range []struct {
		s, n int
		want bool
	}{{100, 50, true}, {120, 31, false}, {1000, 1, true}, {1050, 50, true}, {1050, 51, false}, {99, 1, false}, {500, 1, false}} {
		if got := p.Contains(uintptr(tc.s), tc.n); got != tc.want {
			t.Errorf("Contains(%d, %d) = %v", tc.s, tc.n, got)
		}
	}
	if p.Close() != true || p.Add(&blk{5000, 1}) {
		t.Fatal("Close must report blocks in use and refuse new ones")
	}
	if r, last := p.Remove(a); !r || last {
		t.Fatal("Remove(a)")
	}
	if r, last := p.Remove(b); !r || !last {
		t.Fatal("Remove(b) must be the last")
	}
	if r, _ := p.Remove(b); r {
		t.Fatal("Remove twice")
	}
}
