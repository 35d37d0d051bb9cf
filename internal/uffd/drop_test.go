package uffd_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/uffd"
)

// Dropped pages (a drawn run of a watch's) of drawn mappings, populated
// or not, protected or not, come back holding the source's bytes (then zeros) whoever touches them
// first — a load, the runtime's copy, another goroutine, write(2) out of
// them, a store — each drop with one fill; a store after the fill is a
// hit where the watch was protected; Settle fills, or gives zeros to a
// range the caller overwrites; Forget leaves zeros. A touch of the watch
// outside the drop first leaves the drop whole. Nothing stays live.
func TestDropFilled(t *testing.T) {
	need(t)
	pg := os.Getpagesize()
	rng := rand.New(rand.NewPCG(3, 4))
	_, _, _, live0 := uffd.Counts()
	for round := range 200 {
		np := 1 + rng.IntN(8)
		m, err := syscall.Mmap(-1, 0, np*pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		must(t, err)
		if rng.IntN(2) == 0 {
			for i := range m {
				m[i] = 0xee
			}
		}
		base := uintptr(unsafe.Pointer(&m[0]))
		must(t, uffd.RegisterFill(base, uintptr(len(m))))
		w, err := uffd.New(base, uintptr(len(m)))
		must(t, err)
		prot := rng.IntN(2) == 0
		if prot {
			must(t, w.Protect())
		}
		// The drop: pages [p0, p1) of the watch's, n bytes of src at off.
		p0 := rng.IntN(np)
		p1 := p0 + 1 + rng.IntN(np-p0)
		lo, hi := p0*pg, p1*pg
		n := hi - lo - rng.IntN(pg)
		src := make([]byte, np*pg+rng.IntN(pg))
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		off := rng.IntN(len(src) - n + 1)
		want := slices.Clone(m)
		clear(want[lo:hi])
		copy(want[lo:], src[off:off+n])
		_, f0 := uffd.Fills()
		drop := func() error {
			return w.Drop(uffd.MemSource(uintptr(unsafe.Pointer(&src[0]))), uintptr(off), base+uintptr(lo), base+uintptr(hi), uintptr(n))
		}
		must(t, drop())
		must(t, drop()) // again: as it is
		if out := rng.IntN(np); (out < p0 || out >= p1) && rng.IntN(2) == 0 {
			// A page of the watch outside the drop first: its zeros (or
			// bytes) never land on the dropped pages.
			if got := m[out*pg]; got != want[out*pg] {
				t.Fatalf("round %d: outside the drop, page %d reads %#x, want %#x", round, out, got, want[out*pg])
			}
		}
		at := lo + rng.IntN(hi-lo)
		how := round % 7
		var got byte
		switch how {
		case 0:
			got = m[at]
		case 1:
			b := make([]byte, 1+rng.IntN(len(m)-at))
			copy(b, m[at:])
			got = b[0]
		case 2:
			var wg sync.WaitGroup
			wg.Go(func() { got = m[at] })
			wg.Wait()
		case 3:
			f, err := os.CreateTemp(t.TempDir(), "out")
			must(t, err)
			if _, err := f.Write(m[at:]); err != nil {
				t.Fatalf("round %d: write(2) out of dropped pages: %v", round, err)
			}
			b := make([]byte, 1)
			_, err = f.ReadAt(b, 0)
			must(t, err)
			f.Close()
			got = b[0]
		case 4:
			m[at] = want[at] ^ 0xff
			want[at] ^= 0xff
			got = m[at]
		case 5:
			must(t, uffd.Settle(base+uintptr(at), 1, false))
			got = want[at]
		case 6:
			must(t, uffd.Settle(base+uintptr(lo), uintptr(n), true))
			clear(want[lo:hi])
			got = want[at]
		}
		if got != want[at] {
			t.Fatalf("round %d (touch %d): byte %d reads %#x, want %#x", round, how, at, got, want[at])
		}
		filled, dropped, err := w.Filled()
		must(t, err)
		if _, f1 := uffd.Fills(); dropped || filled != (how != 6) || f1-f0 != map[bool]uint64{true: 1, false: 0}[how != 6] {
			t.Fatalf("round %d (touch %d): filled %v dropped %v, %d fills; want %v false %d", round, how, filled, dropped, f1-f0, how != 6, map[bool]int{true: 1, false: 0}[how != 6])
		}
		if !bytes.Equal(m, want) {
			t.Fatalf("round %d (touch %d): the pages after the fill differ from the source", round, how)
		}
		if prot && how != 6 {
			if w.Hit() != (how == 4) {
				t.Fatalf("round %d (touch %d): hit %v after the fill", round, how, w.Hit())
			}
			m[hi-1] ^= 1
			if !w.Hit() {
				t.Fatalf("round %d: a store after the fill not seen", round)
			}
		}
		if round%3 == 0 { // Forget: zeros, the pages outside as they were
			want = slices.Clone(m)
			clear(want[lo:hi])
			must(t, drop())
			w.Forget()
			if !bytes.Equal(m, want) {
				t.Fatalf("round %d: a forgotten drop does not read as zeros", round)
			}
		}
		must(t, w.Close())
		must(t, syscall.Munmap(m))
	}
	if _, _, _, live := uffd.Counts(); live != live0 {
		t.Fatalf("%d watches live after closing all", live-live0)
	}
}

// A drop closed before any touch: the pages read as zeros, and the
// source is not read.
func TestDropClosed(t *testing.T) {
	pg := os.Getpagesize()
	m, base := fillMapping(t, 2)
	w, err := uffd.New(base, uintptr(len(m)))
	must(t, err)
	src := bytes.Repeat([]byte{7}, len(m))
	must(t, w.Drop(uffd.MemSource(uintptr(unsafe.Pointer(&src[0]))), 0, base, base+uintptr(len(m)), uintptr(len(m))))
	_, f0 := uffd.Fills()
	must(t, w.Close())
	if m[pg] != 0 {
		t.Fatalf("a closed drop reads %d, want 0", m[pg])
	}
	if _, f1 := uffd.Fills(); f1 != f0 {
		t.Fatalf("%d fills after the close, want 0", f1-f0)
	}
}

// fillMapping maps n pages registered with RegisterFill, unmapped when t
// ends; it skips t where there is no userfaultfd.
func fillMapping(t *testing.T, n int) ([]byte, uintptr) {
	need(t)
	m, err := syscall.Mmap(-1, 0, n*os.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	must(t, err)
	t.Cleanup(func() { syscall.Munmap(m) })
	base := uintptr(unsafe.Pointer(&m[0]))
	must(t, uffd.RegisterFill(base, uintptr(len(m))))
	return m, base
}

// BenchmarkFill: a drop of n bytes, then the touch that fills them from a
// host source (sim's kind): the C thread's own cost per fill, without a
// device's read.
func BenchmarkFill(b *testing.B) {
	if !uffd.Available() {
		b.Skip("no userfaultfd here")
	}
	for _, n := range []int{64 << 10, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprint(n>>10, "KiB"), func(b *testing.B) {
			m, base, w := mapWatched(b, n, true)
			defer syscall.Munmap(m)
			defer w.Close()
			src := make([]byte, n)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Drop(uffd.MemSource(uintptr(unsafe.Pointer(&src[0]))), 0, base, base+uintptr(n), uintptr(n)); err != nil {
					b.Fatal(err)
				}
				fillSink += m[0]
			}
		})
	}
}

var fillSink byte // a load the compiler keeps
