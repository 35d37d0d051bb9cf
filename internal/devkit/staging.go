package devkit

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
)

// Staging: drivers move pageable memory slowly (NVIDIA: 6–10 GB/s against
// 53 GB/s pinned), so devices copy ordinary Go memory through two pinned
// slots, in Go, several goroutines at once, while the other slot's batch
// is on the bus. Go memory never reaches a non-blocking driver call.

// Piece is a run of rows that one driver call moves: Rows rows of
// RowBytes bytes, Pitch bytes apart, the first at byte Off from the
// Region's first byte (host and device alike: they share the layout),
// packed at Stage in a staging slot.
type Piece struct {
	Off, RowBytes, Rows, Pitch, Stage int
}

// Bytes is the bytes the piece moves.
func (p Piece) Bytes() int { return p.RowBytes * p.Rows }

// MinBatch is the smallest staging batch: a transfer under two slots
// goes in two batches (split) of at least MinBatch, so that the copy of one
// overlaps the DMA of another (in one batch, a 4 MiB move from Go memory
// was the copy's time plus the DMA's: 11 GB/s on the H200).
const MinBatch = 256 << 10

// BatchBytes is the staging batch for a transfer of n bytes through slots
// of chunk bytes.
func BatchBytes(chunk, n int) int {
	return min(chunk, max(MinBatch, (n/int(split.Load())+4095)&^4095))
}

// split is how many batches a transfer under two chunks is cut into: 2,
// or another (1…64) that the benchmarks set (-staging.split) to measure
// it. On the H200 (bench/results/h200-transfers.md) 2 moved Go memory
// fastest: 4 MiB up at 13.8 GB/s against 12.2 with 4 and 10.2 with 8.
var split atomic.Int32

func init() { split.Store(2) }

// SetSplit sets split from a flag's text, 1…64.
func SetSplit(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 64 {
		return fmt.Errorf("staging split %q: want 1…64", v)
	}
	split.Store(int32(n))
	return nil
}

// Batches groups the pieces that pieces yields (each at most chunk bytes)
// into batches of at most chunk bytes, setting each piece's Stage, and
// calls fn for each batch.
func Batches(pieces func(fn func(Piece) error) error, chunk int, fn func(batch []Piece) error) error {
	var cur []Piece
	fill := 0
	err := pieces(func(p Piece) error {
		if fill+p.Bytes() > chunk {
			if err := fn(cur); err != nil {
				return err
			}
			cur, fill = nil, 0
		}
		p.Stage = fill
		fill += p.Bytes()
		cur = append(cur, p)
		return nil
	})
	if err == nil && len(cur) > 0 {
		err = fn(cur)
	}
	return err
}

// MoveRows copies a batch's rows between host and the packed slot
// (gather: host to slot), split over up to k goroutines.
func MoveRows(slot, host []byte, batch []Piece, gather bool, k int) {
	total, rows := 0, 0
	for _, p := range batch {
		total += p.Bytes()
		rows += p.Rows
	}
	if len(batch) == 1 && batch[0].Rows == 1 {
		p := batch[0]
		h, s := host[p.Off:p.Off+p.RowBytes], slot[p.Stage:p.Stage+p.RowBytes]
		if gather {
			ParallelCopy(s, h, k)
		} else {
			ParallelCopy(h, s, k)
		}
		return
	}
	k = max(min(k, total/CopyPiece, rows), 1)
	per := (rows + k - 1) / k
	run := func(lo, hi int) { // global row numbers [lo, hi)
		first := 0
		for _, p := range batch {
			for y := max(lo-first, 0); y < min(hi-first, p.Rows); y++ {
				h := host[p.Off+y*p.Pitch : p.Off+y*p.Pitch+p.RowBytes]
				s := slot[p.Stage+y*p.RowBytes : p.Stage+(y+1)*p.RowBytes]
				if gather {
					copy(s, h)
				} else {
					copy(h, s)
				}
			}
			first += p.Rows
		}
	}
	var wg sync.WaitGroup
	for lo := per; lo < rows; lo += per {
		wg.Go(func() { run(lo, min(lo+per, rows)) })
	}
	run(0, min(per, rows))
	wg.Wait()
}

// Slots is a device's side of a staged transfer.
type Slots interface {
	// Slot is staging slot i (0 or 1).
	Slot(i int) []byte
	// Enqueue queues the batch's transfers between slot i and the
	// device without waiting, so that Wait(i) waits for them.
	Enqueue(i int, batch []Piece) error
	// Wait waits for slot i's last Enqueue; without one it returns nil.
	Wait(i int) error
}

// Staged moves host's bytes through the two slots, batch by batch (as
// batches yields them; see Batches). Writing, batch i is gathered into
// one slot while batch i-1 is on the bus from the other; reading, batch i
// is on the bus while batch i-1 is scattered. A slot is reused only after
// its last transfer completed, and none is left in flight on return.
func Staged(sl Slots, write bool, host []byte, batches func(fn func(batch []Piece) error) error, k int) (err error) {
	defer func() {
		for i := range 2 {
			if e := sl.Wait(i); err == nil {
				err = e
			}
		}
	}()
	var pending [2][]Piece // read batches on the bus, to scatter
	i := 0
	finish := func(slot int) error {
		if err := sl.Wait(slot); err != nil {
			return err
		}
		if pending[slot] != nil {
			MoveRows(sl.Slot(slot), host, pending[slot], false, k)
			pending[slot] = nil
		}
		return nil
	}
	err = batches(func(batch []Piece) error {
		slot := i & 1
		i++
		if err := finish(slot); err != nil {
			return err
		}
		if write {
			MoveRows(sl.Slot(slot), host, batch, true, k)
		}
		if err := sl.Enqueue(slot, batch); err != nil {
			return err
		}
		if write {
			return nil
		}
		pending[slot] = batch
		return finish(slot ^ 1)
	})
	if err != nil {
		return err
	}
	return finish((i - 1) & 1)
}
