package array_test

import (
	"errors"
	"github.com/resident-go/resident/internal/guard"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

func fill(v uint16) func([]int) uint16 { return func([]int) uint16 { return v } }

func hostAt(t *testing.T, a *array.Array[uint16], c ...int) uint16 {
	t.Helper()
	v, err := a.HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	return v.At(c...)
}

func TestResidencyCounters(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](64, 32)
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.H2DCalls != 1 || s.H2DBytes != 64*32*2 || s.AllocsLive != 1 {
		t.Fatalf("first CopyToDevice: %v", s)
	}
	if err := a.CopyToDevice(d); err != nil || d.Stats().H2DCalls != 1 {
		t.Fatalf("CopyToDevice with a clean host copied: %v %v", err, d.Stats())
	}
	deviceWrite(t, d, a, fill(7), false)
	if hostAt(t, a, 63, 31) != 7 || hostAt(t, a, 0, 0) != 7 {
		t.Fatal("host view missed the device write")
	}
	if s := d.Stats(); s.D2HCalls != 1 || s.D2HBytes != 64*32*2 {
		t.Fatalf("two host views: %v", s)
	}
	w, _ := a.Host()
	w.Set(9, 0, 0)
	if !a.HostDirty() {
		t.Fatal("writable view did not mark host dirty")
	}
	a.CopyToDevice(d)
	if a.HostDirty() || d.Stats().H2DCalls != 2 {
		t.Fatal("host-dirty Array was not uploaded")
	}
	w.Set(10, 1, 0) // after an upload, an old view marks again
	if !a.HostDirty() {
		t.Fatal("write after upload was not marked")
	}
	a.Close()
	if s := d.Stats(); s.AllocsLive != 0 {
		t.Fatalf("after Close: %v", s)
	}
}

// Defect 1: a crop made before its parent had a device copy must share
// the parent's allocation, in every direction.
func TestCropBeforeUploadSharesAllocation(t *testing.T) {
	d := sim.New("test", 0)
	big := array.New[uint16](64, 64)
	win := big.Crop(1, 32, 32) // made before any allocation
	left := big.Crop(0, 0, 32) // a sibling overlapping win
	deviceWrite(t, d, win, fill(15), false)
	if got, _ := deviceRead(t, d, big); got[40*64] != 15 {
		t.Fatalf("parent's device read after the crop's device write: %d, want 15", got[40*64])
	}
	deviceWrite(t, d, win, fill(17), false)
	if got, _ := deviceRead(t, d, big); got[40*64] != 17 {
		t.Fatalf("parent's device read after a second crop write: %d, want 17", got[40*64])
	}
	deviceWrite(t, d, big, fill(3), false) // parent → crop
	if got, _ := deviceRead(t, d, win); got[0] != 3 {
		t.Fatalf("crop's device read after the parent's write: %d, want 3", got[0])
	}
	deviceWrite(t, d, left, fill(5), false) // sibling → sibling
	if got, _ := deviceRead(t, d, win); got[0] != 5 || got[40] != 3 {
		t.Fatalf("crop's device read after the sibling's write: %d %d, want 5 3", got[0], got[40])
	}
	if s := d.Stats(); s.AllocsTotal != 1 {
		t.Fatalf("views made %d allocations, want the root's one", s.AllocsTotal)
	}
	if hostAt(t, big, 0, 40) != 5 || hostAt(t, big, 40, 40) != 3 || hostAt(t, big, 40, 0) != 3 {
		t.Fatal("host reads disagree with the device writes")
	}
}

// Defect 3: closing a device loses nothing and crashes nothing.
func TestDeviceCloseKeepsData(t *testing.T) {
	d := sim.New("test", 0)
	a, err := array.NewIn[uint16](d, 64, 8)
	if err != nil {
		t.Fatal(err)
	}
	deviceWrite(t, d, a.Crop(1, 2, 3), fill(42), false)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if a.DeviceDirty() || a.Device() != nil {
		t.Fatal("the Array still points at the closed device")
	}
	if got := hostAt(t, a, 5, 3); got != 42 {
		t.Fatalf("the device write did not come home at Close: %d, want 42", got)
	}
	h, err := a.Host()
	if err != nil {
		t.Fatal(err)
	}
	h.Fill(1) // the pinned host memory outlives the device
	if h.At(5, 5) != 1 || hostAt(t, a.Crop(1, 3, 1), 0, 3) != 1 {
		t.Fatal("host memory after the device closed")
	}
	if d.HostBlocksLive() != 1 {
		t.Fatal("host block released while the Array uses it")
	}
	a.Close()
	if d.HostBlocksLive() != 0 {
		t.Fatal("Close did not return the host block")
	}
	b := array.New[uint16](4)
	deviceWrite(t, sim.New("x", 0), b, fill(9), false)
	if hostAt(t, b, 3) != 9 {
		t.Fatal("device write lost")
	}
}

