package uffd_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/uffd"
)

// Dropped pages of drawn mappings, populated or not, protected or not,
// come back holding the source's bytes (then zeros) whoever touches them
// first — a load, the runtime's copy, another goroutine, write(2) out of
// them, a store — each drop with one fill; a store after the fill is a
// hit where the watch was protected; Settle fills, or gives zeros to a
// range the caller overwrites; Forget leaves zeros. Nothing stays live.
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
		// The watch: all the pages, or (edged) all but the first and last,
		// whose other bytes are other memory's, kept by the drop.
		edged := np >= 3 && rng.IntN(2) == 0
		wlo, whi := base, base+uintptr(len(m))
		if edged {
			wlo, whi = base+uintptr(pg), base+uintptr(len(m)-pg)
		}
		w, err := uffd.New(wlo, whi-wlo)
		must(t, err)
		prot := rng.IntN(2) == 0
		if prot {
			must(t, w.Protect())
		}
		src := make([]byte, np*pg+rng.IntN(pg))
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		at0 := 0
		if edged {
			at0 = 1 + rng.IntN(pg-1)
		}
		n := len(m) - at0 - rng.IntN(pg)
		off := rng.IntN(len(src) - n + 1)
		want := slices.Clone(m)
		copy(want[at0:], src[off:off+n])
		_, f0 := uffd.Fills()
		drop := func() error {
			return w.Drop(uffd.MemSource(uintptr(unsafe.Pointer(&src[0]))), uintptr(off), base, base+uintptr(len(m)), uintptr(at0), uintptr(n))
		}
		must(t, drop())
		must(t, drop()) // again: as it is
		at := rng.IntN(len(m))
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
			must(t, uffd.Settle(base+uintptr(at0), uintptr(n), true))
			clear(want[at0 : at0+n])
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
		inWatch := base+uintptr(at) >= wlo && base+uintptr(at) < whi
		if prot && how != 6 {
			if w.Hit() != (how == 4 && inWatch) {
				t.Fatalf("round %d (touch %d): hit %v after the fill", round, how, w.Hit())
			}
			m[whi-base-1] ^= 1
			if !w.Hit() {
				t.Fatalf("round %d: a store after the fill not seen", round)
			}
		}
		if how != 6 && edged {
			// The source's bytes outside the watch: compared, not watched.
			if w.EdgesWritten() != (how == 4 && !inWatch && at >= at0 && at < at0+n) {
				t.Fatalf("round %d (touch %d at %d): edges written %v", round, how, at, w.EdgesWritten())
			}
			m[at0] ^= 1
			if !w.EdgesWritten() {
				t.Fatalf("round %d: a store to the first source byte (outside the watch) not seen", round)
			}
			m[at0] ^= 1
			m[0] ^= 1 // other memory's: not the source's
			if w.EdgesWritten() != (how == 4 && !inWatch && at >= at0 && at < at0+n) {
				t.Fatalf("round %d: a store to other memory seen as the source's", round)
			}
		}
		if round%3 == 0 { // Forget: zeros for the source's bytes, the rest kept
			want = slices.Clone(m)
			clear(want[at0 : at0+n])
			must(t, drop())
			w.Forget()
			if !bytes.Equal(m, want) {
				t.Fatalf("round %d: a forgotten drop does not read as zeros and the bytes kept", round)
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
	must(t, w.Drop(uffd.MemSource(uintptr(unsafe.Pointer(&src[0]))), 0, base, base+uintptr(len(m)), 0, uintptr(len(m))))
	_, f0 := uffd.Fills()
	must(t, w.Close())
	if m[pg] != 0 {
		t.Fatalf("a closed drop reads %d, want 0", m[pg])
	}
	if _, f1 := uffd.Fills(); f1 != f0 {
		t.Fatalf("%d fills after the close, want 0", f1-f0)
	}
}

// Other memory sharing a dropped range's pages keeps every write: a
// goroutine counts in the first page's first word while the range is
// dropped, filled and dropped again, over and over; no increment is lost.
func TestDropLosesNoWrite(t *testing.T) {
	pg := os.Getpagesize()
	m, base := fillMapping(t, 4)
	w, err := uffd.New(base+uintptr(pg), uintptr(2*pg))
	must(t, err)
	defer w.Close()
	src := bytes.Repeat([]byte{3}, 4*pg)
	counter := (*uint64)(unsafe.Pointer(&m[0]))
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var k uint64
		for {
			select {
			case <-stop:
				done <- k
				return
			default:
				*counter++
				k++
			}
		}
	}()
	for range 300 {
		must(t, w.Protect())
		must(t, w.Drop(uffd.MemSource(uintptr(unsafe.Pointer(&src[0]))), 0, base, base+uintptr(len(m)), 64, uintptr(len(m)-128)))
		if m[2*pg] != 3 { // a read fills
			t.Fatalf("a fill reads %d, want 3", m[2*pg])
		}
	}
	close(stop)
	if k := <-done; *counter != k {
		t.Fatalf("the counter sharing the dropped pages reads %d, want %d: writes lost", *counter, k)
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
