package devkit_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
	"github.com/resident-go/resident/internal/devkit"
)

// fakeDriver logs what a Core asks of it.
type fakeDriver struct {
	log  []string
	next uintptr
	oom  int // NewBlock fails this many times, out of memory
}

var errOOM = errors.New("out of memory")

func (f *fakeDriver) add(s string, a ...any) { f.log = append(f.log, fmt.Sprintf(s, a...)) }
func (f *fakeDriver) NewBlock(size int) (uintptr, error) {
	if f.oom > 0 {
		f.oom--
		return 0, errOOM
	}
	f.next++
	f.add("new %d", f.next)
	return f.next, nil
}
func (f *fakeDriver) OutOfMemory(err error) bool { return errors.Is(err, errOOM) }
func (f *fakeDriver) FreeBlock(h uintptr) error  { f.add("free %d", h); return nil }
func (f *fakeDriver) Finish() error              { f.add("finish"); return nil }
func (f *fakeDriver) Drop() error                { f.add("drop"); return nil }
func (f *fakeDriver) Release() error             { f.add("release"); return nil }

type closer func() error

func (c closer) Close() error { return c() }

type block struct{ p [64]byte }

func (b *block) Range() (uintptr, int) { return uintptr(0x1000), 64 }
func (b *block) Bytes() []byte         { return make([]byte, 64) }

// TestCoreShutdown walks a Core through allocation, the cache, an
// out-of-memory retry and Close, and checks the documented order: hooks,
// the gate, the driver's Finish, the values, the live and cached blocks,
// Drop, and Release last, after the last pinned block when one outlives
// Close.
func TestCoreShutdown(t *testing.T) {
	f := &fakeDriver{}
	var c devkit.Core
	c.Init("fake", "fake:0", device.ErrClosed, device.ErrForeign, f)
	c.Pool.SetCacheLimit(1 << 20)
	dev := sim.New("a", 0)
	a, err := devkit.Malloc(&c, dev, 100, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := devkit.Malloc(&c, dev, 5000, false, nil)
	if err := devkit.FreeAlloc(&c, dev, b); err != nil { // to the cache
		t.Fatal(err)
	}
	f.oom = 1 // the next block fits only once the cache is freed
	x, err := devkit.Malloc(&c, dev, 100000, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := devkit.Malloc(&c, dev, -1, false, nil); !errors.Is(err, device.ErrOutOfRange) {
		t.Fatalf("Malloc(-1): %v", err)
	}
	c.Hooks.OnClose(func() {
		if c.Enter() != nil {
			t.Error("a close hook found the gate shut")
		} else {
			c.Gate.Leave()
		}
		f.add("hook")
	})
	c.Values.Value("k", func() any { return closer(func() error { f.add("value"); return nil }) })
	p := &block{}
	hb, err := devkit.AllocHost(&c, nil, 64, func() (*block, error) { return p, nil }, func(*block) error { return nil })
	if err != nil || !c.Pins.Contains(0x1000, 64) || len(hb.Bytes()) != 64 {
		t.Fatalf("AllocHost: %v", err)
	}
	f.log = f.log[:0]
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"hook", "finish", "value", "free 1", "free 3", "drop"}
	got := slices.Clone(f.log)
	slices.Sort(got[3:5]) // live roots in map order
	if !slices.Equal(got, want) {
		t.Fatalf("Close: %q, want %q (the cached block 2 was freed by the retry)", f.log, want)
	}
	if err := c.FreeHost(p, func() error { f.add("unpin"); return nil }); err != nil || !slices.Equal(f.log[len(f.log)-2:], []string{"unpin", "release"}) {
		t.Fatalf("the last pinned block's Free: %v %q", err, f.log)
	}
	n := len(f.log)
	if err := errors.Join(c.Close(), devkit.FreeAlloc(&c, dev, a), devkit.FreeAlloc(&c, dev, x), c.ReleaseCache(),
		c.FreeHost(p, func() error { t.Error("freed twice"); return nil })); err != nil || len(f.log) != n {
		t.Fatalf("after Close: %v %q", err, f.log[n:])
	}
	if _, err := devkit.Malloc(&c, dev, 1, false, nil); !errors.Is(err, device.ErrClosed) {
		t.Fatalf("Malloc after Close: %v", err)
	}
	if s := c.Counters.Snapshot(); s.AllocsLive != 0 || s.CachedBytes != 0 {
		t.Fatalf("counters after Close: %+v", s)
	}
}

// TestLive: Remove reports whether shutdown took an object first.
func TestLive(t *testing.T) {
	var l devkit.Live[int]
	l.Add(1)
	l.Add(2)
	if !l.Remove(1) || l.Remove(1) {
		t.Fatal("Remove")
	}
	var got []int
	l.Release(func(x int) error { got = append(got, x); return nil })
	if !slices.Equal(got, []int{2}) || l.Remove(2) {
		t.Fatalf("Release: %v", got)
	}
}

// TestShared opens once, and again after a Close.
func TestShared(t *testing.T) {
	var s devkit.Shared[*int]
	opened := 0
	closed := false
	open := func() (*int, error) { opened++; v := opened; return &v, nil }
	isClosed := func(*int) bool { return closed }
	a, _ := s.Get(isClosed, open)
	b, _ := s.Get(isClosed, open)
	closed = true
	c, _ := s.Get(isClosed, open)
	if a != b || c == a || opened != 2 {
		t.Fatalf("Get: %v %v %v, opened %d", a, b, c, opened)
	}
}

func TestStagingDefaults(t *testing.T) {
	chunk, least, d2h := 0, 7, -1
	devkit.StagingDefaults(&chunk, &least, &d2h, 1, 2, 3)
	if chunk != 1 || least != 7 || d2h != 3 {
		t.Fatal(chunk, least, d2h)
	}
}