// Defect 4: a failed call leaves data and bits as they were.
func TestFailedWriteKeepsHostWrites(t *testing.T) {
	d := sim.New("test", 0)
	c := array.New[uint16](8, 8)
	deviceWrite(t, d, c, fill(3), false)
	h, _ := c.Host()
	h.Fill(42)
	if err := deviceWrite(t, d, c, fill(4), true); err == nil {
		t.Fatal("injected failure did not fail")
	}
	if got, _ := deviceRead(t, d, c); got[63] != 42 {
		t.Fatalf("device read after a failed write: %d, want the host's 42", got[63])
	}
	if hostAt(t, c, 7, 7) != 42 {
		t.Fatal("host data lost")
	}
}

// Defect 5: every dropped Array's device memory is freed, even next to a
// live one (the cleanup is keyed on an object the tiny allocator never
// packs).
func TestCleanupBackstop(t *testing.T) {
	d := sim.New("test", 0)
	live := array.New[uint16](16)
	live.CopyToDevice(d)
	func() {
		for range 2000 {
			a := array.New[uint16](4)
			deviceWrite(t, d, a, fill(1), false)
			a.Crop(0, 1, 2).HostReadOnly() // unclosed views pin nothing
		}
	}()
	for i := 0; i < 100 && d.Stats().AllocsLive != 1; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := d.Stats().AllocsLive; n != 1 {
		t.Fatalf("%d allocations live after 2000 dropped Arrays, want the live one", n)
	}
	runtime.KeepAlive(live)
}

// Defect 6: Close on the root frees its memory whatever its views did; a
// view used afterwards panics with ErrClosed.
func TestRootCloseFreesDespiteViews(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](16, 16)
	v := a.Crop(0, 2, 4)
	deviceWrite(t, d, v, fill(2), false)
	if _, err := v.HostReadOnly(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil { // views need no Close: a no-op
		t.Fatal(err)
	}
	if d.Stats().AllocsLive != 1 {
		t.Fatal("a view's Close freed the root's memory")
	}
	a.Close()
	a.Close()
	if d.Stats().AllocsLive != 0 {
		t.Fatal("root Close left the allocation live")
	}
	if _, err := v.HostReadOnly(); !errors.Is(err, array.ErrClosed) {
		t.Fatalf("view of a closed root: %v, want ErrClosed", err)
	}
	if _, err := a.Crop(0, 0, 1).HostReadOnly(); !errors.Is(err, array.ErrClosed) {
		t.Fatalf("crop of a closed root: %v, want ErrClosed", err)
	}
}

// Defect 7: goroutines on disjoint crops are independent and race-free;
// a device write to one crop leaves a disjoint sibling's host view fresh.
func TestDisjointCropsConcurrent(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](64, 16)
	const n = 4
	var wg sync.WaitGroup
	for g := range n {
		col := a.Crop(0, g*16, 16)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				v := uint16(g*1000 + i)
				if i%2 == 0 {
					h, err := col.Host()
					if err != nil {
						t.Error(err)
						return
					}
					h.Fill(v)
				} else if err := deviceWrite(t, d, col, fill(v), false); err != nil {
					t.Error(err)
					return
				}
				if got := hostAt(t, col, g*16+15, 15); got != v {
					t.Errorf("column %d: got %d, want %d", g, got, v)
					return
				}
			}
		}()
	}
	wg.Wait()
	left, right := a.Crop(0, 0, 8), a.Crop(0, 8, 8)
	h, _ := left.HostReadOnly()
	deviceWrite(t, d, right, fill(1), false)
	_ = h.At(0, 0) // disjoint: not stale
	deviceWrite(t, d, a.Crop(0, 7, 2), fill(2), false)
	mustPanicWith(t, array.ErrStale, func() { h.At(0, 0) })
}

