package uffd_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/resident-go/resident/internal/uffd"
)

func need(t *testing.T) {
	t.Helper()
	if !uffd.Available() {
		t.Skipf("no userfaultfd write-protect on %s here", runtime.GOOS)
	}
}

// Writes of every kind — a store, the runtime's copy and clear, another
// goroutine's, a system call's — into drawn pages of drawn mappings, some
// never touched before, are each seen once, and only on the watched
// pages; an unwritten watch stays clear; writers all finish.
func TestWritesSeen(t *testing.T) {
	need(t)
	pg := os.Getpagesize()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(6)
		m, err := syscall.Mmap(-1, 0, (n+2)*pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			for i := range m { // populated; otherwise the pages are untouched
				m[i] = 1
			}
		}
		base := uintptr(unsafe.Pointer(&m[0]))
		must(t, uffd.Register(base, uintptr(len(m))))
		w, err := uffd.New(base+uintptr(pg), uintptr(n*pg))
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.Protect())
		m[0], m[len(m)-1] = 7, 7 // outside: unseen
		if w.Hit() {
			t.Fatalf("round %d: a write outside the watch hit it", round)
		}
		at := pg + rng.IntN(n*pg)
		switch how := round % 5; how {
		case 0:
			m[at] = 9
		case 1:
			copy(m[at:], make([]byte, 1+rng.IntN(3*pg)))
		case 2:
			clear(m[pg : pg+n*pg])
		case 3:
			var wg sync.WaitGroup
			wg.Go(func() { m[at] = 3 })
			wg.Wait()
		case 4:
			f, err := os.Open("/dev/zero")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Read(m[at : at+1]); err != nil {
				t.Fatalf("round %d: a read(2) into watched memory: %v", round, err)
			}
			f.Close()
		}
		if !w.Hit() {
			t.Fatalf("round %d (write %d at page %d of %d): not seen", round, round%5, at/pg-1, n)
		}
		m[at] = 4 // unprotected by the hit: no second fault needed
		must(t, w.Protect())
		if w.Hit() {
			t.Fatalf("round %d: Protect left Hit set", round)
		}
		must(t, w.Close())
		must(t, w.Close()) // again: nothing
		m[pg] = 5          // closed: unprotected
		must(t, syscall.Munmap(m))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkWatch: protecting and lifting the protection of populated
// pages (the engine's cost per device-newer block), and a protection then
// one write (the write's fault, served by the thread, which lifts it all).
func BenchmarkWatch(b *testing.B) {
	if !uffd.Available() {
		b.Skip("no userfaultfd write-protect here")
	}
	for _, n := range []int{64 << 10, 1 << 20, 4 << 20} {
		m, _, w := mapWatched(b, n, false)
		clear(m)
		b.Run(fmt.Sprintf("protect-unprotect/%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				w.Protect()
				w.Unprotect()
			}
		})
		b.Run(fmt.Sprintf("protect-write/%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				w.Protect()
				m[n/2] = 1
			}
		})
		w.Close()
		syscall.Munmap(m)
	}
}

// mapWatched maps n bytes, registered (for fills too, with fill) and
// watched whole.
func mapWatched(tb testing.TB, n int, fill bool) ([]byte, uintptr, *uffd.Watch) {
	tb.Helper()
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		tb.Fatal(err)
	}
	p := uintptr(unsafe.Pointer(&m[0]))
	reg := uffd.Register
	if fill {
		reg = uffd.RegisterFill
	}
	if err := reg(p, uintptr(n)); err != nil {
		tb.Fatal(err)
	}
	w, err := uffd.New(p, uintptr(n))
	if err != nil {
		tb.Fatal(err)
	}
	return m, p, w
}

// Go heap memory, registered once per range: a write by the runtime's
// clear is seen; the range registered again costs no registration.
func TestHeapWatched(t *testing.T) {
	need(t)
	pg := uintptr(os.Getpagesize())
	buf := make([]byte, 64<<10) // a large object: its own pages
	lo := (uintptr(unsafe.Pointer(&buf[0])) + pg - 1) &^ (pg - 1)
	hi := (uintptr(unsafe.Pointer(&buf[len(buf)-1])) + 1) &^ (pg - 1)
	must(t, uffd.RegisterHeap(lo, hi-lo))
	_, _, before, _ := uffd.Counts()
	must(t, uffd.RegisterHeap(lo, hi-lo))
	if _, _, after, _ := uffd.Counts(); after != before {
		t.Fatalf("the range registered again: %d registrations, want 0", after-before)
	}
	w, err := uffd.New(lo, hi-lo)
	must(t, err)
	defer w.Close()
	must(t, w.Protect())
	f0, _, _, _ := uffd.Counts()
	clear(buf)
	if f1, _, _, _ := uffd.Counts(); !w.Hit() || f1 != f0+1 {
		t.Fatalf("clear of watched heap memory: hit %v, %d faults; want true, 1", w.Hit(), f1-f0)
	}
}

// TestPoke: the watcher's own store into protected pages lands with no
// write fault and no hit, drawn over pages and offsets of populated and
// untouched memory; the pages stay protected (a store after it hits).
func TestPoke(t *testing.T) {
	need(t)
	pg := uintptr(os.Getpagesize())
	rng := rand.New(rand.NewPCG(5, 9))
	for c := range 50 {
		buf := make([]byte, 64<<10)
		lo := (uintptr(unsafe.Pointer(&buf[0])) + pg - 1) &^ (pg - 1)
		hi := (uintptr(unsafe.Pointer(&buf[len(buf)-1])) + 1) &^ (pg - 1)
		must(t, uffd.RegisterHeap(lo, hi-lo))
		w, err := uffd.New(lo, hi-lo)
		must(t, err)
		if rng.IntN(2) == 0 {
			must(t, w.Protect())
		}
		at := int(lo-uintptr(unsafe.Pointer(&buf[0]))) + rng.IntN(int(hi-lo)-8)
		v := []byte{1, 2, 3, 4, 5, 6, 7, 8}[:1+rng.IntN(8)]
		f0, _, _, _ := uffd.Counts()
		must(t, w.Poke(uintptr(unsafe.Pointer(&buf[at])), v))
		if f1, _, _, _ := uffd.Counts(); w.Hit() || f1 != f0 || !slices.Equal(buf[at:at+len(v)], v) {
			t.Fatalf("case %d: a poke of %v at %d: hit %v, %d faults, bytes %v", c, v, at, w.Hit(), f1-f0, buf[at:at+len(v)])
		}
		must(t, w.Protect())
		buf[at] = 9
		if !w.Hit() {
			t.Fatalf("case %d: a store after the poke was not seen", c)
		}
		w.Close()
	}
}

// deviceEnv names the environment variable under which make
// test-unprivileged runs this package's tests as nobody, in a mount
// namespace where /dev/userfaultfd is open to everyone.
const deviceEnv = "UFFD_TEST_DEVICE"

// TestOpensDevice: a process the system call refuses (no privilege, the
// sysctl at 0) but that may open /dev/userfaultfd gets a userfaultfd
// there, and the other tests then run on it.
func TestOpensDevice(t *testing.T) {
	if os.Getenv(deviceEnv) != "1" {
		t.Skip("run by make test-unprivileged, as nobody with /dev/userfaultfd open to it")
	}
	if os.Geteuid() == 0 {
		t.Fatal("running as root: the system call would not be refused")
	}
	if !uffd.Available() {
		t.Fatal("no userfaultfd: /dev/userfaultfd was not opened")
	}
}
