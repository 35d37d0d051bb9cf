package array_test

import (
	"errors"
	"testing"

	"github.com/resident-go/resident/array"
	"github.com/resident-go/resident/device"
	"github.com/resident-go/resident/device/sim"
)

// FuzzResidency drives one memory through random views (crops made before
// and after uploads, siblings, slices, transposes, moved mins, read-only
// broadcasts, whose writes must be refused and change nothing), host
// writes, device writes, failed device writes, syncs, DeviceFree and the
// device's Close, and checks every host and device read against a
// host-only model of the latest write to each element. It also checks
// that a host view is stale exactly when a later device write overlaps it.
func FuzzResidency(f *testing.F) {
	f.Add([]byte{0, 0, 1, 5, 2, 2, 3, 0, 4, 1, 3, 1})
	f.Add([]byte{0, 3, 0, 0, 7, 1, 2, 1, 0, 9, 2, 3, 1, 8, 4, 0})
	f.Add([]byte{1, 0, 2, 0, 0, 1, 4, 0, 3, 1, 6, 1, 3, 0, 9, 0, 2, 1, 3, 1})
	f.Add([]byte{0, 0, 9, 0, 2, 1, 0, 7, 2, 2, 5, 2, 3, 2, 4, 0, 3, 0})
	f.Add([]byte{251, 0, 5, 1, 0, 2, 1, 0, 3, 0, 4, 0, 8, 1, 0, 3, 0, 1, 1, 0, 4})
	f.Add([]byte{250, 0, 0, 0, 2, 3, 0, 2, 0, 0, 0, 1, 1, 1, 0, 9, 1, 0, 8, 1, 0, 3})
	// a broadcast [3 10 12] of the root: refused writes, then reads after
	// host and device writes to the root
	f.Add([]byte{0, 0, 0, 6, 0, 2, 1, 1, 1, 2, 1, 1, 3, 1, 4, 0, 1, 0, 1, 3, 1, 4, 0, 2, 1, 1, 3, 1, 4})
	f.Fuzz(runOne)
}