// Defect 8: CopyFrom between overlapping views of one memory is memmove.
func TestCopyFromOverlapping(t *testing.T) {
	a := array.New[int32](8, 8)
	h, _ := a.Host()
	want := make([]int32, 64)
	for y := range 8 {
		for x := range 8 {
			h.Set(int32(x+10*y), x, y)
			want[y+8*x] = int32(x + 10*y) // the transpose
		}
	}
	src, err := a.Transpose(0, 1).HostReadOnly()
	if err != nil {
		t.Fatal(err)
	}
	h.CopyFrom(src) // the view aliases h: the copy must go through a temporary
	r, _ := a.HostReadOnly()
	for i, w := range want {
		if g := r.At(i%8, i/8); g != w {
			t.Fatalf("element (%d,%d): got %d, want %d", i%8, i/8, g, w)
		}
	}
	// Shifted overlap, both directions.
	b := array.FromSlice([]int32{0, 1, 2, 3, 4, 5, 6, 7})
	bd, _ := b.Crop(0, 2, 6).Translate(0, -2).Host()
	bs, _ := b.Crop(0, 0, 6).HostReadOnly()
	bd.CopyFrom(bs)
	if got, _ := b.HostReadOnly(); got.At(7) != 5 || got.At(2) != 0 {
		t.Fatalf("overlapping shift: %v", got)
	}
}

func TestTransferGuardAndForeign(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](8)
	deviceWrite(t, d, a, fill(2), false)
	was := guard.Set(true)
	_, err := a.HostReadOnly()
	guard.Set(was)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("guarded host view: %v", err)
	}
	if err := a.CopyToDevice(sim.New("other", 0)); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("CopyToDevice to another device: %v", err)
	}
	if err := a.DeviceFree(); err != nil || hostAt(t, a, 7) != 2 {
		t.Fatal("DeviceFree lost device data", err)
	}
	small := sim.New("small", 10)
	if err := array.New[uint16](100).CopyToDevice(small); err == nil {
		t.Fatal("allocation beyond the device limit succeeded")
	}
	other := sim.New("other", 0)
	al, _ := other.Malloc(64)
	if err := array.New[uint16](8).DeviceWrap(d, al); !errors.Is(err, device.ErrForeign) {
		t.Fatalf("DeviceWrap of another device's allocation: %v", err)
	}
	w := array.New[uint16](32)
	if err := w.DeviceWrap(other, al); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if other.Stats().AllocsLive != 1 {
		t.Fatal("Close freed a wrapped allocation")
	}
	if err := array.New[uint16](33).DeviceWrap(other, al); !errors.Is(err, device.ErrOutOfRange) {
		t.Fatalf("wrap of a too-small allocation: %v", err)
	}
	// DeviceAdopt: the Array frees what it adopted, at Close and on error.
	own := sim.New("own", 0)
	for _, bad := range []bool{false, true} {
		al, _ := own.Malloc(64)
		a := array.New[uint16](map[bool]int{false: 32, true: 33}[bad])
		err := a.DeviceAdopt(own, al)
		if bad != (err != nil) {
			t.Fatalf("DeviceAdopt (too small %v): %v", bad, err)
		}
		a.Close()
		if n := own.Stats().AllocsLive; n != 0 {
			t.Fatalf("DeviceAdopt (too small %v) then Close: %d allocations live", bad, n)
		}
	}
}

func TestBothDirtyPanics(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16](8)
	a.CopyToDevice(d)
	a.SetHostDirty(true)
	mustPanicWith(t, array.ErrDirty, func() { a.SetDeviceDirty(true) })
}

