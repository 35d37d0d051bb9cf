package devkit

import (
	"bytes"
	"fmt"
	"testing"
)

// memSlots is a device in host memory: Enqueue moves the batch at once.
type memSlots struct {
	slots   [2][]byte
	dev     []byte
	write   bool
	pending [2]bool
	waits   int
}

func (m *memSlots) Slot(i int) []byte { return m.slots[i] }
func (m *memSlots) Wait(i int) error {
	if m.pending[i] {
		m.waits++
	}
	m.pending[i] = false
	return nil
}
func (m *memSlots) Enqueue(i int, batch []Piece) error {
	if m.pending[i] {
		return fmt.Errorf("slot %d reused before Wait", i)
	}
	m.pending[i] = true
	for _, p := range batch {
		for y := range p.Rows {
			d := m.dev[p.Off+y*p.Pitch : p.Off+y*p.Pitch+p.RowBytes]
			s := m.slots[i][p.Stage+y*p.RowBytes : p.Stage+(y+1)*p.RowBytes]
			if m.write {
				copy(d, s)
			} else {
				copy(s, d)
			}
		}
	}
	return nil
}

// TestStaged moves strided rows both ways through small slots and checks
// every byte against a direct copy, the gaps untouched.
func TestStaged(t *testing.T) {
	for _, tc := range []struct{ rowBytes, rows, pitch, chunk int }{
		{100, 50, 128, 1000}, {4096, 3, 4096, 1 << 20}, {3000, 7, 3100, 1024}, {1, 1000, 3, 64},
	} {
		n := (tc.rows-1)*tc.pitch + tc.rowBytes
		host := make([]byte, n)
		for i := range host {
			host[i] = byte(i*7 + 1)
		}
		pieces := func(fn func(Piece) error) error {
			for y := range tc.rows {
				if tc.rowBytes > tc.chunk {
					for seg := 0; seg < tc.rowBytes; seg += tc.chunk {
						if err := fn(Piece{Off: y*tc.pitch + seg, RowBytes: min(tc.chunk, tc.rowBytes-seg), Rows: 1, Pitch: tc.pitch}); err != nil {
							return err
						}
					}
					continue
				}
				if err := fn(Piece{Off: y * tc.pitch, RowBytes: tc.rowBytes, Rows: 1, Pitch: tc.pitch}); err != nil {
					return err
				}
			}
			return nil
		}
		batches := func(fn func([]Piece) error) error { return Batches(pieces, tc.chunk, fn) }
		m := &memSlots{slots: [2][]byte{make([]byte, tc.chunk), make([]byte, tc.chunk)}, dev: make([]byte, n), write: true}
		if err := Staged(m, true, host, batches, 4); err != nil {
			t.Fatal(err)
		}
		for y := range tc.rows {
			if !bytes.Equal(m.dev[y*tc.pitch:y*tc.pitch+tc.rowBytes], host[y*tc.pitch:y*tc.pitch+tc.rowBytes]) {
				t.Fatalf("%+v: write row %d differs", tc, y)
			}
			if g := m.dev[y*tc.pitch+tc.rowBytes : min(n, (y+1)*tc.pitch)]; len(g) > 0 && g[0] != 0 {
				t.Fatalf("%+v: write touched the gap after row %d", tc, y)
			}
		}
		back := make([]byte, n)
		m.write = false
		if err := Staged(m, false, back, batches, 4); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, m.dev) {
			t.Fatalf("%+v: read back differs", tc)
		}
		if m.pending != [2]bool{} {
			t.Fatalf("%+v: a slot left in flight", tc)
		}
	}
}