func runOne(t *testing.T, ops []byte) {
	{
		dev := sim.New("fuzz", 0)
		// The root is 12×10; a first byte ≥ 250 picks a 1-D or a 0-D one
		// (whose one element once had no box, so its device writes were lost).
		mins, ext := []int{3, -2}, []int{12, 10}
		if len(ops) > 0 && ops[0] >= 250 {
			if ops[0]%2 == 0 {
				mins, ext = []int{-4}, []int{7}
			} else {
				mins, ext = nil, nil
			}
			ops = ops[1:]
		}
		root := array.NewWithMins[uint16](mins, ext)
		model := make([]uint16, root.Len())
		base := uintptr(root.Raw().HostPtr())
		views := []*array.Array[uint16]{root}
		next := func() int {
			if len(ops) == 0 {
				return 0
			}
			b := int(ops[0])
			ops = ops[1:]
			return b
		}
		// index is the storage index (= model index) of c in v.
		index := func(v *array.Array[uint16], c []int) int {
			i := int(uintptr(v.Raw().HostPtr())-base) / 2
			for k, d := range v.Dims() {
				i += (c[k] - d.Min) * d.Stride
			}
			return i
		}
		stamp := uint16(1)
		check := func(what string, v *array.Array[uint16], got func(c []int, o int) uint16) {
			each(v.Dims(), func(c []int, o int) {
				if g, w := got(c, o), model[index(v, c)]; g != w {
					t.Fatalf("%s of %v at %v: got %d, want %d", what, v.Dims(), c, g, w)
				}
			})
		}
		for len(ops) > 0 {
			v := views[next()%len(views)]
			switch next() % 10 {
			case 0: // a view of v
				if v.Rank() == 0 || len(views) > 8 {
					continue
				}
				k := next() % v.Rank()
				d := v.Dim(k)
				var w *array.Array[uint16]
				switch next() % 7 {
				case 6: // BroadcastTo: extent-1 axes repeat, maybe a new outer one
					shape := v.Shape()
					for i, e := range shape {
						if e == 1 {
							shape[i] = 1 + next()%3
						}
					}
					if next()%2 == 0 {
						shape = append([]int{1 + next()%3}, shape...)
					}
					var err error
					if w, err = v.BroadcastTo(shape...); err != nil {
						t.Fatalf("BroadcastTo%v of %v: %v", shape, v.Dims(), err)
					}
				case 4: // View: the same elements by other dims, or any layout it accepts
					dims := v.Dims()
					off := 0
					if next()%2 == 0 {
						dims = []array.Dim{{Min: next() - 128, Extent: next() % 13, Stride: next()%15 + 1}, {Extent: next() % 11, Stride: next() % 40}}
						off = next()
					}
					for i := range dims {
						dims[i].Min = next() - 128
					}
					var err error
					if w, err = v.View(off, dims); err != nil {
						continue
					}
				case 0:
					lo := d.Min + next()%max(d.Extent, 1)
					w = v.Crop(k, lo, next()%(d.Max()-lo+2))
				case 1:
					if d.Extent == 0 {
						continue
					}
					w = v.Slice(k, d.Min+next()%d.Extent)
				case 2:
					w = v.Transpose(k, next()%v.Rank())
				default:
					w = v.Translate(k, next()-128)
				}
				views = append(views, w)
			case 1: // host write
				h, err := v.Host()
				if !v.Raw().Writable() {
					if !errors.Is(err, array.ErrReadOnly) {
						t.Fatalf("Host of read-only %v: %v, want ErrReadOnly", v.Dims(), err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				stamp++
				if next()%2 == 0 {
					h.Fill(stamp)
					each(v.Dims(), func(c []int, _ int) { model[index(v, c)] = stamp })
				} else {
					each(v.Dims(), func(c []int, _ int) {
						if (c0(c)+int(stamp))%3 == 0 {
							h.Set(stamp, c...)
							model[index(v, c)] = stamp
						}
					})
				}
			case 2, 7: // device write, or a failed one that must change nothing
				stamp++
				s := stamp
				val := func(c []int) uint16 { return s + uint16(c0(c)*3) }
				fail := next()%4 == 0
				if err := deviceWrite(t, dev, v, val, fail); err != nil {
					if !v.Raw().Writable() && !errors.Is(err, array.ErrReadOnly) {
						t.Fatalf("device write of read-only %v: %v, want ErrReadOnly", v.Dims(), err)
					}
					if !fail && v.Raw().Writable() {
						t.Fatal(err)
					}
					continue
				}
				each(v.Dims(), func(c []int, _ int) { model[index(v, c)] = val(c) })
			case 3: // host read
				h, err := v.HostReadOnly()
				if err != nil {
					t.Fatal(err)
				}
				check("host read", v, func(c []int, _ int) uint16 { return h.At(c...) })
			case 4: // device read
				got, err := deviceRead(t, dev, v)
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				check("device read", v, func([]int, int) uint16 { i++; return got[i-1] })
			case 5:
				var err error
				if next()%2 == 0 {
					err = v.CopyToHost()
				} else {
					err = v.CopyToDevice(dev)
				}
				if err != nil {
					t.Fatal(err)
				}
			case 6:
				if err := v.DeviceFree(); err != nil {
					t.Fatal(err)
				}
			case 8: // the device closes (data comes home) or the memory moves to another
				if next()%2 == 0 {
					if err := dev.Close(); err != nil {
						t.Fatal(err)
					}
					dev = sim.New("fuzz", 0)
					continue
				}
				other := sim.New("fuzz", 0)
				dirty := root.DeviceDirty()
				p, err := v.MoveTo(other)
				if err != nil {
					t.Fatal(err)
				}
				if (p != device.PathNone) != dirty || dev.Stats().AllocsLive != 0 {
					t.Fatalf("MoveTo: path %v with device-dirty data %v; old device %v", p, dirty, dev.Stats())
				}
				dev = other
			case 9: // staleness is by region
				h, err := v.HostReadOnly()
				if err != nil || v.Len() == 0 {
					continue
				}
				w := views[next()%len(views)]
				if !w.Raw().Writable() {
					continue
				}
				stamp++
				s := stamp
				if err := deviceWrite(t, dev, w, func([]int) uint16 { return s }, false); err != nil {
					t.Fatal(err)
				}
				overlap := false
				mine := map[int]bool{}
				each(v.Dims(), func(c []int, _ int) { mine[index(v, c)] = true })
				each(w.Dims(), func(c []int, _ int) {
					overlap = overlap || mine[index(w, c)]
					model[index(w, c)] = s
				})
				first := make([]int, v.Rank())
				for k, d := range v.Dims() {
					first[k] = d.Min
				}
				stale := func() (err error) {
					defer func() { err, _ = recover().(error) }()
					h.At(first...)
					return nil
				}()
				if overlap != errors.Is(stale, array.ErrStale) {
					t.Fatalf("host view of %v after a device write to %v: overlap %v, got %v", v.Dims(), w.Dims(), overlap, stale)
				}
			}
		}
		h, err := root.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		check("final host read", root, func(c []int, _ int) uint16 { return h.At(c...) })
		root.Close()
		if s := dev.Stats(); s.AllocsLive != 0 {
			t.Fatalf("after the root's Close: %v", s)
		}
	}
}

// c0 is the first coordinate, 0 for a 0-D Array.
func c0(c []int) int {
	if len(c) == 0 {
		return 0
	}
	return c[0]
}