// NewOver adopts a block with its contents, frees it at Close, and refuses
// a block too small or misaligned without taking it.
func TestNewOver(t *testing.T) {
	d := sim.New("test", 0)
	blk, err := d.AllocHost(64)
	if err != nil {
		t.Fatal(err)
	}
	b := blk.Bytes()
	for i := range b {
		b[i] = byte(i)
	}
	if _, err := array.NewOver[float64](blk, 9); !errors.Is(err, array.ErrOutOfRange) {
		t.Fatalf("9 float64 in 64 bytes: %v, want ErrOutOfRange", err)
	}
	if _, err := array.NewOver[uint16](offsetBlock{blk}, 4); !errors.Is(err, array.ErrShape) {
		t.Fatalf("misaligned block: %v, want ErrShape", err)
	}
	a, err := array.NewOver[uint16](blk, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := hostAt(t, a, 1, 1); got != 0x0b0a { // bytes 10, 11, little-endian
		t.Fatalf("element (1, 1) = %#x, want the block's bytes 0x0b0a", got)
	}
	deviceWrite(t, d, a.Crop(1, 2, 1), fill(7), false)
	if hostAt(t, a, 3, 2) != 7 || hostAt(t, a, 3, 3) != 0x1f1e {
		t.Fatal("device write over the adopted block")
	}
	a.Close()
	if d.HostBlocksLive() != 0 {
		t.Fatal("Close did not free the adopted block")
	}
}

// offsetBlock is a block's memory from its second byte.
type offsetBlock struct{ device.HostBlock }

func (o offsetBlock) Bytes() []byte { return o.HostBlock.Bytes()[1:] }

// TestZeroDResidency: a 0-D Array's one element follows the same dirty
// rules as any other; its device writes once went unrecorded (an empty
// box), so reads returned the stale host value.
func TestZeroDResidency(t *testing.T) {
	d := sim.New("test", 0)
	a := array.New[uint16]()
	h, _ := a.Host()
	h.Set(3)
	if err := a.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	deviceWrite(t, d, a, fill(7), false)
	if !a.DeviceDirty() || a.HostDirty() {
		t.Fatalf("after a device write: device-dirty %v, host-dirty %v", a.DeviceDirty(), a.HostDirty())
	}
	if got := hostAt(t, a); got != 7 {
		t.Fatalf("host read after a device write = %d, want 7", got)
	}
	h, _ = a.Host()
	h.Set(9)
	if got, err := deviceRead(t, d, a); err != nil || len(got) != 1 || got[0] != 9 {
		t.Fatalf("device read after a host write = %v, %v; want [9]", got, err)
	}
	deviceWrite(t, d, a, fill(11), false)
	if _, err := a.MoveTo(sim.New("other", 0)); err != nil {
		t.Fatal(err)
	}
	if got := hostAt(t, a); got != 11 {
		t.Fatalf("host read after MoveTo = %d, want 11", got)
	}
}

// A strided output view (View's reshape, then Slice: every other element)
// keeps the host-newer values between its elements: dirty state is kept by
// box, so a device write through it first uploads them (counted).
func TestStridedOutputKeepsGaps(t *testing.T) {
	d := sim.New("gaps", 0)
	defer d.Close()
	root := array.New[uint16](8)
	if err := root.CopyToDevice(d); err != nil {
		t.Fatal(err)
	}
	rows, err := root.View(0, []array.Dim{{Extent: 2, Stride: 1}, {Extent: 4, Stride: 2}})
	if err != nil {
		t.Fatal(err)
	}
	even := rows.Slice(0, 0) // elements 0, 2, 4, 6
	h, _ := root.Host()
	h.Set(77, 1)
	h.Set(55, 2)
	before := d.Stats()
	if err := deviceWrite(t, d, even, func(c []int) uint16 { return uint16(100 + c[0]) }, false); err != nil {
		t.Fatal(err)
	}
	if up := d.Stats().Sub(before).H2DCalls; up == 0 {
		t.Error("no upload of the host-newer elements between the view's")
	}
	r, _ := root.HostReadOnly()
	want := []uint16{100, 77, 101, 0, 102, 0, 103, 0}
	for i, w := range want {
		if g := r.At(i); g != w {
			t.Fatalf("element %d: %d, want %d (all: %v)", i, g, w, r)
		}
	}
	// Under the guard the upload is refused, before anything is written.
	h, _ = root.Host()
	h.Set(9, 3)
	was := guard.Set(true)
	err = deviceWrite(t, d, even, func([]int) uint16 { return 1 }, false)
	guard.Set(was)
	if !errors.Is(err, device.ErrTransferGuard) {
		t.Fatalf("under the guard: %v, want ErrTransferGuard", err)
	}
}
