package cuda

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/resident-go/resident/device"
)

// TestLaunchShape: a launch covers the global size exactly (blocks ×
// threads = Global in every dimension), within CUDA's limits, or is an
// error; unset local sizes pick the largest divisor up to 256.
func TestLaunchShape(t *testing.T) {
	for _, c := range []struct {
		g           device.Grid
		grid, block [3]int
	}{
		{device.Grid{Dims: 1, Global: [3]int{1}}, [3]int{1, 1, 1}, [3]int{1, 1, 1}},
		{device.Grid{Dims: 1, Global: [3]int{1 << 20}}, [3]int{4096, 1, 1}, [3]int{256, 1, 1}},
		{device.Grid{Dims: 1, Global: [3]int{1000}}, [3]int{4, 1, 1}, [3]int{250, 1, 1}},
		{device.Grid{Dims: 1, Global: [3]int{257}}, [3]int{257, 1, 1}, [3]int{1, 1, 1}}, // a prime over 256: blocks of 1
		{device.Grid{Dims: 1, Global: [3]int{512}, Local: [3]int{128}}, [3]int{4, 1, 1}, [3]int{128, 1, 1}},
		{device.Grid{Dims: 3, Global: [3]int{64, 32, 5}, Local: [3]int{16, 16, 1}}, [3]int{4, 2, 5}, [3]int{16, 16, 1}},
	} {
		grid, block, err := launchShape(c.g, 1024)
		if err != nil || grid != c.grid || block != c.block {
			t.Errorf("launchShape(%+v) = %v, %v, %v; want %v, %v", c.g, grid, block, err, c.grid, c.block)
		}
	}
	for _, g := range []device.Grid{
		{Dims: 0},
		{Dims: 4, Global: [3]int{1, 1, 1}},
		{Dims: 1, Global: [3]int{0}},
		{Dims: 1, Global: [3]int{1000}, Local: [3]int{300}},      // does not divide
		{Dims: 2, Global: [3]int{64, 64}, Local: [3]int{64, 32}}, // 2048 threads
		{Dims: 3, Global: [3]int{1, 1, 128}, Local: [3]int{1, 1, 128}},
		{Dims: 2, Global: [3]int{1, 1 << 17}, Local: [3]int{1, 1}}, // 2^17 blocks in y
	} {
		if _, _, err := launchShape(g, 1024); !errors.Is(err, device.ErrOutOfRange) {
			t.Errorf("launchShape(%+v): %v, want an error wrapping ErrOutOfRange", g, err)
		}
	}
	// property: any grid of sizes up to 3000 is covered exactly
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		g := device.Grid{Dims: 1 + r.IntN(3)}
		for i := range g.Dims {
			g.Global[i] = 1 + r.IntN(3000)
		}
		grid, block, err := launchShape(g, 1024)
		if err != nil {
			t.Fatalf("launchShape(%+v): %v", g, err)
		}
		for i := range 3 {
			want := 1
			if i < g.Dims {
				want = g.Global[i]
			}
			if grid[i]*block[i] != want || block[0] > 256 {
				t.Fatalf("launchShape(%+v) = %v × %v", g, grid, block)
			}
		}
	}
}

// TestPack: every argument in its own 16-byte-aligned slot with its
// value's bytes; Local arguments become offsets (16-byte aligned) into
// the shared memory they add up to; sizes are checked where known.
func TestPack(t *testing.T) {
	pair := make([]byte, 24)
	for i := range pair {
		pair[i] = byte(i + 1)
	}
	args := []any{device.Buffer(0xdead0000), device.Local(10), int32(-5), int64(1 << 40), pair, device.Local(7),
		float32(1.5), uint8(200), int8(-1), uint16(65535), int16(-2), uint32(7), uint64(1 << 63), float64(-0.25)}
	want := [][]byte{le(0xdead0000, 8), le(0, 8), le(0xfffffffb, 4), le(1<<40, 8), pair, le(16, 8),
		le(uint64(math.Float32bits(1.5)), 4), {200}, {255}, {255, 255}, {254, 255}, le(7, 4), le(1<<63, 8), le(math.Float64bits(-0.25), 8)}
	for _, sizes := range [][]int{nil, {8, 8, 4, 8, 24, 8, 4, 1, 1, 2, 2, 4, 8, 8}} {
		k := &kernel{sizes: sizes}
		shared, err := k.pack(k.sizes, args)
		if err != nil {
			t.Fatal(err)
		}
		if shared != 16+7 {
			t.Errorf("shared memory %d, want 23", shared)
		}
		if len(k.offs) != len(args) {
			t.Fatalf("%d slots for %d arguments", len(k.offs), len(args))
		}
		for i, w := range want {
			o := int(k.offs[i])
			if o%16 != 0 || (i > 0 && o < int(k.offs[i-1])+len(want[i-1])) {
				t.Fatalf("slot %d at %d (offsets %v)", i, o, k.offs)
			}
			if got := k.blob[o : o+len(w)]; string(got) != string(w) {
				t.Errorf("argument %d (%T): bytes %v, want %v", i, args[i], got, w)
			}
		}
	}
	k := &kernel{sizes: []int{8, 4}}
	for _, bad := range [][]any{
		{device.Buffer(1)},                  // too few
		{device.Buffer(1), int64(2)},        // 8 bytes for a 4-byte parameter
		{device.Buffer(1), 3},               // int: no fixed size
		{device.Buffer(1), []byte{}},        // empty struct
		{device.Local(-1), int32(0)},        // negative local size
		{device.Buffer(1), int32(1), 1.0},   // too many
		{device.Buffer(1), "four bytes"},    // not an argument type
		{struct{ a, b int }{}, int32(1)},    // nor this
		{device.Buffer(1), []int32{1}},      // a slice of another type
		{device.Buffer(1), uintptr(1 << 3)}, // uintptr: not fixed size for the kernel
	} {
		if _, err := k.pack(k.sizes, bad); !errors.Is(err, device.ErrOutOfRange) {
			t.Errorf("pack(%v): %v, want an error wrapping ErrOutOfRange", bad, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { k.pack(k.sizes, []any{device.Buffer(1), int32(2)}) }); n != 0 {
		t.Errorf("pack allocates %v times once its buffers have grown", n)
	}
}

func le(v uint64, n int) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, v)
	return b[:n]
}
