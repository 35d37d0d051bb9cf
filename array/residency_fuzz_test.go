package array

import (
	"testing"

	"github.com/resident-go/resident/device/sim"
)

// FuzzResidency drives an Array and random views of it through device
// writes (as a pipeline output), device reads (as a pipeline input), host
// writes and reads, syncs and closes, and checks every read against a model
// of the latest value written to each element, whichever side wrote it.
func FuzzResidency(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 1, 9, 4, 0, 0})
	f.Add([]byte{0, 1, 2, 1, 3, 1, 7, 3, 0, 2, 5, 4, 1, 4, 0})
	f.Add([]byte{0, 0, 1, 3, 0, 4, 1, 1, 1, 6, 6, 1, 4, 0, 2, 0})
	f.Add([]byte{0, 2, 0, 1, 0, 5, 3, 1, 3, 9, 1, 1, 8, 2, 0, 4, 1, 6, 1, 5, 0, 4, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const w, h = 8, 6
		d := sim.New("fuzz", 0)
		root := New[uint16](w, h)
		if err := root.CopyToDevice(d); err != nil {
			t.Fatal(err)
		}
		truth := make([]uint16, w*h)
		views := []*Array[uint16]{root}
		next := func() int {
			if len(ops) == 0 {
				return 0
			}
			b := int(ops[0])
			ops = ops[1:]
			return b
		}
		val := uint16(1)
		devMem := func(v *Array[uint16], idx int) []byte {
			m := v.Allocation().(*sim.Alloc).Mem()
			o := (idx - v.off) * 2
			return m[o : o+2]
		}
		for step := 0; len(ops) > 0; step++ {
			op := next() % 7
			vi := next() % len(views)
			v := views[vi]
			val++
			switch op {
			case 0: // a new view
				dim := next() % 2
				dd := v.Dim(dim)
				if next()%3 == 0 {
					views = append(views, v.Transpose(0, 1))
					continue
				}
				lo := dd.Min + next()%dd.Extent
				n := 1 + next()%(dd.Max()-lo+1)
				views = append(views, v.Crop(dim, lo, n))
			case 1: // a pipeline writes v on the device
				if v.HostDirty() {
					v.SetHostDirty(false)
				}
				if err := v.DeviceMalloc(d); err != nil {
					t.Fatal(err)
				}
				v.ForEach(func(c []int) {
					i := v.index(c)
					b := devMem(v, i)
					b[0], b[1] = byte(val), byte(val>>8)
					truth[i] = val
				})
				v.SetDeviceDirty(true)
			case 2: // a pipeline reads v on the device
				if err := v.CopyToDevice(d); err != nil {
					t.Fatal(err)
				}
				v.ForEach(func(c []int) {
					i := v.index(c)
					b := devMem(v, i)
					if got := uint16(b[0]) | uint16(b[1])<<8; got != truth[i] {
						t.Fatalf("step %d: device copy of %v at %v holds %d, want %d", step, v.Dims(), c, got, truth[i])
					}
				})
			case 3: // a host write
				hv, err := v.Host()
				if err != nil {
					t.Fatal(err)
				}
				c := make([]int, v.Rank())
				for k := range c {
					c[k] = v.Dim(k).Min + next()%v.Dim(k).Extent
				}
				hv.Set(val, c...)
				truth[v.index(c)] = val
			case 4, 5: // a host read (5: after an explicit CopyToHost)
				if op == 5 {
					if err := v.CopyToHost(); err != nil {
						t.Fatal(err)
					}
				}
				rv, err := v.HostReadOnly()
				if err != nil {
					t.Fatal(err)
				}
				v.ForEach(func(c []int) {
					if got := rv.At(c...); got != truth[v.index(c)] {
						t.Fatalf("step %d: host view of %v at %v reads %d, want %d", step, v.Dims(), c, got, truth[v.index(c)])
					}
				})
			case 6: // close a view (never the root)
				if v != root {
					v.Close()
					for i, x := range views {
						if x == v {
							views = append(views[:i], views[i+1:]...)
							break
						}
					}
				}
			}
		}
		// The root reads everything right at the end, and nothing leaks.
		rv, err := root.HostReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		root.ForEach(func(c []int) {
			if got := rv.At(c...); got != truth[root.index(c)] {
				t.Fatalf("end: root at %v reads %d, want %d", c, got, truth[root.index(c)])
			}
		})
		for _, v := range views {
			v.Close()
		}
		if n := d.Stats().AllocsLive; n != 0 {
			t.Fatalf("%d allocations live after every view closed", n)
		}
	})
}
