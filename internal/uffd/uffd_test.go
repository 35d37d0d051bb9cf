package uffd_test

import (
	"math/rand/v2"
	"os"
	"runtime"
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
		m[pg] = 5 // closed: unprotected
		must(t, syscall.Munmap(m))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
